//! The axiomatic engine: candidate executions of a core program, herd7's
//! way, judged by a cat model (`crate::cat`). It shares the front end and the
//! result types (`Outcomes`, `State`) with the pomset semantics and nothing
//! else, so the two engines answer the same question independently.
//!
//! - `execution`: per-thread traces with concrete values, and executions.
//! - `relation`: sets and relations over at most 64 events, as bitsets.
//! - `picture`: executions as the plain `render::Picture` (`draw --model`).

pub mod execution;
pub mod explain;
pub mod lower;
pub mod picture;
pub mod relation;
mod search;

pub use lower::{Lowering, Mapping, VulkanReading};
pub use picture::pictures;
pub use search::schedule;

use std::collections::BTreeMap;

use execution::{Cells, Event, Execution, Kind, Stop, Trace, Traces};
use relation::{Rel, MAX_EVENTS};

use crate::cat;
use crate::outcome::orbit::{Classes, Orbits};
use crate::outcome::packed::Packed;
use crate::outcome::{Limits, Outcomes, State};
use crate::syntax::core::{Program, Reach, ThreadId};

/// What one enumeration of candidates saw.
#[derive(Clone, Debug, Default)]
pub struct Enumerated {
    /// Candidate executions visited.
    pub candidates: usize,
    /// Thread runs left out because a write or an address left V.
    pub dropped: usize,
    /// The limit that stopped the enumeration, if one did.
    pub limit: Option<String>,
    /// What the search found of the bound's cuts (the lazy search looks;
    /// the plain enumeration does not).
    pub bound: Reach,
}

/// Visits every candidate execution of `p` (each with the registers' final
/// values) until `visit` returns false or a limit stops it. `Err` when the
/// program has no meaning here (a register read before assignment).
pub fn candidates(
    p: &Program,
    limits: &Limits,
    visit: impl FnMut(&Execution, &[Option<i64>]) -> bool,
) -> Result<Enumerated, String> {
    candidates_where(p, limits, |_, _| true, visit)
}

/// `candidates` over the thread runs `keep` keeps (given each top-level
/// thread's index and a run): a caller that needs only some final states
/// (`explain`'s outcome) leaves out the runs that cannot end in one.
pub fn candidates_where(
    p: &Program,
    limits: &Limits,
    keep: impl Fn(usize, &Trace) -> bool,
    mut visit: impl FnMut(&Execution, &[Option<i64>]) -> bool,
) -> Result<Enumerated, String> {
    let cells = Cells::new(p);
    let mut gen = Traces::new(p, &cells, limits);
    let mut threads: Vec<Vec<Trace>> = Vec::new();
    let mut seen = Enumerated::default();
    for (tid, body) in &p.main {
        match gen.of_thread(*tid, body) {
            Ok(t) => threads.push(t),
            Err(Stop::Unsupported(why)) => return Err(why),
            Err(Stop::Limit(l)) => {
                seen.limit = Some(l);
                return Ok(seen);
            }
        }
    }
    seen.dropped = gen.dropped;
    for (k, runs) in threads.iter_mut().enumerate() {
        runs.retain(|t| keep(k, t));
    }
    prune_unwritable_reads(&cells, &mut threads);
    if threads.iter().any(Vec::is_empty) {
        return Ok(seen);
    }
    let mut pick = vec![0; threads.len()];
    let mut tried = 0usize;
    loop {
        tried += 1;
        // Combinations without an rf visit no candidate, so ask here too.
        if tried.is_multiple_of(256) {
            if let Some(l) = interrupted(limits) {
                seen.limit = Some(l);
                return Ok(seen);
            }
        }
        let chosen: Vec<&Trace> = pick.iter().zip(&threads).map(|(&i, t)| &t[i]).collect();
        if !combination(p, &cells, &chosen, limits, &mut seen, &mut visit) {
            return Ok(seen);
        }
        if !next_choice(&mut pick, |i| threads[i].len()) {
            return Ok(seen);
        }
    }
}

/// Drops traces with a read of a value that no write of any trace (nor the
/// initial write) gives its location: such a read has no rf, so no
/// candidate has that trace. Repeated until nothing changes, since dropping
/// a trace drops its writes.
fn prune_unwritable_reads(cells: &Cells, threads: &mut [Vec<Trace>]) {
    loop {
        let mut written: std::collections::HashSet<(usize, i64)> =
            cells.init.iter().copied().enumerate().collect();
        for t in threads.iter().flatten() {
            for e in &t.events {
                if e.kind == Kind::Write {
                    written.insert((e.cell, e.value));
                }
            }
        }
        let before: usize = threads.iter().map(Vec::len).sum();
        for traces in threads.iter_mut() {
            traces.retain(|t| {
                t.events
                    .iter()
                    .all(|e| e.kind != Kind::Read || written.contains(&(e.cell, e.value)))
            });
        }
        if threads.iter().map(Vec::len).sum::<usize>() == before {
            return;
        }
    }
}

/// Whether every read of the chosen traces has a write of its value to its
/// location among them (or the initial write): else no rf exists.
fn readable(cells: &Cells, chosen: &[&Trace]) -> bool {
    let writes = || {
        chosen
            .iter()
            .flat_map(|t| &t.events)
            .filter(|e| e.kind == Kind::Write)
    };
    chosen.iter().flat_map(|t| &t.events).all(|r| {
        r.kind != Kind::Read
            || cells.init.get(r.cell) == Some(&r.value)
            || writes().any(|w| w.cell == r.cell && w.value == r.value)
    })
}

/// Every rf and co for one choice of traces; false to stop altogether.
fn combination(
    p: &Program,
    cells: &Cells,
    chosen: &[&Trace],
    limits: &Limits,
    seen: &mut Enumerated,
    visit: &mut impl FnMut(&Execution, &[Option<i64>]) -> bool,
) -> bool {
    if !readable(cells, chosen) {
        return true;
    }
    let Some(base) = skeleton(p, cells, chosen) else {
        seen.limit = Some(format!("at most {MAX_EVENTS} events per execution"));
        return false;
    };
    let regs = merged_registers(chosen);
    let n = base.len();
    let ev = &base.events;
    // rf: each read from a write to its cell of its value.
    let reads: Vec<usize> = (0..n).filter(|&e| ev[e].kind == Kind::Read).collect();
    let sources: Vec<Vec<usize>> = reads
        .iter()
        .map(|&r| {
            (0..n)
                .filter(|&w| {
                    ev[w].kind == Kind::Write
                        && ev[w].cell == ev[r].cell
                        && ev[w].value == ev[r].value
                })
                .collect()
        })
        .collect();
    if sources.iter().any(Vec::is_empty) {
        return true;
    }
    // co: per cell, every order of its writes after the initial one.
    let mut orders: Vec<Vec<Vec<usize>>> = Vec::new();
    for cell in 0..cells.init.len() {
        let ws: Vec<usize> = (0..n)
            .filter(|&w| ev[w].kind == Kind::Write && ev[w].cell == cell && ev[w].thread.is_some())
            .collect();
        if ws.len() > 8 {
            seen.limit = Some("at most 8 writes per location".to_string());
            return false;
        }
        if !ws.is_empty() {
            orders.push(permutations(&ws));
        }
    }
    let init_of = |cell: usize| (0..n).find(|&w| ev[w].thread.is_none() && ev[w].cell == cell);
    let mut rf_pick = vec![0; reads.len()];
    loop {
        let mut rf = Rel::new(n);
        for (i, &r) in reads.iter().enumerate() {
            rf.add(sources[i][rf_pick[i]], r);
        }
        let mut co_pick = vec![0; orders.len()];
        loop {
            let mut co = Rel::new(n);
            for (k, &o) in co_pick.iter().enumerate() {
                let order = &orders[k][o];
                let first = ev[order[0]].cell;
                let chain: Vec<usize> = init_of(first)
                    .into_iter()
                    .chain(order.iter().copied())
                    .collect();
                for (i, &a) in chain.iter().enumerate() {
                    for &b in &chain[i + 1..] {
                        co.add(a, b);
                    }
                }
            }
            seen.candidates += 1;
            if seen.candidates > limits.max_steps as usize {
                seen.limit = Some(format!("--max-steps {}", limits.max_steps));
                return false;
            }
            if seen.candidates.is_multiple_of(256) {
                if let Some(l) = interrupted(limits) {
                    seen.limit = Some(l);
                    return false;
                }
            }
            let exec = Execution {
                rf: rf.clone(),
                co,
                ..base.clone()
            };
            if !visit(&exec, &regs) {
                return false;
            }
            if !next_choice(&mut co_pick, |k| orders[k].len()) {
                break;
            }
        }
        if !next_choice(&mut rf_pick, |i| sources[i].len()) {
            return true;
        }
    }
}

/// The events and the relations fixed by the traces alone: initial writes
/// (one per named location and per cell a trace touches) first.
fn skeleton(p: &Program, cells: &Cells, chosen: &[&Trace]) -> Option<Execution> {
    let mut touched = vec![false; cells.init.len()];
    for &c in &cells.named {
        touched[c] = true;
    }
    for t in chosen {
        for e in &t.events {
            if e.kind.is_access() {
                touched[e.cell] = true;
            }
        }
    }
    let mut events: Vec<Event> = (0..cells.init.len())
        .filter(|&c| touched[c])
        .map(|c| Event {
            thread: None,
            kind: Kind::Write,
            mode: None,
            scope: crate::syntax::ast::Scope::Sys,
            cell: c,
            value: cells.init[c],
            vk: Default::default(),
        })
        .collect();
    let total = events.len() + chosen.iter().map(|t| t.events.len()).sum::<usize>();
    if total > MAX_EVENTS {
        return None;
    }
    let mut x = Execution {
        events: Vec::new(),
        po: Rel::new(total),
        rf: Rel::new(total),
        co: Rel::new(total),
        rmw: Rel::new(total),
        addr: Rel::new(total),
        data: Rel::new(total),
        ctrl: Rel::new(total),
        same_cta: Rel::new(total),
        same_gpu: Rel::new(total),
        same_sg: Rel::new(total),
        syncbar: Rel::new(total),
    };
    for t in chosen {
        let at = events.len();
        events.extend(t.events.iter().copied());
        for (e, before) in t.po.iter().enumerate() {
            for b in relation::members(*before) {
                x.po.add(at + b, at + e);
            }
        }
        for (rel, pairs) in [
            (&mut x.addr, &t.addr),
            (&mut x.data, &t.data),
            (&mut x.ctrl, &t.ctrl),
            (&mut x.rmw, &t.rmw),
        ] {
            for &(a, b) in pairs {
                rel.add(at + a, at + b);
            }
        }
    }
    let group = |e: &Event| e.thread.and_then(|t| p.threads.get(t as usize));
    let groups: Vec<Option<&crate::syntax::core::ThreadInfo>> = events.iter().map(group).collect();
    let keyed = |key: fn(&crate::syntax::core::ThreadInfo) -> u32| {
        let keys: Vec<Option<u32>> = groups.iter().map(|g| g.map(key)).collect();
        Rel::same(&keys)
    };
    x.same_cta = keyed(|t| t.cta);
    x.same_gpu = keyed(|t| t.gpu);
    x.same_sg = keyed(|t| t.sg);
    x.syncbar = syncbar(&events, &x.po);
    x.events = events;
    Some(x)
}

/// A barrier's thread, id, and how many same-id barriers came before it.
type Instance = (Option<ThreadId>, i64, usize);

/// Control barriers that are one dynamic instance: the same barrier id,
/// reached the same number of times by their threads (the Vulkan spec's
/// "Control Barrier" instance; the model decides what scope they need).
fn syncbar(events: &[Event], po: &Rel) -> Rel {
    let n = events.len();
    let instance = |a: usize| {
        let e = &events[a];
        let earlier = (0..n)
            .filter(|&b| po.has(b, a) && events[b].kind == Kind::Barrier)
            .filter(|&b| events[b].value == e.value)
            .count();
        (e.thread, e.value, earlier)
    };
    let barriers: Vec<(usize, Instance)> = (0..n)
        .filter(|&a| events[a].kind == Kind::Barrier)
        .map(|a| (a, instance(a)))
        .collect();
    let mut r = Rel::new(n);
    for (a, (_, id, k)) in &barriers {
        for (b, (_, id2, k2)) in &barriers {
            if id == id2 && k == k2 {
                r.add(*a, *b);
            }
        }
    }
    r
}

/// The registers of all chosen traces (each assigns only its own threads').
fn merged_registers(chosen: &[&Trace]) -> Vec<Option<i64>> {
    let len = chosen.first().map_or(0, |t| t.regs.len());
    (0..len)
        .map(|r| chosen.iter().find_map(|t| t.regs[r]))
        .collect()
}

/// Every ordering of `items`.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Advances `pick` odometer style; false once every choice has been made.
fn next_choice(pick: &mut [usize], size: impl Fn(usize) -> usize) -> bool {
    for (i, k) in pick.iter_mut().enumerate() {
        *k += 1;
        if *k < size(i) {
            return true;
        }
        *k = 0;
    }
    false
}

/// The deadline, Ctrl-C, or the memory budget, if one has passed.
fn interrupted(limits: &Limits) -> Option<String> {
    if let Some((at, secs)) = limits.deadline {
        if std::time::Instant::now() > at {
            return Some(format!("--timeout {secs}"));
        }
    }
    if limits
        .cancel
        .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    {
        return Some("interrupted (Ctrl-C)".to_string());
    }
    crate::memory::over_budget()
}

/// A final state, as the other engines report it: registers as
/// `thread:reg` (fresh ones left out), memory as the co-last write to each
/// named location.
pub fn final_state(p: &Program, x: &Execution, regs: &[Option<i64>]) -> State {
    let cells = Cells::new(p);
    let mut out = Vec::new();
    for (tid, body) in &p.main {
        for t in crate::outcome::state::reported_threads(*tid, body) {
            for (r, info) in p.regs.iter().enumerate() {
                if info.thread != t || info.fresh {
                    continue;
                }
                let v = regs.get(r).copied().flatten();
                out.push((format!("{}:{}", p.thread_name(t), info.name), v));
            }
        }
    }
    let mem = p
        .locs
        .iter()
        .zip(&cells.named)
        .map(|(l, &cell)| (l.name.clone(), last_write(x, cell)))
        .collect();
    State { regs: out, mem }
}

/// The value of the co-last write to a cell.
fn last_write(x: &Execution, cell: usize) -> Option<i64> {
    let writes: Vec<usize> = (0..x.len())
        .filter(|&w| x.events[w].kind == Kind::Write && x.events[w].cell == cell)
        .collect();
    writes
        .iter()
        .find(|&&w| writes.iter().all(|&v| v == w || x.co.has(v, w)))
        .map(|&w| x.events[w].value)
}

/// The thread of an event, by name, or `init`.
pub fn thread_label(p: &Program, e: &Event) -> String {
    e.thread.map_or_else(
        || "init".to_string(),
        |t: ThreadId| p.thread_name(t).to_string(),
    )
}

/// Every final state of a consistent execution under `model`: each state with
/// the number of consistent executions ending in it, and the flags raised
/// (a data race under RC11 or Vulkan) by executions whose final state
/// passes the test's `filter` (herd7 filters before it flags).
pub fn outcomes(p: &Program, model: &cat::Model, limits: Limits) -> Result<Outcomes, String> {
    outcomes_with(p, model, limits, true)
}

/// `outcomes`, with `lazy` the lazy search (`search.rs`: parts refuted by
/// a monotone check are cut) where it applies, else every candidate judged
/// whole: the same answer, the second the check of the first.
pub fn outcomes_with(
    p: &Program,
    model: &cat::Model,
    limits: Limits,
    lazy: bool,
) -> Result<Outcomes, String> {
    let lowered = model.lowering.map(|l| l.apply(p));
    let p = lowered.as_ref().unwrap_or(p);
    let mut states: BTreeMap<State, usize> = BTreeMap::new();
    let mut flags: BTreeMap<String, usize> = BTreeMap::new();
    let mut witnesses = 0;
    let mut error = None;
    let mut over = None;
    let lazy = search::applies(p, model).filter(|_| lazy);
    let classes = match lazy {
        Some(_) if limits.symmetry => search::classes(p, model),
        _ => Classes::default(),
    };
    let blocks = register_blocks(p);
    // With symmetry, states are kept one per orbit (`outcome::orbit`): the
    // canonical member's values (registers, then memory) with the count.
    let mut canon: BTreeMap<Packed, usize> = BTreeMap::new();
    let mut shape: Option<State> = None;
    let mut members = 0usize;
    // The lazy search hands its own frames, shared with its refutations.
    let mut judge =
        |x: &Execution,
         regs: &[Option<i64>],
         times: usize,
         frames: &mut crate::cat::frame::Frames| match model.judge_framed(x, frames) {
            Ok(j) if j.consistent() => {
                let state = final_state(p, x, regs);
                // A new state (or orbit) beyond the limit is not kept: the
                // report never lists more states than `--max-states`.
                let canonical = (!classes.is_empty()).then(|| {
                    let mut values: Vec<Option<i64>> = state
                        .regs
                        .iter()
                        .chain(&state.mem)
                        .map(|(_, v)| *v)
                        .collect();
                    classes.canonical_values(&mut values, &blocks);
                    Packed::new(&values)
                });
                match &canonical {
                    None if !states.contains_key(&state) && states.len() >= limits.max_states => {
                        over = Some(format!("--max-states {}", limits.max_states));
                        return false;
                    }
                    Some(key) if !canon.contains_key(key) => {
                        let size = classes.orbit_size_values(&key.values(), &blocks);
                        let size = usize::try_from(size).unwrap_or(usize::MAX);
                        let held = if limits.orbits {
                            canon.len() + 1
                        } else {
                            members.saturating_add(size)
                        };
                        if held > limits.max_states {
                            over = Some(format!("--max-states {}", limits.max_states));
                            return false;
                        }
                        members = members.saturating_add(size);
                    }
                    _ => {}
                }
                witnesses += times;
                if crate::outcome::verdict::kept(p, &state) {
                    for f in j.flags {
                        *flags.entry(f).or_default() += times;
                    }
                }
                match canonical {
                    None => *states.entry(state).or_default() += times,
                    Some(key) => {
                        *canon.entry(key).or_default() += times;
                        shape.get_or_insert(state);
                    }
                }
                true
            }
            Ok(_) => true,
            Err(e) => {
                error = Some(e);
                false
            }
        };
    let seen = visit(p, model, lazy.as_deref(), &classes, &limits, &mut judge)?;
    let mut orbits = None;
    if let Some(shape) = shape {
        let o = Orbits::new(
            shape,
            classes,
            blocks,
            canon,
            (limits.deadline, limits.cancel),
        );
        if limits.orbits {
            orbits = Some(o);
        } else {
            for (values, total, size) in o.each_orbit() {
                let each = (total / size.max(1)).max(1);
                o.members(&values, &mut |m| {
                    *states.entry(o.state(m)).or_insert(0) += each
                });
            }
        }
    }
    if let Some(e) = error {
        return Err(e.render());
    }
    let mut notes: Vec<String> = p.bound_note(seen.bound).into_iter().collect();
    // With V closed (syntax::values), a dropped run read a value no
    // execution without thin air stores: noted only when V may be left.
    if seen.dropped > 0 && !p.values_left.is_empty() {
        notes.push(format!(
            "{} thread runs write a value or use an address outside V and are left out",
            seen.dropped
        ));
    }
    Ok(Outcomes {
        states,
        witnesses,
        limit: over.or(seen.limit),
        stats: crate::logic::Stats::default(),
        counters: vec![("steps", seen.candidates as u64)],
        notes,
        flags: flags.into_iter().collect(),
        orbits,
        factored: None,
    })
}

/// Hands `judge` the candidates of `p` (each with its registers, how many
/// arrangements of `classes` it stands for, and the frames to judge it in):
/// by the lazy search where `lazy` holds its checks (`search::applies`),
/// else every candidate, one arrangement each. `judge` returns false to
/// stop.
fn visit(
    p: &Program,
    model: &cat::Model,
    lazy: Option<&[usize]>,
    classes: &Classes,
    limits: &Limits,
    judge: &mut search::Visit<'_>,
) -> Result<Enumerated, String> {
    match lazy {
        Some(checks) => search::scheduled(p, model, (checks, classes), limits, judge),
        None => {
            let mut frames = crate::cat::frame::Frames::default();
            candidates(p, limits, |x, regs| judge(x, regs, 1, &mut frames))
        }
    }
}

/// What deciding a program found under a model whose stronger modes only
/// forbid more (`cat::Model::stronger_modes`), kept to decide the
/// program's mode variants without a search of their own
/// (`Engine::found`): every candidate execution the model finds
/// consistent, with its registers' final values. A variant's candidates
/// are the program's with other modes on the same events (modes change no
/// event, value, rf or co), and each relation the model builds from modes
/// only grows with a stronger one while each axiom forbids more as they
/// grow (the book's "The mode lattice"): a candidate consistent under a
/// variant stronger than the program is consistent under the program, so
/// judging the program's consistent candidates again with the variant's
/// modes finds every one of the variant's.
pub struct Found {
    model: cat::Model,
    runs: Vec<(Execution, Vec<Option<i64>>)>,
    seen: Enumerated,
}

/// The most consistent candidates `Found` keeps: past it each variant is
/// searched on its own, rather than a sweep holding them all.
pub const MAX_FOUND: usize = 4096;

/// The consistent candidates of `p` (`Found`), searched without thread
/// symmetry (a variant may break it); `None` when the model does not
/// declare `stronger_modes`, a limit or a dropped run leaves the search
/// incomplete, or there are more than `MAX_FOUND` (each variant is then
/// decided on its own).
pub fn found(p: &Program, model: &cat::Model, limits: Limits) -> Result<Option<Found>, String> {
    if !model.stronger_modes {
        return Ok(None);
    }
    let lowered = model.lowering.map(|l| l.apply(p));
    let p = lowered.as_ref().unwrap_or(p);
    let limits = Limits {
        symmetry: false,
        ..limits
    };
    let mut runs = Vec::new();
    let mut error = None;
    let mut too_many = false;
    let mut keep =
        |x: &Execution, regs: &[Option<i64>], _: usize, frames: &mut crate::cat::frame::Frames| {
            match model.judge_framed(x, frames) {
                Ok(j) => {
                    if j.consistent() {
                        if runs.len() == MAX_FOUND {
                            too_many = true;
                            return false;
                        }
                        runs.push((x.clone(), regs.to_vec()));
                    }
                    true
                }
                Err(e) => {
                    error = Some(e);
                    false
                }
            }
        };
    let lazy = search::applies(p, model);
    let seen = visit(
        p,
        model,
        lazy.as_deref(),
        &Classes::default(),
        &limits,
        &mut keep,
    )?;
    if let Some(e) = error {
        return Err(e.render());
    }
    if too_many || seen.limit.is_some() || seen.dropped > 0 {
        return Ok(None);
    }
    Ok(Some(Found {
        model: model.clone(),
        runs,
        seen,
    }))
}

impl Found {
    /// The outcomes of `v`, a program with the same statements as the one
    /// searched and other access modes (a mode variant, without branches:
    /// its statements' events are the same in every run), from the
    /// consistent candidates found, each judged again with `v`'s modes.
    /// `None` when `v`'s events do not line up with the candidates' one to
    /// one (kind, thread and location; a lowering that adds a fence for a
    /// stronger mode): then `v` must be decided by a search.
    pub fn outcomes(&self, v: &Program, limits: &Limits) -> Option<Result<Outcomes, String>> {
        let lowered = self.model.lowering.map(|l| l.apply(v));
        let v = lowered.as_ref().unwrap_or(v);
        // The modes of `v`'s events, read from its first candidate.
        let mut first: Option<Vec<Event>> = None;
        let plain = Limits {
            symmetry: false,
            ..*limits
        };
        candidates(v, &plain, |x, _| {
            first = Some(x.events.clone());
            false
        })
        .ok()?;
        let events = match first {
            Some(e) => e,
            // No candidate at all: neither has the program.
            None if self.runs.is_empty() => Vec::new(),
            None => return None,
        };
        // Each thread's events in program order (a search may place the
        // threads in another order than the enumeration does).
        let by_thread = |events: &[Event]| {
            let mut out: BTreeMap<Option<ThreadId>, Vec<usize>> = BTreeMap::new();
            for (i, e) in events.iter().enumerate() {
                out.entry(e.thread).or_default().push(i);
            }
            out
        };
        let theirs = by_thread(&events);
        let same =
            |a: &Event, b: &Event| a.kind == b.kind && a.cell == b.cell && a.scope == b.scope;
        let mut states: BTreeMap<State, usize> = BTreeMap::new();
        let mut flags: BTreeMap<String, usize> = BTreeMap::new();
        let mut frames = crate::cat::frame::Frames::default();
        let mut witnesses = 0;
        for (x, regs) in &self.runs {
            let ours = by_thread(&x.events);
            if ours.len() != theirs.len() {
                return None;
            }
            let mut y = x.clone();
            for ((t, mine), (u, other)) in ours.iter().zip(&theirs) {
                if t != u || mine.len() != other.len() {
                    return None;
                }
                for (&i, &j) in mine.iter().zip(other) {
                    if !same(&x.events[i], &events[j]) {
                        return None;
                    }
                    y.events[i].mode = events[j].mode;
                    y.events[i].vk = events[j].vk;
                }
            }
            let j = match self.model.judge_framed(&y, &mut frames) {
                Ok(j) => j,
                Err(e) => return Some(Err(e.render())),
            };
            if !j.consistent() {
                continue;
            }
            let state = final_state(v, &y, regs);
            if states.len() >= limits.max_states && !states.contains_key(&state) {
                return None;
            }
            witnesses += 1;
            if crate::outcome::verdict::kept(v, &state) {
                for f in j.flags {
                    *flags.entry(f).or_default() += 1;
                }
            }
            *states.entry(state).or_default() += 1;
        }
        let notes = v.bound_note(self.seen.bound).into_iter().collect();
        Some(Ok(Outcomes {
            states,
            witnesses,
            limit: None,
            stats: crate::logic::Stats::default(),
            // The search that found the runs, shared by every variant.
            counters: vec![("steps", self.seen.candidates as u64)],
            notes,
            flags: flags.into_iter().collect(),
            orbits: None,
            factored: None,
        }))
    }
}

/// Where each top-level thread's registers sit in a state's values (as
/// `final_state` lists them; no forks where symmetry is used).
fn register_blocks(p: &Program) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    p.main
        .iter()
        .map(|(tid, _)| {
            let n = p
                .regs
                .iter()
                .filter(|r| r.thread == *tid && !r.fresh)
                .count();
            at += n;
            at - n..at
        })
        .collect()
}

/// What a cat model offers beyond deciding.
pub const CAPABILITIES: &[crate::engine::Capability] = &[
    crate::engine::Capability::Explain,
    crate::engine::Capability::Draw,
    crate::engine::Capability::Vulkan,
    crate::engine::Capability::Symmetry,
];

/// A cat model as a peer engine (`rc11`, `ptx`, a `.cat` file). A file's
/// expectations are the note's verdicts, not the model's: not checked.
pub struct Cat {
    model: cat::Model,
}

impl Cat {
    pub fn new(model: cat::Model) -> Cat {
        Cat { model }
    }

    /// The cat model it runs.
    pub fn model(&self) -> &cat::Model {
        &self.model
    }
}

impl crate::engine::Engine for Cat {
    fn name(&self) -> &str {
        &self.model.name
    }

    fn flag_meaning(&self, flag: &str) -> crate::outcome::FlagMeaning {
        self.model
            .meanings
            .iter()
            .find(|(n, _)| n == flag)
            .map_or(crate::outcome::FlagMeaning::Undeclared, |(_, m)| *m)
    }

    fn can(&self, c: crate::engine::Capability) -> bool {
        CAPABILITIES.contains(&c)
            || (c == crate::engine::Capability::StrongerModes && self.model.stronger_modes)
            || (c == crate::engine::Capability::IncludesSc && self.model.includes_sc)
    }

    fn outcomes(
        &self,
        p: &Program,
        _: &crate::model::Model,
        limits: Limits,
    ) -> Result<Outcomes, String> {
        outcomes(p, &self.model, limits)
    }

    fn found(&self, p: &Program, limits: Limits) -> Option<Result<Found, String>> {
        found(p, &self.model, limits).transpose()
    }

    fn report_model(&self, _: &crate::model::Model) -> Option<Vec<String>> {
        Some(vec![self.model.name.clone()])
    }

    /// Why a release or an acquire of `p` orders nothing here, where it
    /// does (`lower::unqualified_synchronisation`), after the model's
    /// lowering (which gives them their storage classes).
    fn hints(&self, p: &Program) -> Vec<String> {
        let lowered = self.model.lowering.map(|l| l.apply(p));
        let p = lowered.as_ref().unwrap_or(p);
        lower::unqualified_synchronisation(p, &self.model)
            .into_iter()
            .collect()
    }

    fn reads_placement(&self) -> bool {
        crate::cat::monotone::reads_placement(&self.model)
    }

    fn qualifiers(&self) -> crate::engine::Qualifiers {
        if crate::cat::monotone::reads_semantics(&self.model) {
            crate::engine::Qualifiers::Vulkan
        } else {
            crate::engine::Qualifiers::Note
        }
    }

    /// A cat model reads none of the pomset semantics' options.
    fn reads_options(&self) -> bool {
        false
    }

    fn lower(&mut self, lowering: lower::Lowering) -> bool {
        self.model.lowering = Some(lowering);
        true
    }

    fn explain(
        &self,
        p: &Program,
        _: &crate::model::Model,
        chosen: &[usize],
        limits: &Limits,
    ) -> Result<String, String> {
        use crate::syntax::print;
        let surface = print::core_to_ast(p);
        let mut out = String::new();
        for &i in chosen {
            let (Some(shown), Some(c)) = (surface.conditions.get(i), p.conditions.get(i)) else {
                continue;
            };
            let shown = print::prop(&shown.prop, 0);
            out.push_str(&format!("{} under {}: {shown}\n", p.name, self.model.name));
            for line in explain::explain(p, &self.model, &c.prop, limits)? {
                out.push_str(&format!("  {line}\n"));
            }
        }
        Ok(out)
    }

    fn pictures(
        &self,
        test: &crate::syntax::Litmus,
        _: &crate::model::Model,
        opts: &crate::render::draw::DrawOptions,
    ) -> Result<(crate::render::draw::Drawn, &'static str), String> {
        picture::pictures(test, &self.model, opts)
            .map(|d| (d, "executions"))
            .map_err(|e| e.to_string())
    }
}
