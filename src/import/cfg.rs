//! Code with labels and jumps (PTX's `LC00:`, `bne r0, 0, LC01`, `goto LC00`)
//! as our structured statements, unrolled to a bound as herd7 and Dat3M do:
//! control follows every path from the start, a forward jump continues at its
//! label (the code after it is copied into each branch), and a path takes each
//! backward jump at most `bound` times. The jump it would take once more
//! becomes `diverge`: ✓ = ff there, so a path that needs more iterations is
//! not an execution, exactly as `while` unrolls.

use crate::syntax::ast::{BinOp, Expr, ExprKind, Place, Stmt, StmtKind, UnOp};
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
/// `is_location` tells a location's name from a register's. With `spin`, a
/// loop whose region is a spin (`syntax::spin`) is not unrolled here but written
/// as `do { S } while (M)`, for the checker to decide as its last pass. Two
/// shapes are recognised, each a label, straight-line code S, and a jump
/// back: `L: S; if (M) goto L` and `L: S; if (!M) goto OUT; goto L` with OUT
/// further down. Any other loop is unrolled as before.
///
/// A loop of those shapes that no later jump comes back to is unrolled
/// where it stands, the code after it written once after it (`loop_at`);
/// so is a loop whose passes branch, each pass written once with the next
/// under the condition that it goes round again (`region_at`); and a
/// forward branch whose sides meet again is an `if` of the two sides, the
/// code from where they meet once after it (`join_at`). `copy`
/// (`--copy-after-loops`) asks instead for each of those copied, as
/// following the paths does: the code after a loop into each exit, the
/// next pass into each path that goes round again, the code after a branch
/// into both sides.
pub fn unroll(
    items: &[Item],
    bound: u32,
    is_location: &dyn Fn(&str) -> bool,
    spin: bool,
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
        is_location,
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

/// A walk through one pass of `Unroller::region_at`'s loop.
struct Pass {
    /// The loop's label and its last jump back.
    head: usize,
    last: usize,
    /// The branch conditions taken on the path walked, and whether each held.
    tested: Vec<(Expr, bool)>,
    /// Those of each path that goes round again.
    again: Vec<Vec<(Expr, bool)>>,
    /// How many paths leave the loop.
    out: usize,
    /// Items the pass may still visit.
    budget: usize,
}

struct Unroller<'a> {
    items: &'a [Item],
    bound: u32,
    size: usize,
    is_location: &'a dyn Fn(&str) -> bool,
    /// Write spin loops as `do { S } while (M)` (`spin_at`).
    spin: bool,
    /// Write loops as loops and the code after them once (`loop_at`,
    /// `region_at`), and the code after a branch once (`join_at`).
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
                    None => match self
                        .joined
                        .then(|| self.loop_at(pc).or_else(|| self.region_at(pc)))
                        .flatten()
                    {
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
                    if let Some((then, els, join)) = self.joined.then(|| self.join_at(pc)).flatten()
                    {
                        out.extend(self.branch(cond, then, els, *span));
                        pc = join;
                        continue;
                    }
                    let then = self.jump(pc, l, *span, &mut taken.clone())?;
                    let els = self.from(pc + 1, &mut taken.clone())?;
                    out.push(if_stmt(cond, then, els, *span));
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
        Some((self.passes(&body, &cond, stays, span), next))
    }

    /// A loop's passes as the paths take them: `body`, then `if (cond)` (or,
    /// unless `stays`, its `else`) the next pass, `bound + 1` of them, and
    /// `diverge` where the one after would begin.
    fn passes(&self, body: &[Stmt], cond: &Expr, stays: bool, span: Span) -> Vec<Stmt> {
        let mut rest = vec![Stmt {
            kind: StmtKind::Diverge,
            span,
        }];
        for _ in 0..=self.bound {
            let (then, els) = match stays {
                true => (rest, None),
                false => (Vec::new(), Some(rest)),
            };
            let mut stmts = body.to_vec();
            stmts.push(Stmt {
                kind: StmtKind::If {
                    cond: cond.clone(),
                    then,
                    els,
                },
                span,
            });
            rest = stmts;
        }
        rest
    }

    /// The loop that starts at the label at `pc` when its passes branch
    /// (`L: ... bne r1, 0, M; goto L; M: ... bne r2, 1, OUT; goto L`), unrolled
    /// where it stands: each pass written once, with the rest of the loop
    /// under the condition that the pass goes round again; and where control
    /// goes after it. `None` unless the region from `L` to its last jump
    /// back is entered only at `L` and left only for one place (`OUT`, or
    /// the item after it) that no later jump comes back from, jumps inside
    /// it go forward or back to `L`, and its branches test registers only.
    ///
    /// Following the paths copies the next pass into each path that goes
    /// round again, so a pass with two such paths doubles the code at each
    /// pass. Here one copy follows, under the disjunction of those paths'
    /// conditions: each path's conjunction of the branch conditions it took.
    /// That disjunction, evaluated after the pass, holds exactly when the
    /// pass took a path that goes round again, provided no register a
    /// branch tests is set after the test on that path (checked, else
    /// `None`): then the path taken keeps its conditions true, and every
    /// other path has a condition that the path taken falsified at the
    /// branch where they part. So the paths, and with them the executions
    /// of SC and of every cat model, are the same as following them.
    fn region_at(&self, pc: usize) -> Option<(Vec<Stmt>, usize)> {
        let &Item::Label(_, span) = self.items.get(pc)? else {
            return None;
        };
        let target = |it: &Item| match it {
            Item::Branch(_, l, _) | Item::Goto(l, _) => label_at(self.items, l),
            _ => None,
        };
        let last = (pc + 1..self.items.len())
            .filter(|&j| target(&self.items[j]) == Some(pc))
            .max()?;
        // Every way out of the region goes to one place.
        let mut exits: Vec<usize> = self.items[pc + 1..=last]
            .iter()
            .filter_map(target)
            .filter(|&t| t > last)
            .collect();
        if let Item::Branch(..) = self.items[last] {
            exits.push(last + 1);
        }
        let next = *exits.first()?;
        if exits.iter().any(|&t| t != next) {
            return None;
        }
        for (j, it) in self.items.iter().enumerate() {
            let Some(t) = target(it) else { continue };
            let ok = if (pc..=last).contains(&j) {
                // Forward inside, back to the head, or out.
                t == pc || t > j
            } else {
                // Past the loop; or, from before it, to its label or
                // before: never into the middle, never back once left.
                t > last || (j < pc && t <= pc)
            };
            if !ok {
                return None;
            }
        }
        let mut walk = Pass {
            head: pc,
            last,
            tested: Vec::new(),
            again: Vec::new(),
            out: 0,
            budget: MAX_UNROLLED,
        };
        let body = self.pass(pc + 1, &mut walk)?;
        // A pass must be able both to go round again and to leave, each
        // under a condition; otherwise the paths are followed.
        if walk.out == 0 || walk.again.is_empty() || walk.again.iter().any(Vec::is_empty) {
            return None;
        }
        let literal =
            |(c, holds): &(Expr, bool)| if *holds { c.clone() } else { negate(c.clone()) };
        let binary = |op, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
        };
        let conjunction = |path: &Vec<(Expr, bool)>| {
            path.iter()
                .map(literal)
                .reduce(|a, b| binary(BinOp::And, a, b))
        };
        let again = walk
            .again
            .iter()
            .filter_map(conjunction)
            .reduce(|a, b| binary(BinOp::Or, a, b))?;
        Some((self.passes(&body, &again, true, span), next))
    }

    /// One pass of `region_at`'s loop from item `j`, every path followed
    /// (a join inside the pass is copied) to its end: back to the head
    /// (its conditions added to `walk.again`) or out of the region. `None`
    /// when a branch reads memory, a register a branch on the path tested
    /// is set after it, or the pass grows past `MAX_UNROLLED`.
    fn pass(&self, mut j: usize, walk: &mut Pass) -> Option<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            walk.budget = walk.budget.checked_sub(1)?;
            if j == walk.head {
                walk.again.push(walk.tested.clone());
                return Some(out);
            }
            if j > walk.last {
                walk.out += 1;
                return Some(out);
            }
            match &self.items[j] {
                Item::Stmt(s) => {
                    let mut clash = false;
                    assigned(s, self.is_location, &mut |r| {
                        for (c, _) in &walk.tested {
                            spin::registers(c, self.is_location, &mut |t| clash |= t == r);
                        }
                    });
                    if clash {
                        return None;
                    }
                    out.push(s.clone());
                    j += 1;
                }
                Item::Label(..) => j += 1,
                Item::Goto(l, _) => j = label_at(self.items, l)?,
                Item::Branch(cond, l, span) => {
                    if !spin::registers_only(cond, self.is_location) {
                        return None;
                    }
                    let to = label_at(self.items, l)?;
                    walk.tested.push((cond.clone(), true));
                    let then = self.pass(to, walk)?;
                    walk.tested.last_mut()?.1 = false;
                    let els = self.pass(j + 1, walk)?;
                    walk.tested.pop();
                    out.extend(self.branch(cond, then, els, *span));
                    return Some(out);
                }
            }
        }
    }

    /// The forward branch at `pc` written as an `if` whose two sides meet
    /// again: each side up to the first item `J` that every path of both
    /// reaches, and `J`. Following the paths copies the code from `J` on
    /// into each side; here it comes once, after the `if`. `None` unless
    /// both sides reach `J` by statements and forward jumps alone, none
    /// past it: then no backward jump is taken before `J`, so both arrive
    /// with the same count of backward jumps taken, and the paths from `J`
    /// are the same. A loop whose label lies between `pc` and `J` is passed
    /// by one side only, and the other enters it at `J` or jumps past it,
    /// so no shape the reader writes as a loop is lost (`shape_at` needs
    /// straight-line code after the label, `region_at` no entry inside).
    fn join_at(&self, pc: usize) -> Option<(Vec<Stmt>, Vec<Stmt>, usize)> {
        let Item::Branch(_, l, _) = &self.items[pc] else {
            return None;
        };
        let to = label_at(self.items, l).filter(|&t| t > pc)?;
        (to..self.items.len()).find_map(|join| {
            let mut budget = MAX_UNROLLED;
            let then = self.side(to, join, &mut budget)?;
            let els = self.side(pc + 1, join, &mut budget)?;
            Some((then, els, join))
        })
    }

    /// The code from `j` up to `join`, every path followed; `None` when a
    /// path jumps backward or past `join`, or ends first.
    fn side(&self, mut j: usize, join: usize, budget: &mut usize) -> Option<Vec<Stmt>> {
        let mut out = Vec::new();
        while j != join {
            *budget = budget.checked_sub(1)?;
            match self.items.get(j)? {
                Item::Stmt(s) => {
                    out.push(s.clone());
                    j += 1;
                }
                Item::Label(..) => j += 1,
                Item::Goto(l, _) => {
                    j = label_at(self.items, l).filter(|&t| t > j && t <= join)?;
                }
                Item::Branch(cond, l, span) => {
                    let to = label_at(self.items, l).filter(|&t| t > j && t <= join)?;
                    let then = self.side(to, join, budget)?;
                    let els = self.side(j + 1, join, budget)?;
                    out.extend(self.branch(cond, then, els, *span));
                    return Some(out);
                }
            }
        }
        Some(out)
    }

    /// `if_stmt`, or nothing when both sides are empty and the condition
    /// reads registers only: such a branch does nothing.
    fn branch(&self, cond: &Expr, then: Vec<Stmt>, els: Vec<Stmt>, span: Span) -> Option<Stmt> {
        let nothing =
            then.is_empty() && els.is_empty() && spin::registers_only(cond, self.is_location);
        (!nothing).then(|| if_stmt(cond, then, els, span))
    }

    /// The spin loop that starts at the label at `pc`, as `do { S } while
    /// (M)`, and where control goes after it; `None` when spins are not
    /// asked for or the region is not one.
    fn spin_at(&self, pc: usize) -> Option<(Stmt, usize)> {
        if !self.spin {
            return None;
        }
        let is_location = self.is_location;
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

/// `if (cond) { then } else { els }`, without the `else` when it is empty.
fn if_stmt(cond: &Expr, then: Vec<Stmt>, els: Vec<Stmt>, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond: cond.clone(),
            then,
            els: (!els.is_empty()).then_some(els),
        },
        span,
    }
}

/// Calls `f` on every register `s` may set.
fn assigned(s: &Stmt, is_location: &dyn Fn(&str) -> bool, f: &mut dyn FnMut(&str)) {
    match &s.kind {
        StmtKind::Assign {
            lhs: Place::Named(n),
            ..
        } if !is_location(n.as_str()) => f(n.as_str()),
        StmtKind::Rmw {
            target: Some(n), ..
        } => f(n.as_str()),
        StmtKind::If { then, els, .. } => {
            for s in then.iter().chain(els.iter().flatten()) {
                assigned(s, is_location, f);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            for s in body {
                assigned(s, is_location, f);
            }
        }
        StmtKind::Par(threads) => {
            for t in threads {
                for s in &t.body {
                    assigned(s, is_location, f);
                }
            }
        }
        _ => {}
    }
}

fn item_span(it: &Item) -> Span {
    match it {
        Item::Stmt(s) => s.span,
        Item::Label(_, s) | Item::Branch(_, _, s) | Item::Goto(_, s) => *s,
    }
}
