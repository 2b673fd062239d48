//! Issue 27 §2: the desugaring's temporaries are hygienic (no source name
//! resolves to one, none shows in a state) and arithmetic is exact or an
//! error, in every engine. Each test is named after what it checks.

use pomset::cat;
use pomset::model::Model;
use pomset::report::Report;
use pomset::semantics::decide::Limits;
use pomset::syntax::{self, Litmus};
use pomset::workbench::{decide, decide_cat, Engine};

fn parse(src: &str) -> Litmus {
    syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)))
}

/// Every engine's report on `src`: fast, reference, SC and RC11 (cat).
fn reports(src: &str) -> Vec<(&'static str, Report)> {
    let t = parse(src);
    let p = &t.program;
    let model = Model::default();
    let run = |e| decide(p, &model, e, false, Limits::default()).expect("runs");
    let rc11 = cat::load("rc11").expect("the bundled model compiles");
    vec![
        ("fast", run(Engine::Fast)),
        ("reference", run(Engine::Reference)),
        ("sc", run(Engine::Sc)),
        ("rc11", decide_cat(p, &model, &rc11, Limits::default())),
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
    let reads = vec!["y"; 11].join(" + ");
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
    let r = decide(&t.program, &model, Engine::Sc, false, Limits::default()).expect("runs");
    assert_eq!(observations(&r), vec!["Always"]);
}
