//! Issue 74: verdicts a limit cannot take away, and a cut that says when it
//! was reached, under every engine (pwt, pwt:reference, sc, each bundled
//! cat model).
//!
//! - A search stopped by a limit after it found a state that settles a
//!   verdict reports that verdict, the limit named beside it and the state
//!   count marked as a lower bound; what no found state settles stays
//!   Unknown, and nothing it reports differs from the whole run's.
//! - A test that is `Never` at `--unroll 2` and `Sometimes` at 3 is
//!   reported, at 2, as bounded by a cut that is reached, in the text, the
//!   JSON and `compare`, and the run's summary counts it as bounded.

use pomset::engine::{self, Engine};
use pomset::outcome::Limits;
use pomset::report::Report;
use pomset::syntax::{self, check};

/// The engines asked: the native ones and every bundled cat model.
fn engines() -> Vec<(&'static str, Box<dyn Engine>)> {
    engine::names()
        .into_iter()
        .filter_map(|n| engine::named(n).ok().map(|e| (n, e)))
        .collect()
}

fn parse(text: &str, unroll: u32) -> syntax::Litmus {
    let opts = check::Options {
        unroll: Some(unroll),
        ..check::Options::default()
    };
    syntax::parse_with(text, opts).expect("the test parses")
}

/// Store buffering, small enough for the reference engine. The first two conditions hold of
/// every state (`P0:r` is 0 or 1 in each), so one found state settles
/// `exists` (Ok) and `forbid` (No); the third holds of none, so one found
/// state settles `forall` (No); the fourth holds of some states and not
/// others, `Sometimes` once one of each is found.
const MANY: &str = "litmus SETTLED
x := 1; r := y;
|| y := 1; s := x;

exists (P0:r = 0 \\/ P0:r = 1)
forbid (P0:r = 0 \\/ P0:r = 1)
forall (P0:r = 5)
exists (P0:r = 1)
";

/// Ok/No and the observation of each condition.
fn verdicts(r: &Report) -> Vec<(Option<bool>, Option<&'static str>)> {
    r.conditions.iter().map(|c| (c.ok, c.observation)).collect()
}

/// The first report, over budgets of growing size, that a limit cut after
/// it found a state: its budget and the report.
fn cut_after_a_state(e: &dyn Engine, test: &syntax::Litmus) -> Option<(String, Report)> {
    let p = &test.program;
    type Budget = (&'static str, fn(&mut Limits, usize));
    let budgets: [Budget; 2] = [
        ("--max-states", |l, n| l.max_states = n),
        ("--max-steps", |l, n| l.max_steps = n as u64),
    ];
    for (flag, set) in budgets {
        for n in 1..400 {
            let mut limits = Limits::default();
            set(&mut limits, n);
            let r = engine::decide(e, p, &p.model, false, limits);
            if r.limit.is_some() && !r.states.is_empty() {
                return Some((format!("{flag} {n}"), r));
            }
            if r.limit.is_none() {
                break;
            }
        }
    }
    None
}

#[test]
fn a_verdict_settled_before_a_limit_is_reported_under_every_engine() {
    let test = parse(MANY, 2);
    let p = &test.program;
    for (name, e) in engines() {
        let whole = engine::decide(e.as_ref(), p, &p.model, false, Limits::default());
        assert!(whole.limit.is_none(), "{name}: {}", whole.text(p));
        let Some((budget, cut)) = cut_after_a_state(e.as_ref(), &test) else {
            panic!("{name}: no budget cut the search after a state was found");
        };
        let text = cut.text(p);
        // Settled by any one state: exists Ok, forbid No, forall No.
        assert_eq!(cut.conditions[0].ok, Some(true), "{name} {budget}: {text}");
        assert_eq!(cut.conditions[1].ok, Some(false), "{name} {budget}: {text}");
        assert_eq!(cut.conditions[2].ok, Some(false), "{name} {budget}: {text}");
        // Never is not settled by a partial search, nor is Always.
        for c in &cut.conditions {
            assert!(
                !matches!(c.observation, Some("Never" | "Always")),
                "{name} {budget}: {text}"
            );
        }
        // Whatever is reported is the whole run's.
        for (got, want) in verdicts(&cut).iter().zip(verdicts(&whole)) {
            assert!(
                got.0.is_none_or(|ok| Some(ok) == want.0)
                    && got.1.is_none_or(|o| Some(o) == want.1),
                "{name} {budget}: {got:?} against the whole run's {want:?}\n{text}"
            );
        }
        // The limit is named beside it, the count is a lower bound.
        assert!(cut.states_at_least, "{name}");
        assert!(text.contains(" (at least)\n"), "{name}: {text}");
        assert!(
            text.contains(&format!("Limit reached: {budget}")),
            "{name}: {text}"
        );
        let json = serde_json::to_value(&cut).expect("JSON");
        assert_eq!(json["states_at_least"], true, "{name}");
        assert_eq!(json["conditions"][0]["ok"], true, "{name}");
    }
}

/// `Never` at `--unroll 2`, `Sometimes` at 3: the third pass reads the
/// flag (the counter makes the loop no spin, so sc unrolls it too).
const THIRD_PASS: &str = "litmus THIRD-PASS
y := 1;
|| n := 0; do { n := n + 1; r := y; } while (r = 0);

exists (P1:n = 3)
";

#[test]
fn a_never_that_a_third_pass_changes_is_bounded_and_reached_under_every_engine() {
    let two = parse(THIRD_PASS, 2);
    let three = parse(THIRD_PASS, 3);
    for (name, e) in engines() {
        let at = |t: &syntax::Litmus| {
            let p = &t.program;
            engine::decide(e.as_ref(), p, &p.model, false, Limits::default())
        };
        let (r2, r3) = (at(&two), at(&three));
        let text = r2.text(&two.program);
        assert_eq!(
            r2.conditions[0].observation,
            Some("Never"),
            "{name}: {text}"
        );
        assert_eq!(r3.conditions[0].observation, Some("Sometimes"), "{name}");
        let bounded = r2.conditions[0].bounded.expect("marked bounded");
        assert_eq!((bounded.unroll, bounded.reached), (2, true), "{name}");
        assert!(
            text.contains("Observation THIRD-PASS Never 0 ")
                && text.contains("(bounded: --unroll 2, reached)"),
            "{name}: {text}"
        );
        assert!(
            text.contains("bounded by --unroll 2, and reached"),
            "{name}: {text}"
        );
        let json = serde_json::to_value(&r2).expect("JSON");
        assert_eq!(json["conditions"][0]["bounded"]["reached"], true, "{name}");
        // Sometimes needs no mark: its witnesses are executions at any bound.
        assert!(r3.conditions[0].bounded.is_none(), "{name}");
    }
}

/// A loop no execution runs to its cut: the cat models' lazy search and sc
/// say "never reached", and no verdict is marked bounded.
#[test]
fn a_cut_never_reached_marks_no_verdict_bounded() {
    let text = "litmus NEVER-REACHED
x := 1;
|| n := 0; do { n := n + 1; r := y; } while (r = 1);

exists (P1:n = 2)
";
    let test = parse(text, 2);
    let p = &test.program;
    for name in ["sc", "rc11"] {
        let e = engine::named(name).expect("a model");
        let r = engine::decide(e.as_ref(), p, &p.model, false, Limits::default());
        assert_eq!(r.conditions[0].observation, Some("Never"), "{name}");
        assert!(r.conditions[0].bounded.is_none(), "{name}: {}", r.text(p));
    }
}

/// `run --verdict-only` (pwt's condition-directed searches) tells nothing
/// of the cuts: its `Never` under the bound is marked as maybe reached.
#[test]
fn a_verdict_only_never_under_a_bound_is_marked() {
    let two = parse(THIRD_PASS, 2);
    let p = &two.program;
    let e = engine::named("pwt").expect("pwt");
    let r = engine::decide(e.as_ref(), p, &p.model, true, Limits::default());
    assert_eq!(r.conditions[0].observation, Some("Never"), "{}", r.text(p));
    let bounded = r.conditions[0].bounded.expect("marked bounded");
    assert_eq!((bounded.unroll, bounded.reached), (2, false));
    assert!(r.text(p).contains("(bounded: --unroll 2, maybe reached)"));
}
