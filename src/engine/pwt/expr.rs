//! Core expressions as logic terms and formulae (§1.1: an expression used as
//! a condition means M ≠ 0). The logic's terms have only arithmetic, so an
//! expression with boolean parts becomes a case split: a list of (condition,
//! term) pairs whose conditions partition tt. `ψ[M/r]` is then
//! ∨ (c ∧ ψ[t/r]) over the cases, which is exact.

use crate::logic::{FormulaId, Logic, TermId, Var};
use crate::syntax::ast::{BinOp, CmpOp, UnOp};
use crate::syntax::core::Expr;

/// A term by cases: the conditions are pairwise exclusive and cover tt.
pub type Cases = Vec<(FormulaId, TermId)>;

fn cmp(l: &mut Logic, op: CmpOp, a: TermId, b: TermId) -> FormulaId {
    match op {
        CmpOp::Eq => l.eq(a, b),
        CmpOp::Ne => l.ne(a, b),
        CmpOp::Lt => l.lt(a, b),
        CmpOp::Le => l.le(a, b),
        CmpOp::Gt => l.gt(a, b),
        CmpOp::Ge => l.ge(a, b),
    }
}

/// The value of `e`, by cases.
pub fn cases(l: &mut Logic, e: &Expr) -> Cases {
    match e {
        Expr::Int(n) => vec![(l.tt(), l.value(*n))],
        Expr::Reg(r) => vec![(l.tt(), l.var(Var::Reg(*r)))],
        Expr::Unary(UnOp::Neg, a) => cases(l, a)
            .into_iter()
            .map(|(c, t)| (c, l.neg(t)))
            .collect(),
        Expr::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
            let (ca, cb) = (cases(l, a), cases(l, b));
            let mut out = Vec::new();
            for &(c1, t1) in &ca {
                for &(c2, t2) in &cb {
                    let c = l.and(c1, c2);
                    if c == l.ff() {
                        continue;
                    }
                    let t = match op {
                        BinOp::Add => l.add(t1, t2),
                        BinOp::Mul => l.mul(t1, t2),
                        _ => l.sub(t1, t2),
                    };
                    out.push((c, t));
                }
            }
            out
        }
        // A boolean expression is 1 where it holds and 0 elsewhere.
        _ => {
            let f = formula(l, e);
            let (one, zero) = (l.value(1), l.value(0));
            let nf = l.not(f);
            [(f, one), (nf, zero)]
                .into_iter()
                .filter(|(c, _)| *c != l.ff())
                .collect()
        }
    }
}

/// `e ≠ 0` as a formula.
pub fn formula(l: &mut Logic, e: &Expr) -> FormulaId {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            let (fa, fb) = (formula(l, a), formula(l, b));
            l.and(fa, fb)
        }
        Expr::Binary(BinOp::Or, a, b) => {
            let (fa, fb) = (formula(l, a), formula(l, b));
            l.or(fa, fb)
        }
        Expr::Unary(UnOp::Not, a) => {
            let f = formula(l, a);
            l.not(f)
        }
        Expr::Binary(op, a, b) if op.comparison().is_some() => {
            let op = op.comparison().unwrap_or(CmpOp::Eq);
            let (ca, cb) = (cases(l, a), cases(l, b));
            let mut alternatives = Vec::new();
            for &(c1, t1) in &ca {
                for &(c2, t2) in &cb {
                    let both = l.and(c1, c2);
                    let holds = cmp(l, op, t1, t2);
                    alternatives.push(l.and(both, holds));
                }
            }
            l.or_all(alternatives)
        }
        _ => {
            let zero = l.value(0);
            let alternatives: Vec<FormulaId> = cases(l, e)
                .into_iter()
                .map(|(c, t)| {
                    let nonzero = l.ne(t, zero);
                    l.and(c, nonzero)
                })
                .collect();
            l.or_all(alternatives)
        }
    }
}

/// `M = v` for an expression by cases.
pub fn equals(l: &mut Logic, m: &Cases, v: TermId) -> FormulaId {
    let alternatives: Vec<FormulaId> = m
        .iter()
        .map(|&(c, t)| {
            let eq = l.eq(t, v);
            l.and(c, eq)
        })
        .collect();
    l.or_all(alternatives)
}

/// `ψ[M/x]` for an expression by cases: ∨ (c ∧ ψ[t/x]).
pub fn substitute(l: &mut Logic, psi: FormulaId, x: Var, m: &Cases) -> FormulaId {
    if let [(c, t)] = m.as_slice() {
        if *c == l.tt() {
            return l.subst_var(psi, x, *t);
        }
    }
    let alternatives: Vec<FormulaId> = m
        .iter()
        .map(|&(c, t)| {
            let s = l.subst_var(psi, x, t);
            l.and(c, s)
        })
        .collect();
    l.or_all(alternatives)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Assignment;

    fn int(n: i64) -> Expr {
        Expr::Int(n)
    }
    fn reg(r: u32) -> Expr {
        Expr::Reg(r)
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// Evaluating an expression directly agrees with its formula and cases.
    #[test]
    fn translation_agrees_with_evaluation() {
        let exprs = [
            bin(BinOp::Add, reg(0), int(1)),
            bin(BinOp::Eq, reg(0), reg(1)),
            bin(BinOp::Add, bin(BinOp::Lt, reg(0), reg(1)), int(1)),
            bin(
                BinOp::Or,
                bin(BinOp::And, reg(0), reg(1)),
                Expr::Unary(UnOp::Not, Box::new(reg(0))),
            ),
            bin(
                BinOp::Sub,
                bin(BinOp::Ne, reg(0), int(1)),
                bin(BinOp::Ge, reg(1), reg(0)),
            ),
        ];
        for e in &exprs {
            let mut l = Logic::new(&[0, 1, 2]);
            let f = formula(&mut l, e);
            let cs = cases(&mut l, e);
            for a in 0..3 {
                for b in 0..3 {
                    let direct = eval(e, a, b);
                    let env = Assignment::new().with(Var::Reg(0), a).with(Var::Reg(1), b);
                    assert_eq!(l.eval(f, &env), direct != 0, "{e:?} at {a}, {b}");
                    let held: Vec<i64> = cs
                        .iter()
                        .filter(|(c, _)| l.eval(*c, &env))
                        .map(|(_, t)| l.eval_term(*t, &env))
                        .collect();
                    assert_eq!(
                        held,
                        vec![direct],
                        "{e:?} at {a}, {b}: exactly one case holds"
                    );
                }
            }
        }
    }

    fn eval(e: &Expr, a: i64, b: i64) -> i64 {
        match e {
            Expr::Int(n) => *n,
            Expr::Reg(0) => a,
            Expr::Reg(_) => b,
            Expr::Unary(UnOp::Neg, x) => -eval(x, a, b),
            Expr::Unary(UnOp::Not, x) => i64::from(eval(x, a, b) == 0),
            Expr::Binary(op, x, y) => op.apply(eval(x, a, b), eval(y, a, b)),
        }
    }
}
