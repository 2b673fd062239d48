//! The lazy enumeration of candidates: the same candidates as
//! `super::candidates`, built event by event and cut as soon as a part of
//! one is refuted (issue 32).
//!
//! Threads run one after the other (in `Program::main`'s order), each
//! statement by statement; a read branches on its value as in `Traces`.
//! Each new event is placed at once: a read takes its rf from a write of
//! its cell and value already built (or the initial write), or is left
//! pending for a write built later; a write is inserted at one position of
//! its cell's co chain (the initial write first). Every complete candidate
//! is reached by exactly one path: its traces fix the runs, each read's
//! source is either built before it or after it, and a total order is one
//! sequence of insertions. After each choice, the model's prunable checks
//! (`cat::monotone`: monotone in the candidate, not flags, not negated)
//! are judged on the part built so far; one failing there fails on every
//! completion, so the branch is cut. Complete candidates are assembled
//! exactly as `super::candidates` assembles them (`skeleton`) and judged
//! by the whole model: pruning only skips candidates the model rejects.

use super::execution::{Cells, Event, Execution, Kind, Run, Stop, Trace, Traces};
use super::relation::{Rel, MAX_EVENTS};
use super::{interrupted, merged_registers, skeleton, Enumerated};
use crate::cat::Model;
use crate::outcome::orbit::Classes;
use crate::outcome::Limits;
use crate::syntax::ast::RmwOp;
use crate::syntax::core::{Expr, Loc, Program, Reach, Stmt};

/// An event of the candidate being built: a cell's initial write, or event
/// `local` of the trace of thread `pos` (its position in `Program::main`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Id {
    Init(usize),
    Ev(usize, usize),
}

/// Where a read takes its value from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A write built before the read was placed.
    Now(Id),
    /// A write not built yet, of this cell and value: taken when one is
    /// placed (`adopt`), dropped once no thread left may write it.
    Later(usize, i64),
}

/// The model's prunable checks, when the lazy search applies to `p`:
/// some check is prunable, no thread forks (a PAR's halves are not one
/// run), and V is closed (a run dropped for leaving V would be counted
/// per path, not per thread as the note does).
pub(super) fn applies(p: &Program, model: &Model) -> Option<Vec<usize>> {
    if !p.values_left.is_empty() || p.main.iter().any(|(_, s)| forks(s)) {
        return None;
    }
    (!model.prunable.is_empty()).then(|| model.prunable.clone())
}

/// Whether a statement has a bound's cut (`Stmt::Diverge` with `bound`).
fn has_cut(s: &Stmt) -> bool {
    match s {
        Stmt::Diverge { bound } => *bound,
        Stmt::Seq(parts) => parts.iter().any(has_cut),
        Stmt::If { then, els, .. } => has_cut(then) || has_cut(els),
        Stmt::Vulkan { body, .. } => has_cut(body),
        Stmt::Par { left, right, .. } => has_cut(left) || has_cut(right),
        _ => false,
    }
}

fn forks(s: &Stmt) -> bool {
    match s {
        Stmt::Par { .. } => true,
        Stmt::Seq(parts) => parts.iter().any(forks),
        Stmt::If { then, els, .. } => forks(then) || forks(els),
        Stmt::Vulkan { body, .. } => forks(body),
        _ => false,
    }
}

/// What a write of a statement may be: its cell (`None`: a computed
/// address) and its value (`None`: not a constant).
type Written = (Option<usize>, Option<i64>);

/// Whether a write that may be `w` may write `value` to `cell`.
fn hits((c, v): Written, cell: usize, value: i64) -> bool {
    c.is_none_or(|c| c == cell) && v.is_none_or(|v| v == value)
}

/// The writes a statement may make.
fn writes(s: &Stmt, out: &mut Vec<Written>, cells: &Cells, values: &[i64]) {
    let cell = |loc: &Loc| match loc {
        Loc::Named(l) => cells.named.get(*l as usize).copied(),
        Loc::Computed(_) => None,
    };
    match s {
        Stmt::Write { loc, expr, .. } => {
            let value = match expr {
                Expr::Int(v) => Some(*v),
                _ => None,
            };
            out.push((cell(loc), value));
        }
        // The write half's value, when its arguments are constants (as
        // `Traces::rmw` computes it: FADD old + M, EXCHG M, CAS N).
        Stmt::Rmw { loc, op, args, .. } => {
            let arg = |i: usize| match args.get(i) {
                Some(Expr::Int(v)) => Some(*v),
                _ => None,
            };
            match (op, arg(0), arg(1)) {
                (RmwOp::Fadd, Some(m), _) => {
                    out.extend(values.iter().map(|v| (cell(loc), Some(v.wrapping_add(m)))))
                }
                (RmwOp::Exchg, Some(m), _) | (RmwOp::Cas, _, Some(m)) => {
                    out.push((cell(loc), Some(m)))
                }
                _ => out.push((cell(loc), None)),
            }
        }
        Stmt::Seq(parts) => parts.iter().for_each(|t| writes(t, out, cells, values)),
        Stmt::If { then, els, .. } => {
            writes(then, out, cells, values);
            writes(els, out, cells, values);
        }
        Stmt::Vulkan { body, .. } => writes(body, out, cells, values),
        _ => {}
    }
}

/// The cells a statement may read (`None`: a computed address).
fn reads(s: &Stmt, out: &mut Vec<Option<usize>>, cells: &Cells) {
    let cell = |loc: &Loc| match loc {
        Loc::Named(l) => cells.named.get(*l as usize).copied(),
        Loc::Computed(_) => None,
    };
    match s {
        Stmt::Read { loc, .. } | Stmt::Rmw { loc, .. } => out.push(cell(loc)),
        Stmt::Seq(parts) => parts.iter().for_each(|t| reads(t, out, cells)),
        Stmt::If { then, els, .. } => {
            reads(then, out, cells);
            reads(els, out, cells);
        }
        Stmt::Vulkan { body, .. } => reads(body, out, cells),
        _ => {}
    }
}

/// The order the search runs `p`'s threads in, as positions of `p.main`:
/// the file's order, except that a thread none of whose writes another
/// thread may read (a reader: it feeds no one) runs after every thread
/// that feeds another.
///
/// A read placed before every write it may take stays pending, once for
/// each value a later write may have, and its branch fails only when the
/// last writer has run; placed after them it takes a source at once or is
/// cut. A reader run last waits for no one, and no one waits for it. (C58's
/// shape with its reader first: 18 846 parts for 30 candidates under PTX;
/// with it last, 413.) Threads that feed one another keep the file's order:
/// a greedy order by fewest reads of what others write made Dat3M's
/// exchange loops slower (a thread's own writes feed its later reads, and
/// the last thread's filter, `enter`, works best on the largest).
///
/// Every order reaches the same candidates, each once (the module's
/// argument does not depend on the order). Interchangeable threads are
/// readers alike or feeders alike, so they keep their relative order.
pub fn schedule(p: &Program) -> Vec<usize> {
    let cells = Cells::new(p);
    let threads: Vec<(Vec<Option<usize>>, Vec<Written>)> = p
        .main
        .iter()
        .map(|(_, body)| {
            let (mut r, mut w) = (Vec::new(), Vec::new());
            reads(body, &mut r, &cells);
            writes(body, &mut w, &cells, &p.values);
            (r, w)
        })
        .collect();
    let feeds = |t: usize| {
        threads[t].1.iter().any(|&(w, _)| {
            threads.iter().enumerate().any(|(u, (r, _))| {
                u != t && r.iter().any(|&c| c.is_none() || w.is_none() || w == c)
            })
        })
    };
    let (mut order, readers): (Vec<usize>, Vec<usize>) =
        (0..threads.len()).partition(|&t| feeds(t));
    order.extend(readers);
    order
}

/// The classes of interchangeable threads the search may keep one
/// arrangement of (`outcome::orbit`): swapping two such threads maps
/// candidates to candidates and keeps every builtin but `per-scope`'s
/// grouping (event indices) and the Vulkan subgroups (which
/// `Classes::of` does not place), so none with those; none with a
/// `filter` either, which flags are counted under, state by state. (A
/// `with`'s choices are mapped to choices by a swap, and a candidate's
/// flags are those of all its consistent choices: `Model::judge`.)
pub(super) fn classes(p: &Program, model: &Model) -> Classes {
    if p.filter.is_some() || model.per_scope {
        return Classes::default();
    }
    // Swapping keeps `same-sg` when both are in one subgroup or each alone.
    let sg = |t: usize| p.threads.get(p.main[t].0 as usize).map(|i| i.sg);
    let alone = |t: usize| p.threads.iter().filter(|u| Some(u.sg) == sg(t)).count() == 1;
    let placed = |a: usize, b: usize| sg(a) == sg(b) || (alone(a) && alone(b));
    let c = Classes::of(p);
    if c.classes.iter().all(|c| c.iter().all(|&t| placed(t, c[0]))) {
        c
    } else {
        Classes::default()
    }
}

/// The values of a trace's reads, in order: a run of a thread is fixed by
/// them, and interchangeable threads' runs correspond by them.
fn read_values(events: &[super::execution::Event]) -> Vec<i64> {
    events
        .iter()
        .filter(|e| e.kind == Kind::Read)
        .map(|e| e.value)
        .collect()
}

/// What is called on each candidate: the execution, the registers' final
/// values, the arrangements it stands for, and the search's frames (whose
/// last refutation may be of this very candidate: `cat::frame`); false to
/// stop.
pub(super) type Visit<'f> =
    dyn FnMut(&Execution, &[Option<i64>], usize, &mut crate::cat::frame::Frames) -> bool + 'f;

/// Visits every candidate execution of `p` as `super::candidates` does,
/// less those a check of `checks` refutes on a part and, with `classes`,
/// only those whose traces are in one arrangement per class (each class's
/// members' read values non-decreasing), each with the number of
/// arrangements it stands for.
pub(super) fn candidates(
    p: &Program,
    model: &Model,
    (checks, classes): (&[usize], &Classes),
    limits: &Limits,
    visit: &mut Visit<'_>,
) -> Result<Enumerated, String> {
    let cells = Cells::new(p);
    let mut gen = Traces::new(p, &cells, limits);
    // Runs are bounded by --max-steps here: each is a node of the search.
    gen.budget = usize::MAX;
    // From each thread on, the writes it or a later thread may make.
    let mut writable: Vec<Vec<Written>> = vec![Vec::new(); p.main.len() + 1];
    for (pos, (_, body)) in p.main.iter().enumerate().rev() {
        let mut w = writable[pos + 1].clone();
        writes(body, &mut w, &cells, &p.values);
        writable[pos] = w;
    }
    let last = last_runs(p, &cells, limits);
    let mut s = Search {
        p,
        cells: &cells,
        last,
        admissible: None,
        kept: std::collections::HashMap::new(),
        model,
        checks,
        classes,
        limits,
        gen,
        writable,
        done: Vec::new(),
        rf: Vec::new(),
        co: vec![Vec::new(); cells.init.len()],
        seen: Enumerated::default(),
        nodes: [0; 2],
        tried: [0; 2],
        cut: [0; 2],
        frames: crate::cat::frame::Frames::default(),
        stop: false,
        error: None,
        visit,
        cuts: p.main.iter().map(|(_, s)| has_cut(s)).collect(),
        reached: false,
        unsure: false,
        ahead: Default::default(),
        own_later: crate::cat::monotone::refutes_own_later_rf(model, checks),
        done_gen: 0,
        shape: None,
        probes: limits.probes.then(Default::default),
    };
    if let Some((tid, body)) = p.main.first() {
        let start = s.gen.start(*tid);
        s.enter(0);
        s.run_thread(0, start, vec![body]);
    } else {
        s.leaf();
    }
    // Every part of a run past the bound passes through a part that ends
    // at a cut (`at_cut`), and no check refutes it; so with none built,
    // none filtered out and the search complete, no run reaches a cut.
    let unreached = !s.reached && !s.unsure && !s.stop && s.seen.limit.is_none();
    s.seen.bound = if unreached {
        Reach::Unreached
    } else {
        Reach::Unknown
    };
    match s.error {
        Some(e) => Err(e),
        None => Ok(s.seen),
    }
}

/// `candidates`, with the threads run in `schedule`'s order (unless
/// `limits.reorder` is off, or the model uses `per-scope`, whose grouping
/// depends on the events' indices). Each candidate then lists its events
/// in that order of threads: the same execution, numbered otherwise, so
/// the states, counts and flags are those of the file's order. (`explain`
/// and `draw` show executions and keep the file's order.)
pub(super) fn scheduled(
    p: &Program,
    model: &Model,
    (checks, classes): (&[usize], &Classes),
    limits: &Limits,
    visit: &mut Visit<'_>,
) -> Result<Enumerated, String> {
    if !limits.reorder || model.per_scope {
        return candidates(p, model, (checks, classes), limits, visit);
    }
    let order = schedule(p);
    if order.iter().enumerate().all(|(i, &t)| i == t) {
        return candidates(p, model, (checks, classes), limits, visit);
    }
    let mut q = p.clone();
    q.main = order.iter().map(|&t| p.main[t].clone()).collect();
    let mut at = vec![0; order.len()];
    for (i, &t) in order.iter().enumerate() {
        at[t] = i;
    }
    // A class's members in the order they now run (their relative order
    // is kept, so this only renumbers them).
    let moved = Classes {
        classes: classes
            .classes
            .iter()
            .map(|c| {
                let mut c: Vec<usize> = c.iter().map(|&t| at[t]).collect();
                c.sort_unstable();
                c
            })
            .collect(),
    };
    candidates(&q, model, (checks, &moved), limits, visit)
}

/// The most runs of the last thread listed in advance for the
/// admissibility filter (`Search::enter`); past it there is no filter.
const MAX_LAST_RUNS: usize = 1 << 14;

/// The fewest runs of the last thread worth the filter: below it, building
/// them to their end costs less than listing them (a sweep's small
/// programs, whose last thread has a handful of runs, went 16 % slower).
const MIN_LAST_RUNS: usize = 32;

/// The read values of the prefixes of the last thread's admissible runs.
type Prefixes = std::collections::HashSet<Vec<i64>>;

/// What the admissible runs depend on: the (cell, value) pairs written
/// before the last thread (the initial writes included) and those pending,
/// each sorted.
type Needs = (Vec<(usize, i64)>, Vec<(usize, i64)>);

/// The most sets `enter` keeps for reuse.
const MAX_KEPT: usize = 256;

/// Every run of the last thread, when there are at least `MIN_LAST_RUNS`
/// and at most `MAX_LAST_RUNS` (a run is the same whichever threads ran
/// before it: its reads take every value of V, as in the lazy search's
/// own steps).
fn last_runs(p: &Program, cells: &Cells, limits: &Limits) -> Option<Vec<Trace>> {
    let (tid, body) = p.main.last()?;
    let mut gen = Traces::new(p, cells, limits);
    gen.budget = MAX_LAST_RUNS;
    gen.of_thread(*tid, body)
        .ok()
        .filter(|runs| runs.len() >= MIN_LAST_RUNS)
}

struct Search<'a, 'v> {
    p: &'a Program,
    cells: &'a Cells,
    /// Every run of the last thread (`last_runs`), if few enough.
    last: Option<Vec<Trace>>,
    /// While the last thread runs: the read values of every prefix of
    /// its admissible runs (`enter`); a read outside them is cut.
    admissible: Option<std::rc::Rc<Prefixes>>,
    /// `enter`'s sets by what they depend on: the values written so far
    /// and those pending (at most `MAX_KEPT`, then started afresh).
    kept: std::collections::HashMap<Needs, std::rc::Rc<Prefixes>>,
    model: &'a Model,
    checks: &'a [usize],
    classes: &'a Classes,
    limits: &'a Limits,
    gen: Traces<'a>,
    writable: Vec<Vec<Written>>,
    /// The traces of the threads run so far.
    done: Vec<Trace>,
    /// Each read placed so far, with its source.
    rf: Vec<(Id, Source)>,
    /// Per cell, the writes placed so far in co order (the initial one
    /// before them all).
    co: Vec<Vec<Id>>,
    seen: Enumerated,
    /// Parts reached, parts judged, and parts refuted (`refuted`), apart
    /// for the parts a read's source makes and those a write's position
    /// makes (`Made`).
    nodes: [usize; 2],
    tried: [usize; 2],
    cut: [usize; 2],
    /// The fixed slots' values of the parts' frames (`cat::frame`).
    frames: crate::cat::frame::Frames,
    stop: bool,
    error: Option<String>,
    visit: &'v mut Visit<'v>,
    /// Per thread position, whether its code has a bound's cut.
    cuts: Vec<bool>,
    /// A part that ends at a cut and that no check refutes was built: an
    /// execution may go past the bound.
    reached: bool,
    /// A filter cut a prefix of a thread with a cut (the last thread's
    /// `enter`, or one arrangement per class): a part ending at a cut may
    /// have been left unbuilt.
    unsure: bool,
    /// `Search::ahead`'s memo: per statement (by address), the writes it may make
    /// and whether it has a bound's cut.
    ahead: std::cell::RefCell<std::collections::HashMap<*const Stmt, Ahead>>,
    /// The checks refute every candidate in which a read takes a write of
    /// its own thread po-after it (`cat::monotone::refutes_own_later_rf`):
    /// a read then waits only for the later threads' writes.
    own_later: bool,
    /// Bumped whenever `done` changes: with the run, what `shape` is of.
    done_gen: u64,
    /// The skeleton and layout of the last part judged, with `done_gen`
    /// and a copy of its run's trace then: the parts a write's co
    /// positions make share them (a skeleton was a fifth of PTX's time).
    shape: Option<Shape>,
    /// `co_window`'s probes judged so far: a sub-execution of three or
    /// four events, and whether the checks refute it. `None` with
    /// `Limits::probes` off.
    probes: Option<crate::logic::FxMap<Probe, bool>>,
}

/// What made a part (`Search::refuted`): a read's source, or a write's
/// position in co (with the pending reads that took it).
#[derive(Clone, Copy)]
enum Made {
    Source = 0,
    Position = 1,
}

/// A part's skeleton (`skeleton`; its rf and co are those of the last part
/// judged, each part setting both whole) and where it put each event.
struct Shape {
    done_gen: u64,
    run: Trace,
    x: Execution,
    at: Layout,
}

/// Whether `skeleton` makes the same events and relations of traces `a`
/// and `b` (their registers aside).
fn same_skeleton(a: &Trace, b: &Trace) -> bool {
    let Trace {
        events,
        po,
        addr,
        data,
        ctrl,
        rmw,
        regs: _,
    } = a;
    *events == b.events
        && *po == b.po
        && *addr == b.addr
        && *data == b.data
        && *ctrl == b.ctrl
        && *rmw == b.rmw
}

/// The writes a statement may make, and whether it has a bound's cut.
type Ahead = (std::rc::Rc<[Written]>, bool);

/// What thread `pos` may still do, its run so far `run`: the run's events
/// from `next` on (the rest of the statement that made them, not placed
/// yet) and the statements on `stack`.
#[derive(Clone, Copy)]
struct Rest<'r, 'a> {
    pos: usize,
    run: &'r Run,
    next: usize,
    stack: &'r [&'a Stmt],
}

impl<'a> Search<'a, '_> {
    fn fail(&mut self, why: Stop) {
        match why {
            Stop::Limit(l) => self.seen.limit = Some(l),
            Stop::Unsupported(u) => self.error = Some(u),
        }
        self.stop = true;
    }

    /// Runs thread `pos` from `run` through the statements on `stack`
    /// (the next on top), then the threads after it.
    fn run_thread(&mut self, pos: usize, mut run: Run, mut stack: Vec<&'a Stmt>) {
        loop {
            if self.stop {
                return;
            }
            let Some(s) = stack.pop() else {
                return self.thread_done(pos, run);
            };
            match s {
                Stmt::Seq(parts) => stack.extend(parts.iter().rev()),
                Stmt::Diverge { bound: true } => return self.at_cut(&run),
                Stmt::If { cond, then, els } => match self.gen.condition(cond, &mut run) {
                    Ok(c) => {
                        stack.push(if c { then } else { els });
                        // The branch not taken may have held the only
                        // write a pending read waits for.
                        let rest = Rest {
                            pos,
                            run: &run,
                            next: run.trace.events.len(),
                            stack: &stack,
                        };
                        if self.orphaned(rest) {
                            return;
                        }
                    }
                    Err(e) => return self.fail(e),
                },
                _ => {
                    let before = run.trace.events.len();
                    let mut out = Vec::new();
                    if let Err(e) = self.gen.step(s, run, &mut out) {
                        return self.fail(e);
                    }
                    // A statement without events (a LET) continues the one run.
                    if out.len() == 1 && out[0].trace.events.len() == before {
                        if let Some(r) = out.pop() {
                            run = r;
                            continue;
                        }
                    }
                    for r in out {
                        self.place(pos, r, before, &stack);
                        if self.stop {
                            return;
                        }
                    }
                    return;
                }
            }
        }
    }

    fn thread_done(&mut self, pos: usize, run: Run) {
        // A pending read no thread left may write for has no rf.
        let done = Rest {
            pos,
            run: &run,
            next: run.trace.events.len(),
            stack: &[],
        };
        if self.orphaned(done) {
            return;
        }
        self.done.push(run.trace);
        self.done_gen += 1;
        match self.p.main.get(pos + 1) {
            Some((tid, body)) => {
                let start = self.gen.start(*tid);
                self.enter(pos + 1);
                self.run_thread(pos + 1, start, vec![body]);
            }
            None => self.leaf(),
        }
        self.done.pop();
        self.done_gen += 1;
    }

    /// Before thread `pos` runs: when it is the last and its runs are
    /// listed, the runs that may still complete a candidate. In every
    /// completion of the part built so far, each read of the last thread's
    /// run takes a write of its cell and value from the initial writes,
    /// the threads done or that run itself; and each read left pending
    /// takes one from that run (no thread comes after it). A run failing
    /// either completes nothing, so a prefix of the last thread that no
    /// run passing both extends is cut (`place`): the plain enumeration's
    /// test of a choice of traces (`readable`), asked of the last thread
    /// while it is built rather than once it is complete.
    fn enter(&mut self, pos: usize) {
        self.admissible = None;
        let Some(runs) = self.last.as_ref().filter(|_| pos + 1 == self.p.main.len()) else {
            return;
        };
        let mut written: Vec<(usize, i64)> = self.cells.init.iter().copied().enumerate().collect();
        written.extend(
            self.done
                .iter()
                .flat_map(|t| &t.events)
                .filter(|e| e.kind == Kind::Write)
                .map(|e| (e.cell, e.value)),
        );
        written.sort_unstable();
        written.dedup();
        let mut pending: Vec<(usize, i64)> = self
            .rf
            .iter()
            .filter_map(|&(_, s)| match s {
                Source::Later(cell, value) => Some((cell, value)),
                Source::Now(_) => None,
            })
            .collect();
        pending.sort_unstable();
        pending.dedup();
        let needs = (written, pending);
        if let Some(set) = self.kept.get(&needs) {
            self.admissible = Some(set.clone());
            return;
        }
        let (written, pending) = &needs;
        let mut prefixes = Prefixes::new();
        for t in runs {
            let own = |cell: usize, value: i64| {
                t.events
                    .iter()
                    .any(|w| w.kind == Kind::Write && w.cell == cell && w.value == value)
            };
            let sourced = t.events.iter().all(|r| {
                r.kind != Kind::Read
                    || written.binary_search(&(r.cell, r.value)).is_ok()
                    || own(r.cell, r.value)
            });
            if sourced && pending.iter().all(|&(cell, value)| own(cell, value)) {
                let values = read_values(&t.events);
                for n in 0..=values.len() {
                    prefixes.insert(values[..n].to_vec());
                }
            }
        }
        let set = std::rc::Rc::new(prefixes);
        if self.kept.len() >= MAX_KEPT {
            self.kept.clear();
        }
        self.kept.insert(needs, set.clone());
        self.admissible = Some(set);
    }

    /// Places events `k..` of `run` (rf for reads, a co position for
    /// writes), cutting refuted parts, then runs on.
    fn place(&mut self, pos: usize, run: Run, k: usize, stack: &[&'a Stmt]) {
        let Some(e) = run.trace.events.get(k).copied() else {
            return self.run_thread(pos, run, stack.to_vec());
        };
        let id = Id::Ev(pos, k);
        match e.kind {
            Kind::Read => {
                // Only the last thread's (`enter`; the set stays behind
                // when the search backs up into an earlier thread).
                let last = pos + 1 == self.p.main.len();
                if let Some(prefixes) = self.admissible.as_ref().filter(|_| last) {
                    if !prefixes.contains(&read_values(&run.trace.events[..=k])) {
                        self.unsure |= self.cuts[pos];
                        return;
                    }
                }
                // One arrangement per class: a member's reads are not below
                // the previous member's.
                if let Some(prev) = self.classes.previous(pos) {
                    let now = read_values(&run.trace.events[..=k]);
                    let before = read_values(&self.done[prev].events);
                    if now.as_slice() < &before[..now.len().min(before.len())] {
                        self.unsure |= self.cuts[pos];
                        return;
                    }
                }
                for source in self.sources(pos, &run, k, stack) {
                    self.rf.push((id, source));
                    let later = matches!(source, Source::Later(..));
                    // A pending read adds nothing to check.
                    if later
                        || !(self.source_refuted(pos, &run, k, source)
                            || self.refuted(&run, Made::Source))
                    {
                        self.place(pos, run.clone(), k + 1, stack);
                    }
                    self.rf.pop();
                    if self.stop {
                        return;
                    }
                }
            }
            Kind::Write => {
                let waiting: Vec<usize> = (0..self.rf.len())
                    .filter(|&i| matches!(self.rf[i].1, Source::Later(c, v) if c == e.cell && v == e.value))
                    .collect();
                let (lo, hi) = self.co_window(pos, &run, k);
                for at in lo..=hi {
                    self.co[e.cell].insert(at, id);
                    if !self.refuted(&run, Made::Position) {
                        self.adopt(pos, &run, (k, stack), &waiting, id, false);
                    }
                    self.co[e.cell].remove(at);
                    if self.stop {
                        return;
                    }
                }
            }
            Kind::Fence | Kind::Barrier => self.place(pos, run, k + 1, stack),
        }
    }

    /// Each pending read of `waiting` takes the write `w` just placed or,
    /// if a write may still come, stays pending; then runs on from event
    /// `k + 1`. `changed` once one took it (the part is judged again).
    fn adopt(
        &mut self,
        pos: usize,
        run: &Run,
        (k, stack): (usize, &[&'a Stmt]),
        waiting: &[usize],
        w: Id,
        changed: bool,
    ) {
        let Some((&j, rest)) = waiting.split_first() else {
            if !(changed && self.refuted(run, Made::Position)) {
                self.place(pos, run.clone(), k + 1, stack);
            }
            return;
        };
        let (read, pending) = self.rf[j];
        // A read of this thread is before `w`: with `own_later`, taking
        // it is refuted (and the read waits for no write of this thread).
        if !(self.own_later && self.same_thread(read, pos)) {
            self.rf[j].1 = Source::Now(w);
            self.adopt(pos, run, (k, stack), rest, w, true);
            self.rf[j].1 = pending;
            if self.stop {
                return;
            }
        }
        if let Source::Later(cell, value) = pending {
            let after = Rest {
                pos,
                run,
                next: k + 1,
                stack,
            };
            if self.may_feed(read, after, cell, value) {
                self.adopt(pos, run, (k, stack), rest, w, changed);
            }
        }
    }

    /// Whether thread `pos` or a later one may write `value` to `cell`.
    fn may_write(&self, pos: usize, cell: usize, value: i64) -> bool {
        self.writable
            .get(pos)
            .is_some_and(|ws| ws.iter().any(|&w| hits(w, cell, value)))
    }

    /// Where read `k` of `run` (thread `pos`) may take its value from.
    fn sources(&self, pos: usize, run: &Run, k: usize, stack: &[&Stmt]) -> Vec<Source> {
        let r = run.trace.events[k];
        let matching = |t: &Trace| -> Vec<usize> {
            (0..t.events.len())
                .filter(|&l| {
                    let w = &t.events[l];
                    w.kind == Kind::Write && w.cell == r.cell && w.value == r.value
                })
                .collect()
        };
        let mut out = Vec::new();
        if self.cells.init.get(r.cell) == Some(&r.value) {
            out.push(Source::Now(Id::Init(r.cell)));
        }
        for (q, t) in self.done.iter().enumerate() {
            out.extend(matching(t).into_iter().map(|l| Source::Now(Id::Ev(q, l))));
        }
        // Only events before the read: an RMW's own write half is placed
        // after it, and feeds it as a pending read (else reached twice).
        out.extend(
            matching(&run.trace)
                .into_iter()
                .filter(|&l| l < k)
                .map(|l| Source::Now(Id::Ev(pos, l))),
        );
        let after = Rest {
            pos,
            run,
            next: k + 1,
            stack,
        };
        if self.may_feed(Id::Ev(pos, k), after, r.cell, r.value) {
            out.push(Source::Later(r.cell, r.value));
        }
        out
    }

    /// Whether a write of `value` to `cell` may come after the part built
    /// so far. Every completion of the part runs thread `rest.pos` on
    /// through `rest` (an unrolled loop's passes are statements there,
    /// ending in a `diverge` no completion passes) and the later threads
    /// from their start, so a write none of them may make is in no
    /// completion. While a run may still reach a bound's cut (one is in
    /// `rest`) and none has been found to (`reached`), the whole thread's
    /// writes count instead: a part at a cut must keep pending the reads
    /// of writes beyond it (`at_cut`), which are the loop's own.
    fn may_come(&self, rest: Rest<'_, '_>, cell: usize, value: i64) -> bool {
        if self.may_write(rest.pos + 1, cell, value) {
            return true;
        }
        let events = rest.run.trace.events.get(rest.next..).unwrap_or(&[]);
        if events
            .iter()
            .any(|e| e.kind == Kind::Write && e.cell == cell && e.value == value)
        {
            return true;
        }
        let mut cut = false;
        for &s in rest.stack {
            let (written, has) = self.ahead(s);
            if written.iter().any(|&w| hits(w, cell, value)) {
                return true;
            }
            cut |= has;
        }
        cut && !self.reached && self.may_write(rest.pos, cell, value)
    }

    /// Whether a read left pending has no write that may still come.
    fn orphaned(&self, rest: Rest<'_, '_>) -> bool {
        self.rf.iter().any(|&(read, s)| match s {
            Source::Later(cell, value) => !self.may_feed(read, rest, cell, value),
            Source::Now(_) => false,
        })
    }

    /// Whether event `id` is of thread `pos`.
    fn same_thread(&self, id: Id, pos: usize) -> bool {
        matches!(id, Id::Ev(p, _) if p == pos)
    }

    /// Whether a write of `value` to `cell` may still come that `read`
    /// may take: with `own_later`, a read of the running thread takes none
    /// of its thread's (all are after it), so only the later threads'.
    fn may_feed(&self, read: Id, rest: Rest<'_, '_>, cell: usize, value: i64) -> bool {
        if self.own_later && self.same_thread(read, rest.pos) {
            self.may_write(rest.pos + 1, cell, value)
        } else {
            self.may_come(rest, cell, value)
        }
    }

    /// The writes `s` may make and whether it has a bound's cut (memoised).
    fn ahead(&self, s: &Stmt) -> Ahead {
        let key: *const Stmt = s;
        if let Some(a) = self.ahead.borrow().get(&key) {
            return a.clone();
        }
        let mut written = Vec::new();
        writes(s, &mut written, self.cells, &self.p.values);
        let a: Ahead = (written.into(), has_cut(s));
        self.ahead.borrow_mut().insert(key, a.clone());
        a
    }

    /// Counts a node against --max-steps and the clock; false to stop.
    fn step(&mut self) -> bool {
        self.seen.candidates += 1;
        if self.seen.candidates > self.limits.max_steps as usize {
            self.seen.limit = Some(format!("--max-steps {}", self.limits.max_steps));
            self.stop = true;
        } else if self.seen.candidates.is_multiple_of(256) {
            if let Some(l) = interrupted(self.limits) {
                self.seen.limit = Some(l);
                self.stop = true;
            }
        }
        !self.stop
    }

    /// `run` has reached a bound's cut, its events placed.
    /// The part (the threads done and `run`) is the restriction of any
    /// execution that goes on past the cut at a larger bound, with the
    /// reads that take a write beyond the cut pending (`sources` offers a
    /// later write of the thread itself); so if a prunable check refutes
    /// it, no such execution is consistent.
    fn at_cut(&mut self, run: &Run) {
        if self.reached || !self.step() {
            return;
        }
        self.reached = !self.part_refuted(run);
    }

    /// Whether the part built so far (the threads done and `run`) fails a
    /// prunable check; true also when a limit stops the search.
    fn refuted(&mut self, run: &Run, made: Made) -> bool {
        if !self.step() {
            return true;
        }
        // A small search is over before judging its parts repays itself
        // (`Limits::judge_parts_after`): until then only complete
        // candidates are judged, which is exact, since pruning only ever
        // skips candidates the model rejects.
        if (self.seen.candidates as u64) <= self.limits.judge_parts_after {
            return false;
        }
        // Skipping a check only leaves its verdict to a later part or the
        // complete candidate: when few parts are refuted (fewer than one
        // in four; IRIW, where the model allows nearly everything), seven
        // in eight are skipped (one in 32 cost C59's bound 5 %).
        // Counted apart for reads' sources and writes' positions: once the
        // probes cut a read's refuted sources (`source_refuted`), its
        // parts are seldom refuted where the writes' still are (Dat3M's
        // exchange loops: none of 45 000).
        let m = made as usize;
        self.nodes[m] += 1;
        let rarely = self.tried[m] >= 64 && self.cut[m] * 4 < self.tried[m];
        if rarely && !self.nodes[m].is_multiple_of(8) {
            return false;
        }
        self.tried[m] += 1;
        let cut = self.part_refuted(run);
        self.cut[m] += usize::from(cut);
        cut
    }

    /// Whether a prunable check fails on the part of the threads done and
    /// `run` (true also when it is too large to build: the search stops).
    fn part_refuted(&mut self, run: &Run) -> bool {
        if !self.build_part(run) {
            return true;
        }
        let Some(shape) = self.shape.as_ref() else {
            return true;
        };
        self.model
            .refutes_framed(&shape.x, self.checks, &mut self.frames)
    }

    /// Makes `shape` the part of the threads done and `run`, with the rf and
    /// co chosen so far; false (the search stopped) when it has too many
    /// events.
    fn build_part(&mut self, run: &Run) -> bool {
        if !self.build_skeleton(run) {
            return false;
        }
        let Some(Shape { x, at, .. }) = self.shape.as_mut() else {
            return false;
        };
        // The kept skeleton takes this part's rf and co in place (each
        // part sets both whole).
        x.rf = Rel::new(x.len());
        for &(read, source) in &self.rf {
            if let Source::Now(w) = source {
                x.rf.add(at.index(w), at.index(read));
            }
        }
        x.co = at.co(&self.co, x.len());
        true
    }

    /// Makes `shape` hold the skeleton of the threads done and `run` (its
    /// rf and co those of whichever part was built last); false (the search
    /// stopped) when it has too many events.
    fn build_skeleton(&mut self, run: &Run) -> bool {
        let kept = self
            .shape
            .as_ref()
            .is_some_and(|s| s.done_gen == self.done_gen && same_skeleton(&s.run, &run.trace));
        if !kept {
            let mut chosen: Vec<&Trace> = self.done.iter().collect();
            chosen.push(&run.trace);
            let Some(x) = skeleton(self.p, self.cells, &chosen) else {
                self.seen.limit = Some(format!("at most {MAX_EVENTS} events per execution"));
                self.stop = true;
                return false;
            };
            let at = Layout::of(&x, &chosen);
            self.shape = Some(Shape {
                done_gen: self.done_gen,
                run: run.trace.clone(),
                x,
                at,
            });
        }
        true
    }

    /// The positions `lo..=hi` of write `k` of `run` (thread `pos`) in its
    /// cell's co chain that no probe refutes; the others are cut unjudged.
    ///
    /// A probe is the sub-execution of a part induced by a few of its
    /// events. The prunable checks are monotone under taking any subset of
    /// the events, not only prefixes (`cat::monotone`: every relation fixed
    /// by the traces is a property of one or two events, rf and co
    /// restricted are contained in the whole's), so a check failing on a
    /// probe fails on the part and on each of its completions. A probe is
    /// judged once per search (`probes`, keyed by the probe itself) and
    /// stands for a range of positions, since among its events co is the
    /// same at each of them:
    ///
    /// - *below*: the thread's last access to the cell before the write, a
    ///   write `u` or a read taking a write `u` of the chain (with `u`), and
    ///   the new write placed before `u` (`u` at index `i`): every position
    ///   up to `i` puts it before `u`, so a refuted probe cuts them all
    ///   (coherence: a write after another, or after a read of it, in
    ///   program order is not before it in co).
    /// - *above*: the new write is an RMW's write half and its read takes
    ///   `u`, followed in the chain by `v`; `u`, the read, `v` and the write
    ///   placed after `v`, as every position past `v`'s puts it (atomicity:
    ///   no write between an RMW's read's source and its write).
    ///
    /// A probe is asked only where it stands for two positions or more (one
    /// cut saves one judgement, about what the probe costs: a sweep's small
    /// programs lost 1 to 3 % of their instructions to such probes). A model
    /// that refutes neither probe (weak accesses under PTX, say) loses
    /// nothing but the probes' cost: every position is judged.
    /// `tests/it/cat_pruning.rs` checks the search with and without probes
    /// against the plain enumeration.
    fn co_window(&mut self, pos: usize, run: &Run, k: usize) -> (usize, usize) {
        let cell = run.trace.events[k].cell;
        let len = self.co[cell].len();
        if self.probes.is_none() || len == 0 {
            return (0, len);
        }
        let w = Id::Ev(pos, k);
        let mut lo = 0;
        if let Some((u, access)) = self.last_seen(pos, run, k) {
            // `u` at chain index `i = rank - 1`: positions `0..=i` are below it.
            if let Some(i) = self.rank(cell, u).filter(|&r| r >= 2).map(|r| r - 1) {
                if self.probe(run, Some((cell, w, i)), &[u, access, w]) {
                    lo = i + 1;
                }
            }
        }
        let mut hi = len;
        let rmw_read = run
            .trace
            .rmw
            .iter()
            .find(|&&(_, b)| b == k)
            .map(|&(a, _)| Id::Ev(pos, a));
        if let Some(read) = rmw_read {
            if let Some(Source::Now(src)) = self.source_of(read) {
                // The chain index right after `src` is its rank.
                if let Some(n) = self.rank(cell, src).filter(|&n| n + 1 < len) {
                    let v = self.co[cell][n];
                    if self.probe(run, Some((cell, w, len)), &[src, read, v, w]) {
                        hi = n;
                    }
                }
            }
        }
        (lo, hi)
    }

    /// Whether a probe refutes read `k` of `run` (thread `pos`) taking
    /// `source`, just placed: when the thread's last access to the read's
    /// cell before it is a write `u`, or a read taking `u`, and `source` is
    /// before `u` in co, the probe of the read, its source, that access
    /// (and `u`). Its failing check fails on the part and every completion
    /// (see `co_window`): a read does not take a write co-before one its
    /// thread wrote or read earlier, in the models whose coherence says so.
    fn source_refuted(&mut self, pos: usize, run: &Run, k: usize, source: Source) -> bool {
        let Source::Now(w) = source else {
            return false;
        };
        if self.probes.is_none() {
            return false;
        }
        let Some((u, access)) = self.last_seen(pos, run, k) else {
            return false;
        };
        let (cell, read) = (run.trace.events[k].cell, Id::Ev(pos, k));
        let before = match (self.rank(cell, w), self.rank(cell, u)) {
            (Some(rw), Some(ru)) => rw < ru,
            _ => false,
        };
        before && self.probe(run, None, &[w, read, u, access])
    }

    /// The last access of thread `pos` before event `k` of `run` to that
    /// event's cell, and the write it saw: itself if a write, its source if
    /// a read already placed (`None` if it waits). Under a coherent model
    /// that write is the latest in co of those the thread saw, so the probe
    /// against it cuts the most (probing against every earlier access cost
    /// more than what the others cut besides).
    fn last_seen(&self, pos: usize, run: &Run, k: usize) -> Option<(Id, Id)> {
        let cell = run.trace.events[k].cell;
        let l = run.trace.events[..k]
            .iter()
            .rposition(|e| e.cell == cell && e.kind.is_access())?;
        let access = Id::Ev(pos, l);
        match (run.trace.events[l].kind, self.source_of(access)) {
            (Kind::Write, _) => Some((access, access)),
            (Kind::Read, Some(Source::Now(u))) => Some((u, access)),
            _ => None,
        }
    }

    /// Where write `u` is in `cell`'s co so far: 0 for the initial write,
    /// `i + 1` for index `i` of the chain; `None` if not placed.
    fn rank(&self, cell: usize, u: Id) -> Option<usize> {
        match u {
            Id::Init(_) => Some(0),
            Id::Ev(..) => self.co[cell].iter().position(|&v| v == u).map(|i| i + 1),
        }
    }

    /// Where the read `read` takes its value from, if placed.
    fn source_of(&self, read: Id) -> Option<Source> {
        self.rf.iter().find(|(r, _)| *r == read).map(|&(_, s)| s)
    }

    /// Whether the checks refute the part built so far, with write `w` at
    /// index `at` of `cell`'s chain if `insert` is `Some((cell, w, at))`,
    /// restricted to the events `ids` (at most `Probe::MAX`; see
    /// `co_window`). The probe is the part's skeleton restricted to those
    /// events, with the rf and co the part has among them; judged once per
    /// search (`probes`).
    fn probe(&mut self, run: &Run, insert: Option<(usize, Id, usize)>, ids: &[Id]) -> bool {
        if ids.len() > Probe::MAX || !self.build_skeleton(run) {
            return false;
        }
        let Some(shape) = self.shape.as_ref() else {
            return false;
        };
        let mut ids: smallvec::SmallVec<[Id; Probe::MAX]> = ids.iter().copied().collect();
        ids.sort_by_key(|&u| shape.at.index(u));
        ids.dedup();
        let keep: smallvec::SmallVec<[usize; Probe::MAX]> =
            ids.iter().map(|&u| shape.at.index(u)).collect();
        let x = &shape.x;
        let mut q = Probe {
            events: keep.iter().map(|&e| x.events[e]).collect(),
            rf: 0,
            co: 0,
            fixed: x.fixed().map(|r| Probe::bits(r, &keep)),
        };
        // Where a write is in its cell's co, by twice its `rank`: the
        // inserted write at chain index `at` falls between the writes at
        // `at - 1` (rank `at`) and `at` (rank `at + 1`).
        let place = |u: Id, cell: usize| -> Option<usize> {
            match insert {
                Some((_, w, at)) if u == w => Some(2 * at + 1),
                _ => self.rank(cell, u).map(|r| 2 * r),
            }
        };
        for (a, &u) in ids.iter().enumerate() {
            if let Some(Source::Now(src)) = self.source_of(u) {
                if let Some(b) = ids.iter().position(|&v| v == src) {
                    q.rf |= Probe::pair(b, a);
                }
            }
            let (ea, cell) = (q.events[a], q.events[a].cell);
            for (b, &v) in ids.iter().enumerate() {
                let eb = q.events[b];
                if ea.kind != Kind::Write || eb.kind != Kind::Write || eb.cell != cell {
                    continue;
                }
                if let (Some(pa), Some(pb)) = (place(u, cell), place(v, cell)) {
                    if pa < pb {
                        q.co |= Probe::pair(a, b);
                    }
                }
            }
        }
        let Some(probes) = self.probes.as_mut() else {
            return false;
        };
        if let Some(&refuted) = probes.get(&q) {
            return refuted;
        }
        let refuted = self.model.refutes(&q.execution(), self.checks);
        probes.insert(q, refuted);
        refuted
    }

    /// The candidate of the traces, rf and co chosen (`thread_done` left
    /// no read pending).
    fn leaf(&mut self) {
        if !self.step() {
            return;
        }
        let chosen: Vec<&Trace> = self.done.iter().collect();
        let Some(mut x) = skeleton(self.p, self.cells, &chosen) else {
            self.seen.limit = Some(format!("at most {MAX_EVENTS} events per execution"));
            self.stop = true;
            return;
        };
        let at = Layout::of(&x, &chosen);
        let regs = merged_registers(&chosen);
        for &(read, source) in &self.rf {
            if let Source::Now(w) = source {
                x.rf.add(at.index(w), at.index(read));
            }
        }
        x.co = at.co(&self.co, x.len());
        // The arrangements this one stands for: runs told apart by reads.
        let mut runs: Vec<Vec<i64>> = Vec::new();
        let choice: Vec<usize> = self
            .done
            .iter()
            .map(|t| {
                let r = read_values(&t.events);
                runs.iter().position(|s| *s == r).unwrap_or_else(|| {
                    runs.push(r);
                    runs.len() - 1
                })
            })
            .collect();
        let times = usize::try_from(self.classes.arrangements(&choice)).unwrap_or(usize::MAX);
        if !(self.visit)(&x, &regs, times, &mut self.frames) {
            self.stop = true;
        }
    }
}

/// A probe of `Search::probe`: a sub-execution of at most `MAX` events,
/// each relation among them as bits (bit `MAX * a + b` for the pair
/// `(a, b)`): what the cache of judged probes is keyed by, and what
/// `execution` makes the execution of.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Probe {
    events: smallvec::SmallVec<[Event; Probe::MAX]>,
    rf: u16,
    co: u16,
    /// The relations of `Execution::fixed`, in its order.
    fixed: [u16; 9],
}

impl Probe {
    const MAX: usize = 4;

    fn pair(a: usize, b: usize) -> u16 {
        1 << (Probe::MAX * a + b)
    }

    /// `rel` restricted to the events `keep`, `keep[i]` as `i`.
    fn bits(rel: &Rel, keep: &[usize]) -> u16 {
        let mut out = 0;
        for (i, &a) in keep.iter().enumerate() {
            for (j, &b) in keep.iter().enumerate() {
                if rel.has(a, b) {
                    out |= Probe::pair(i, j);
                }
            }
        }
        out
    }

    fn rel(&self, bits: u16) -> Rel {
        let n = self.events.len();
        let mut r = Rel::new(n);
        for a in 0..n {
            for b in 0..n {
                if bits & Probe::pair(a, b) != 0 {
                    r.add(a, b);
                }
            }
        }
        r
    }

    fn execution(&self) -> Execution {
        Execution::from_fixed(
            self.events.to_vec(),
            self.fixed.map(|b| self.rel(b)),
            self.rel(self.rf),
            self.rel(self.co),
        )
    }
}

/// Where `skeleton` put each event: the initial writes first (by cell),
/// then each trace's events in turn.
struct Layout {
    init: Vec<Option<usize>>,
    offsets: Vec<usize>,
}

impl Layout {
    fn of(x: &Execution, chosen: &[&Trace]) -> Layout {
        let cells = x.events.iter().map(|e| e.cell + 1).max().unwrap_or(0);
        let mut init = vec![None; cells];
        let mut first = 0;
        for (i, e) in x.events.iter().enumerate() {
            if e.thread.is_none() {
                if let Some(slot) = init.get_mut(e.cell) {
                    *slot = Some(i);
                }
                first = i + 1;
            }
        }
        let mut offsets = Vec::with_capacity(chosen.len());
        for t in chosen {
            offsets.push(first);
            first += t.events.len();
        }
        Layout { init, offsets }
    }

    fn index(&self, id: Id) -> usize {
        match id {
            Id::Init(c) => self.init.get(c).copied().flatten().unwrap_or(0),
            Id::Ev(pos, l) => self.offsets.get(pos).copied().unwrap_or(0) + l,
        }
    }

    /// co from the chains: per cell, its initial write, then the chain.
    fn co(&self, chains: &[Vec<Id>], n: usize) -> Rel {
        let mut co = Rel::new(n);
        for (cell, chain) in chains.iter().enumerate() {
            if chain.is_empty() {
                continue;
            }
            let all: Vec<usize> = self
                .init
                .get(cell)
                .copied()
                .flatten()
                .into_iter()
                .chain(chain.iter().map(|&id| self.index(id)))
                .collect();
            for (i, &a) in all.iter().enumerate() {
                for &b in &all[i + 1..] {
                    co.add(a, b);
                }
            }
        }
        co
    }
}
