//! The bridge to varisat: a one-hot encoding of every term over the values it can
//! take, and a Tseitin encoding of the formula.
//!
//! Why one-hot over reachable values, not bit-vectors: V is small (two to four
//! values in litmus tests), so each term takes few values; the dominant atom
//! `r = v` becomes a single literal; and `+`, `-`, comparisons and `[L]` are
//! value tables, exact by construction with no bit widths or overflow to get
//! right. The cost is quadratic in domain sizes, which stay small for the terms
//! the semantics builds (a sum of k variables over V takes O(k·|V|) values).

use std::rc::Rc;

use varisat::{ExtendFormula, Lit, Solver};

use super::formula::{Addr, Formula, FormulaId, FxMap, Logic, Term, TermId, Var};

/// Above this size an at-most-one constraint uses a ladder instead of all pairs.
const PAIRWISE_AMO: usize = 6;

/// A term's one-hot encoding: `lits[i]` holds iff the term's value is `dom[i]`.
#[derive(Clone)]
struct OneHot {
    dom: Rc<[i64]>,
    lits: Rc<[Lit]>,
}

impl OneHot {
    fn index(&self, v: i64) -> Option<usize> {
        self.dom.binary_search(&v).ok()
    }
}

/// What one SAT call cost, for the stats.
pub(crate) struct Effort {
    pub vars: usize,
    pub clauses: usize,
}

impl Logic {
    /// The values `t` can take as its variables range over V: exact for constants,
    /// variables and locations, a superset for compound terms (which may share
    /// variables); a superset is still exact for the encoding, which pins each
    /// compound term to its operands.
    pub(crate) fn domain(&mut self, t: TermId) -> Rc<[i64]> {
        if let Some(d) = &self.domains[t.0 as usize] {
            return d.clone();
        }
        let d: Rc<[i64]> = match self.term(t) {
            Term::Value(v) => Rc::from([v]),
            Term::Var(_) | Term::Mem(_) => self.values.clone(),
            Term::Add(a, b) => self.combine(a, b, i64::saturating_add),
            Term::Sub(a, b) => self.combine(a, b, i64::saturating_sub),
            Term::Mul(a, b) => self.combine(a, b, i64::saturating_mul),
            Term::Neg(a) => sorted(self.domain(a).iter().map(|x| x.saturating_neg()).collect()),
            Term::IfEq { then, els, .. } => {
                let (x, y) = (self.domain(then), self.domain(els));
                sorted(x.iter().chain(y.iter()).copied().collect())
            }
        };
        self.domains[t.0 as usize] = Some(d.clone());
        d
    }

    fn combine(&mut self, a: TermId, b: TermId, op: fn(i64, i64) -> i64) -> Rc<[i64]> {
        let (x, y) = (self.domain(a), self.domain(b));
        sorted(
            x.iter()
                .flat_map(|&p| y.iter().map(move |&q| op(p, q)))
                .collect(),
        )
    }
}

fn sorted(mut v: Vec<i64>) -> Rc<[i64]> {
    v.sort_unstable();
    v.dedup();
    v.into()
}

/// Decides satisfiability of `f` over V with one fresh solver.
pub(crate) fn satisfiable(logic: &mut Logic, f: FormulaId) -> (bool, Effort) {
    let mut solver = Solver::new();
    let tru = solver.new_lit();
    solver.add_clause(&[tru]);
    let mut enc = Encoder {
        logic,
        solver,
        tru,
        formulae: FxMap::default(),
        terms: FxMap::default(),
        vars: FxMap::default(),
        quiescent: FxMap::default(),
        effort: Effort {
            vars: 1,
            clauses: 1,
        },
    };
    let root = enc.formula(f);
    enc.clause(&[root]);
    // varisat fails only on proof or interrupt errors, neither used here; brute
    // force keeps the answer exact even so.
    let sat = match enc.solver.solve() {
        Ok(sat) => sat,
        Err(_) => enc.logic.brute_force_satisfiable(f),
    };
    (sat, enc.effort)
}

struct Encoder<'l> {
    logic: &'l mut Logic,
    solver: Solver<'static>,
    /// A literal fixed true; its negation is false.
    tru: Lit,
    formulae: FxMap<FormulaId, Lit>,
    terms: FxMap<TermId, OneHot>,
    vars: FxMap<Var, Rc<[Lit]>>,
    quiescent: FxMap<Addr, Lit>,
    effort: Effort,
}

impl Encoder<'_> {
    fn lit(&mut self) -> Lit {
        self.effort.vars += 1;
        self.solver.new_lit()
    }

    /// Adds a clause, dropping false literals and skipping it when one is true.
    fn clause(&mut self, lits: &[Lit]) {
        if lits.contains(&self.tru) {
            return;
        }
        let fls = !self.tru;
        let kept: smallvec::SmallVec<[Lit; 4]> =
            lits.iter().copied().filter(|&l| l != fls).collect();
        self.effort.clauses += 1;
        self.solver.add_clause(&kept);
    }

    /// Literals of which exactly one holds.
    fn one_hot(&mut self, n: usize) -> Rc<[Lit]> {
        match n {
            // No value at all: the constraint is unsatisfiable.
            0 => {
                self.clause(&[]);
                Rc::from([])
            }
            1 => Rc::from([self.tru]),
            2 => {
                let p = self.lit();
                Rc::from([!p, p])
            }
            _ => {
                let lits: Vec<Lit> = (0..n).map(|_| self.lit()).collect();
                self.clause(&lits);
                self.at_most_one(&lits);
                lits.into()
            }
        }
    }

    fn at_most_one(&mut self, lits: &[Lit]) {
        if lits.len() <= PAIRWISE_AMO {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.clause(&[!a, !b]);
                }
            }
            return;
        }
        // Sequential counter: s_i holds once some x_j (j ≤ i) does.
        let mut prev = lits[0];
        for &x in &lits[1..] {
            let s = self.lit();
            self.clause(&[!prev, !x]);
            self.clause(&[!prev, s]);
            self.clause(&[!x, s]);
            prev = s;
        }
    }

    fn var(&mut self, v: Var) -> Rc<[Lit]> {
        if let Some(l) = self.vars.get(&v) {
            return l.clone();
        }
        let n = self.logic.values.len();
        let lits = self.one_hot(n);
        self.vars.insert(v, lits.clone());
        lits
    }

    fn term(&mut self, t: TermId) -> OneHot {
        if let Some(e) = self.terms.get(&t) {
            return e.clone();
        }
        let dom = self.logic.domain(t);
        let e = match self.logic.term(t) {
            Term::Value(_) => OneHot {
                dom,
                lits: Rc::from([self.tru]),
            },
            Term::Var(v) => OneHot {
                dom,
                lits: self.var(v),
            },
            Term::Add(a, b) => self.table(dom, a, b, i64::saturating_add),
            Term::Sub(a, b) => self.table(dom, a, b, i64::saturating_sub),
            Term::Mul(a, b) => self.table(dom, a, b, i64::saturating_mul),
            Term::Neg(a) => {
                let a = self.term(a);
                let me = OneHot {
                    lits: self.one_hot(dom.len()),
                    dom,
                };
                for (i, &x) in a.dom.iter().enumerate() {
                    let k = me.index(x.saturating_neg());
                    self.implied(&[a.lits[i]], &me, k);
                }
                me
            }
            Term::Mem(l) => {
                // §1.5: [L] is location [ℓ] when L = ℓ.
                let l = self.term(l);
                let me = OneHot {
                    lits: self.one_hot(dom.len()),
                    dom,
                };
                for (i, &addr) in l.dom.iter().enumerate() {
                    let loc = self.var(Var::Loc(addr));
                    for (j, &x) in loc.iter().enumerate() {
                        self.clause(&[!l.lits[i], !x, me.lits[j]]);
                    }
                }
                me
            }
            Term::IfEq {
                lhs,
                rhs,
                then,
                els,
            } => {
                let c = self.compare(super::Cmp::Eq, lhs, rhs);
                let (then, els) = (self.term(then), self.term(els));
                let me = OneHot {
                    lits: self.one_hot(dom.len()),
                    dom,
                };
                for (i, &x) in then.dom.iter().enumerate() {
                    self.implied(&[c, then.lits[i]], &me, me.index(x));
                }
                for (i, &x) in els.dom.iter().enumerate() {
                    self.implied(&[!c, els.lits[i]], &me, me.index(x));
                }
                me
            }
        };
        self.terms.insert(t, e.clone());
        e
    }

    /// `∧ premises ⇒ me = dom[k]`; `k` is always in the domain, which is closed
    /// under the operation, but a missing index would just forbid the premises.
    fn implied(&mut self, premises: &[Lit], me: &OneHot, k: Option<usize>) {
        let mut c: smallvec::SmallVec<[Lit; 4]> = premises.iter().map(|&l| !l).collect();
        if let Some(k) = k {
            c.push(me.lits[k]);
        }
        self.clause(&c);
    }

    /// A binary arithmetic node, by its value table.
    fn table(&mut self, dom: Rc<[i64]>, a: TermId, b: TermId, op: fn(i64, i64) -> i64) -> OneHot {
        let (a, b) = (self.term(a), self.term(b));
        let me = OneHot {
            lits: self.one_hot(dom.len()),
            dom,
        };
        for (i, &x) in a.dom.iter().enumerate() {
            for (j, &y) in b.dom.iter().enumerate() {
                let k = me.index(op(x, y));
                self.implied(&[a.lits[i], b.lits[j]], &me, k);
            }
        }
        me
    }

    /// A literal equivalent to `a op b`.
    fn compare(&mut self, op: super::Cmp, a: TermId, b: TermId) -> Lit {
        let (a, b) = (self.term(a), self.term(b));
        if b.dom.len() == 1 {
            return self.select(&a, |x| op.holds(x, b.dom[0]));
        }
        if a.dom.len() == 1 {
            return self.select(&b, |y| op.holds(a.dom[0], y));
        }
        let p = self.lit();
        for (i, &x) in a.dom.iter().enumerate() {
            for (j, &y) in b.dom.iter().enumerate() {
                let q = if op.holds(x, y) { p } else { !p };
                self.clause(&[!a.lits[i], !b.lits[j], q]);
            }
        }
        p
    }

    /// A literal equivalent to "the value of `a` satisfies `pred`".
    fn select(&mut self, a: &OneHot, pred: impl Fn(i64) -> bool) -> Lit {
        let yes: smallvec::SmallVec<[usize; 8]> =
            (0..a.dom.len()).filter(|&i| pred(a.dom[i])).collect();
        let n = a.dom.len();
        match yes.len() {
            0 => return !self.tru,
            k if k == n => return self.tru,
            1 => return a.lits[yes[0]],
            k if k + 1 == n => {
                // One value fails: the atom is the negation of that value's literal.
                let no = (0..n).find(|i| !yes.contains(i)).unwrap_or(0);
                return !a.lits[no];
            }
            _ => {}
        }
        let p = self.lit();
        for i in 0..n {
            let q = if yes.contains(&i) { p } else { !p };
            self.clause(&[!a.lits[i], q]);
        }
        p
    }

    /// A literal equivalent to `f` (Tseitin).
    fn formula(&mut self, f: FormulaId) -> Lit {
        if let Some(&l) = self.formulae.get(&f) {
            return l;
        }
        let l = match self.logic.formula(f) {
            Formula::True => self.tru,
            Formula::False => !self.tru,
            Formula::Quiescent(a) => match self.quiescent.get(&a) {
                Some(&q) => q,
                None => {
                    let q = self.lit();
                    self.quiescent.insert(a, q);
                    q
                }
            },
            Formula::Cmp(op, a, b) => self.compare(op, a, b),
            Formula::Not(g) => !self.formula(g),
            Formula::And(g, h) => {
                let (g, h) = (self.formula(g), self.formula(h));
                self.gate_and(g, h)
            }
            Formula::Or(g, h) => {
                let (g, h) = (self.formula(g), self.formula(h));
                !self.gate_and(!g, !h)
            }
            Formula::Implies(g, h) => {
                let (g, h) = (self.formula(g), self.formula(h));
                !self.gate_and(g, !h)
            }
        };
        self.formulae.insert(f, l);
        l
    }

    /// `p ⇔ g ∧ h`.
    fn gate_and(&mut self, g: Lit, h: Lit) -> Lit {
        let p = self.lit();
        self.clause(&[!p, g]);
        self.clause(&[!p, h]);
        self.clause(&[p, !g, !h]);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_follow_the_operations() {
        let mut l = Logic::new(&[0, 1, 2]);
        let (r, s, one) = (l.reg(0), l.reg(1), l.value(1));
        let sum = l.add(r, one);
        assert_eq!(
            &*l.domain(sum),
            &[1, 2, 3],
            "r + 1 leaves V: arithmetic is exact"
        );
        let diff = l.sub(r, s);
        assert_eq!(&*l.domain(diff), &[-2, -1, 0, 1, 2]);
        let at = l.mem(sum);
        assert_eq!(&*l.domain(at), &[0, 1, 2], "a location holds a value of V");
    }

    #[test]
    fn register_equals_value_is_one_literal() {
        // r = 1 over {0,1,2}: 3 one-hot literals, their constraints, and no gate.
        let mut l = Logic::new(&[0, 1, 2]);
        let (r, one) = (l.reg(0), l.value(1));
        let f = l.eq(r, one);
        let (sat, effort) = satisfiable(&mut l, f);
        assert!(sat);
        assert_eq!(effort.vars, 1 + 3);
    }
}
