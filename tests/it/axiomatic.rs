//! The axiomatic engine under the bundled RC11 model: herd7's verdicts for
//! `rc11.cat` on the classic shapes (issue 16), and the cat interpreter's
//! behaviour on small models.

use pomset::cat;
use pomset::engine::axiomatic;
use pomset::outcome::verdict::{judge, Observation};
use pomset::outcome::Limits;

fn observation(model: &cat::Model, path: &str) -> Observation {
    let src = std::fs::read_to_string(path).expect("example exists");
    let t = pomset::syntax::parse(&src).expect("example parses");
    let p = &t.program;
    let o = axiomatic::outcomes(p, model, Limits::default()).expect("decided");
    assert!(o.limit.is_none(), "{path}: {:?}", o.limit);
    judge(p, &p.conditions[0], &o, &p.model)
        .observation
        .expect("no limit, so an observation")
}

/// herd7's `rc11.cat` on these shapes, as the issue lists them.
const RC11: [(&str, Observation); 19] = [
    ("corr", Observation::Never),
    ("coww", Observation::Never),
    ("corr+acqs", Observation::Never),
    ("coww+rels", Observation::Never),
    ("lb", Observation::Never),
    ("lb+datas", Observation::Never),
    ("lb+false-dep", Observation::Never),
    ("mp+rel+acq", Observation::Never),
    ("isa2+rel+acqs", Observation::Never),
    ("sb+fences", Observation::Never),
    ("wrc+rel+acq", Observation::Never),
    ("2+2w", Observation::Sometimes),
    ("2+2w+rels", Observation::Sometimes),
    ("iriw", Observation::Sometimes),
    ("iriw+acqs", Observation::Sometimes),
    ("isa2", Observation::Sometimes),
    ("mp", Observation::Sometimes),
    ("sb", Observation::Sometimes),
    ("wrc", Observation::Sometimes),
];

#[test]
fn rc11_agrees_with_herd7_on_the_classic_shapes() {
    let rc11 = cat::load("rc11").expect("the bundled model compiles");
    for (name, want) in RC11 {
        let got = observation(&rc11, &format!("examples/classic/{name}.litmus"));
        assert_eq!(got, want, "{name} under RC11");
    }
}

fn model(text: &str) -> cat::Model {
    cat::from_text("test.cat", text).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn the_empty_model_allows_every_candidate_and_sc_per_location_forbids_corr() {
    let anything = model("\"anything\"\n");
    assert_eq!(
        observation(&anything, "examples/classic/corr.litmus"),
        Observation::Sometimes
    );
    let coherent = model("acyclic po-loc | rf | co | fr as sc-per-location\n");
    assert_eq!(
        observation(&coherent, "examples/classic/corr.litmus"),
        Observation::Never
    );
    assert_eq!(
        observation(&coherent, "examples/classic/mp.litmus"),
        Observation::Sometimes
    );
}

#[test]
fn sequential_consistency_in_cat_forbids_sb_and_functions_inline() {
    let sc = model("SC\nlet com(r) = r | co | fr\nlet hb = po | com(rf)\nacyclic hb as sc\n");
    assert_eq!(
        observation(&sc, "examples/classic/sb.litmus"),
        Observation::Never
    );
    assert_eq!(
        observation(&sc, "examples/classic/iriw.litmus"),
        Observation::Never
    );
}

#[test]
fn let_rec_reaches_the_transitive_closure() {
    // A recursive definition of po+ (which is po itself) agrees with `po+`.
    let rec = model("let rec t = po | (t ; po)\nempty t \\ po+ as same\nempty po+ \\ t as same2\n");
    assert_eq!(
        observation(&rec, "examples/classic/mp.litmus"),
        Observation::Sometimes
    );
}

#[test]
fn every_bundled_model_compiles() {
    for (name, _) in cat::BUNDLED {
        cat::load(name).unwrap_or_else(|e| panic!("{name}: {}", e.render()));
    }
}

/// The book's list of builtins, generated from `cat::builtins`.
fn builtins_table() -> String {
    let mut out = String::from("| name | type | meaning |\n|---|---|---|\n");
    for (name, _, ty, doc) in cat::builtins::TABLE {
        let ty = match ty {
            cat::Ty::Set => "set",
            cat::Ty::Rel => "relation",
        };
        out.push_str(&format!("| `{name}` | {ty} | {doc} |\n"));
    }
    for (name, _, doc) in cat::builtins::FUNCTIONS {
        out.push_str(&format!("| `{name}` | function | {doc} |\n"));
    }
    out
}

/// The chapter shows the builtins and the RC11 model as the binary has
/// them (`UPDATE_BOOK=1` rewrites the builtins table).
#[test]
fn the_book_chapter_shows_the_vocabulary_and_the_model_as_they_are() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/book/src/axiomatic.md");
    let chapter = std::fs::read_to_string(path).expect("chapter");
    let (start, end) = ("<!-- builtins:start -->\n", "<!-- builtins:end -->");
    let (before, rest) = chapter.split_once(start).expect("start marker");
    let (_, after) = rest.split_once(end).expect("end marker");
    let fresh = format!("{before}{start}{}{end}{after}", builtins_table());
    if std::env::var_os("UPDATE_BOOK").is_some() {
        std::fs::write(path, &fresh).expect("writable");
    } else {
        assert_eq!(
            chapter, fresh,
            "UPDATE_BOOK=1 cargo test --test it axiomatic::"
        );
    }
    let model = cat::bundled("rc11").expect("bundled");
    assert!(
        chapter.contains(&format!("```cat\n{model}```")),
        "the chapter shows models/rc11.cat verbatim"
    );
}

/// `pomset compare --models pwt,rc11 --mapping rc11:pwt PATHS`, from the
/// crate's root: its exit code and standard output.
fn compare_rc11_to_pwt(paths: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pomset"))
        .args(["compare", "--models", "pwt,rc11", "--mapping", "rc11:pwt"])
        .args(paths)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), text)
}

#[test]
fn compare_prints_the_table_and_a_mapping_counterexample_fails() {
    let (code, text) = compare_rc11_to_pwt(&[
        "examples/classic/lb.litmus".as_ref(),
        "examples/classic/mp+rel+acq.litmus".as_ref(),
    ]);
    let lb = text
        .lines()
        .find(|l| l.starts_with("LB "))
        .expect("an LB row");
    assert!(lb.contains("Sometimes  Never"), "{text}");
    let mp = text
        .lines()
        .find(|l| l.starts_with("MP+rel+acq"))
        .expect("an MP row");
    assert!(mp.contains("Never      Never"), "{text}");
    assert!(
        text.contains("1 outcome pwt allows and rc11 forbids"),
        "{text}"
    );
    assert_eq!(code, Some(1));
}

/// A bound that the engine found no execution reaches (the book's "Loops
/// as a measure") is not marked: that `Never` holds at every bound. rc11's
/// search tells; pwt's does not, so its cell keeps the mark.
#[test]
fn compare_leaves_a_bound_never_reached_unmarked() {
    let dir = std::env::temp_dir().join(format!("pomset-compare-reach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("loop-ends.litmus");
    let text =
        "litmus LOOP-ENDS\nx := 1;\n|| do { r := x; } while (r = 2); s := r;\nforbid (P1:s = 2)\n";
    std::fs::write(&path, text).expect("written");
    let (_, text) = compare_rc11_to_pwt(&[path.as_os_str()]);
    let row = text
        .lines()
        .find(|l| l.starts_with("LOOP-ENDS"))
        .expect("a row");
    assert!(row.contains("Never (--unroll 2)  Never"), "{text}");
    assert!(!row.ends_with("(--unroll 2)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under a loop bound that cut a path, `compare` marks `Never` and
/// `Always` with it, and a bounded `Never` is no mapping counterexample: an
/// execution with more iterations may reach the outcome. Here it does: at
/// `--unroll 2` the loop reads `x = 0`, then 1 after P1's write, and RC11
/// allows the outcome. (The loop is one RC11 cannot say is never reached:
/// a first pass that reads 0 gets to the cut.)
#[test]
fn compare_marks_bounded_verdicts_and_takes_no_counterexample_from_them() {
    let dir = std::env::temp_dir().join(format!("pomset-compare-bound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("lb-loop.litmus");
    let lb = "litmus LB+loop\nmodel { unroll = 1 }\ndo { r := x; y := 1; } while (r = 0);\n|| s := y; x := 1;\nexists (P0:r = 1 /\\ P1:s = 1)\n";
    std::fs::write(&path, lb).expect("written");
    let (code, text) = compare_rc11_to_pwt(&[path.as_os_str()]);
    let row = text
        .lines()
        .find(|l| l.starts_with("LB+loop"))
        .expect("a row");
    assert!(
        row.contains("Sometimes  Never (--unroll 1, reached)"),
        "{text}"
    );
    let wider = std::process::Command::new(env!("CARGO_BIN_EXE_pomset"))
        .args(["compare", "--models", "pwt,rc11", "--unroll", "2"])
        .arg(&path)
        .output()
        .expect("runs");
    let wider = String::from_utf8_lossy(&wider.stdout);
    assert!(wider.contains("Sometimes  Sometimes"), "{wider}");
    assert!(
        text.contains("No outcome that pwt allows is forbidden by rc11."),
        "{text}"
    );
    assert_eq!(code, Some(0), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_names_the_failing_axiom_and_its_cycle() {
    let src = std::fs::read_to_string("examples/classic/lb.litmus").expect("example");
    let t = pomset::syntax::parse(&src).expect("parses");
    let p = &t.program;
    let rc11 = cat::load("rc11").expect("bundled");
    let lines = axiomatic::explain::explain(p, &rc11, &p.conditions[0].prop, &Limits::default())
        .expect("explained");
    assert!(lines[0].contains("none is consistent"), "{lines:?}");
    let failing = lines
        .iter()
        .find(|l| l.contains("no-thin-air fails"))
        .expect("the axiom by name");
    assert!(
        failing.contains("-po->") && failing.contains("-rf->"),
        "{failing}"
    );
}

/// Sequential consistency written in cat, herd7's way.
const SC: &str = "SC\nacyclic po | rf | co | fr as sc\nempty rmw & (fr ; co) as atomicity\n";

/// An oracle: under SC written in cat, the axiomatic engine finds exactly
/// the final states of the interleaving interpreter, on every example the
/// interpreter supports (forks, RMWs and computed addresses included).
#[test]
fn sc_in_cat_finds_the_states_of_sc_by_interleaving() {
    let sc = model(SC);
    let mut compared = 0;
    for dir in ["examples/classic", "examples/catalogue"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("examples")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .collect();
        paths.sort();
        for path in paths {
            let src = std::fs::read_to_string(&path).expect("readable");
            let t = pomset::syntax::parse(&src).expect("example parses");
            let p = &t.program;
            let Ok(by_steps) =
                pomset::engine::sc::outcomes(p, pomset::engine::sc::Limits::default())
            else {
                continue;
            };
            let by_axioms = axiomatic::outcomes(p, &sc, Limits::default()).expect("supported");
            assert!(by_axioms.limit.is_none(), "{}", path.display());
            let a: Vec<_> = by_steps.states.keys().collect();
            let b: Vec<_> = by_axioms.states.keys().collect();
            assert_eq!(a, b, "{}", path.display());
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} examples compared");
}

#[test]
fn a_model_file_includes_files_next_to_it_and_bundled_models() {
    let dir = std::env::temp_dir().join(format!("pomset-cat-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lib")).expect("temp dir");
    std::fs::write(dir.join("lib/base.cat"), "let com = rf | co | fr\n").expect("write");
    std::fs::write(
        dir.join("sc.cat"),
        "SC\ninclude \"lib/base.cat\"\nacyclic po | com as sc\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("both.cat"),
        "B\ninclude \"rc11.cat\"\nacyclic po | rf as extra\n",
    )
    .expect("write");
    let sc = cat::load(&dir.join("sc.cat").display().to_string())
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(
        observation(&sc, "examples/classic/sb.litmus"),
        Observation::Never
    );
    let both = cat::load(&dir.join("both.cat").display().to_string())
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(
        observation(&both, "examples/classic/lb.litmus"),
        Observation::Never
    );
    assert_eq!(
        observation(&both, "examples/classic/sb.litmus"),
        Observation::Sometimes
    );
    std::fs::write(dir.join("loop.cat"), "L\ninclude \"loop.cat\"\n").expect("write");
    let err = cat::load(&dir.join("loop.cat").display().to_string()).expect_err("a cycle");
    assert!(err.render().contains("includes itself"), "{}", err.render());
    let _ = std::fs::remove_dir_all(&dir);
}

/// RC11's `flag ~empty race as data-race`: raised on a racy non-atomic
/// read, not when release/acquire orders it.
#[test]
fn rc11_flags_data_races_on_non_atomic_accesses() {
    let rc11 = cat::load("rc11").expect("bundled");
    let flags = |src: &str| {
        let t = pomset::syntax::parse(src).expect("parses");
        let o = axiomatic::outcomes(&t.program, &rc11, Limits::default()).expect("decided");
        o.flags.iter().filter(|(n, _)| n == "data-race").count()
    };
    let ordered = "litmus A\nx.wk := 1; y.rel := 1;\n|| r := y.acq; if (r = 1) { s := x.wk; }\nexists (r = 1 /\\ s = 0)\n";
    let racy = "litmus B\nx.wk := 1; y := 1;\n|| r := y; s := x.wk;\nexists (r = 1 /\\ s = 0)\n";
    assert_eq!(flags(ordered), 0);
    assert_eq!(flags(racy), 1);
}

/// One writer and a reader of `x` eight times: 2^8 runs of the reader, few
/// final states (issue 27: CoRR-8 under RC11 passed 8 GB).
const EIGHT_READS: &str = "litmus R8\nlocations { x; }\n\nx := 1;\n|| r1 := x; r2 := x; r3 := x; r4 := x; r5 := x; r6 := x; r7 := x; r8 := x;\n\nexists (r1 = 1 /\\ r8 = 0)\n";

#[test]
fn cat_engine_counts_a_threads_runs_against_max_states() {
    let t = pomset::syntax::parse(EIGHT_READS).expect("parses");
    let rc11 = cat::load("rc11").expect("the bundled model compiles");
    let full = axiomatic::outcomes(&t.program, &rc11, Limits::default()).expect("decided");
    assert_eq!(full.limit, None);
    assert!(full.states.len() < 20, "{} states", full.states.len());
    let limits = Limits {
        max_states: 20,
        ..Limits::default()
    };
    // The plain enumeration holds every run of a thread at once.
    let cut = axiomatic::outcomes_with(&t.program, &rc11, limits, false).expect("decided");
    assert_eq!(cut.limit.as_deref(), Some("--max-states 20"));
    // The lazy search holds one run at a time: the budget bounds states only.
    let lazy = axiomatic::outcomes(&t.program, &rc11, limits).expect("decided");
    assert_eq!(lazy.limit, None);
    assert_eq!(lazy.states, full.states);
}

#[test]
fn cat_engine_asks_the_deadline_while_it_runs_the_threads() {
    let t = pomset::syntax::parse(EIGHT_READS).expect("parses");
    let limits = Limits {
        deadline: Some((std::time::Instant::now(), 0.0)),
        ..Limits::default()
    };
    let seen = axiomatic::candidates(&t.program, &limits, |_, _| true).expect("enumerated");
    assert_eq!(seen.limit.as_deref(), Some("--timeout 0"));
    assert_eq!(seen.candidates, 0, "stopped before the first candidate");
}

#[test]
fn a_racy_test_without_a_condition_prints_its_flag() {
    let t = pomset::syntax::parse("litmus B\nx.wk := 1; y := 1;\n|| r := y; s := x.wk;\n")
        .expect("parses");
    let rc11 = pomset::engine::named("rc11").expect("bundled");
    let model = pomset::model::Model::default();
    let r = pomset::engine::decide(rc11.as_ref(), &t.program, &model, false, Limits::default());
    assert!(r.conditions.is_empty());
    let text = r.text(&t.program);
    assert!(text.contains("\nFlag data-race ("), "{text}");
}
