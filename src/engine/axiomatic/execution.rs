//! Candidate executions, herd7's way: each thread runs alone with every value
//! a read may return (every value of V), giving per-thread traces of events
//! with program order and the syntactic dependencies; a candidate picks one
//! trace per thread, an rf (each read from a same-location write of its
//! value) and a co (a total order per location, the initial write first).
//! Which candidates are executions is the cat model's business.

use std::collections::BTreeMap;

use super::relation::{full, Rel, Set, MAX_EVENTS};
use crate::outcome::Limits;
use crate::syntax::ast::{Mode, RmwOp, Scope, UnOp};
use crate::syntax::core::{Expr, Loc, Program, RegId, Stmt, ThreadId, Vk};

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Read,
    Write,
    Fence,
    /// A Vulkan control barrier; `value` holds its barrier id.
    Barrier,
}

impl Kind {
    /// Reads and writes (not fences or barriers).
    pub fn is_access(self) -> bool {
        matches!(self, Kind::Read | Kind::Write)
    }
}

/// One event of a candidate execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// `None` for an initial write.
    pub thread: Option<ThreadId>,
    pub kind: Kind,
    /// `None` for an initial write, which carries no mode.
    pub mode: Option<Mode>,
    pub scope: Scope,
    /// The memory cell (`Cells`); unused for fences.
    pub cell: usize,
    pub value: i64,
    /// Vulkan qualifiers (all off outside the Vulkan extension).
    pub vk: Vk,
}

/// The shared memory's cells: one per named location, then one per value of
/// V that is no named location's address (reachable only by `[L]`, §1.5).
pub struct Cells {
    /// Cell of each named location, in `p.locs` order.
    pub named: Vec<usize>,
    by_address: BTreeMap<i64, usize>,
    pub init: Vec<i64>,
    pub names: Vec<String>,
}

impl Cells {
    pub fn new(p: &Program) -> Cells {
        let mut c = Cells {
            named: Vec::new(),
            by_address: BTreeMap::new(),
            init: Vec::new(),
            names: Vec::new(),
        };
        for l in &p.locs {
            let cell = c.init.len();
            c.init.push(l.init);
            c.names.push(l.name.clone());
            c.named.push(cell);
            if let Some(a) = l.address {
                c.by_address.entry(a).or_insert(cell);
            }
        }
        for &v in &p.values {
            if !c.by_address.contains_key(&v) {
                c.by_address.insert(v, c.init.len());
                c.init.push(0);
                c.names.push(format!("[{v}]"));
            }
        }
        c
    }
}

/// One thread's run with concrete values: events in the order issued, and
/// the relations among them (indices are local to the trace).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub events: Vec<Event>,
    /// For each event, the events po-before it.
    pub po: Vec<Set>,
    pub addr: Vec<(usize, usize)>,
    pub data: Vec<(usize, usize)>,
    pub ctrl: Vec<(usize, usize)>,
    pub rmw: Vec<(usize, usize)>,
    /// Every register's final value (indexed by register id).
    pub regs: Vec<Option<i64>>,
}

/// Statements run between two looks at the clock (a clock read costs about
/// as much as a statement).
const CHECK_EVERY: usize = 256;

/// Why trace generation stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A named limit; the verdict becomes Unknown.
    Limit(String),
    /// The program has no meaning here (a register read before assignment).
    Unsupported(String),
}

/// A thread's run in progress.
#[derive(Clone)]
pub(super) struct Run {
    thread: ThreadId,
    pub(super) trace: Trace,
    /// The events po-before the next one.
    frontier: Set,
    /// The reads each register's value depends on.
    taint: Vec<Set>,
    /// The reads some earlier branch condition depended on (herd7's ctrl
    /// reaches every po-later event, not only the branch's own).
    ctrl: Set,
}

/// Generates traces; `budget` bounds how many runs one thread may make.
pub struct Traces<'p> {
    p: &'p Program,
    cells: &'p Cells,
    pub budget: usize,
    /// The deadline, Ctrl-C and the memory budget, asked every
    /// `CHECK_EVERY` statements run.
    limits: Limits,
    /// Runs made so far for the current thread (each read makes one per value).
    runs: usize,
    /// Statements run so far, to space out the clock reads.
    steps: usize,
    /// Runs dropped because they write a value, or use an address, outside V.
    pub dropped: usize,
    /// The Vulkan qualifiers of the access being run (`Stmt::Vulkan`).
    vk: Vk,
}

impl<'p> Traces<'p> {
    pub fn new(p: &'p Program, cells: &'p Cells, limits: &Limits) -> Traces<'p> {
        Traces {
            p,
            cells,
            budget: limits.max_states,
            limits: *limits,
            runs: 0,
            steps: 0,
            dropped: 0,
            vk: Vk::default(),
        }
    }

    /// Thread `tid`'s run before its first statement.
    pub(super) fn start(&self, tid: ThreadId) -> Run {
        Run {
            thread: tid,
            trace: Trace {
                regs: vec![None; self.p.regs.len()],
                ..Trace::default()
            },
            frontier: 0,
            taint: vec![0; self.p.regs.len()],
            ctrl: 0,
        }
    }

    /// The runs after one statement (the lazy search's step; a read
    /// makes one per value).
    pub(super) fn step(&mut self, s: &Stmt, run: Run, out: &mut Vec<Run>) -> Result<(), Stop> {
        self.exec(s, run, out)
    }

    /// An `if`'s condition: whether it holds, its reads now control the rest.
    pub(super) fn condition(&mut self, cond: &Expr, run: &mut Run) -> Result<bool, Stop> {
        let (c, t) = self.eval(cond, run)?;
        run.ctrl |= t;
        Ok(c != 0)
    }

    /// Every trace of top-level thread `tid`.
    pub fn of_thread(&mut self, tid: ThreadId, body: &Stmt) -> Result<Vec<Trace>, Stop> {
        let start = self.start(tid);
        self.runs = 0;
        let mut out = Vec::new();
        self.exec(body, start, &mut out)?;
        Ok(out.into_iter().map(|r| r.trace).collect())
    }

    /// Counts the `n` runs a read is about to make: a thread's runs, not
    /// the runs alive at one level, are what grows as |V|^reads.
    fn fork(&mut self, n: usize) -> Result<(), Stop> {
        self.runs = self.runs.saturating_add(n);
        if self.runs > self.budget {
            return Err(Stop::Limit(format!("--max-states {}", self.budget)));
        }
        Ok(())
    }

    fn exec(&mut self, s: &Stmt, run: Run, out: &mut Vec<Run>) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps.is_multiple_of(CHECK_EVERY) {
            if let Some(why) = super::interrupted(&self.limits) {
                return Err(Stop::Limit(why));
            }
        }
        match s {
            Stmt::Skip => out.push(run),
            // A loop's cut path (`--unroll`): not an execution.
            Stmt::Diverge { .. } => {}
            Stmt::Seq(parts) => self.seq(parts, run, out)?,
            Stmt::Let { reg, expr } => {
                let mut run = run;
                let (v, t) = self.eval(expr, &run)?;
                set(&mut run, *reg, v, t);
                out.push(run);
            }
            Stmt::Fence { mode, scope } => {
                let mut run = run;
                self.event(&mut run, Kind::Fence, *mode, *scope, 0, 0)?;
                out.push(run);
            }
            Stmt::Read {
                reg,
                loc,
                mode,
                scope,
            } => self.read(*reg, loc, (*mode, *scope), run, out)?,
            Stmt::Write {
                loc,
                expr,
                mode,
                scope,
            } => self.write(loc, expr, (*mode, *scope), run, out)?,
            Stmt::Rmw {
                reg,
                op,
                read_mode,
                write_mode,
                scope,
                loc,
                args,
            } => self.rmw(
                (*reg, *op, args),
                loc,
                (*read_mode, *write_mode, *scope),
                run,
                out,
            )?,
            Stmt::If { cond, then, els } => {
                let mut run = run;
                let (c, t) = self.eval(cond, &run)?;
                run.ctrl |= t;
                self.exec(if c != 0 { then } else { els }, run, out)?;
            }
            Stmt::Par {
                thread,
                left,
                right,
            } => self.par(*thread, left, right, run, out)?,
            // The qualifiers go on the events of the one access inside.
            Stmt::Vulkan { vk, body, .. } => {
                let outer = std::mem::replace(&mut self.vk, *vk);
                let done = self.exec(body, run, out);
                self.vk = outer;
                done?;
            }
            Stmt::Barrier {
                mode,
                scope,
                vk,
                id,
                ..
            } => {
                let mut run = run;
                let e = self.event(&mut run, Kind::Barrier, Mode::Wk, *scope, 0, *id)?;
                if let Some(ev) = run.trace.events.get_mut(e) {
                    ev.mode = *mode;
                    ev.vk = *vk;
                }
                out.push(run);
            }
        }
        Ok(())
    }

    fn seq(&mut self, parts: &[Stmt], run: Run, out: &mut Vec<Run>) -> Result<(), Stop> {
        let Some((first, rest)) = parts.split_first() else {
            out.push(run);
            return Ok(());
        };
        let mut mid = Vec::new();
        self.exec(first, run, &mut mid)?;
        for r in mid {
            self.seq(rest, r, out)?;
        }
        Ok(())
    }

    /// PAR: `left` runs as thread `child` after what came before; `right`
    /// continues the current thread; what follows comes after both.
    fn par(
        &mut self,
        child: ThreadId,
        left: &Stmt,
        right: &Stmt,
        run: Run,
        out: &mut Vec<Run>,
    ) -> Result<(), Stop> {
        let (parent, before, ctrl) = (run.thread, run.frontier, run.ctrl);
        let mut lefts = Vec::new();
        self.exec(
            left,
            Run {
                thread: child,
                ..run
            },
            &mut lefts,
        )?;
        for l in lefts {
            let after_left = l.frontier;
            let resumed = Run {
                thread: parent,
                frontier: before,
                ctrl,
                ..l
            };
            let mut rights = Vec::new();
            self.exec(right, resumed, &mut rights)?;
            for mut r in rights {
                r.frontier |= after_left;
                out.push(r);
            }
        }
        Ok(())
    }

    /// READ: one run per value of V.
    fn read(
        &mut self,
        reg: RegId,
        loc: &Loc,
        (mode, scope): (Mode, Scope),
        run: Run,
        out: &mut Vec<Run>,
    ) -> Result<(), Stop> {
        let Some((cell, at)) = self.cell(loc, &run)? else {
            self.dropped += 1;
            return Ok(());
        };
        self.fork(self.p.values.len())?;
        for &v in &self.p.values {
            let mut run = run.clone();
            let e = self.event(&mut run, Kind::Read, mode, scope, cell, v)?;
            deps(&mut run.trace.addr, at, e);
            set(&mut run, reg, v, 1 << e);
            out.push(run);
        }
        Ok(())
    }

    /// WRITE: dropped when the value leaves V (the pomset semantics has no
    /// event for it either).
    fn write(
        &mut self,
        loc: &Loc,
        expr: &Expr,
        (mode, scope): (Mode, Scope),
        mut run: Run,
        out: &mut Vec<Run>,
    ) -> Result<(), Stop> {
        let Some((cell, at)) = self.cell(loc, &run)? else {
            self.dropped += 1;
            return Ok(());
        };
        let (v, t) = self.eval(expr, &run)?;
        if self.p.values.binary_search(&v).is_err() {
            self.dropped += 1;
            return Ok(());
        }
        let e = self.event(&mut run, Kind::Write, mode, scope, cell, v)?;
        deps(&mut run.trace.addr, at, e);
        deps(&mut run.trace.data, t, e);
        out.push(run);
        Ok(())
    }

    /// §1.7: a read and, unless a CAS fails, a write related by rmw.
    #[allow(clippy::type_complexity)]
    fn rmw(
        &mut self,
        (reg, op, args): (RegId, RmwOp, &[Expr]),
        loc: &Loc,
        (read_mode, write_mode, scope): (Mode, Mode, Scope),
        run: Run,
        out: &mut Vec<Run>,
    ) -> Result<(), Stop> {
        let Some((cell, at)) = self.cell(loc, &run)? else {
            self.dropped += 1;
            return Ok(());
        };
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.eval(a, &run)?);
        }
        let arg = |i: usize| vals.get(i).copied().unwrap_or((0, 0));
        self.fork(self.p.values.len())?;
        for &old in &self.p.values {
            let mut run = run.clone();
            let r = self.event(&mut run, Kind::Read, read_mode, scope, cell, old)?;
            deps(&mut run.trace.addr, at, r);
            // FADD writes old + M, EXCHG writes M, CAS writes N when old = M.
            let new = match op {
                RmwOp::Fadd => Some((old.wrapping_add(arg(0).0), arg(0).1)),
                RmwOp::Exchg => Some(arg(0)),
                RmwOp::Cas => (old == arg(0).0).then_some((arg(1).0, arg(0).1 | arg(1).1)),
            };
            if let Some((v, t)) = new {
                if self.p.values.binary_search(&v).is_err() {
                    self.dropped += 1;
                    continue;
                }
                let w = self.event(&mut run, Kind::Write, write_mode, scope, cell, v)?;
                deps(&mut run.trace.addr, at, w);
                deps(&mut run.trace.data, t, w);
                run.trace.rmw.push((r, w));
            }
            set(&mut run, reg, old, 1 << r);
            out.push(run);
        }
        Ok(())
    }

    /// Appends an event after the frontier, with ctrl from earlier branches.
    fn event(
        &self,
        run: &mut Run,
        kind: Kind,
        mode: Mode,
        scope: Scope,
        cell: usize,
        value: i64,
    ) -> Result<usize, Stop> {
        let e = run.trace.events.len();
        if e + 1 >= MAX_EVENTS {
            return Err(Stop::Limit(format!(
                "at most {MAX_EVENTS} events per execution"
            )));
        }
        run.trace.events.push(Event {
            thread: Some(run.thread),
            kind,
            mode: Some(mode),
            scope,
            cell,
            value,
            vk: self.vk,
        });
        run.trace.po.push(run.frontier);
        deps(&mut run.trace.ctrl, run.ctrl, e);
        run.frontier |= 1 << e;
        Ok(e)
    }

    /// The cell an access goes to and the reads its address depends on;
    /// `None` for a computed address outside V.
    fn cell(&self, loc: &Loc, run: &Run) -> Result<Option<(usize, Set)>, Stop> {
        Ok(match loc {
            Loc::Named(l) => self.cells.named.get(*l as usize).map(|&c| (c, 0)),
            Loc::Computed(e) => {
                let (a, t) = self.eval(e, run)?;
                if self.p.values.binary_search(&a).is_err() {
                    return Ok(None);
                }
                self.cells.by_address.get(&a).map(|&c| (c, t))
            }
        })
    }

    /// An expression's value and the reads it depends on.
    fn eval(&self, e: &Expr, run: &Run) -> Result<(i64, Set), Stop> {
        Ok(match e {
            Expr::Int(n) => (*n, 0),
            Expr::Reg(r) => {
                let v = run.trace.regs.get(*r as usize).copied().flatten();
                let Some(v) = v else {
                    return Err(Stop::Unsupported(format!(
                        "register {} is read before it is assigned",
                        self.p.reg_name(*r)
                    )));
                };
                (v, run.taint.get(*r as usize).copied().unwrap_or(0))
            }
            Expr::Unary(op, a) => {
                let (v, t) = self.eval(a, run)?;
                let v = match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => i64::from(v == 0),
                };
                (v, t)
            }
            Expr::Binary(op, a, b) => {
                let (x, s) = self.eval(a, run)?;
                let (y, t) = self.eval(b, run)?;
                (op.apply(x, y), s | t)
            }
        })
    }
}

fn set(run: &mut Run, reg: RegId, v: i64, taint: Set) {
    if let Some(slot) = run.trace.regs.get_mut(reg as usize) {
        *slot = Some(v);
    }
    if let Some(slot) = run.taint.get_mut(reg as usize) {
        *slot = taint;
    }
}

/// Edges from every read in `from` to event `to`.
fn deps(rel: &mut Vec<(usize, usize)>, from: Set, to: usize) {
    rel.extend(super::relation::members(from).map(|r| (r, to)));
}

/// A candidate execution: events (initial writes first), and the relations
/// herd7 gives a cat model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub events: Vec<Event>,
    pub po: Rel,
    pub rf: Rel,
    pub co: Rel,
    pub rmw: Rel,
    pub addr: Rel,
    pub data: Rel,
    pub ctrl: Rel,
    /// Definition 1.1 from the scope tree: same cta, same gpu.
    pub same_cta: Rel,
    pub same_gpu: Rel,
    /// Vulkan: same subgroup; and control barriers that are one dynamic
    /// instance (same barrier id, the same number of times executed).
    pub same_sg: Rel,
    pub syncbar: Rel,
}

impl Execution {
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events satisfying a predicate.
    pub fn set(&self, f: impl Fn(&Event) -> bool) -> Set {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| f(e))
            .fold(0, |s, (i, _)| s | 1 << i)
    }

    pub fn all(&self) -> Set {
        full(self.len())
    }

    /// Every relation but rf and co, in the order `from_fixed` takes them:
    /// po, rmw, addr, data, ctrl, same-cta, same-gpu, same-sg, syncbar (what
    /// the traces fix). The pattern names every field, so a field added
    /// does not compile until it is placed here, in or out.
    pub fn fixed(&self) -> [&Rel; 9] {
        let Execution {
            events: _,
            po,
            rf: _,
            co: _,
            rmw,
            addr,
            data,
            ctrl,
            same_cta,
            same_gpu,
            same_sg,
            syncbar,
        } = self;
        [
            po, rmw, addr, data, ctrl, same_cta, same_gpu, same_sg, syncbar,
        ]
    }

    /// The execution of `events` with the relations `fixed` (in `fixed`'s
    /// order), rf and co.
    pub fn from_fixed(events: Vec<Event>, fixed: [Rel; 9], rf: Rel, co: Rel) -> Execution {
        let [po, rmw, addr, data, ctrl, same_cta, same_gpu, same_sg, syncbar] = fixed;
        Execution {
            events,
            po,
            rf,
            co,
            rmw,
            addr,
            data,
            ctrl,
            same_cta,
            same_gpu,
            same_sg,
            syncbar,
        }
    }
}
