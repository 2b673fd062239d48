//! Thread symmetry (`semantics::symmetry`): with copies of a thread added,
//! searching one arrangement per multiset of variants and expanding the
//! orbits gives exactly the states, counts and witnesses of the plain search
//! over every arrangement. At most 5% of programs may stop at a limit.
//! `PROPTEST_CASES=N` raises the number of programs.

use crate::gen;

use gen::{cases, Checked};
use pomset::engine::pwt::decide;
use pomset::model::Model;
use pomset::outcome::Limits;
use pomset::syntax::{self, core::Program};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A few settings that change which pomsets exist (the observer turns the
/// symmetry off, so it checks the fallback).
const SETTINGS: [(&str, &str); 4] = [
    ("init", "rlx"),
    ("monotonicity", "modes"),
    ("sc_order", "sec11"),
    ("final", "observer"),
];

#[test]
fn symmetric_search_equals_the_plain_one() {
    let programs = (gen::tiny(), 1usize..=2, 0usize..SETTINGS.len());
    gen::run_property(
        "symmetric search",
        cases(60),
        programs,
        |(t, copies, setting)| {
            let t = t.duplicate_thread(0, copies);
            let (text, p, model) = gen::program_under(&t, SETTINGS[setting])?;
            // Small budgets: a program that needs more is skipped, not compared.
            let limits = Limits {
                max_steps: 1_000_000,
                max_states: 20_000,
                ..Limits::default()
            };
            let plain = |l| Limits {
                symmetry: false,
                ..l
            };
            let (plain, symmetric) = match gen::pwt_plain_and_pruned(&p, &model, limits, plain) {
                Ok(both) => both,
                Err(why) => return Ok(gen::skipped(&why, &t)),
            };
            prop_assert_eq!(
                &plain.states,
                &symmetric.states,
                "states or counts differ for\n{}",
                text
            );
            prop_assert_eq!(
                plain.witnesses,
                symmetric.witnesses,
                "witnesses differ for\n{}",
                text
            );
            // Kept one per orbit, the report (states, counts, verdicts) is the same.
            let orbits = decide::outcomes(
                &p,
                &model,
                Limits {
                    orbits: true,
                    ..limits
                },
            )
            .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            same_report(&p, &model, &plain, &orbits, &text)?;
            Ok(Checked::Yes)
        },
    );
}

/// Kept as orbits, the outcomes count the same states and print the same
/// report as kept plainly.
fn same_report(
    p: &Program,
    model: &Model,
    plain: &pomset::outcome::Outcomes,
    orbits: &pomset::outcome::Outcomes,
    text: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        plain.state_count(),
        orbits.state_count(),
        "state counts differ for\n{}",
        text
    );
    prop_assert_eq!(
        report(p, model, plain),
        report(p, model, orbits),
        "reports differ for\n{}",
        text
    );
    Ok(())
}

/// Without interchangeable threads, `run`'s text report keeps states as
/// orbits of one state each, values only: the report is the same.
#[test]
fn single_state_orbits_report_as_the_plain_states() {
    let programs = (gen::tiny(), 0usize..SETTINGS.len());
    gen::run_property(
        "single-state orbits",
        cases(60),
        programs,
        |(t, setting)| {
            let (text, p, model) = gen::program_under(&t, SETTINGS[setting])?;
            let limits = Limits {
                max_steps: 1_000_000,
                max_states: 20_000,
                ..Limits::default()
            };
            let plain = decide::outcomes(&p, &model, limits);
            let orbits = decide::outcomes(
                &p,
                &model,
                Limits {
                    orbits: true,
                    ..limits
                },
            );
            let (Ok(plain), Ok(orbits)) = (plain, orbits) else {
                return Ok(gen::skipped("refused", &t));
            };
            if plain.limit.is_some() || orbits.limit.is_some() {
                return Ok(gen::skipped("a limit", &t));
            }
            prop_assert_eq!(
                plain.witnesses,
                orbits.witnesses,
                "witnesses differ for\n{}",
                text
            );
            same_report(&p, &model, &plain, &orbits, &text)?;
            Ok(Checked::Yes)
        },
    );
}

/// States kept as orbits hold their values packed (`outcome::packed`):
/// negative values, `?`, and values past one byte's code (237, 400) list
/// in the order, with the counts and verdicts, of the plain states.
#[test]
fn packed_values_report_as_the_plain_states() {
    let src = "litmus Packed
locations { x; y; }
x := -300; y := 400;
|| r1 := y; r2 := x;
|| x := 237; s1 := x;
exists (r1 = 400 /\\ r2 = 0)
";
    let p = syntax::parse(src).expect("parses").program;
    let model = Model::default();
    let plain = decide::outcomes(&p, &model, Limits::default()).expect("decided");
    let orbits = Limits {
        orbits: true,
        ..Limits::default()
    };
    let packed = decide::outcomes(&p, &model, orbits).expect("decided");
    assert!(packed.orbits.is_some() && packed.states.is_empty());
    assert_eq!(plain.state_count(), 60);
    assert_eq!(packed.state_count(), 60);
    let text = report(&p, &model, &packed);
    assert_eq!(report(&p, &model, &plain), text);
    assert!(text.contains("Observation Packed Sometimes 5 55"), "{text}");
}

/// The text `run` prints, without its time.
fn report(p: &syntax::core::Program, model: &Model, o: &pomset::outcome::Outcomes) -> String {
    let text = pomset::report::Report::new(p, model, o, std::time::Duration::ZERO).text(p);
    text.lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The symmetry is found where it should be and the search is smaller: IRIW
/// with four readers of two kinds visits 15 × 15 multisets, not 9^4.
#[test]
fn iriw_readers_of_one_kind_are_interchangeable() {
    let src = "litmus IRIW-4
locations { a0; a1 }
a0 := 1;
|| a1 := 1;
|| r0 := a0; s0 := a1;
|| r1 := a1; s1 := a0;
|| r2 := a0; s2 := a1;
|| r3 := a1; s3 := a0;
exists (r0 = 1 /\\ s0 = 0 /\\ r1 = 1 /\\ s1 = 0 /\\ r2 = 1 /\\ s2 = 0 /\\ r3 = 1 /\\ s3 = 0)
";
    let p = syntax::parse(src).expect("parses").program;
    let classes = pomset::outcome::orbit::Classes::of(&p);
    assert_eq!(classes.classes, vec![vec![2, 4], vec![3, 5]]);
    assert_eq!(classes.describe(&p), "P2 and P4; P3 and P5");
    let model = Model::default();
    let plain = decide::outcomes(
        &p,
        &model,
        Limits {
            symmetry: false,
            ..Limits::default()
        },
    )
    .expect("decides");
    let symmetric = decide::outcomes(&p, &model, Limits::default()).expect("decides");
    assert_eq!(plain.states, symmetric.states);
    assert_eq!(plain.states.len(), 6561);
    // One per orbit: 15 × 15 multisets of variants, fewer orbits (some
    // multisets end in the same states), and the same report, which lists
    // the determined states (256) and counts the rest.
    let orbits = decide::outcomes(
        &p,
        &model,
        Limits {
            orbits: true,
            factor: false,
            ..Limits::default()
        },
    )
    .expect("decides");
    assert!(orbits.states.is_empty());
    assert_eq!(orbits.orbits.as_ref().map(|o| o.orbits()), Some(2025));
    assert_eq!(orbits.state_count(), 6561);
    let text = report(&p, &model, &orbits);
    assert_eq!(report(&p, &model, &plain), text);
    assert!(text.contains("States 6561\n"), "{text}");
    assert!(text.contains("6305 more states not listed"), "{text}");
    // Its readers kept apart (`factor.rs`), the report is the same again.
    let product = Limits {
        orbits: true,
        ..Limits::default()
    };
    let product = decide::outcomes(&p, &model, product).expect("decides");
    assert!(product.factored.is_some());
    assert_eq!(report(&p, &model, &product), text);
}

/// IRIW with three readers, decided into orbits (its readers not kept
/// apart) under a Ctrl-C flag that a test sets after the search.
fn iriw_3_in_orbits(
    cancel: &'static std::sync::atomic::AtomicBool,
) -> (
    pomset::syntax::core::Program,
    Model,
    pomset::outcome::Outcomes,
) {
    let src = "litmus IRIW-3
locations { a0; a1 }
a0 := 1;
|| a1 := 1;
|| r0 := a0; s0 := a1;
|| r1 := a0; s1 := a1;
|| r2 := a0; s2 := a1;
exists (r0 = 1 /\\ s0 = 0)
";
    let p = syntax::parse(src).expect("parses").program;
    let model = Model::default();
    let limits = Limits {
        orbits: true,
        factor: false,
        cancel: Some(cancel),
        ..Limits::default()
    };
    let o = decide::outcomes(&p, &model, limits).expect("decides");
    (p, model, o)
}

/// Visiting the orbits' members (to judge and list them) can take as long
/// as the search, so it stops at the search's limits too: a Ctrl-C that
/// comes after the search makes the report a cut one, with the limit
/// named, instead of judging every member. Its verdicts are those the
/// orbits' canonical members settle (issue 74): here one state of each
/// kind, so `Sometimes` stands, with the count a lower bound.
#[test]
fn judging_orbits_stops_at_ctrl_c() {
    static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let (p, model, o) = iriw_3_in_orbits(&CANCEL);
    assert!(o.orbits.is_some() && o.limit.is_none());
    let text = report(&p, &model, &o);
    assert!(text.contains("Observation IRIW-3 Sometimes"), "{text}");
    CANCEL.store(true, std::sync::atomic::Ordering::Relaxed);
    let text = report(&p, &model, &o);
    assert!(text.contains("Observation IRIW-3 Sometimes"), "{text}");
    assert!(text.contains(" (at least)\n"), "{text}");
    assert!(
        text.contains("Limit reached: interrupted (Ctrl-C)"),
        "{text}"
    );
}

/// Issue 27: a visit of a finished search's orbits cut part way printed
/// Positive/Negative counts of the members it had seen, not adding up to
/// the states listed. Cut after the search, the report lists one state per
/// orbit, as a cut search does, and its counts add up to them.
#[test]
fn a_report_cut_after_the_search_counts_what_it_lists() {
    static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let (p, model, o) = iriw_3_in_orbits(&CANCEL);
    let orbits = o.orbits.as_ref().map(|x| x.orbits());
    let whole = pomset::report::Report::new(&p, &model, &o, std::time::Duration::ZERO);
    CANCEL.store(true, std::sync::atomic::Ordering::Relaxed);
    let r = pomset::report::Report::new(&p, &model, &o, std::time::Duration::ZERO);
    let listed: usize = r.states.iter().map(|s| s.count).sum();
    assert_eq!(Some(r.states.len()), orbits);
    assert_eq!(listed, o.witnesses);
    for (c, w) in r.conditions.iter().zip(&whole.conditions) {
        assert_eq!(c.positive + c.negative, listed);
        // Issue 74: what the members listed settle, the whole run's.
        assert!(c.ok.is_none_or(|ok| Some(ok) == w.ok), "{c:?} {w:?}");
        assert!(c.observation.is_none_or(|o| Some(o) == w.observation));
    }
    let limit = r.limit.unwrap_or_default();
    assert!(
        limit.starts_with("interrupted (Ctrl-C), after the search"),
        "{limit}"
    );
}
