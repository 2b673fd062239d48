//! No answer from a limit: every engine, stopped by any of its limits
//! (`--timeout` at any point of the search, `--max-steps`, `--max-pomsets`,
//! `--max-states`), either names the limit in its outcomes or gives the
//! whole answer, and every state it gives is one of the whole answer's;
//! `run`'s report (states by orbit and as products) and `run
//! --verdict-only`, so cut, judge each condition as the whole run does, or
//! Unknown; and `explain`, so cut, says a condition is reachable
//! or forbidden as the whole walk does, or that it was stopped.
//!
//! The rest of the tool leans on both halves. `run` turns a named limit into
//! Unknown; the context search of `refine`, `transformations` and
//! `distinguish` takes a run without a named limit as all of its states
//! (a source missing a state makes a counterexample), and keeps a stopped
//! target's states as real executions. A phase that stopped and said
//! nothing would turn a deadline under load into a wrong verdict.
//!
//! Each random program (`gen::test`) is decided once within generous
//! limits, then again under each restriction: deadlines at fractions of the
//! time the whole run took (so they fall inside its phases, wherever the
//! clock is read) and small step, pomset and state budgets. The deadlines
//! make which phase is cut depend on the machine, never what is asserted.
//! `PROPTEST_CASES=N` for a long run (default `CI_SHARE`);
//! `PROPTEST_RNG_SEED=N` for programs CI has not seen.

use crate::gen::{self, cases, Checked};

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use pomset::engine::pwt::explain::{explain_within, Explanation};
use pomset::engine::{self, Capability, Engine};
use pomset::model::Model;
use pomset::outcome::limits::deadline_after;
use pomset::outcome::{Limits, Outcomes, State};
use pomset::report::Report;
use pomset::syntax;
use proptest::test_runner::TestCaseError;

/// The programs CI decides (the fixed seed, `gen::DEFAULT_SEED`): each under
/// every model and seventeen restrictions, as outcomes, as `run` reports
/// them, with `--verdict-only` and with `explain`: about 70 s of a debug
/// build.
const CI_SHARE: u32 = 12;

/// The engines asked: the native ones and every bundled cat model.
fn engines() -> Vec<(&'static str, Box<dyn Engine>)> {
    engine::names()
        .into_iter()
        .filter_map(|n| engine::named(n).ok().map(|e| (n, e)))
        .collect()
}

/// The restrictions tried after a whole run that took `took`. A deadline
/// is held as its length and starts when the restricted run does
/// (`started`), so each falls at its fraction of that run.
fn restrictions(took: Duration) -> Vec<(String, Limits)> {
    let base = Limits::default();
    let mut out = Vec::new();
    for f in [0.02, 0.1, 0.3, 0.6, 0.9] {
        let secs = (took.as_secs_f64() * f).max(1e-6);
        let deadline = Some(deadline_after(secs));
        let what = format!("--timeout {secs:.6} ({f} of the whole run)");
        out.push((what, Limits { deadline, ..base }));
    }
    let counts: [Budget; 4] = [
        ("--max-steps", &[1, 4, 30, 300, 3000], |l, n| {
            l.max_steps = n as u64
        }),
        ("--max-pomsets", &[1, 3, 10, 40], |l, n| l.max_pomsets = n),
        ("--max-partitions", &[1, 2, 8], |l, n| l.max_partitions = n),
        ("--max-states", &[1, 2, 5], |l, n| l.max_states = n),
    ];
    for (flag, values, set) in counts {
        for &n in values {
            let mut limits = base;
            set(&mut limits, n);
            out.push((format!("{flag} {n}"), limits));
        }
    }
    out
}

/// A budget flag, the values tried, and how it sets the limits.
type Budget = (&'static str, &'static [usize], fn(&mut Limits, usize));

/// `limits` with its deadline, if any, starting now.
fn started(limits: Limits) -> Limits {
    Limits {
        deadline: limits.deadline.map(|(_, secs)| deadline_after(secs)),
        ..limits
    }
}

/// The limits of a whole run: the defaults, and 20 s in case one runs away.
fn generous() -> Limits {
    Limits {
        deadline: Some(deadline_after(20.0)),
        ..Limits::default()
    }
}

fn states(o: &Outcomes) -> BTreeSet<&State> {
    o.states.keys().collect()
}

/// One program under one engine: the whole run, then each restriction.
fn named_or_whole(
    text: &str,
    p: &syntax::core::Program,
    (name, engine): (&str, &dyn Engine),
    model: &Model,
) -> Result<Checked, TestCaseError> {
    let start = Instant::now();
    let whole = match engine.outcomes(p, model, generous()) {
        Ok(o) if o.limit.is_none() => o,
        // Refused (a construct the model lacks) or too big: nothing to compare.
        _ => return Ok(Checked::Skipped),
    };
    let took = start.elapsed();
    let all = states(&whole);
    for (what, limits) in restrictions(took) {
        let Ok(cut) = engine.outcomes(p, model, started(limits)) else {
            return Err(TestCaseError::fail(format!(
                "{name} refused under {what} what it decided without it:\n{text}"
            )));
        };
        let got = states(&cut);
        let foreign: Vec<_> = got.difference(&all).collect();
        if !foreign.is_empty() {
            return Err(TestCaseError::fail(format!(
                "{name} under {what} gave a state the whole run lacks ({foreign:?}):\n{text}"
            )));
        }
        if cut.limit.is_none() && got != all {
            let missing: Vec<_> = all.difference(&got).collect();
            return Err(TestCaseError::fail(format!(
                "{name} under {what} named no limit yet lacks {} state(s), e.g. {:?}:\n{text}",
                missing.len(),
                missing.first()
            )));
        }
        let flags = |o: &Outcomes| o.flags.iter().map(|f| f.0.clone()).collect::<BTreeSet<_>>();
        if cut.limit.is_none() && flags(&cut) != flags(&whole) {
            return Err(TestCaseError::fail(format!(
                "{name} under {what} named no limit yet raised other flags ({:?}, not {:?}):\n{text}",
                cut.flags, whole.flags
            )));
        }
    }
    Ok(Checked::Yes)
}

/// Each condition's verdict as `run --verdict-only` reports it: herd7's
/// Ok/No and the observation, `None` where the report has none (Unknown).
fn verdicts(r: &Report) -> Vec<(Option<bool>, Option<&'static str>)> {
    r.conditions.iter().map(|c| (c.ok, c.observation)).collect()
}

/// Whether a cut run's verdict says other than the whole run's: either
/// half (Ok/No, the observation) may be unknown alone, and a known half
/// must be the whole run's.
fn contradicts(
    got: &(Option<bool>, Option<&'static str>),
    want: &(Option<bool>, Option<&'static str>),
) -> bool {
    got.0.is_some_and(|ok| Some(ok) != want.0) || got.1.is_some_and(|obs| Some(obs) != want.1)
}

/// `run --verdict-only` (the condition-directed searches) under each
/// restriction: each condition's Ok/No and observation are the whole
/// run's, or unknown.
fn verdict_only_same_or_unknown(
    text: &str,
    p: &syntax::core::Program,
    name: &str,
    engine: &dyn Engine,
) -> Result<Checked, TestCaseError> {
    if !engine.can(Capability::VerdictOnly) || p.conditions.is_empty() {
        return Ok(Checked::Skipped);
    }
    let model = Model::default();
    let start = Instant::now();
    let whole = engine.verdicts(p, &model, generous());
    if whole.limit.is_some() || whole.unsupported.is_some() {
        return Ok(Checked::Skipped);
    }
    let took = start.elapsed();
    let want = verdicts(&whole);
    for (what, limits) in restrictions(took) {
        let cut = engine.verdicts(p, &model, started(limits));
        for (i, (got, want)) in verdicts(&cut).iter().zip(&want).enumerate() {
            if contradicts(got, want) {
                return Err(TestCaseError::fail(format!(
                    "{name} --verdict-only under {what}: condition {i} judged {got:?}, {want:?} without it (limit named: {:?}):\n{text}",
                    cut.limit
                )));
            }
        }
    }
    Ok(Checked::Yes)
}

/// What `run` reports (`engine::decide`, states taken one per orbit and
/// independent readers as a product, as `run` takes them unless
/// `--all-states`) under each restriction: each condition's Ok/No and
/// observation are the whole run's, or unknown; and all of them the whole
/// run's when no limit is named.
fn report_same_or_unknown(
    text: &str,
    p: &syntax::core::Program,
    name: &str,
    engine: &dyn Engine,
) -> Result<(), TestCaseError> {
    let model = Model::default();
    let as_run = |limits: Limits| Limits {
        orbits: true,
        listed: Some(1000),
        ..limits
    };
    let start = Instant::now();
    let whole = engine::decide(engine, p, &model, false, as_run(generous()));
    if whole.limit.is_some() || whole.unsupported.is_some() {
        return Ok(());
    }
    let want = verdicts(&whole);
    for (what, limits) in restrictions(start.elapsed()) {
        let cut = engine::decide(engine, p, &model, false, as_run(started(limits)));
        let got = verdicts(&cut);
        let differs = got
            .iter()
            .zip(&want)
            .any(|(got, want)| contradicts(got, want));
        if differs || (cut.limit.is_none() && got != want) {
            return Err(TestCaseError::fail(format!(
                "{name}'s report under {what} judged {got:?}, {want:?} without it (limit named: {:?}):\n{text}",
                cut.limit
            )));
        }
    }
    Ok(())
}

/// Whether an explanation says it was stopped: the "Unknown: Limit
/// reached" line, or a reason cut by a search's own limit.
fn explanation_stopped(e: &Explanation) -> bool {
    e.lines
        .iter()
        .any(|l| l.starts_with("Unknown") || l.contains("search limit"))
}

/// `explain` (pwt's) under each restriction: it says whether each
/// condition's proposition is reachable as the whole walk does, or that it
/// was stopped.
fn explain_same_or_stopped(text: &str, p: &syntax::core::Program) -> Result<(), TestCaseError> {
    let model = Model::default();
    for c in &p.conditions {
        let start = Instant::now();
        let Ok(whole) = explain_within(p, &model, &c.prop, &generous()) else {
            return Ok(());
        };
        if explanation_stopped(&whole) {
            continue;
        }
        for (what, limits) in restrictions(start.elapsed()) {
            let Ok(cut) = explain_within(p, &model, &c.prop, &started(limits)) else {
                continue;
            };
            if !explanation_stopped(&cut) && cut.reachable != whole.reachable {
                return Err(TestCaseError::fail(format!(
                    "explain under {what} says reachable = {}, {} without it, and names no limit:\n{}\n{text}",
                    cut.reachable,
                    whole.reachable,
                    cut.lines.join("\n")
                )));
            }
        }
    }
    Ok(())
}

#[test]
fn every_limit_is_named_or_the_answer_is_whole() {
    let engines = engines();
    let (checked, _) = gen::try_property(cases(CI_SHARE), gen::test(), |t| {
        let text = t.text();
        let p = syntax::parse(&text)
            .map_err(|d| TestCaseError::fail(d.render("gen", &text)))?
            .program;
        explain_same_or_stopped(&text, &p)?;
        let mut any = false;
        for (name, e) in &engines {
            any |=
                named_or_whole(&text, &p, (name, e.as_ref()), &Model::default())? == Checked::Yes;
            verdict_only_same_or_unknown(&text, &p, name, e.as_ref())?;
            report_same_or_unknown(&text, &p, name, e.as_ref())?;
        }
        Ok(if any { Checked::Yes } else { Checked::Skipped })
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "no program was decided whole by any engine");
}

/// The pomset engine under `if_closure = registers`, whose partitions of
/// the registers' valuations have a limit of their own
/// (`--max-partitions`), and under `monotonicity`, which builds every
/// stronger label: named or whole, as above.
#[test]
fn every_limit_is_named_under_the_pomset_options_with_limits_of_their_own() {
    let pwt = engine::named("pwt").expect("pwt");
    let models: Vec<Model> = [("if_closure", "registers"), ("monotonicity", "modes")]
        .iter()
        .map(|&(k, v)| {
            let mut m = Model::default();
            m.set(k, v).expect("a value of the option");
            m
        })
        .collect();
    let (checked, _) = gen::try_property(cases(CI_SHARE), gen::tiny(), |t| {
        let text = t.text();
        let p = syntax::parse(&text)
            .map_err(|d| TestCaseError::fail(d.render("gen", &text)))?
            .program;
        let mut any = false;
        for m in &models {
            any |= named_or_whole(&text, &p, ("pwt", pwt.as_ref()), m)? == Checked::Yes;
        }
        Ok(if any { Checked::Yes } else { Checked::Skipped })
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(checked > 0, "no program was decided whole");
}

/// Found by `every_limit_is_named_or_the_answer_is_whole`: an rf search
/// capped by `--max-states` skips the rf it is at, and when that was the
/// last one the search ended as if complete. With one state allowed, the
/// pomset engine kept three of nine complete pomsets, named no limit and
/// said `Always` where the condition holds only sometimes.
#[test]
fn an_rf_search_capped_at_its_last_rf_names_the_cap() {
    let text = "litmus CAP\nlocations { x; y; z }\n\n\
        x.wk.cta := 0;\n|| ( FADD.cta(x, 1); || skip; )\n|| FADD.cta(y, 1);\n\
        || if (y.rlx + 0) { skip; } else { skip; }\n\nexists ([x] = 0)\n";
    let p = syntax::parse(text).expect("parses").program;
    let pwt = engine::named("pwt").expect("pwt");
    let whole = pwt
        .outcomes(&p, &Model::default(), Limits::default())
        .expect("decided");
    assert_eq!((whole.states.len(), whole.limit), (2, None));
    for max_states in 1..=2 {
        let limits = Limits {
            max_states,
            ..Limits::default()
        };
        let cut = pwt
            .outcomes(&p, &Model::default(), limits)
            .expect("decided");
        assert!(
            cut.limit.is_some() || cut.states == whole.states,
            "--max-states {max_states}: {:?} and no limit named",
            cut.states
        );
    }
}
