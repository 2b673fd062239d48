//! Fig. 1, one function per construct, each returning *every* pomset of
//! its construct: every value v ∈ V, present and absent events, every way
//! equal-labelled events coalesce (s1, I1), every dependency set ↓e (s3b),
//! and, with `monotonicity`, every stronger mode and scope (§2). §1.5's
//! computed addresses and §1.7's RMWs are here too.
//!
//! The one pruning: a pomset some κ(e) of which is λ-inconsistent is not a
//! pomset (M3a) and is dropped. A SEQ whose ⊴ would not be a partial order
//! (M6) is not built either: it is not a pomset.

use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use super::expr::{self, Value};
use super::pomset::{
    member, rename, rename_merging, single, Event, EventId, Events, Pomset, Renaming, Tau, ALL,
    MAX_EVENTS,
};
use crate::action::{Action, Kind, Mode, Scope, ThreadId};
use crate::logic::{Addr, FormulaId, Logic, Subst, Var};
use crate::model::{IfClosure, Merge, MergeRead, Model, Monotonicity};
use crate::syntax::ast::{BinOp, RmwOp};
use crate::syntax::core::{Expr, Loc, Program, Stmt};

/// Why the engine stopped: a stated limit, reported, never a wrong answer.
#[derive(Clone, Debug)]
pub struct Stop(pub String);

/// Named locations without a declared address get one of their own, far
/// from every value so that no computed address reaches it; the same
/// addressing as the fast engine (`semantics::construct::Sem::new`).
const PRIVATE_ADDRESSES: Addr = i64::MIN / 2;

/// What the constructs share for one litmus test.
pub struct Den<'a> {
    pub p: &'a Program,
    pub model: &'a Model,
    pub l: Logic,
    next_id: EventId,
    /// Each named location's address.
    pub addr: Vec<Addr>,
    /// Address → the location number in labels.
    dense: HashMap<Addr, u32>,
    max_pomsets: usize,
    deadline: Option<(Instant, f64)>,
    /// Final states kept at most (`--max-states`).
    pub max_states: usize,
    /// Registers some LET assigns: M3a cannot judge them over V.
    unbounded: Vec<u32>,
    /// `if_closure = registers`: the most partitions one statement may
    /// have; the registers some statement assigns; those assigned so far.
    pub max_partitions: usize,
    every_assigned: Vec<u32>,
    defined: Vec<u32>,
}

/// One way an if-closed event can go (Definition 1.7): its label, κ
/// without the guard, ✓ without the guard, and its transformer for an id.
struct Way {
    label: Action,
    kappa: FormulaId,
    check: FormulaId,
    tau: Rc<dyn Fn(EventId) -> Tau>,
}

impl<'a> Den<'a> {
    pub fn new(
        p: &'a Program,
        model: &'a Model,
        max_pomsets: usize,
        deadline: Option<(Instant, f64)>,
    ) -> Self {
        let addr: Vec<Addr> = p
            .locs
            .iter()
            .enumerate()
            .map(|(i, loc)| loc.address.unwrap_or(PRIVATE_ADDRESSES + i as Addr))
            .collect();
        let mut den = Den {
            p,
            model,
            l: Logic::new(&p.values),
            next_id: 0,
            addr: addr.clone(),
            dense: HashMap::new(),
            max_pomsets,
            deadline,
            max_states: crate::outcome::MAX_STATES,
            unbounded: p.main.iter().flat_map(|(_, s)| s.let_targets()).collect(),
            max_partitions: 1000,
            every_assigned: Vec::new(),
            defined: Vec::new(),
        };
        fn assigns(s: &Stmt, out: &mut Vec<u32>) {
            match s {
                Stmt::Read { reg, .. } | Stmt::Let { reg, .. } | Stmt::Rmw { reg, .. } => {
                    out.push(*reg)
                }
                Stmt::If { then, els, .. } => {
                    assigns(then, out);
                    assigns(els, out);
                }
                Stmt::Seq(parts) => parts.iter().for_each(|s| assigns(s, out)),
                Stmt::Par { left, right, .. } => {
                    assigns(left, out);
                    assigns(right, out);
                }
                _ => {}
            }
        }
        for (_, body) in &p.main {
            assigns(body, &mut den.every_assigned);
        }
        for a in addr {
            den.loc_of(a);
        }
        den
    }

    /// The label location of an address.
    pub fn loc_of(&mut self, a: Addr) -> u32 {
        let n = self.dense.len() as u32;
        *self.dense.entry(a).or_insert(n)
    }

    /// The label location of an address, if some access uses it.
    pub fn label_loc(&self, a: Addr) -> Option<u32> {
        self.dense.get(&a).copied()
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.map(|(at, _)| at)
    }

    /// A fresh event id (one per access statement and implicit access).
    pub fn fresh(&mut self) -> Result<EventId, Stop> {
        if self.next_id >= MAX_EVENTS {
            return Err(Stop(format!("reference: more than {MAX_EVENTS} accesses")));
        }
        self.next_id += 1;
        Ok(self.next_id - 1)
    }

    /// The stated limits: too many pomsets, past the deadline, or over the
    /// memory budget.
    pub fn within_limits(&self, count: usize) -> Result<(), Stop> {
        if count > self.max_pomsets {
            return Err(Stop(format!("--max-pomsets {}", self.max_pomsets)));
        }
        if let Some(why) = crate::outcome::interrupted(self.deadline, None) {
            return Err(Stop(why));
        }
        Ok(())
    }

    fn done(&self, out: Vec<Pomset>) -> Result<Vec<Pomset>, Stop> {
        self.within_limits(out.len())?;
        Ok(out)
    }

    /// ⟦S⟧_α (Fig. 1, bottom).
    pub fn stmt(&mut self, s: &Stmt, alpha: ThreadId) -> Result<Vec<Pomset>, Stop> {
        match s {
            Stmt::Vulkan { .. } | Stmt::Barrier { .. } => Err(Stop(format!(
                "{} is defined by the Vulkan model only; run with --model vulkan",
                s.vulkan_only().map_or("a Vulkan construct", |v| v.1)
            ))),
            Stmt::Skip => Ok(vec![self.skip()]),
            // No events, τ^D(ψ) = ψ, ✓ = ff: the path never terminates.
            Stmt::Diverge { .. } => Ok(vec![Pomset::empty(identity(), self.l.ff())]),
            Stmt::Let { reg, expr } => {
                self.defined.push(*reg);
                Ok(vec![self.let_(*reg, expr)])
            }
            Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => {
                let out = self.read(*reg, loc, *mode, *scope, alpha, false);
                self.defined.push(*reg);
                out
            }
            Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => self.write(loc, expr, *mode, *scope, alpha),
            Stmt::Fence { mode, scope } => self.fence(*mode, *scope, alpha),
            Stmt::Rmw {
                reg,
                op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            } => {
                let modes = (*read_mode, *write_mode);
                let out = self.rmw(*reg, *op, modes, *scope, loc, args, alpha);
                self.defined.push(*reg);
                out
            }
            Stmt::If { cond, then, els } => {
                let phi = expr::truth(&mut self.l, cond);
                let outside = self.defined.len();
                let a = self.stmt(then, alpha)?;
                // The else branch sees only what precedes the IF as defined.
                let in_then: Vec<u32> = self.defined.drain(outside..).collect();
                let b = self.stmt(els, alpha)?;
                self.defined.extend(in_then);
                self.if_(phi, &a, &b)
            }
            Stmt::Seq(parts) => {
                let mut acc = vec![self.skip()];
                for part in parts {
                    let next = self.stmt(part, alpha)?;
                    acc = self.seq(&acc, &next)?;
                }
                Ok(acc)
            }
            Stmt::Par {
                thread,
                left,
                right,
            } => {
                let (a, b) = (self.stmt(left, *thread)?, self.stmt(right, alpha)?);
                self.par(*thread, &a, &b)
            }
        }
    }

    /// SKIP: E = ∅, τ^D(ψ) = ψ, ✓ = tt.
    pub fn skip(&mut self) -> Pomset {
        Pomset::empty(identity(), self.l.tt())
    }

    /// LET(r, M): E = ∅, τ^D(ψ) = ψ[M/r], ✓ = tt.
    pub fn let_(&mut self, reg: u32, m: &Expr) -> Pomset {
        let m = expr::value(&mut self.l, m);
        let cases = expr::cases(&mut self.l, Var::Reg(reg), &m, &Subst::new());
        let tau: Tau = Rc::new(move |l, _d, psi| expr::substitute(l, psi, &cases));
        Pomset::empty(tau, self.l.tt())
    }

    /// Where an access goes, with its guard: a named location's address
    /// under tt, or (§1.5) each ℓ ∈ V under L = ℓ.
    fn places(&mut self, loc: &Loc) -> Vec<(FormulaId, Addr)> {
        match loc {
            Loc::Named(x) => {
                let a = self
                    .addr
                    .get(*x as usize)
                    .copied()
                    .unwrap_or(PRIVATE_ADDRESSES);
                vec![(self.l.tt(), a)]
            }
            Loc::Computed(e) => {
                let lv = expr::value(&mut self.l, e);
                let values = self.p.values.clone();
                values
                    .into_iter()
                    .map(|v| {
                        let t = self.l.value(v);
                        (expr::equals(&mut self.l, &lv, t), v)
                    })
                    .collect()
            }
        }
    }

    /// §2 monotonicity: the modes an event may carry (as written, or with
    /// `monotonicity` any stronger mode its kind allows).
    fn modes(&self, kind: Kind, mode: Mode) -> Vec<Mode> {
        if self.model.monotonicity == Monotonicity::Off {
            return vec![mode];
        }
        let legal: &[Mode] = match kind {
            Kind::Read => &[Mode::Wk, Mode::Rlx, Mode::Acq, Mode::Sc],
            Kind::Write => &[Mode::Wk, Mode::Rlx, Mode::Rel, Mode::Sc],
            Kind::Fence => &[Mode::Rel, Mode::Acq, Mode::Ra, Mode::Sc],
        };
        let mut out = vec![mode];
        out.extend(
            legal
                .iter()
                .copied()
                .filter(|m| *m != mode && mode.below(*m)),
        );
        out
    }

    /// §2 "One could do the same for scopes": with `modes_scopes`, any wider scope.
    fn scopes(&self, scope: Scope) -> Vec<Scope> {
        if self.model.monotonicity != Monotonicity::ModesScopes {
            return vec![scope];
        }
        Scope::ALL.into_iter().filter(|s| *s >= scope).collect()
    }

    /// Every label of one access: each allowed mode and scope.
    fn labels(&self, kind: Kind, mode: Mode, scope: Scope) -> Vec<(Mode, Scope)> {
        let mut out = Vec::new();
        for m in self.modes(kind, mode) {
            for s in self.scopes(scope) {
                out.push((m, s));
            }
        }
        out
    }

    /// READ (R1-R5; Def. 1.8 without if-closure for `[L]`), and READ' (R4d)
    /// when `rmw`.
    pub fn read(
        &mut self,
        reg: u32,
        loc: &Loc,
        mode: Mode,
        scope: Scope,
        alpha: ThreadId,
        rmw: bool,
    ) -> Result<Vec<Pomset>, Stop> {
        let id = self.fresh()?;
        let mut out = Vec::new();
        let mut ways = Vec::new();
        for (guard, a) in self.places(loc) {
            let dloc = self.loc_of(a);
            // R3: κ(e) = (L = ℓ) ∧ Q_[ℓ].
            let q = self.l.quiescent(a);
            let kappa = self.l.and(guard, q);
            for v in self.p.values.clone() {
                let tau = read_tau(id, reg, guard, a, v, rmw);
                for (m, s) in self.labels(Kind::Read, mode, scope) {
                    // R5a: ✓ = tt.
                    let mut p = Pomset::empty(tau.clone(), self.l.tt());
                    let label = Action::read(alpha, m, s, dloc, v);
                    p.events.push(Event { id, label, kappa });
                    if p.lambda_consistent(&mut self.l, &self.unbounded) {
                        out.push(p);
                    }
                    ways.push(Way {
                        label,
                        kappa,
                        check: self.l.tt(),
                        tau: Rc::new(move |e| read_tau(e, reg, guard, a, v, false)),
                    });
                }
            }
        }
        out.push(self.absent_read(id, reg, mode));
        if !rmw && self.model.if_closure == IfClosure::Registers {
            let closed = self.if_closed(id, &ways, alpha)?;
            out.extend(closed);
        }
        self.done(out)
    }

    /// R4c, R5a/R5b: no event; τ^D(ψ) = ψ[s/r] for a fresh s (the symbol of
    /// this statement's id, which names no event here); ✓ = ff for ⊒ acq.
    /// For READ' too: R4d's "E ∩ D = ∅" with E = ∅ would ask ψ ≡ ψ[s/r] for
    /// every ψ, which no τ satisfies; we read R4d as the case e ∉ D only.
    fn absent_read(&mut self, id: EventId, reg: u32, mode: Mode) -> Pomset {
        let tau: Tau = Rc::new(move |l, _d, psi| {
            let s = l.read(id);
            l.subst_var(psi, Var::Reg(reg), s)
        });
        let check = self.l.constant(mode.below(Mode::Rlx));
        Pomset::empty(tau, check)
    }

    /// WRITE (w1-w5; Def. 1.6 for `[L]`).
    pub fn write(
        &mut self,
        loc: &Loc,
        m: &Expr,
        mode: Mode,
        scope: Scope,
        alpha: ThreadId,
    ) -> Result<Vec<Pomset>, Stop> {
        self.write_or_half(loc, m, (mode, scope), alpha, true)
    }

    /// WRITE, if-closed when `closed` and the model says so (an RMW's
    /// write half never is).
    fn write_or_half(
        &mut self,
        loc: &Loc,
        m: &Expr,
        (mode, scope): (Mode, Scope),
        alpha: ThreadId,
        closed: bool,
    ) -> Result<Vec<Pomset>, Stop> {
        let id = self.fresh()?;
        let m = expr::value(&mut self.l, m);
        let computed = matches!(loc, Loc::Computed(_));
        let places = self.places(loc);
        let mut out = Vec::new();
        let mut ways = Vec::new();
        for &(guard, a) in &places {
            let dloc = self.loc_of(a);
            for v in self.p.values.clone() {
                let vt = self.l.value(v);
                let eq = expr::equals(&mut self.l, &m, vt);
                // w3: κ(e) = (L = ℓ) ∧ (M = v); w5a: ✓ the same.
                let kappa = self.l.and(guard, eq);
                let tau = write_tau(&mut self.l, a, &m, eq, computed.then_some(guard));
                for (md, s) in self.labels(Kind::Write, mode, scope) {
                    let mut p = Pomset::empty(tau.clone(), kappa);
                    let label = Action::write(alpha, md, s, dloc, v);
                    p.events.push(Event { id, label, kappa });
                    if p.lambda_consistent(&mut self.l, &self.unbounded) {
                        out.push(p);
                    }
                    let tau = tau.clone();
                    ways.push(Way {
                        label,
                        kappa,
                        check: kappa,
                        tau: Rc::new(move |_| tau.clone()),
                    });
                }
            }
        }
        // w4b, w5b: no event; (∀k) (L = k) ⇒ ψ[M/[k]][ff/Q_[k]]; ✓ = ff.
        let ff = self.l.ff();
        let parts: Vec<Tau> = places
            .iter()
            .map(|&(g, a)| write_tau(&mut self.l, a, &m, ff, computed.then_some(g)))
            .collect();
        let tau: Tau = Rc::new(move |l, d, psi| {
            let mut all = l.tt();
            for t in &parts {
                let f = t(l, d, psi);
                all = l.and(all, f);
            }
            all
        });
        out.push(Pomset::empty(tau, ff));
        if closed && self.model.if_closure == IfClosure::Registers {
            let closed = self.if_closed(id, &ways, alpha)?;
            out.extend(closed);
        }
        self.done(out)
    }

    /// Definition 1.7 with Ω = tt and two or more events, under the reading
    /// `if_closure = registers`: the guards θ_e are the blocks of a
    /// partition of the valuations (over V) of the registers of thread
    /// `alpha` in scope (defined before this statement, or never assigned),
    /// and each event takes one of `ways`. w4/R4: τ^D(ψ) = ∧_e (θ_e ⇒
    /// τ_e^D(ψ)); w5: ✓ = ∧_e (θ_e ⇒ ✓_e); w3/R3: κ(e) = θ_e ∧ κ_e. The
    /// one-block partition and Ω = ff are Fig. 1's pomsets, built above.
    fn if_closed(
        &mut self,
        id: EventId,
        ways: &[Way],
        alpha: ThreadId,
    ) -> Result<Vec<Pomset>, Stop> {
        let regs: Vec<u32> = (0..self.p.regs.len() as u32)
            .filter(|&r| self.p.regs[r as usize].thread == alpha)
            .filter(|r| !self.every_assigned.contains(r) || self.defined.contains(r))
            .collect();
        let mut valuations: Vec<FormulaId> = vec![self.l.tt()];
        for &r in &regs {
            let mut next = Vec::new();
            for &f in &valuations {
                for v in self.p.values.clone() {
                    let (rt, vt) = (self.l.reg(r), self.l.value(v));
                    let eq = self.l.eq(rt, vt);
                    next.push(self.l.and(f, eq));
                }
            }
            valuations = next;
        }
        let n = valuations.len();
        if n < 2 || ways.is_empty() {
            return Ok(vec![]);
        }
        let every = set_partitions(n, self.max_partitions).ok_or_else(|| {
            Stop(format!(
                "reference: more than {} partitions (--max-partitions)",
                self.max_partitions
            ))
        })?;
        let mut ids = vec![id];
        for _ in 1..n {
            ids.push(self.fresh()?);
        }
        let mut out = Vec::new();
        for blocks in every.into_iter().filter(|b| b.len() >= 2) {
            let thetas: Vec<FormulaId> = blocks
                .iter()
                .map(|b| {
                    let fs: Vec<FormulaId> = b.iter().map(|&i| valuations[i]).collect();
                    self.l.or_all(fs)
                })
                .collect();
            // Every assignment of a way to each block.
            let mut picks: Vec<Vec<usize>> = vec![vec![]];
            for _ in &blocks {
                picks = picks
                    .into_iter()
                    .flat_map(|p| {
                        (0..ways.len()).map(move |w| {
                            let mut q = p.clone();
                            q.push(w);
                            q
                        })
                    })
                    .collect();
            }
            for pick in picks {
                let mut events = Vec::new();
                let mut taus: Vec<(FormulaId, Tau)> = Vec::new();
                let mut check = self.l.tt();
                for (i, &w) in pick.iter().enumerate() {
                    let way = &ways[w];
                    let kappa = self.l.and(thetas[i], way.kappa);
                    events.push(Event {
                        id: ids[i],
                        label: way.label,
                        kappa,
                    });
                    taus.push((thetas[i], (way.tau)(ids[i])));
                    let c = self.l.implies(thetas[i], way.check);
                    check = self.l.and(check, c);
                }
                let tau: Tau = Rc::new(move |l, d, psi| {
                    let mut all = l.tt();
                    for (theta, t) in &taus {
                        let f = t(l, d, psi);
                        let f = l.implies(*theta, f);
                        all = l.and(all, f);
                    }
                    all
                });
                let mut p = Pomset::empty(tau, check);
                p.events = events;
                // M3a: every κ(e) λ-consistent.
                if p.lambda_consistent(&mut self.l, &self.unbounded) {
                    out.push(p);
                }
                self.within_limits(out.len())?;
            }
        }
        Ok(out)
    }

    /// FENCE (F1-F5).
    pub fn fence(
        &mut self,
        mode: Mode,
        scope: Scope,
        alpha: ThreadId,
    ) -> Result<Vec<Pomset>, Stop> {
        let id = self.fresh()?;
        let tt = self.l.tt();
        let mut out = Vec::new();
        for (m, s) in self.labels(Kind::Fence, mode, scope) {
            // F3: κ = tt; F4: τ = identity; F5a: ✓ = tt.
            let mut p = Pomset::empty(identity(), tt);
            let label = Action::fence(alpha, m, s);
            p.events.push(Event {
                id,
                label,
                kappa: tt,
            });
            out.push(p);
        }
        // F5b: no event, ✓ = ff.
        let ff = self.l.ff();
        out.push(Pomset::empty(identity(), ff));
        self.done(out)
    }

    /// §1.7: FADD = SEQ(READ', WRITE(L, r+M)), EXCHG = SEQ(READ', WRITE(L, M)),
    /// CAS = SEQ(READ', IF(r = M, WRITE(L, N), SKIP)), each with U1 as the
    /// project reads it: the write exists only with its read, on the same
    /// location, and the two form the rmw pair.
    #[allow(clippy::too_many_arguments)]
    pub fn rmw(
        &mut self,
        reg: u32,
        op: RmwOp,
        (mu, nu): (Mode, Mode),
        scope: Scope,
        loc: &Loc,
        args: &[Expr],
        alpha: ThreadId,
    ) -> Result<Vec<Pomset>, Stop> {
        let reads = self.read(reg, loc, mu, scope, alpha, true)?;
        let r = Box::new(Expr::Reg(reg));
        let arg = |i: usize| Box::new(args.get(i).cloned().unwrap_or(Expr::Int(0)));
        let writes = match op {
            RmwOp::Fadd => {
                let sum = Expr::Binary(BinOp::Add, r, arg(0));
                self.write_or_half(loc, &sum, (nu, scope), alpha, false)?
            }
            RmwOp::Exchg => self.write_or_half(loc, &arg(0), (nu, scope), alpha, false)?,
            RmwOp::Cas => {
                let phi = expr::truth(&mut self.l, &Expr::Binary(BinOp::Eq, r, arg(0)));
                let w = self.write_or_half(loc, &arg(1), (nu, scope), alpha, false)?;
                let skip = vec![self.skip()];
                self.if_(phi, &w, &skip)?
            }
        };
        let mut out = Vec::new();
        for p in self.seq(&reads, &writes)? {
            if let Some(p) = u1(p) {
                out.push(p);
            }
        }
        self.done(out)
    }

    /// SEQ (s1-s9): every pair, every coalescing, every choice of ↓e.
    pub fn seq(&mut self, left: &[Pomset], right: &[Pomset]) -> Result<Vec<Pomset>, Stop> {
        let model = self.model;
        let mut out = Vec::new();
        for p1 in left {
            for p2 in right {
                // s1, and §2's s2c: equal labels coalesce, and so do labels
                // `merge` is defined on, outside an RMW (U1 fixes its labels).
                let in_rmw =
                    |p: &Pomset, id: EventId| p.rmw.iter().any(|&(r, w)| r == id || w == id);
                let joins = |b: &Event, a: &Event| {
                    a.label == b.label
                        || (merge(model, &a.label, &b.label).is_some()
                            && !in_rmw(p1, a.id)
                            && !in_rmw(p2, b.id))
                };
                for pairs in coalescings(p1, p2, &joins) {
                    let renaming = Renaming {
                        read_values: merged_reads(p1, p2, &pairs),
                        pairs,
                    };
                    let p2 = rename_merging(&mut self.l, p2, &renaming);
                    for downs in dependency_choices(p1, &p2) {
                        let Some(p) = self.seq_one(p1, &p2, &downs) else {
                            continue;
                        };
                        if p.rmw_is_function() && p.lambda_consistent(&mut self.l, &self.unbounded)
                        {
                            out.push(p);
                        }
                    }
                }
                self.within_limits(out.len())?;
            }
        }
        Ok(out)
    }

    /// SEQ of one pair, after coalescing (p2 renamed) and with ↓e chosen for
    /// each non-read event of E2; `None` when a §2 merge's s3c fails.
    fn seq_one(&mut self, p1: &Pomset, p2: &Pomset, downs: &[(EventId, Events)]) -> Option<Pomset> {
        let t1 = p1.tau.clone();
        let t2 = p2.tau.clone();
        // s4: τ^D = τ1^D ∘ τ2^D.
        let tau: Tau = Rc::new(move |l, d, psi| {
            let inner = t2(l, d, psi);
            t1(l, d, inner)
        });
        // s5: ✓ = ✓1 ∧ τ1(✓2).
        let after = (p1.tau)(&mut self.l, ALL, p2.check);
        let check = self.l.and(p1.check, after);
        let mut p = Pomset {
            events: p1.events.clone(),
            tau,
            check,
            dep: [p1.dep.clone(), p2.dep.clone()].concat(),
            po: [p1.po.clone(), p2.po.clone()].concat(),
            rmw: [p1.rmw.clone(), p2.rmw.clone()].concat(),
            forks: p1.forks.clone(),
        };
        for e in &p2.events {
            let kappa2 = self.kappa2_prime(p1, e, downs);
            let merge_read = self.model.merge_read;
            match p.events.iter_mut().find(|x| x.id == e.id) {
                // s3c: κ1(e) ∨ κ2'(e).
                Some(x) if x.label == e.label => x.kappa = self.l.or(x.kappa, kappa2),
                // §2 s2c, s3c (write-read): λ = λ1(e), κ2'(e) ≡ κ(e) ≡ κ1(e);
                // `merge_read = prose` drops the read's side ("any
                // conditional surrounding a read is baked into the
                // predicate transformer").
                Some(x) if e.label.kind == Kind::Read => {
                    if merge_read == MergeRead::Printed && !self.l.equivalent(x.kappa, kappa2) {
                        return None;
                    }
                }
                // §2 s2c, s3c (write-write): λ = λ2(e), κ1(e) ≡ κ(e) ≡ κ2'(e).
                Some(x) => {
                    if !self.l.equivalent(x.kappa, kappa2) {
                        return None;
                    }
                    x.label = e.label;
                }
                // s3b: κ2'(e).
                None => p.events.push(Event {
                    id: e.id,
                    label: e.label,
                    kappa: kappa2,
                }),
            }
            for d in &p1.events {
                if d.id != e.id {
                    p.po.push((d.id, e.id, d.label, e.label));
                }
            }
        }
        for &(e, down) in downs {
            p.dep
                .extend((0..MAX_EVENTS).filter(|&d| member(down, d)).map(|d| (d, e)));
        }
        for (thread, f) in &p2.forks {
            p.forks.push((*thread, compose(p1.tau.clone(), f.clone())));
        }
        Some(p)
    }

    /// s3b: κ2'(e) = τ1(κ2(e)) for a read, τ1^{↓e}(κ2(e)) otherwise.
    fn kappa2_prime(&mut self, p1: &Pomset, e: &Event, downs: &[(EventId, Events)]) -> FormulaId {
        let d = match e.label.kind {
            Kind::Read => ALL,
            _ => downs
                .iter()
                .find(|(x, _)| *x == e.id)
                .map_or(0, |(_, d)| *d),
        };
        (p1.tau)(&mut self.l, d, e.kappa)
    }

    /// IF (I1-I9): every pair, every coalescing of equal labels.
    pub fn if_(
        &mut self,
        phi: FormulaId,
        left: &[Pomset],
        right: &[Pomset],
    ) -> Result<Vec<Pomset>, Stop> {
        let not_phi = self.l.not(phi);
        let mut out = Vec::new();
        for p1 in left {
            for p2 in right {
                // I1: only equal labels coalesce (§2's merge is SEQ's).
                for pairs in coalescings(p1, p2, &|b, a| a.label == b.label) {
                    let p2 = rename(&mut self.l, p2, &pairs);
                    let p = self.if_one(phi, not_phi, p1, &p2);
                    if p.rmw_is_function() && p.lambda_consistent(&mut self.l, &self.unbounded) {
                        out.push(p);
                    }
                }
                self.within_limits(out.len())?;
            }
        }
        Ok(out)
    }

    fn if_one(&mut self, phi: FormulaId, not_phi: FormulaId, p1: &Pomset, p2: &Pomset) -> Pomset {
        // I4: τ^D(ψ) = (φ ∧ τ1^D(ψ)) ∨ (¬φ ∧ τ2^D(ψ)).
        let tau = branch_tau(phi, not_phi, p1.tau.clone(), p2.tau.clone());
        // I5: ✓ = (φ ∧ ✓1) ∨ (¬φ ∧ ✓2).
        let yes = self.l.and(phi, p1.check);
        let no = self.l.and(not_phi, p2.check);
        let check = self.l.or(yes, no);
        let mut p = Pomset {
            events: Vec::new(),
            tau,
            check,
            dep: [p1.dep.clone(), p2.dep.clone()].concat(),
            po: [p1.po.clone(), p2.po.clone()].concat(),
            rmw: [p1.rmw.clone(), p2.rmw.clone()].concat(),
            forks: Vec::new(),
        };
        // I3a: φ ∧ κ1(e).
        for e in &p1.events {
            let kappa = self.l.and(phi, e.kappa);
            p.events.push(Event {
                id: e.id,
                label: e.label,
                kappa,
            });
        }
        for e in &p2.events {
            let kappa = self.l.and(not_phi, e.kappa);
            match p.events.iter_mut().find(|x| x.id == e.id) {
                // I3c: (φ ∧ κ1(e)) ∨ (¬φ ∧ κ2(e)).
                Some(x) => x.kappa = self.l.or(x.kappa, kappa),
                // I3b: ¬φ ∧ κ2(e).
                None => p.events.push(Event {
                    id: e.id,
                    label: e.label,
                    kappa,
                }),
            }
        }
        // A thread forked in one branch ran only if that branch was taken.
        for (t, f) in &p1.forks {
            p.forks
                .push((*t, branch_tau(phi, not_phi, f.clone(), identity())));
        }
        for (t, f) in &p2.forks {
            p.forks
                .push((*t, branch_tau(phi, not_phi, identity(), f.clone())));
        }
        p
    }

    /// PAR (P1-P9): `left` is the forked thread `child`; τ = τ2 (P4).
    pub fn par(
        &mut self,
        child: ThreadId,
        left: &[Pomset],
        right: &[Pomset],
    ) -> Result<Vec<Pomset>, Stop> {
        let mut out = Vec::new();
        for p1 in left {
            for p2 in right {
                let check = self.l.and(p1.check, p2.check);
                let mut forks = [p1.forks.clone(), p2.forks.clone()].concat();
                forks.push((child, p1.tau.clone()));
                let p = Pomset {
                    events: [p1.events.clone(), p2.events.clone()].concat(),
                    tau: p2.tau.clone(),
                    check,
                    dep: [p1.dep.clone(), p2.dep.clone()].concat(),
                    po: [p1.po.clone(), p2.po.clone()].concat(),
                    rmw: [p1.rmw.clone(), p2.rmw.clone()].concat(),
                    forks,
                };
                if p.lambda_consistent(&mut self.l, &self.unbounded) {
                    out.push(p);
                }
            }
            self.within_limits(out.len())?;
        }
        Ok(out)
    }
}

/// τ^D(ψ) = ψ.
pub fn identity() -> Tau {
    Rc::new(|_l, _d, psi| psi)
}

/// (τ1 ∘ τ2)^D = τ1^D ∘ τ2^D.
pub fn compose(t1: Tau, t2: Tau) -> Tau {
    Rc::new(move |l, d, psi| {
        let inner = t2(l, d, psi);
        t1(l, d, inner)
    })
}

/// (φ ∧ τ1^D(ψ)) ∨ (¬φ ∧ τ2^D(ψ)).
fn branch_tau(phi: FormulaId, not_phi: FormulaId, t1: Tau, t2: Tau) -> Tau {
    Rc::new(move |l, d, psi| {
        let a = t1(l, d, psi);
        let b = t2(l, d, psi);
        let yes = l.and(phi, a);
        let no = l.and(not_phi, b);
        l.or(yes, no)
    })
}

/// R4a (e ∈ D): ((L = ℓ) ⇒ v = s_e) ⇒ ψ[s_e/r];
/// R4b (e ∉ D): (((L = ℓ) ⇒ v = s_e) ∨ ((L = ℓ) ⇒ [ℓ] = s_e)) ⇒ ψ[s_e/r];
/// R4d (READ', e ∉ D): ψ. For a named location the guard L = ℓ is tt.
fn read_tau(id: EventId, reg: u32, guard: FormulaId, a: Addr, v: i64, rmw: bool) -> Tau {
    Rc::new(move |l, d, psi| {
        let inside = member(d, id);
        if rmw && !inside {
            return psi;
        }
        let s = l.read(id);
        let body = l.subst_var(psi, Var::Reg(reg), s);
        let vt = l.value(v);
        let v_is = l.eq(vt, s);
        let mut hyp = l.implies(guard, v_is);
        if !inside {
            let x = l.loc(a);
            let x_is = l.eq(x, s);
            let x_is = l.implies(guard, x_is);
            hyp = l.or(hyp, x_is);
        }
        l.implies(hyp, body)
    })
}

/// w4a: ψ[M/x][(M = v)/Q_x] (`quiescent` = M = v), or w4b with
/// `quiescent` = ff; for `[L]`, guarded by L = ℓ (Def. 1.6).
fn write_tau(
    l: &mut Logic,
    a: Addr,
    m: &Value,
    quiescent: FormulaId,
    guard: Option<FormulaId>,
) -> Tau {
    let cases = expr::cases(l, Var::Loc(a), m, &Subst::new().quiescent(a, quiescent));
    Rc::new(move |l, _d, psi| {
        let body = expr::substitute(l, psi, &cases);
        match guard {
            Some(g) => l.implies(g, body),
            None => body,
        }
    })
}

/// U1 as the project reads it: a write exists only with its read, on the
/// same location, and (read, write) ∈ rmw.
fn u1(mut p: Pomset) -> Option<Pomset> {
    let read = p
        .events
        .iter()
        .find(|e| e.label.kind == Kind::Read)
        .map(|e| (e.id, e.label.loc));
    let write = p
        .events
        .iter()
        .find(|e| e.label.kind == Kind::Write)
        .map(|e| (e.id, e.label.loc));
    match (read, write) {
        (_, None) => Some(p),
        (Some((r, rl)), Some((w, wl))) if rl == wl => {
            p.rmw.push((r, w));
            Some(p)
        }
        _ => None,
    }
}

/// §2's merge(a, b), read literally: a write followed by a read of its
/// value (same thread, scope, location) gives the write; a write followed
/// by a write gives the later one. The result is an upper bound of both
/// modes (associativity, §2); with `monotonicity`, the modes are equal.
/// Equal labels are plain coalescing, not a merge.
fn merge(model: &Model, a: &Action, b: &Action) -> Option<Action> {
    if model.merge == Merge::Off || a == b || a.kind != Kind::Write {
        return None;
    }
    let same_place = a.thread == b.thread && a.scope == b.scope && a.loc == b.loc;
    let bound = |below: Mode, above: Mode| match model.monotonicity {
        Monotonicity::Off => below.below(above),
        _ => below == above,
    };
    match b.kind {
        Kind::Read if same_place && a.value == b.value && bound(b.mode, a.mode) => Some(*a),
        Kind::Write if same_place && bound(a.mode, b.mode) => Some(*b),
        _ => None,
    }
}

/// The reads of p2 a `pairs` coalescing merges into a write of p1, each
/// with the value it read.
fn merged_reads(p1: &Pomset, p2: &Pomset, pairs: &[(EventId, EventId)]) -> Vec<(EventId, i64)> {
    pairs
        .iter()
        .filter_map(|&(b, a)| {
            let read = p2.events.iter().find(|e| e.id == b)?;
            let write = p1.events.iter().find(|e| e.id == a)?;
            (read.label.kind == Kind::Read && write.label.kind == Kind::Write)
                .then_some((b, read.label.value))
        })
        .collect()
}

/// s1, I1: every way some right-hand events are left-hand events (an
/// injective partial matching) whose labels `joins` (b, a) accepts, as
/// (right, left) pairs. An RMW's events coalesce like any other (E1 ∪ E2);
/// the result must keep rmw a partial function (M9), which
/// `Pomset::rmw_is_function` checks.
fn coalescings(
    p1: &Pomset,
    p2: &Pomset,
    joins: &dyn Fn(&Event, &Event) -> bool,
) -> Vec<Vec<(EventId, EventId)>> {
    let mut out: Vec<Vec<(EventId, EventId)>> = vec![vec![]];
    for b in &p2.events {
        let mut next = Vec::new();
        for m in &out {
            next.push(m.clone());
            for a in &p1.events {
                let free = !m.iter().any(|(_, x)| *x == a.id);
                if free && joins(b, a) {
                    let mut with = m.clone();
                    with.push((b.id, a.id));
                    next.push(with);
                }
            }
        }
        out = next;
    }
    out
}

/// s3b's ↓e for every non-read event e of E2: any set of reads of E1
/// (only reads matter: τ^D inspects D only through R4a/R4b/R4d), kept when
/// it is exactly what the resulting ⊴ puts below e, so that each order is
/// built once and transitivity through ⊴1 and ⊴2 is respected (M6).
fn dependency_choices(p1: &Pomset, p2: &Pomset) -> Vec<Vec<(EventId, Events)>> {
    let reads: Vec<EventId> = p1
        .events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .map(|e| e.id)
        .collect();
    let targets: Vec<EventId> = p2
        .events
        .iter()
        .filter(|e| e.label.kind != Kind::Read)
        .map(|e| e.id)
        .collect();
    let subsets: Vec<Events> = (0u64..1 << reads.len())
        .map(|bits| {
            reads
                .iter()
                .enumerate()
                .filter(|(i, _)| bits >> i & 1 == 1)
                .fold(0, |d, (_, &r)| d | single(r))
        })
        .collect();
    let mut out: Vec<Vec<(EventId, Events)>> = vec![vec![]];
    for &e in &targets {
        let mut next = Vec::new();
        for partial in &out {
            for &d in subsets.iter().filter(|&&d| !member(d, e)) {
                let mut with = partial.clone();
                with.push((e, d));
                next.push(with);
            }
        }
        out = next;
    }
    let read_set = reads.iter().fold(0, |d, &r| d | single(r));
    out.into_iter()
        .filter(|downs| closed_choice(p1, p2, downs, read_set))
        .collect()
}

/// Whether ⊴1 ∪ ⊴2 ∪ {(d, e) | d ∈ ↓e} is acyclic (M6) and puts below each
/// chosen e exactly its chosen reads of E1.
fn closed_choice(p1: &Pomset, p2: &Pomset, downs: &[(EventId, Events)], reads1: Events) -> bool {
    let mut edges: Vec<(EventId, EventId)> = [p1.dep.clone(), p2.dep.clone()].concat();
    for &(e, d) in downs {
        edges.extend((0..MAX_EVENTS).filter(|&x| member(d, x)).map(|x| (x, e)));
    }
    let below = predecessors(&edges);
    let strictly_below = |e: EventId| below.get(&e).copied().unwrap_or(0);
    if below.iter().any(|(&e, &d)| member(d, e)) {
        return false;
    }
    downs.iter().all(|&(e, d)| strictly_below(e) & reads1 == d)
}

/// For each event, the set of events strictly below it in the transitive
/// closure of `edges`.
fn predecessors(edges: &[(EventId, EventId)]) -> HashMap<EventId, Events> {
    let mut below: HashMap<EventId, Events> = HashMap::new();
    for &(d, e) in edges {
        *below.entry(e).or_insert(0) |= single(d);
    }
    loop {
        let mut changed = false;
        let snapshot = below.clone();
        for (_, set) in below.iter_mut() {
            let mut grown = *set;
            for (&d, &ds) in &snapshot {
                if member(*set, d) {
                    grown |= ds;
                }
            }
            if grown != *set {
                *set = grown;
                changed = true;
            }
        }
        if !changed {
            return below;
        }
    }
}

/// Every partition of {0, …, n-1}, each as its list of blocks, built by
/// placing each element in turn into one of the blocks so far or a new one;
/// `None` when there are more than `most`.
fn set_partitions(n: usize, most: usize) -> Option<Vec<Vec<Vec<usize>>>> {
    let mut all: Vec<Vec<Vec<usize>>> = vec![vec![]];
    for x in 0..n {
        let mut next = Vec::new();
        for p in &all {
            for b in 0..p.len() {
                let mut q = p.clone();
                q[b].push(x);
                next.push(q);
            }
            let mut q = p.clone();
            q.push(vec![x]);
            next.push(q);
        }
        if next.len() > most {
            return None;
        }
        all = next;
    }
    Some(all)
}
