//! What a new user trips over (issue 20): long input refused with a located
//! error instead of a stack overflow, limits that stop every search before it
//! exhausts memory, and exit codes that do not hide an undecided expectation.
//! The long inputs are generated here, not checked in.

use crate::families;

use std::process::{Command, Output};

use families::{corr, sb_ring};
use pomset::repl::Session;
use pomset::syntax;

fn pomset(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pomset"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the pomset binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pomset-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// The fragments of issue 20 that overflowed the stack, at `n` operators.
fn chains(n: usize) -> Vec<(&'static str, String)> {
    let ors = vec!["r = 1"; n].join(" || ");
    vec![
        ("minus", format!("r := {}1", "- ".repeat(n))),
        ("not", format!("r := {}1", "!".repeat(n))),
        ("plus", format!("r := 1{}", " + 0".repeat(n))),
        ("or in if", format!("r := x; if ({ors}) {{ y := 1 }}")),
    ]
}

fn litmus(fragment: &str, condition: &str) -> String {
    format!("litmus DEEP\n{fragment};\nexists ({condition})\n")
}

fn conjuncts(n: usize) -> String {
    vec!["r = 1"; n].join(" /\\ ")
}

/// Every long chain is refused by parse, check and fmt, with the limit named.
#[test]
fn long_operator_chains_are_refused_not_overflowed() {
    // 300 is past the depth bound, 11,000 past the length bound (issue 20's size).
    for n in [300, 11_000] {
        let mut inputs: Vec<(&str, String)> = chains(n)
            .into_iter()
            .map(|(what, f)| (what, litmus(&f, "r = 1")))
            .collect();
        inputs.push(("conjuncts", litmus("r := 1", &conjuncts(n))));
        for (what, src) in inputs {
            let err = syntax::parse(&src)
                .expect_err(what)
                .render("deep.litmus", &src);
            assert!(
                err.contains("nest more than 256 deep") || err.contains("longer than 4096 tokens"),
                "{what} at {n}: {err}"
            );
            assert!(
                err.contains("deep.litmus:"),
                "{what} at {n} is located: {err}"
            );
            assert!(err.contains("hint:"), "{what} at {n}: {err}");
            assert!(syntax::format(&src).is_err(), "{what} at {n}");
        }
    }
}

/// Chains within the bounds still parse and mean what they say.
#[test]
fn chains_within_the_bound_still_parse() {
    for (what, fragment) in chains(100) {
        let src = litmus(&fragment, &conjuncts(100));
        assert!(syntax::parse(&src).is_ok(), "{what}: {src}");
        assert!(syntax::format(&src).is_ok(), "{what}");
    }
    // `- - ... 1` with an even number of minus signs is 1; `!!...1` too.
    let test = syntax::parse(&litmus(&format!("r := {}1", "- ".repeat(100)), "r = 1"))
        .expect("100 minus signs parse");
    let states = pomset::engine::pwt::decide::outcomes(
        &test.program,
        &test.program.model,
        Default::default(),
    )
    .expect("supported");
    let report = pomset::report::Report::new(
        &test.program,
        &test.program.model,
        &states,
        std::time::Duration::ZERO,
    );
    assert!(
        report.text_listing(&test.program, false).contains("Ok"),
        "{}",
        report.text_listing(&test.program, false)
    );
}

/// The REPL answers a long chain with an error and keeps the session.
#[test]
fn the_repl_survives_long_chains() {
    let mut s = Session::new();
    for (what, fragment) in chains(11_000) {
        let reply = s.eval(&fragment).output.render(false);
        assert!(reply.contains("error"), "{what}: {reply}");
    }
    let reply = s.eval("r := x; y := r").output.render(false);
    assert!(reply.contains("complete pomset"), "{reply}");
}

/// `refine --from` goes through the same guard.
#[test]
fn refine_from_refuses_long_chains() {
    for (what, fragment) in chains(11_000) {
        let r = pomset::refinement::quick(&fragment, "r := 1");
        assert!(r.is_err(), "{what}");
    }
}

/// The binary, on a file: exit 1 and a file:line:col location, for every command.
#[test]
fn the_binary_refuses_long_chains_with_a_location() {
    let src = litmus(&format!("r := {}1", "- ".repeat(11_000)), "r = 1");
    let path = temp_file("minus.litmus", &src);
    let path = path.to_str().expect("a UTF-8 temp path");
    for command in ["check", "run", "parse"] {
        let out = pomset(&[command, path]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("minus.litmus:2:"), "{command}: {err}");
    }
    let out = pomset(&["fmt", "--check", path]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

/// IRIW with `n` readers, each reading x then y, expecting the outcome allowed.
fn iriw(n: usize) -> String {
    let mut threads = vec!["x := 1;".to_string(), "y := 1;".to_string()];
    threads.extend((0..n).map(|i| format!("r{i} := x; s{i} := y;")));
    format!(
        "litmus IRIW{n}\n{}\nexists (r0 = 1 /\\ s0 = 0)\n  expect allowed\n",
        threads.join("\n|| ")
    )
}

/// IRIW with each thread on a gpu of its own: no two threads can be
/// swapped, so thread symmetry does not shorten the search (`iriw` has one
/// class of n interchangeable readers).
fn iriw_apart(n: usize) -> String {
    let gpus: Vec<String> = (0..n + 2)
        .map(|t| format!("gpu {{ cta {{ P{t} }} }}"))
        .collect();
    iriw(n).replacen(
        '\n',
        &format!("\nscopes: sys {{ {} }}\n", gpus.join(" ")),
        1,
    )
}

/// IRIW with ten readers ran out of memory; `--max-states` stops it first,
/// with the limit named, and the stated expectation left undecided fails
/// the run unless `--allow-unknown`.
#[test]
fn many_states_end_unknown_with_the_limit_named() {
    let test = syntax::parse(&iriw(10)).expect("IRIW10 parses");
    let limits = pomset::outcome::Limits {
        max_states: 50,
        ..Default::default()
    };
    let o = pomset::engine::pwt::decide::outcomes(&test.program, &test.program.model, limits)
        .expect("supported");
    let limit = o.limit.expect("a limit stops IRIW10 at 50 states");
    assert!(limit.starts_with("--max-states 50"), "{limit}");
    assert!(
        o.states.len() <= 50,
        "no more states kept than the limit: {}",
        o.states.len()
    );

    let path = temp_file("iriw10.litmus", &iriw(10));
    let path = path.to_str().expect("a UTF-8 temp path");
    let out = pomset(&["run", "--max-states", "50", path]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-states 50"),
        "{stdout}"
    );
    assert!(stdout.contains("Expected allowed: undecided"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--allow-unknown"));
    let out = pomset(&["run", "--max-states", "50", "--allow-unknown", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // `expect unknown` is not an expectation a limit can leave undecided.
    let unknown = iriw(1).replace("expect allowed", "expect unknown");
    let path = temp_file("iriw1.litmus", &unknown);
    let out = pomset(&["run", "--max-states", "1", path.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// `run`'s text report keeps the states of interchangeable threads one per
/// orbit, so `--max-states` counts orbits there: IRIW with five readers of
/// one kind has 59 049 states in 1 287 orbits, decided within 2 000, and
/// listed as `--all-states` (which keeps every state) cannot be.
#[test]
fn run_counts_orbits_against_max_states() {
    let path = temp_file("iriw5-orbits.litmus", &iriw(5));
    let path = path.to_str().expect("a UTF-8 temp path");
    let out = pomset(&["run", "--max-states", "2000", path]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("States 59049\n"), "{stdout}");
    assert!(stdout.contains("Observation IRIW5 Sometimes"), "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = pomset(&[
        "run",
        "--max-states",
        "2000",
        "--all-states",
        "--allow-unknown",
        path,
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-states 2000 (final states)"),
        "{stdout}"
    );
}

/// Raising `--max-states` does not bring the abort back: the binary counts
/// its heap, and `--max-memory` (by default three quarters of the machine)
/// stops the search with the limit named. (Readers on gpus of their own:
/// with its readers interchangeable, IRIW with 8 readers keeps 12 870
/// orbits, not 43 M states, and needs too little memory to test this; and
/// `--no-factor`: with its readers kept apart it holds 18 reader parts.)
#[test]
fn the_memory_budget_stops_a_search_whatever_the_other_limits() {
    let path = temp_file("iriw8-memory.litmus", &iriw_apart(8));
    let path = path.to_str().expect("a UTF-8 temp path");
    let out = pomset(&[
        "run",
        "--no-factor",
        "--max-states",
        "100000000",
        "--max-memory",
        "20",
        "--allow-unknown",
        path,
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-memory 20"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// The candidate listing holds at most `--max-states` candidates of one rf search.
#[test]
fn candidates_are_bounded_too() {
    let out = pomset(&[
        "pomsets",
        "--candidates",
        "--max-states",
        "2",
        "examples/classic/iriw.litmus",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Limit reached: --max-states 2 (candidates of one rf search)"),
        "{stdout}"
    );
}

/// Every limit a message names is a flag of the command that printed it.
#[test]
fn limit_messages_name_real_flags() {
    let out = pomset(&["run", "--max-steps", "1", "examples/classic/mp.litmus"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Limit reached: --max-steps 1"), "{stdout}");
    let help = text(&pomset(&["run", "--help"]).stdout);
    for flag in [
        "--max-steps",
        "--max-states",
        "--max-pomsets",
        "--timeout",
        "--allow-unknown",
    ] {
        assert!(help.contains(flag), "run --help lacks {flag}");
    }
    let help = text(&pomset(&["draw", "--help"]).stdout);
    for flag in [
        "--max-steps",
        "--max-states",
        "--max-pomsets",
        "--timeout",
        "--limit",
    ] {
        assert!(help.contains(flag), "draw --help lacks {flag}");
    }
}

/// A refinement whose fragments are too large to enumerate stops at the
/// first generated test a limit stops, not hundreds later, and says why
/// instead of "target 0 pomsets, source 0".
#[test]
fn refine_stops_once_the_verdict_is_unknown() {
    let writes = ["x := 1"; 10].join("; ");
    let from = format!("{writes}; r := x");
    let to = format!("{writes}; r := 1");
    let out = pomset(&["refine", "--from", &from, "--to", &to]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("unknown (the local pomsets were not all enumerated)"),
        "{stdout}"
    );
    assert!(!stdout.contains("target 0 pomsets"), "{stdout}");
    assert!(
        stdout.contains("No distinguishing test in the 1 tried of the "),
        "{stdout}"
    );
    // The limit is named by its flag, with the generated test it stopped.
    assert!(
        stdout.contains(
            "the context search: --max-pomsets 20000 while deciding generated test 1 of "
        ),
        "{stdout}"
    );
    // --timeout stops the contextual search of an unsound pair.
    let out = pomset(&[
        "refine",
        "--timeout",
        "0",
        "--from",
        "x := 1; x := 2",
        "--to",
        "x := 2",
    ]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Stopped by --timeout 0"), "{stdout}");
}

/// `draw` takes run's limits and a picture limit, and lays many pictures
/// out as a grid.
#[test]
fn draw_is_bounded_and_laid_out_as_a_grid() {
    let out = pomset(&[
        "draw",
        "--which",
        "candidates",
        "--limit",
        "9",
        "--format",
        "svg",
        "examples/classic/lb+datas.litmus",
    ]);
    let svg = text(&out.stdout);
    let err = text(&out.stderr);
    assert!(err.contains("drew 9 of "), "{err}");
    assert_eq!(svg.matches("<g transform=\"translate(").count(), 9);
    let number = |attr: &str| -> f64 {
        let start = svg.find(&format!("{attr}=\"")).expect("attribute") + attr.len() + 2;
        let end = start + svg[start..].find('"').expect("closing quote");
        svg[start..end].parse().expect("a number")
    };
    let (w, h) = (number("width"), number("height"));
    // Three columns of three: neither a strip down nor a strip across.
    assert!(h < 3.0 * w && w < 3.0 * h, "{w} x {h}");
    let out = pomset(&[
        "draw",
        "--max-states",
        "1",
        "--which",
        "complete",
        "examples/classic/iriw.litmus",
    ]);
    assert!(
        text(&out.stderr).contains("--max-states 1"),
        "{}",
        text(&out.stderr)
    );
}

/// Ctrl-C during `:run` prints the count and a few states, not all of them.
#[test]
fn ctrl_c_prints_a_count_and_a_few_states() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static CANCELLED: AtomicBool = AtomicBool::new(false);
    let mut s = Session::new().with_cancel(&CANCELLED);
    // A ring of eleven store-buffering threads: no two interchangeable, no
    // reader to keep apart, 3^11 states, so `:run` is still searching at 2 s
    // (IRIW with eight readers, used before, is now decided in a moment).
    let loaded = s.eval(&sb_ring(11)).output.render(false);
    assert!(!loaded.contains("error"), "{loaded}");
    let timer = std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_secs(2));
        CANCELLED.store(true, Ordering::Relaxed);
    });
    let run = s.eval(":run").output.render(false);
    timer.join().expect("the timer thread");
    assert!(run.contains("interrupted (Ctrl-C)"), "{run}");
    let listed = run.lines().filter(|l| l.contains(" :> ")).count();
    assert!(listed <= pomset::repl::session::INTERRUPTED_STATES, "{run}");
    let states: usize = run
        .lines()
        .find_map(|l| l.strip_prefix("States "))
        .and_then(|n| n.strip_suffix(" (at least)"))
        .and_then(|n| n.trim().parse().ok())
        .expect("a States line, a lower bound");
    assert!(
        states > 10,
        "2 s of SB with eleven threads finds more than 10 states: {run}"
    );
    assert!(run.contains("not listed"), "{run}");
}

/// `--timeout` stops the construction of a thread's pomsets too, not only
/// the rf search (issue 14: CoRR-5 with `--timeout 5` used to take 63 s).
/// `--no-factor` builds CoRR's reader whole, as its reads are otherwise
/// kept apart (`factor::split`) and it is decided in full.
#[test]
fn the_timeout_stops_the_construction_of_a_big_thread() {
    let path = temp_file("corr7.litmus", &corr(7));
    let path = path.to_string_lossy();
    let out = pomset(&[
        "run",
        "--timeout",
        "0.3",
        "--max-pomsets",
        "100000000",
        "--no-factor",
        "--allow-unknown",
        &path,
    ]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Limit reached: --timeout 0.3"), "{stdout}");
    assert!(stdout.contains("Observation CoRR-7 Unknown"), "{stdout}");
}

/// `--verdict-only` decides what full enumeration cannot: CoRR with six
/// reads (941 977 reader pomsets, past `--max-pomsets` when the reader is
/// built whole, `--no-factor`) is Sometimes under the default model, and
/// the states listed are the two the searches stopped at.
#[test]
fn verdict_only_decides_a_test_too_big_to_enumerate() {
    let path = temp_file("corr6-vo.litmus", &corr(6));
    let path = path.to_string_lossy();
    let full = pomset(&[
        "run",
        "--allow-unknown",
        "--no-factor",
        "--max-pomsets",
        "5000",
        &path,
    ]);
    let full = text(&full.stdout);
    assert!(full.contains("Limit reached: --max-pomsets 5000"), "{full}");
    // The searches (`--no-factor`: the reader built whole, as above).
    let out = pomset(&[
        "run",
        "--verdict-only",
        "--no-factor",
        "--max-pomsets",
        "5000",
        &path,
    ]);
    assert!(text(&out.stdout).contains("Observation CoRR-6 Sometimes 1 1"));
    let out = pomset(&["run", "--verdict-only", "--no-factor", &path]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Observation CoRR-6 Sometimes 1 1"),
        "{stdout}"
    );
    assert!(stdout.contains("States 2"), "{stdout}");
    assert!(
        stdout.contains("P1:r1=6; P1:r2=5; P1:r3=4; P1:r4=3; P1:r5=2; P1:r6=1;"),
        "{stdout}"
    );
    // With the reader's reads kept apart (the default), verdict-only reads
    // the verdict off their product, as run does: every state counted.
    let out = pomset(&["run", "--verdict-only", &path]);
    let whole = text(&out.stdout);
    let run = text(&pomset(&["run", &path]).stdout);
    let observation = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("Observation"))
            .map(str::to_string)
    };
    assert_eq!(observation(&whole), observation(&run), "{whole}");
    assert!(
        whole.contains("the verdicts are counted over every state"),
        "{whole}"
    );
}

/// Every command, under every engine it runs, stops at the limit it is
/// given and names it; a limit never leaves more states kept than it allows.
/// The limits here are counts, so the test does not depend on the machine;
/// `--timeout` is checked once, shared by `compare`'s models.
#[test]
fn every_command_names_the_limit_that_stops_it() {
    let path = temp_file("iriw3-limits.litmus", &iriw(3));
    let path = path.to_str().expect("a UTF-8 temp path");
    let stdout = |args: &[&str]| {
        let out = pomset(args);
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    for model in ["pwt", "rc11", "pwt:reference", "sc"] {
        let (code, out, err) = stdout(&[
            "run",
            "--model",
            model,
            "--max-states",
            "10",
            "--allow-unknown",
            path,
        ]);
        assert_eq!(code, Some(0), "{model}: {err}");
        assert!(
            out.contains("Limit reached: --max-states 10"),
            "{model}: {out}"
        );
        if model != "sc" {
            // The SC engine's limit counts configurations, not final states.
            assert!(out.contains("States 10 (at least)\n"), "{model}: {out}");
        }
    }
    let (_, out, _) = stdout(&[
        "run",
        "--json",
        "--max-states",
        "10",
        "--allow-unknown",
        path,
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("run --json prints JSON");
    let test = &json[0];
    assert!(
        test["limit"]
            .as_str()
            .is_some_and(|l| l.starts_with("--max-states 10")),
        "{test}"
    );
    // Whole orbits of interchangeable readers are kept or not: at most 10.
    let listed = test["states"].as_array().map_or(0, Vec::len);
    assert!((1..=10).contains(&listed), "{test}");

    // pwt counts pomsets; the cat engine counts executions against --max-states.
    for command in [
        &["explain", "--max-pomsets"][..],
        &["pomsets", "--max-pomsets"],
        &["explain", "--model", "rc11", "--max-states"],
    ] {
        let args = [command, &["1", path]].concat();
        let (code, out, err) = stdout(&args);
        assert_eq!(code, Some(0), "{command:?}: {err}");
        let flag = command[command.len() - 1];
        let want = format!("Limit reached: {flag} 1");
        assert!(out.contains(&want), "{command:?}: {out}");
    }
    let (code, _, err) = stdout(&["draw", "--format", "text", "--max-pomsets", "1", path]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("stopped at a limit (--max-pomsets 1)"),
        "{err}"
    );

    let (_, out, _) = stdout(&[
        "compare",
        "--models",
        "pwt,rc11,pwt:reference",
        "--max-states",
        "10",
        path,
    ]);
    assert_eq!(out.matches("Unknown (--max-states 10").count(), 3, "{out}");
    let (_, out, _) = stdout(&["vary", "--max-states", "10", path]);
    assert!(out.contains("IRIW3: --max-states 10"), "{out}");
    let (_, out, _) = stdout(&["fit", "--max-states", "10", path]);
    assert!(
        out.contains("undecided by a limit") && out.contains("(--max-states 10"),
        "{out}"
    );
    let (_, out, _) = stdout(&[
        "refine",
        "--from",
        "r1 := x; r2 := x;",
        "--to",
        "r1 := x; r2 := r1;",
        "--max-pomsets",
        "3",
    ]);
    assert!(
        out.contains("unknown") && out.contains("--max-pomsets 3"),
        "{out}"
    );

    let mut repl = Session::new();
    let reply = repl.eval(":limit max-states 5");
    assert!(
        reply.output.render(false).contains("max-states 5"),
        "{:?}",
        reply.output
    );
    repl.eval(&iriw(3));
    let shown = repl.eval(":run").output.render(false);
    assert!(shown.contains("Limit reached: --max-states 5"), "{shown}");
    let kept = shown
        .lines()
        .find_map(|l| l.strip_prefix("States "))
        .and_then(|n| n.strip_suffix(" (at least)"))
        .and_then(|n| n.trim().parse::<usize>().ok());
    assert!(kept.is_some_and(|n| (1..=5).contains(&n)), "{shown}");

    // The deadline is the test's, shared by compare's models: both columns
    // of a test far too big for a second end at it, named (searched plainly:
    // with its readers kept apart, pwt decides IRIW9 at once).
    let big = temp_file("iriw9-deadline.litmus", &iriw(9));
    let (_, out, _) = stdout(&[
        "compare",
        "--models",
        "pwt,rc11",
        "--no-symmetry",
        "--no-factor",
        "--timeout",
        "1",
        big.to_str().expect("UTF-8"),
    ]);
    assert_eq!(out.matches("Unknown (--timeout 1)").count(), 2, "{out}");
}

/// A report that lists a page of states copies only that page: the first
/// determined states of the full listing, with the count of all of them,
/// whether the states come flat, one per orbit, or as a product.
#[test]
fn a_listed_page_is_the_start_of_the_full_listing() {
    use pomset::engine::pwt::decide::outcomes;
    use pomset::report::Report;
    let test = syntax::parse(&iriw(4)).expect("IRIW4 parses");
    let (p, model) = (&test.program, &test.program.model);
    let elapsed = std::time::Duration::ZERO;
    let flat = outcomes(p, model, pomset::outcome::Limits::default()).expect("supported");
    let full = Report::new(p, model, &flat, elapsed);
    let determined: Vec<_> = full
        .states
        .iter()
        .filter(|s| s.values.iter().all(|(_, v)| v.is_some()))
        .take(100)
        .map(|s| (s.values.clone(), s.count))
        .collect();
    assert_eq!(determined.len(), 100);
    let by_orbit = pomset::outcome::Limits {
        orbits: true,
        factor: false,
        ..Default::default()
    };
    let orbits = outcomes(p, model, by_orbit).expect("supported");
    assert!(
        orbits.orbits.is_some(),
        "IRIW4's readers are interchangeable"
    );
    let apart = pomset::outcome::Limits {
        factor: true,
        ..by_orbit
    };
    let product = outcomes(p, model, apart).expect("supported");
    assert!(product.factored.is_some(), "IRIW4's readers are kept apart");
    for o in [&flat, &orbits, &product] {
        let page = Report::listing(p, model, o, elapsed, Some(100));
        let listed: Vec<_> = page
            .states
            .iter()
            .map(|s| (s.values.clone(), s.count))
            .collect();
        assert_eq!(listed, determined);
        let unlisted = page.unlisted.expect("the rest are counted");
        assert_eq!(unlisted.total, full.states.len());
        assert_eq!(
            page.conditions[0].observation,
            full.conditions[0].observation
        );
    }
}

/// The deadline of any timeout a caller may hand over (the REPL and the
/// server make their own): NaN and negative ones are due at once, an
/// infinite one far away, and none panics.
#[test]
fn any_timeout_makes_a_deadline() {
    use pomset::outcome::limits::deadline_after;
    use std::time::{Duration, Instant};
    for secs in [f64::NAN, -1.0, f64::NEG_INFINITY, -0.0, 0.0] {
        let (at, named) = deadline_after(secs);
        assert!(at <= Instant::now(), "{secs} is due at once");
        assert_eq!(
            named.to_bits(),
            secs.to_bits(),
            "the limit is named as given"
        );
        std::thread::sleep(Duration::from_millis(2));
        let stop = pomset::outcome::interrupted(Some((at, named)), None);
        assert!(stop.is_some_and(|l| l.starts_with("--timeout")), "{secs}");
    }
    for secs in [f64::INFINITY, 1e300, 1e9] {
        let (at, _) = deadline_after(secs);
        assert!(
            at > Instant::now() + Duration::from_secs(1_000_000),
            "{secs}"
        );
    }
}

/// A reader whose IF has four reads of y in each branch: every pair of the
/// branches' thousands of fragments is joined (I3c): past 200 000 pomsets,
/// all inside one IF.
fn reads_in_both_branches() -> String {
    let branch = |r: &str| -> String { (0..4).map(|i| format!("{r}{i} := y; ")).collect() };
    format!(
        "litmus IF4\n\na := x; if (a = 1) {{ {}}} else {{ {}}}\n|| x := 1; y := 1; y := 2;\n\nexists (a = 1)\n",
        branch("b"),
        branch("c")
    )
}

/// Six threads, each writing its location twice and reading its two
/// neighbours': over a million SC configurations, and minutes of cat
/// candidates.
fn ring_of_two_writes(n: usize) -> String {
    let locations: String = (0..n).map(|i| format!("a{i}; ")).collect();
    let threads: Vec<String> = (0..n)
        .map(|i| {
            let (j, k) = ((i + 1) % n, (i + 2) % n);
            format!("a{i} := 1; r{i} := a{j}; a{i} := 2; s{i} := a{k};")
        })
        .collect();
    format!(
        "litmus RING2-{n}\nlocations {{ {locations}}}\n\n{}\n\nexists (r0 = 0)\n",
        threads.join("\n|| ")
    )
}

/// `--timeout` stops every engine in time, wherever its work is: pwt while
/// it builds one thread's local pomsets (an IF that ran 10 s past a 1 s
/// timeout and ended at `--max-pomsets`), with and without
/// `--verdict-only`, the reference engine, SC's interleavings and the cat
/// models' candidates. Each run takes its timeout and at most 10% more,
/// with half a second for starting the process and printing.
#[test]
fn every_engine_stops_at_the_timeout() {
    let ifs = temp_file("if4-timeout.litmus", &reads_in_both_branches());
    let ring = temp_file("ring2-timeout.litmus", &ring_of_two_writes(6));
    let (ifs, ring) = (
        ifs.to_str().expect("a UTF-8 path"),
        ring.to_str().expect("a UTF-8 path"),
    );
    // pwt now builds the IF's 200 000 pomsets in about a second, so its
    // pomset limit is raised: the timeout must be what stops it.
    let many = "--max-pomsets=100000000";
    let runs: [(&[&str], &str); 6] = [
        (&["--model", "pwt", many], ifs),
        (&["--model", "pwt", "--verdict-only", many], ifs),
        (&["--model", "pwt:reference", many], ifs),
        (&["--model", "sc"], ring),
        (&["--model", "rc11"], ring),
        (&["--model", "ptx"], ring),
    ];
    for (model, path) in runs {
        let args = [
            &["run", "--timeout", "1", "--allow-unknown"],
            model,
            &[path],
        ]
        .concat();
        let start = std::time::Instant::now();
        let out = pomset(&args);
        let took = start.elapsed().as_secs_f64();
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{model:?}: {}",
            text(&out.stderr)
        );
        assert!(
            stdout.contains("Limit reached: --timeout 1 "),
            "{model:?}: {stdout}"
        );
        assert!(took < 1.1 + 0.5, "{model:?} took {took:.2} s: {stdout}");
    }
}
