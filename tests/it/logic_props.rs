//! Property tests: every decision procedure agrees with brute-force evaluation
//! over all assignments, for random formulae over V = {0,1} and V = {0,1,2,3};
//! smart constructors and substitution agree with evaluation.

use pomset::logic::{Assignment, Cmp, FormulaId, Logic, Subst, TermId, Var};
use proptest::prelude::*;

/// A raw term, evaluated independently of the arena's smart constructors.
#[derive(Clone, Debug)]
enum T {
    Val(i64),
    V(Var),
    Add(Box<T>, Box<T>),
    Sub(Box<T>, Box<T>),
    Neg(Box<T>),
    Mem(Box<T>),
}

#[derive(Clone, Debug)]
enum F {
    True,
    False,
    Q(i64),
    Cmp(Cmp, T, T),
    Not(Box<F>),
    And(Box<F>, Box<F>),
    Or(Box<F>, Box<F>),
    Implies(Box<F>, Box<F>),
}

fn var() -> impl Strategy<Value = Var> {
    prop_oneof![
        (0u32..3).prop_map(Var::Reg),
        (0u32..2).prop_map(Var::Read),
        (0i64..3).prop_map(Var::Loc),
    ]
}

/// The simultaneous substitution of these terms and quiescence formulae.
fn substitution(l: &mut Logic, terms: &[(Var, T)], quiescent: &[(i64, F)]) -> Subst {
    let mut sigma = Subst::new();
    for (v, m) in terms {
        let m = build_term(l, m);
        sigma = sigma.term(*v, m);
    }
    for (q, psi) in quiescent {
        let psi = build(l, psi);
        sigma = sigma.quiescent(*q, psi);
    }
    sigma
}

/// Variables from a wider range than `var`'s: most are in no generated formula.
fn wide_var() -> impl Strategy<Value = Var> {
    prop_oneof![
        (0u32..40).prop_map(Var::Reg),
        (0u32..40).prop_map(Var::Read),
        (0i64..5).prop_map(Var::Loc),
    ]
}

fn leaf_term() -> impl Strategy<Value = T> {
    prop_oneof![1 => (-1i64..4).prop_map(T::Val), 3 => var().prop_map(T::V)]
}

/// Terms of the shapes the semantics builds; `[L]` wraps small addresses so the
/// locations it can name (and brute force's work) stay few.
fn term() -> impl Strategy<Value = T> {
    let mem = prop_oneof![
        var().prop_map(T::V),
        var().prop_map(|v| T::Add(Box::new(T::V(v)), Box::new(T::Val(1)))),
    ]
    .prop_map(|a| T::Mem(Box::new(a)));
    let base = prop_oneof![4 => leaf_term(), 1 => mem];
    base.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| T::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| T::Sub(Box::new(a), Box::new(b))),
            inner.prop_map(|a| T::Neg(Box::new(a))),
        ]
    })
}

fn cmp() -> impl Strategy<Value = Cmp> {
    prop_oneof![Just(Cmp::Eq), Just(Cmp::Ne), Just(Cmp::Lt), Just(Cmp::Le)]
}

fn formula() -> impl Strategy<Value = F> {
    let leaf = prop_oneof![
        1 => Just(F::True),
        1 => Just(F::False),
        2 => (0i64..2).prop_map(F::Q),
        10 => (cmp(), term(), term()).prop_map(|(c, a, b)| F::Cmp(c, a, b)),
    ];
    leaf.prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| F::Not(Box::new(f))),
            (inner.clone(), inner.clone()).prop_map(|(f, g)| F::And(Box::new(f), Box::new(g))),
            (inner.clone(), inner.clone()).prop_map(|(f, g)| F::Or(Box::new(f), Box::new(g))),
            (inner.clone(), inner).prop_map(|(f, g)| F::Implies(Box::new(f), Box::new(g))),
        ]
    })
}

fn build_term(l: &mut Logic, t: &T) -> TermId {
    match t {
        T::Val(v) => l.value(*v),
        T::V(v) => l.var(*v),
        T::Add(a, b) => {
            let (a, b) = (build_term(l, a), build_term(l, b));
            l.add(a, b)
        }
        T::Sub(a, b) => {
            let (a, b) = (build_term(l, a), build_term(l, b));
            l.sub(a, b)
        }
        T::Neg(a) => {
            let a = build_term(l, a);
            l.neg(a)
        }
        T::Mem(a) => {
            let a = build_term(l, a);
            l.mem(a)
        }
    }
}

fn build(l: &mut Logic, f: &F) -> FormulaId {
    match f {
        F::True => l.tt(),
        F::False => l.ff(),
        F::Q(a) => l.quiescent(*a),
        F::Cmp(c, a, b) => {
            let (a, b) = (build_term(l, a), build_term(l, b));
            l.cmp(*c, a, b)
        }
        F::Not(g) => {
            let g = build(l, g);
            l.not(g)
        }
        F::And(g, h) => {
            let (g, h) = (build(l, g), build(l, h));
            l.and(g, h)
        }
        F::Or(g, h) => {
            let (g, h) = (build(l, g), build(l, h));
            l.or(g, h)
        }
        F::Implies(g, h) => {
            let (g, h) = (build(l, g), build(l, h));
            l.implies(g, h)
        }
    }
}

fn eval_raw_term(t: &T, env: &Assignment) -> i64 {
    let get = |v: Var| env.values.get(&v).copied().unwrap_or(0);
    match t {
        T::Val(v) => *v,
        T::V(v) => get(*v),
        T::Add(a, b) => eval_raw_term(a, env).saturating_add(eval_raw_term(b, env)),
        T::Sub(a, b) => eval_raw_term(a, env).saturating_sub(eval_raw_term(b, env)),
        T::Neg(a) => eval_raw_term(a, env).saturating_neg(),
        T::Mem(a) => get(Var::Loc(eval_raw_term(a, env))),
    }
}

fn eval_raw(f: &F, env: &Assignment) -> bool {
    match f {
        F::True => true,
        F::False => false,
        F::Q(a) => env.quiescent.get(a).copied().unwrap_or(false),
        F::Cmp(c, a, b) => c.holds(eval_raw_term(a, env), eval_raw_term(b, env)),
        F::Not(g) => !eval_raw(g, env),
        F::And(g, h) => eval_raw(g, env) && eval_raw(h, env),
        F::Or(g, h) => eval_raw(g, env) || eval_raw(h, env),
        F::Implies(g, h) => !eval_raw(g, env) || eval_raw(h, env),
    }
}

/// A random assignment over V to every variable the generators use.
fn assignment(values: &'static [i64]) -> impl Strategy<Value = Assignment> {
    let n = values.len();
    (
        proptest::collection::vec(0..n, 12),
        proptest::collection::vec(any::<bool>(), 2),
    )
        .prop_map(move |(ix, qs)| {
            let vars = (0..3)
                .map(Var::Reg)
                .chain((0..2).map(Var::Read))
                .chain((0..7).map(|a| Var::Loc(a - 1)));
            let mut env = Assignment::new();
            for (v, i) in vars.zip(ix) {
                env = env.with(v, values[i]);
            }
            for (a, q) in qs.into_iter().enumerate() {
                env = env.with_quiescent(a as i64, q);
            }
            env
        })
}

const V2: &[i64] = &[0, 1];
const V4: &[i64] = &[0, 1, 2, 3];

fn config() -> ProptestConfig {
    ProptestConfig {
        // 64 in CI; `PROPTEST_CASES=N` for a long run.
        cases: crate::gen::cases(64),
        ..ProptestConfig::default()
    }
}

/// Checks every decision procedure on `f`, `g` against brute force over `values`.
fn decisions_agree(
    values: &[i64],
    f: &F,
    g: &F,
    reads: &[(u32, i64)],
) -> Result<(), TestCaseError> {
    let mut l = Logic::new(values);
    // Every query goes to the solver, so the oracle really checks the encoding.
    l.set_enumeration_limit(0);
    let (f, g) = (build(&mut l, f), build(&mut l, g));
    prop_assert_eq!(l.satisfiable(f), l.brute_force_satisfiable(f));
    prop_assert_eq!(l.tautology(f), l.brute_force_tautology(f));
    prop_assert_eq!(l.entails(f, g), l.brute_force_entails(f, g));
    prop_assert_eq!(l.entails(g, f), l.brute_force_entails(g, f));
    prop_assert_eq!(l.equivalent(f, g), l.brute_force_equivalent(f, g));
    let theta = l.theta(reads);
    let both = l.and(f, theta);
    prop_assert_eq!(l.consistent_with(f, theta), l.brute_force_satisfiable(both));
    // The cache must return what the solver said.
    prop_assert_eq!(l.satisfiable(f), l.brute_force_satisfiable(f));
    prop_assert_eq!(l.tautology(f), l.brute_force_tautology(f));
    // θ's symbols replaced by their values (M3a's form), by the solver and
    // by enumeration, which the substituted formula is small enough for.
    let consistent = l.brute_force_satisfiable(both);
    prop_assert_eq!(l.consistent_under(f, reads), consistent);
    l.set_cache(false);
    l.set_enumeration_limit(512);
    prop_assert_eq!(l.consistent_under(f, reads), consistent);
    Ok(())
}

/// θ_λ's reads: a symbol may repeat, with another value, and a value may
/// lie outside V (5), where the symbol cannot take it.
fn reads(values: &'static [i64]) -> impl Strategy<Value = Vec<(u32, i64)>> {
    let value = prop_oneof![6 => proptest::sample::select(values), 1 => Just(5i64)];
    proptest::collection::vec((0u32..3, value), 0..4)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn decisions_agree_with_brute_force_v2(f in formula(), g in formula(), rs in reads(V2)) {
        decisions_agree(V2, &f, &g, &rs)?;
    }

    #[test]
    fn decisions_agree_with_brute_force_v4(f in formula(), g in formula(), rs in reads(V4)) {
        decisions_agree(V4, &f, &g, &rs)?;
    }

    /// The smart constructors never change meaning.
    #[test]
    fn constructors_preserve_meaning(f in formula(), env in assignment(V4)) {
        let mut l = Logic::new(V4);
        let built = build(&mut l, &f);
        prop_assert_eq!(l.eval(built, &env), eval_raw(&f, &env));
    }

    /// eval(φ[M/v], σ) = eval(φ, σ[v ↦ eval(M, σ)]) for registers, s_e and locations.
    #[test]
    fn substitution_commutes_with_evaluation(
        f in formula(), m in term(), v in var(), env in assignment(V4),
    ) {
        let mut l = Logic::new(V4);
        let (phi, m) = (build(&mut l, &f), build_term(&mut l, &m));
        let substituted = l.subst_var(phi, v, m);
        let updated = env.clone().with(v, l.eval_term(m, &env));
        prop_assert_eq!(l.eval(substituted, &env), l.eval(phi, &updated));
    }

    /// The simultaneous form: [M₁/v₁, M₂/v₂, ψ/Q_ℓ] evaluates every replacement in σ.
    #[test]
    fn simultaneous_substitution_commutes_with_evaluation(
        f in formula(), m1 in term(), m2 in term(), psi in formula(),
        v1 in var(), v2 in var(), q in 0i64..2, env in assignment(V4),
    ) {
        prop_assume!(v1 != v2);
        let mut l = Logic::new(V4);
        let phi = build(&mut l, &f);
        let (m1, m2, psi) = (build_term(&mut l, &m1), build_term(&mut l, &m2), build(&mut l, &psi));
        let sigma = Subst::new().term(v1, m1).term(v2, m2).quiescent(q, psi);
        let substituted = l.subst(phi, &sigma);
        let updated = env
            .clone()
            .with(v1, l.eval_term(m1, &env))
            .with(v2, l.eval_term(m2, &env))
            .with_quiescent(q, l.eval(psi, &env));
        prop_assert_eq!(l.eval(substituted, &env), l.eval(phi, &updated));
    }

    /// `subst_on` cuts σ to the entries f can use and returns the very
    /// formula `subst` does: entries for variables, locations and
    /// quiescence symbols f never mentions (drawn from a wider range than
    /// f's) are dropped, and every location entry stays under a computed `[L]`.
    #[test]
    fn substitution_cut_to_the_formula_is_the_same_formula(
        f in formula(),
        entries in proptest::collection::vec((wide_var(), term()), 0..8),
        quiescent in proptest::collection::vec((0i64..5, formula()), 0..3),
    ) {
        let mut l = Logic::new(V4);
        let phi = build(&mut l, &f);
        let sigma = substitution(&mut l, &entries, &quiescent);
        let cut = l.subst_on(phi, &sigma);
        prop_assert_eq!(cut, l.subst(phi, &sigma));
    }

    /// `compose(σ, τ)` means σ then τ: f[σ ; τ] and f[σ][τ] take the
    /// same value in every valuation, with registers, read symbols,
    /// locations (also under a computed `[L]`) and quiescence symbols in
    /// either substitution, replaced by one or both.
    #[test]
    fn composed_substitution_means_one_then_the_other(
        f in formula(),
        first in proptest::collection::vec((var(), term()), 0..4),
        then in proptest::collection::vec((var(), term()), 0..4),
        quiescent_first in proptest::collection::vec((0i64..2, formula()), 0..2),
        quiescent_then in proptest::collection::vec((0i64..2, formula()), 0..2),
        env in assignment(V4),
    ) {
        let mut l = Logic::new(V4);
        let phi = build(&mut l, &f);
        let sigma = substitution(&mut l, &first, &quiescent_first);
        let tau = substitution(&mut l, &then, &quiescent_then);
        let both = l.compose(&sigma, &tau);
        let once = l.subst(phi, &both);
        let one = l.subst(phi, &sigma);
        let twice = l.subst(one, &tau);
        prop_assert_eq!(l.eval(once, &env), l.eval(twice, &env));
    }

    /// Turning the cache off changes counts, never answers.
    #[test]
    fn cache_does_not_change_answers(fs in proptest::collection::vec(formula(), 1..6)) {
        let mut cached = Logic::new(V2);
        let mut uncached = Logic::new(V2);
        uncached.set_cache(false);
        cached.set_enumeration_limit(0);
        for f in fs.iter().chain(fs.iter()) {
            let (a, b) = (build(&mut cached, f), build(&mut uncached, f));
            prop_assert_eq!(cached.tautology(a), uncached.tautology(b));
            prop_assert_eq!(cached.satisfiable(a), uncached.satisfiable(b));
        }
        prop_assert_eq!(uncached.stats().cache_hits, 0);
    }

    /// The default strategy (enumerating small spaces, solving the rest) agrees
    /// with the solver alone.
    #[test]
    fn enumeration_and_solver_agree(f in formula()) {
        let mut hybrid = Logic::new(V4);
        let mut solver = Logic::new(V4);
        solver.set_enumeration_limit(0);
        let (a, b) = (build(&mut hybrid, &f), build(&mut solver, &f));
        prop_assert_eq!(hybrid.satisfiable(a), solver.satisfiable(b));
        prop_assert_eq!(hybrid.tautology(a), solver.tautology(b));
    }
}
