//! The top level: initial writes, threads, complete pomsets (c2b, c3, c5)
//! and their outcomes.
//!
//! A complete pomset needs every κ(e) and ✓ to be tautologies. PAR neither
//! transforms nor mixes preconditions across threads, and the initialising
//! prefix's transformer does not depend on D, so completeness is decided
//! thread by thread; only rf and the orders (the candidate conditions) couple
//! threads.

use std::collections::{BTreeMap, HashMap};

use super::construct::{Ev, Frag, Limit, Sem};
use super::factor;
use super::gap;
use super::goal::{self, Goal};
use super::session;
use super::tau::{Events, KappaNode, Tau, TauNode};
use crate::action::{self, Action, Groups, Kind, Mode, Scope, ThreadId};
use crate::engine::pwt::check::{
    candidates_each, candidates_interruptible, some_candidate, Edge, OrderKind, Reason, RfMode,
    Search, Witness,
};
use crate::logic::{Assignment, FormulaId, Var};
use crate::model::{DroppedRead, Final, IfClosure, Init, Model};
use crate::outcome::orbit::{Classes, Orbits};
use crate::outcome::packed::Packed;
use crate::outcome::{interrupted, Limits, Outcomes, Settled, State, Unsupported};
use crate::pomset::{Event, Skeleton};
use crate::syntax::core::{self, Loc, Program, Reach, Stmt, Term};

pub(super) struct ThreadGroups<'a> {
    pub(super) p: &'a Program,
}

impl Groups for ThreadGroups<'_> {
    fn same_cta(&self, a: ThreadId, b: ThreadId) -> bool {
        a == b
            || matches!((self.p.threads.get(a as usize), self.p.threads.get(b as usize)), (Some(x), Some(y)) if x.cta == y.cta)
    }
    fn same_gpu(&self, a: ThreadId, b: ThreadId) -> bool {
        a == b
            || matches!((self.p.threads.get(a as usize), self.p.threads.get(b as usize)), (Some(x), Some(y)) if x.gpu == y.gpu)
    }
}

/// A thread's fragment made complete: its dependency choice per event.
#[derive(Clone)]
pub(super) struct Completed {
    pub(super) frag: Frag,
    /// For each event id, the reads it depends on (↓e).
    pub(super) deps: Vec<(u32, Events)>,
    /// The thread's final registers: they depend on its own reads only.
    /// Shared between the variants that end with the same ones (`run`).
    pub(super) regs: Registers,
}

/// A variant's final registers, each named, shared between variants.
pub(super) type Registers = std::sync::Arc<[(String, Option<i64>)]>;

/// Called on each complete pomset: the semantics' names, its skeleton, the
/// candidate witness (rf and orders), and the final state it ends in.
pub type Visit<'v> = dyn FnMut(&Sem, &Skeleton, &Witness, &State) + 'v;

/// Decides the outcomes of a program under a model.
pub fn outcomes(p: &Program, model: &Model, limits: Limits) -> Result<Outcomes, Unsupported> {
    outcomes_visiting(p, model, limits, None)
}

/// The option values no command that decides outcomes reads, refused
/// rather than read another way: `if_closure = on`, whose guards may be any
/// formulas (the book's "The semantics" says why; `if_closure = registers`
/// is the reading decided), and `dropped_read = unchanged`, which only the
/// pomset-level refinement check decides (`refused_locally`). Every entry
/// point into the semantics calls this.
pub fn refused(model: &Model) -> Result<(), Unsupported> {
    refused_locally(model)?;
    if model.dropped_read == DroppedRead::Unchanged {
        return Err(Unsupported::Option("dropped_read", "unchanged"));
    }
    Ok(())
}

/// The option values the pomset-level refinement check refuses:
/// `if_closure = on` only. It compares single pomsets, so it can offer a
/// dropped read's s as the register's value before the read
/// (`dropped_read = unchanged`) where a whole test's outcomes cannot.
pub fn refused_locally(model: &Model) -> Result<(), Unsupported> {
    if model.if_closure == IfClosure::On {
        return Err(Unsupported::Option("if_closure", "on"));
    }
    Ok(())
}

/// `refused`, and the constructs the note does not define: the Vulkan
/// extension's barriers, qualifiers and subgroup scope (the book's
/// "Vulkan"). Every entry point that reads a program calls this.
pub fn refused_program(p: &Program, model: &Model) -> Result<(), Unsupported> {
    refused(model)?;
    match p.vulkan_only() {
        Some((at, what)) => Err(Unsupported::VulkanOnly(what, at)),
        None => Ok(()),
    }
}

/// As `outcomes`, calling `visit` on every complete pomset found.
pub fn outcomes_visiting<'v>(
    p: &Program,
    model: &Model,
    limits: Limits,
    visit: Option<&'v mut Visit<'v>>,
) -> Result<Outcomes, Unsupported> {
    refused_program(p, model)?;
    // No pruning for `monotonicity` (§2): stronger labels only add
    // constraints to the candidate rules, but a strengthened label can equal
    // another event's and so coalesce with it (s1, I1), which can reach new
    // states (the reference engine found one). The stronger labels are
    // enumerated like every other existential choice.
    let listing = visit.is_some();
    // `gap::could_matter` reads `states`: no orbits where it is asked.
    let limits = Limits {
        orbits: limits.orbits && !gap::memory_gap(model),
        ..limits
    };
    let mut out = decide_all(p, model, limits, visit, false);
    // `monotonicity` with `final = loc_max` (see `gap`): the states found
    // may omit coarsenings of their final memory. Where one could change a
    // verdict, decide again with every stronger label built; else say so.
    if gap::memory_gap(model) && out.limit.is_none() && !p.locs.is_empty() && !listing {
        if p.conditions.iter().any(|c| gap::could_matter(p, c, &out)) {
            // Every stronger label multiplies the skeletons (a CAS-retry loop
            // goes from 0.1 s to hours): the recheck has its own step budget.
            let recheck = Limits {
                max_steps: limits.max_steps.min(gap::RECHECK_STEPS),
                ..limits
            };
            out = decide_all(p, model, recheck, None, true);
            if let Some(l) = out.limit.take() {
                out.limit = Some(gap::recheck_limit(&l));
            }
        } else {
            out.notes.push(gap::NOTE.to_string());
        }
    }
    Ok(out)
}

/// One decision; `strengthen` builds every stronger label (`Sem::modes`).
fn decide_all<'v>(
    p: &Program,
    model: &Model,
    limits: Limits,
    visit: Option<&'v mut Visit<'v>>,
    strengthen: bool,
) -> Outcomes {
    // A read-only thread's reads kept apart (`factor.rs`, 5. to 7.): tried
    // first, since the thread as it is may have millions of pomsets.
    if visit.is_none() && !strengthen {
        if let Some(out) = factor::decide_split(p, model, limits) {
            return out;
        }
    }
    let mut sem = Sem::new(p, model, limits.max_pomsets, limits.max_partitions);
    sem.strengthen = strengthen;
    // A sweep's threads built once (`session.rs`): not for a visitor,
    // which sees each pomset, nor for refinement's stronger labels.
    let reuse = limits.reuse && visit.is_none() && !strengthen;
    if reuse {
        session::enter(&mut sem, p);
    }
    let before = sem.l.stats();
    let mut out = Outcomes::empty();
    match run(&mut sem, p, model, limits, visit, None, &mut out) {
        Ok(_) => {}
        Err(l) => out.limit = Some(l.text()),
    }
    out.stats = sem.l.stats().minus(before);
    if reuse {
        session::leave(&mut sem);
    }
    out.notes = outside_v_notes(&sem, p);
    out.notes.extend(p.bound_note(Reach::Unknown));
    out
}

/// Searches for one final state that meets `goal`, pruning what cannot
/// (`goal.rs` argues each pruning), and stops at the first one found: first
/// with every once-read register at one value (`goal::first_try`), then,
/// if that finds nothing, exactly.
pub fn settle(
    p: &Program,
    model: &Model,
    limits: Limits,
    goal: Goal,
) -> Result<Settled, Unsupported> {
    refused_program(p, model)?;
    // No state meets a goal that no values of the registers and locations
    // can meet (`exists (0 = 0)` never fails): nothing to search for.
    // `possible` over-approximates, so an unreachable goal is truly one.
    if !goal.reachable(&|_| goal::Known::Free) {
        return Ok(Settled {
            found: None,
            witnesses: 0,
            limit: None,
            stats: Default::default(),
            notes: p.bound_note(Reach::Unknown).into_iter().collect(),
        });
    }
    let first = goal::first_try(p, &goal);
    let exact = goal::pinned(p, &goal);
    // The exact search repeats the first try when the try pinned nothing more.
    let repeats = first == exact;
    let tried = settle_with(p, model, limits, goal, first);
    if tried.found.is_some() || repeats {
        return Ok(tried);
    }
    let mut exact = settle_with(p, model, limits, goal, exact);
    exact.witnesses += tried.witnesses;
    exact.stats = exact.stats.plus(tried.stats);
    Ok(exact)
}

fn settle_with(
    p: &Program,
    model: &Model,
    limits: Limits,
    goal: Goal,
    pinned: HashMap<core::RegId, Vec<Option<i64>>>,
) -> Settled {
    let mut sem = Sem::new(p, model, limits.max_pomsets, limits.max_partitions);
    sem.pinned = pinned;
    let mut out = Outcomes::empty();
    let found = match run(&mut sem, p, model, limits, None, Some(goal), &mut out) {
        Ok(found) => found,
        Err(l) => {
            out.limit = Some(l.text());
            None
        }
    };
    Settled {
        limit: if found.is_some() { None } else { out.limit },
        found,
        witnesses: out.witnesses,
        stats: sem.l.stats(),
        notes: outside_v_notes(&sem, p)
            .into_iter()
            .chain(p.bound_note(Reach::Unknown))
            .collect(),
    }
}

/// `run --verdict-only`: for each condition, one search for a state making
/// it true and one for a state not making it true (`goal::goals`).
pub fn settle_conditions(
    p: &Program,
    model: &Model,
    limits: Limits,
) -> Result<Vec<[Settled; 2]>, Unsupported> {
    p.conditions
        .iter()
        .map(|c| {
            // Under `monotonicity` a counterexample may be a coarsening the
            // searches do not build (`gap`): decide those conditions fully.
            if gap::memory_gap(model) && !gap::condition_locations(p, c).is_empty() {
                return settled_from_outcomes(p, c, &outcomes(p, model, limits)?);
            }
            let [holds, fails] = goal::goals(p, c);
            Ok([
                settle(p, model, limits, holds)?,
                settle(p, model, limits, fails)?,
            ])
        })
        .collect()
}

/// The two searches' answers for `c`, read off a full decision: the first
/// kept state where `c` holds, and the first where it does not.
fn settled_from_outcomes(
    p: &Program,
    c: &core::Condition,
    o: &Outcomes,
) -> Result<[Settled; 2], Unsupported> {
    let kept: Vec<&State> = o
        .states
        .keys()
        .filter(|s| crate::outcome::verdict::kept(p, s))
        .collect();
    let first = |want: bool| {
        kept.iter()
            .find(|s| crate::outcome::verdict::holds(p, s, &c.prop) == want)
            .map(|s| (*s).clone())
    };
    let settled = |found: Option<State>| Settled {
        found,
        witnesses: o.witnesses,
        limit: o.limit.clone(),
        stats: o.stats,
        notes: o.notes.clone(),
    };
    Ok([settled(first(true)), settled(first(false))])
}

/// Decides the test, or with a goal searches for one state meeting it
/// (returned).
fn run<'v>(
    sem: &mut Sem,
    p: &Program,
    model: &Model,
    limits: Limits,
    visit: Option<&'v mut Visit<'v>>,
    goal: Option<Goal>,
    out: &mut Outcomes,
) -> Result<Option<State>, Limit> {
    (sem.deadline, sem.cancel) = (limits.deadline, limits.cancel);
    let init_thread = p.threads.len() as ThreadId;
    let (init_events, init_tau) =
        session::init(sem, |sem| init_prefix(sem, p, model, init_thread))?;
    let per_thread = thread_variants(sem, p, &init_events, init_tau)?;
    let groups = ThreadGroups { p };
    let mut choice = vec![0usize; per_thread.len()];
    let observer = match model.final_ {
        Final::LocMax => None,
        Final::Observer => Some(observer_reads(sem, p, init_thread + 1)?),
    };
    // Thread symmetry (`symmetry.rs`): not with an observer, a visitor or a
    // goal, and only where the built variants confirm it.
    let classes = if observer.is_none() && visit.is_none() && goal.is_none() && limits.symmetry {
        Classes::of(p)
    } else {
        Classes::default()
    };
    let classes = if confirmed(&classes, &per_thread) {
        classes
    } else {
        Classes::default()
    };
    // Readers kept apart (`factor.rs`): only for a caller taking states in
    // a compact form, with nothing that sees each pomset (a visitor, a
    // goal, an observer) and no filter to list states by.
    let plain = visit.is_some() || goal.is_some() || observer.is_some() || p.filter.is_some();
    if limits.orbits
        && limits.factor
        && !plain
        && !gap::memory_gap(model)
        && uniform_names(&per_thread)
    {
        let readers = factor::readers(&per_thread);
        let built = (&init_events[..], &per_thread[..]);
        if !readers.is_empty() && factor::decide_built(sem, p, model, built, &readers, limits, out)
        {
            return Ok(None);
        }
    }
    let blocks = register_blocks(&per_thread);
    // A caller taking orbits (`run`'s text report) gets the states of a
    // search without symmetry as orbits too, each a single state: kept as
    // values only, the names once (`count`). Only where every state names
    // the same registers, which the shared names need (`uniform_names`).
    let values_only =
        limits.orbits && visit.is_none() && goal.is_none() && uniform_names(&per_thread);
    let pairs = Pairs::of(&init_events, &per_thread);
    let mut search = Product {
        classes,
        values_only,
        blocks,
        observer,
        init_tau,
        model,
        groups: &groups,
        init: &init_events,
        threads: &per_thread,
        pairs: &pairs,
        later_thread_writes: later_writes(&[], &per_thread),
        parts: limits.parts,
        part_cuts: vec![(0, 0); per_thread.len()],
        steps: limits.max_steps,
        steps_given: limits.max_steps,
        max_states: limits.max_states,
        deadline: limits.deadline,
        cancel: limits.cancel,
        one_core: limits.one_core,
        visit,
        goal,
        found: None,
        canon: BTreeMap::new(),
        shape: None,
        batch: Vec::new(),
    };
    search.run(sem, p, 0, &mut choice, &vec![0; 2 * pairs.words], out)?;
    search.flush(sem, out);
    search.finish(out, limits.orbits);
    Ok(search.found)
}

/// Each top-level thread's complete pomsets with their final registers,
/// those with a read no write may fulfil left out (c2a, c2b).
pub(super) fn thread_variants(
    sem: &mut Sem,
    p: &Program,
    init_events: &[Ev],
    init_tau: Tau,
) -> Result<Vec<Vec<Completed>>, Limit> {
    let mut per_thread: Vec<Vec<Completed>> = Vec::new();
    sem.completing = Some(init_tau);
    let built = build_threads(sem, p, init_tau, &mut per_thread);
    sem.completing = None;
    built?;
    // Values each thread may write, for pruning reads without a source (c2a, c2b).
    let writable = later_writes(init_events, &per_thread).swap_remove(0);
    for (k, variants) in per_thread.iter_mut().enumerate() {
        // Filtered in place: a reader's variants are most of the memory
        // (CoRR-5: 44 683), so no second list of them is built.
        let mut stopped = None;
        // Variants ending with the same registers share one list of them.
        let mut lists: std::collections::HashSet<Registers> = Default::default();
        variants.retain_mut(|c| {
            if stopped.is_some() {
                return false;
            }
            if let Err(l) = sem.interrupted() {
                stopped = Some(l);
                return false;
            }
            let mut reads = c.frag.events.iter().filter(|e| e.label.kind == Kind::Read);
            let sourced = reads.all(|e| {
                writable
                    .binary_search(&(e.label.loc, e.label.value))
                    .is_ok()
            });
            if sourced {
                let regs = final_registers(sem, p, init_tau, k, c);
                c.regs = match lists.get(regs.as_slice()) {
                    Some(shared) => shared.clone(),
                    None => {
                        let shared: Registers = regs.into();
                        lists.insert(shared.clone());
                        shared
                    }
                };
            }
            sourced
        });
        if let Some(l) = stopped {
            return Err(l);
        }
        variants.shrink_to_fit();
    }
    Ok(per_thread)
}

/// Each thread's fragments, completed (`complete`), into `per_thread`;
/// `sem.completing` is set, so a thread's top-level SEQ skips the pairs no
/// completion keeps (`Sem::settles`).
fn build_threads(
    sem: &mut Sem,
    p: &Program,
    init_tau: Tau,
    per_thread: &mut Vec<Vec<Completed>>,
) -> Result<(), Limit> {
    for (k, (tid, body)) in p.main.iter().enumerate() {
        // Built once per sweep where the sweep allows (`session.rs`).
        let done = session::thread(sem, k, body, |sem| {
            // The fragments are taken from the back, their list shrunk as
            // it empties, and each completed in place of it: a reader's
            // thousands of fragments (CoRR-5: 44 683) are never held twice
            // over.
            let mut frags = sem.denote(body, *tid)?;
            frags.shrink_to_fit();
            let mut done = Vec::with_capacity(frags.len());
            while let Some(f) = frags.pop() {
                sem.interrupted()?;
                done.extend(complete(sem, f, init_tau).into_iter().rev());
                if frags.len() < frags.capacity() / 2 {
                    frags.shrink_to_fit();
                }
            }
            done.reverse();
            Ok(done)
        })?;
        per_thread.push(done);
    }
    Ok(())
}

/// Whether each class's threads have variants that correspond index by
/// index: the same events, orders, dependencies and final registers, but for
/// the thread (`symmetry.rs` needs this of the construction).
fn confirmed(classes: &Classes, per_thread: &[Vec<Completed>]) -> bool {
    classes.classes.iter().all(|c| {
        let first = &per_thread[c[0]];
        c[1..].iter().all(|&t| {
            let other = &per_thread[t];
            other.len() == first.len() && first.iter().zip(other).all(|(a, b)| shape(a) == shape(b))
        })
    })
}

/// A variant with its events numbered by position and its thread erased.
type Shape = (
    Vec<Action>,
    Vec<(usize, usize)>,
    Vec<(usize, usize, Action, Action)>,
    Vec<(usize, Vec<usize>)>,
    Vec<(usize, usize)>,
    Vec<Option<i64>>,
);

fn shape(c: &Completed) -> Shape {
    let at = |id: u32| {
        c.frag
            .events
            .iter()
            .position(|e| e.id == id)
            .unwrap_or(usize::MAX)
    };
    let erase = |mut a: Action| {
        a.thread = 0;
        a
    };
    let pairs = |v: &[(u32, u32)]| v.iter().map(|&(x, y)| (at(x), at(y))).collect::<Vec<_>>();
    let deps = c
        .deps
        .iter()
        .map(|&(e, d)| {
            (
                at(e),
                (0..64u32).filter(|k| d >> k & 1 == 1).map(at).collect(),
            )
        })
        .collect();
    let regs = c.regs.iter().map(|(_, v)| *v).collect();
    (
        c.frag.events.iter().map(|e| erase(e.label)).collect(),
        pairs(&c.frag.po),
        c.frag
            .seq_labels
            .iter()
            .map(|&(x, y, a, b)| (at(x), at(y), erase(a), erase(b)))
            .collect(),
        deps,
        pairs(&c.frag.rmw),
        regs,
    )
}

/// Whether every variant of each thread lists the same registers, in the
/// same order (forks inside an `if` could make them differ): then every
/// state names the same registers, then the same locations.
pub(super) fn uniform_names(per_thread: &[Vec<Completed>]) -> bool {
    per_thread.iter().all(|t| {
        t.windows(2).all(|w| {
            w[0].regs.len() == w[1].regs.len()
                && w[0]
                    .regs
                    .iter()
                    .zip(w[1].regs.iter())
                    .all(|(a, b)| a.0 == b.0)
        })
    })
}

/// Where each thread's registers sit in a state's register list (every
/// variant of a thread lists the same registers).
pub(super) fn register_blocks(per_thread: &[Vec<Completed>]) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    per_thread
        .iter()
        .map(|t| {
            let n = t.first().map_or(0, |c| c.regs.len());
            at += n;
            at - n..at
        })
        .collect()
}

/// The implicit initial writes (option `init`), as a top-level prefix.
pub(super) fn init_prefix(
    sem: &mut Sem,
    p: &Program,
    model: &Model,
    thread: ThreadId,
) -> Result<(Vec<Ev>, Tau), Limit> {
    let mut tau = sem.trees.tau(TauNode::Id);
    let mode = match model.init {
        Init::None => return Ok((vec![], tau)),
        Init::Rlx => Mode::Rlx,
        Init::Wk => Mode::Wk,
    };
    let mut cells: Vec<(i64, i64)> = p
        .locs
        .iter()
        .enumerate()
        .map(|(i, l)| (sem.loc_addr[i], l.init))
        .collect();
    if has_computed(p) {
        for &v in &p.values {
            if !cells.iter().any(|(a, _)| *a == v) {
                cells.push((v, 0));
            }
        }
    }
    let mut events = Vec::new();
    for (addr, value) in cells {
        let id = sem.new_event()?;
        let loc = sem.dense_loc(addr);
        let tt = sem.l.tt();
        let kappa = sem.trees.kappa(KappaNode::Base(tt));
        let v = sem.l.value(value);
        let w = sem.trees.tau(TauNode::Write {
            addr,
            value: vec![(tt, v)],
            quiescent: tt,
        });
        tau = sem.trees.tau(TauNode::Seq(tau, w));
        events.push(Ev {
            id,
            label: Action::write(thread, mode, Scope::Sys, loc, value),
            kappa,
        });
    }
    Ok((events, tau))
}

pub(super) fn has_computed(p: &Program) -> bool {
    fn walk(s: &Stmt) -> bool {
        match s {
            Stmt::Read {
                loc: Loc::Computed(_),
                ..
            }
            | Stmt::Write {
                loc: Loc::Computed(_),
                ..
            }
            | Stmt::Rmw {
                loc: Loc::Computed(_),
                ..
            } => true,
            Stmt::If { then, els, .. } => walk(then) || walk(els),
            Stmt::Seq(ss) => ss.iter().any(walk),
            Stmt::Par { left, right, .. } => walk(left) || walk(right),
            _ => false,
        }
    }
    p.main.iter().any(|(_, s)| walk(s))
}

/// Renames coalesced reads' symbols to their event's, and applies the prefix.
pub(super) fn finish(sem: &mut Sem, f: &Frag, init: Tau, formula: FormulaId) -> FormulaId {
    let after_init = sem.trees.apply(&mut sem.l, init, 0, formula);
    if f.alias.is_empty() && f.merged.is_empty() {
        return after_init;
    }
    let sigma = f.renaming(&mut sem.l);
    sem.l.subst(after_init, &sigma)
}

/// c3 and c5 for one thread's fragment: ✓ and every κ(e) tautologies, the
/// latter for some dependency set ↓e. Only minimal sets are kept: a larger
/// ↓e gives a weaker κ (Definition 1.4) but more order, so it never helps.
pub(super) fn complete(sem: &mut Sem, f: Frag, init: Tau) -> Vec<Completed> {
    let check = finish(sem, &f, init, f.check);
    if !sem.l.tautology(check) {
        return vec![];
    }
    let reads: Events = f
        .events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(0, |m, e| m | 1 << e.id);
    let mut choices: Vec<(u32, Vec<Events>)> = Vec::new();
    for e in &f.events {
        let candidates = f.to_events(sem.trees.dep_reads(e.kappa)) & reads;
        let minimal = minimal_deps(sem, &f, init, e, candidates);
        if minimal.is_empty() {
            return vec![];
        }
        choices.push((e.id, minimal));
    }
    let mut out = vec![Vec::new()];
    for (id, options) in choices {
        out = out
            .into_iter()
            .flat_map(|deps: Vec<(u32, Events)>| {
                options.iter().map(move |&d| {
                    let mut next = Vec::with_capacity(deps.len() + 1);
                    next.extend_from_slice(&deps);
                    next.push((id, d));
                    next
                })
            })
            .collect();
    }
    // The fragment is moved into the last variant, cloned for the others;
    // kept for the whole search, so without the slack its lists grew with.
    let mut f = f;
    f.shrink_to_fit();
    let mut frag = Some(f);
    let last = out.len().saturating_sub(1);
    let mut done = Vec::with_capacity(out.len());
    for (k, deps) in out.into_iter().enumerate() {
        let frag = match k == last {
            true => frag.take(),
            false => frag.clone(),
        };
        if let Some(frag) = frag {
            done.push(Completed {
                frag,
                deps,
                regs: Vec::new().into(),
            });
        }
    }
    done
}

/// The minimal sets D ⊆ `candidates` with κ(e)[D] a tautology, smallest first.
fn minimal_deps(sem: &mut Sem, f: &Frag, init: Tau, e: &Ev, candidates: Events) -> Vec<Events> {
    let bits: Vec<u32> = (0..64).filter(|b| candidates >> b & 1 == 1).collect();
    let mut found: Vec<Events> = Vec::new();
    for size in 0..=bits.len() {
        for subset in subsets_of_size(&bits, size) {
            if found.iter().any(|m| m & subset == *m) {
                continue;
            }
            let kappa = sem.trees.eval(&mut sem.l, e.kappa, f.with_aliases(subset));
            let kappa = finish(sem, f, init, kappa);
            if sem.l.tautology(kappa) {
                found.push(subset);
            }
        }
    }
    found
}

fn subsets_of_size(bits: &[u32], size: usize) -> Vec<Events> {
    if size == 0 {
        return vec![0];
    }
    let mut out = Vec::new();
    for (i, &b) in bits.iter().enumerate() {
        for rest in subsets_of_size(&bits[i + 1..], size - 1) {
            out.push(rest | 1 << b);
        }
    }
    out
}

/// The (location, value) pairs some events write.
fn writes_of(events: &[Ev]) -> impl Iterator<Item = (action::Loc, i64)> + '_ {
    events
        .iter()
        .filter(|e| e.label.kind == Kind::Write)
        .map(|e| (e.label.loc, e.label.value))
}

/// For each thread index i, the (location, value) pairs that the initial
/// writes or threads i.. could write: where a read chosen so far may still
/// find its source (c2a, c2b).
fn later_writes(init: &[Ev], threads: &[Vec<Completed>]) -> Vec<Vec<(action::Loc, i64)>> {
    let mut out = vec![Vec::new(); threads.len() + 1];
    let mut acc: Vec<(action::Loc, i64)> = writes_of(init).collect();
    for i in (0..=threads.len()).rev() {
        if let Some(t) = threads.get(i) {
            for c in t {
                acc.extend(writes_of(&c.frag.events));
            }
        }
        acc.sort_unstable();
        acc.dedup();
        out[i] = acc.clone();
    }
    out
}

/// One set of (location, value) pairs per word run of `Pairs`: the reads
/// then the writes of a choice of threads, on the stack for a few words.
type Masks = smallvec::SmallVec<[u64; 4]>;

/// The (location, value) pairs the initial writes and the threads' variants
/// write, numbered, with each variant's reads and writes as bit sets of
/// those numbers, so that whether a choice's reads can still be fulfilled
/// (c2a, c2b) is a few word operations per choice, not a scan of every
/// chosen read against the chosen writes. A read of a pair nobody writes
/// (`thread_variants` has dropped such variants) gets a bit of its own,
/// which nothing sets, so it is never fulfilled, as before.
struct Pairs {
    /// Words per set.
    words: usize,
    /// Per thread, per variant: its reads' set then its writes' set.
    masks: Vec<Vec<u64>>,
    /// For each thread index i (and one past the last), the set of pairs
    /// that the initial writes or threads i.. could write (`later_writes`).
    later: Vec<u64>,
    /// Per thread, per pair (and the pair nobody writes, last): the
    /// variants that write it, ascending.
    writers: Vec<Vec<Vec<usize>>>,
}

impl Pairs {
    fn of(init: &[Ev], threads: &[Vec<Completed>]) -> Pairs {
        let later = later_writes(init, threads);
        let all = &later[0];
        let unwritten = all.len();
        let words = (unwritten + 1).div_ceil(64);
        let set = |bits: &mut [u64], pair: &(action::Loc, i64)| {
            let b = all.binary_search(pair).unwrap_or(unwritten);
            bits[b / 64] |= 1 << (b % 64);
        };
        let masks: Vec<Vec<u64>> = threads
            .iter()
            .map(|variants| {
                let mut m = vec![0u64; variants.len() * 2 * words];
                for (k, c) in variants.iter().enumerate() {
                    let (reads, writes) = m[k * 2 * words..(k + 1) * 2 * words].split_at_mut(words);
                    for e in &c.frag.events {
                        match e.label.kind {
                            Kind::Read => set(reads, &(e.label.loc, e.label.value)),
                            Kind::Write => set(writes, &(e.label.loc, e.label.value)),
                            Kind::Fence => {}
                        }
                    }
                }
                m
            })
            .collect();
        let mut flat = vec![0u64; later.len() * words];
        for (i, pairs) in later.iter().enumerate() {
            for pair in pairs {
                set(&mut flat[i * words..(i + 1) * words], pair);
            }
        }
        let writers = masks
            .iter()
            .map(|m| {
                let mut by_pair = vec![Vec::new(); unwritten + 1];
                for (k, variant) in m.chunks(2 * words).enumerate() {
                    for (b, list) in by_pair.iter_mut().enumerate() {
                        if variant[words + b / 64] & 1 << (b % 64) != 0 {
                            list.push(k);
                        }
                    }
                }
                by_pair
            })
            .collect();
        Pairs {
            words,
            masks,
            later: flat,
            writers,
        }
    }

    /// What a choice of thread i's variant must meet, given `prefix`, the
    /// reads then the writes of the variants chosen for threads 0..i: the
    /// pairs those threads read that neither they nor the initial writes
    /// or threads i+1.. could write (the variant must write them), then
    /// the pairs those threads write or the initial writes or threads
    /// i+1.. could write (where the variant's own reads may be fulfilled
    /// besides its own writes).
    fn level(&self, i: usize, prefix: &[u64]) -> Masks {
        let w = self.words;
        let later = &self.later[(i + 1) * w..(i + 2) * w];
        let avail = (0..w).map(|j| prefix[w + j] | later[j]);
        let needed = (0..w).map(|j| prefix[j] & !(prefix[w + j] | later[j]));
        needed.chain(avail).collect()
    }

    /// The variants of thread i from `from` on that may pass `sourced`,
    /// ascending: when the earlier threads read a pair that only thread i
    /// could now write (`level`), just the variants writing that pair (of
    /// such pairs, the one fewest variants write), else all. The pair
    /// nobody writes has no writer, so a read of it passes nothing.
    fn candidates<'s>(
        &'s self,
        level: &[u64],
        i: usize,
        from: usize,
    ) -> Box<dyn Iterator<Item = usize> + 's> {
        let needed = level[..self.words]
            .iter()
            .enumerate()
            .flat_map(|(j, &word)| {
                (0..64)
                    .filter(move |b| word & 1 << b != 0)
                    .map(move |b| j * 64 + b)
            });
        match needed
            .map(|b| &self.writers[i][b])
            .min_by_key(|list| list.len())
        {
            Some(list) => {
                let start = list.partition_point(|&k| k < from);
                Box::new(list[start..].iter().copied())
            }
            None => Box::new(from..self.masks[i].len() / (2 * self.words)),
        }
    }

    /// Whether every read of threads 0..=i can still be fulfilled, thread
    /// i's variant being `k` and `level` what `level` says of the variants
    /// chosen for threads 0..i: by the chosen variants' writes, or by what
    /// the initial writes or threads i+1.. could write.
    fn sourced(&self, level: &[u64], i: usize, k: usize) -> bool {
        let w = self.words;
        let own = &self.masks[i][k * 2 * w..(k + 1) * 2 * w];
        (0..w).all(|j| {
            let writes = own[w + j];
            level[j] & !writes == 0 && own[j] & !(level[w + j] | writes) == 0
        })
    }

    /// `next`: the reads then the writes of `prefix` and thread i's variant `k`.
    fn add(&self, i: usize, k: usize, prefix: &[u64], next: &mut Masks) {
        let w = self.words;
        let own = &self.masks[i][k * 2 * w..(k + 1) * 2 * w];
        next.clear();
        next.extend(prefix.iter().zip(own).map(|(a, b)| a | b));
    }
}

/// Each thread's chosen variant.
fn chosen<'t>(threads: &'t [Vec<Completed>], choice: &[usize]) -> Vec<&'t Completed> {
    threads.iter().zip(choice).map(|(t, &k)| &t[k]).collect()
}

/// A search's witnesses (`Err`: cut short), the steps it used, and whether
/// `--max-states` cut it.
pub(super) type Searched = (Result<Vec<Witness>, Vec<Witness>>, u64, bool);

/// One combination decided (`Leaves::decide`): its search, and each
/// witness's final memories, as values in the order of `Program::locs`.
type Decided = (Searched, Vec<Vec<Vec<Option<i64>>>>);

/// What deciding one complete combination reads, and nothing it writes: the
/// threads of `Product::flush` share it, and `factor.rs` searches with it.
pub(super) struct Leaves<'a> {
    pub(super) model: &'a Model,
    pub(super) groups: &'a ThreadGroups<'a>,
    pub(super) init: &'a [Ev],
    pub(super) threads: &'a [Vec<Completed>],
    pub(super) deadline: Option<(std::time::Instant, f64)>,
    pub(super) cancel: Option<&'static std::sync::atomic::AtomicBool>,
    pub(super) cap: usize,
}

impl Leaves<'_> {
    /// The candidates with total rf (c2b) of a skeleton, within `budget` steps.
    pub(super) fn candidates(&self, sk: &Skeleton, budget: u64) -> Searched {
        let (deadline, cancel) = (self.deadline, self.cancel);
        let stop = || interrupted(deadline, cancel).is_some();
        candidates_interruptible(
            sk,
            self.model,
            self.groups,
            RfMode::Total,
            (budget, self.cap),
            &stop,
        )
    }

    /// One combination's skeleton searched, and the final memories of each
    /// witness (none when the search was cut short).
    fn decide(
        &self,
        labelled: &[Option<action::Loc>],
        p: &Program,
        choice: &[usize],
        budget: u64,
    ) -> Decided {
        let parts = chosen(self.threads, choice);
        let (sk, _) = skeleton(self.init, &parts);
        let (deadline, cancel) = (self.deadline, self.cancel);
        let stop = || interrupted(deadline, cancel).is_some();
        // The search that found each witness also decides its final
        // memories (`candidates_each` leaves its step budget alone): a
        // search's state is its skeleton's, so it answers as a new one would.
        let mut search = Search::new(&sk, self.model, self.groups, budget);
        let mut memories = Vec::new();
        let searched = candidates_each(&mut search, RfMode::Total, self.cap, &stop, &mut |s, w| {
            memories.push(final_memory_at(labelled, p, s, w))
        });
        if searched.0.is_err() {
            memories.clear();
        }
        (searched, memories)
    }
}

/// The product of the threads' complete fragments, searched depth first.
struct Product<'a, 'v> {
    /// Interchangeable threads (`symmetry.rs`): only one arrangement of each
    /// combination is searched, and states are kept canonical until `finish`.
    classes: Classes,
    /// Where each thread's registers sit in a state.
    blocks: Vec<std::ops::Range<usize>>,
    /// States are kept as values (`canon`, orbits of one state each) even
    /// without symmetry, and handed over as orbits (`finish`).
    values_only: bool,
    /// `final = observer`: one read per location after the threads.
    observer: Option<Vec<Ev>>,
    init_tau: Tau,
    model: &'a Model,
    groups: &'a ThreadGroups<'a>,
    init: &'a [Ev],
    threads: &'a [Vec<Completed>],
    /// Each variant's reads and writes as sets of (location, value) pairs
    /// (`Pairs::sourced`).
    pairs: &'a Pairs,
    /// As `later_writes`, without the initial writes: what threads i..
    /// could write (`part_can_complete`).
    later_thread_writes: Vec<Vec<(action::Loc, i64)>>,
    /// `Limits::parts`.
    parts: bool,
    /// For each thread index, how many parts ending there were searched and
    /// how many of them cut (`part_can_complete`).
    part_cuts: Vec<(u32, u32)>,
    steps: u64,
    steps_given: u64,
    max_states: usize,
    deadline: Option<(std::time::Instant, f64)>,
    cancel: Option<&'static std::sync::atomic::AtomicBool>,
    /// `Limits::one_core`: `flush` decides on the calling thread.
    one_core: bool,
    visit: Option<&'v mut Visit<'v>>,
    /// Condition-directed search: the goal, and the first state meeting it.
    goal: Option<Goal<'a>>,
    found: Option<State>,
    /// With symmetry: each orbit's canonical member (its values, registers
    /// then memory) and its count, and the names of a state (`finish`).
    canon: BTreeMap<Packed, usize>,
    shape: Option<State>,
    /// Complete combinations waiting to be decided together (`flush`).
    batch: Vec<Vec<usize>>,
}

/// The fewest complete combinations extending a choice of the first
/// threads for `Product::part_can_complete` to search that part: below it,
/// deciding them costs about what the part's search does.
const PART_MIN_COMBINATIONS: usize = 8;

/// How many parts of one level `Product::part_can_complete` searches before
/// it judges whether that level's searches pay: it goes on only while at
/// least one part in `PART_MIN_CUT_RATIO` was cut. Which parts are searched
/// changes the work, never the outcome (each search only cuts what has no
/// candidate). SB rings and IRIW, whose parts all complete, cost 10 to 40 %
/// more when every part was searched.
const PART_TRIAL: u32 = 64;
const PART_MIN_CUT_RATIO: u32 = 8;

/// How many complete combinations `Product::flush` decides at once.
const BATCH: usize = 64;

/// Fewer combinations than this `Product::flush` decides on its own thread.
const PAR_MIN: usize = 8;

impl Product<'_, '_> {
    /// `writes`: what the threads chosen so far write.
    fn run(
        &mut self,
        sem: &mut Sem,
        p: &Program,
        i: usize,
        choice: &mut Vec<usize>,
        prefix: &[u64],
        out: &mut Outcomes,
    ) -> Result<(), Limit> {
        if let Some(why) = interrupted(self.deadline, self.cancel) {
            out.limit = Some(why);
            return Ok(());
        }
        if i == self.threads.len() {
            if !self.batched() {
                return self.leaf(sem, p, choice, out);
            }
            self.batch.push(choice.clone());
            if self.batch.len() >= BATCH {
                self.flush(sem, out);
            }
            return Ok(());
        }
        // A class's choices are non-decreasing: one arrangement per multiset.
        let from = self.classes.previous(i).map_or(0, |j| choice[j]);
        let pairs = self.pairs;
        let level = pairs.level(i, prefix);
        let mut next = Masks::new();
        for k in pairs.candidates(&level, i, from) {
            choice[i] = k;
            if pairs.sourced(&level, i, k)
                && self.promising(i, choice)
                && self.part_can_complete(i, choice, out)
            {
                pairs.add(i, k, prefix, &mut next);
                self.run(sem, p, i + 1, choice, &next, out)?;
            }
            if out.limit.is_some() || self.found.is_some() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether threads 0..=i, as chosen, can be part of a candidate: false
    /// only when the skeleton of the initial writes and those threads has
    /// no candidate in which each read that no later thread can fulfil
    /// (no variant of threads i+1.. writes its location and value) has a
    /// source. Asked only when at least `PART_MIN_COMBINATIONS` complete
    /// combinations extend the choice.
    ///
    /// Why false is certain: take a candidate of a complete combination
    /// extending the choice, and keep its events of the initial writes and
    /// threads 0..=i, with the rf pairs among them. A read whose source was
    /// in a later thread loses its source, and only such reads do, so the
    /// reads that must have one still have it. Every edge and disjunctive
    /// rule of the part's skeleton with that rf is one of the whole's
    /// (the fixed edges are within a thread or from the initial writes; c6,
    /// c8a, c7b and c8b are asked of fewer pairs), every rule of the
    /// fixpoint only adds edges, and §10 relabels a read only for a source
    /// in its own thread, which is kept. So the whole candidate's orders,
    /// restricted to the part, contain the part's least orders under the
    /// same disjuncts: acyclic, with no forbidden ⊑ edge. A limit reached
    /// in this search answers true (nothing is cut), and its steps count
    /// against `--max-steps`.
    fn part_can_complete(&mut self, i: usize, choice: &[usize], out: &mut Outcomes) -> bool {
        let combinations = self.threads[i + 1..]
            .iter()
            .fold(1usize, |n, t| n.saturating_mul(t.len()));
        if !self.parts || i + 1 == self.threads.len() || combinations < PART_MIN_COMBINATIONS {
            return true;
        }
        // A level whose parts have rarely been cut is asked no more: where
        // every part completes (SB rings, IRIW) the searches only cost.
        let (asked, cut) = self.part_cuts[i];
        if asked >= PART_TRIAL && cut.saturating_mul(PART_MIN_CUT_RATIO) < asked {
            return true;
        }
        let parts = chosen(self.threads, &choice[..=i]);
        let (sk, _) = skeleton(self.init, &parts);
        let later = &self.later_thread_writes[i + 1];
        let optional = (0..sk.len())
            .filter(|&e| {
                let l = &sk.labels[e];
                l.kind == Kind::Read && later.binary_search(&(l.loc, l.value)).is_ok()
            })
            .fold(0u64, |m, e| m | 1 << e);
        let budget = self.steps.min(1_000_000);
        let mut search = Search::new(&sk, self.model, self.groups, budget);
        let (deadline, cancel) = (self.deadline, self.cancel);
        let stop = || interrupted(deadline, cancel).is_some();
        let found = some_candidate(&mut search, optional, &stop);
        self.spend(budget - search.budget, out);
        let cuts = found == Some(false);
        self.part_cuts[i] = (asked + 1, cut + u32::from(cuts));
        !cuts
    }

    /// Pruning 2 of `goal.rs`: whether the goal can still be met given the
    /// final registers of threads 0..=i (the rest free).
    fn promising(&self, i: usize, choice: &[usize]) -> bool {
        let Some(goal) = self.goal else {
            return true;
        };
        let p = self.groups.p;
        let chosen = |name: &str| {
            (0..=i).find_map(|t| {
                self.threads[t][choice[t]]
                    .regs
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| *v)
            })
        };
        let lookup = |t: &Term| match t {
            Term::Reg(r) => {
                let info = &p.regs[*r as usize];
                let name = format!("{}:{}", p.thread_name(info.thread), info.name);
                chosen(&name).map_or(goal::Known::Free, goal::Known::Value)
            }
            _ => goal::Known::Free,
        };
        goal.reachable(&lookup)
    }

    fn leaf(
        &mut self,
        sem: &mut Sem,
        p: &Program,
        choice: &[usize],
        out: &mut Outcomes,
    ) -> Result<(), Limit> {
        let parts = chosen(self.threads, choice);
        if let Some(reads) = self.observer.clone() {
            return self.observed(sem, p, &parts, &reads, out);
        }
        let (sk, _) = skeleton(self.init, &parts);
        let Some(found) = self.search(&sk, out) else {
            return Ok(());
        };
        let regs: Vec<(String, Option<i64>)> =
            parts.iter().flat_map(|c| c.regs.iter().cloned()).collect();
        let times = self.classes.arrangements(choice);
        for w in found {
            if out.limit.is_some() || self.found.is_some() {
                break;
            }
            for mem in final_memory(sem, p, self.model, self.groups, &sk, &w) {
                self.record(
                    sem,
                    &sk,
                    &w,
                    State {
                        regs: regs.clone(),
                        mem,
                    },
                    times,
                    out,
                );
            }
        }
        Ok(())
    }
}

impl Product<'_, '_> {
    /// With symmetry, hands the orbits over: as they are when the caller
    /// takes orbits (`Limits::orbits`), else each replaced by its members.
    /// An orbit's count so far is its total (each pomset counted once per
    /// arrangement of its combination, `record`), and by symmetry every
    /// member has the same count: total / orbit size (`Orbits::each_values`).
    fn finish(&mut self, out: &mut Outcomes, keep_orbits: bool) {
        let Some(shape) = self.shape.take() else {
            return;
        };
        let orbits = Orbits::new(
            shape,
            self.classes.clone(),
            self.blocks.clone(),
            std::mem::take(&mut self.canon),
            (self.deadline, self.cancel),
        );
        if keep_orbits {
            out.orbits = Some(orbits);
            return;
        }
        for (values, total, size) in orbits.each_orbit() {
            if out.states.len().saturating_add(size) > self.max_states {
                if out.limit.is_none() {
                    out.limit = Some(format!("--max-states {} (final states)", self.max_states));
                }
                return;
            }
            let each = (total / size.max(1)).max(1);
            orbits.members(&values, &mut |member| {
                *out.states.entry(orbits.state(member)).or_insert(0) += each;
            });
            // The limits hold here too: expanding can be most of the work.
            if out.limit.is_none() {
                out.limit =
                    interrupted(self.deadline, self.cancel).or_else(crate::memory::over_budget);
            }
            if out.limit.is_some() {
                return;
            }
        }
    }

    /// The candidates with total rf (c2b) under the step budget; `None`, with
    /// the limit recorded, when the budget runs out.
    fn search(&mut self, sk: &Skeleton, out: &mut Outcomes) -> Option<Vec<Witness>> {
        let budget = self.steps.min(1_000_000);
        let searched = self.leaves().candidates(sk, budget);
        self.account(searched, out)
    }

    /// Takes `used` steps from the budget, naming `--max-steps` once it is
    /// spent.
    fn spend(&mut self, used: u64, out: &mut Outcomes) {
        self.steps = self.steps.saturating_sub(used);
        if self.steps == 0 {
            out.limit = Some(format!("--max-steps {}", self.steps_given));
        }
    }

    /// What `search` does with a search's result: the step budget spent,
    /// and the limit named when the search was cut short.
    fn account(
        &mut self,
        (found, used, capped): Searched,
        out: &mut Outcomes,
    ) -> Option<Vec<Witness>> {
        let (deadline, cancel, cap) = (self.deadline, self.cancel, self.max_states);
        self.spend(used.max(1), out);
        match found {
            Ok(w) => Some(w),
            Err(_) if interrupted(deadline, cancel).is_some() => {
                out.limit = interrupted(deadline, cancel);
                None
            }
            Err(_) if capped => {
                out.limit = Some(format!(
                    "--max-states {cap} (complete pomsets of one rf search)"
                ));
                None
            }
            Err(_) => {
                out.limit = Some(format!("--max-steps {} (the rf search)", self.steps_given));
                None
            }
        }
    }

    /// Whether complete combinations are decided in batches (`flush`): not
    /// with an observer (it needs `&mut Sem`), a visitor or a goal (they see
    /// each pomset as it is found).
    fn batched(&self) -> bool {
        self.observer.is_none() && self.visit.is_none() && self.goal.is_none()
    }

    /// What deciding one combination needs, shared by the threads of `flush`.
    fn leaves(&self) -> Leaves<'_> {
        Leaves {
            model: self.model,
            groups: self.groups,
            init: self.init,
            threads: self.threads,
            deadline: self.deadline,
            cancel: self.cancel,
            cap: self.max_states,
        }
    }

    /// Decides the waiting combinations, in parallel across cores, then
    /// records their states one after another in the order they were found,
    /// exactly as `leaf` would have: the rf searches and final memories are
    /// pure, and the step budget is spent in order (a combination whose
    /// search used more than was left then is where the budget ran out, as
    /// it would have been one at a time). So the outcomes, counts and the
    /// limit named are those of the sequential search.
    fn flush(&mut self, sem: &Sem, out: &mut Outcomes) {
        use rayon::prelude::*;
        let batch = std::mem::take(&mut self.batch);
        if batch.is_empty() || out.limit.is_some() || self.steps == 0 {
            return;
        }
        let budget = self.steps.min(1_000_000);
        let leaves = self.leaves();
        let (p, labelled) = (self.groups.p, labelled(sem));
        let decide = |choice: &Vec<usize>| leaves.decide(&labelled, p, choice, budget);
        // A handful is decided here: handing it to the pool costs more
        // than it saves (a sweep's programs mostly have a few combinations),
        // and so does any batch of a caller on one core (`Limits::one_core`).
        let decided: Vec<Decided> = match self.one_core || batch.len() < PAR_MIN {
            true => batch.iter().map(decide).collect(),
            false => batch.par_iter().map(decide).collect(),
        };
        for (choice, (searched, memories)) in batch.iter().zip(decided) {
            if out.limit.is_some() {
                return;
            }
            let spent = searched.1.max(1);
            if spent > self.steps {
                // One at a time, this search would have had only what was left.
                self.steps = 0;
                out.limit = Some(format!("--max-steps {} (the rf search)", self.steps_given));
                return;
            }
            let Some(found) = self.account(searched, out) else {
                return;
            };
            let parts = chosen(self.threads, choice);
            let times = self.classes.arrangements(choice);
            let named_states = self.classes.is_empty() && !self.values_only;
            let regs: Vec<(String, Option<i64>)> = match named_states || self.shape.is_none() {
                true => parts.iter().flat_map(|c| c.regs.iter().cloned()).collect(),
                false => Vec::new(),
            };
            let reg_values = parts.iter().flat_map(|c| c.regs.iter().map(|(_, v)| *v));
            let reg_values: Vec<Option<i64>> = reg_values.collect();
            for mems in memories.into_iter().take(found.len()) {
                if out.limit.is_some() {
                    break;
                }
                for mem in mems {
                    if named_states {
                        let state = State {
                            regs: regs.clone(),
                            mem: named(p, mem),
                        };
                        self.count(state, times, out);
                        continue;
                    }
                    // Values only (`count`): the names are the same in every
                    // state, so they are built once, for the shape.
                    if self.shape.is_none() {
                        self.shape = Some(State {
                            regs: regs.clone(),
                            mem: named(p, mem.clone()),
                        });
                    }
                    let mut values = Vec::with_capacity(reg_values.len() + mem.len());
                    values.extend_from_slice(&reg_values);
                    values.extend(mem);
                    self.count_values(values, times, out);
                }
            }
        }
    }

    /// Counts one complete pomset's final state, and shows it to the visitor.
    /// With symmetry, the pomset stands for `times` arrangements, and its
    /// state is kept as its orbit's canonical member (`finish` undoes both).
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        sem: &Sem,
        sk: &Skeleton,
        w: &Witness,
        state: State,
        times: u64,
        out: &mut Outcomes,
    ) {
        if self.classes.is_empty() {
            // Symmetry has no visitor and no goal (`run`).
            if let Some(visit) = self.visit.as_mut() {
                visit(sem, sk, w, &state);
            }
            if let Some(goal) = self.goal {
                if goal.met_by(self.groups.p, &state) {
                    self.found = Some(state.clone());
                }
            }
        }
        self.count(state, times, out);
    }

    /// Counts a final state `times` over: as its orbit's canonical member,
    /// values only, with symmetry or `values_only`; else as it is.
    fn count(&mut self, state: State, times: u64, out: &mut Outcomes) {
        if !self.classes.is_empty() || self.values_only {
            // Registers first, as `blocks` counts them; the names are the
            // same in every state, so one is kept as the shape.
            let values: Vec<Option<i64>> = state
                .regs
                .iter()
                .chain(&state.mem)
                .map(|(_, v)| *v)
                .collect();
            self.shape.get_or_insert(state);
            return self.count_values(values, times, out);
        }
        if !out.states.contains_key(&state) && out.states.len() >= self.max_states {
            return self.full(out);
        }
        let times = usize::try_from(times).unwrap_or(usize::MAX);
        out.witnesses += times;
        *out.states.entry(state).or_insert(0) += times;
        self.kept(out);
    }

    /// `count` of a state given by its values (registers, then memory),
    /// kept as its orbit's canonical member; the caller has set the shape.
    fn count_values(&mut self, mut values: Vec<Option<i64>>, times: u64, out: &mut Outcomes) {
        let times = usize::try_from(times).unwrap_or(usize::MAX);
        self.classes.canonical_values(&mut values, &self.blocks);
        let packed = Packed::new(&values);
        if !self.canon.contains_key(&packed) && self.canon.len() >= self.max_states {
            return self.full(out);
        }
        out.witnesses += times;
        *self.canon.entry(packed).or_insert(0) += times;
        self.kept(out);
    }

    /// A new state (or orbit) found with `--max-states` already kept: it is
    /// not kept, so the report never lists more states than the limit.
    fn full(&mut self, out: &mut Outcomes) {
        if out.limit.is_none() {
            out.limit = Some(format!("--max-states {} (final states)", self.max_states));
        }
    }

    /// The limits after a state is counted.
    fn kept(&mut self, out: &mut Outcomes) {
        if out.limit.is_none() {
            out.limit = crate::memory::over_budget();
        }
    }

    /// `final = observer` (A19): SEQ(SEQ(INIT, PAR(threads)), OBS), where OBS
    /// reads every location once. An observer read's κ is Q_x after the
    /// prefix and PAR's transformer, the last thread's (P4); it may be
    /// dropped (rlx, R5a), leaving that location undetermined.
    fn observed(
        &mut self,
        sem: &mut Sem,
        p: &Program,
        parts: &[&Completed],
        reads: &[Ev],
        out: &mut Outcomes,
    ) -> Result<(), Limit> {
        let last = parts.last().map(|c| (c.frag.clone(), c.frag.tau));
        let mut written: Vec<(action::Loc, i64)> = writes_of(self.init).collect();
        for c in parts {
            written.extend(writes_of(&c.frag.events));
        }
        let mut options: Vec<Vec<Option<Ev>>> = Vec::new();
        for r in reads {
            let mut opts = vec![None];
            let present = match &last {
                Some((frag, tau)) => {
                    let addr = sem
                        .dense
                        .iter()
                        .find(|(_, d)| **d == r.label.loc)
                        .map(|(a, _)| *a);
                    let q = addr.map_or(sem.l.ff(), |a| sem.l.quiescent(a));
                    let after = sem.trees.apply(&mut sem.l, *tau, u64::MAX, q);
                    let kappa = finish(sem, frag, self.init_tau, after);
                    sem.l.tautology(kappa)
                }
                None => false,
            };
            if present {
                for &v in &p.values {
                    if written.contains(&(r.label.loc, v)) {
                        let mut e = r.clone();
                        e.label.value = v;
                        opts.push(Some(e));
                    }
                }
            }
            options.push(opts);
        }
        let regs: Vec<(String, Option<i64>)> =
            parts.iter().flat_map(|c| c.regs.iter().cloned()).collect();
        let mut pick = vec![0usize; options.len()];
        loop {
            let chosen: Vec<Ev> = pick
                .iter()
                .zip(&options)
                .filter_map(|(&k, o)| o[k].clone())
                .collect();
            let (sk, _) = skeleton_then(self.init, parts, &chosen);
            let Some(found) = self.search(&sk, out) else {
                return Ok(());
            };
            let mem: Vec<(String, Option<i64>)> = pick
                .iter()
                .zip(&options)
                .zip(reads)
                .map(|((&k, o), r)| {
                    let name = sem
                        .dense_names
                        .get(r.label.loc as usize)
                        .cloned()
                        .unwrap_or_default();
                    (name, o[k].as_ref().map(|e| e.label.value))
                })
                .collect();
            for w in found {
                let state = State {
                    regs: regs.clone(),
                    mem: mem.clone(),
                };
                self.record(sem, &sk, &w, state, 1, out);
            }
            if self.found.is_some() {
                return Ok(());
            }
            if !next_choice(&mut pick, |i| options[i].len()) {
                return Ok(());
            }
        }
    }
}

/// Advances `pick` to the next choice, odometer style, where position i
/// ranges over `0..size(i)`; false once every choice has been made.
pub(super) fn next_choice(pick: &mut [usize], size: impl Fn(usize) -> usize) -> bool {
    for (i, k) in pick.iter_mut().enumerate() {
        *k += 1;
        if *k < size(i) {
            return true;
        }
        *k = 0;
    }
    false
}

/// The observer's reads, one per named location (values chosen later).
fn observer_reads(sem: &mut Sem, p: &Program, thread: ThreadId) -> Result<Vec<Ev>, Limit> {
    let mut out = Vec::new();
    for i in 0..p.locs.len() {
        let id = sem.new_event()?;
        let loc = sem.dense_loc(sem.loc_addr[i]);
        let tt = sem.l.tt();
        let kappa = sem.trees.kappa(KappaNode::Base(tt));
        out.push(Ev {
            id,
            label: Action::read(thread, Mode::Rlx, Scope::Sys, loc, 0),
            kappa,
        });
    }
    Ok(out)
}

/// The skeleton with `after` sequenced after every other event.
fn skeleton_then(init: &[Ev], parts: &[&Completed], after: &[Ev]) -> (Skeleton, Vec<u32>) {
    let (base, mut ids) = skeleton(init, parts);
    let n = base.len();
    let mut labels = base.labels.clone();
    labels.extend(after.iter().map(|e| e.label));
    let mut sk = Skeleton::new(labels);
    for (a, b) in base.po.edges() {
        sk.po.add(a, b);
    }
    sk.seq_labels = base.seq_labels.clone();
    for (a, b) in base.dep.edges() {
        sk.dep.add(a, b);
    }
    sk.rmw = base.rmw.clone();
    for k in 0..after.len() {
        for a in 0..n + k {
            sk.po.add(a, n + k);
        }
    }
    ids.extend(after.iter().map(|e| e.id));
    (sk, ids)
}

/// Each event id's position in a skeleton, read like a map.
struct Positions([usize; 64]);

impl Positions {
    fn get(&self, id: &u32) -> Option<&Event> {
        self.0.get(*id as usize).filter(|&&k| k != usize::MAX)
    }
}

/// The whole pomset's skeleton; `ids[k]` is the event id of position k.
pub(super) fn skeleton(init: &[Ev], parts: &[&Completed]) -> (Skeleton, Vec<u32>) {
    let mut ids: Vec<u32> = init.iter().map(|e| e.id).collect();
    let mut labels: Vec<Action> = init.iter().map(|e| e.label).collect();
    for c in parts {
        for e in &c.frag.events {
            ids.push(e.id);
            labels.push(e.label);
        }
    }
    // Event ids are below 64 (`Sem::new_event`): each id's position, by
    // index; a later position of the same id wins, as in a map collected.
    let mut at = [usize::MAX; 64];
    for (k, &id) in ids.iter().enumerate() {
        if let Some(slot) = at.get_mut(id as usize) {
            *slot = k;
        }
    }
    let pos = Positions(at);
    let mut sk = Skeleton::new(labels);
    for a in 0..init.len() {
        for b in a + 1..sk.len() {
            sk.po.add(a, b);
        }
    }
    for c in parts {
        for &(x, y) in &c.frag.po {
            if let (Some(&a), Some(&b)) = (pos.get(&x), pos.get(&y)) {
                sk.po.add(a, b);
            }
        }
        for &(x, y, lx, ly) in &c.frag.seq_labels {
            if let (Some(&a), Some(&b)) = (pos.get(&x), pos.get(&y)) {
                sk.seq_labels.push((a, b, lx, ly));
            }
        }
        for &(e, deps) in &c.deps {
            let Some(&b) = pos.get(&e) else { continue };
            for d in (0..64).filter(|d| deps >> d & 1 == 1) {
                if let Some(&a) = pos.get(&d) {
                    sk.dep.add(a, b);
                }
            }
        }
        for &(x, y) in &c.frag.rmw {
            if let (Some(&a), Some(&b)) = (pos.get(&x), pos.get(&y)) {
                sk.rmw.push((a, b));
            }
        }
    }
    (sk, ids)
}

/// The registers of top-level thread `k` (and of threads it forks), read
/// off each one's own transformer under θ_λ of the thread's reads.
pub(super) fn final_registers(
    sem: &mut Sem,
    p: &Program,
    init: Tau,
    k: usize,
    c: &Completed,
) -> Vec<(String, Option<i64>)> {
    let reads: Vec<(u32, i64)> = c
        .frag
        .events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .map(|e| (e.id, e.label.value))
        .collect();
    // θ_λ, asked for only where running forward cannot tell.
    let mut theta = None;
    // θ_λ as an assignment, to evaluate the terms a probe proposes.
    let env = reads
        .iter()
        .fold(Assignment::new(), |a, &(e, v)| a.with(Var::Read(e), v));
    // Fallback proposals: V and the integers the conditions mention.
    let mut fallback: Vec<i64> = p.values.clone();
    for cond in &p.conditions {
        collect_ints(&cond.prop, &mut fallback);
    }
    fallback.sort_unstable();
    fallback.dedup();
    let mut taus: Vec<(ThreadId, Tau)> = vec![(p.main[k].0, c.frag.tau)];
    taus.extend(c.frag.forks.iter().copied());
    let mut out = Vec::new();
    for (thread, tau) in taus {
        let mut known = crate::logic::FxMap::default();
        let read = |e: u32| read_by(&c.frag, e);
        let ran = sem.trees.forward(&sem.l, tau, &read, &mut known).is_some();
        for r in sem.regs_of(thread) {
            let info = &p.regs[r as usize];
            if info.fresh {
                continue;
            }
            let name = format!("{}:{}", p.thread_name(thread), info.name);
            let value = match read_value(sem, p, c, r) {
                Some(v) => v,
                None => match known.get(&r).filter(|_| ran) {
                    Some(&v) => Some(v),
                    None => {
                        let theta = *theta.get_or_insert_with(|| sem.l.theta(&reads));
                        register_value(sem, c, init, tau, r, theta, &env, &fallback)
                    }
                },
            };
            out.push((name, value));
        }
    }
    out
}

/// The value read event `e` has under θ_λ after the renaming of coalesced
/// reads (`Frag::renaming`): its own, that of the read it was coalesced
/// into, or that of the write it was merged into. `None` (the logic then
/// decides) where the renaming would leave a symbol θ_λ does not fix: a
/// read coalesced into one that was merged away.
fn read_by(f: &Frag, e: u32) -> Option<i64> {
    let merged = |id: u32| f.merged.iter().find(|(b, _)| *b == id).map(|&(_, v)| v);
    if let Some(v) = merged(e) {
        return Some(v);
    }
    let root = f.alias_root(e);
    if root != e && merged(root).is_some() {
        return None;
    }
    f.events
        .iter()
        .find(|x| x.id == root && x.label.kind == Kind::Read)
        .map(|x| x.label.value)
}

/// The final value of a register that a single READ outside every IF
/// assigns (`Sem::read_once`), without a query: the read's value, read off
/// its event (or off the write it was merged into, §2); `?` when the read
/// was dropped, since R4c leaves r as the symbol s_e of an event that θ_λ
/// does not mention, which no value is entailed for once |V| ≥ 2. `None`
/// when the register is not such a register (the general computation,
/// `register_value`, then decides).
fn read_value(sem: &Sem, p: &Program, c: &Completed, r: core::RegId) -> Option<Option<i64>> {
    let stmt_id = *sem.read_once.get(&r)?;
    let id = c.frag.alias_root(stmt_id);
    if let Some(&(_, v)) = c.frag.merged.iter().find(|(b, _)| *b == id) {
        return Some(Some(v));
    }
    if let Some(e) = c.frag.events.iter().find(|e| e.id == id) {
        return (e.label.kind == Kind::Read).then_some(Some(e.label.value));
    }
    let mentioned = c
        .frag
        .alias
        .iter()
        .any(|&(b, a)| b == stmt_id || a == stmt_id);
    (p.values.len() >= 2 && !mentioned).then_some(None)
}

/// A register never assigned by the program stands in for "the value r has",
/// so that `τ(r = p)` says which values r can end with.
const PROBE: Var = Var::Reg(u32::MAX);

/// r's final value: the v with θ_λ ⊨ τ_prefix(τ(r = v)), if there is one.
/// Register arithmetic is exact, so v may lie outside V (`r := 10` with
/// V = {0, 1}); the terms that τ(r = p) compares with a probe p propose the
/// candidates, and the entailment, which is the definition, decides each.
#[allow(clippy::too_many_arguments)]
fn register_value(
    sem: &mut Sem,
    c: &Completed,
    init: Tau,
    tau: Tau,
    r: core::RegId,
    theta: FormulaId,
    env: &Assignment,
    fallback: &[i64],
) -> Option<i64> {
    let (rv, probe) = (sem.l.reg(r), sem.l.var(PROBE));
    let atom = sem.l.eq(rv, probe);
    let after = sem.trees.apply(&mut sem.l, tau, u64::MAX, atom);
    let after = finish(sem, &c.frag, init, after);
    let proposed = sem.l.probe_values(after, PROBE, env);
    let rest = fallback.iter().filter(|v| !proposed.contains(v));
    for v in proposed.iter().chain(rest).copied().collect::<Vec<_>>() {
        let vt = sem.l.value(v);
        let at_v = sem.l.subst_var(after, PROBE, vt);
        if sem.l.entails(theta, at_v) {
            return Some(v);
        }
    }
    None
}

fn collect_ints(p: &core::Prop, out: &mut Vec<i64>) {
    match p {
        core::Prop::Cmp(a, _, b) => {
            for t in [a, b] {
                if let Term::Int(v) = t {
                    out.push(*v);
                }
            }
        }
        core::Prop::Not(a) => collect_ints(a, out),
        core::Prop::And(a, b) | core::Prop::Or(a, b) => {
            collect_ints(a, out);
            collect_ints(b, out);
        }
        core::Prop::True | core::Prop::False => {}
    }
}

/// `final = loc_max`: `[x]` is the value of x's ⊑-maximum write.
///
/// A pomset's orders may be any extension the rules allow (P6-P8 are ⊇), and
/// which write ends last depends on choices the candidate search makes once
/// (c8b's disjuncts), so the one witness found for an rf says little. For a
/// fixed rf, a *choice* picks for each location one write or none (⊥); it
/// is feasible when some valid orders put every picked write ⊑-above the
/// other writes to its location (asked of the search with those edges
/// added). The final memories are the maximal feasible choices, ⊥ read as
/// undetermined (`?`). The choice of ⊥ everywhere is the rf's own witness,
/// so a candidate always yields at least one state.
pub(super) fn final_memory(
    sem: &Sem,
    p: &Program,
    model: &Model,
    groups: &ThreadGroups,
    sk: &Skeleton,
    w: &Witness,
) -> Vec<Vec<(String, Option<i64>)>> {
    let mut search = Search::new(sk, model, groups, u64::MAX);
    final_memory_at(&labelled(sem), p, &mut search, w)
        .into_iter()
        .map(|values| named(p, values))
        .collect()
}

/// A final memory's values (in the order of `Program::locs`) with the
/// locations' names.
fn named(p: &Program, values: Vec<Option<i64>>) -> Vec<(String, Option<i64>)> {
    p.locs
        .iter()
        .zip(values)
        .map(|(info, v)| (info.name.clone(), v))
        .collect()
}

/// Each named location's id in labels, if any event accesses it.
pub(super) fn labelled(sem: &Sem) -> Vec<Option<action::Loc>> {
    sem.loc_addr
        .iter()
        .map(|a| sem.dense.get(a).copied())
        .collect()
}

/// `final_memory`, with each location's id in labels (`labelled`), as
/// values in the order of `Program::locs`: every memory names the same
/// locations in that order, so the values sort as the named pairs did.
/// `search` is one over the witness's skeleton (any budget: its steps are
/// not counted here).
fn final_memory_at(
    labelled: &[Option<action::Loc>],
    p: &Program,
    search: &mut Search,
    w: &Witness,
) -> Vec<Vec<Option<i64>>> {
    let writes = settled_writes(labelled, p, search, w);
    let sk = search.skeleton();
    let mut feasible: Vec<Vec<Option<Event>>> = Vec::new();
    let mut pick = Vec::with_capacity(writes.len());
    let mut last = |pick: &[Option<Event>]| {
        let extra: Vec<Edge> = pick
            .iter()
            .zip(&writes)
            .filter_map(|(w, all)| w.map(|w| (w, all)))
            .flat_map(|(w, all)| {
                all.iter()
                    .filter(move |&&o| o != w)
                    .map(move |&o| (OrderKind::Loc, o, w, Reason::CoDelays))
            })
            .collect();
        search.decide_with(&w.rf, &extra).is_ok()
    };
    last_writes(&writes, &mut pick, &mut last, &mut feasible);
    let maximal = feasible.iter().filter(|c| {
        !feasible
            .iter()
            .any(|d| d != *c && c.iter().zip(d).all(|(a, b)| a.is_none() || a == b))
    });
    let mut states: Vec<Vec<Option<i64>>> = maximal
        .map(|c| c.iter().map(|w| w.map(|w| sk.labels[w].value)).collect())
        .collect();
    states.sort();
    states.dedup();
    states
}

/// Each named location's writes (in the order of `Program::locs`) that may
/// be its last: those below no other write to it in the orders every
/// candidate with this rf contains. A single one is the maximum in each
/// candidate, so that location's value is settled, with no search and no
/// ⊥. `search` is one over the witness's skeleton.
pub(super) fn settled_writes(
    labelled: &[Option<action::Loc>],
    p: &Program,
    search: &mut Search,
    w: &Witness,
) -> Vec<Vec<Event>> {
    let sk = search.skeleton();
    let writes = p
        .locs
        .iter()
        .enumerate()
        .map(|(i, _)| match labelled.get(i).copied().flatten() {
            Some(loc) => (0..sk.len())
                .filter(|&k| sk.labels[k].kind == Kind::Write && sk.labels[k].loc == loc)
                .collect(),
            None => vec![],
        });
    // The witness's orders are these when no disjunct was chosen for it.
    let least = match w.least {
        true => Ok(w.orders.clone()),
        false => search.mandatory(&w.rf),
    };
    match least {
        // A write below another of its location in these orders is last
        // in no candidate (putting every other write below it would close
        // a cycle), so only the others are tried. When one is left, it is
        // above every other write in the closure of these orders (each
        // write of an acyclic order is below a maximal one, and it is the
        // only one), so it is last in every candidate.
        Ok(least) => writes
            .map(|all: Vec<Event>| {
                let maximal: Vec<Event> = all
                    .iter()
                    .copied()
                    .filter(|&m| !all.iter().any(|&o| o != m && least.loc.has(m, o)))
                    .collect();
                match maximal.is_empty() {
                    true => all,
                    false => maximal,
                }
            })
            .collect(),
        Err(_) => writes.collect(),
    }
}

/// Every feasible choice of a last write (or ⊥) per location, depth first.
/// Feasibility is downward closed (dropping a pick drops constraints), so a
/// branch whose partial choice is infeasible is cut; ⊥ never needs a check.
fn last_writes(
    writes: &[Vec<Event>],
    pick: &mut Vec<Option<Event>>,
    feasible_with: &mut dyn FnMut(&[Option<Event>]) -> bool,
    out: &mut Vec<Vec<Option<Event>>>,
) {
    let Some(here) = writes.get(pick.len()) else {
        out.push(pick.clone());
        return;
    };
    if let [only] = here.as_slice() {
        // One write adds no edge, and a choice of ⊥ here is never maximal.
        pick.push(Some(*only));
        last_writes(writes, pick, feasible_with, out);
        pick.pop();
        return;
    }
    for &w in here {
        pick.push(Some(w));
        if feasible_with(pick) {
            last_writes(writes, pick, feasible_with, out);
        }
        pick.pop();
    }
    pick.push(None);
    last_writes(writes, pick, feasible_with, out);
    pick.pop();
}

/// One sentence per write whose value may leave V (`Sem::outside_v`), when
/// the closure of V (`syntax::values`) found a store that may leave it:
/// otherwise no complete pomset needs a value outside V (issue 27 §1).
pub(super) fn outside_v_notes(sem: &Sem, p: &Program) -> Vec<String> {
    if p.values_left.is_empty() {
        return Vec::new();
    }
    let shown: Vec<String> = p.values.iter().map(i64::to_string).collect();
    sem.outside_v
        .iter()
        .map(|(t, place)| {
            format!(
                "{} may write a value outside V = {{{}}} to {place}; executions where it does are not represented (widen `values`)",
                p.thread_name(*t),
                shown.join(", ")
            )
        })
        .collect()
}
