//! Issue 27 §2 (and the §5 limits on its options): the desugaring's temporaries are hygienic (no source name
//! resolves to one, none shows in a state) and arithmetic is exact or an
//! error, in every engine. Each test is named after what it checks.

use pomset::engine::{decide, named};
use pomset::model::Model;
use pomset::outcome::Limits;
use pomset::report::Report;
use pomset::syntax::{self, Litmus};

fn parse(src: &str) -> Litmus {
    syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)))
}

/// Every engine's report on `src`: fast, reference, SC and RC11 (cat).
fn reports(src: &str) -> Vec<(&'static str, Report)> {
    let t = parse(src);
    let p = &t.program;
    let model = Model::default();
    let run = |name| {
        let engine = named(name).expect("a model");
        decide(engine.as_ref(), p, &model, false, Limits::default())
    };
    vec![
        ("fast", run("pwt")),
        ("reference", run("pwt:reference")),
        ("sc", run("sc")),
        ("rc11", run("rc11")),
    ]
}

fn observations(r: &Report) -> Vec<&'static str> {
    r.conditions
        .iter()
        .map(|c| c.observation.unwrap_or("undecided"))
        .collect()
}

/// The observation of a condition that holds in every run in which the
/// read happens: the pomset engines also keep the state where it is dropped
/// (its register `?`), SC and RC11 always read.
fn maybe_dropped(engine: &str) -> &'static str {
    if matches!(engine, "fast" | "reference") {
        "Sometimes"
    } else {
        "Always"
    }
}

/// Every state of a report, sorted.
fn sorted_states(r: &Report) -> Vec<Vec<(String, Option<i64>)>> {
    let mut s: Vec<_> = r.states.iter().map(|s| s.values.clone()).collect();
    s.sort();
    s
}

/// The register names the states show, sorted and without repeats.
fn shown_registers(r: &Report) -> Vec<String> {
    let mut names: Vec<String> = r
        .states
        .iter()
        .flat_map(|s| s.values.iter().map(|(n, _)| n.clone()))
        .filter(|n| !n.starts_with('['))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The issue's test: the read that desugars `y` must not capture the
/// user's `_y1`, which stays in the states.
#[test]
fn fresh_name_clash_user_register_survives() {
    let src = "litmus FRESH-NAME-CLASH
_y1 := 1; r := y + _y1;
exists (r = 1)
exists (r = 0)
";
    for (engine, r) in reports(src) {
        assert_eq!(r.limit, None, "{engine}");
        assert_eq!(
            observations(&r),
            vec![maybe_dropped(engine), "Never"],
            "{engine}"
        );
        assert_eq!(shown_registers(&r), vec!["P0:_y1", "P0:r"], "{engine}");
    }
    // The printed core names the temporary apart and means the same.
    let printed = syntax::print::core_program(&parse(src).program);
    assert!(printed.contains("_y2 := y.rlx.sys"), "{printed}");
    let again = reports(&printed);
    assert_eq!(observations(&again[0].1), vec!["Sometimes", "Never"]);
}

/// A user register spelled like a computed read's temporary (`_mem1`) and
/// one spelled like an RMW's result temporary (`_FADD1`) are the user's.
#[test]
fn computed_read_and_rmw_temporaries_do_not_capture() {
    let src = "litmus MEM-CLASH
values {0, 1, 2}
locations { x @ 1 }
_mem1 := 2; _FADD1 := 2; FADD(x, 1); r := [1] + _mem1; s := _FADD1;
exists (r = 3 /\\ s = 2)
exists (r = 2)
";
    for (engine, r) in reports(src) {
        assert_eq!(r.limit, None, "{engine}");
        // The thread's own FADD comes first, so [1] is never the initial 0.
        assert_eq!(
            observations(&r),
            vec![maybe_dropped(engine), "Never"],
            "{engine}"
        );
        assert_eq!(
            shown_registers(&r),
            vec!["P0:_FADD1", "P0:_mem1", "P0:r", "P0:s"],
            "{engine}"
        );
    }
}

/// The eleventh read of `y` and the first of `y1` get different names, so
/// the printed core means what the program means.
#[test]
fn temporaries_have_distinct_names_within_a_thread() {
    let reads = ["y"; 11].join(" + ");
    let src = format!("litmus MANY\ninit {{ y1 = 0 }}\nr := {reads} + y1;\nexists (r = 0)\n");
    let t = parse(&src);
    let temporaries = t.program.regs.iter().filter(|r| r.fresh).count();
    assert_eq!(temporaries, 12, "one register per read");
    let mut names: Vec<&str> = t.program.regs.iter().map(|r| r.name.as_str()).collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "{names:?}");
}

/// herd7's C CAS is read through a temporary register; a C register of
/// the same name (`cas1`) keeps its own value.
#[test]
fn imported_cas_temporary_does_not_capture_a_c_register() {
    let src = "C CAS-CLASH
{ x = 0; }

P0 (atomic_int* x) {
  int cas1 = 5;
  int e = 0;
  int ok = atomic_compare_exchange_strong(x, &e, 1);
}

exists (0:cas1 = 5 /\\ 0:ok = 1)
";
    let t = pomset::import::load("clash.litmus", src, Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render("clash.litmus", src)));
    let model = Model::default();
    let sc = named("sc").expect("a model");
    let r = decide(sc.as_ref(), &t.program, &model, false, Limits::default());
    assert_eq!(observations(&r), vec!["Always"]);
}

/// The issue's test: 2^62 + 2^62 neither saturates (pomset engine) nor
/// wraps (RC11); the program is refused, naming `r + r` and its place, so
/// every engine, which all read programs through the checker, refuses it.
#[test]
fn overflow_is_an_error_in_every_engine() {
    let src = "litmus OVERFLOW
values {0, 1}
r := 4611686018427387904; s := r + r;
exists (s = 0)
";
    let d = syntax::parse(src)
        .expect_err("refused")
        .render("t.litmus", src);
    assert!(d.contains("`r + r` may leave the 64-bit integers"), "{d}");
    assert!(d.contains("t.litmus:3:32"), "{d}");
    assert!(d.contains("reaches 9223372036854775808"), "{d}");
}

/// Overflow through values read (V's largest times itself), through a
/// negation of the least integer, inside a computed address, and through
/// an FADD's write: each refused at its place.
#[test]
fn overflow_is_found_through_reads_addresses_and_fadd() {
    let cases = [
        (
            "values {0, 4294967296}\nr := x; s := r * r;",
            "`r * r` may leave",
        ),
        (
            "values {0, 1}\nx := 1; r := 0 - 9223372036854775807 - 1; s := -r;",
            "`-r` may leave",
        ),
        (
            "values {0, 4611686018427387904}\nr := x; s := [r + r + r];",
            "`r + r` may leave",
        ),
        (
            "values {0, 1, 9223372036854775807}\nFADD(x, 1);",
            "FADD may write",
        ),
    ];
    for (body, message) in cases {
        let src = format!("litmus T\n{body}\nexists (x = 0)\n");
        let d = syntax::parse(&src).expect_err(body).render("t", &src);
        assert!(d.contains(message), "{body}: {d}");
    }
}

/// Arithmetic close to the bounds is exact in every engine: 2^62 - 1
/// doubled is 2^63 - 2, neither saturated nor wrapped.
#[test]
fn arithmetic_near_the_bounds_is_exact_in_every_engine() {
    let src = "litmus NEAR
values {0, 1}
r := 4611686018427387903; s := r + r; t := s - r - r;
exists (s = 9223372036854775806 /\\ t = 0)
";
    for (engine, r) in reports(src) {
        assert_eq!(observations(&r), vec!["Always"], "{engine}");
    }
}

/// Issue 27 §5: under `monotonicity = modes` a CAS-retry loop's recheck
/// with every stronger label (the `final = loc_max` gap) stops at its own
/// named step budget instead of running for minutes; unknown, not wrong.
#[test]
fn monotonicity_recheck_stops_at_a_named_limit() {
    let src = "litmus CAS-RETRY
do { r := x; ok := CAS(x, r, r + 1); } while (ok != r);
|| do { s := x; ok := CAS(x, s, s + 1); } while (ok != s);
exists (x = 2)
";
    let t = parse(src);
    let limits = Limits {
        max_steps: 400_000,
        ..Limits::default()
    };
    let plain = pomset::engine::pwt::decide::outcomes(&t.program, &Model::default(), limits)
        .expect("decidable");
    assert_eq!(plain.limit, None, "the labels as written fit the budget");
    let mut modes = Model::default();
    modes.set("monotonicity", "modes").expect("an option");
    let o = pomset::engine::pwt::decide::outcomes(&t.program, &modes, limits).expect("decidable");
    let limit = o.limit.expect("the recheck is cut");
    assert!(limit.starts_with("monotonicity:"), "{limit}");
}

/// Issue 27 §5: under `if_closure = registers` a register every path
/// assigns by LETs into V (here `s`, 1 or 0 by branch) is a function of
/// the others, so the partitions leave it out: 2 valuations, not 4
/// (Bell(4) = 15 partitions), and the states equal the reference
/// engine's, which partitions over every register in scope.
#[test]
fn if_closure_partitions_leave_out_derived_registers() {
    let src = "litmus JOIN
values {0, 1}
r := x; if (r = 1) { s := 1; } else { s := 0; } y := s;
|| t := y; x := t;
exists (P0:r = 1 /\\ P1:t = 1)
";
    let t = parse(src);
    let (fast, reference) = if_closed_fast_and_reference(&t, 2);
    assert_eq!(sorted_states(&fast), sorted_states(&reference));
    assert_eq!(observations(&fast), observations(&reference));
}

/// A register both branches reassign is one new version (each path assigns
/// it once), not one per branch and a join copy: fewer registers in scope
/// for `if_closure = registers`, the same states.
#[test]
fn register_reassigned_in_both_branches_is_one_version() {
    let src = "litmus REASSIGN
values {0, 1}
r := x; if (r = 1) { r := 0; } else { r := 1; } y := r;
|| t := y; x := t;
exists (P0:r = 0 /\\ P1:t = 0)
";
    let t = parse(src);
    let p0 = t.program.regs.iter().filter(|r| r.thread == 0).count();
    assert_eq!(
        p0, 2,
        "the read's register and one version for both branches"
    );
    let (fast, reference) = if_closed_fast_and_reference(&t, 15);
    assert_eq!(sorted_states(&fast), sorted_states(&reference));
}

/// A test under `if_closure = registers`: the fast engine within
/// `max_partitions` (it must not reach it) and the reference engine.
fn if_closed_fast_and_reference(t: &Litmus, max_partitions: usize) -> (Report, Report) {
    let mut model = Model::default();
    model.set("if_closure", "registers").expect("an option");
    let tight = Limits {
        max_partitions,
        ..Limits::default()
    };
    let (pwt, literal) = (
        named("pwt").expect("a model"),
        named("pwt:reference").expect("a model"),
    );
    let fast = decide(pwt.as_ref(), &t.program, &model, false, tight);
    assert_eq!(fast.limit, None, "{max_partitions} partitions suffice");
    let reference = decide(
        literal.as_ref(),
        &t.program,
        &model,
        false,
        Limits::default(),
    );
    assert_eq!(reference.limit, None);
    (fast, reference)
}
