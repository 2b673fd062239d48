//! The reference engine: a second, deliberately naive implementation of the
//! note's Fig. 1 and of the candidate and complete conditions (§1.3),
//! written to be read next to the note. Its value is that it is obviously
//! right, not that it is fast: it is an oracle for the fast engine
//! (`semantics::decide`) on tiny programs, and `pomset run --engine
//! reference` makes it a debugging aid.
//!
//! It shares no decision code with the fast engine: it uses only the logic
//! (`crate::logic`), the labels and their relations (`crate::action`), the
//! model, the core syntax, and the plain result types of `semantics::decide`.
//!
//! - `construct`: one function per construct, each returning every pomset
//!   (every value, present and absent events, every coalescing, every ↓e).
//!   The only pruning is M3a: a pomset with a λ-inconsistent κ(e) is none.
//! - `complete`: c2a-c8b for each rf and each choice of disjuncts, by least
//!   fixpoint; c2b, c3 and c5 here.
//! - this file: the whole test SEQ(INIT, PAR(T0, PAR(T1, …))) (then OBS
//!   with `final = observer`), and the final states.
//!
//! Refused: `merge = multi`, and `if_closure = on` like the fast engine.
//! `merge = binary` (§2's merge in SEQ, with `merge_read`) and `if_closure =
//! registers` are built literally in `construct`.

mod complete;
mod construct;
mod expr;
mod pomset;

use std::collections::BTreeMap;
use std::time::Instant;

use complete::{every_rf, Edge, Frame, LOC};
use construct::{Den, Stop};
use pomset::{Pomset, Tau, ALL};

use crate::action::{Groups, Kind, Mode, Scope, ThreadId};
use crate::logic::{Assignment, FormulaId, Logic, Var};
use crate::model::{DroppedRead, Final, IfClosure, Init, Merge, Model};
use crate::outcome::{Outcomes, State, Unsupported};
use crate::syntax::core::{Expr, Loc, Program, Reach, Stmt};

/// Limits on one decision, the limits every engine honours; reaching one
/// sets `Outcomes::limit`. The reference engine reads `max_pomsets`,
/// `max_states`, `deadline` and the memory budget.
pub use crate::outcome::Limits;

/// The final states of `p` under `model`: one `State` per distinct
/// (registers, memory) of a complete pomset of the whole test. Counts are
/// the complete pomsets with rf (and, for `final = loc_max`, final memory
/// choice) ending there; only the key set is meant to match the fast engine.
pub fn outcomes(p: &Program, model: &Model, limits: Limits) -> Result<Outcomes, Unsupported> {
    if model.merge == Merge::Multi {
        return Err(Unsupported::Option("merge", model.merge.as_str()));
    }
    if model.if_closure == IfClosure::On {
        return Err(Unsupported::Option("if_closure", "on"));
    }
    if model.dropped_read == DroppedRead::Unchanged {
        return Err(Unsupported::Option("dropped_read", "unchanged"));
    }
    if let Some((at, what)) = p.vulkan_only() {
        return Err(Unsupported::VulkanOnly(what, at));
    }
    let mut den = Den::new(p, model, limits.max_pomsets, limits.deadline);
    den.max_states = limits.max_states;
    let mut out = Outcomes {
        states: BTreeMap::new(),
        witnesses: 0,
        limit: None,
        stats: Default::default(),
        counters: Vec::new(),
        notes: p.bound_note(Reach::Unknown).into_iter().collect(),
        flags: Vec::new(),
        orbits: None,
        factored: None,
    };
    if let Err(Stop(why)) = run(&mut den, &mut out) {
        out.limit = Some(why);
    }
    out.stats = den.l.stats();
    Ok(out)
}

fn run(den: &mut Den, out: &mut Outcomes) -> Result<(), Stop> {
    let whole = whole_test(den)?;
    let groups = ProgramGroups(den.p);
    for p in &whole {
        den.within_limits(0)?;
        decide(den, &groups, p, out)?;
    }
    Ok(())
}

/// Definition 1.1 for the program's threads; the implicit initialising and
/// observing threads share a cta or gpu with nobody.
struct ProgramGroups<'a>(&'a Program);

impl Groups for ProgramGroups<'_> {
    fn same_cta(&self, a: ThreadId, b: ThreadId) -> bool {
        let t = &self.0.threads;
        a == b
            || matches!((t.get(a as usize), t.get(b as usize)), (Some(x), Some(y)) if x.cta == y.cta)
    }
    fn same_gpu(&self, a: ThreadId, b: ThreadId) -> bool {
        let t = &self.0.threads;
        a == b
            || matches!((t.get(a as usize), t.get(b as usize)), (Some(x), Some(y)) if x.gpu == y.gpu)
    }
}

/// SEQ(INIT, PAR(T0, PAR(T1, …))), and SEQ(that, OBS) with `final = observer`.
fn whole_test(den: &mut Den) -> Result<Vec<Pomset>, Stop> {
    let p = den.p;
    let init = initial_writes(den)?;
    let mut threads = Vec::new();
    for (tid, body) in &p.main {
        threads.push((*tid, den.stmt(body, *tid)?));
    }
    let mut acc = match threads.pop() {
        Some((tid, mut last)) => {
            for q in &mut last {
                q.forks.push((tid, q.tau.clone()));
            }
            last
        }
        None => vec![den.skip()],
    };
    while let Some((tid, left)) = threads.pop() {
        acc = den.par(tid, &left, &acc)?;
    }
    let whole = den.seq(&init, &acc)?;
    if den.model.final_ != Final::Observer {
        return Ok(whole);
    }
    let obs = observer(den)?;
    den.seq(&whole, &obs)
}

/// INIT (option `init`): SEQ of one WRITE per named location (its initial
/// value) and, when the program computes an address, per other ℓ ∈ V
/// (value 0), by a thread of its own, scope sys.
fn initial_writes(den: &mut Den) -> Result<Vec<Pomset>, Stop> {
    let p = den.p;
    let mode = match den.model.init {
        Init::None => return Ok(vec![den.skip()]),
        Init::Rlx => Mode::Rlx,
        Init::Wk => Mode::Wk,
    };
    let thread = p.threads.len() as ThreadId;
    let mut cells: Vec<(Loc, i64)> = (0..p.locs.len())
        .map(|i| (Loc::Named(i as u32), p.locs[i].init))
        .collect();
    if p.main.iter().any(|(_, s)| computes_address(s)) {
        for &v in &p.values {
            if !den.addr.contains(&v) {
                cells.push((Loc::Computed(Expr::Int(v)), 0));
            }
        }
    }
    let mut acc = vec![den.skip()];
    for (loc, value) in cells {
        let w = den.write(&loc, &Expr::Int(value), mode, Scope::Sys, thread)?;
        acc = den.seq(&acc, &w)?;
    }
    Ok(acc)
}

fn computes_address(s: &Stmt) -> bool {
    match s {
        Stmt::Read { loc, .. } | Stmt::Write { loc, .. } | Stmt::Rmw { loc, .. } => {
            matches!(loc, Loc::Computed(_))
        }
        Stmt::If { then, els, .. } => computes_address(then) || computes_address(els),
        Stmt::Seq(parts) => parts.iter().any(computes_address),
        Stmt::Par { left, right, .. } => computes_address(left) || computes_address(right),
        _ => false,
    }
}

/// OBS (`final = observer`): one rlx, sys READ of every named location, by
/// a thread of its own, into registers no program uses.
fn observer(den: &mut Den) -> Result<Vec<Pomset>, Stop> {
    let p = den.p;
    let thread = p.threads.len() as ThreadId + 1;
    let mut acc = vec![den.skip()];
    for i in 0..p.locs.len() {
        let reg = (p.regs.len() + i) as u32;
        let r = den.read(
            reg,
            &Loc::Named(i as u32),
            Mode::Rlx,
            Scope::Sys,
            thread,
            false,
        )?;
        acc = den.seq(&acc, &r)?;
    }
    Ok(acc)
}

/// c5, c3, then every total rf (c2a, c2b) that is a candidate, with its
/// final states.
fn decide(
    den: &mut Den,
    groups: &ProgramGroups,
    p: &Pomset,
    out: &mut Outcomes,
) -> Result<(), Stop> {
    if !den.l.tautology(p.check) {
        return Ok(());
    }
    if !p.events.iter().all(|e| den.l.tautology(e.kappa)) {
        return Ok(());
    }
    let position = |id: u32| p.events.iter().position(|e| e.id == id);
    let pairs = |edges: &[(u32, u32)]| -> Vec<(usize, usize)> {
        edges
            .iter()
            .filter_map(|&(a, b)| Some((position(a)?, position(b)?)))
            .collect()
    };
    let frame = Frame {
        labels: p.events.iter().map(|e| e.label).collect(),
        dep: pairs(&p.dep),
        po: p
            .po
            .iter()
            .filter_map(|&(a, b, la, lb)| Some((position(a)?, position(b)?, la, lb)))
            .collect(),
        rmw: pairs(&p.rmw),
        model: den.model,
        groups,
    };
    let regs = registers(den, p);
    let deadline = den.deadline();
    let give_up = move || {
        deadline.is_some_and(|d| Instant::now() > d) || crate::memory::over_budget().is_some()
    };
    for rf in every_rf(&frame.labels) {
        let memories = match den.model.final_ {
            Final::LocMax => loc_max(den, &frame, &rf, &give_up)?,
            Final::Observer => match frame.feasible(&rf, &[], &give_up) {
                Some(true) => vec![observed(den, p)],
                Some(false) => vec![],
                None => return Err(stopped(den)),
            },
        };
        for mem in memories {
            let state = State {
                regs: regs.clone(),
                mem,
            };
            // A new state beyond `--max-states` is not kept.
            if !out.states.contains_key(&state) && out.states.len() >= den.max_states {
                return Err(Stop(format!("--max-states {}", den.max_states)));
            }
            out.witnesses += 1;
            *out.states.entry(state).or_insert(0) += 1;
        }
    }
    Ok(())
}

/// Which limit stopped an rf search: the deadline, the memory budget, or
/// the engine's own bound on c7b/c8b instances.
fn stopped(den: &Den) -> Stop {
    if let Err(stop) = den.within_limits(0) {
        return stop;
    }
    Stop("more than 32 c7b/c8b instances (the reference engine's bound)".to_string())
}

type Memory = Vec<(String, Option<i64>)>;

/// `final = loc_max`: a choice picks, per named location, one write or ⊥;
/// it is feasible when some valid orders put each picked write ⊑-above every
/// other write to its location. The memories are those of the maximal
/// feasible choices (no ⊥ can be replaced by a write), ⊥ printed as None.
fn loc_max(
    den: &Den,
    frame: &Frame,
    rf: &[Option<usize>],
    give_up: &dyn Fn() -> bool,
) -> Result<Vec<Memory>, Stop> {
    let p = den.p;
    let writes: Vec<Vec<usize>> = (0..p.locs.len())
        .map(|i| {
            let loc = den.label_loc(den.addr[i]);
            (0..frame.labels.len())
                .filter(|&k| {
                    frame.labels[k].kind == Kind::Write && Some(frame.labels[k].loc) == loc
                })
                .collect()
        })
        .collect();
    // Each choice as one index per location: 0 is ⊥, k is writes[i][k - 1].
    let mut feasible: Vec<Vec<usize>> = Vec::new();
    let mut pick = vec![0usize; writes.len()];
    loop {
        let extra: Vec<Edge> = pick
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .flat_map(|(i, &k)| {
                let top = writes[i][k - 1];
                writes[i]
                    .iter()
                    .filter(move |&&o| o != top)
                    .map(move |&o| (LOC, o, top))
            })
            .collect();
        match frame.feasible(rf, &extra, give_up) {
            Some(true) => feasible.push(pick.clone()),
            // All ⊥ adds nothing: if it fails, so does every choice.
            Some(false) if extra.is_empty() => return Ok(vec![]),
            Some(false) => {}
            None => return Err(stopped(den)),
        }
        if !advance(&mut pick, |i| writes[i].len() + 1) {
            break;
        }
    }
    let maximal = feasible.iter().filter(|c| {
        !feasible.iter().any(|d| {
            (0..c.len())
                .any(|i| c[i] == 0 && d[i] != 0 && (0..c.len()).all(|j| j == i || c[j] == d[j]))
        })
    });
    let mut out: Vec<Memory> = Vec::new();
    for c in maximal {
        let mem: Memory = c
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let v = (k > 0).then(|| frame.labels[writes[i][k - 1]].value);
                (p.locs[i].name.clone(), v)
            })
            .collect();
        if !out.contains(&mem) {
            out.push(mem);
        }
    }
    Ok(out)
}

/// Odometer step: position i ranges over 0..size(i); false after the last.
fn advance(pick: &mut [usize], size: impl Fn(usize) -> usize) -> bool {
    for (i, k) in pick.iter_mut().enumerate() {
        *k += 1;
        if *k < size(i) {
            return true;
        }
        *k = 0;
    }
    false
}

/// `final = observer`: [x] is what the observer's read of x returns, None
/// if it was dropped.
fn observed(den: &Den, p: &Pomset) -> Memory {
    let obs = den.p.threads.len() as ThreadId + 1;
    (0..den.p.locs.len())
        .map(|i| {
            let loc = den.label_loc(den.addr[i]);
            let v = p
                .events
                .iter()
                .find(|e| {
                    e.label.thread == obs && e.label.kind == Kind::Read && Some(e.label.loc) == loc
                })
                .map(|e| e.label.value);
            (den.p.locs[i].name.clone(), v)
        })
        .collect()
}

/// Each register of each thread (top-level threads in order, each followed
/// by the threads it forks, as the fast engine lists them): r = v when
/// θ_λ ⊨ τ_t(r = v), τ_t the thread's own transformer after INIT.
fn registers(den: &mut Den, p: &Pomset) -> Vec<(String, Option<i64>)> {
    let prog = den.p;
    let theta = p.theta(&mut den.l);
    let env = p
        .events
        .iter()
        .filter(|e| e.label.kind == Kind::Read)
        .fold(Assignment::new(), |a, e| {
            a.with(Var::Read(e.id), e.label.value)
        });
    let mut order = Vec::new();
    for (tid, body) in &prog.main {
        order.push(*tid);
        forks_in(body, &mut order);
    }
    let mut out = Vec::new();
    for t in order {
        let tau = p
            .forks
            .iter()
            .find(|(u, _)| *u == t)
            .map(|(_, f)| f.clone());
        for (r, info) in prog.regs.iter().enumerate() {
            if info.thread != t || info.fresh {
                continue;
            }
            let name = format!("{}:{}", prog.thread_name(t), info.name);
            let value = tau
                .as_ref()
                .and_then(|tau| register(&mut den.l, tau, r as u32, theta, &env, &prog.values));
            out.push((name, value));
        }
    }
    out
}

/// The threads forked in `s`, in the order PAR, SEQ and IF collect them.
fn forks_in(s: &Stmt, out: &mut Vec<ThreadId>) {
    match s {
        Stmt::Par {
            thread,
            left,
            right,
        } => {
            forks_in(left, out);
            forks_in(right, out);
            out.push(*thread);
        }
        Stmt::Seq(parts) => parts.iter().for_each(|s| forks_in(s, out)),
        Stmt::If { then, els, .. } => {
            forks_in(then, out);
            forks_in(els, out);
        }
        _ => {}
    }
}

/// The value v with θ_λ ⊨ τ(r = v), if one exists. Values may lie outside
/// V, so candidates come from a probe: τ(r = p) for a fresh register p, its
/// atoms t = p evaluated under θ_λ; each candidate is then checked by the
/// entailment, which alone decides.
fn register(
    l: &mut Logic,
    tau: &Tau,
    r: u32,
    theta: FormulaId,
    env: &Assignment,
    values: &[i64],
) -> Option<i64> {
    let probe = Var::Reg(u32::MAX);
    let (rv, pv) = (l.reg(r), l.var(probe));
    let atom = l.eq(rv, pv);
    let probed = tau(l, ALL, atom);
    let mut candidates = l.probe_values(probed, probe, env);
    candidates.extend_from_slice(values);
    candidates.into_iter().find(|&c| {
        let ct = l.value(c);
        let atom = l.eq(rv, ct);
        let after = tau(l, ALL, atom);
        l.entails(theta, after)
    })
}

/// The reference engine as a peer (`pwt:reference`): it decides the pomset
/// semantics, so a file's expectations are its to check; nothing else.
pub struct Reference;

impl crate::engine::Engine for Reference {
    fn name(&self) -> &str {
        "pwt:reference"
    }

    fn can(&self, c: crate::engine::Capability) -> bool {
        c == crate::engine::Capability::Expectations
    }

    fn outcomes(
        &self,
        p: &Program,
        model: &Model,
        limits: crate::outcome::Limits,
    ) -> Result<Outcomes, String> {
        outcomes(p, model, limits).map_err(|u| u.sentence("is not implemented by `run` yet"))
    }
}
