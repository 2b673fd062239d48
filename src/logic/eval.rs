//! Evaluation under an assignment, and the brute-force decision procedures that
//! the SAT path is tested and benchmarked against.
//!
//! Arithmetic is exact on `i64`; a result beyond `i64` saturates. The smart
//! constructors and the SAT encoding use the same saturating operations, so all
//! three agree on every formula.

use std::collections::BTreeMap;

use super::formula::{Addr, Formula, FormulaId, Logic, Term, TermId, Var};

/// An assignment of values to variables and truth values to quiescence symbols.
pub trait Valuation {
    fn value(&self, v: Var) -> i64;
    fn quiescent(&self, addr: Addr) -> bool;
}

/// A finite assignment; unmentioned variables are 0 and unmentioned `Q_x` false.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    pub values: BTreeMap<Var, i64>,
    pub quiescent: BTreeMap<Addr, bool>,
}

impl Assignment {
    pub fn new() -> Assignment {
        Assignment::default()
    }

    /// `σ[v ↦ x]`.
    pub fn with(mut self, v: Var, x: i64) -> Assignment {
        self.values.insert(v, x);
        self
    }

    /// `σ[Q_ℓ ↦ b]`.
    pub fn with_quiescent(mut self, addr: Addr, b: bool) -> Assignment {
        self.quiescent.insert(addr, b);
        self
    }
}

impl Valuation for Assignment {
    fn value(&self, v: Var) -> i64 {
        self.values.get(&v).copied().unwrap_or(0)
    }
    fn quiescent(&self, addr: Addr) -> bool {
        self.quiescent.get(&addr).copied().unwrap_or(false)
    }
}

/// The free symbols of some formulae, over which brute force enumerates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Support {
    /// Registers, `s_e`, and every location a (computed) address can name over V.
    pub vars: Vec<Var>,
    pub quiescent: Vec<Addr>,
}

/// The assignment brute force steps through: dense slots, looked up by position.
struct Dense<'a> {
    support: &'a Support,
    values: Vec<i64>,
    quiescent: Vec<bool>,
}

impl Valuation for Dense<'_> {
    fn value(&self, v: Var) -> i64 {
        match self.support.vars.binary_search(&v) {
            Ok(i) => self.values[i],
            Err(_) => 0,
        }
    }
    fn quiescent(&self, addr: Addr) -> bool {
        match self.support.quiescent.binary_search(&addr) {
            Ok(i) => self.quiescent[i],
            Err(_) => false,
        }
    }
}

impl Logic {
    /// The value of `t` under `env`.
    pub fn eval_term(&self, t: TermId, env: &impl Valuation) -> i64 {
        match self.term(t) {
            Term::Value(v) => v,
            Term::Var(v) => env.value(v),
            Term::Add(a, b) => self
                .eval_term(a, env)
                .saturating_add(self.eval_term(b, env)),
            Term::Sub(a, b) => self
                .eval_term(a, env)
                .saturating_sub(self.eval_term(b, env)),
            Term::Mul(a, b) => self
                .eval_term(a, env)
                .saturating_mul(self.eval_term(b, env)),
            Term::Neg(a) => self.eval_term(a, env).saturating_neg(),
            Term::Mem(l) => env.value(Var::Loc(self.eval_term(l, env))),
            Term::IfEq {
                lhs,
                rhs,
                then,
                els,
            } => {
                if self.eval_term(lhs, env) == self.eval_term(rhs, env) {
                    self.eval_term(then, env)
                } else {
                    self.eval_term(els, env)
                }
            }
        }
    }

    /// The truth of `f` under `env`.
    pub fn eval(&self, f: FormulaId, env: &impl Valuation) -> bool {
        match self.formula(f) {
            Formula::True => true,
            Formula::False => false,
            Formula::Quiescent(a) => env.quiescent(a),
            Formula::Cmp(op, a, b) => op.holds(self.eval_term(a, env), self.eval_term(b, env)),
            Formula::Not(g) => !self.eval(g, env),
            Formula::And(g, h) => self.eval(g, env) && self.eval(h, env),
            Formula::Or(g, h) => self.eval(g, env) || self.eval(h, env),
            Formula::Implies(g, h) => !self.eval(g, env) || self.eval(h, env),
        }
    }

    /// The symbols brute force must enumerate to decide `fs` over V.
    pub fn support(&mut self, fs: &[FormulaId]) -> Support {
        let mut vars = Vec::new();
        let mut quiescent = Vec::new();
        let mut seen_f = std::collections::HashSet::new();
        let mut seen_t = std::collections::HashSet::new();
        let mut stack: Vec<FormulaId> = fs.to_vec();
        let mut terms: Vec<TermId> = Vec::new();
        while let Some(f) = stack.pop() {
            if !seen_f.insert(f) {
                continue;
            }
            match self.formula(f) {
                Formula::True | Formula::False => {}
                Formula::Quiescent(a) => quiescent.push(a),
                Formula::Cmp(_, a, b) => terms.extend([a, b]),
                Formula::Not(g) => stack.push(g),
                Formula::And(g, h) | Formula::Or(g, h) | Formula::Implies(g, h) => {
                    stack.extend([g, h])
                }
            }
        }
        while let Some(t) = terms.pop() {
            if !seen_t.insert(t) {
                continue;
            }
            match self.term(t) {
                Term::Value(_) => {}
                Term::Var(v) => vars.push(v),
                Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) => terms.extend([a, b]),
                Term::Neg(a) => terms.push(a),
                Term::Mem(l) => {
                    // [L] may name any location whose address L can take.
                    let dom = self.domain(l);
                    vars.extend(dom.iter().map(|&a| Var::Loc(a)));
                    terms.push(l);
                }
                Term::IfEq {
                    lhs,
                    rhs,
                    then,
                    els,
                } => terms.extend([lhs, rhs, then, els]),
            }
        }
        vars.sort_unstable();
        vars.dedup();
        quiescent.sort_unstable();
        quiescent.dedup();
        Support { vars, quiescent }
    }

    /// Calls `visit` on every assignment of V to `support` (and tt/ff to its `Q_x`)
    /// until it returns false; returns whether it never did.
    fn for_all_assignments(
        &self,
        support: &Support,
        mut visit: impl FnMut(&Dense) -> bool,
    ) -> bool {
        let values = self.values();
        if values.is_empty() && !support.vars.is_empty() {
            return true;
        }
        let mut digits = vec![0usize; support.vars.len()];
        let mut env = Dense {
            support,
            values: vec![values.first().copied().unwrap_or(0); support.vars.len()],
            quiescent: vec![false; support.quiescent.len()],
        };
        loop {
            if !visit(&env) {
                return false;
            }
            // Odometer: quiescence bits are the fastest digits, then variables.
            let mut carried = true;
            for q in env.quiescent.iter_mut() {
                *q = !*q;
                if *q {
                    carried = false;
                    break;
                }
            }
            if !carried {
                continue;
            }
            let mut i = 0;
            loop {
                if i == digits.len() {
                    return true;
                }
                digits[i] += 1;
                if digits[i] < values.len() {
                    env.values[i] = values[digits[i]];
                    break;
                }
                digits[i] = 0;
                env.values[i] = values[0];
                i += 1;
            }
        }
    }

    /// Brute force: some assignment over V makes `f` true.
    pub fn brute_force_satisfiable(&mut self, f: FormulaId) -> bool {
        let support = self.support(&[f]);
        self.enumerate_satisfiable(f, &support)
    }

    /// Whether some assignment to `support` makes `f` true.
    pub(crate) fn enumerate_satisfiable(&self, f: FormulaId, support: &Support) -> bool {
        !self.for_all_assignments(support, |env| !self.eval(f, env))
    }

    /// How many assignments brute force visits for `support` (saturating).
    pub fn search_space(&self, support: &Support) -> u64 {
        let vars = u32::try_from(support.vars.len()).unwrap_or(u32::MAX);
        let qs = u32::try_from(support.quiescent.len()).unwrap_or(u32::MAX);
        (self.values.len() as u64)
            .saturating_pow(vars)
            .saturating_mul(2u64.saturating_pow(qs))
    }

    /// Brute force: every assignment over V makes `f` true.
    pub fn brute_force_tautology(&mut self, f: FormulaId) -> bool {
        let support = self.support(&[f]);
        self.for_all_assignments(&support, |env| self.eval(f, env))
    }

    /// Brute force: every assignment making `f` true makes `g` true.
    pub fn brute_force_entails(&mut self, f: FormulaId, g: FormulaId) -> bool {
        let support = self.support(&[f, g]);
        self.for_all_assignments(&support, |env| !self.eval(f, env) || self.eval(g, env))
    }

    /// Brute force: `f` and `g` agree on every assignment.
    pub fn brute_force_equivalent(&mut self, f: FormulaId, g: FormulaId) -> bool {
        let support = self.support(&[f, g]);
        self.for_all_assignments(&support, |env| self.eval(f, env) == self.eval(g, env))
    }
}

impl Logic {
    /// Candidate values of a variable that `f` pins down: for each comparison
    /// atom with `probe` alone on one side, the other side evaluated under
    /// `env`. Used to find a register's final value, which may lie outside V
    /// (`r := 10` with V = {0, 1}): apply the transformer to `r = p` for a
    /// fresh probe `p`, collect the candidates here, then confirm each one by
    /// entailment, which is the definition. The candidates only propose; they
    /// never decide.
    pub fn probe_values(&self, f: FormulaId, probe: Var, env: &impl Valuation) -> Vec<i64> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![f];
        while let Some(g) = stack.pop() {
            if !seen.insert(g) {
                continue;
            }
            match self.formula(g) {
                Formula::Cmp(_, a, b) => {
                    for (x, y) in [(a, b), (b, a)] {
                        if self.term(x) == Term::Var(probe) {
                            out.push(self.eval_term(y, env));
                        }
                    }
                }
                Formula::Not(h) => stack.push(h),
                Formula::And(h, k) | Formula::Or(h, k) | Formula::Implies(h, k) => {
                    stack.extend([h, k]);
                }
                Formula::True | Formula::False | Formula::Quiescent(_) => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Logic {
    /// The registers `f` mentions.
    pub fn registers(&mut self, f: FormulaId) -> Vec<u32> {
        self.support(&[f])
            .vars
            .into_iter()
            .filter_map(|v| match v {
                Var::Reg(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    /// M3a with registers that may leave V: `f` is λ-consistent, or it
    /// mentions a register in `unbounded` (one some LET assigns, whose value
    /// may lie outside V, where satisfiability over V says nothing), so it
    /// is kept. The relaxation only keeps pomsets; it never drops one.
    pub fn consistent_or_unbounded(
        &mut self,
        f: FormulaId,
        theta: FormulaId,
        unbounded: &[u32],
    ) -> bool {
        self.consistent_with(f, theta)
            || (!unbounded.is_empty() && self.registers(f).iter().any(|r| unbounded.contains(r)))
    }
}
