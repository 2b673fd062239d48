//! The table: each instance of each schema decided under each model, rows
//! whose verdicts agree across a schema's family collapsed into one.

use std::fmt::Write as _;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::catalogue::Instance;
use super::context::{self, Bound, Counterexample, Found, Witness};
use super::records::CellRecord;
use crate::engine::Engine;
use crate::refinement::{self, Refinement, Verdict};
use crate::sweep::Shard;

/// The table's models by default, one column each, as `pomset
/// transformations` and the explorer's table take them.
pub const DEFAULT_MODELS: &[&str] = &[
    "pwt",
    "rc11",
    "ptx",
    "vulkan",
    "hrf-direct",
    "hrf-indirect",
    "sc",
];

/// `DEFAULT_MODELS` as a `--models` list.
pub const DEFAULT_MODELS_TEXT: &str = "pwt,rc11,ptx,vulkan,hrf-direct,hrf-indirect,sc";

/// One model's verdict on one instance. Its JSON (`--json`, the records
/// of `--jsonl`) is `super::records::CellRecord`, which gives it back whole.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "CellRecord", into = "CellRecord")]
pub enum Cell {
    /// `pwt` only: the local check matched every target pomset, and no
    /// context within the bound disagrees.
    Sound,
    /// A distinguishing test, or (`pwt`, `None`) a target pomset with no
    /// match in the source and no test within the bound.
    Unsound(Option<Box<Counterexample>>),
    /// Every context of the bound decided, none distinguishing (a cat model
    /// has no local check): how many contexts, and how many of them were
    /// vacuous (the source undefined there, so they tested nothing).
    Bounded {
        contexts: usize,
        vacuous: usize,
        /// Contexts outside the model (`Found::NoneUpTo::outside`).
        outside: usize,
    },
    /// Undecided, and why (a limit, named; never read as a verdict).
    Unknown(String),
}

impl Cell {
    /// The word the table prints.
    pub fn word(&self) -> &'static str {
        match self {
            Cell::Sound => "sound",
            Cell::Unsound(Some(_)) => "unsound",
            Cell::Unsound(None) => "unsound*",
            Cell::Bounded {
                contexts,
                vacuous,
                outside,
            } if context::mostly_vacuous(*contexts, vacuous + outside) => "vacuous",
            Cell::Bounded { .. } => "bounded",
            Cell::Unknown(_) => "unknown",
        }
    }
}

/// Decides `req` under `engine`: the context search, and for the pomset
/// semantics (`local`) the pomset-level check beside it.
pub fn decide(req: &Refinement, engine: &dyn Engine, local: bool, bound: Bound) -> Cell {
    decide_within(req, engine, local, bound, crate::outcome::Limits::default())
}

/// `decide` with the limits each generated test is decided within (and the
/// deadline of the whole cell).
pub fn decide_within(
    req: &Refinement,
    engine: &dyn Engine,
    local: bool,
    bound: Bound,
    run: crate::outcome::Limits,
) -> Cell {
    decide_sharing(req, engine, local, bound, run, &context::Tests::default())
}

/// `decide_within`, the generated tests parsed once in `tests` for every
/// model of the row.
fn decide_sharing(
    req: &Refinement,
    engine: &dyn Engine,
    local: bool,
    bound: Bound,
    run: crate::outcome::Limits,
    tests: &context::Tests,
) -> Cell {
    let model = &engine.options(&req.program.model);
    let search =
        || context::search_sharing(req, engine, model, bound, context_limits(run), tests, None);
    if !local {
        let found = search();
        return match found {
            Found::Counterexample(c) => Cell::Unsound(Some(Box::new(c))),
            Found::NoneUpTo {
                total,
                vacuous,
                outside,
                ..
            } => Cell::Bounded {
                contexts: total,
                vacuous,
                outside,
            },
            Found::Stopped { .. } => Cell::Unknown(stopped_text(&found)),
            Found::Unknown(why) => Cell::Unknown(why),
        };
    }
    // The pomset semantics: the local check decides; the search looks for
    // a test that shows an unsound verdict (a sound one is a proof, and
    // `tests/it/transformations.rs` cross-checks it with the search).
    let limits = refinement::Limits {
        contexts: None,
        run,
        ..refinement::Limits::default()
    };
    let (verdict, limit) = match refinement::refine(req, model, limits) {
        Ok(r) => (r.verdict, r.limit),
        Err(e) => return Cell::Unknown(e.to_string()),
    };
    if verdict == Verdict::Sound {
        return Cell::Sound;
    }
    match (verdict, search()) {
        (_, Found::Unknown(why)) => Cell::Unknown(why),
        (_, Found::Counterexample(c)) => Cell::Unsound(Some(Box::new(c))),
        // The pomset-level difference is the verdict; the search only
        // looked for a test to show it.
        (Verdict::Unsound, _) => Cell::Unsound(None),
        (_, _) => Cell::Unknown(match limit {
            Some(l) => format!("the local check stopped by {l}"),
            None => "the local check stopped at a limit".into(),
        }),
    }
}

/// The limits a generated test is decided within: the pomset bound of the
/// contextual search (50 000), the rest as given.
pub fn context_limits(run: crate::outcome::Limits) -> crate::outcome::Limits {
    crate::outcome::Limits {
        max_pomsets: run.max_pomsets.min(50_000),
        ..run
    }
}

/// `k of n contexts tried, stopped by LIMIT` for a stopped search.
pub fn stopped_text(f: &Found) -> String {
    match f {
        Found::Stopped {
            tried,
            total,
            undecided,
            limit,
            ..
        } => {
            if tried == total {
                return format!(
                    "{undecided} of the {total} contexts left undecided (the first: {limit}); no counterexample in the rest"
                );
            }
            let undecided = if *undecided > 0 {
                format!(", {undecided} left undecided")
            } else {
                String::new()
            };
            format!("stopped by {limit}: {tried} of {total} contexts tried{undecided}")
        }
        _ => String::new(),
    }
}

/// A disagreement between the two checks of the pomset semantics is a bug
/// in one of them; the cell says so rather than choose.
pub const DISAGREE: &str =
    "the local check says sound but a context distinguishes: a bug in one of them";

/// Re-decides a counterexample's two tests with `engine`, as `run` would:
/// true when the target's version reaches its condition (or raises its
/// flag) and the source's does not, the source decided in full.
pub fn reproduces(c: &Counterexample, engine: &dyn Engine) -> bool {
    let (Ok(t), Ok(s)) = (
        crate::syntax::parse(&c.target_test),
        crate::syntax::parse(&c.source_test),
    ) else {
        return false;
    };
    let limits = crate::outcome::Limits::default();
    let (Ok(to), Ok(so)) = (
        engine.outcomes(&t.program, &engine.options(&t.program.model), limits),
        engine.outcomes(&s.program, &engine.options(&s.program.model), limits),
    ) else {
        return false;
    };
    let complete = s.program.values_left.is_empty() && s.program.unroll.is_none();
    // The source must be defined and decided in full: no flag but those
    // its model declares `defined` (a PTX race), no limit, no cut loop.
    let defined = |f: &str| engine.flag_meaning(f) == crate::outcome::FlagMeaning::Defined;
    if !so.flags.iter().all(|(f, _)| defined(f)) || so.limit.is_some() || !complete {
        return false;
    }
    match &c.witness {
        Witness::Flag(f) => {
            engine.flag_meaning(f) == crate::outcome::FlagMeaning::Undefined
                && to.flags.iter().any(|g| &g.0 == f)
        }
        Witness::Outcome(_) => {
            let (Some(tc), Some(sc)) = (t.program.conditions.first(), s.program.conditions.first())
            else {
                return false;
            };
            let holds = |p: &crate::syntax::core::Program,
                         o: &crate::outcome::Outcomes,
                         c: &crate::syntax::core::Condition| {
                o.states
                    .keys()
                    .any(|st| crate::outcome::verdict::holds(p, st, &c.prop))
            };
            holds(&t.program, &to, tc) && !holds(&s.program, &so, sc)
        }
    }
}

/// One instance's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub schema: String,
    pub choice: Vec<(String, String)>,
    pub cells: Vec<Cell>,
}

/// The decided table.
#[derive(Clone, Debug)]
pub struct Table {
    pub models: Vec<String>,
    pub rows: Vec<Row>,
    pub bound: Bound,
}

/// Decides every instance under every engine, `workers` threads at once;
/// `tick` is called after each row (for a progress bar).
pub fn build(
    instances: &[Instance],
    engines: &[(String, Box<dyn Engine>)],
    bound: Bound,
    timeout: Option<f64>,
    workers: usize,
    tick: &(dyn Fn(usize, &str) + Sync),
) -> Table {
    // Each cell its own deadline, counted from when it starts.
    let run = || crate::outcome::Limits {
        deadline: timeout.map(crate::outcome::limits::deadline_after),
        ..crate::outcome::Limits::default()
    };
    Table {
        models: engines.iter().map(|(n, _)| n.clone()).collect(),
        rows: rows(instances, engines, bound, &run, workers, tick),
        bound,
    }
}

/// The rows of `instances`, each cell decided within the limits `run`
/// gives when it starts (a fixed deadline and a cancel flag: the
/// explorer's request), `workers` threads at once; `tick` is called after
/// each row.
pub fn rows(
    instances: &[Instance],
    engines: &[(String, Box<dyn Engine>)],
    bound: Bound,
    run: &(dyn Fn() -> crate::outcome::Limits + Sync),
    workers: usize,
    tick: &(dyn Fn(usize, &str) + Sync),
) -> Vec<Row> {
    let rows: Vec<Mutex<Option<Row>>> = instances.iter().map(|_| Mutex::new(None)).collect();
    let done = AtomicUsize::new(0);
    let part = Part {
        shard: Shard::WHOLE,
        done: &HashSet::new(),
        cancel: None,
    };
    sweep(instances, engines, bound, run, workers, part, &|i, row| {
        let label = super::catalogue::label(&row.schema, &row.choice);
        if let Ok(mut slot) = rows[i].lock() {
            *slot = Some(row);
        }
        tick(done.fetch_add(1, Ordering::Relaxed) + 1, &label);
    });
    rows.into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// Which instances a sweep decides.
#[derive(Clone, Copy, Debug)]
pub struct Part<'a> {
    /// Those whose index in the instance order is this shard's.
    pub shard: Shard,
    /// Less these indices (decided before: a resumed sweep).
    pub done: &'a HashSet<usize>,
    /// Set from outside (a front end's Ctrl-C handler) to stop the engines
    /// and the sweep; the library installs no handler.
    pub cancel: Option<&'static AtomicBool>,
}

/// Decides the instances of `part` under every engine, `workers` threads
/// at once, calling `each` with each row and its instance's index as it is
/// decided (in no fixed order). Returns whether it went through: false when
/// `part.cancel` was set, and then the rows being decided are dropped (a
/// cell cut short would name the interruption, not a verdict) and left for
/// a resumed sweep.
pub fn sweep(
    instances: &[Instance],
    engines: &[(String, Box<dyn Engine>)],
    bound: Bound,
    run: &(dyn Fn() -> crate::outcome::Limits + Sync),
    workers: usize,
    part: Part,
    each: &(dyn Fn(usize, Row) + Sync),
) -> bool {
    let cancelled = || part.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let todo: Vec<usize> = (0..instances.len())
        .filter(|&i| part.shard.holds(i) && !part.done.contains(&i))
        .collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| loop {
                let Some(&i) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                if cancelled() {
                    return;
                }
                // The caller's limits, once per cell, stopped also by the
                // sweep's flag; the engines stay on this worker's core, the
                // sweep spreading the cells over the cores itself, and the
                // pomset engine reuses the threads it built for this
                // worker's earlier contexts (`Limits::reuse`).
                let run = || {
                    let limits = run();
                    crate::outcome::Limits {
                        cancel: part.cancel.or(limits.cancel),
                        one_core: true,
                        reuse: true,
                        ..limits
                    }
                };
                let row = decide_row(&instances[i], engines, bound, &run);
                if cancelled() {
                    return;
                }
                each(i, row);
            });
        }
    });
    !cancelled()
}

/// One instance under every engine.
fn decide_row(
    inst: &Instance,
    engines: &[(String, Box<dyn Engine>)],
    bound: Bound,
    run: &dyn Fn() -> crate::outcome::Limits,
) -> Row {
    let tests = context::Tests::default();
    let cells = engines
        .iter()
        .map(|(_, e)| {
            let run = run();
            let local = e.can(crate::engine::Capability::LocalRefine);
            decide_sharing(&inst.refinement, e.as_ref(), local, bound, run, &tests)
        })
        .collect();
    Row {
        schema: inst.schema.clone(),
        choice: inst.choice.clone(),
        cells,
    }
}

/// Rows of one schema whose verdicts agree, as one line: the schema, the
/// values each hole takes in the group, and the shared verdicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub schema: String,
    /// Each hole's values in this group, or the listed choices when the
    /// group is not a product of them.
    pub holes: String,
    pub words: Vec<&'static str>,
    /// By model, over the group's bounded cells: the contexts decided and
    /// how many of them tested nothing (vacuous, or outside the model).
    pub vacuous: Vec<(usize, usize)>,
    pub instances: usize,
    /// The rows of the group (indices into `Table::rows`), in order.
    pub rows: Vec<usize>,
}

impl Family {
    /// Each cell as the table prints it: its word, and for a bounded or
    /// vacuous cell with vacuous contexts, their share of the group's
    /// contexts (`bounded 12/96v`: 12 of the 96 contexts tested nothing).
    pub fn shown(&self) -> Vec<String> {
        self.words
            .iter()
            .zip(&self.vacuous)
            .map(|(w, &(contexts, vacuous))| match vacuous {
                0 => w.to_string(),
                _ => format!("{w} {vacuous}/{contexts}v"),
            })
            .collect()
    }
}

impl Table {
    /// The collapsed rows, in the order of their first instance.
    pub fn families(&self) -> Vec<Family> {
        type Group<'a> = (String, Vec<&'static str>, Vec<&'a Row>, Vec<usize>);
        let mut groups: Vec<Group> = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            let words: Vec<&'static str> = r.cells.iter().map(Cell::word).collect();
            match groups
                .iter_mut()
                .find(|(s, w, _, _)| *s == r.schema && *w == words)
            {
                Some(g) => {
                    g.2.push(r);
                    g.3.push(i);
                }
                None => groups.push((r.schema.clone(), words, vec![r], vec![i])),
            }
        }
        let all_of = |schema: &str| self.rows.iter().filter(|r| r.schema == schema).count();
        groups
            .into_iter()
            .map(|(schema, words, rows, at)| Family {
                vacuous: (0..self.models.len())
                    .map(|m| {
                        rows.iter().fold((0, 0), |(c, v), r| match r.cells[m] {
                            Cell::Bounded {
                                contexts,
                                vacuous,
                                outside,
                            } => (c + contexts, v + vacuous + outside),
                            _ => (c, v),
                        })
                    })
                    .collect(),
                holes: holes_text(&rows, rows.len() == all_of(&schema)),
                schema,
                words,
                instances: rows.len(),
                rows: at,
            })
            .collect()
    }

    /// The collapsed table in Markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "| transformation | holes | n | {} |\n",
            self.models.join(" | ")
        );
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(self.models.len()));
        for f in self.families() {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                f.schema,
                f.holes,
                f.instances,
                f.shown().join(" | ")
            );
        }
        s
    }

    /// The collapsed table as aligned text.
    pub fn text(&self) -> String {
        let fams = self.families();
        let w0 = fams
            .iter()
            .map(|f| f.schema.len())
            .max()
            .unwrap_or(0)
            .max(14);
        let w1 = fams.iter().map(|f| f.holes.len()).max().unwrap_or(0).max(5);
        let shown: Vec<Vec<String>> = fams.iter().map(Family::shown).collect();
        // Each model's column as wide as its name and its widest cell.
        let widths: Vec<usize> = (0..self.models.len())
            .map(|m| {
                shown
                    .iter()
                    .map(|cells| cells[m].chars().count())
                    .chain([self.models[m].chars().count(), 9])
                    .max()
                    .unwrap_or(9)
            })
            .collect();
        let mut s = format!("{:w0$}  {:w1$}  {:>3}", "transformation", "holes", "n");
        for (m, w) in self.models.iter().zip(&widths) {
            let _ = write!(s, "  {m:w$}");
        }
        s = s.trim_end().to_string();
        s.push('\n');
        for (f, cells) in fams.iter().zip(&shown) {
            let mut line = format!("{:w0$}  {:w1$}  {:>3}", f.schema, f.holes, f.instances);
            for (c, w) in cells.iter().zip(&widths) {
                let _ = write!(line, "  {c:w$}");
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s
    }

    /// Every instance, every cell, with its counterexample, as JSON.
    pub fn json(&self) -> serde_json::Value {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let cells: serde_json::Map<String, serde_json::Value> = self
                    .models
                    .iter()
                    .zip(&r.cells)
                    .map(|(m, c)| (m.clone(), cell_json(c)))
                    .collect();
                serde_json::json!({
                    "schema": r.schema,
                    "instance": super::catalogue::label(&r.schema, &r.choice),
                    "holes": r.choice.iter().map(|(h, v)| (h.clone(), serde_json::Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
                    "cells": cells,
                })
            })
            .collect();
        serde_json::json!({
            "models": self.models,
            "bound": { "size": self.bound.size, "threads": self.bound.threads, "max_contexts": self.bound.max_contexts },
            "rows": rows,
        })
    }
}

impl Table {
    /// The collapsed rows as JSON, each cell as its group's first instance
    /// has it (its word, and its test or the limit that stopped it), with
    /// that instance's label: what the explorer shows.
    pub fn families_json(&self) -> serde_json::Value {
        let families: Vec<serde_json::Value> = self
            .families()
            .iter()
            .map(|f| {
                let cells: Vec<serde_json::Value> = (0..self.models.len())
                    .map(|m| {
                        // An unsound cell shows a member's test where one has it.
                        let row = f
                            .rows
                            .iter()
                            .map(|&i| &self.rows[i])
                            .find(|r| matches!(r.cells[m], Cell::Unsound(Some(_))))
                            .or_else(|| f.rows.first().map(|&i| &self.rows[i]));
                        let Some(row) = row else {
                            return serde_json::Value::Null;
                        };
                        let mut v = cell_json(&row.cells[m]);
                        v["model"] = self.models[m].clone().into();
                        v["instance"] = super::catalogue::label(&row.schema, &row.choice).into();
                        v
                    })
                    .collect();
                serde_json::json!({
                    "schema": f.schema,
                    "holes": f.holes,
                    "instances": f.instances,
                    "words": f.words,
                    "cells": cells,
                })
            })
            .collect();
        serde_json::Value::from(families)
    }
}

fn cell_json(c: &Cell) -> serde_json::Value {
    serde_json::to_value(c).unwrap_or_default()
}

/// `M1∈{rlx,acq} M2=sc; M1=sc M2∈{wk,rlx}`: the group as products of
/// each hole's values (first hole's values merged where the rest agree),
/// `all` when it is every instance of the schema.
fn holes_text(rows: &[&Row], all: bool) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    if first.choice.is_empty() {
        return "-".into();
    }
    if all {
        return "all".into();
    }
    let names: Vec<&str> = first.choice.iter().map(|(h, _)| h.as_str()).collect();
    let tuples: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.choice.iter().map(|(_, v)| v.as_str()).collect())
        .collect();
    products(&names, &tuples).join("; ")
}

/// Splits a set of value tuples into products: the first hole's values
/// that share the same set of remaining tuples go together, recursively.
fn products(names: &[&str], tuples: &[Vec<&str>]) -> Vec<String> {
    let Some((h, rest_names)) = names.split_first() else {
        return vec![String::new()];
    };
    let mut groups: Vec<(Vec<&str>, Vec<Vec<&str>>)> = Vec::new();
    let mut firsts: Vec<&str> = Vec::new();
    for t in tuples {
        if !firsts.contains(&t[0]) {
            firsts.push(t[0]);
        }
    }
    for v in firsts {
        let tails: Vec<Vec<&str>> = tuples
            .iter()
            .filter(|t| t[0] == v)
            .map(|t| t[1..].to_vec())
            .collect();
        match groups.iter_mut().find(|g| g.1 == tails) {
            Some(g) => g.0.push(v),
            None => groups.push((vec![v], tails)),
        }
    }
    let mut out = Vec::new();
    for (vs, tails) in groups {
        let head = match vs.as_slice() {
            [one] => format!("{h}={one}"),
            _ => format!("{h}∈{{{}}}", vs.join(",")),
        };
        for tail in products(rest_names, &tails) {
            out.push(format!("{head} {tail}").trim_end().to_string());
        }
    }
    out
}
