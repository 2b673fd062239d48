//! §1.1 expressions as the logic's terms. The logic's terms are arithmetic
//! only, so an expression is read as a value *by cases*: pairs (guard, term)
//! whose guards are exclusive and cover tt. A comparison or boolean
//! connective used as a value is 1 where it holds and 0 where it does not.
//! (Written for the reference engine; it shares no code with
//! `semantics::expr`.)

use crate::logic::{FormulaId, Logic, Subst, SubstId, TermId, Var};
use crate::syntax::ast::{BinOp, CmpOp, UnOp};
use crate::syntax::core::Expr;

/// A value by cases: exclusive guards covering tt, each with its term.
pub type Value = Vec<(FormulaId, TermId)>;

/// The value of `e`.
pub fn value(l: &mut Logic, e: &Expr) -> Value {
    match e {
        Expr::Int(n) => vec![(l.tt(), l.value(*n))],
        Expr::Reg(r) => vec![(l.tt(), l.reg(*r))],
        Expr::Unary(UnOp::Neg, a) => value(l, a)
            .into_iter()
            .map(|(g, t)| (g, l.neg(t)))
            .collect(),
        Expr::Binary(BinOp::Add, a, b) => combine(l, a, b, Logic::add),
        Expr::Binary(BinOp::Sub, a, b) => combine(l, a, b, Logic::sub),
        Expr::Binary(BinOp::Mul, a, b) => combine(l, a, b, Logic::mul),
        _ => {
            let holds = truth(l, e);
            let fails = l.not(holds);
            let (one, zero) = (l.value(1), l.value(0));
            vec![(holds, one), (fails, zero)]
        }
    }
}

/// `a op b` for two values by cases: every pair of cases.
fn combine(
    l: &mut Logic,
    a: &Expr,
    b: &Expr,
    op: fn(&mut Logic, TermId, TermId) -> TermId,
) -> Value {
    let (va, vb) = (value(l, a), value(l, b));
    let mut out = Vec::new();
    for &(ga, ta) in &va {
        for &(gb, tb) in &vb {
            let g = l.and(ga, gb);
            let t = op(l, ta, tb);
            out.push((g, t));
        }
    }
    out
}

/// An expression as a condition: `M ≠ 0` (Fig. 1's IF, §1.1).
pub fn truth(l: &mut Logic, e: &Expr) -> FormulaId {
    match e {
        Expr::Unary(UnOp::Not, a) => {
            let f = truth(l, a);
            l.not(f)
        }
        Expr::Binary(BinOp::And, a, b) => {
            let (fa, fb) = (truth(l, a), truth(l, b));
            l.and(fa, fb)
        }
        Expr::Binary(BinOp::Or, a, b) => {
            let (fa, fb) = (truth(l, a), truth(l, b));
            l.or(fa, fb)
        }
        Expr::Binary(op, a, b) => match op.comparison() {
            Some(c) => compare(l, c, a, b),
            None => nonzero(l, e),
        },
        _ => nonzero(l, e),
    }
}

/// `a c b`, holding in some pair of cases.
fn compare(l: &mut Logic, c: CmpOp, a: &Expr, b: &Expr) -> FormulaId {
    let (va, vb) = (value(l, a), value(l, b));
    let mut any = l.ff();
    for &(ga, ta) in &va {
        for &(gb, tb) in &vb {
            let atom = match c {
                CmpOp::Eq => l.eq(ta, tb),
                CmpOp::Ne => l.ne(ta, tb),
                CmpOp::Lt => l.lt(ta, tb),
                CmpOp::Le => l.le(ta, tb),
                CmpOp::Gt => l.gt(ta, tb),
                CmpOp::Ge => l.ge(ta, tb),
            };
            let g = l.and(ga, gb);
            let case = l.and(g, atom);
            any = l.or(any, case);
        }
    }
    any
}

fn nonzero(l: &mut Logic, e: &Expr) -> FormulaId {
    let zero = l.value(0);
    let mut any = l.ff();
    for (g, t) in value(l, e) {
        let ne = l.ne(t, zero);
        let case = l.and(g, ne);
        any = l.or(any, case);
    }
    any
}

/// `M = t`.
pub fn equals(l: &mut Logic, m: &Value, t: TermId) -> FormulaId {
    let mut any = l.ff();
    for &(g, mt) in m {
        let eq = l.eq(mt, t);
        let case = l.and(g, eq);
        any = l.or(any, case);
    }
    any
}

/// `[M/v]` together with the simultaneous extra substitution `rest` (for
/// w4a's `[M=v/Q_x]`), one substitution per case of M: (guard, [t/v, rest]),
/// interned in `l`. Built once per transformer, not once per ψ it is
/// applied to.
pub fn cases(l: &mut Logic, v: Var, m: &Value, rest: &Subst) -> Vec<(FormulaId, SubstId)> {
    m.iter()
        .map(|&(g, t)| (g, l.interned(&rest.clone().term(v, t))))
        .collect()
}

/// `ψ[M/v, rest]` from `cases` (made in this `l`): ∨ over the cases of
/// (guard ∧ ψ[t/v, rest]).
pub fn substitute(l: &mut Logic, psi: FormulaId, cases: &[(FormulaId, SubstId)]) -> FormulaId {
    let mut any = l.ff();
    for &(g, sigma) in cases {
        let s = l.subst_interned(psi, sigma);
        let case = l.and(g, s);
        any = l.or(any, case);
    }
    any
}
