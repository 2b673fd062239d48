//! Spin loops (issue 41): which `do { S } while (M)` loops may be decided as
//! their last iteration alone.
//!
//! A loop is a *spin* when one pass (S, then the evaluation of M) only reads
//! memory and assigns registers, and no register that a pass assigns is read
//! in that pass before it is assigned: each pass computes the same function
//! of its own reads and of registers fixed before the loop. Then a failed
//! pass (M true) leaves nothing behind: no write, no fence, no RMW, and every
//! register it set is set again by the next pass before anything reads it.
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

use super::ast::{Expr, ExprKind, Place, Stmt, StmtKind, Suffix};

/// Whether `do { body } while (cond)` is a spin. `is_location` tells a
/// location's name from a register's.
pub fn is_spin(body: &[Stmt], cond: &Expr, is_location: &dyn Fn(&str) -> bool) -> bool {
    let mut assigned: Vec<&str> = Vec::new();
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
                assigned.push(name.as_str());
            }
            _ => return false,
        }
    }
    if !reads_only(cond, is_location) {
        return false;
    }
    // No register carried from one pass to the next: every register the
    // body assigns is assigned before the body reads it.
    let mut set: Vec<&str> = Vec::new();
    for s in body {
        if let StmtKind::Assign {
            lhs: Place::Named(name),
            rhs,
            ..
        } = &s.kind
        {
            let mut carried = false;
            registers(rhs, is_location, &mut |r| {
                carried |= assigned.contains(&r) && !set.contains(&r);
            });
            if carried {
                return false;
            }
            set.push(name.as_str());
        }
    }
    true
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
