//! If-closure (§1.6, Definition 1.7) under the reading `if_closure =
//! registers`. An if-closed READ or WRITE has events E with guards θ_e that
//! partition Ω ∈ {tt, ff}: κ(e) = θ_e ∧ κ_e, τ^D = ∧_e (θ_e ⇒ τ_e^D) (with
//! ¬Ω ⇒ the eventless transformer), ✓ = Ω ∧ ∧_e (θ_e ⇒ ✓_e), where each
//! event e goes one of the ways Fig. 1's READ or WRITE can (a value, a
//! place, a label). The note lets θ_e be any formulas; this reading takes
//! them over the registers in scope, so a partition of Ω = tt is a partition
//! of the valuations of those registers over V, finitely many, and every
//! one is enumerated. Ω = ff is Fig. 1's eventless pomset, and the
//! one-block partition (θ = tt) is Fig. 1's pomset with one event: both are
//! built by `construct.rs` as without if-closure, so this module adds
//! exactly the pomsets with two or more events.
//!
//! The registers in scope at a statement are those of its thread that an
//! earlier statement assigns (in program order; an `if`'s branches each
//! see what precedes the `if`) and those no statement assigns (inputs, such
//! as a refinement's `m`). Registers range over V, as everywhere in the
//! logic. RMWs are not if-closed: their READ' and WRITE keep one event each.
//!
//! The partitions range over the valuations of the registers in scope less
//! the *derived* ones: a register that only LETs assign, each from
//! registers ranging over V to a value in V, and that every path to the
//! statement assigns (SSA's join copies `r := _r2`, `r := 1` in both
//! branches). Exact: on each path such a register is a function f of
//! registers in scope (the LET's operands and, for a join, the IF's
//! condition), and the LET's transformer substitutes f for it, so a guard
//! θ over it and the rest becomes θ[f] over the rest. A partition with it
//! thus becomes a partition without it in which some blocks may be empty;
//! an event whose guard is unsatisfiable never completes (c3), and the
//! pomset without it is one of the partitions without the register (or
//! Fig. 1's one-event pomset). Every partition without it is one with it.
//! So the complete pomsets, and the states, are the same.

use super::construct::{Ev, Frag, Limit, Sem};
use super::tau::{KappaNode, Tau, TauNode};
use crate::action::{Action, ThreadId};
use crate::logic::{Addr, FormulaId};
use crate::syntax::core::{self, Stmt};

pub use crate::outcome::MAX_PARTITIONS;

/// One way an event of a READ or WRITE can go: its label, its precondition
/// before the guard (R3, w3), its ✓ (w5; tt for a read) and its effect.
#[derive(Clone, Debug)]
pub struct Way {
    pub label: Action,
    pub kappa: FormulaId,
    pub check: FormulaId,
    pub effect: Effect,
}

/// What a way does to a postcondition.
#[derive(Clone, Debug)]
pub enum Effect {
    /// R4a/R4b for the event that takes this way (the transformer names the
    /// event, so it is built per block).
    Read {
        reg: u32,
        addr: Addr,
        value: i64,
        guard: FormulaId,
    },
    /// w4: the same for every event.
    Write(Tau),
}

/// The number of partitions of an n-element set (Bell's), saturating.
pub fn bell(n: usize) -> usize {
    // The Bell triangle: each row starts with the last entry of the one before.
    let mut row = vec![1usize];
    for _ in 0..n {
        let mut next = vec![*row.last().unwrap_or(&1)];
        for &x in &row {
            let last = *next.last().unwrap_or(&0);
            next.push(last.saturating_add(x));
        }
        row = next;
    }
    row[0]
}

/// Every partition of {0, …, n-1} into at least two blocks, each block a
/// list of members, in the order of restricted growth strings.
pub fn partitions(n: usize) -> Vec<Vec<Vec<usize>>> {
    let mut out = Vec::new();
    let mut rgs = vec![0usize; n];
    fn go(i: usize, max: usize, rgs: &mut Vec<usize>, out: &mut Vec<Vec<Vec<usize>>>) {
        if i == rgs.len() {
            if max >= 1 {
                let mut blocks = vec![Vec::new(); max + 1];
                for (member, &b) in rgs.iter().enumerate() {
                    blocks[b].push(member);
                }
                out.push(blocks);
            }
            return;
        }
        for b in 0..=max + 1 {
            rgs[i] = b;
            go(i + 1, max.max(b), rgs, out);
        }
    }
    if n >= 2 {
        rgs[0] = 0;
        go(1, 0, &mut rgs, &mut out);
    }
    out
}

/// Every valuation of `k` registers over `values`, in lexicographic order.
fn valuations(values: &[i64], k: usize) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..k {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |&v| {
                    let mut next = prefix.clone();
                    next.push(v);
                    next
                })
            })
            .collect();
    }
    out
}

/// The registers each statement assigns, collected over a body.
pub fn assigned_regs(s: &Stmt, out: &mut Vec<core::RegId>) {
    match s {
        Stmt::Read { reg, .. } | Stmt::Let { reg, .. } | Stmt::Rmw { reg, .. }
            if !out.contains(reg) =>
        {
            out.push(*reg)
        }
        Stmt::If { then, els, .. } => {
            assigned_regs(then, out);
            assigned_regs(els, out);
        }
        Stmt::Seq(parts) => parts.iter().for_each(|p| assigned_regs(p, out)),
        Stmt::Par { left, right, .. } => {
            assigned_regs(left, out);
            assigned_regs(right, out);
        }
        Stmt::Vulkan { body, .. } => assigned_regs(body, out),
        _ => {}
    }
}

/// The derived registers (see the module doc), each with the registers it
/// is a function of: every assignment is a LET whose operands range over V
/// (reads, inputs, derived registers) and whose values, over every
/// valuation of them in V, lie in V.
pub fn derived(program: &core::Program) -> Vec<(core::RegId, Vec<core::RegId>)> {
    let mut lets: Vec<Vec<&core::Expr>> = vec![Vec::new(); program.regs.len()];
    let mut other = vec![false; program.regs.len()];
    for (_, body) in &program.main {
        definitions(body, &mut lets, &mut other);
    }
    let mut out: Vec<(core::RegId, Vec<core::RegId>)> = Vec::new();
    // SSA defines operands before their uses, so one pass in id order would
    // do for the renumbered registers; iterate until nothing changes instead.
    loop {
        let before = out.len();
        for r in 0..program.regs.len() {
            let id = r as core::RegId;
            if other[r] || lets[r].is_empty() || out.iter().any(|d| d.0 == id) {
                continue;
            }
            let mut operands = Vec::new();
            lets[r].iter().for_each(|e| registers(e, &mut operands));
            let ranged =
                |o: &core::RegId| lets[*o as usize].is_empty() || out.iter().any(|d| d.0 == *o);
            if operands.contains(&id) || !operands.iter().all(ranged) {
                continue;
            }
            if lets[r]
                .iter()
                .all(|e| into_v(e, &operands, &program.values))
            {
                out.push((id, operands));
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The most valuations `into_v` tries; beyond, the register is not derived.
const MAX_VALUATIONS: usize = 4096;

/// Whether `e` has a value in V under every valuation of `regs` in V.
fn into_v(e: &core::Expr, regs: &[core::RegId], values: &[i64]) -> bool {
    let count = values.len().checked_pow(regs.len() as u32);
    if count.is_none_or(|n| n > MAX_VALUATIONS) {
        return false;
    }
    valuations(values, regs.len())
        .iter()
        .all(|val| eval(e, regs, val).is_some_and(|v| values.binary_search(&v).is_ok()))
}

fn eval(e: &core::Expr, regs: &[core::RegId], val: &[i64]) -> Option<i64> {
    match e {
        core::Expr::Int(n) => Some(*n),
        core::Expr::Reg(r) => regs.iter().position(|x| x == r).map(|i| val[i]),
        core::Expr::Unary(crate::syntax::ast::UnOp::Neg, a) => eval(a, regs, val)?.checked_neg(),
        core::Expr::Unary(crate::syntax::ast::UnOp::Not, a) => {
            Some(i64::from(eval(a, regs, val)? == 0))
        }
        core::Expr::Binary(op, a, b) => op.checked_apply(eval(a, regs, val)?, eval(b, regs, val)?),
    }
}

fn registers(e: &core::Expr, out: &mut Vec<core::RegId>) {
    match e {
        core::Expr::Int(_) => {}
        core::Expr::Reg(r) if !out.contains(r) => out.push(*r),
        core::Expr::Reg(_) => {}
        core::Expr::Unary(_, a) => registers(a, out),
        core::Expr::Binary(_, a, b) => {
            registers(a, out);
            registers(b, out);
        }
    }
}

/// Each register's LET expressions, and whether anything else assigns it.
fn definitions<'a>(s: &'a Stmt, lets: &mut [Vec<&'a core::Expr>], other: &mut [bool]) {
    match s {
        Stmt::Let { reg, expr } => lets[*reg as usize].push(expr),
        Stmt::Read { reg, .. } | Stmt::Rmw { reg, .. } => other[*reg as usize] = true,
        Stmt::If { then, els, .. } => {
            definitions(then, lets, other);
            definitions(els, lets, other);
        }
        Stmt::Seq(parts) => parts.iter().for_each(|p| definitions(p, lets, other)),
        Stmt::Par { left, right, .. } => {
            definitions(left, lets, other);
            definitions(right, lets, other);
        }
        Stmt::Vulkan { body, .. } => definitions(body, lets, other),
        _ => {}
    }
}

impl Sem<'_> {
    /// The registers whose valuations the partitions range over: those in
    /// scope, less (for complete pomsets) the derived ones every path here
    /// assigns (module doc).
    pub fn partition_regs(&self, thread: ThreadId) -> Vec<core::RegId> {
        let scope = self.in_scope(thread);
        // The argument is about complete pomsets; refinement, candidates and
        // explain list incomplete ones too, so they partition over all.
        let derived = |r: &core::RegId| {
            self.complete_only
                && self.definite.contains(r)
                && self
                    .derived
                    .iter()
                    .any(|(d, ops)| d == r && ops.iter().all(|o| scope.contains(o)))
        };
        scope.iter().copied().filter(|r| !derived(r)).collect()
    }

    /// The registers in scope for a statement of `thread` (see the module doc).
    pub fn in_scope(&self, thread: ThreadId) -> Vec<core::RegId> {
        self.regs_of(thread)
            .into_iter()
            .filter(|r| !self.assigned_anywhere.contains(r) || self.assigned.contains(r))
            .collect()
    }

    /// The if-closed pomsets of a READ or WRITE with two or more events: for
    /// each partition of the valuations of the registers in scope into
    /// blocks B_1..B_k (k ≥ 2), θ_i = "the registers' valuation is in B_i",
    /// and each choice of a way per block whose κ is λ-consistent with θ_i
    /// (M3a). `first` is the statement's event id (the first block's);
    /// the other blocks get ids of their own.
    pub fn if_closed(
        &mut self,
        first: u32,
        ways: &[Way],
        thread: ThreadId,
        bounded: bool,
    ) -> Result<Vec<Frag>, Limit> {
        let regs = self.partition_regs(thread);
        // M3a over V is sound only where every register ranges over V.
        let bounded = bounded && !regs.iter().any(|r| self.unbounded.contains(r));
        let values = self.program.values.clone();
        let vals = valuations(&values, regs.len());
        if vals.len() < 2 || ways.is_empty() {
            return Ok(vec![]);
        }
        if bell(vals.len()) > self.max_partitions {
            return Err(Limit::Partitions(self.max_partitions));
        }
        let mut ids = vec![first];
        for _ in 1..vals.len() {
            ids.push(self.new_event()?);
        }
        // The formula "the registers take valuation i", once each.
        let is_val: Vec<FormulaId> = vals
            .iter()
            .map(|val| {
                let eqs: Vec<FormulaId> = regs
                    .iter()
                    .zip(val)
                    .map(|(&r, &v)| {
                        let (rt, vt) = (self.l.reg(r), self.l.value(v));
                        self.l.eq(rt, vt)
                    })
                    .collect();
                self.l.and_all(eqs)
            })
            .collect();
        let mut out = Vec::new();
        for blocks in partitions(vals.len()) {
            self.interrupted()?;
            let thetas: Vec<FormulaId> = blocks
                .iter()
                .map(|b| {
                    let parts: Vec<FormulaId> = b.iter().map(|&i| is_val[i]).collect();
                    self.l.or_all(parts)
                })
                .collect();
            // M3a: the ways each block may take.
            let mut choices: Vec<Vec<usize>> = Vec::with_capacity(thetas.len());
            for &theta in &thetas {
                let ok: Vec<usize> = (0..ways.len())
                    .filter(|&w| {
                        let k = self.l.and(theta, ways[w].kappa);
                        k != self.l.ff() && (!bounded || self.l.satisfiable(k))
                    })
                    .collect();
                choices.push(ok);
            }
            if choices.iter().any(Vec::is_empty) {
                continue;
            }
            let mut pick = vec![0usize; thetas.len()];
            loop {
                let chosen: Vec<&Way> = pick
                    .iter()
                    .zip(&choices)
                    .map(|(&p, c)| &ways[c[p]])
                    .collect();
                out.push(self.closed_frag(&ids, &thetas, &chosen));
                if out.len() > self.max_pomsets {
                    return Err(Limit::Pomsets(self.max_pomsets));
                }
                // The next choice, odometer style.
                let mut i = 0;
                while i < pick.len() {
                    pick[i] += 1;
                    if pick[i] < choices[i].len() {
                        break;
                    }
                    pick[i] = 0;
                    i += 1;
                }
                if i == pick.len() {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// One if-closed pomset with Ω = tt (w1-w5, R1-R5 of Definition 1.7):
    /// event i is `ids[i]`, labelled by its way, with κ = θ_i ∧ κ_way.
    fn closed_frag(&mut self, ids: &[u32], thetas: &[FormulaId], chosen: &[&Way]) -> Frag {
        let mut events = Vec::with_capacity(chosen.len());
        let mut parts = Vec::with_capacity(chosen.len());
        let mut checks = Vec::with_capacity(chosen.len());
        for (i, (&theta, way)) in thetas.iter().zip(chosen).enumerate() {
            let id = ids[i];
            let k = self.l.and(theta, way.kappa);
            let kappa = self.trees.kappa(KappaNode::Base(k));
            events.push(Ev {
                id,
                label: way.label,
                kappa,
            });
            let tau = match way.effect {
                Effect::Write(t) => t,
                Effect::Read {
                    reg,
                    addr,
                    value,
                    guard,
                } => self.trees.tau(TauNode::Read {
                    event: id,
                    reg,
                    addr,
                    value,
                    guard,
                    rmw: false,
                }),
            };
            parts.push((theta, tau));
            checks.push(self.l.implies(theta, way.check));
        }
        let tau = self.trees.tau(TauNode::Guarded(parts));
        let check = self.l.and_all(checks);
        let mut f = self.empty_frag(tau, check);
        f.events = events;
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bell_numbers() {
        let want = [1, 1, 2, 5, 15, 52, 203, 877, 4140];
        for (n, &b) in want.iter().enumerate() {
            assert_eq!(bell(n), b, "Bell({n})");
        }
        assert_eq!(bell(200), usize::MAX, "saturates");
    }

    #[test]
    fn partitions_are_every_partition_with_two_or_more_blocks() {
        for n in 0..7 {
            let ps = partitions(n);
            // Bell(n) minus the one-block partition (none for n = 0).
            assert_eq!(ps.len(), bell(n).saturating_sub(1), "n = {n}");
            for p in &ps {
                assert!(p.len() >= 2);
                let mut all: Vec<usize> = p.concat();
                all.sort_unstable();
                assert_eq!(all, (0..n).collect::<Vec<_>>());
                assert!(p.iter().all(|b| !b.is_empty()));
            }
            let mut distinct = ps.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), ps.len());
        }
    }

    #[test]
    fn valuations_are_the_product() {
        assert_eq!(
            valuations(&[0, 1], 2),
            vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]
        );
        assert_eq!(valuations(&[0, 1, 2], 0), vec![Vec::<i64>::new()]);
    }
}
