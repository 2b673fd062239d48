//! Code with labels and jumps (PTX's `LC00:`, `bne r0, 0, LC01`, `goto LC00`)
//! as our structured statements, unrolled to a bound as herd7 and Dat3M do:
//! control follows every path from the start, a forward jump continues at its
//! label (the code after it is copied into each branch), and a path takes each
//! backward jump at most `bound` times. The jump it would take once more
//! becomes `diverge`: ✓ = ff there, so a path that needs more iterations is
//! not an execution, exactly as `while` unrolls.

use crate::syntax::ast::{BinOp, Expr, ExprKind, Stmt, StmtKind, UnOp};
use crate::syntax::{spin, Diagnostic, Span};

/// One line of straight-line code with jumps.
#[derive(Clone, Debug)]
pub enum Item {
    Stmt(Stmt),
    Label(String, Span),
    /// `if (cond) goto label`.
    Branch(Expr, String, Span),
    Goto(String, Span),
}

/// The most statements an unrolling may produce before it is refused.
pub const MAX_UNROLLED: usize = 20_000;

/// Unrolls `items` into statements. Errors name an unknown label, or code
/// whose unrolling would exceed `MAX_UNROLLED` statements.
///
/// With `spin` (which tells a location's name from a register's), a loop
/// whose region is a spin (`syntax::spin`) is not unrolled here but written
/// as `do { S } while (M)`, for the checker to decide as its last pass. Two
/// shapes are recognised, each a label, straight-line code S, and a jump
/// back: `L: S; if (M) goto L` and `L: S; if (!M) goto OUT; goto L` with OUT
/// further down. Any other loop is unrolled as before.
///
/// A loop of those shapes that no later jump comes back to is unrolled
/// where it stands, the code after it written once after it (`loop_at`),
/// unless `copy` (`--copy-after-loops`) asks for the code after it copied
/// into each exit, as following the paths does.
pub fn unroll(
    items: &[Item],
    bound: u32,
    spin: Option<&dyn Fn(&str) -> bool>,
    copy: bool,
) -> Result<Vec<Stmt>, Diagnostic> {
    for it in items {
        if let Item::Branch(_, l, span) | Item::Goto(l, span) = it {
            if label_at(items, l).is_none() {
                return Err(Diagnostic::error(format!("there is no label `{l}`"), *span)
                    .with_label("jumps nowhere")
                    .with_hint(format!("define it on a line of its own: `{l}:`")));
            }
        }
    }
    let mut u = Unroller {
        items,
        bound,
        size: 0,
        spin,
        joined: !copy,
    };
    u.from(0, &mut vec![0; items.len()])
}

fn label_at(items: &[Item], name: &str) -> Option<usize> {
    items
        .iter()
        .position(|it| matches!(it, Item::Label(l, _) if l == name))
}

/// A loop of `Unroller::shape_at`'s shapes: its body, its branch's
/// condition and whether the branch stays in the loop when it holds, the
/// loop's last item and where control goes after it.
struct Shape {
    span: Span,
    body: Vec<Stmt>,
    cond: Expr,
    stays: bool,
    last: usize,
    next: usize,
}

struct Unroller<'a> {
    items: &'a [Item],
    bound: u32,
    size: usize,
    spin: Option<&'a dyn Fn(&str) -> bool>,
    /// Write loops as loops, the code after them once (`loop_at`).
    joined: bool,
}

impl Unroller<'_> {
    /// The statements from `pc` to the end of the code; `taken[i]` counts the
    /// backward jumps to item i on this path.
    fn from(&mut self, mut pc: usize, taken: &mut Vec<u32>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        while let Some(item) = self.items.get(pc) {
            self.grow(item_span(item))?;
            match item {
                Item::Stmt(s) => {
                    out.push(s.clone());
                    pc += 1;
                }
                Item::Label(..) => match self.spin_at(pc) {
                    Some((stmt, next)) => {
                        out.push(stmt);
                        pc = next;
                    }
                    None => match self.joined.then(|| self.loop_at(pc)).flatten() {
                        Some((stmts, next)) => {
                            out.extend(stmts);
                            pc = next;
                        }
                        None => pc += 1,
                    },
                },
                Item::Goto(l, span) => {
                    out.extend(self.jump(pc, l, *span, taken)?);
                    return Ok(out);
                }
                Item::Branch(cond, l, span) => {
                    let then = self.jump(pc, l, *span, &mut taken.clone())?;
                    let els = self.from(pc + 1, &mut taken.clone())?;
                    out.push(Stmt {
                        kind: StmtKind::If {
                            cond: cond.clone(),
                            then,
                            els: (!els.is_empty()).then_some(els),
                        },
                        span: *span,
                    });
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// Control continuing at label `l` from the jump at `pc`.
    fn jump(
        &mut self,
        pc: usize,
        l: &str,
        span: Span,
        taken: &mut Vec<u32>,
    ) -> Result<Vec<Stmt>, Diagnostic> {
        let target = label_at(self.items, l).unwrap_or(self.items.len());
        if target <= pc {
            if taken[target] >= self.bound {
                return Ok(vec![Stmt {
                    kind: StmtKind::Diverge,
                    span,
                }]);
            }
            taken[target] += 1;
        }
        self.from(target, taken)
    }

    /// The loop of one of the two shapes that starts at the label at `pc`:
    /// `L: S; if (M) goto L` or `L: S; if (M) goto OUT; goto L` with OUT
    /// further down, S straight-line code.
    fn shape_at(&self, pc: usize) -> Option<Shape> {
        let Item::Label(_, span) = self.items.get(pc)? else {
            return None;
        };
        let mut body = Vec::new();
        let mut g = pc + 1;
        while let Some(Item::Stmt(s)) = self.items.get(g) {
            body.push(s.clone());
            g += 1;
        }
        let back = |l: &str| label_at(self.items, l) == Some(pc);
        match (self.items.get(g)?, self.items.get(g + 1)) {
            (Item::Branch(c, l, _), _) if back(l) => Some(Shape {
                span: *span,
                body,
                cond: c.clone(),
                stays: true,
                last: g,
                next: g + 1,
            }),
            (Item::Branch(c, out, _), Some(Item::Goto(l, _))) if back(l) => {
                let next = label_at(self.items, out).filter(|&o| o > g + 1)?;
                Some(Shape {
                    span: *span,
                    body,
                    cond: c.clone(),
                    stays: false,
                    last: g + 1,
                    next,
                })
            }
            _ => None,
        }
    }

    /// The loop that starts at the label at `pc`, in one of `shape_at`'s
    /// two shapes, unrolled where it stands, with where control goes after it;
    /// `None` for any other code, or when a jump after the loop may come
    /// back to it or before it.
    ///
    /// Its passes are those the paths take: the first, then one per
    /// backward jump, `bound` of them, and `diverge` for the one after.
    /// Following the paths copies the code after the loop into each exit
    /// (one copy per pass); here it comes once, after the loop. The paths
    /// are the same: a path reaches the label only by falling or jumping
    /// to it from before (no later jump comes back), so with no backward
    /// jump to it taken yet, and leaves the loop at the same place.
    fn loop_at(&self, pc: usize) -> Option<(Vec<Stmt>, usize)> {
        let Shape {
            span,
            body,
            cond,
            stays,
            last,
            next,
        } = self.shape_at(pc)?;
        let back = self.items[last + 1..].iter().any(|it| {
            matches!(it, Item::Branch(_, l, _) | Item::Goto(l, _)
                if label_at(self.items, l).is_some_and(|t| t <= last))
        });
        if back {
            return None;
        }
        let mut pass = vec![Stmt {
            kind: StmtKind::Diverge,
            span,
        }];
        for _ in 0..=self.bound {
            let (then, els) = match stays {
                true => (pass, None),
                false => (Vec::new(), Some(pass)),
            };
            let mut stmts = body.clone();
            stmts.push(Stmt {
                kind: StmtKind::If {
                    cond: cond.clone(),
                    then,
                    els,
                },
                span,
            });
            pass = stmts;
        }
        Some((pass, next))
    }

    /// The spin loop that starts at the label at `pc`, as `do { S } while
    /// (M)`, and where control goes after it; `None` when spins are not
    /// asked for or the region is not one.
    fn spin_at(&self, pc: usize) -> Option<(Stmt, usize)> {
        let is_location = self.spin?;
        let Shape {
            span,
            body,
            cond,
            stays,
            next,
            ..
        } = self.shape_at(pc)?;
        // The condition to go round again.
        let cond = if stays { cond } else { negate(cond) };
        if !spin::is_spin(&body, &cond, is_location) {
            return None;
        }
        let stmt = Stmt {
            kind: StmtKind::DoWhile { body, cond },
            span,
        };
        Some((stmt, next))
    }

    fn grow(&mut self, span: Span) -> Result<(), Diagnostic> {
        self.size += 1;
        if self.size > MAX_UNROLLED {
            return Err(Diagnostic::error(
                "this code's jumps unroll into too many statements",
                span,
            )
            .with_label(format!("more than {MAX_UNROLLED} after unrolling"))
            .with_hint("lower --unroll"));
        }
        Ok(())
    }
}

/// `!M`, written as the opposite comparison where M is one.
fn negate(e: Expr) -> Expr {
    let flip = |op| match op {
        BinOp::Eq => Some(BinOp::Ne),
        BinOp::Ne => Some(BinOp::Eq),
        BinOp::Lt => Some(BinOp::Ge),
        BinOp::Ge => Some(BinOp::Lt),
        BinOp::Le => Some(BinOp::Gt),
        BinOp::Gt => Some(BinOp::Le),
        _ => None,
    };
    let span = e.span;
    let kind = match e.kind {
        ExprKind::Binary(op, a, b) => match flip(op) {
            Some(op) => ExprKind::Binary(op, a, b),
            None => ExprKind::Unary(
                UnOp::Not,
                Box::new(Expr {
                    kind: ExprKind::Binary(op, a, b),
                    span,
                }),
            ),
        },
        kind => ExprKind::Unary(UnOp::Not, Box::new(Expr { kind, span })),
    };
    Expr { kind, span }
}

fn item_span(it: &Item) -> Span {
    match it {
        Item::Stmt(s) => s.span,
        Item::Label(_, s) | Item::Branch(_, _, s) | Item::Goto(_, s) => *s,
    }
}
