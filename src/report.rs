//! Verdicts to reports: herd7's text layout for terminals and logs, and JSON
//! for scripts.

use std::fmt::Write;

/// How many states `run` lists before it lists only the determined ones.
pub const SHOWN_STATES: usize = 1000;
use std::time::Duration;

use serde::Serialize;

use crate::model::Model;
use std::collections::BTreeMap;

use crate::outcome::factored::Factored;
use crate::outcome::verdict::{judge_settled, judge_visiting, Judgement};
use crate::outcome::{Outcomes, Settled, State};
use crate::syntax::ast::Quantifier;
use crate::syntax::core::{Condition, Program, Reach};
use crate::syntax::print;

/// One test's report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub name: String,
    pub model: Vec<String>,
    pub states: Vec<StateCount>,
    pub witnesses: usize,
    pub conditions: Vec<ConditionReport>,
    /// The limit that stopped the search. The states and witnesses are
    /// then those found before it (`states_at_least`), and a verdict is
    /// given only where a found state settles it (issue 74); every other
    /// verdict is unknown.
    pub limit: Option<String>,
    /// Set when a limit cut the search: `states` and `witnesses` are lower
    /// bounds.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub states_at_least: bool,
    /// Why the test could not be decided at all under this model.
    pub unsupported: Option<String>,
    pub seconds: f64,
    /// The logic layer's counters: queries, fast-path answers, cache hits, SAT calls.
    pub stats: Option<crate::logic::Stats>,
    /// The engine's own counters (`Outcomes::counters`): sc's
    /// configurations, a cat model's steps, the spin loops decided as
    /// their last pass; absent when the engine counts none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub search: BTreeMap<&'static str, u64>,
    /// What the states leave out (writes whose value may leave V), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// A cat model's raised flags (herd7's `Flag data-race`), each with the
    /// number of consistent executions raising it; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagCount>,
    /// `run --verdict-only`: `states` holds only the states the searches
    /// stopped at, and `positive`/`negative` count those, not every state.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub verdict_only: bool,
    /// The most heap held at once while deciding, in bytes (`--stats`).
    #[serde(skip)]
    pub peak_bytes: Option<usize>,
    /// The reader threads decided each once against the rest, their states
    /// kept as a product (`--stats` names them; `--no-factor` turns it off).
    #[serde(skip)]
    pub kept_apart: Vec<String>,
    /// Set when `states` lists only some states (the first determined ones,
    /// from outcomes kept one per orbit): how many there are in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unlisted: Option<Unlisted>,
}

/// The states a report counts but does not list.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Unlisted {
    /// Every kept state, listed or not.
    pub total: usize,
    /// Those with an undetermined value `?`.
    pub open: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlagCount {
    pub name: String,
    /// Consistent executions raising it.
    pub executions: usize,
    /// What the model says it means (`undefined data-race`).
    pub meaning: crate::outcome::FlagMeaning,
}

impl FlagCount {
    /// herd7's `Flag NAME`, with the count and what the model says it means.
    pub fn line(&self) -> String {
        format!(
            "Flag {} ({} executions; {})",
            self.name,
            self.executions,
            self.meaning.gloss()
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StateCount {
    pub values: Vec<(String, Option<i64>)>,
    pub count: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConditionReport {
    pub text: String,
    pub ok: Option<bool>,
    pub positive: usize,
    pub negative: usize,
    pub observation: Option<&'static str>,
    pub expected: Option<&'static str>,
    pub met: Option<bool>,
    /// A stated disagreement with the note's verdict (`disputed "why"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disputed: Option<String>,
    /// Set when the verdict is `Never` or `Always` (a `forbid` or `forall`
    /// that holds) under a loop bound that some execution reaches or may
    /// reach (issue 74): more iterations may turn it into `Sometimes`, so it
    /// is a verdict within the bound, not a confirmed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounded: Option<Bounded>,
}

/// A verdict within a loop bound that an execution reaches or may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bounded {
    /// The bound, `--unroll N`.
    pub unroll: u32,
    /// Whether the engine found an execution that reaches a loop's cut
    /// (`core::Reach::Reached`); false when it could not tell.
    pub reached: bool,
}

impl Bounded {
    /// How the report names it: `--unroll 2, reached`.
    pub fn text(self) -> String {
        match self.reached {
            true => format!("--unroll {}, reached", self.unroll),
            false => format!("--unroll {}, maybe reached", self.unroll),
        }
    }
}

impl ConditionReport {
    /// Whether the condition passes: its expectation is met, or it is not
    /// met and the file disputes it. A disputed verdict that now matches
    /// the note fails, so that a stale dispute is noticed. A verdict within
    /// a reached bound that misses its expectation does not fail: a larger
    /// bound may meet it (it is undecided, `Report::undecided`).
    pub fn passes(&self) -> bool {
        if self.bounded.is_some() && self.met == Some(false) && self.disputed.is_none() {
            return true;
        }
        !matches!(
            (self.met, &self.disputed),
            (Some(false), None) | (Some(true), Some(_))
        )
    }

    /// Whether the verdict differs from the note's, as the file says it does.
    pub fn is_disputed(&self) -> bool {
        self.met == Some(false) && self.disputed.is_some()
    }
}

impl Report {
    /// The report of outcomes found in `elapsed`; its time adds the report's
    /// own work (visiting orbits' members can take longer than the search).
    pub fn new(p: &Program, model: &Model, o: &Outcomes, elapsed: Duration) -> Report {
        Report::listing(p, model, o, elapsed, None)
    }

    /// `new`, listing at most `listed` states when it is given (the first
    /// ones, as `text_listing` chooses them) and counting the rest, so a
    /// report of millions of states copies a page of them, not every one.
    pub fn listing(
        p: &Program,
        model: &Model,
        o: &Outcomes,
        elapsed: Duration,
        listed: Option<usize>,
    ) -> Report {
        let begun = std::time::Instant::now();
        let mut report = match Report::visiting(p, model, o, listed) {
            Ok(r) => r,
            // The search finished but visiting its orbits' members did not:
            // reported as a cut search is, one state per orbit, so that the
            // counts add up to what is listed (verdicts unknown).
            // Counting a condition over readers kept apart needed more
            // partly evaluated conditions than it holds: no state is listed.
            Err(why) if o.factored.is_some() => {
                let cut = Outcomes {
                    limit: Some(why),
                    factored: None,
                    ..o.clone()
                };
                Report::visiting(p, model, &cut, listed)
                    .unwrap_or_else(|why| Report::unsupported(p, model, why))
            }
            Err(why) => {
                let (states, orbits) = o
                    .orbits
                    .as_ref()
                    .map_or((0, 0), |x| (x.states(), x.orbits()));
                let cut = Outcomes {
                    limit: Some(format!(
                        "{why}, after the search (it found {} in {}; \
                         counting and judging them was cut, so one state per orbit is listed)",
                        count(states, "state"),
                        count(orbits, "orbit")
                    )),
                    ..o.clone()
                };
                // With a limit set each orbit is visited once, never cut.
                Report::visiting(p, model, &cut, listed)
                    .unwrap_or_else(|why| Report::unsupported(p, model, why))
            }
        };
        report.seconds = (elapsed + begun.elapsed()).as_secs_f64();
        report
    }

    /// The report, or, when a limit stopped a visit of orbits' members
    /// after a finished search, that limit.
    fn visiting(
        p: &Program,
        model: &Model,
        o: &Outcomes,
        listed: Option<usize>,
    ) -> Result<Report, String> {
        let (states, unlisted) = match (&o.orbits, &o.factored) {
            (_, Some(f)) => product_listing(f, listed.unwrap_or(SHOWN_STATES)),
            (None, None) => flat_listing(p, o, listed.unwrap_or(usize::MAX)),
            (Some(_), None) => listing(p, o, listed.unwrap_or(SHOWN_STATES))?,
        };
        let surface = print::core_to_ast(p);
        let mut conditions = Vec::new();
        for (c, shown) in p.conditions.iter().zip(&surface.conditions) {
            conditions.push(condition_report(c, shown, judge_visiting(p, c, o, model)?));
        }
        Ok(Report {
            name: p.name.clone(),
            model: model.non_defaults(),
            states,
            witnesses: o.witnesses,
            conditions,
            limit: o.limit.clone(),
            states_at_least: o.limit.is_some(),
            unsupported: None,
            seconds: 0.0,
            stats: Some(o.stats),
            search: o.counters.iter().copied().collect(),
            warnings: o
                .notes
                .iter()
                .cloned()
                .chain(crate::outcome::verdict::unsettled(p, o))
                .collect(),
            flags: o
                .flags
                .iter()
                .map(|(name, n)| FlagCount {
                    name: name.clone(),
                    executions: *n,
                    meaning: crate::outcome::FlagMeaning::Undeclared,
                })
                .collect(),
            verdict_only: false,
            peak_bytes: None,
            kept_apart: o.factored.as_ref().map_or_else(Vec::new, Factored::readers),
            unlisted,
        })
    }

    /// The report of `run --verdict-only`: per condition, the state found
    /// that makes it true and the one found that does not, if any.
    pub fn settled(
        p: &Program,
        model: &Model,
        found: &[[Settled; 2]],
        elapsed: Duration,
    ) -> Report {
        let surface = print::core_to_ast(p);
        let mut states: BTreeMap<&State, usize> = BTreeMap::new();
        let mut conditions = Vec::new();
        let mut limit = None;
        let mut witnesses = 0;
        let mut stats = crate::logic::Stats::default();
        let mut warnings: Vec<String> = Vec::new();
        for ((c, shown), [holds, fails]) in p.conditions.iter().zip(&surface.conditions).zip(found)
        {
            // Issue 27 §1: not finding a state proves nothing when a declared
            // V may be left (dropped executions), nor when no state exists.
            let vacuous = holds.found.is_none()
                && fails.found.is_none()
                && holds.limit.is_none()
                && fails.limit.is_none();
            // A search that found nothing proves absence only beside a state
            // found by the other: with neither found and one cut by a limit,
            // the test may have no state at all, which is Unknown uncut too
            // (so a limit would have made a verdict).
            let some_state = holds.found.is_some() || fails.found.is_some();
            let proves_absence = p.values_left.is_empty() && some_state;
            let answer = |s: &Settled| match (&s.found, &s.limit) {
                (Some(_), _) => Some(true),
                (None, None) if proves_absence => Some(false),
                (None, _) => None,
            };
            let zero = crate::outcome::verdict::ZERO_STATES;
            if vacuous && !warnings.iter().any(|w| w == zero) {
                warnings.push(zero.to_string());
            }
            for s in [holds, fails] {
                if let Some(state) = &s.found {
                    *states.entry(state).or_insert(0) += 1;
                }
                limit = limit.or(s.limit.clone());
                witnesses += s.witnesses;
                stats = stats.plus(s.stats);
                for n in &s.notes {
                    if !warnings.contains(n) {
                        warnings.push(n.clone());
                    }
                }
            }
            let j = judge_settled(c, answer(holds), answer(fails), model);
            conditions.push(condition_report(c, shown, j));
        }
        warnings.extend(crate::outcome::verdict::values_left(p));
        Report {
            name: p.name.clone(),
            model: model.non_defaults(),
            states: states
                .into_iter()
                .map(|(s, n)| StateCount {
                    values: flatten(s),
                    count: n,
                })
                .collect(),
            witnesses,
            conditions,
            states_at_least: limit.is_some(),
            limit,
            unsupported: None,
            seconds: elapsed.as_secs_f64(),
            stats: Some(stats),
            search: BTreeMap::new(),
            warnings,
            flags: Vec::new(),
            verdict_only: true,
            peak_bytes: None,
            kept_apart: Vec::new(),
            unlisted: None,
        }
    }

    pub fn unsupported(p: &Program, model: &Model, why: String) -> Report {
        Report {
            name: p.name.clone(),
            model: model.non_defaults(),
            states: vec![],
            witnesses: 0,
            conditions: vec![],
            limit: None,
            states_at_least: false,
            unsupported: Some(why),
            seconds: 0.0,
            stats: None,
            search: BTreeMap::new(),
            warnings: vec![],
            flags: Vec::new(),
            verdict_only: false,
            peak_bytes: None,
            kept_apart: Vec::new(),
            unlisted: None,
        }
    }

    /// Lists at most `n` states (the cap on `run --json`'s output, which
    /// `--all-states` lifts); `unlisted` then says how many there are in
    /// all, so the report still says what it left out.
    pub fn list_at_most(&mut self, n: usize) {
        if self.states.len() <= n {
            return;
        }
        let open = |s: &StateCount| s.values.iter().any(|(_, v)| v.is_none());
        let unlisted = self.unlisted.unwrap_or_else(|| Unlisted {
            total: self.states.len(),
            open: self.states.iter().filter(|s| open(s)).count(),
        });
        self.states.truncate(n);
        self.unlisted = Some(unlisted);
    }

    /// The report with no expectation checked (for `--model sc` and the cat
    /// models, whose states the file's stated verdicts do not describe).
    pub fn without_expectations(mut self) -> Report {
        for c in &mut self.conditions {
            c.expected = None;
            c.met = None;
            c.disputed = None;
        }
        self
    }

    /// Whether every stated expectation was met (unknowns do not fail).
    pub fn expectations_met(&self) -> bool {
        self.conditions.iter().all(ConditionReport::passes)
    }

    /// Whether a limit left a stated expectation (other than `expect
    /// unknown`) undecided: `run` fails on it unless `--allow-unknown`. So
    /// does a verdict within a reached bound that misses its expectation
    /// (a larger bound may meet it).
    pub fn undecided(&self) -> bool {
        self.conditions.iter().any(|c| {
            let missed_in_bound = c.bounded.is_some() && c.met == Some(false);
            (c.met.is_none() || missed_in_bound) && c.expected.is_some_and(|e| e != "unknown")
        })
    }

    /// How many kept states have every value determined (no `?`), listed
    /// or not.
    pub fn determined(&self) -> usize {
        let open = |s: &StateCount| s.values.iter().any(|(_, v)| v.is_none());
        match self.unlisted {
            Some(u) => u.total - u.open,
            None => self.states.iter().filter(|s| !open(s)).count(),
        }
    }

    /// Whether some condition's verdict holds only within a loop bound an
    /// execution reaches or may reach (`ConditionReport::bounded`).
    pub fn bounded(&self) -> bool {
        self.conditions.iter().any(|c| c.bounded.is_some())
    }

    /// Marks the verdicts that more iterations may change (`Never`,
    /// `Always`) as bounded, unless the engine found that no execution
    /// reaches a cut (issue 74); and notes `reach` in place of the plain
    /// bound note when the engine added that one.
    pub fn mark_bounded(&mut self, p: &Program, reach: Reach) {
        let Some(unroll) = p.unroll else { return };
        if reach == Reach::Reached {
            if let (Some(plain), Some(reached)) =
                (p.bound_note(Reach::Unknown), p.bound_note(Reach::Reached))
            {
                for w in &mut self.warnings {
                    if *w == plain {
                        *w = reached.clone();
                    }
                }
            }
        }
        if reach == Reach::Unreached {
            return;
        }
        for c in &mut self.conditions {
            if matches!(c.observation, Some("Never" | "Always")) {
                c.bounded = Some(Bounded {
                    unroll,
                    reached: reach == Reach::Reached,
                });
            }
        }
    }

    /// The `--stats` line: the logic layer's counters, the engine's own
    /// (`search`), and the most heap held at once while deciding (when the
    /// binary counts it; tests run in parallel share one count). An engine
    /// that counts its own search and asked the logic layer nothing (sc,
    /// the cat models) shows only its own.
    pub fn stats_line(&self) -> Option<String> {
        let s = self.stats?;
        let logic = match self.search.is_empty() || s != crate::logic::Stats::default() {
            true => format!(
                " queries {} fast-path {} cache-hits {} enumerated {} sat-calls {}",
                s.queries, s.fast_path, s.cache_hits, s.enumerated, s.sat_calls
            ),
            false => String::new(),
        };
        let search: String = self
            .search
            .iter()
            .map(|(name, n)| format!(" {name} {n}"))
            .collect();
        let peak = match self.peak_bytes {
            Some(b) if b > 0 => format!(" peak-heap {:.1}MB", b as f64 / (1u64 << 20) as f64),
            _ => String::new(),
        };
        let apart = match self.kept_apart.is_empty() {
            true => String::new(),
            false => format!(" readers-apart {}", self.kept_apart.join(",")),
        };
        Some(format!("Stats {}{logic}{search}{peak}{apart}", self.name))
    }

    /// herd7's layout, one block per condition, plus our expectations; a
    /// long list of states is cut as `text_listing` says.
    pub fn text(&self, p: &Program) -> String {
        self.text_listing(p, false)
    }

    /// As `text`; with `all_states` every state is listed. Otherwise, past
    /// `SHOWN_STATES` states, only the determined ones (no `?`) are listed,
    /// at most `SHOWN_STATES` of them, and one line counts the rest: dropped
    /// relaxed reads multiply the states by |V| + 1 per register (IRIW with
    /// six readers has 3^12), which no one reads.
    pub fn text_listing(&self, p: &Program, all_states: bool) -> String {
        let shown = if all_states { usize::MAX } else { SHOWN_STATES };
        self.text_cut(p, shown, "--all-states lists every one")
    }

    /// As `text_listing`, cutting the list past `shown` states; `more` says
    /// how to see the rest. The REPL shows a few after Ctrl-C.
    pub fn text_cut(&self, p: &Program, shown: usize, more: &str) -> String {
        let mut out = String::new();
        // herd7's rule: the first condition's quantifier names the test.
        let kind = match p.conditions.first().map(|c| c.quantifier) {
            Some(Quantifier::Forall) => "Required",
            Some(Quantifier::NotExists | Quantifier::Forbid) => "Forbidden",
            _ => "Allowed",
        };
        let _ = writeln!(out, "Test {} {kind}", self.name);
        if !self.model.is_empty() {
            let _ = writeln!(out, "Model {}", self.model.join(" "));
        }
        if let Some(why) = &self.unsupported {
            let _ = writeln!(out, "Unsupported {why}");
            return out;
        }
        if self.verdict_only {
            let _ = writeln!(
                out,
                "Verdict only: the states below are where the searches stopped, not every state"
            );
        }
        let total = self.unlisted.map_or(self.states.len(), |u| u.total);
        // Issue 74: a cut search found at least these states.
        let at_least = if self.limit.is_some() {
            " (at least)"
        } else {
            ""
        };
        let _ = writeln!(out, "States {total}{at_least}");
        let cut = total > shown;
        let determined = |s: &&StateCount| s.values.iter().all(|(_, v)| v.is_some());
        let listed: Vec<&StateCount> = if cut {
            self.states.iter().filter(determined).take(shown).collect()
        } else {
            self.states.iter().collect()
        };
        for s in &listed {
            let vals: Vec<String> = s
                .values
                .iter()
                .map(|(k, v)| format!("{k}={};", v.map_or("?".to_string(), |v| v.to_string())))
                .collect();
            let _ = writeln!(out, "{:<4} :> {}", s.count, vals.join(" "));
        }
        if total > listed.len() {
            let open = match self.unlisted {
                Some(u) => u.open,
                None => self.states.iter().filter(|s| !determined(s)).count(),
            };
            let _ = writeln!(
                out,
                "…    {} not listed ({open} with an undetermined value `?`); {more}",
                count(total - listed.len(), "more state")
            );
        }
        // herd7 prints flags whether or not the test has a condition.
        if self.conditions.is_empty() {
            for f in &self.flags {
                let _ = writeln!(out, "{}", f.line());
            }
        }
        for (i, c) in self.conditions.iter().enumerate() {
            let ok = match c.ok {
                Some(true) => "Ok",
                Some(false) => "No",
                None => "Unknown",
            };
            let _ = writeln!(out, "{ok}");
            let _ = writeln!(out, "Witnesses");
            let _ = writeln!(out, "Positive: {} Negative: {}", c.positive, c.negative);
            if i == 0 {
                for f in &self.flags {
                    let _ = writeln!(out, "{}", f.line());
                }
            }
            let _ = writeln!(out, "Condition {}", c.text);
            let obs = c.observation.unwrap_or("Unknown");
            let bounded = c
                .bounded
                .map_or_else(String::new, |b| format!(" (bounded: {})", b.text()));
            let _ = writeln!(
                out,
                "Observation {} {obs} {} {}{bounded}",
                self.name, c.positive, c.negative
            );
            match (c.expected, c.met, &c.disputed, c.bounded) {
                (Some(e), Some(true), None, Some(b)) => {
                    let _ = writeln!(
                        out,
                        "Expected {e}: as expected within {}: bounded, not confirmed",
                        b.text()
                    );
                }
                (Some(e), Some(false), None, Some(b)) => {
                    let _ = writeln!(
                        out,
                        "Expected {e}: not within {}: bounded, undecided (raise --unroll)",
                        b.text()
                    );
                }
                (e, met, disputed, _) => match (e, met, disputed) {
                    (Some(e), Some(true), None) => {
                        let _ = writeln!(out, "Expected {e}: as expected");
                    }
                    (Some(e), Some(true), Some(_)) => {
                        let _ = writeln!(
                        out,
                        "Expected {e}: as expected, but the file disputes it: remove `disputed`"
                    );
                    }
                    (Some(e), Some(false), Some(why)) => {
                        let _ = writeln!(out, "Expected {e}: disputed ({why})");
                    }
                    (Some(e), Some(false), None) => {
                        let _ = writeln!(out, "Expected {e}: NOT AS EXPECTED");
                    }
                    (Some(e), None, _) if e != "unknown" => {
                        let _ = writeln!(out, "Expected {e}: undecided");
                    }
                    _ => {}
                },
            }
        }
        for w in &self.warnings {
            let _ = writeln!(out, "Warning: {w}");
        }
        if let Some(limit) = &self.limit {
            let _ = writeln!(
                out,
                "Limit reached: {limit} (the states and witnesses are those found before it, a lower bound; a verdict no found state settles is Unknown)"
            );
        }
        let _ = writeln!(out, "Time {} {:.3}", self.name, self.seconds);
        out
    }
}

/// A condition's verdict as reported; `shown` is its surface form.
fn condition_report(
    c: &Condition,
    shown: &crate::syntax::ast::Condition,
    j: Judgement,
) -> ConditionReport {
    let Judgement {
        positive,
        negative,
        ok,
        observation,
        expected,
        met,
        disputed,
    } = j;
    ConditionReport {
        text: format!(
            "{} ({})",
            c.quantifier.as_str(),
            print::prop(&shown.prop, 0)
        ),
        ok,
        positive,
        negative,
        observation: observation.map(|x| x.as_str()),
        expected: expected.map(|v| v.as_str()),
        met,
        disputed,
        bounded: None,
    }
}

/// `n` and a noun in the number `n` asks for: "1 complete pomset",
/// "2 complete pomsets" (the noun's plural is its last word with an `s`).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn flatten(s: &State) -> Vec<(String, Option<i64>)> {
    let mut v = s.regs.clone();
    v.extend(s.mem.iter().map(|(k, x)| (format!("[{k}]"), *x)));
    v
}

/// The kept states of outcomes without orbits, as `listing` lists those of
/// orbits: every one when there are at most `shown`, else the first `shown`
/// determined ones (the map's order is the states' order) and the count of
/// the rest. Only the states listed are copied.
fn flat_listing(p: &Program, o: &Outcomes, shown: usize) -> (Vec<StateCount>, Option<Unlisted>) {
    let (mut total, mut open) = (0usize, 0usize);
    let (mut all, mut first) = (Vec::new(), Vec::new());
    for (s, &n) in o.states.iter() {
        if !crate::outcome::verdict::kept(p, s) {
            continue;
        }
        total += 1;
        let determined = s.regs.iter().chain(&s.mem).all(|(_, v)| v.is_some());
        open += usize::from(!determined);
        if total <= shown {
            all.push((s, n));
        }
        if determined && first.len() < shown {
            first.push((s, n));
        }
    }
    let counted = |m: Vec<(&State, usize)>| {
        m.into_iter()
            .map(|(s, count)| StateCount {
                values: flatten(s),
                count,
            })
            .collect()
    };
    if total <= shown {
        (counted(all), None)
    } else {
        (counted(first), Some(Unlisted { total, open }))
    }
}

/// The states of outcomes kept as a product, as `listing` lists those of
/// orbits: every one when there are at most `shown`, else the first `shown`
/// determined ones and the count of the rest, each found in order without
/// visiting the others (`Factored::first`). No filter: a product is only
/// made without one.
fn product_listing(f: &Factored, shown: usize) -> (Vec<StateCount>, Option<Unlisted>) {
    let total = f.states();
    let mut listed = Vec::new();
    let mut each = |values: &[Option<i64>], count| {
        listed.push(StateCount {
            values: flatten(&f.state(values)),
            count,
        })
    };
    if total <= shown {
        f.first(total, false, &mut each);
        return (listed, None);
    }
    f.first(shown, true, &mut each);
    let open = total - f.determined();
    (listed, Some(Unlisted { total, open }))
}

/// The kept states of outcomes with orbits, as a report lists them: all of
/// them, in order, when there are at most `shown`; else the first `shown`
/// determined ones (no `?`), in order, and the count of the rest. One pass
/// over the orbits' members, keeping at most `shown` of each kind; states of
/// one shape order as their values do (`State`'s order).
/// `Err` names the limit that stopped the visit of a finished search's
/// orbits part way.
fn listing(
    p: &Program,
    o: &Outcomes,
    shown: usize,
) -> Result<(Vec<StateCount>, Option<Unlisted>), String> {
    let Some(orbits) = &o.orbits else {
        return Ok((Vec::new(), None));
    };
    let slots = crate::outcome::verdict::Slots::of(p, orbits.shape());
    type Values = Vec<Option<i64>>;
    let mut all: BTreeMap<Values, usize> = BTreeMap::new();
    let mut first: BTreeMap<Values, usize> = BTreeMap::new();
    let (mut total, mut open) = (0usize, 0usize);
    let mut each = |values: &[Option<i64>], n| {
        if !slots.kept(p, values) {
            return;
        }
        total += 1;
        let determined = values.iter().all(Option::is_some);
        open += usize::from(!determined);
        if total <= shown {
            *all.entry(values.to_vec()).or_insert(0) += n;
        } else if !all.is_empty() {
            all.clear();
        }
        // The `shown` least determined states: a bounded ordered set.
        let wanted = first.len() < shown
            || first
                .last_key_value()
                .is_some_and(|(m, _)| values < m.as_slice());
        if determined && wanted {
            *first.entry(values.to_vec()).or_insert(0) += n;
            if first.len() > shown {
                first.pop_last();
            }
        }
    };
    orbits.each_reported(o.limit.is_some(), &mut each)?;
    let counted = |m: BTreeMap<Values, usize>| {
        m.iter()
            .map(|(values, &count)| StateCount {
                values: flatten(&orbits.state(values)),
                count,
            })
            .collect()
    };
    Ok(if total <= shown {
        (counted(all), None)
    } else {
        (counted(first), Some(Unlisted { total, open }))
    })
}
