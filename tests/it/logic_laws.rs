//! Unit tests: the substitution laws the predicate transformers rely on, the
//! note's worked transformers, value-set dependence, stats, and the printers.

use pomset::logic::{Addr, DefaultNames, FormulaId, Logic, Names, Notation, Subst, Var};

fn unicode(l: &Logic, f: FormulaId) -> String {
    l.display(f, Notation::Unicode, &DefaultNames).to_string()
}

fn ascii(l: &Logic, f: FormulaId) -> String {
    l.display(f, Notation::Ascii, &DefaultNames).to_string()
}

fn latex(l: &Logic, f: FormulaId) -> String {
    l.display(f, Notation::Latex, &DefaultNames).to_string()
}

/// `r0 = 1`, `s0 = 0`, `r1 < r0`, `Q_x0` and the term `r0 + 1`.
struct Fixture {
    l: Logic,
    phi: FormulaId,
    psi: FormulaId,
    chi: FormulaId,
    q: FormulaId,
}

fn fixture(values: &[i64]) -> Fixture {
    let mut l = Logic::new(values);
    let (r0, r1, s0) = (l.reg(0), l.reg(1), l.read(0));
    let (zero, one) = (l.value(0), l.value(1));
    let phi = l.eq(r0, one);
    let psi = l.eq(s0, zero);
    let chi = l.lt(r1, r0);
    let q = l.quiescent(0);
    Fixture {
        l,
        phi,
        psi,
        chi,
        q,
    }
}

// ---- hash-consing and smart constructors ----

#[test]
fn equal_formulae_share_one_node() {
    let Fixture {
        mut l, phi, psi, ..
    } = fixture(&[0, 1]);
    let a = l.and(phi, psi);
    let b = l.and(phi, psi);
    assert_eq!(a, b);
    let (r0, one) = (l.reg(0), l.value(1));
    assert_eq!(l.eq(r0, one), phi);
}

#[test]
fn smart_constructors_fold_constants() {
    let Fixture { mut l, phi, .. } = fixture(&[0, 1]);
    let (tt, ff) = (l.tt(), l.ff());
    assert_eq!(l.and(tt, phi), phi);
    assert_eq!(l.and(ff, phi), ff);
    assert_eq!(l.or(phi, tt), tt);
    assert_eq!(l.or(ff, phi), phi);
    assert_eq!(l.implies(ff, phi), tt);
    assert_eq!(l.implies(tt, phi), phi);
    let v = l.value(2);
    assert_eq!(l.eq(v, v), tt, "v = v is tt");
    let w = l.value(3);
    assert_eq!(l.eq(v, w), ff);
    assert_eq!(l.lt(v, w), tt);
    let not_phi = l.not(phi);
    assert_eq!(l.not(not_phi), phi);
    assert_eq!(l.and(phi, not_phi), ff);
    assert_eq!(l.or(not_phi, phi), tt);
    let r = l.reg(0);
    assert_eq!(l.eq(r, r), tt, "r = r is tt");
    // Arithmetic on constants folds exactly.
    let (two, three) = (l.value(2), l.value(3));
    let five = l.add(two, three);
    assert_eq!(l.as_value(five), Some(5));
}

#[test]
fn negated_comparisons_flip() {
    let Fixture { mut l, chi, .. } = fixture(&[0, 1]);
    let not_chi = l.not(chi);
    assert_eq!(unicode(&l, not_chi), "r0≤r1");
    assert!(l.is_negation(chi, not_chi));
}

// ---- substitution laws ----

#[test]
fn substitution_distributes_over_connectives() {
    let Fixture {
        mut l,
        phi,
        psi,
        chi,
        ..
    } = fixture(&[0, 1, 2]);
    let (r1, one) = (l.reg(1), l.value(1));
    let m = l.add(r1, one);
    let sigma = Subst::new().term(Var::Reg(0), m);
    let sub = |l: &mut Logic, f| l.subst(f, &sigma);

    let and = l.and(phi, chi);
    let lhs = sub(&mut l, and);
    let (a, b) = (sub(&mut l, phi), sub(&mut l, chi));
    assert_eq!(lhs, l.and(a, b), "(φ ∧ ψ)[M/r] = φ[M/r] ∧ ψ[M/r]");

    let or = l.or(phi, psi);
    let lhs = sub(&mut l, or);
    let (a, b) = (sub(&mut l, phi), sub(&mut l, psi));
    assert_eq!(lhs, l.or(a, b));

    let imp = l.implies(phi, chi);
    let lhs = sub(&mut l, imp);
    let (a, b) = (sub(&mut l, phi), sub(&mut l, chi));
    assert_eq!(lhs, l.implies(a, b));

    let neg = l.not(phi);
    let lhs = sub(&mut l, neg);
    let a = sub(&mut l, phi);
    assert_eq!(lhs, l.not(a));

    // ψ does not mention r0, so it is returned unchanged.
    assert_eq!(sub(&mut l, psi), psi);
    assert_eq!(unicode(&l, lhs), "r1+1≠1");
}

#[test]
fn substitution_replaces_the_variable_only() {
    let Fixture { mut l, phi, .. } = fixture(&[0, 1]);
    let two = l.value(2);
    let f = l.subst_var(phi, Var::Reg(0), two);
    assert_eq!(f, l.ff(), "(r0 = 1)[2/r0] = (2 = 1) = ff");
    let g = l.subst_var(phi, Var::Reg(7), two);
    assert_eq!(g, phi);
}

#[test]
fn quiescence_substitution() {
    let Fixture {
        mut l, phi, psi, q, ..
    } = fixture(&[0, 1]);
    assert_eq!(l.subst_quiescent(q, 0, phi), phi, "Q_x[φ/Q_x] = φ");
    assert_eq!(l.subst_quiescent(q, 1, phi), q, "Q_x[φ/Q_y] = Q_x");
    let f = l.and(q, psi);
    let g = l.subst_quiescent(f, 0, phi);
    assert_eq!(g, l.and(phi, psi));
    let ff = l.ff();
    assert_eq!(l.subst_quiescent(f, 0, ff), ff, "(Q_x ∧ ψ)[ff/Q_x] = ff");
}

#[test]
fn substitution_is_memoised() {
    let Fixture {
        mut l, phi, chi, ..
    } = fixture(&[0, 1]);
    let f = l.implies(phi, chi);
    let s = l.read(3);
    let once = l.subst_var(f, Var::Reg(0), s);
    let size = l.arena_len();
    let twice = l.subst_var(f, Var::Reg(0), s);
    assert_eq!(once, twice);
    assert_eq!(
        l.arena_len(),
        size,
        "the second substitution builds no node"
    );
}

#[test]
fn simultaneous_substitution_does_not_cascade() {
    // [r1/r0, r0/r1] swaps: (r1 < r0)[r1/r0, r0/r1] = (r0 < r1).
    let Fixture { mut l, chi, .. } = fixture(&[0, 1]);
    let (r0, r1) = (l.reg(0), l.reg(1));
    let sigma = Subst::new().term(Var::Reg(0), r1).term(Var::Reg(1), r0);
    let swapped = l.subst(chi, &sigma);
    assert_eq!(swapped, l.lt(r0, r1));
}

#[test]
fn computed_locations_substitute_exactly() {
    // §1.5: ([r0] = 1)[2/[0]] is (if r0 = 0 then 2 else [r0]) = 1.
    let mut l = Logic::new(&[0, 1, 2]);
    let r0 = l.reg(0);
    let at_r0 = l.mem(r0);
    let (zero, one, two) = (l.value(0), l.value(1), l.value(2));
    let f = l.eq(at_r0, one);
    let g = l.subst_var(f, Var::Loc(0), two);
    assert_eq!(unicode(&l, g), "(r0=0 ? 2 : [r0])=1");
    // Fixing the address resolves the conditional: r0 = 0 gives 2 = 1, ff.
    assert_eq!(l.subst_var(g, Var::Reg(0), zero), l.ff());
    // r0 = 1 gives the untouched location x1.
    let h = l.subst_var(g, Var::Reg(0), one);
    assert_eq!(unicode(&l, h), "x1=1");
    // [ℓ] for a constant ℓ is the plain location.
    assert_eq!(l.mem(one), l.loc(1));
    // And semantically: [r0] = 1 after [2/[0]] is r0 ≠ 0 ∧ [r0] = 1.
    let r0_ne_0 = l.ne(r0, zero);
    let expected = l.and(r0_ne_0, f);
    assert!(l.equivalent(g, expected));
}

#[test]
fn a_substitution_cut_to_the_formula_keeps_what_the_formula_can_use() {
    // `subst_on` drops the entries the formula never mentions, keeps every
    // location entry under a computed `[L]`, and keeps the quiescence
    // entries of the symbols it has: each time the same formula as `subst`.
    let mut l = Logic::new(&[0, 1, 2]);
    let (r0, zero, two) = (l.reg(0), l.value(0), l.value(2));
    // ¬(0 = 0 + [r0]) under [0/[x0]]: the entry is for a location the
    // formula names only through [r0].
    let at_r0 = l.mem(r0);
    let sum = l.add(zero, at_r0);
    let eq = l.eq(zero, sum);
    let f = l.not(eq);
    let sigma = Subst::new()
        .term(Var::Loc(0), zero)
        .term(Var::Read(30), two)
        .term(Var::Reg(7), two);
    let cut = l.subst_on(f, &sigma);
    assert_eq!(cut, l.subst(f, &sigma));
    assert_ne!(cut, f, "the location entry was kept and applied");
    // (Q_x0 ∧ Q_x1) ∧ Q_x0 under [tt/Q_x0, ff/Q_x3].
    let (q0, q1) = (l.quiescent(0), l.quiescent(1));
    let both = l.and(q0, q1);
    let g = l.and(both, q0);
    let (tt, ff) = (l.tt(), l.ff());
    let sigma = Subst::new().quiescent(0, tt).quiescent(3, ff);
    let cut = l.subst_on(g, &sigma);
    assert_eq!(cut, l.subst(g, &sigma));
    assert_eq!(cut, q1);
}

#[test]
fn composed_substitutions_apply_the_second_inside_the_first() {
    let mut l = Logic::new(&[0, 1, 2]);
    let (r0, r1, zero, one) = (l.reg(0), l.reg(1), l.value(0), l.value(1));
    // Q_x0 under [r0 = 1 / Q_x0] then [1 / r0]: the replacement is
    // substituted too, so the composition is [tt / Q_x0, 1 / r0].
    let q0 = l.quiescent(0);
    let r0_is_1 = l.eq(r0, one);
    let sigma = Subst::new().quiescent(0, r0_is_1);
    let tau = Subst::new().term(Var::Reg(0), one);
    let both = l.compose(&sigma, &tau);
    assert_eq!(l.subst(q0, &both), l.tt());
    // r0 = 0 under [0 / r0] then [1 / r0]: σ's entry (with τ applied)
    // wins, and τ's entry for another register comes along.
    let r0_is_0 = l.eq(r0, zero);
    let r1_is_1 = l.eq(r1, one);
    let f = l.and(r0_is_0, r1_is_1);
    let sigma = Subst::new().term(Var::Reg(0), zero);
    let tau = Subst::new().term(Var::Reg(0), one).term(Var::Reg(1), one);
    let both = l.compose(&sigma, &tau);
    let once = l.subst(f, &both);
    let first = l.subst(f, &sigma);
    assert_eq!(once, l.subst(first, &tau));
    assert_eq!(once, l.tt());
}

// ---- the note's worked transformers ----

#[test]
fn read_transformer() {
    // §1.4 READ r := x with label R x 1, e ∉ D: (1 = s_e ∨ x = s_e) ⇒ ψ[s_e/r], ψ = (r0 = 1).
    let Fixture { mut l, phi, .. } = fixture(&[0, 1]);
    let (s, x, one) = (l.read(0), l.loc(0), l.value(1));
    let (a, b) = (l.eq(one, s), l.eq(x, s));
    let guard = l.or(a, b);
    let body = l.subst_var(phi, Var::Reg(0), s);
    let tau = l.implies(guard, body);
    assert_eq!(unicode(&l, tau), "1=s0 ∨ x0=s0 ⇒ s0=1");
    assert!(!l.tautology(tau), "x may hold 0 = s_e");
    // Under θ_λ = (s_e = 1) it holds: the read saw 1.
    let theta = l.theta(&[(0, 1)]);
    assert!(l.entails(theta, tau));
    // e ∈ D drops the location disjunct: (1 = s_e) ⇒ s_e = 1 is a tautology.
    let in_d = l.implies(a, body);
    assert!(l.tautology(in_d));
}

#[test]
fn write_transformer() {
    // §1.4 WRITE x := r0 + 1 with label W x 2: ψ[M/x][(M = 2)/Q_x].
    let mut l = Logic::new(&[0, 1, 2]);
    let (r0, x, one, two) = (l.reg(0), l.loc(0), l.value(1), l.value(2));
    let m = l.add(r0, one);
    let kappa = l.eq(m, two);
    // ψ = Q_x ∧ x = 2: the location is quiescent and holds 2 afterwards.
    let q = l.quiescent(0);
    let x_is_2 = l.eq(x, two);
    let psi = l.and(q, x_is_2);
    let step = l.subst_var(psi, Var::Loc(0), m);
    let tau = l.subst_quiescent(step, 0, kappa);
    // Both conjuncts become M = v, and hash-consing merges them.
    assert_eq!(tau, kappa);
    assert_eq!(unicode(&l, tau), "r0+1=2");
    // The sequential form equals the simultaneous one (terms contain no Q).
    let sigma = Subst::new().term(Var::Loc(0), m).quiescent(0, kappa);
    assert_eq!(l.subst(psi, &sigma), tau);
    // κ(e) ⊨ τ(ψ); the write with no event substitutes ff for Q_x.
    assert!(l.entails(kappa, tau));
    let ff = l.ff();
    assert_eq!(l.subst_quiescent(step, 0, ff), ff);
}

// ---- decisions over V ----

#[test]
fn tautology_depends_on_v() {
    for (values, expected) in [(&[0, 1][..], true), (&[0, 1, 2][..], false)] {
        let mut l = Logic::new(values);
        let (r, zero, one) = (l.reg(0), l.value(0), l.value(1));
        let (a, b) = (l.eq(r, zero), l.eq(r, one));
        let f = l.or(a, b);
        assert_eq!(l.tautology(f), expected, "r = 0 ∨ r = 1 over {values:?}");
        assert_eq!(l.brute_force_tautology(f), expected);
    }
}

#[test]
fn arithmetic_is_exact_beyond_v() {
    // r + 1 = 4 with r = 3 holds although 4 ∉ V: only variables are confined to V.
    let mut l = Logic::new(&[0, 1, 2, 3]);
    let (r, one, four) = (l.reg(0), l.value(1), l.value(4));
    let sum = l.add(r, one);
    let f = l.eq(sum, four);
    assert!(l.satisfiable(f));
    let x = l.loc(0);
    let g = l.eq(x, four);
    assert!(!l.satisfiable(g), "a location holds a value of V");
    let lt = l.lt(r, four);
    assert!(l.tautology(lt));
}

#[test]
fn consistency_with_theta() {
    // Definition 1.2: κ = (s0 = 1 ∧ s1 = 0) is consistent with R 1, R 0 and not with R 1, R 1.
    let mut l = Logic::new(&[0, 1]);
    let (s0, s1, zero, one) = (l.read(0), l.read(1), l.value(0), l.value(1));
    let (a, b) = (l.eq(s0, one), l.eq(s1, zero));
    let kappa = l.and(a, b);
    let good = l.theta(&[(0, 1), (1, 0)]);
    let bad = l.theta(&[(0, 1), (1, 1)]);
    assert!(l.consistent_with(kappa, good));
    assert!(!l.consistent_with(kappa, bad));
    assert_eq!(l.theta(&[]), l.tt());
}

#[test]
fn stats_count_fast_paths_cache_hits_and_sat_calls() {
    let Fixture {
        mut l, phi, chi, ..
    } = fixture(&[0, 1]);
    let f = l.or(phi, chi);
    l.set_enumeration_limit(0);
    l.reset_stats();
    assert!(!l.tautology(f));
    assert!(!l.tautology(f));
    assert!(l.entails(f, f));
    let tt = l.tt();
    assert!(l.tautology(tt));
    let s = l.stats();
    assert_eq!(s.queries, 4);
    assert_eq!(s.sat_calls, 1);
    assert_eq!(s.cache_hits, 1);
    assert_eq!(s.fast_path, 2);
    assert!(s.sat_vars > 0 && s.sat_clauses > 0);

    l.set_cache(false);
    l.reset_stats();
    assert!(!l.tautology(f));
    assert!(!l.tautology(f));
    assert_eq!(l.stats().sat_calls, 2);
    assert_eq!(l.stats().cache_hits, 0);

    // By default a space of 2^2 assignments is enumerated, not solved.
    l.set_enumeration_limit(pomset::logic::DEFAULT_ENUMERATION_LIMIT);
    l.reset_stats();
    assert!(!l.tautology(f));
    assert_eq!((l.stats().enumerated, l.stats().sat_calls), (1, 0));
}

#[test]
fn equivalence_is_semantic() {
    // (r0 = 1 ⇒ r1 < r0) ≡ (r0 ≠ 1 ∨ r1 < r0), and ≢ (r1 < r0).
    let Fixture {
        mut l, phi, chi, ..
    } = fixture(&[0, 1, 2]);
    let imp = l.implies(phi, chi);
    let not_phi = l.not(phi);
    let or = l.or(not_phi, chi);
    assert_ne!(imp, or);
    assert!(l.equivalent(imp, or));
    assert!(!l.equivalent(imp, chi));
    assert!(l.entails(chi, imp));
    assert!(!l.entails(imp, chi));
}

#[test]
fn empty_value_set_has_no_assignments() {
    let mut l = Logic::new(&[]);
    let (r, zero) = (l.reg(0), l.value(0));
    let f = l.eq(r, zero);
    assert!(!l.satisfiable(f));
    assert!(l.tautology(f));
    let q = l.quiescent(0);
    assert!(l.satisfiable(q), "quiescence symbols are not values");
}

// ---- printers ----

#[test]
fn printers_in_three_notations() {
    let Fixture {
        mut l, phi, psi, ..
    } = fixture(&[0, 1]);
    let f = l.implies(phi, psi);
    assert_eq!(ascii(&l, f), "r0 = 1 => s0 = 0");
    assert_eq!(unicode(&l, f), "r0=1 ⇒ s0=0");
    assert_eq!(latex(&l, f), "r_{0} = 1 \\Rightarrow s_{0} = 0");

    let (q, x, r1, one) = (l.quiescent(0), l.loc(0), l.reg(1), l.value(1));
    let sum = l.sub(r1, one);
    let cmp = l.le(x, sum);
    let not_q = l.not(q);
    let g = l.and(not_q, cmp);
    let h = l.or(g, phi);
    assert_eq!(ascii(&l, h), "!Q_x0 && x0 <= r1 - 1 || r0 = 1");
    assert_eq!(unicode(&l, h), "¬Q_x0 ∧ x0≤r1-1 ∨ r0=1");
    assert_eq!(
        latex(&l, h),
        "\\neg Q_{x_{0}} \\land x_{0} \\leq r_{1} - 1 \\lor r_{0} = 1"
    );
    let tt = l.tt();
    assert_eq!(latex(&l, tt), "\\mathsf{tt}");
}

#[test]
fn printers_use_minimal_parentheses() {
    let Fixture {
        mut l,
        phi,
        psi,
        chi,
        q,
    } = fixture(&[0, 1]);
    let right = l.implies(psi, chi);
    let f = l.implies(phi, right);
    assert_eq!(
        unicode(&l, f),
        "r0=1 ⇒ s0=0 ⇒ r1<r0",
        "⇒ associates to the right"
    );
    let left = l.implies(phi, psi);
    let g = l.implies(left, chi);
    assert_eq!(unicode(&l, g), "(r0=1 ⇒ s0=0) ⇒ r1<r0");
    let or = l.or(psi, chi);
    let h = l.and(phi, or);
    assert_eq!(unicode(&l, h), "r0=1 ∧ (s0=0 ∨ r1<r0)");
    let and = l.and(phi, q);
    let n = l.not(and);
    assert_eq!(ascii(&l, n), "!(r0 = 1 && Q_x0)");
    let (r0, r1, two) = (l.reg(0), l.reg(1), l.value(2));
    let diff = l.sub(r1, r0);
    let t = l.sub(two, diff);
    let neg = l.neg(t);
    let at = l.mem(neg);
    let m = l.eq(at, r0);
    assert_eq!(ascii(&l, m), "[-(2 - (r1 - r0))] = r0");
}

#[test]
fn printers_take_the_front_ends_names() {
    struct Litmus;
    impl Names for Litmus {
        fn reg(&self, r: u32) -> String {
            ["a", "b"]
                .get(r as usize)
                .map_or(format!("r{r}"), |s| s.to_string())
        }
        fn read(&self, e: u32) -> String {
            format!("s{e}")
        }
        fn loc(&self, addr: Addr) -> String {
            ["x", "y"]
                .get(addr as usize)
                .map_or(format!("[{addr}]"), |s| s.to_string())
        }
    }
    let Fixture { mut l, phi, q, .. } = fixture(&[0, 1]);
    let f = l.and(phi, q);
    assert_eq!(
        l.display(f, Notation::Unicode, &Litmus).to_string(),
        "a=1 ∧ Q_x"
    );
    assert_eq!(
        l.display(f, Notation::Latex, &Litmus).to_string(),
        "a = 1 \\land Q_{x}"
    );
}
