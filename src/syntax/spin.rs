//! Spin loops (issue 41): which `do { S } while (M)` loops may be decided as
//! their last iteration alone.
//!
//! A loop is a *spin* when one pass (S, then the evaluation of M) only reads
//! memory and assigns registers, and no register that a pass assigns is read
//! in that pass before it is assigned: each pass computes the same function
//! of its own reads and of registers fixed before the loop. Then a failed
//! pass (M true) leaves nothing behind: no write, no fence, no RMW, and every
//! register it set is set again by the next pass before anything reads it.
//! A compare-and-swap that the loop's condition says failed is such a read
//! (issue 74; `is_spin` says when): a lock's acquire loop is a spin, as
//! Dat3M and GenMC take it; an exchange or fetch-and-add loop is not.
//!
//! For such a loop, `S; if (M) { diverge }` (the last pass, under the
//! assumption that M is false) has the same final states as the loop has at
//! any bound *when executions are paths*, as SC's interleavings are: an
//! execution with k failed passes loses only reads that nobody reads from
//! when they are deleted, and its state is the last pass's. The book's
//! "Spin loops" argues it for the engine that applies it
//! (`engine::Capability::SpinReduction`: sc), and shows why the pomset
//! semantics (a pomset merges the branches of an `if`, and a dropped read
//! leaves its register `?`) and the cat models do not.
//!
//! This module only classifies; `check` lowers a spin, and `import::cfg`
//! emits one for a backward jump whose region is a spin.

use super::ast::{BinOp, Expr, ExprKind, Place, RmwOp, Stmt, StmtKind, Suffix, UnOp};

/// Whether `do { body } while (cond)` is a spin. `is_location` tells a
/// location's name from a register's.
///
/// A pass may also compare-and-swap (issue 74), as a lock's acquire or a
/// CAS increment does: `r := CAS(x, e, d)` where the loop's condition
/// implies that the CAS failed (it has a conjunct `r != e`, or `!(r = e)`,
/// with the CAS's own `e`, an expression of registers that nothing after
/// the CAS in the pass reassigns, nor `r`). A failed CAS writes nothing:
/// it is a read of `x` (with the CAS's read mode) that sets `r`, so a pass
/// that goes round again only reads and sets registers, as a read-only
/// spin's does, and the argument above holds of it unchanged. The last
/// pass keeps its CAS, which may succeed. An exchange or a fetch-and-add
/// writes on every pass, failed or not, and is no spin.
pub fn is_spin(body: &[Stmt], cond: &Expr, is_location: &dyn Fn(&str) -> bool) -> bool {
    // Per statement: the register it assigns and the expressions it reads.
    let mut steps: Vec<(&str, Vec<&Expr>)> = Vec::new();
    // Per CAS: its statement's index, its result register, its `e`.
    let mut cases: Vec<(usize, &str, &Expr)> = Vec::new();
    for s in body {
        match &s.kind {
            StmtKind::Skip => {}
            StmtKind::Assign {
                lhs: Place::Named(name),
                suffix,
                rhs,
            } if suffix.is_empty() && !is_location(name.as_str()) => {
                if !reads_only(rhs, is_location) {
                    return false;
                }
                steps.push((name.as_str(), vec![rhs]));
            }
            StmtKind::Rmw {
                target: Some(r),
                rmw,
            } if rmw.op == RmwOp::Cas && rmw.quals.is_empty() && !is_location(r.as_str()) => {
                let [expected, new] = &rmw.args[..] else {
                    return false;
                };
                let mut reads = vec![expected, new];
                match &rmw.place {
                    Place::Named(x) if is_location(x.as_str()) => {}
                    Place::Computed(a) if reads_only(a, is_location) => reads.push(a),
                    _ => return false,
                }
                if !registers_only(expected, is_location) || !reads_only(new, is_location) {
                    return false;
                }
                cases.push((steps.len(), r.as_str(), expected));
                steps.push((r.as_str(), reads));
            }
            _ => return false,
        }
    }
    if !reads_only(cond, is_location) {
        return false;
    }
    // No register carried from one pass to the next: every register the
    // body assigns is assigned before the body reads it.
    let assigned: Vec<&str> = steps.iter().map(|(r, _)| *r).collect();
    let mut set: Vec<&str> = Vec::new();
    for (name, reads) in &steps {
        let mut carried = false;
        for e in reads {
            registers(e, is_location, &mut |r| {
                carried |= assigned.contains(&r) && !set.contains(&r);
            });
        }
        if carried {
            return false;
        }
        set.push(name);
    }
    // Every pass that goes round again failed each of its CASes.
    cases.iter().all(|&(at, r, expected)| {
        let later: Vec<&str> = steps[at + 1..].iter().map(|(n, _)| *n).collect();
        let mut stable = !later.contains(&r);
        registers(expected, is_location, &mut |t| {
            stable &= !later.contains(&t)
        });
        stable && implies_differs(cond, r, expected)
    })
}

/// Whether `cond` being true implies that register `r` differs from `e`:
/// a conjunct of it is `r != e`, `e != r`, or the negation of `r = e`.
fn implies_differs(cond: &Expr, r: &str, e: &Expr) -> bool {
    let is_r =
        |x: &Expr| matches!(&x.kind, ExprKind::Name(n, s) if n.as_str() == r && s.is_empty());
    let compares = |a: &Expr, b: &Expr| (is_r(a) && b == e) || (is_r(b) && a == e);
    match &cond.kind {
        ExprKind::Binary(BinOp::And, a, b) => implies_differs(a, r, e) || implies_differs(b, r, e),
        ExprKind::Binary(BinOp::Ne, a, b) => compares(a, b),
        ExprKind::Unary(UnOp::Not, inner) => {
            matches!(&inner.kind, ExprKind::Binary(BinOp::Eq, a, b) if compares(a, b))
        }
        _ => false,
    }
}

/// Whether evaluating `e` only reads: every access is a plain or moded
/// read without the Vulkan extension's qualifiers (which only the Vulkan
/// model defines, and which this reduction is not argued for).
fn reads_only(e: &Expr, is_location: &dyn Fn(&str) -> bool) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::AddrOf(_) => true,
        ExprKind::Name(n, suffix) => {
            plain(suffix) && (is_location(n.as_str()) || suffix.is_empty())
        }
        ExprKind::Deref(addr, suffix) => plain(suffix) && reads_only(addr, is_location),
        ExprKind::Unary(_, a) => reads_only(a, is_location),
        ExprKind::Binary(_, a, b) => reads_only(a, is_location) && reads_only(b, is_location),
    }
}

/// Whether `e` only reads registers: evaluating it again reads no memory.
pub fn registers_only(e: &Expr, is_location: &dyn Fn(&str) -> bool) -> bool {
    match &e.kind {
        ExprKind::Int(_) => true,
        ExprKind::Name(n, suffix) => suffix.is_empty() && !is_location(n.as_str()),
        ExprKind::Deref(..) | ExprKind::AddrOf(_) => false,
        ExprKind::Unary(_, a) => registers_only(a, is_location),
        ExprKind::Binary(_, a, b) => {
            registers_only(a, is_location) && registers_only(b, is_location)
        }
    }
}

fn plain(suffix: &Suffix) -> bool {
    suffix.quals.is_empty()
}

/// Calls `f` on every register `e` reads.
pub fn registers<'e>(e: &'e Expr, is_location: &dyn Fn(&str) -> bool, f: &mut dyn FnMut(&'e str)) {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::AddrOf(_) => {}
        ExprKind::Name(n, _) => {
            if !is_location(n.as_str()) {
                f(n.as_str());
            }
        }
        ExprKind::Deref(a, _) | ExprKind::Unary(_, a) => registers(a, is_location, f),
        ExprKind::Binary(_, a, b) => {
            registers(a, is_location, f);
            registers(b, is_location, f);
        }
    }
}
