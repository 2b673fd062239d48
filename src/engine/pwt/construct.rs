//! One function per construct of Fig. 1 (§1.4), plus the RMWs of §1.7 and
//! computed addresses (§1.5). Each returns every local pomset of its
//! construct ("fragments"); the existential choices of the note (values in V,
//! present or absent events, which equal-labelled events coalesce) are
//! enumerated completely. Pruning, all justified by the note:
//! - a write whose κ = (M = v) is unsatisfiable cannot be λ-consistent (M3a),
//!   checked only when no register in M is assigned by a LET: the logic ranges
//!   registers over V, and a LET can give one a value outside it;
//! - when only complete pomsets are wanted, a fragment outside every IF whose
//!   ✓ is ff can never reach a tautological ✓: s5 and P5 only conjoin it.
//!   (Inside an IF it can: I5 guards ✓ by the condition, so an untaken
//!   branch may drop its events.)

use std::collections::HashMap;

use super::expr;
use super::if_closure::{self, Effect, Way};
use super::tau::{Events, Kappa, KappaNode, Tau, TauNode, Trees};
use crate::action::{self, Action, Kind, Mode, Scope, ThreadId};
use crate::logic::{Addr, FormulaId, Logic, Subst, Var};
use crate::model::{IfClosure, Merge, Model, Monotonicity};
use crate::syntax::ast::RmwOp;
use crate::syntax::core::{self, Expr, Loc, Program, Stmt};

/// An event of a fragment: its identity (the access statement it comes from),
/// its label and its precondition.
#[derive(Clone, Debug)]
pub struct Ev {
    pub id: u32,
    pub label: Action,
    pub kappa: Kappa,
}

/// A local pomset: events, the SEQ pairs they come in (for s7a and s8a),
/// rmw, coalesced reads, the transformer family and ✓.
#[derive(Clone, Debug)]
pub struct Frag {
    pub events: Vec<Ev>,
    pub po: Vec<(u32, u32)>,
    pub rmw: Vec<(u32, u32)>,
    /// (b, a): read event b was coalesced into a, so s_b means s_a.
    pub alias: Vec<(u32, u32)>,
    pub tau: Tau,
    pub check: FormulaId,
    /// Threads forked inside, with the transformer their registers end under.
    pub forks: Vec<(ThreadId, Tau)>,
    /// (b, v): read b merged into an earlier write labelled v (§2 s2c,
    /// write-read), so θ's s_b = v holds of its symbol.
    pub merged: Vec<(u32, i64)>,
    /// SEQ pairs (d, e, λ1(d), λ2(e)) whose labels at their SEQ differ from
    /// the labels d and e carry now, because a §2 merge changed one: s7a and
    /// s8a read these labels, not λ. Every pair in `po` means today's labels.
    pub seq_labels: Vec<(u32, u32, Action, Action)>,
}

impl Frag {
    /// Drops the spare capacity of every list: a fragment kept for a whole
    /// search (a thread's variant) holds only what it uses.
    pub fn shrink_to_fit(&mut self) {
        self.events.shrink_to_fit();
        self.po.shrink_to_fit();
        self.rmw.shrink_to_fit();
        self.alias.shrink_to_fit();
        self.forks.shrink_to_fit();
        self.merged.shrink_to_fit();
        self.seq_labels.shrink_to_fit();
    }

    /// The event a coalesced read now is. Coalescing can chain (an IF
    /// coalesces c into b, then a SEQ b into a), so follow it to the end.
    pub fn alias_root(&self, id: u32) -> u32 {
        let mut at = id;
        for _ in 0..=self.alias.len() {
            match self.alias.iter().find(|(b, _)| *b == at) {
                Some(&(_, a)) => at = a,
                None => break,
            }
        }
        at
    }

    /// A set of read ids, some perhaps coalesced away, as the events they are.
    pub fn to_events(&self, d: Events) -> Events {
        (0..64)
            .filter(|b| d >> b & 1 == 1)
            .fold(0, |m, b| m | 1 << self.alias_root(b))
    }

    /// A set of events D with every read coalesced into one of them added:
    /// s_b means s_a, so R4a/R4b must see b in D exactly when a is.
    pub fn with_aliases(&self, d: Events) -> Events {
        self.alias.iter().fold(d, |m, &(b, _)| {
            if d >> self.alias_root(b) & 1 == 1 {
                m | 1 << b
            } else {
                m
            }
        })
    }

    /// The renaming of read symbols: a coalesced read's s_b is its event's
    /// s_a (s3c, I3c), and a read merged into a write (§2) is that value.
    pub fn renaming(&self, l: &mut Logic) -> Subst {
        let mut sigma = Subst::new();
        for &(b, v) in &self.merged {
            let v = l.value(v);
            sigma = sigma.term(Var::Read(b), v);
        }
        for &(b, _) in &self.alias {
            let s_a = l.read(self.alias_root(b));
            sigma = sigma.term(Var::Read(b), s_a);
        }
        sigma
    }
}

/// A search that grew past a stated limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// More local pomsets than `max_pomsets`.
    Pomsets(usize),
    /// More than 64 access statements.
    Accesses,
    /// More heap than `--max-memory` (`crate::memory`).
    Memory(String),
    /// The deadline (`--timeout`) passed or Ctrl-C was pressed.
    Interrupted(String),
    /// An if-closed statement (`if_closure = registers`) with more
    /// partitions of its registers' valuations than `--max-partitions`.
    Partitions(usize),
    /// A construct only the Vulkan model defines (`decide::refused` turns
    /// it away first; this keeps the construction total).
    Vulkan(&'static str),
}

impl Limit {
    /// How a report names the limit.
    pub fn text(&self) -> String {
        match self {
            Limit::Pomsets(n) => format!("--max-pomsets {n}"),
            Limit::Partitions(n) => format!("--max-partitions {n}"),
            Limit::Accesses => "at most 64 accesses per test".to_string(),
            Limit::Memory(why) | Limit::Interrupted(why) => why.clone(),
            Limit::Vulkan(what) => format!("{what} is defined by the Vulkan model only"),
        }
    }
}

/// What the constructs share for one litmus test.
pub struct Sem<'a> {
    pub program: &'a Program,
    pub model: &'a Model,
    pub l: Logic,
    pub trees: Trees,
    next_event: u32,
    /// Each named location's address: declared, or one of its own outside V.
    pub loc_addr: Vec<Addr>,
    /// Address → the dense location id in labels, and back.
    pub dense: HashMap<Addr, action::Loc>,
    pub dense_names: Vec<String>,
    /// Keep only fragments that can belong to a complete pomset.
    pub complete_only: bool,
    /// How many IFs enclose the statement being denoted.
    if_depth: u32,
    pub max_pomsets: usize,
    /// With `monotonicity`, build every stronger label literally (refinement)
    /// rather than only joining labels where events coalesce (outcomes).
    pub strengthen: bool,
    /// Registers some LET assigns: their values may lie outside V (`r := 1 + 1`
    /// with V = {0, 1}), which the logic, ranging over V, cannot see.
    pub(super) unbounded: Vec<core::RegId>,
    /// Per formula, whether it mentions a register of `unbounded` (M3a
    /// asks it of the same preconditions again and again).
    mentions_unbounded: crate::logic::FxMap<FormulaId, bool>,
    /// Writes whose value may leave V (thread, location), whose executions
    /// then have no write event: reported, never dropped silently.
    pub outside_v: Vec<(ThreadId, String)>,
    /// Condition-directed search (`goal.rs`, pruning 1): the final values,
    /// `None` for a dropped read, that a read into each listed register may
    /// take. Empty (every value) except under `run --verdict-only`.
    pub pinned: HashMap<core::RegId, Vec<Option<i64>>>,
    /// The deadline (`--timeout`) and Ctrl-C flag, checked at every
    /// construct so that building a thread's pomsets stops in time too.
    pub deadline: Option<(std::time::Instant, f64)>,
    pub cancel: Option<&'static std::sync::atomic::AtomicBool>,
    /// Steps of the constructs' inner loops since the start (`tick`).
    ticks: u32,
    /// The registers a single READ outside every IF assigns, with that
    /// read's event id: such a register ends with the read's value
    /// (`decide::final_registers` reads it off the label).
    pub read_once: HashMap<core::RegId, u32>,
    pub(super) once: Vec<core::RegId>,
    /// `if_closure = registers`: the most partitions one statement may have.
    pub max_partitions: usize,
    /// The registers some statement assigns, and those the statements
    /// denoted so far assign (what is in scope, `if_closure.rs`).
    pub(super) assigned_anywhere: Vec<core::RegId>,
    pub(super) assigned: Vec<core::RegId>,
    /// The registers every path to the statement being denoted assigns.
    pub(super) definite: Vec<core::RegId>,
    /// Registers that are functions into V of other registers
    /// (`if_closure::derived`), with the registers they are functions of.
    pub(super) derived: Vec<(core::RegId, Vec<core::RegId>)>,
    /// The initial writes' τ, when what `denote` builds are whole threads
    /// that are completed under it (`decide::thread_variants`): the body's
    /// SEQ then skips the pairs whose ✓ no coalescing makes a tautology
    /// (`settles`).
    pub completing: Option<Tau>,
    /// A sweep's session (`session.rs`): the initial writes and threads
    /// built for earlier programs, reused where they are this one's.
    pub(super) reuse: Option<Box<super::session::Reuse>>,
}

/// How many steps of a construct's inner loop go between two looks at the
/// clock (`Sem::tick`): a look costs about what one step does.
const TICK: u32 = 16;

/// Named locations without a declared address get addresses from here, far
/// from any value, so that no computed address can reach them.
const PRIVATE_ADDRESSES: Addr = i64::MIN / 2;

impl<'a> Sem<'a> {
    /// `max_pomsets` bounds each construct's list; `max_partitions` each
    /// if-closed statement's partitions (`if_closure = registers`).
    pub fn new(
        program: &'a Program,
        model: &'a Model,
        max_pomsets: usize,
        max_partitions: usize,
    ) -> Sem<'a> {
        let loc_addr = program
            .locs
            .iter()
            .enumerate()
            .map(|(i, l)| l.address.unwrap_or(PRIVATE_ADDRESSES + i as Addr))
            .collect();
        let mut sem = Sem {
            program,
            model,
            l: Logic::new(&program.values),
            trees: Trees::default(),
            next_event: 0,
            loc_addr,
            dense: HashMap::new(),
            dense_names: Vec::new(),
            complete_only: true,
            if_depth: 0,
            max_pomsets,
            strengthen: false,
            unbounded: program
                .main
                .iter()
                .flat_map(|(_, b)| b.let_targets())
                .collect(),
            mentions_unbounded: Default::default(),
            outside_v: Vec::new(),
            pinned: HashMap::new(),
            deadline: None,
            cancel: None,
            ticks: 0,
            read_once: HashMap::new(),
            // A statement's events no longer share its id under if-closure,
            // so the shortcut that reads a register off it is off.
            once: match model.if_closure {
                IfClosure::Off => super::goal::read_once(program)
                    .into_iter()
                    .map(|(r, _)| r)
                    .collect(),
                _ => Vec::new(),
            },
            max_partitions,
            assigned_anywhere: Vec::new(),
            assigned: Vec::new(),
            definite: Vec::new(),
            derived: Vec::new(),
            completing: None,
            reuse: None,
        };
        if model.if_closure != IfClosure::Off {
            sem.derived = if_closure::derived(program);
        }
        for (_, body) in &program.main {
            if_closure::assigned_regs(body, &mut sem.assigned_anywhere);
        }
        for i in 0..program.locs.len() {
            let addr = sem.loc_addr[i];
            sem.dense_loc(addr);
        }
        sem
    }

    /// The label location of an address; numbered cells are named `[ℓ]`.
    pub fn dense_loc(&mut self, addr: Addr) -> action::Loc {
        if let Some(&d) = self.dense.get(&addr) {
            return d;
        }
        let name = match self.loc_addr.iter().position(|&a| a == addr) {
            Some(i) => self.program.locs[i].name.clone(),
            None => format!("[{addr}]"),
        };
        let d = self.dense_names.len() as action::Loc;
        self.dense.insert(addr, d);
        self.dense_names.push(name);
        d
    }

    /// The id the next event gets.
    pub(super) fn next_event(&self) -> u32 {
        self.next_event
    }

    /// Skips to `id` the events a reused build numbered (`session.rs`).
    pub(super) fn set_next_event(&mut self, id: u32) {
        self.next_event = id;
    }

    pub fn new_event(&mut self) -> Result<u32, Limit> {
        if self.next_event >= 64 {
            return Err(Limit::Accesses);
        }
        self.next_event += 1;
        Ok(self.next_event - 1)
    }

    pub(super) fn empty_frag(&mut self, tau: Tau, check: FormulaId) -> Frag {
        self.empty(tau, check)
    }

    fn empty(&mut self, tau: Tau, check: FormulaId) -> Frag {
        Frag {
            events: vec![],
            po: vec![],
            rmw: vec![],
            alias: vec![],
            tau,
            check,
            forks: vec![],
            merged: vec![],
            seq_labels: vec![],
        }
    }

    /// Whether no enclosing context can still make ✓ a tautology.
    fn hopeless(&self, check: FormulaId) -> bool {
        self.complete_only && self.if_depth == 0 && check == self.l.ff()
    }

    fn keep(&self, f: &Frag) -> bool {
        !self.hopeless(f.check)
    }

    fn limit(&self, frags: Vec<Frag>) -> Result<Vec<Frag>, Limit> {
        if frags.len() > self.max_pomsets {
            return Err(Limit::Pomsets(self.max_pomsets));
        }
        if let Some(why) = crate::memory::over_budget() {
            return Err(Limit::Memory(why));
        }
        self.interrupted()?;
        Ok(frags)
    }

    /// `Err` once the deadline has passed or Ctrl-C was pressed.
    pub fn interrupted(&self) -> Result<(), Limit> {
        match crate::outcome::interrupted(self.deadline, self.cancel) {
            Some(why) => Err(Limit::Interrupted(why)),
            None => Ok(()),
        }
    }

    /// `interrupted`, asked once every `TICK` steps of a construct's inner
    /// loop (a pair of fragments, a coalescing of their events): one pair of
    /// IF branches with thousands of fragments each outran `--timeout` 10×.
    fn tick(&mut self) -> Result<(), Limit> {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(TICK) {
            return self.interrupted();
        }
        Ok(())
    }

    /// ⟦S⟧_α for a whole body (a thread, or a refinement's source or
    /// target): what earlier bodies assigned is not in scope here.
    pub fn denote(&mut self, s: &Stmt, thread: ThreadId) -> Result<Vec<Frag>, Limit> {
        self.assigned.clear();
        self.definite.clear();
        let settled = self.completing.filter(|_| {
            self.complete_only
                && self.model.if_closure == IfClosure::Off
                && !s.computes_an_address()
        });
        match (s, settled) {
            // The thread's own SEQ, outside every IF: what it builds is
            // completed under `init` with nothing but later SEQs around it.
            (Stmt::Seq(parts), Some(init)) => {
                let mut acc = vec![self.skip()];
                for p in parts {
                    let next = self.stmt(p, thread)?;
                    acc = self.seq_settling(&acc, &next, Some(init))?;
                }
                Ok(acc)
            }
            _ => self.stmt(s, thread),
        }
    }

    /// ⟦S⟧_α.
    pub fn stmt(&mut self, s: &Stmt, thread: ThreadId) -> Result<Vec<Frag>, Limit> {
        match s {
            Stmt::Skip => Ok(vec![self.skip()]),
            Stmt::Diverge { .. } => Ok(self.diverge().into_iter().collect()),
            Stmt::Let { reg, expr } => {
                self.assigned.push(*reg);
                self.definite.push(*reg);
                Ok(vec![self.let_(*reg, expr)])
            }
            Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => {
                let out = self.read(*reg, loc, *mode, *scope, thread, false);
                self.assigned.push(*reg);
                self.definite.push(*reg);
                out
            }
            Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => self.write(loc, expr, *mode, *scope, thread),
            Stmt::Fence { mode, scope } => self.fence(*mode, *scope, thread),
            Stmt::Vulkan { .. } | Stmt::Barrier { .. } => Err(Limit::Vulkan(
                s.vulkan_only().map_or("a Vulkan construct", |v| v.1),
            )),
            Stmt::Rmw {
                reg,
                op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            } => {
                let out = self.rmw(
                    *reg,
                    *op,
                    (*read_mode, *write_mode),
                    *scope,
                    loc,
                    args,
                    thread,
                );
                self.assigned.push(*reg);
                self.definite.push(*reg);
                out
            }
            Stmt::If { cond, then, els } => {
                let phi = expr::formula(&mut self.l, cond);
                self.if_depth += 1;
                // Each branch sees in scope what precedes the IF; after it,
                // what either branch assigned.
                let before = self.assigned.clone();
                let definite = self.definite.clone();
                let a = self.stmt(then, thread);
                let after_then = std::mem::replace(&mut self.assigned, before);
                let definite_then = std::mem::replace(&mut self.definite, definite);
                let branches = a.and_then(|a| Ok((a, self.stmt(els, thread)?)));
                self.assigned.extend(after_then);
                self.definite.retain(|r| definite_then.contains(r));
                self.if_depth -= 1;
                let (a, b) = branches?;
                self.if_then_else(phi, &a, &b)
            }
            Stmt::Seq(parts) => {
                let mut acc = vec![self.skip()];
                for p in parts {
                    let next = self.stmt(p, thread)?;
                    acc = self.seq(&acc, &next)?;
                }
                Ok(acc)
            }
            Stmt::Par {
                thread: child,
                left,
                right,
            } => {
                let (a, b) = (self.stmt(left, *child)?, self.stmt(right, thread)?);
                self.par(*child, &a, &b)
            }
        }
    }

    /// SKIP: no events, τ^D(ψ) = ψ, ✓ = tt.
    pub fn skip(&mut self) -> Frag {
        let id = self.trees.tau(TauNode::Id);
        let tt = self.l.tt();
        self.empty(id, tt)
    }

    /// DIVERGE (a loop's cut): no events, τ^D(ψ) = ψ, ✓ = ff. Outside every
    /// IF no context can make that ✓ a tautology, so it is dropped there.
    pub fn diverge(&mut self) -> Option<Frag> {
        let id = self.trees.tau(TauNode::Id);
        let ff = self.l.ff();
        let f = self.empty(id, ff);
        self.keep(&f).then_some(f)
    }

    /// LET r := M: τ^D(ψ) = ψ[M/r], ✓ = tt.
    pub fn let_(&mut self, reg: u32, m: &Expr) -> Frag {
        let value = expr::cases(&mut self.l, m);
        let tau = self.trees.tau(TauNode::Let { reg, value });
        let tt = self.l.tt();
        self.empty(tau, tt)
    }

    /// Where an access may go: a named location, or each ℓ ∈ V for `[L]`
    /// with the guard L = ℓ (§1.5).
    fn places(&mut self, loc: &Loc) -> Vec<(FormulaId, Addr)> {
        match loc {
            Loc::Named(id) => vec![(self.l.tt(), self.loc_addr[*id as usize])],
            Loc::Computed(e) => {
                let l_cases = expr::cases(&mut self.l, e);
                let values = self.program.values.clone();
                // M3a: an event whose guard L = ℓ is unsatisfiable has an
                // inconsistent κ, unless L mentions a LET-assigned register.
                let bounded = !mentions_any(e, &self.unbounded);
                values
                    .into_iter()
                    .filter_map(|v| {
                        let t = self.l.value(v);
                        let g = expr::equals(&mut self.l, &l_cases, t);
                        let dead = g == self.l.ff() || (bounded && !self.l.satisfiable(g));
                        (!dead).then_some((g, v))
                    })
                    .collect()
            }
        }
    }

    /// The modes an event is built with: as written. With `monotonicity`
    /// (§2) an event may carry any stronger mode (and scope), but stronger
    /// labels only add constraints to every candidate rule, so the one place
    /// strengthening matters is coalescing: two events whose labels differ
    /// only in mode (and scope) may be one event with a common upper bound,
    /// and the least one constrains least. SEQ and IF do that (`joined`);
    /// the reference engine enumerates the stronger labels literally and the
    /// differential test holds the two to the same states.
    /// Refinement compares pomset sets, not outcomes, so it asks for every
    /// stronger label literally (`strengthen`).
    fn modes(&self, kind: Kind, mode: Mode) -> Vec<Mode> {
        if !self.strengthen || self.model.monotonicity == Monotonicity::Off {
            return vec![mode];
        }
        let legal = legal_modes(kind);
        let stronger = legal
            .iter()
            .copied()
            .filter(|&m| m != mode && mode.below(m));
        std::iter::once(mode).chain(stronger).collect()
    }

    /// The scopes an event is built with: as written, or with `strengthen`
    /// and `monotonicity = modes_scopes` any wider (see `modes`).
    fn scopes(&self, scope: Scope) -> Vec<Scope> {
        if !self.strengthen || self.model.monotonicity != Monotonicity::ModesScopes {
            return vec![scope];
        }
        Scope::ALL.into_iter().filter(|s| *s >= scope).collect()
    }

    /// READ (R1-R5), and READ' (R4d) for an RMW.
    pub fn read(
        &mut self,
        reg: u32,
        loc: &Loc,
        mode: Mode,
        scope: Scope,
        thread: ThreadId,
        rmw: bool,
    ) -> Result<Vec<Frag>, Limit> {
        let id = self.new_event()?;
        if !rmw && self.once.contains(&reg) {
            self.read_once.insert(reg, id);
        }
        let mut out = Vec::new();
        let mut ways = Vec::new();
        for (guard, addr) in self.places(loc) {
            let dloc = self.dense_loc(addr);
            let q = self.l.quiescent(addr);
            let kappa_f = self.l.and(guard, q);
            let kappa = self.trees.kappa(KappaNode::Base(kappa_f));
            for v in self.program.values.clone() {
                if !rmw && !self.may_read(reg, Some(v)) {
                    continue;
                }
                let effect = Effect::Read {
                    reg,
                    addr,
                    value: v,
                    guard,
                };
                let tau = self.trees.tau(TauNode::Read {
                    event: id,
                    reg,
                    addr,
                    value: v,
                    guard,
                    rmw,
                });
                for m in self.modes(Kind::Read, mode) {
                    for s in self.scopes(scope) {
                        let label = Action::read(thread, m, s, dloc, v);
                        let tt = self.l.tt();
                        let mut f = self.empty(tau, tt);
                        f.events.push(Ev { id, label, kappa });
                        out.push(f);
                        ways.push(Way {
                            label,
                            kappa: kappa_f,
                            check: tt,
                            effect: effect.clone(),
                        });
                    }
                }
            }
        }
        // R4c, R5a/R5b: no event; an acquire read cannot be dropped.
        let tau = self.trees.tau(TauNode::ReadAbsent { reg, fresh: id });
        let check = self.l.constant(mode.below(Mode::Rlx));
        let absent = self.empty(tau, check);
        if self.keep(&absent) && (rmw || self.may_read(reg, None)) {
            out.push(absent);
        }
        if !rmw && self.model.if_closure == IfClosure::Registers {
            let bounded = !matches!(loc, Loc::Computed(l) if mentions_any(l, &self.unbounded));
            out.extend(self.if_closed(id, &ways, thread, bounded)?);
        }
        self.limit(out)
    }

    /// Whether a read into `reg` may end with `value` (`None`: dropped) under
    /// the goal of a condition-directed search (`Sem::pinned`).
    /// Under if-closure a register's final value is no one event's, so
    /// nothing is pinned.
    fn may_read(&self, reg: u32, value: Option<i64>) -> bool {
        self.model.if_closure != IfClosure::Off
            || self
                .pinned
                .get(&reg)
                .is_none_or(|allowed| allowed.contains(&value))
    }

    /// WRITE (w1-w5), with computed addresses (§1.5, Definition 1.6).
    /// The κ of a write is ∨_v (M = v) over v ∈ V (R4a takes v ∈ V); where
    /// that is not a tautology, M can leave V and those executions have no
    /// write event. Records the write so that the report says so.
    fn note_outside_v(&mut self, value: &expr::Cases, loc: &Loc, thread: ThreadId) {
        let mut any = self.l.ff();
        for v in self.program.values.clone() {
            let vt = self.l.value(v);
            let eq = expr::equals(&mut self.l, value, vt);
            any = self.l.or(any, eq);
        }
        let outside = self.l.not(any);
        if !self.l.satisfiable(outside) {
            return;
        }
        let place = match loc {
            Loc::Named(l) => self.program.loc_name(*l).to_string(),
            Loc::Computed(_) => "a computed address".to_string(),
        };
        if !self.outside_v.contains(&(thread, place.clone())) {
            self.outside_v.push((thread, place));
        }
    }

    pub fn write(
        &mut self,
        loc: &Loc,
        m: &Expr,
        mode: Mode,
        scope: Scope,
        thread: ThreadId,
    ) -> Result<Vec<Frag>, Limit> {
        self.write_access(loc, m, (mode, scope), thread, true)
    }

    /// WRITE; `closed`: if-closed too when the model says so (not an RMW's).
    fn write_access(
        &mut self,
        loc: &Loc,
        m: &Expr,
        (mode, scope): (Mode, Scope),
        thread: ThreadId,
        closed: bool,
    ) -> Result<Vec<Frag>, Limit> {
        let id = self.new_event()?;
        let value = expr::cases(&mut self.l, m);
        self.note_outside_v(&value, loc, thread);
        let computed = matches!(loc, Loc::Computed(_));
        let mut out = Vec::new();
        let mut ways = Vec::new();
        for (guard, addr) in self.places(loc) {
            let dloc = self.dense_loc(addr);
            for v in self.program.values.clone() {
                let vt = self.l.value(v);
                let eq = expr::equals(&mut self.l, &value, vt);
                let kappa_f = self.l.and(guard, eq);
                // M3a, sound only where every register in M, and in a
                // computed address (the guard is part of κ), ranges over V.
                let bounded = !mentions_any(m, &self.unbounded)
                    && !matches!(loc, Loc::Computed(l) if mentions_any(l, &self.unbounded));
                if kappa_f == self.l.ff() || (bounded && !self.l.satisfiable(kappa_f)) {
                    continue;
                }
                let kappa = self.trees.kappa(KappaNode::Base(kappa_f));
                let mut tau = self.trees.tau(TauNode::Write {
                    addr,
                    value: value.clone(),
                    quiescent: eq,
                });
                if computed {
                    tau = self.trees.tau(TauNode::Guarded(vec![(guard, tau)]));
                }
                for md in self.modes(Kind::Write, mode) {
                    for s in self.scopes(scope) {
                        let label = Action::write(thread, md, s, dloc, v);
                        let mut f = self.empty(tau, kappa_f);
                        f.events.push(Ev { id, label, kappa });
                        out.push(f);
                        ways.push(Way {
                            label,
                            kappa: kappa_f,
                            check: kappa_f,
                            effect: Effect::Write(tau),
                        });
                    }
                }
            }
        }
        // w4b, w5b: no event, ✓ = ff; with a computed address, for every k.
        if !self.hopeless(self.l.ff()) {
            let ff = self.l.ff();
            let parts: Vec<(FormulaId, Tau)> = self
                .places(loc)
                .into_iter()
                .map(|(g, addr)| {
                    (
                        g,
                        self.trees.tau(TauNode::Write {
                            addr,
                            value: value.clone(),
                            quiescent: ff,
                        }),
                    )
                })
                .collect();
            let tau = match (computed, parts.as_slice()) {
                (false, [(_, t)]) => *t,
                _ => self.trees.tau(TauNode::Guarded(parts)),
            };
            out.push(self.empty(tau, ff));
        }
        if closed && self.model.if_closure == IfClosure::Registers {
            let bounded = !mentions_any(m, &self.unbounded)
                && !matches!(loc, Loc::Computed(l) if mentions_any(l, &self.unbounded));
            out.extend(self.if_closed(id, &ways, thread, bounded)?);
        }
        self.limit(out)
    }

    /// FENCE (F1-F5).
    pub fn fence(
        &mut self,
        mode: Mode,
        scope: Scope,
        thread: ThreadId,
    ) -> Result<Vec<Frag>, Limit> {
        let id = self.new_event()?;
        let tau = self.trees.tau(TauNode::Id);
        let tt = self.l.tt();
        let kappa = self.trees.kappa(KappaNode::Base(tt));
        let mut out = Vec::new();
        for m in self.modes(Kind::Fence, mode) {
            for s in self.scopes(scope) {
                let mut f = self.empty(tau, tt);
                f.events.push(Ev {
                    id,
                    label: Action::fence(thread, m, s),
                    kappa,
                });
                out.push(f);
            }
        }
        if !self.hopeless(self.l.ff()) {
            let ff = self.l.ff();
            out.push(self.empty(tau, ff));
        }
        self.limit(out)
    }

    /// §1.7: FADD, EXCHG and CAS as SEQ(READ', ...) with U1: a write exists
    /// only with its read, which it follows in rmw.
    #[allow(clippy::too_many_arguments)]
    pub fn rmw(
        &mut self,
        reg: u32,
        op: RmwOp,
        (read_mode, write_mode): (Mode, Mode),
        scope: Scope,
        loc: &Loc,
        args: &[Expr],
        thread: ThreadId,
    ) -> Result<Vec<Frag>, Limit> {
        let reads = self.read(reg, loc, read_mode, scope, thread, true)?;
        let r = Expr::Reg(reg);
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Expr::Int(0));
        let writes = match op {
            RmwOp::Fadd => {
                let sum = Expr::Binary(
                    crate::syntax::ast::BinOp::Add,
                    Box::new(r),
                    Box::new(arg(0)),
                );
                self.write_access(loc, &sum, (write_mode, scope), thread, false)?
            }
            RmwOp::Exchg => self.write_access(loc, &arg(0), (write_mode, scope), thread, false)?,
            RmwOp::Cas => {
                let cond =
                    Expr::Binary(crate::syntax::ast::BinOp::Eq, Box::new(r), Box::new(arg(0)));
                let phi = expr::formula(&mut self.l, &cond);
                // The write sits inside IF(r = M, ...): a failing CAS drops it (I5).
                self.if_depth += 1;
                let w = self.write_access(loc, &arg(1), (write_mode, scope), thread, false);
                self.if_depth -= 1;
                let skip = vec![self.skip()];
                self.if_then_else(phi, &w?, &skip)?
            }
        };
        let mut out = Vec::new();
        for rd in &reads {
            for wr in &writes {
                let Some(w) = wr.events.iter().find(|e| e.label.kind == Kind::Write) else {
                    out.extend(self.seq_plain(rd, wr));
                    continue;
                };
                // U1, M9a: the write needs its read, on the same location.
                let Some(r_ev) = rd.events.first() else {
                    continue;
                };
                if r_ev.label.loc != w.label.loc {
                    continue;
                }
                let (r_id, w_id) = (r_ev.id, w.id);
                for mut f in self.seq_plain(rd, wr) {
                    f.rmw.push((r_id, w_id));
                    out.push(f);
                }
            }
        }
        self.limit(out)
    }

    /// SEQ without coalescing (the two halves of an RMW never share a label).
    fn seq_plain(&mut self, a: &Frag, b: &Frag) -> Vec<Frag> {
        self.seq_with(a, b, &[], &[])
    }

    /// SEQ (s1-s9) over all pairs, with every coalescing of equal labels.
    pub fn seq(&mut self, left: &[Frag], right: &[Frag]) -> Result<Vec<Frag>, Limit> {
        self.seq_settling(left, right, None)
    }

    /// SEQ; with `init`, a thread's top-level SEQ whose fragments are
    /// completed under the initial writes' τ `init`, a pair whose ✓ is not
    /// a tautology after `init` is skipped before any coalescing of it is
    /// built (`settles`).
    fn seq_settling(
        &mut self,
        left: &[Frag],
        right: &[Frag],
        init: Option<Tau>,
    ) -> Result<Vec<Frag>, Limit> {
        let mut out = Vec::new();
        for a in left {
            for b in right {
                if let Some(init) = init {
                    if !self.settles(a, b, init) {
                        self.tick()?;
                        continue;
                    }
                }
                let model = self.model;
                let pairs = |x: &Action, y: &Action| {
                    joined(model, x, y).is_some() || merge(model, x, y).is_some()
                };
                for pairing in matchings_by(&a.events, &b.events, pairs) {
                    self.tick()?;
                    // An RMW's halves keep their labels (U1): no merge touches them.
                    let label =
                        |f: &Frag, id: u32| f.events.iter().find(|e| e.id == id).map(|e| e.label);
                    let in_rmw = |f: &Frag, id: u32| f.rmw.iter().any(|&(r, w)| r == id || w == id);
                    let breaks_rmw = pairing.iter().any(|&(l, r)| {
                        let (x, y) = (label(a, l), label(b, r));
                        let join =
                            matches!((x, y), (Some(x), Some(y)) if joined(model, &x, &y).is_some());
                        !join && (in_rmw(a, l) || in_rmw(b, r))
                    });
                    if breaks_rmw {
                        continue;
                    }
                    for extra in multi_merges(model, a, b, &pairing, self.max_pomsets)? {
                        out.extend(self.seq_with(a, b, &pairing, &extra));
                    }
                }
                if out.len() > self.max_pomsets {
                    return Err(Limit::Pomsets(self.max_pomsets));
                }
                // Per pair, not per left pomset: one left pomset against
                // thousands on the right (an unrolled loop) outran --timeout.
                self.interrupted()?;
            }
        }
        self.limit(out)
    }

    /// Whether the SEQ of `a` then `b` can have a ✓ that is a tautology
    /// after the initial writes' τ `init`, as `decide::complete` asks of a
    /// whole thread (c5). Asked only of a thread's top-level SEQ, with
    /// `if_closure = off` and named locations (`denote`); exact there:
    ///
    /// 1. Every coalescing of the pair has the same ✓, ✓a ∧ τa(✓b) (s4),
    ///    and `complete` asks of its finished form, the renaming of the
    ///    coalesced reads' symbols (`Frag::renaming`) applied after `init`.
    /// 2. *The renaming does not change whether it is a tautology.* A
    ///    read's symbol s_e enters ✓ only through its transformer, and in
    ///    ✓ always with every read in ↓ (s4 applies τa with all of them):
    ///    (s_e = v) ⇒ ψ[s_e/r], where v is e's value (a named location's
    ///    guard is tt). So s_e occurs only in that hypothesis or under it,
    ///    where it may be read as v, and the hypothesis stands left of an
    ///    implication: ✓ is antitone in it, the rest of ✓ free of s_e, and
    ///    ✓ is a tautology iff it is one with every hypothesis true. The
    ///    renaming maps each s_e to e's own value (a read merged into a
    ///    write of that value) or to the symbol of a read of equal label,
    ///    hence equal value (coalesced, `joined`): every hypothesis stays
    ///    true or becomes another read's, so the question is unchanged.
    ///    The symbol of a dropped read (R4c) is no event's, so no renaming
    ///    touches it.
    /// 3. *Later SEQs cannot help.* The thread's ✓ is this ✓ ∧ τ(later ✓)
    ///    (s4 again), transformers are monotone, and later coalescings
    ///    rename only later reads' symbols, which this ✓ does not mention.
    ///
    /// `tests/it/differential.rs` holds the thread's pomsets to the
    /// reference engine's.
    fn settles(&mut self, a: &Frag, b: &Frag, init: Tau) -> bool {
        let check = self.seq_check(a, b);
        let check = self.trees.apply(&mut self.l, init, 0, check);
        self.l.tautology(check)
    }

    /// SEQ's ✓ (s4): ✓a ∧ τa(✓b), with every read in D. One formula for
    /// every coalescing of the pair, which `settles` relies on.
    fn seq_check(&mut self, a: &Frag, b: &Frag) -> FormulaId {
        let after = self.trees.apply(&mut self.l, a.tau, u64::MAX, b.check);
        self.l.and(a.check, after)
    }

    /// SEQ of one pair; `pairing` lists (left event, right event) that
    /// coalesce, and `extra` (left write c, right event e) the further left
    /// writes `merge = multi` merges into e's coalesced event (π(c) = e).
    fn seq_with(
        &mut self,
        a: &Frag,
        b: &Frag,
        pairing: &[(u32, u32)],
        extra: &[(u32, u32)],
    ) -> Vec<Frag> {
        let tau = self.trees.tau(TauNode::Seq(a.tau, b.tau));
        let check = self.seq_check(a, b);
        let mut f = Frag {
            events: a.events.clone(),
            po: [a.po.clone(), b.po.clone()].concat(),
            rmw: [a.rmw.clone(), b.rmw.clone()].concat(),
            alias: [a.alias.clone(), b.alias.clone()].concat(),
            tau,
            check,
            forks: a.forks.clone(),
            merged: [a.merged.clone(), b.merged.clone()].concat(),
            seq_labels: [a.seq_labels.clone(), b.seq_labels.clone()].concat(),
        };
        let mut relabelled = false;
        for &(t, ft) in &b.forks {
            f.forks.push((t, self.trees.tau(TauNode::Seq(a.tau, ft))));
        }
        let merged = |id: u32| pairing.iter().find(|(_, r)| *r == id).map(|(l, _)| *l);
        for e in &b.events {
            // s3b: reads take τ1 whole; other events τ1^{↓e}.
            let node = if e.label.kind == Kind::Read {
                KappaNode::All(a.tau, e.kappa)
            } else {
                KappaNode::Dep(a.tau, e.kappa)
            };
            let k2 = self.trees.kappa(node);
            if let Some(l) = merged(e.id).filter(|_| extra.iter().any(|x| x.1 == e.id)) {
                let into: Vec<u32> = extra.iter().filter(|x| x.1 == e.id).map(|x| x.0).collect();
                match self.multi_merge(&mut f, e, k2, l, &into) {
                    Some(changed) => relabelled |= changed,
                    None => return vec![],
                }
                continue;
            }
            if let Some(l) = merged(e.id) {
                let left = f
                    .events
                    .iter()
                    .find(|x| x.id == l)
                    .map(|x| (x.label, x.kappa));
                let differ = left.filter(|(label, _)| *label != e.label);
                if let Some(to) = differ.and_then(|(label, _)| joined(self.model, &label, &e.label))
                {
                    // §2 monotonicity: one event with the least common upper bound.
                    if let Some(ev) = f.events.iter_mut().find(|x| x.id == l) {
                        ev.label = to;
                    }
                    self.absorb(&mut f, e, k2, Some(l));
                    continue;
                }
                if let Some((label, k1)) = left.filter(|(label, _)| *label != e.label) {
                    // §2 s2c/s3c with merge: different labels coalesce only
                    // when κ1(e) ≡ κ2'(e), tested for ↓e = ∅ and ↓e = all.
                    // With `merge_read = prose` a read's κ2' is not compared:
                    // "Any conditional surrounding a read is baked into the
                    // predicate transformer" (§2).
                    let prose = e.label.kind == Kind::Read
                        && self.model.merge_read == crate::model::MergeRead::Prose;
                    if !prose && !self.kappas_agree(k1, k2) {
                        return vec![];
                    }
                    relabelled = true;
                    match merge(self.model, &label, &e.label) {
                        // write-write: the later write's label, κ = κ1.
                        Some(to) if e.label.kind == Kind::Write => {
                            if let Some(ev) = f.events.iter_mut().find(|x| x.id == l) {
                                ev.label = to;
                            }
                        }
                        // write-read: the write's label; the read's s_b is v.
                        Some(_) => f.merged.push((e.id, e.label.value)),
                        None => return vec![],
                    }
                    continue;
                }
            }
            // s3c: an event on both sides has κ1(e) ∨ κ2'(e).
            self.absorb(&mut f, e, k2, merged(e.id));
        }
        // A left write merged away (π(c) = e) is e's coalesced event now.
        let host = |id: u32| extra.iter().find(|x| x.0 == id).and_then(|x| merged(x.1));
        let canon = |id: u32| merged(id).or_else(|| host(id)).unwrap_or(id);
        f.events.retain(|x| host(x.id).is_none());
        // Right-hand ids stay as written until `rename_coalesced`, so that
        // `keep_seq_labels` can tell λ2(e) from the label e merged into.
        for x in &a.events {
            for y in &b.events {
                if x.id != canon(y.id) {
                    f.po.push((x.id, y.id));
                }
            }
        }
        if relabelled {
            keep_seq_labels(&mut f, a, b, &canon);
        }
        let mut renaming = pairing.to_vec();
        renaming.extend(extra.iter().filter_map(|&(c, _)| host(c).map(|l| (l, c))));
        rename_coalesced(&mut f, &renaming);
        let right: Vec<u32> = b.events.iter().map(|e| canon(e.id)).collect();
        if self.keep(&f) && rmw_is_function(&f) && self.m3a(&f, &right) {
            vec![f]
        } else {
            vec![]
        }
    }

    /// `merge = multi` (§2's π proposal, the book's reading): right event `e`
    /// (κ2' = `k2`) coalesces with left write `l`, and the left writes `into`
    /// merge into it too. Π = {l} ∪ into must have pairwise unsatisfiable
    /// κ1; every c ∈ Π must merge with λ2(e) to one label λ (s2c); κ(e) =
    /// κ2'(e) ∨ ∨{κ1(c) | c ∈ Π, λ1(c) = λ2(e)} (s3c); and where labels
    /// differ, the disjunction of those c's κ1 must be equivalent to κ(e)
    /// (the binary rule's κ1 ≡ κ2' for several writes; with `merge_read =
    /// prose` not asked of a read). Relabels l; `None` when no pomset.
    /// `Some(true)` when a label changed (s7a/s8a then read the old ones).
    fn multi_merge(
        &mut self,
        f: &mut Frag,
        e: &Ev,
        k2: Kappa,
        l: u32,
        into: &[u32],
    ) -> Option<bool> {
        let left = |f: &Frag, id: u32| {
            f.events
                .iter()
                .find(|x| x.id == id)
                .map(|x| (x.label, x.kappa))
        };
        let mut pi = vec![left(f, l)?];
        for &c in into {
            pi.push(left(f, c)?);
        }
        for i in 0..pi.len() {
            for j in i + 1..pi.len() {
                if !self.kappas_disjoint(pi[i].1, pi[j].1) {
                    return None;
                }
            }
        }
        let label = pi
            .iter()
            .find(|(x, _)| *x != e.label)
            .map_or(Some(e.label), |(x, _)| merge(self.model, x, &e.label))?;
        let fits = |x: &Action| *x == e.label || merge(self.model, x, &e.label) == Some(label);
        if !pi.iter().all(|(x, _)| fits(x)) {
            return None;
        }
        let same: Vec<Kappa> = pi
            .iter()
            .filter(|(x, _)| *x == e.label)
            .map(|p| p.1)
            .collect();
        let differ: Vec<Kappa> = pi
            .iter()
            .filter(|(x, _)| *x != e.label)
            .map(|p| p.1)
            .collect();
        let kappa = same
            .iter()
            .fold(k2, |k, &c| self.trees.kappa(KappaNode::Or(k, c)));
        let prose =
            e.label.kind == Kind::Read && self.model.merge_read == crate::model::MergeRead::Prose;
        if let Some((&first, rest)) = differ.split_first() {
            let joint = rest
                .iter()
                .fold(first, |k, &c| self.trees.kappa(KappaNode::Or(k, c)));
            if !prose && !self.kappas_agree(joint, kappa) {
                return None;
            }
        }
        if let Some(ev) = f.events.iter_mut().find(|x| x.id == l) {
            ev.label = label;
            ev.kappa = kappa;
        }
        if e.label.kind == Kind::Read {
            // write-read: the read's s_e is the write's value.
            f.merged.push((e.id, e.label.value));
        }
        Some(!differ.is_empty() || label != e.label)
    }

    /// The note's "writes that coalesce have disjoint preconditions":
    /// κ1(c) ∧ κ1(c') unsatisfiable, tested at ↓ = ∅ and ↓ = every read
    /// like `kappas_agree`.
    fn kappas_disjoint(&mut self, k1: Kappa, k2: Kappa) -> bool {
        [0, u64::MAX].into_iter().all(|d| {
            let a = self.trees.eval(&mut self.l, k1, d);
            let b = self.trees.eval(&mut self.l, k2, d);
            let both = self.l.and(a, b);
            both == self.l.ff() || !self.l.satisfiable(both)
        })
    }

    /// §2 s3c for a merge of different labels: κ1(e) ≡ κ2'(e). The dependency
    /// set is not known yet, so both extremes are tested.
    fn kappas_agree(&mut self, k1: Kappa, k2: Kappa) -> bool {
        [0, u64::MAX].into_iter().all(|d| {
            let a = self.trees.eval(&mut self.l, k1, d);
            let b = self.trees.eval(&mut self.l, k2, d);
            self.l.equivalent(a, b)
        })
    }

    /// M3a for the events `ids` of `f`: each κ(e) is λ-consistent (θ_λ of
    /// f's reads). It is checked wherever κ changes (SEQ's κ2', IF's guard),
    /// because an event whose κ is inconsistent makes no pomset at all, even
    /// where a later coalescing (κ1 ∨ κ2') would make the disjunction
    /// consistent. κ of a non-read is taken with ↓e = every read, the weakest
    /// (Definition 1.4). A κ mentioning a register some LET assigns is kept
    /// (`Logic::consistent_or_unbounded`). θ_λ's symbols are replaced by
    /// their values first (`Logic::theta_values`), once for every event.
    /// Consistency is decided on κ under the two substitutions composed
    /// (`Logic::compose`, equal in meaning), cut to the entries κ(e) uses
    /// (`Logic::subst_on`): the fragments of one IF differ in their
    /// renaming and values but mostly agree on a given κ's symbols, so one
    /// rebuilt κ serves them all (CADP's `120_simple`: 536 160 checks, 20 595
    /// different cut substitutions).
    fn m3a(&mut self, f: &Frag, ids: &[u32]) -> bool {
        let reads: Vec<(u32, i64)> = f
            .events
            .iter()
            .filter(|e| e.label.kind == Kind::Read)
            .map(|e| (e.id, e.label.value))
            .collect();
        let (values, rest) = self.l.theta_values(&reads);
        let sigma = f.renaming(&mut self.l);
        let composed;
        let both = if sigma.is_empty() {
            &values
        } else {
            composed = self.l.compose(&sigma, &values);
            &composed
        };
        for e in f.events.iter().filter(|e| ids.contains(&e.id)) {
            let k = self.trees.eval(&mut self.l, e.kappa, u64::MAX);
            // Consistency is a question of meaning, which κ[σ ; values]
            // shares with κ[σ][values]: one substitution, whose cut most
            // fragments share.
            let once = self.l.subst_on(k, both);
            if self.l.consistent_with(once, rest) {
                continue;
            }
            // The kept-for-a-register rule reads syntax: the registers of
            // κ[σ][values] (`consistent_or_unbounded`), found by the two
            // substitutions in turn, and only when κ has such a register
            // (substituting read symbols adds none).
            if self.unbounded.is_empty() || !self.mentions_unbounded(k) {
                return false;
            }
            let k = self.l.subst_on(k, &sigma);
            let k = self.l.subst_on(k, &values);
            if !self.l.consistent_or_unbounded(k, rest, &self.unbounded) {
                return false;
            }
        }
        true
    }

    /// Whether `k` mentions a register some LET assigns, memoised per formula.
    fn mentions_unbounded(&mut self, k: FormulaId) -> bool {
        if let Some(&m) = self.mentions_unbounded.get(&k) {
            return m;
        }
        let m = self
            .l
            .registers(k)
            .iter()
            .any(|r| self.unbounded.contains(r));
        self.mentions_unbounded.insert(k, m);
        m
    }

    /// Adds right-hand event `e` with precondition `kappa` to `f`, or, when it
    /// coalesces with left-hand event `into`, ors the preconditions (s3c, I3c).
    fn absorb(&mut self, f: &mut Frag, e: &Ev, kappa: Kappa, into: Option<u32>) {
        let Some(l) = into else {
            f.events.push(Ev {
                id: e.id,
                label: e.label,
                kappa,
            });
            return;
        };
        if let Some(ev) = f.events.iter_mut().find(|x| x.id == l) {
            ev.kappa = self.trees.kappa(KappaNode::Or(ev.kappa, kappa));
        }
        f.alias.push((e.id, l));
    }

    /// IF (I1-I9): events of both branches, equal labels possibly shared.
    pub fn if_then_else(
        &mut self,
        phi: FormulaId,
        left: &[Frag],
        right: &[Frag],
    ) -> Result<Vec<Frag>, Limit> {
        let nphi = self.l.not(phi);
        let mut out = Vec::new();
        for a in left {
            for b in right {
                let model = self.model;
                let pairs = |x: &Action, y: &Action| joined(model, x, y).is_some();
                for pairing in matchings_by(&a.events, &b.events, pairs) {
                    self.tick()?;
                    let tau = self.trees.tau(TauNode::If(phi, a.tau, b.tau));
                    let yes = self.l.and(phi, a.check);
                    let no = self.l.and(nphi, b.check);
                    let check = self.l.or(yes, no);
                    let mut f = Frag {
                        events: Vec::new(),
                        po: [a.po.clone(), b.po.clone()].concat(),
                        rmw: [a.rmw.clone(), b.rmw.clone()].concat(),
                        alias: [a.alias.clone(), b.alias.clone()].concat(),
                        tau,
                        check,
                        forks: self.guarded_forks(phi, &a.forks, &b.forks),
                        merged: [a.merged.clone(), b.merged.clone()].concat(),
                        seq_labels: [a.seq_labels.clone(), b.seq_labels.clone()].concat(),
                    };
                    for e in &a.events {
                        let k = self.trees.kappa(KappaNode::Guard(phi, e.kappa));
                        f.events.push(Ev {
                            id: e.id,
                            label: e.label,
                            kappa: k,
                        });
                    }
                    for e in &b.events {
                        let k = self.trees.kappa(KappaNode::Guard(nphi, e.kappa));
                        // I3c: an event in both branches has the disjunction.
                        let into = pairing.iter().find(|(_, r)| *r == e.id).map(|(l, _)| *l);
                        self.absorb(&mut f, e, k, into);
                        // §2 monotonicity: the shared event carries the join.
                        if let Some(ev) = into.and_then(|l| f.events.iter_mut().find(|x| x.id == l))
                        {
                            if let Some(to) = joined(self.model, &ev.label, &e.label) {
                                ev.label = to;
                            }
                        }
                    }
                    rename_coalesced(&mut f, &pairing);
                    let all: Vec<u32> = f.events.iter().map(|e| e.id).collect();
                    if self.keep(&f) && rmw_is_function(&f) && self.m3a(&f, &all) {
                        out.push(f);
                    }
                }
                if out.len() > self.max_pomsets {
                    return Err(Limit::Pomsets(self.max_pomsets));
                }
                self.interrupted()?;
            }
        }
        self.limit(out)
    }

    /// I4 for the threads forked inside a branch: a thread forked in the
    /// taken branch ends under its own transformer, one forked in the other
    /// branch never ran, so its registers keep no value:
    /// (φ ∧ τ_f(ψ)) ∨ (¬φ ∧ ψ), and the mirror image for the else branch.
    fn guarded_forks(
        &mut self,
        phi: FormulaId,
        then: &[(ThreadId, Tau)],
        els: &[(ThreadId, Tau)],
    ) -> Vec<(ThreadId, Tau)> {
        let id = self.trees.tau(TauNode::Id);
        let mut out = Vec::with_capacity(then.len() + els.len());
        for &(t, ft) in then {
            out.push((t, self.trees.tau(TauNode::If(phi, ft, id))));
        }
        for &(t, ft) in els {
            out.push((t, self.trees.tau(TauNode::If(phi, id, ft))));
        }
        out
    }

    /// PAR (P1-P9): disjoint union; τ = τ2; ✓ = ✓1 ∧ ✓2.
    pub fn par(
        &mut self,
        child: ThreadId,
        left: &[Frag],
        right: &[Frag],
    ) -> Result<Vec<Frag>, Limit> {
        let mut out = Vec::new();
        for a in left {
            for b in right {
                let check = self.l.and(a.check, b.check);
                let mut forks = [a.forks.clone(), b.forks.clone()].concat();
                forks.push((child, a.tau));
                let f = Frag {
                    events: [a.events.clone(), b.events.clone()].concat(),
                    po: [a.po.clone(), b.po.clone()].concat(),
                    rmw: [a.rmw.clone(), b.rmw.clone()].concat(),
                    alias: [a.alias.clone(), b.alias.clone()].concat(),
                    tau: b.tau,
                    check,
                    forks,
                    merged: [a.merged.clone(), b.merged.clone()].concat(),
                    seq_labels: [a.seq_labels.clone(), b.seq_labels.clone()].concat(),
                };
                if self.keep(&f) {
                    out.push(f);
                }
                if out.len() > self.max_pomsets {
                    return Err(Limit::Pomsets(self.max_pomsets));
                }
                self.tick()?;
            }
        }
        self.limit(out)
    }

    /// The registers of a core program, by thread.
    pub fn regs_of(&self, t: ThreadId) -> Vec<core::RegId> {
        (0..self.program.regs.len() as u32)
            .filter(|&r| self.program.regs[r as usize].thread == t)
            .collect()
    }
}

/// Whether `e` mentions one of `regs`.
fn mentions_any(e: &Expr, regs: &[core::RegId]) -> bool {
    match e {
        Expr::Int(_) => false,
        Expr::Reg(r) => regs.contains(r),
        Expr::Unary(_, a) => mentions_any(a, regs),
        Expr::Binary(_, a, b) => mentions_any(a, regs) || mentions_any(b, regs),
    }
}

/// M9: rmw is a partial function. Coalescing may join two RMWs' reads (equal
/// labels, E1 ∪ E2) without joining their writes; that is no pomset.
fn rmw_is_function(f: &Frag) -> bool {
    f.rmw.windows(2).all(|w| w[0].0 != w[1].0)
}

/// Renames each right-hand event of `pairing` to the left-hand event it
/// coalesced with, in po and rmw; a po pair that becomes (e, e) goes.
fn rename_coalesced(f: &mut Frag, pairing: &[(u32, u32)]) {
    let canon = |id: u32| {
        pairing
            .iter()
            .find(|(_, r)| *r == id)
            .map_or(id, |(l, _)| *l)
    };
    f.po =
        f.po.iter()
            .map(|&(x, y)| (canon(x), canon(y)))
            .filter(|(x, y)| x != y)
            .collect();
    f.rmw = f.rmw.iter().map(|&(x, y)| (canon(x), canon(y))).collect();
    f.rmw.sort_unstable();
    f.rmw.dedup();
    f.seq_labels = f
        .seq_labels
        .iter()
        .map(|&(x, y, lx, ly)| (canon(x), canon(y), lx, ly))
        .filter(|(x, y, _, _)| x != y)
        .collect();
}

/// After a merge in SEQ (§2 s2c): s7a and s8a take λ1(d) and λ2(e), the
/// labels before the merge (a write-read merge keeps the write's label, but
/// a pair (d, e) into the merged read reads e's read label; a write-write
/// merge relabels d, but pairs out of d read its old label). Each SEQ pair
/// of `f.po` whose labels then differ from the merged event's label now
/// moves to `seq_labels` with the labels it was made with.
fn keep_seq_labels(f: &mut Frag, a: &Frag, b: &Frag, canon: &dyn Fn(u32) -> u32) {
    let label = |events: &[Ev], id: u32| events.iter().find(|e| e.id == id).map(|e| e.label);
    let made_with = |x: u32, y: u32| -> Option<(Action, Action)> {
        // Pairs of a (b) were made with a's (b's) labels; new ones with λ1 and λ2.
        let lx = label(&a.events, x).or_else(|| label(&b.events, x))?;
        let ly = label(&b.events, y).or_else(|| label(&a.events, y))?;
        Some((lx, ly))
    };
    let mut po = Vec::with_capacity(f.po.len());
    for &(x, y) in &f.po {
        let now = (label(&f.events, canon(x)), label(&f.events, canon(y)));
        match made_with(x, y) {
            Some((lx, ly)) if now != (Some(lx), Some(ly)) => f.seq_labels.push((x, y, lx, ly)),
            _ => po.push((x, y)),
        }
    }
    f.po = po;
}

/// §2's merge(a, b) on actions, for `merge = binary`: a write followed by a
/// read of its value gives the write; a write followed by a write gives the
/// later write. Modes must grow (an upper bound, A15), or with
/// `monotonicity` be equal. Equal actions are not a merge (plain s3c).
pub fn merge(model: &Model, a: &Action, b: &Action) -> Option<Action> {
    if model.merge == crate::model::Merge::Off || a == b {
        return None;
    }
    let same =
        a.kind == Kind::Write && a.thread == b.thread && a.scope == b.scope && a.loc == b.loc;
    let grows = |lo: Mode, hi: Mode| {
        if model.monotonicity == Monotonicity::Off {
            lo.below(hi)
        } else {
            lo == hi
        }
    };
    match b.kind {
        Kind::Read if same && a.value == b.value && grows(b.mode, a.mode) => Some(*a),
        Kind::Write if same && grows(a.mode, b.mode) => Some(*b),
        _ => None,
    }
}

/// §1.1: the modes an access of this kind may carry.
fn legal_modes(kind: Kind) -> &'static [Mode] {
    match kind {
        Kind::Read => &[Mode::Wk, Mode::Rlx, Mode::Acq, Mode::Sc],
        Kind::Write => &[Mode::Wk, Mode::Rlx, Mode::Rel, Mode::Sc],
        Kind::Fence => &[Mode::Rel, Mode::Acq, Mode::Ra, Mode::Sc],
    }
}

/// The label two events share when they coalesce: their common label, or,
/// with `monotonicity` (§2), when they differ only in mode (and, with
/// `modes_scopes`, scope), the least upper bound that the access allows.
pub fn joined(model: &Model, a: &Action, b: &Action) -> Option<Action> {
    if a == b {
        return Some(*a);
    }
    let same_but_strength =
        a.kind == b.kind && a.thread == b.thread && a.loc == b.loc && a.value == b.value;
    let scopes_ok = a.scope == b.scope || model.monotonicity == Monotonicity::ModesScopes;
    if model.monotonicity == Monotonicity::Off || !same_but_strength || !scopes_ok {
        return None;
    }
    let legal = legal_modes(a.kind);
    let j = a.mode.join(b.mode);
    let mode = if legal.contains(&j) || j == a.mode || j == b.mode {
        j
    } else {
        legal
            .iter()
            .copied()
            .find(|&m| j.below(m))
            .unwrap_or(Mode::Sc)
    };
    Some(Action {
        mode,
        scope: a.scope.max(b.scope),
        ..*a
    })
}

/// `merge = multi` (§2's π): for a SEQ with coalescing `pairing`, every way
/// the left writes outside it (and outside rmw) may also merge into one of
/// its coalesced events whose labels are those of a merge or equal: each
/// such write stays, or names the right event it merges into. The first
/// way merges nothing; with any other `merge` it is the only one. More
/// ways than `cap` (`--max-pomsets`) stop the search with that limit named.
fn multi_merges(
    model: &Model,
    a: &Frag,
    b: &Frag,
    pairing: &[(u32, u32)],
    cap: usize,
) -> Result<Vec<Vec<(u32, u32)>>, Limit> {
    let mut out = vec![Vec::new()];
    if model.merge != Merge::Multi {
        return Ok(out);
    }
    let in_rmw = |f: &Frag, id: u32| f.rmw.iter().any(|&(r, w)| r == id || w == id);
    let label = |f: &Frag, id: u32| f.events.iter().find(|e| e.id == id).map(|e| e.label);
    let hosts: Vec<(u32, Action)> = pairing
        .iter()
        .filter(|&&(l, r)| !in_rmw(a, l) && !in_rmw(b, r))
        .filter(|&&(l, _)| label(a, l).is_some_and(|x| x.kind == Kind::Write))
        .filter_map(|&(_, r)| Some((r, label(b, r)?)))
        .collect();
    for c in &a.events {
        let free = c.label.kind == Kind::Write
            && !in_rmw(a, c.id)
            && !pairing.iter().any(|&(l, _)| l == c.id);
        if !free {
            continue;
        }
        let targets: Vec<u32> = hosts
            .iter()
            .filter(|(_, y)| c.label == *y || merge(model, &c.label, y).is_some())
            .map(|(r, _)| *r)
            .collect();
        let mut next = Vec::with_capacity(out.len() * (targets.len() + 1));
        for way in &out {
            next.push(way.clone());
            for &r in &targets {
                let mut w = way.clone();
                w.push((c.id, r));
                next.push(w);
            }
        }
        if next.len() > cap {
            return Err(Limit::Pomsets(cap));
        }
        out = next;
    }
    Ok(out)
}

/// Every set of disjoint pairs (a, b) whose labels `pairs` accepts.
fn matchings_by(
    left: &[Ev],
    right: &[Ev],
    pairs: impl Fn(&Action, &Action) -> bool,
) -> Vec<Vec<(u32, u32)>> {
    let mut out = vec![Vec::new()];
    for b in right {
        let mut next = Vec::new();
        for m in &out {
            next.push(m.clone());
            for a in left
                .iter()
                .filter(|a| pairs(&a.label, &b.label) && !m.iter().any(|(l, _)| *l == a.id))
            {
                let mut with = m.clone();
                with.push((a.id, b.id));
                next.push(with);
            }
        }
        out = next;
    }
    out
}

/// The reads among some events, as a mask.
pub fn read_mask(events: &[Ev]) -> Events {
    events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(0, |m, e| m | 1 << e.id)
}
