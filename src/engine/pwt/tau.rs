//! Families of predicate transformers τ^D and preconditions κ, kept as small
//! trees and applied on demand for a given D (Definition 1.4). Only reads
//! look at D (R4a/R4b, and R4d for an RMW's read), so D is a bitmask of
//! read events, and results are memoised per (node, D ∩ reads below it, ψ).

use super::expr::{self, Cases};
use crate::logic::{Addr, FormulaId, FxMap, Logic, Valuation, Var};

/// A transformer, by its index in the arena.
pub type Tau = u32;
/// A precondition, by its index in the arena.
pub type Kappa = u32;
/// A set of events, as a bitmask over event ids.
pub type Events = u64;

#[derive(Clone, Debug)]
pub enum TauNode {
    /// SKIP, FENCE (F4), and PAR's left side.
    Id,
    /// LET (Fig. 1): ψ[M/r].
    Let { reg: u32, value: Cases },
    /// WRITE (w4a/w4b): ψ[M/x][q/Q_x], with q = (M = v), or ff with no event.
    Write {
        addr: Addr,
        value: Cases,
        quiescent: FormulaId,
    },
    /// READ with an event (R4a/R4b): `guard` is L = ℓ for a computed address
    /// (§1.5) and tt otherwise. An RMW's read (READ', R4d) is the identity
    /// when it is not in D.
    Read {
        event: u32,
        reg: u32,
        addr: Addr,
        value: i64,
        guard: FormulaId,
        rmw: bool,
    },
    /// READ with no event (R4c): ψ[s/r] for an arbitrary s, a fresh symbol.
    ReadAbsent { reg: u32, fresh: u32 },
    /// SEQ (s4): τ1^D ∘ τ2^D.
    Seq(Tau, Tau),
    /// IF (I4): (φ ∧ τ1^D(ψ)) ∨ (¬φ ∧ τ2^D(ψ)).
    If(FormulaId, Tau, Tau),
    /// ∧ (g ⇒ τ^D(ψ)): computed addresses (w4, §1.5).
    Guarded(Vec<(FormulaId, Tau)>),
}

#[derive(Clone, Copy, Debug)]
pub enum KappaNode {
    Base(FormulaId),
    /// κ2'(e) = τ1^{↓e}(κ2(e)) for a non-read (s3b): D is e's dependencies.
    Dep(Tau, Kappa),
    /// κ2'(e) = τ1(κ2(e)) for a read: D is every event.
    All(Tau, Kappa),
    /// IF (I3a/I3b): φ ∧ κ.
    Guard(FormulaId, Kappa),
    /// An event on both sides of SEQ (s3c) or IF (I3c).
    Or(Kappa, Kappa),
}

/// The registers known so far, as a valuation that notes when an unknown
/// symbol is looked up (`Trees::forward`): evaluation short-circuits, so a
/// result reached without one holds whatever the unknown symbols are.
struct Known<'a> {
    regs: &'a FxMap<u32, i64>,
    missing: std::cell::Cell<bool>,
}

impl<'a> Known<'a> {
    fn new(regs: &'a FxMap<u32, i64>) -> Known<'a> {
        Known {
            regs,
            missing: std::cell::Cell::new(false),
        }
    }
}

impl Valuation for Known<'_> {
    fn value(&self, v: Var) -> i64 {
        match v {
            Var::Reg(r) if self.regs.contains_key(&r) => self.regs[&r],
            _ => {
                self.missing.set(true);
                0
            }
        }
    }

    fn quiescent(&self, _: Addr) -> bool {
        self.missing.set(true);
        false
    }
}

/// The arenas and the memo table for one litmus test.
#[derive(Default)]
pub struct Trees {
    taus: Vec<(TauNode, Events)>,
    kappas: Vec<KappaNode>,
    /// Keyed by ids, which are already spread: no SipHash.
    memo: FxMap<(Tau, Events, FormulaId), FormulaId>,
}

impl Trees {
    pub fn tau(&mut self, node: TauNode) -> Tau {
        let reads = match &node {
            TauNode::Read { event, .. } => 1u64 << event,
            TauNode::Seq(a, b) | TauNode::If(_, a, b) => self.reads(*a) | self.reads(*b),
            TauNode::Guarded(parts) => parts.iter().fold(0, |m, (_, t)| m | self.reads(*t)),
            _ => 0,
        };
        self.taus.push((node, reads));
        (self.taus.len() - 1) as Tau
    }

    pub fn kappa(&mut self, node: KappaNode) -> Kappa {
        self.kappas.push(node);
        (self.kappas.len() - 1) as Kappa
    }

    /// The read events below a transformer: the only members of D it looks at.
    pub fn reads(&self, t: Tau) -> Events {
        self.taus[t as usize].1
    }

    /// τ^D(ψ).
    pub fn apply(&mut self, l: &mut Logic, t: Tau, d: Events, psi: FormulaId) -> FormulaId {
        let d = d & self.reads(t);
        if let Some(&f) = self.memo.get(&(t, d, psi)) {
            return f;
        }
        let node = self.taus[t as usize].0.clone();
        let out = match node {
            TauNode::Id => psi,
            TauNode::Let { reg, value } => expr::substitute(l, psi, Var::Reg(reg), &value),
            TauNode::Write {
                addr,
                value,
                quiescent,
            } => {
                let moved = expr::substitute(l, psi, Var::Loc(addr), &value);
                l.subst_quiescent(moved, addr, quiescent)
            }
            TauNode::Read {
                event,
                reg,
                addr,
                value,
                guard,
                rmw,
            } => {
                let in_d = d >> event & 1 == 1;
                if rmw && !in_d {
                    psi
                } else {
                    let s = l.read(event);
                    let body = l.subst_var(psi, Var::Reg(reg), s);
                    let v = l.value(value);
                    let saw = l.eq(v, s);
                    let saw = l.implies(guard, saw);
                    let hyp = if in_d {
                        saw
                    } else {
                        let x = l.loc(addr);
                        let holds = l.eq(x, s);
                        let holds = l.implies(guard, holds);
                        l.or(saw, holds)
                    };
                    l.implies(hyp, body)
                }
            }
            TauNode::ReadAbsent { reg, fresh } => {
                let s = l.read(fresh);
                l.subst_var(psi, Var::Reg(reg), s)
            }
            TauNode::Seq(a, b) => {
                let inner = self.apply(l, b, d, psi);
                self.apply(l, a, d, inner)
            }
            TauNode::If(phi, a, b) => {
                let (ta, tb) = (self.apply(l, a, d, psi), self.apply(l, b, d, psi));
                let yes = l.and(phi, ta);
                let nphi = l.not(phi);
                let no = l.and(nphi, tb);
                l.or(yes, no)
            }
            TauNode::Guarded(parts) => {
                let mut conj = Vec::with_capacity(parts.len());
                for (g, t) in parts {
                    let inner = self.apply(l, t, d, psi);
                    conj.push(l.implies(g, inner));
                }
                l.and_all(conj)
            }
        };
        self.memo.insert((t, d, psi), out);
        out
    }

    /// κ(e) for dependencies `d` (↓e).
    pub fn eval(&mut self, l: &mut Logic, k: Kappa, d: Events) -> FormulaId {
        match self.kappas[k as usize] {
            KappaNode::Base(f) => f,
            KappaNode::Dep(t, inner) => {
                let f = self.eval(l, inner, d);
                self.apply(l, t, d, f)
            }
            KappaNode::All(t, inner) => {
                let f = self.eval(l, inner, d);
                self.apply(l, t, u64::MAX, f)
            }
            KappaNode::Guard(phi, inner) => {
                let f = self.eval(l, inner, d);
                l.and(phi, f)
            }
            KappaNode::Or(a, b) => {
                let (fa, fb) = (self.eval(l, a, d), self.eval(l, b, d));
                l.or(fa, fb)
            }
        }
    }

    /// The registers after transformer `t`, run forward from `regs` (each
    /// known register's value; one left out is not known): LET sets its
    /// register, a READ with an event sets its register to what `read` says
    /// the event reads (checked against the value the READ was built with),
    /// a READ without one (R4c) leaves its register unknown, and IF takes
    /// the branch its condition picks. `None` where this cannot tell without
    /// the logic: a condition or value that needs an unknown register or
    /// memory, a computed address's guard, an event `read` cannot resolve.
    ///
    /// Where it answers, it is exact for every transformer with all reads
    /// in D: τ(ψ) is then ψ with the registers replaced by their values at
    /// the end of the one path the values pick (s4 composes, I4 splits on
    /// φ over the registers before the IF, R4a/R4b under θ_λ replace r by
    /// the event's value, LET by M's), so θ_λ ⊨ τ(r = v) for that value
    /// and for no other (`decide::final_registers`).
    pub(super) fn forward(
        &self,
        l: &Logic,
        t: Tau,
        read: &dyn Fn(u32) -> Option<i64>,
        regs: &mut FxMap<u32, i64>,
    ) -> Option<()> {
        match &self.taus[t as usize].0 {
            TauNode::Id | TauNode::Write { .. } => {}
            TauNode::Let { reg, value } => {
                let env = Known::new(regs);
                let found = value
                    .iter()
                    .find(|&&(c, _)| l.eval(c, &env))
                    .map(|&(_, m)| l.eval_term(m, &env));
                let found = found.filter(|_| !env.missing.get())?;
                regs.insert(*reg, found);
            }
            TauNode::Read {
                event,
                reg,
                value,
                guard,
                ..
            } => {
                let seen = read(*event).filter(|v| v == value && *guard == l.tt())?;
                regs.insert(*reg, seen);
            }
            TauNode::ReadAbsent { reg, .. } => {
                regs.remove(reg);
            }
            TauNode::Seq(a, b) => {
                self.forward(l, *a, read, regs)?;
                self.forward(l, *b, read, regs)?;
            }
            TauNode::If(phi, a, b) => {
                let env = Known::new(regs);
                let holds = l.eval(*phi, &env);
                if env.missing.get() {
                    return None;
                }
                self.forward(l, if holds { *a } else { *b }, read, regs)?;
            }
            TauNode::Guarded(_) => return None,
        }
        Some(())
    }

    /// The reads without an event below a transformer (R4c), as (fresh symbol,
    /// register): refinement chooses what each arbitrary s stands for.
    pub fn absent_reads(&self, t: Tau) -> Vec<(u32, u32)> {
        match &self.taus[t as usize].0 {
            TauNode::ReadAbsent { reg, fresh } => vec![(*fresh, *reg)],
            TauNode::Seq(a, b) | TauNode::If(_, a, b) => {
                [self.absent_reads(*a), self.absent_reads(*b)].concat()
            }
            TauNode::Guarded(parts) => parts
                .iter()
                .flat_map(|(_, t)| self.absent_reads(*t))
                .collect(),
            _ => vec![],
        }
    }

    /// The reads with an event below a transformer, as (event, register):
    /// refinement matches the registers the two sides invent through them.
    pub fn read_registers(&self, t: Tau) -> Vec<(u32, u32)> {
        match &self.taus[t as usize].0 {
            TauNode::Read { event, reg, .. } => vec![(*event, *reg)],
            TauNode::Seq(a, b) | TauNode::If(_, a, b) => {
                [self.read_registers(*a), self.read_registers(*b)].concat()
            }
            TauNode::Guarded(parts) => parts
                .iter()
                .flat_map(|(_, t)| self.read_registers(*t))
                .collect(),
            _ => vec![],
        }
    }

    /// The reads whose membership in D can change κ: those under a `Dep`.
    pub fn dep_reads(&self, k: Kappa) -> Events {
        match self.kappas[k as usize] {
            KappaNode::Base(_) => 0,
            KappaNode::Dep(t, inner) => self.reads(t) | self.dep_reads(inner),
            KappaNode::All(_, inner) | KappaNode::Guard(_, inner) => self.dep_reads(inner),
            KappaNode::Or(a, b) => self.dep_reads(a) | self.dep_reads(b),
        }
    }
}
