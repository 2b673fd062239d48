//! Sequential consistency by interleaving: an oracle for the pomset
//! semantics. Every final state reachable when the threads take turns on one
//! shared memory, one access at a time, should be among the states that
//! `semantics::decide` finds, for every model setting weaker than SC.
//!
//! The interpreter shares nothing with the semantics but the core program and
//! the result types (`decide::{Outcomes, State}`), so that states compare
//! directly. What it assumes, each in one place below:
//!
//! - One atomic step is one READ, WRITE or RMW (an RMW's read and write are
//!   one step, §1.7). LET, IF conditions, SKIP and fences are local, and run
//!   eagerly: they commute with every other thread's steps, so running them
//!   at once loses no interleaving. Modes, scopes and fences do not matter.
//! - `Par { thread, left, right }` starts `left` as thread `thread` with a
//!   copy of the current registers (its names see the parent's, as the
//!   checker resolves them) and continues with `right`; what follows the
//!   composition waits for both (the book: statements after a fork are
//!   sequenced after the whole composition).
//! - Values: the pomset semantics has only events whose values lie in V
//!   (`Program::values`), and only addresses in V for computed places (§1.5).
//!   An SC execution that writes a value outside V, or accesses a computed
//!   address outside V, has no counterpart, so it is dropped.
//! - A register read before its thread assigns it has no SC meaning that
//!   matches the note's (the note leaves it free, so κ must hold for every
//!   value); an execution that does so makes the whole answer `Unsupported`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::outcome::{Outcomes, State};
use crate::syntax::ast::{RmwOp, UnOp};
use crate::syntax::core::{Expr, Loc, Program, Reach, RegId, Stmt, ThreadId};

/// Limits on the exploration; reaching one is reported in `Outcomes::limit`.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Distinct configurations (program counters, registers, memory) visited.
    pub max_states: usize,
    /// `--timeout`, Ctrl-C and the memory budget, as every engine checks them.
    pub deadline: Option<(std::time::Instant, f64)>,
    pub cancel: Option<&'static std::sync::atomic::AtomicBool>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_states: 2_000_000,
            deadline: None,
            cancel: None,
        }
    }
}

/// Configurations visited between two looks at the clock.
const CHECK_EVERY: usize = 1024;

/// Why a program has no SC answer here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// Some execution reads a register before its thread assigns it.
    UnassignedRegister { thread: String, reg: String },
    /// A construct only the Vulkan model defines (a barrier, a qualifier).
    VulkanOnly(&'static str),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::UnassignedRegister { thread, reg } => write!(
                f,
                "register {thread}:{reg} is read before it is assigned; \
                 SC interleaving gives it no value the note would agree with"
            ),
            Unsupported::VulkanOnly(what) => write!(
                f,
                "{what} is defined by the Vulkan model only; run with --model vulkan"
            ),
        }
    }
}

/// Every final state reachable under sequential consistency. Each state is
/// counted once (`Outcomes::states` values are 1; `witnesses` counts the
/// distinct final configurations).
pub fn outcomes(p: &Program, limits: Limits) -> Result<Outcomes, Unsupported> {
    if p.vulkan_only().is_some() {
        return Err(vulkan_only(p));
    }
    let memory = Memory::new(p);
    let mut search = Search {
        p,
        memory: &memory,
        seen: Memo::default(),
        finals: HashSet::new(),
        limits,
        limit: None,
        reached: std::cell::Cell::new(false),
    };
    let mut start = Config {
        threads: vec![None; p.threads.len()],
        mem: memory.init.clone(),
    };
    for (tid, body) in &p.main {
        let thread = Thread {
            work: vec![Work::Stmt(At(body))],
            regs: vec![None; p.regs.len()],
        };
        if !start.spawn(&search, *tid, thread)? {
            return Ok(search.finish(BTreeMap::new()));
        }
    }
    search.explore(start)?;
    let mut states = BTreeMap::new();
    for c in &search.finals {
        states.insert(final_state(p, &memory, c), 1);
    }
    Ok(search.finish(states))
}

/// A statement by identity: configurations hash program counters as addresses.
#[derive(Clone, Copy, Debug)]
struct At<'a>(&'a Stmt);

impl PartialEq for At<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for At<'_> {}

impl Hash for At<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::ptr::hash(self.0, h);
    }
}

/// What a thread still has to do, innermost last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Work<'a> {
    Stmt(At<'a>),
    /// The end of a composition: wait for the forked thread.
    Join(ThreadId),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Thread<'a> {
    work: Vec<Work<'a>>,
    /// Indexed by register id; a thread sees its parent's registers as forked.
    regs: Vec<Option<i64>>,
}

/// One point of an interleaving. Threads not (yet) started are `None`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Config<'a> {
    threads: Vec<Option<Thread<'a>>>,
    mem: Vec<i64>,
}

/// The configurations visited, each as its flat list (`Config::key`), all
/// in one arena and found by their hash: a few allocations in all, where a
/// set of configurations made one per thread and register list of each,
/// and freeing them after a `--timeout` took a quarter of the time again.
#[derive(Default)]
struct Memo {
    /// Hash → the first configuration with it (an index into `starts`).
    first: HashMap<u64, u32, Hashed>,
    /// The next configuration with the same hash, or `u32::MAX`.
    next: Vec<u32>,
    /// Where each configuration's list starts in `arena` (and the next ends).
    starts: Vec<usize>,
    arena: Vec<i64>,
}

impl Memo {
    fn len(&self) -> usize {
        self.next.len()
    }

    fn list(&self, i: u32) -> &[i64] {
        let i = i as usize;
        let end = self.starts.get(i + 1).copied().unwrap_or(self.arena.len());
        &self.arena[self.starts[i]..end]
    }

    /// Adds `key`; false if it was there already.
    fn insert(&mut self, key: &[i64]) -> bool {
        let mut h = std::hash::DefaultHasher::new();
        key.hash(&mut h);
        let hash = h.finish();
        let new = self.next.len() as u32;
        let mut at = match self.first.get(&hash) {
            Some(&i) => i,
            None => {
                self.first.insert(hash, new);
                u32::MAX
            }
        };
        let mut last = None;
        while at != u32::MAX {
            if self.list(at) == key {
                return false;
            }
            last = Some(at);
            at = self.next[at as usize];
        }
        if let Some(l) = last {
            self.next[l as usize] = new;
        }
        self.next.push(u32::MAX);
        self.starts.push(self.arena.len());
        self.arena.extend_from_slice(key);
        true
    }
}

/// The hasher of `Memo::first`, whose keys are hashes already.
#[derive(Default)]
struct Hashed(u64);

impl Hasher for Hashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

impl std::hash::BuildHasher for Hashed {
    type Hasher = Hashed;
    fn build_hasher(&self) -> Hashed {
        Hashed(0)
    }
}

impl Config<'_> {
    /// The configuration as one flat list, equal exactly when the
    /// configurations are (every part is written with its length or tag
    /// first; threads and cells are as many in every configuration).
    fn key(&self) -> Vec<i64> {
        let mut k = Vec::with_capacity(self.mem.len() + 8 * self.threads.len());
        for t in &self.threads {
            let Some(t) = t else {
                k.push(0);
                continue;
            };
            k.extend([1, t.work.len() as i64]);
            for w in &t.work {
                match w {
                    // A statement by identity, as `At` hashes it.
                    Work::Stmt(At(s)) => k.extend([0, std::ptr::from_ref(*s) as usize as i64]),
                    Work::Join(tid) => k.extend([1, i64::from(*tid)]),
                }
            }
            k.push(t.regs.len() as i64);
            for r in &t.regs {
                match r {
                    None => k.push(0),
                    Some(v) => k.extend([1, *v]),
                }
            }
        }
        k.extend_from_slice(&self.mem);
        k
    }
}

/// The shared memory's cells: one per named location, then one per value of
/// V that is no named location's address (reachable only by `[L]`, §1.5).
struct Memory {
    /// Cell of each named location, in `p.locs` order.
    named: Vec<usize>,
    /// Address → cell, for computed places.
    by_address: BTreeMap<i64, usize>,
    init: Vec<i64>,
}

impl Memory {
    fn new(p: &Program) -> Memory {
        let mut m = Memory {
            named: Vec::new(),
            by_address: BTreeMap::new(),
            init: Vec::new(),
        };
        for l in &p.locs {
            let cell = m.init.len();
            m.init.push(l.init);
            m.named.push(cell);
            if let Some(a) = l.address {
                m.by_address.entry(a).or_insert(cell);
            }
        }
        for &v in &p.values {
            if !m.by_address.contains_key(&v) {
                m.by_address.insert(v, m.init.len());
                m.init.push(0);
            }
        }
        m
    }

    /// The cell an access goes to; `None` for a computed address outside V.
    fn cell(&self, p: &Program, loc: &Loc, regs: &[Option<i64>]) -> Eval<Option<usize>> {
        Ok(match loc {
            Loc::Named(l) => self.named.get(*l as usize).copied(),
            Loc::Computed(e) => {
                let a = eval(e, regs)?;
                if p.values.binary_search(&a).is_err() {
                    return Ok(None);
                }
                self.by_address.get(&a).copied()
            }
        })
    }
}

/// An expression's value, or the register that was read unassigned.
type Eval<T> = Result<T, RegId>;

/// Exact integer arithmetic (`BinOp::apply`); booleans are 0 and 1.
fn eval(e: &Expr, regs: &[Option<i64>]) -> Eval<i64> {
    Ok(match e {
        Expr::Int(n) => *n,
        Expr::Reg(r) => regs.get(*r as usize).copied().flatten().ok_or(*r)?,
        Expr::Unary(UnOp::Neg, a) => eval(a, regs)?.wrapping_neg(),
        Expr::Unary(UnOp::Not, a) => i64::from(eval(a, regs)? == 0),
        Expr::Binary(op, a, b) => op.apply(eval(a, regs)?, eval(b, regs)?),
    })
}

fn vulkan_only(p: &Program) -> Unsupported {
    Unsupported::VulkanOnly(p.vulkan_only().map_or("a Vulkan construct", |v| v.1))
}

fn unassigned(p: &Program, r: RegId) -> Unsupported {
    let info = p.regs.get(r as usize);
    Unsupported::UnassignedRegister {
        thread: info.map_or("?", |i| p.thread_name(i.thread)).to_string(),
        reg: p.reg_name(r).to_string(),
    }
}

struct Search<'p, 'm, 'a> {
    p: &'p Program,
    memory: &'m Memory,
    /// The configurations visited.
    seen: Memo,
    finals: HashSet<Config<'a>>,
    limits: Limits,
    limit: Option<String>,
    /// Whether a run reached a bound's cut. Exact once the search is
    /// complete: it visits every configuration reachable, and a run that
    /// goes past the bound at a larger one passes through such a
    /// configuration here first (every prefix of an SC run is an SC run).
    reached: std::cell::Cell<bool>,
}

impl<'a> Search<'_, '_, 'a> {
    fn finish(self, states: BTreeMap<State, usize>) -> Outcomes {
        let reach = if self.reached.get() {
            Reach::Reached
        } else if self.limit.is_some() {
            Reach::Unknown
        } else {
            Reach::Unreached
        };
        let counters = self.counters();
        Outcomes {
            witnesses: self.finals.len(),
            states,
            limit: self.limit,
            stats: crate::logic::Stats::default(),
            counters,
            notes: self
                .p
                .bound_note(reach)
                .into_iter()
                .chain(self.p.spin_note())
                .collect(),
            flags: Vec::new(),
            orbits: None,
            factored: None,
        }
    }

    /// `--stats`: the configurations visited, and the spin loops decided as
    /// their last pass (named only when there are some).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        let spins = u64::from(self.p.spins);
        let mut out = vec![("configurations", self.seen.len() as u64)];
        out.extend((spins > 0).then_some(("spin-loops-as-last-pass", spins)));
        out
    }

    /// Depth first over interleavings, memoised on whole configurations.
    fn explore(&mut self, c: Config<'a>) -> Result<(), Unsupported> {
        if self.limit.is_some() {
            return Ok(());
        }
        if !self.seen.insert(&c.key()) {
            return Ok(());
        }
        // One more than the limit is kept, not explored.
        if self.seen.len() > self.limits.max_states {
            self.limit = Some(format!(
                "--max-states {} (configurations of the interleaving search)",
                self.limits.max_states
            ));
            return Ok(());
        }
        // From the first configuration on, so a deadline already passed stops it.
        if (self.seen.len() - 1).is_multiple_of(CHECK_EVERY) {
            self.limit = crate::outcome::interrupted(self.limits.deadline, self.limits.cancel);
            if self.limit.is_some() {
                return Ok(());
            }
        }
        let mut moved = false;
        for t in 0..c.threads.len() {
            let Some(next) = self.step(&c, t)? else {
                continue;
            };
            moved = true;
            if let Some(next) = next {
                self.explore(next)?;
            }
        }
        if !moved && c.threads.iter().flatten().all(|t| t.work.is_empty()) {
            self.finals.insert(c);
        }
        Ok(())
    }

    /// Thread `t`'s next access: `None` if it has none to take now,
    /// `Some(None)` if the execution leaves V (dropped), else the successor.
    #[allow(clippy::type_complexity)]
    fn step(&self, c: &Config<'a>, t: usize) -> Result<Option<Option<Config<'a>>>, Unsupported> {
        let Some(Some(th)) = c.threads.get(t) else {
            return Ok(None);
        };
        let Some(Work::Stmt(At(s))) = th.work.last().copied() else {
            return Ok(None);
        };
        let p = self.p;
        let mut next = c.clone();
        let Some(Some(th)) = next.threads.get_mut(t) else {
            return Ok(None);
        };
        th.work.pop();
        let ok = access(p, self.memory, s, th, &mut next.mem).map_err(|r| unassigned(p, r))?;
        if !ok {
            return Ok(Some(None));
        }
        if !next.settle(self, t as ThreadId)? {
            return Ok(Some(None));
        }
        Ok(Some(Some(next)))
    }
}

/// One atomic access by thread `th`; false when the execution leaves V.
fn access(p: &Program, memory: &Memory, s: &Stmt, th: &mut Thread, mem: &mut [i64]) -> Eval<bool> {
    let in_v = |v: i64| p.values.binary_search(&v).is_ok();
    match s {
        Stmt::Read { reg, loc, .. } => {
            let Some(cell) = memory.cell(p, loc, &th.regs)? else {
                return Ok(false);
            };
            set(&mut th.regs, *reg, mem[cell]);
        }
        Stmt::Write { loc, expr, .. } => {
            let Some(cell) = memory.cell(p, loc, &th.regs)? else {
                return Ok(false);
            };
            let v = eval(expr, &th.regs)?;
            if !in_v(v) {
                return Ok(false);
            }
            mem[cell] = v;
        }
        Stmt::Rmw {
            reg, op, loc, args, ..
        } => {
            let Some(cell) = memory.cell(p, loc, &th.regs)? else {
                return Ok(false);
            };
            let old = mem[cell];
            let arg = |i: usize| args.get(i).map_or(Ok(0), |a| eval(a, &th.regs));
            // §1.7: FADD writes old + M, EXCHG writes M, CAS writes N when old = M.
            let new = match op {
                RmwOp::Fadd => Some(old.wrapping_add(arg(0)?)),
                RmwOp::Exchg => Some(arg(0)?),
                RmwOp::Cas => (old == arg(0)?).then_some(arg(1)?),
            };
            if let Some(v) = new {
                if !in_v(v) {
                    return Ok(false);
                }
                mem[cell] = v;
            }
            set(&mut th.regs, *reg, old);
        }
        _ => {}
    }
    Ok(true)
}

fn set(regs: &mut [Option<i64>], r: RegId, v: i64) {
    if let Some(slot) = regs.get_mut(r as usize) {
        *slot = Some(v);
    }
}

impl<'a> Config<'a> {
    /// Starts a thread and runs its local steps; false if the execution leaves V.
    fn spawn(
        &mut self,
        search: &Search<'_, '_, 'a>,
        tid: ThreadId,
        th: Thread<'a>,
    ) -> Result<bool, Unsupported> {
        if let Some(slot) = self.threads.get_mut(tid as usize) {
            *slot = Some(th);
        }
        self.settle(search, tid)
    }

    /// Runs thread `tid`'s local steps (SKIP, LET, fences, IF, SEQ, PAR and
    /// joins whose thread is done) until its next access, or its end.
    fn settle(&mut self, search: &Search<'_, '_, 'a>, tid: ThreadId) -> Result<bool, Unsupported> {
        loop {
            let Some(Some(th)) = self.threads.get_mut(tid as usize) else {
                return Ok(true);
            };
            let Some(top) = th.work.last().copied() else {
                return self.joined(search, tid);
            };
            let s = match top {
                Work::Join(child) => {
                    if !self.done(child) {
                        return Ok(true);
                    }
                    if let Some(Some(th)) = self.threads.get_mut(tid as usize) {
                        th.work.pop();
                    }
                    continue;
                }
                Work::Stmt(At(s)) => s,
            };
            match s {
                Stmt::Read { .. } | Stmt::Write { .. } | Stmt::Rmw { .. } => return Ok(true),
                Stmt::Vulkan { .. } | Stmt::Barrier { .. } => {
                    return Err(vulkan_only(search.p));
                }
                Stmt::Skip | Stmt::Fence { .. } => {
                    th.work.pop();
                }
                // ✓ = ff: a run that reaches a loop's cut is no execution.
                Stmt::Diverge { bound } => {
                    if *bound {
                        search.reached.set(true);
                    }
                    return Ok(false);
                }
                Stmt::Let { reg, expr } => {
                    th.work.pop();
                    let v = eval(expr, &th.regs).map_err(|r| unassigned(search.p, r))?;
                    set(&mut th.regs, *reg, v);
                }
                Stmt::If { cond, then, els } => {
                    th.work.pop();
                    let c = eval(cond, &th.regs).map_err(|r| unassigned(search.p, r))?;
                    let branch = if c != 0 { then } else { els };
                    th.work.push(Work::Stmt(At(branch)));
                }
                Stmt::Seq(parts) => {
                    th.work.pop();
                    th.work
                        .extend(parts.iter().rev().map(|s| Work::Stmt(At(s))));
                }
                Stmt::Par {
                    thread,
                    left,
                    right,
                } => {
                    th.work.pop();
                    th.work.push(Work::Join(*thread));
                    th.work.push(Work::Stmt(At(right)));
                    let child = Thread {
                        work: vec![Work::Stmt(At(left))],
                        regs: th.regs.clone(),
                    };
                    if !self.spawn(search, *thread, child)? {
                        return Ok(false);
                    }
                }
            }
        }
    }

    fn done(&self, tid: ThreadId) -> bool {
        matches!(self.threads.get(tid as usize), Some(Some(t)) if t.work.is_empty())
    }

    /// Thread `tid` has ended: a parent waiting on it may go on.
    fn joined(&mut self, search: &Search<'_, '_, 'a>, tid: ThreadId) -> Result<bool, Unsupported> {
        let parent = search.p.threads.get(tid as usize).and_then(|t| t.parent);
        let Some(parent) = parent else {
            return Ok(true);
        };
        let waiting = matches!(
            self.threads.get(parent as usize),
            Some(Some(t)) if t.work.last() == Some(&Work::Join(tid))
        );
        if waiting {
            return self.settle(search, parent);
        }
        Ok(true)
    }
}

/// Registers as `thread:reg` (fresh ones left out), memory per named location.
fn final_state(p: &Program, memory: &Memory, c: &Config) -> State {
    let mut regs = Vec::new();
    for (tid, body) in &p.main {
        for t in crate::outcome::state::reported_threads(*tid, body) {
            let th = c.threads.get(t as usize).and_then(Option::as_ref);
            for (r, info) in p.regs.iter().enumerate() {
                if info.thread != t || info.fresh {
                    continue;
                }
                let v = th.and_then(|th| th.regs.get(r).copied().flatten());
                regs.push((format!("{}:{}", p.thread_name(t), info.name), v));
            }
        }
    }
    let mem = p
        .locs
        .iter()
        .zip(&memory.named)
        .map(|(l, &cell)| (l.name.clone(), c.mem.get(cell).copied()))
        .collect();
    State { regs, mem }
}

/// Sequential consistency as a peer (`sc`). Modes, scopes and model options
/// mean nothing under SC, and a file's expectations are the note's verdicts,
/// not SC's: neither is used.
pub struct Sc;

impl crate::engine::Engine for Sc {
    fn name(&self) -> &str {
        "sc"
    }

    fn can(&self, c: crate::engine::Capability) -> bool {
        // An interleaving ignores modes: every variant has the same states.
        matches!(
            c,
            crate::engine::Capability::SpinReduction
                | crate::engine::Capability::StrongerModes
                | crate::engine::Capability::ModeBlind
                | crate::engine::Capability::IncludesSc
        )
    }

    fn reads_options(&self) -> bool {
        false
    }

    /// An interleaving has no scopes.
    fn reads_placement(&self) -> bool {
        false
    }

    fn outcomes(
        &self,
        p: &Program,
        _: &crate::model::Model,
        limits: crate::outcome::Limits,
    ) -> Result<Outcomes, String> {
        // `--max-states` bounds the configurations visited.
        let own = Limits {
            max_states: limits.max_states,
            deadline: limits.deadline,
            cancel: limits.cancel,
        };
        outcomes(p, own).map_err(|why| why.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn states(src: &str) -> Vec<State> {
        let t = syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)));
        let o = outcomes(&t.program, Limits::default()).expect("supported");
        assert!(o.limit.is_none());
        o.states.into_keys().collect()
    }

    fn regs(s: &State) -> Vec<Option<i64>> {
        s.regs.iter().map(|(_, v)| *v).collect()
    }

    #[test]
    fn store_buffering_never_ends_with_both_zero() {
        let s =
            states("litmus SB\nx := 1; r := y;\n|| y := 1; s := x;\nexists (r = 0 /\\ s = 0)\n");
        let mut got: Vec<_> = s.iter().map(regs).collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                vec![Some(0), Some(1)],
                vec![Some(1), Some(0)],
                vec![Some(1), Some(1)]
            ]
        );
        assert_eq!(s[0].regs[0].0, "P0:r");
        assert_eq!(s[0].mem, vec![("x".into(), Some(1)), ("y".into(), Some(1))]);
    }

    #[test]
    fn message_passing_never_sees_the_flag_without_the_data() {
        let s =
            states("litmus MP\nx := 1; y := 1;\n|| r := y; s := x;\nexists (r = 1 /\\ s = 0)\n");
        let mut got: Vec<_> = s.iter().map(regs).collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                vec![Some(0), Some(0)],
                vec![Some(0), Some(1)],
                vec![Some(1), Some(1)]
            ]
        );
    }

    #[test]
    fn two_fetch_and_adds_never_lose_an_update() {
        let s = states(
            "litmus FADD2\nvalues {0,1,2}\nr := FADD(x, 1);\n|| s := FADD(x, 1);\nexists (r = 0 /\\ s = 0)\n",
        );
        let mut got: Vec<_> = s.iter().map(|s| (regs(s), s.mem.clone())).collect();
        got.sort();
        let two = vec![("x".to_string(), Some(2))];
        assert_eq!(
            got,
            vec![
                (vec![Some(0), Some(1)], two.clone()),
                (vec![Some(1), Some(0)], two)
            ]
        );
    }

    #[test]
    fn an_increment_past_v_has_no_execution() {
        // V = {0, 1}: the second FADD would write 2, outside V.
        let s = states(
            "litmus FADD2V\nvalues {0,1}\nr := FADD(x, 1);\n|| s := FADD(x, 1);\nexists (r = 0)\n",
        );
        assert!(s.is_empty());
    }

    #[test]
    fn a_fork_joins_before_what_follows_and_forks_in_untaken_branches_never_run() {
        let s = states(
            "litmus FORK\nt := x; if (t = 1) { ( r := 1; || skip; ) } ( y := 1; || skip; ) s := y;\nexists (s = 1)\n",
        );
        // P0's registers, then P1's (the untaken fork's, never assigned).
        assert_eq!(s.len(), 1);
        let names: Vec<&str> = s[0].regs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["P0:t", "P0:s", "P1:r"]);
        assert_eq!(regs(&s[0]), vec![Some(0), Some(1), None]);
    }

    #[test]
    fn computed_addresses_use_one_cell_per_address() {
        let s = states(
            "litmus ADDR\nvalues {0,1}\nlocations { x @ 0; y @ 1 }\nr := y; [r] := 1; s := x;\nexists (s = 1)\n",
        );
        assert_eq!(s.len(), 1);
        // r = 0 is x's address.
        assert_eq!(regs(&s[0]), vec![Some(0), Some(1)]);
        assert_eq!(s[0].mem, vec![("x".into(), Some(1)), ("y".into(), Some(0))]);
    }

    #[test]
    fn a_register_read_before_assignment_is_refused() {
        let src = "litmus U\nif (u = 1) { x := 1; }\nexists ([x] = 1)\n";
        let t = syntax::parse(src).expect("parses with a warning");
        let e = outcomes(&t.program, Limits::default()).expect_err("refused");
        assert!(matches!(e, Unsupported::UnassignedRegister { ref reg, .. } if reg == "u"));
    }

    #[test]
    fn a_state_limit_is_reported_not_hidden() {
        let src = "litmus L\nx := 1; y := 1;\n|| r := y; s := x;\nexists (r = 1)\n";
        let t = syntax::parse(src).expect("parses");
        let limits = Limits {
            max_states: 2,
            ..Limits::default()
        };
        let o = outcomes(&t.program, limits).expect("supported");
        assert!(o.limit.is_some());
    }

    /// `--timeout` stops the interleaving engine too, named (issue 31).
    #[test]
    fn a_passed_deadline_stops_the_search_and_is_named() {
        let t = crate::syntax::parse("litmus T\nx := 1; r := y;\n|| y := 1; s := x;\n")
            .expect("parses");
        let limits = Limits {
            deadline: Some((std::time::Instant::now(), 0.5)),
            ..Limits::default()
        };
        std::thread::sleep(std::time::Duration::from_millis(2));
        let o = outcomes(&t.program, limits).expect("supported");
        assert_eq!(o.limit.as_deref(), Some("--timeout 0.5"));
    }
}
