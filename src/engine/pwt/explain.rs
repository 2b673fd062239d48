//! `pomset explain`: why an outcome is (or is not) reachable. For each way a
//! thread could produce the outcome's registers and each rf, name the rule
//! that fails: a precondition or ✓ that is not a tautology (c3, c5), a cycle
//! in one of the orders, or a c8b instance that blocks every placement.

use std::collections::BTreeMap;

use super::construct::Sem;
use super::decide::{self, Completed, ThreadGroups};
use super::tau::Events;
use crate::action::{Action, Kind};
use crate::engine::pwt::check::{Choice, Failure, OrderKind, RfMode, Search, Visit};
use crate::logic::{Addr, Names, Notation};
use crate::model::Model;
use crate::outcome::Unsupported;
use crate::pomset::Skeleton;
use crate::syntax::core::{Program, Prop, Stmt, Term};

/// What `explain` found, as lines a person reads.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub reachable: bool,
    pub lines: Vec<String>,
}

/// How many distinct reasons to print for each kind of failure.
const SHOWN: usize = 6;

pub fn explain(p: &Program, model: &Model, prop: &Prop) -> Result<Explanation, Unsupported> {
    let limits = crate::outcome::Limits {
        max_pomsets: 200_000,
        ..crate::outcome::Limits::default()
    };
    explain_within(p, model, prop, &limits)
}

/// As `explain`, stopping at `limits`' pomset count, step budget, deadline
/// and Ctrl-C flag (the web explorer's per-request limits); reaching one
/// gives the "Unknown: Limit reached" line, never a verdict or a wrong reason.
pub fn explain_within(
    p: &Program,
    model: &Model,
    prop: &Prop,
    limits: &crate::outcome::Limits,
) -> Result<Explanation, Unsupported> {
    decide::refused_program(p, model)?;
    let mut sem = Sem::new(p, model, limits.max_pomsets, limits.max_partitions);
    sem.deadline = limits.deadline;
    sem.cancel = limits.cancel;
    let mut lines = Vec::new();
    match walk(&mut sem, p, (model, limits), prop, &mut lines) {
        Ok(reachable) => Ok(Explanation { reachable, lines }),
        Err(Stopped(l)) => Ok(Explanation {
            reachable: false,
            lines: vec![format!(
                "Unknown: Limit reached: {l} (no explanation; raise the limit)"
            )],
        }),
    }
}

/// The limit that stopped `walk`, named as a report names it.
struct Stopped(String);

impl From<super::construct::Limit> for Stopped {
    fn from(l: super::construct::Limit) -> Stopped {
        Stopped(l.text())
    }
}

/// The most steps one rf search may take, as `decide`'s searches.
const SEARCH_STEPS: u64 = 1_000_000;

fn walk(
    sem: &mut Sem,
    p: &Program,
    (model, limits): (&Model, &crate::outcome::Limits),
    prop: &Prop,
    lines: &mut Vec<String>,
) -> Result<bool, Stopped> {
    let init_thread = p.threads.len() as u32;
    let (init, init_tau) = decide::init_prefix(sem, p, model, init_thread)?;
    let mut per_thread: Vec<Vec<Completed>> = Vec::new();
    for (k, (tid, body)) in p.main.iter().enumerate() {
        let frags = sem.denote(body, *tid)?;
        let mut fitting = Vec::new();
        let mut misfits: std::collections::BTreeSet<String> = Default::default();
        for f in frags {
            // Completing a fragment (minimal dependency sets) may be slow.
            sem.interrupted()?;
            for mut c in decide::complete(sem, f, init_tau) {
                c.regs = decide::final_registers(sem, p, init_tau, k, &c).into();
                if can_hold(p, prop, &c.regs) {
                    fitting.push(c);
                } else {
                    misfits.insert(regs_text(&c.regs));
                }
            }
        }
        if fitting.is_empty() && !misfits.is_empty() {
            lines.push(format!(
                "Thread {} completes only with registers that cannot satisfy the condition:",
                p.thread_name(*tid)
            ));
            lines.extend(misfits.iter().take(SHOWN).map(|r| format!("- {r}")));
            if misfits.len() > SHOWN {
                lines.push(format!("- … and {} more", misfits.len() - SHOWN));
            }
            return Ok(false);
        }
        if fitting.is_empty() {
            lines.push(format!(
                "Thread {} never completes with these registers:",
                p.thread_name(*tid)
            ));
            lines.extend(incomplete_reasons(sem, p, init_tau, k, prop));
            return Ok(false);
        }
        per_thread.push(fitting);
    }
    let groups = ThreadGroups { p };
    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    let mut tried = 0usize;
    let mut ways = 0usize;
    let mut choice = vec![0usize; per_thread.len()];
    let mut reachable = false;
    let mut stopped: Option<Stopped> = None;
    // The steps of every rf search together, as `run` counts them.
    let mut steps = limits.max_steps;
    combos(&per_thread, 0, &mut choice, &mut |parts| {
        if stopped.is_some() {
            return;
        }
        if let Err(limit) = sem.interrupted() {
            stopped = Some(limit.into());
            return;
        }
        let regs: Vec<(String, Option<i64>)> =
            parts.iter().flat_map(|c| c.regs.iter().cloned()).collect();
        if !can_hold(p, prop, &regs) {
            return;
        }
        ways += 1;
        let (sk, _) = decide::skeleton(&init, parts);
        let names = EventNames::new(sem, p, &sk);
        let budget = steps.min(SEARCH_STEPS);
        let mut search = Search::new(&sk, model, &groups, budget);
        let mut any_rf = false;
        let mut late = None;
        // Every rf is decided, and its failure named: no prefix is cut.
        let complete = search.each_rf(RfMode::Total, &mut |s, rf, visit| {
            if visit == Visit::Prefix {
                return true;
            }
            any_rf = true;
            tried += 1;
            if tried.is_multiple_of(256) {
                if let Err(limit) = sem.interrupted() {
                    late = Some(limit);
                    s.budget = 0;
                    return false;
                }
            }
            match s.decide(rf) {
                Ok(w) => {
                    let mut ends = Vec::new();
                    for mem in decide::final_memory(sem, p, model, &groups, &sk, &w) {
                        let state = crate::outcome::State {
                            regs: regs.clone(),
                            mem,
                        };
                        if crate::outcome::verdict::holds(p, &state, prop) {
                            reachable = true;
                        }
                        ends.push(state_text(&state));
                    }
                    // A candidate whose every final state misses the condition.
                    let text = format!(
                        "{}: a complete pomset, but it ends in {}, which does not satisfy the condition",
                        with_rf(&names.rf(rf)),
                        ends.join(" or ")
                    );
                    *failures.entry(text).or_insert(0) += 1;
                }
                Err(f) => {
                    let text = format!("{}: {}", with_rf(&names.rf(rf)), names.failure(&f, 1));
                    *failures.entry(text).or_insert(0) += 1;
                }
            }
            true
        });
        if !any_rf {
            let unsourced: Vec<String> = (0..sk.len())
                .filter(|&e| sk.labels[e].kind == Kind::Read)
                .filter(|&e| {
                    !(0..sk.len()).any(|d| crate::action::matches(&sk.labels[d], &sk.labels[e]))
                })
                .map(|e| names.event(e))
                .collect();
            let text = format!("no write matches {} (c2a, c2b)", unsourced.join(", "));
            *failures.entry(text).or_insert(0) += 1;
        }
        steps = steps.saturating_sub(budget.saturating_sub(search.budget).max(1));
        if let Some(limit) = late {
            stopped = Some(limit.into());
        } else if !complete {
            // A search cut short leaves rf choices untried: no verdict.
            let one = if steps == 0 { "" } else { " (the rf search)" };
            stopped = Some(Stopped(format!("--max-steps {}{one}", limits.max_steps)));
        }
    });
    // A complete pomset found is a witness whatever stopped the search.
    if reachable {
        lines.push(
            "Reachable: some complete pomset ends in this state (`pomset run` lists it).".into(),
        );
        return Ok(true);
    }
    if let Some(limit) = stopped {
        return Err(limit);
    }
    lines.push(format!(
        "Forbidden: {ways} combination(s) of thread behaviours produce the registers, with {tried} rf choice(s) in all; each fails:"
    ));
    if failures.is_empty() {
        // ways = 0: each thread can fit alone, but no combination fits together.
        failures.insert(
            "no combination of the threads' behaviours gives registers that can satisfy the condition".into(),
            1,
        );
    }
    for (text, n) in failures.iter().take(SHOWN) {
        let times = if *n > 1 {
            format!(" ({n} times)")
        } else {
            String::new()
        };
        lines.push(format!("- {text}{times}"));
    }
    if failures.len() > SHOWN {
        lines.push(format!(
            "- … and {} more distinct reasons",
            failures.len() - SHOWN
        ));
    }
    Ok(false)
}

/// Why a thread has no complete fragment with registers that fit: the
/// precondition or ✓ that no choice of dependencies makes a tautology.
fn incomplete_reasons(
    sem: &mut Sem,
    p: &Program,
    init: super::tau::Tau,
    k: usize,
    prop: &Prop,
) -> Vec<String> {
    sem.complete_only = false;
    let (tid, body) = &p.main[k];
    let frags = match sem.denote(body, *tid) {
        Ok(f) => f,
        Err(l) => return vec![format!("- (limit reached: {})", l.text())],
    };
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    // The bound of a loop this thread has, whose cut paths have ✓ = ff.
    let cut = p
        .unroll
        .filter(|_| has(body, &|s| matches!(s, Stmt::Diverge { bound: true })));
    for f in frags {
        let c = Completed {
            frag: f,
            deps: vec![],
            regs: Vec::new().into(),
        };
        let regs = decide::final_registers(sem, p, init, k, &c);
        if !can_hold(p, prop, &regs) {
            continue;
        }
        let f = &c.frag;
        let check = decide::finish(sem, f, init, f.check);
        if !sem.l.tautology(check) {
            let shown = show(sem, p, check);
            let reason = match cut {
                Some(n) if shown == "ff" => format!(
                    "- ✓ = ff: the path runs a loop past --unroll {n}, where it is cut (c5; raise --unroll)"
                ),
                _ => format!("- ✓ = {shown} is not a tautology (c5)"),
            };
            *reasons.entry(reason).or_insert(0) += 1;
            continue;
        }
        let all: Events = u64::MAX;
        for e in &f.events {
            let kappa = sem.trees.eval(&mut sem.l, e.kappa, all);
            let kappa = decide::finish(sem, f, init, kappa);
            if !sem.l.tautology(kappa) {
                let shown = show(sem, p, kappa);
                let ev = label_text(sem, p, &e.label);
                *reasons.entry(format!("- κ({ev}) = {shown} is not a tautology, even depending on every earlier read (c3)")).or_insert(0) += 1;
                break;
            }
        }
    }
    sem.complete_only = true;
    let mut out: Vec<String> = reasons.keys().take(SHOWN).cloned().collect();
    if out.is_empty() {
        out.push(match cut {
            // The paths that could end so were cut, and so left no fragment.
            Some(n) => format!(
                "- no path within --unroll {n} produces them; a path that runs a loop further is cut there (✓ = ff; raise --unroll)"
            ),
            None if has(body, &|s| matches!(s, Stmt::Read { .. } | Stmt::Rmw { .. })) => {
                "- every way to produce them has a read that no write can fulfil".into()
            }
            None => "- no way of this thread produces them".into(),
        });
    }
    out
}

/// Whether `s` or a statement inside it satisfies `f`.
fn has(s: &Stmt, f: &dyn Fn(&Stmt) -> bool) -> bool {
    if f(s) {
        return true;
    }
    match s {
        Stmt::Seq(parts) => parts.iter().any(|x| has(x, f)),
        Stmt::If { then, els, .. } => has(then, f) || has(els, f),
        Stmt::Par { left, right, .. } => has(left, f) || has(right, f),
        Stmt::Vulkan { body, .. } => has(body, f),
        _ => false,
    }
}

/// Truth values a condition may still take, as a set: true, false, unknown.
const T: u8 = 1;
const F: u8 = 2;
const U: u8 = 4;

/// Whether the condition can still be true once the rest of the state is
/// known: registers not listed yet and final memory may take any value
/// (or be undetermined), while a listed register that is undetermined (`?`)
/// stays unknown (Kleene's logic, `verdict::holds`). Sound for pruning: it
/// over-approximates the truth values the condition can take.
fn can_hold(p: &Program, prop: &Prop, regs: &[(String, Option<i64>)]) -> bool {
    possible(p, prop, regs) & T != 0
}

fn possible(p: &Program, prop: &Prop, regs: &[(String, Option<i64>)]) -> u8 {
    // Some(Some(v)): known; Some(None): undetermined; None: not known yet.
    let value = |t: &Term| -> Option<Option<i64>> {
        match t {
            Term::Int(v) => Some(Some(*v)),
            Term::Reg(r) => {
                let info = &p.regs[*r as usize];
                let name = format!("{}:{}", p.thread_name(info.thread), info.name);
                regs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
            }
            Term::Mem(_) => None,
        }
    };
    let kleene = |a: u8, b: u8, and: bool| -> u8 {
        let mut out = 0;
        for x in [T, F, U].into_iter().filter(|x| a & x != 0) {
            for y in [T, F, U].into_iter().filter(|y| b & y != 0) {
                out |= match (and, x, y) {
                    (true, F, _) | (true, _, F) => F,
                    (true, T, T) => T,
                    (false, T, _) | (false, _, T) => T,
                    (false, F, F) => F,
                    _ => U,
                };
            }
        }
        out
    };
    match prop {
        Prop::True => T,
        Prop::False => F,
        Prop::Not(a) => {
            let x = possible(p, a, regs);
            (if x & T != 0 { F } else { 0 }) | (if x & F != 0 { T } else { 0 }) | (x & U)
        }
        Prop::And(a, b) => kleene(possible(p, a, regs), possible(p, b, regs), true),
        Prop::Or(a, b) => kleene(possible(p, a, regs), possible(p, b, regs), false),
        Prop::Cmp(a, op, b) => match (value(a), value(b)) {
            (Some(Some(x)), Some(Some(y))) => {
                if op.holds(x, y) {
                    T
                } else {
                    F
                }
            }
            (Some(None), _) | (_, Some(None)) => U,
            _ => T | F | U,
        },
    }
}

/// "with rf …", or "with no reads" when there is none to show.
fn with_rf(rf: &str) -> String {
    if rf.is_empty() {
        "with no reads".into()
    } else {
        format!("with rf {rf}")
    }
}

/// A thread's registers as `P0:r=1, P0:s=?`.
fn regs_text(regs: &[(String, Option<i64>)]) -> String {
    if regs.is_empty() {
        return "(no registers)".into();
    }
    state_text(&crate::outcome::State {
        regs: regs.to_vec(),
        mem: vec![],
    })
}

/// A final state as `P0:r=1, [x]=2`, `?` for an undetermined value.
fn state_text(s: &crate::outcome::State) -> String {
    let show = |(n, v): &(String, Option<i64>)| match v {
        Some(v) => format!("{n}={v}"),
        None => format!("{n}=?"),
    };
    let mem = s.mem.iter().map(|(n, v)| (format!("[{n}]"), *v));
    s.regs
        .iter()
        .cloned()
        .chain(mem)
        .map(|x| show(&x))
        .collect::<Vec<_>>()
        .join(", ")
}

fn combos<'c>(
    threads: &'c [Vec<Completed>],
    i: usize,
    choice: &mut Vec<usize>,
    f: &mut dyn FnMut(&[&'c Completed]),
) {
    if i == threads.len() {
        let parts: Vec<&Completed> = threads
            .iter()
            .zip(choice.iter())
            .map(|(t, &k)| &t[k])
            .collect();
        f(&parts);
        return;
    }
    for k in 0..threads[i].len() {
        choice[i] = k;
        combos(threads, i + 1, choice, f);
    }
}

fn label_text(sem: &Sem, p: &Program, a: &Action) -> String {
    super::text::label(sem, p, a)
}

fn show(sem: &Sem, p: &Program, f: crate::logic::FormulaId) -> String {
    let names = FormulaNames {
        p,
        sem,
        position: None,
    };
    sem.l.display(f, Notation::Unicode, &names).to_string()
}

/// Names for printed formulas: registers by name, locations by name, and a
/// read's symbol `s{e}` by its event id or, given `position`, by the
/// event's position in a listing (`s?{id}`: a read not in the listing).
pub(super) struct FormulaNames<'a> {
    pub(super) p: &'a Program,
    pub(super) sem: &'a Sem<'a>,
    pub(super) position: Option<&'a std::collections::HashMap<u32, usize>>,
}

impl Names for FormulaNames<'_> {
    fn reg(&self, r: u32) -> String {
        self.p
            .regs
            .get(r as usize)
            .map_or_else(|| format!("r{r}"), |i| i.name.clone())
    }
    fn read(&self, e: u32) -> String {
        match self.position.map(|m| m.get(&e)) {
            None => format!("s{e}"),
            Some(Some(pos)) => format!("s{pos}"),
            Some(None) => format!("s?{e}"),
        }
    }
    fn loc(&self, addr: Addr) -> String {
        self.sem
            .dense
            .get(&addr)
            .and_then(|d| self.sem.dense_names.get(*d as usize))
            .cloned()
            .unwrap_or_else(|| format!("[{addr}]"))
    }
}

/// Events of one skeleton, named for people.
struct EventNames {
    names: Vec<String>,
}

impl EventNames {
    fn new(sem: &Sem, p: &Program, sk: &Skeleton) -> EventNames {
        EventNames {
            names: sk.labels.iter().map(|a| label_text(sem, p, a)).collect(),
        }
    }

    fn event(&self, e: usize) -> String {
        self.names
            .get(e)
            .cloned()
            .unwrap_or_else(|| format!("e{e}"))
    }

    fn rf(&self, rf: &[Option<usize>]) -> String {
        let pairs: Vec<String> = rf
            .iter()
            .enumerate()
            .filter_map(|(e, d)| d.map(|d| format!("{} → {}", self.event(d), self.event(e))))
            .collect();
        pairs.join(", ")
    }

    fn path(&self, path: &[usize]) -> String {
        let mut names: Vec<String> = path.iter().map(|&e| self.event(e)).collect();
        if let Some(first) = names.first().cloned() {
            names.push(first);
        }
        names.join(" → ")
    }

    fn failure(&self, f: &Failure, depth: usize) -> String {
        let order = |k: OrderKind| match k {
            OrderKind::Dep => "dependency order ⊴ (with rf, c6)",
            OrderKind::Sync => "synchronisation order ≤",
            OrderKind::Loc => "per-location order ⊑",
        };
        match f {
            Failure::Cycle { order: k, path } => format!("a cycle in the {}: {}", order(*k), self.path(path)),
            Failure::UnionCycle { path } => format!("a cycle in ≤ ∪ ⊑ (acyclic_union): {}", self.path(path)),
            Failure::Blocked { read, source, blocker, held: (a, b) } => format!(
                "{} ⊑ {} already holds, so weak fulfilment cannot place {} there (c8b, for {} → {})",
                self.event(*a),
                self.event(*b),
                self.event(*blocker),
                self.event(*source),
                self.event(*read)
            ),
            Failure::Each { rule, alternatives } => {
                let head = match rule {
                    Choice::C8b { read, source, blocker } => format!(
                        "c8b puts {} before {} or after {}, and both fail:",
                        self.event(*blocker),
                        self.event(*source),
                        self.event(*read)
                    ),
                    Choice::C7b { first, second } => format!(
                        "c7b orders the sc fences {} and {} one way or the other, and both fail:",
                        self.event(*first),
                        self.event(*second)
                    ),
                };
                let indent = "  ".repeat(depth);
                let parts: Vec<String> =
                    alternatives.iter().map(|a| format!("\n{indent}  - {}", self.failure(a, depth + 1))).collect();
                format!("{head}{}", parts.concat())
            }
        }
    }
}

/// `explain`'s text for the conditions `chosen` (indices into the program's
/// conditions); shared by `pomset explain` and the REPL.
pub fn explain_text(p: &crate::syntax::core::Program, model: &Model, chosen: &[usize]) -> String {
    let limits = crate::outcome::Limits {
        max_pomsets: 200_000,
        ..crate::outcome::Limits::default()
    };
    explain_text_within(p, model, chosen, &limits)
}

/// As `explain_text`, within `limits` (pomset count, deadline).
pub fn explain_text_within(
    p: &crate::syntax::core::Program,
    model: &Model,
    chosen: &[usize],
    limits: &crate::outcome::Limits,
) -> String {
    let surface = crate::syntax::print::core_to_ast(p);
    let mut out = String::new();
    for &i in chosen {
        let (Some(shown), Some(c)) = (surface.conditions.get(i), p.conditions.get(i)) else {
            continue;
        };
        let shown = crate::syntax::print::prop(&shown.prop, 0);
        out.push_str(&format!(
            "{} under {}: {shown}\n",
            p.name,
            crate::model::model_text(model)
        ));
        match crate::engine::pwt::explain::explain_within(p, model, &c.prop, limits) {
            Ok(e) => {
                for line in e.lines {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Err(u) => out.push_str(&format!("  {}\n", crate::outcome::state::refusal_text(&u))),
        }
    }
    out
}
