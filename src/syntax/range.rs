//! Exact arithmetic (the book's "Expressions"): values are 64-bit integers,
//! and a program one of whose operations could leave them is refused here,
//! before any engine runs, with the operation's place. Every engine then
//! computes exactly, and alike, because no operation they evaluate can
//! overflow.
//!
//! The check is an interval analysis of the core program: a register a read
//! or an RMW assigns holds a value of V (every engine's reads return values
//! of V: initial values and stored constants lie in V, and a write whose
//! value leaves V has no event); a LET's register holds its expression's
//! values; one read before any assignment ranges over V. Registers are
//! assigned once on each path (SSA) and loops are unrolled, so the
//! registers' definitions form a DAG and one pass is enough. The analysis
//! over-approximates (it ignores guards), so it may refuse a program whose
//! overflow no execution reaches; it never accepts one that overflows.

use std::collections::HashMap;

use super::ast::{self, BinOp, UnOp};
use super::core::{Expr, RegId, Stmt, ThreadId};
use super::diagnostic::Diagnostic;
use super::span::Span;

/// An interval of values, wide enough that no bound computed from two
/// 64-bit bounds overflows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: i128,
    hi: i128,
}

const WIDEST: Range = Range {
    lo: i64::MIN as i128,
    hi: i64::MAX as i128,
};

impl Range {
    fn point(n: i64) -> Range {
        Range {
            lo: n.into(),
            hi: n.into(),
        }
    }

    fn union(self, o: Range) -> Range {
        Range {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    fn fits(self) -> bool {
        self.lo >= WIDEST.lo && self.hi <= WIDEST.hi
    }

    /// The part within 64 bits, so that an overflow is reported once, where
    /// it happens, and bounds stay small enough to multiply.
    fn clamped(self) -> Range {
        Range {
            lo: self.lo.clamp(WIDEST.lo, WIDEST.hi),
            hi: self.hi.clamp(WIDEST.lo, WIDEST.hi),
        }
    }

    fn binary(op: BinOp, a: Range, b: Range) -> Range {
        match op {
            BinOp::Add => Range {
                lo: a.lo + b.lo,
                hi: a.hi + b.hi,
            },
            BinOp::Sub => Range {
                lo: a.lo - b.hi,
                hi: a.hi - b.lo,
            },
            BinOp::Mul => {
                let ps = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
                Range {
                    lo: ps.iter().copied().min().unwrap_or(0),
                    hi: ps.iter().copied().max().unwrap_or(0),
                }
            }
            _ => Range { lo: 0, hi: 1 },
        }
    }

    fn unary(op: UnOp, a: Range) -> Range {
        match op {
            UnOp::Neg => Range {
                lo: -a.hi,
                hi: -a.lo,
            },
            UnOp::Not => Range { lo: 0, hi: 1 },
        }
    }
}

/// One expression as written and as lowered; the two trees have the same
/// shape (an access or a register is a leaf in both).
pub(super) struct Root {
    pub(super) core: Expr,
    pub(super) ast: ast::Expr,
}

/// An FADD: its write's value is the value read (in V) plus `arg`.
pub(super) struct Fadd {
    pub(super) reg: RegId,
    pub(super) arg: Expr,
    pub(super) span: Span,
}

/// What the check needs of the lowered program.
pub(super) struct Program<'a> {
    pub(super) main: &'a [(ThreadId, Stmt)],
    pub(super) values: &'a [i64],
    /// Registers some use reads before any assignment (they range over V).
    pub(super) unassigned: &'a [RegId],
    pub(super) roots: &'a [Root],
    pub(super) fadds: &'a [Fadd],
}

/// An error for each operation whose values may leave the 64-bit integers.
pub(super) fn overflows(p: &Program) -> Vec<Diagnostic> {
    let v = match (p.values.iter().min(), p.values.iter().max()) {
        (Some(&lo), Some(&hi)) => Range::point(lo).union(Range::point(hi)),
        _ => Range::point(0),
    };
    let mut cx = Ranges {
        v,
        defs: HashMap::new(),
        memo: HashMap::new(),
    };
    for (_, s) in p.main {
        cx.collect(s);
    }
    for &r in p.unassigned {
        cx.defs.entry(r).or_default().push(Def::Read);
    }
    let mut out = Vec::new();
    for root in p.roots {
        cx.check(&root.core, &root.ast, &mut out);
    }
    for f in p.fadds {
        let arg = cx.expr(&f.arg);
        let sum = Range::binary(BinOp::Add, cx.v, arg);
        if !sum.fits() {
            let d = Diagnostic::error("FADD may write a value beyond the 64-bit integers", f.span)
                .with_label(format!("the value read plus {}", bounds(arg)))
                .with_hint(HINT);
            out.push(d);
        }
    }
    out
}

const HINT: &str = "arithmetic is exact on 64-bit integers, from -9223372036854775808 to 9223372036854775807; keep the values within them";

fn bounds(r: Range) -> String {
    if r.lo == r.hi {
        return r.lo.to_string();
    }
    format!("values from {} to {}", r.lo, r.hi)
}

enum Def<'a> {
    /// A read's or an RMW's register: a value of V.
    Read,
    Let(&'a Expr),
}

struct Ranges<'a> {
    v: Range,
    defs: HashMap<RegId, Vec<Def<'a>>>,
    memo: HashMap<RegId, Range>,
}

impl<'a> Ranges<'a> {
    fn collect(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Let { reg, expr } => self.defs.entry(*reg).or_default().push(Def::Let(expr)),
            Stmt::Read { reg, .. } | Stmt::Rmw { reg, .. } => {
                self.defs.entry(*reg).or_default().push(Def::Read)
            }
            Stmt::If { then, els, .. } => {
                self.collect(then);
                self.collect(els);
            }
            Stmt::Seq(parts) => parts.iter().for_each(|p| self.collect(p)),
            Stmt::Par { left, right, .. } => {
                self.collect(left);
                self.collect(right);
            }
            Stmt::Vulkan { body, .. } => self.collect(body),
            Stmt::Skip
            | Stmt::Write { .. }
            | Stmt::Fence { .. }
            | Stmt::Diverge { .. }
            | Stmt::Barrier { .. } => {}
        }
    }

    /// The values register `r` may hold (within 64 bits: an overflow in its
    /// definition is reported there).
    fn reg(&mut self, r: RegId) -> Range {
        if let Some(&known) = self.memo.get(&r) {
            return known;
        }
        // SSA makes the definitions acyclic; were one not, the widest range is safe.
        self.memo.insert(r, WIDEST);
        let defs: Vec<Option<&'a Expr>> = match self.defs.get(&r) {
            Some(ds) => ds
                .iter()
                .map(|d| match d {
                    Def::Read => None,
                    Def::Let(e) => Some(*e),
                })
                .collect(),
            None => vec![None],
        };
        let mut range: Option<Range> = None;
        for d in defs {
            let x = d.map_or(self.v, |e| self.expr(e).clamped());
            range = Some(range.map_or(x, |r| r.union(x)));
        }
        let range = range.unwrap_or(self.v);
        self.memo.insert(r, range);
        range
    }

    fn expr(&mut self, e: &Expr) -> Range {
        match e {
            Expr::Int(n) => Range::point(*n),
            Expr::Reg(r) => self.reg(*r),
            Expr::Unary(op, a) => {
                let a = self.expr(a).clamped();
                Range::unary(*op, a)
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(a).clamped(), self.expr(b).clamped());
                Range::binary(*op, a, b)
            }
        }
    }

    /// Reports the innermost operations of `core` that may overflow, at the
    /// place of the matching node of `ast`.
    fn check(&mut self, core: &Expr, ast: &ast::Expr, out: &mut Vec<Diagnostic>) {
        let inner_fits = match (core, &ast.kind) {
            (Expr::Unary(_, a), ast::ExprKind::Unary(_, x)) => self.subtree(a, x, out),
            (Expr::Binary(_, a, b), ast::ExprKind::Binary(_, x, y)) => {
                let left = self.subtree(a, x, out);
                self.subtree(b, y, out) && left
            }
            _ => return,
        };
        let r = self.expr(core);
        if inner_fits && !r.fits() {
            let text = super::print::expr(ast);
            let d = Diagnostic::error(format!("`{text}` may leave the 64-bit integers"), ast.span)
                .with_label(format!(
                    "reaches {}",
                    if r.hi > WIDEST.hi { r.hi } else { r.lo }
                ))
                .with_hint(HINT);
            out.push(d);
        }
    }

    /// Checks a subtree; whether its values fit.
    fn subtree(&mut self, core: &Expr, ast: &ast::Expr, out: &mut Vec<Diagnostic>) -> bool {
        let before = out.len();
        self.check(core, ast, out);
        out.len() == before && self.expr(core).fits()
    }
}
