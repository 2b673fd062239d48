//! The transformation table (issue 29) and the context search behind it
//! (issue 38): a snapshot of a small catalogue, the properties every cell
//! must have, no false counterexample, the literature's cells, and the
//! prunings of the context grammar against its brute-force enumeration.
//! Kept to a handful of schemas and small bounds: CI runs this in debug on
//! two cores.

use pomset::engine::{self, Engine};
use pomset::outcome::Limits;
use pomset::refinement::{quick, Refinement};
use pomset::transform::{self, grammar, table, Bound, Cell, Found};

const MODELS: &[&str] = table::DEFAULT_MODELS;

fn engines(models: &[&str]) -> Vec<(String, Box<dyn Engine>)> {
    models
        .iter()
        .map(|m| (m.to_string(), engine::named(m).expect("a bundled model")))
        .collect()
}

fn small() -> Bound {
    Bound {
        size: 1,
        threads: 1,
        max_contexts: None,
    }
}

fn sized(size: usize, threads: usize) -> Bound {
    Bound {
        size,
        threads,
        max_contexts: None,
    }
}

fn search(r: &Refinement, model: &str, bound: Bound) -> Found {
    let e = engine::named(model).expect("a bundled model");
    let m = e.options(&r.program.model);
    transform::search(r, e.as_ref(), &m, bound, Limits::default())
}

/// The models of a table, each with its name.
type Named = Vec<(String, Box<dyn Engine>)>;

fn build(schemas: &[&str], models: &[&str]) -> (transform::Table, Named) {
    build_at(schemas, models, small())
}

fn build_at(schemas: &[&str], models: &[&str], bound: Bound) -> (transform::Table, Named) {
    let names: Vec<String> = schemas.iter().map(|s| s.to_string()).collect();
    let inst = transform::bundled_instances(&names).expect("bundled schemas");
    let engines = engines(models);
    let t = table::build(&inst, &engines, bound, None, 2, &|_, _| {});
    (t, engines)
}

#[test]
fn table_of_a_small_catalogue_is_pinned() {
    let (t, _) = build_at(
        &["reorder-wr", "roach-acq", "elim-fence"],
        MODELS,
        sized(2, 1),
    );
    insta::assert_snapshot!(t.text());
}

#[test]
fn every_unsound_cell_reproduces_under_run() {
    let (t, engines) = build(&["reorder-rw", "intro-write"], MODELS);
    let mut seen = 0;
    for row in &t.rows {
        for ((model, e), cell) in engines.iter().zip(&row.cells) {
            if let Cell::Unsound(Some(c)) = cell {
                seen += 1;
                assert!(
                    table::reproduces(c, e.as_ref()),
                    "{} under {model}: {}",
                    row.schema,
                    c.target_test
                );
            }
        }
    }
    assert!(seen > 0, "the sample has unsound cells");
}

#[test]
fn identity_instance_of_every_schema_has_no_counterexample() {
    for (name, src) in transform::catalogue::BUNDLED {
        let schema = transform::parse_schema(name, src).expect("bundled schema parses");
        let inst = schema.instances().expect("instances parse");
        let mut r = inst[0].refinement.clone();
        r.target = r.source.clone();
        r.target_text = r.source_text.clone();
        for (model, e) in engines(MODELS) {
            let m = e.options(&r.program.model);
            let found = transform::search(&r, e.as_ref(), &m, small(), Limits::default());
            // A fence fragment lies outside the HRF models (no fences in
            // the paper): no verdict, named, and never a counterexample.
            let outside = matches!(&found, Found::Unknown(why) if why.starts_with("the model describes none"));
            assert!(
                matches!(found, Found::NoneUpTo { .. })
                    || (outside && model.starts_with("hrf") && r.source_text.contains("F.")),
                "{name} as its own target under {model}: {found:?}"
            );
        }
    }
}

#[test]
fn local_check_never_calls_sound_what_a_context_shows_unsound() {
    let (t, _) = build(
        &["reorder-rr", "reorder-ww", "elim-rar", "strengthen-read"],
        &["pwt"],
    );
    let inst = transform::bundled_instances(&[
        "reorder-rr".into(),
        "reorder-ww".into(),
        "elim-rar".into(),
        "strengthen-read".into(),
    ])
    .expect("bundled schemas");
    let mut sound = 0;
    for (row, i) in t.rows.iter().zip(&inst) {
        if matches!(row.cells[0], Cell::Sound) {
            sound += 1;
            let found = search(&i.refinement, "pwt", sized(2, 1));
            assert!(
                matches!(found, Found::NoneUpTo { .. }),
                "{}: sound, but {found:?}",
                i.label()
            );
        }
    }
    assert!(sound > 0, "the sample has sound cells");
}

/// Issue 38 §1: a counterexample only where the source is decided in full.
#[test]
fn overwritten_write_elimination_has_no_counterexample() {
    let r = quick("r := x; x := r + 1; x := 0;", "r := x; x := 0;").expect("parses");
    for model in ["sc", "rc11"] {
        let found = search(&r, model, sized(2, 2));
        assert!(
            matches!(found, Found::NoneUpTo { .. }),
            "{model}: {found:?}"
        );
    }
}

/// Issue 38 §1: a register read before any assignment is the same on both
/// sides, so each of these refines itself.
#[test]
fn fragments_reading_registers_refine_themselves() {
    for frag in [
        "r := r + 1;",
        "if (r = 0) { r := x; }",
        "x := r; r := 1;",
        "while (r = 0) { r := x; }",
    ] {
        let r = quick(frag, frag).expect("parses");
        let report =
            pomset::refinement::refine(&r, &r.program.model, pomset::refinement::Limits::default())
                .expect("decided");
        assert_eq!(
            report.verdict.as_str(),
            "sound",
            "{frag}: {}",
            report.text()
        );
        // The register's value is the code's before the fragment: every
        // context sets it first (the grammar's `set`), to each value, and
        // the bound says so.
        match search(&r, "rc11", sized(1, 1)) {
            Found::NoneUpTo { bound, .. } => {
                assert!(
                    bound.contains("`r` first set to each of 0, 1"),
                    "{frag}: {bound}"
                )
            }
            // The loop is cut where `r` stays 0: a limit, named.
            Found::Stopped { limit, .. } if frag.starts_with("while") => {
                assert!(limit.starts_with("--unroll"), "{limit}")
            }
            found => panic!("{frag}: {found:?}"),
        }
    }
}

/// The grammar's `set`: a fragment that reads a register before assigning
/// it is decided in contexts that give it each value first, so a rewrite
/// that is wrong for one value only is found, and the test names the
/// value.
#[test]
fn registers_read_first_are_set_by_the_context() {
    let r = quick("if (r = 2) { x := 1; }", "x := 1;").expect("parses");
    match search(&r, "rc11", sized(1, 1)) {
        Found::Counterexample(c) => {
            assert!(c.target_test.contains("r := 0;"), "{}", c.target_test);
            assert!(c.source_test.contains("r := 0;"), "{}", c.source_test);
        }
        found => panic!("{found:?}"),
    }
    let same = quick("if (r = 2) { x := 1; }", "if (r = 2) { x := 1; }").expect("parses");
    let (vocab, all) = pomset::transform::context::contexts(&same, sized(1, 1));
    assert_eq!(vocab.unset, ["r"]);
    assert_eq!(vocab.set_values(), [0, 1, 2, 3]);
    // Each context of the grammar once for each value of `r`.
    let plain = pomset::transform::grammar::enumerate(&vocab, sized(1, 1).size(), true)
        .iter()
        .filter(|c| c.sets == [0])
        .count();
    assert_eq!(all.len(), 4 * plain);
}

/// Issue 38 §2: a forked thread's registers are compared under P0's name.
#[test]
fn forked_registers_are_compared() {
    let r = quick("x := 1; r := x;", "( r := x; || x := 1; )").expect("parses");
    for model in ["rc11", "sc", "pwt"] {
        match search(&r, model, small()) {
            Found::Counterexample(c) => {
                let e = engine::named(model).expect("model");
                assert!(
                    table::reproduces(&c, e.as_ref()),
                    "{model}: {}",
                    c.target_test
                );
                assert_eq!(c.tried, 1, "the empty context shows it");
            }
            other => panic!("{model}: {other:?}"),
        }
    }
}

/// Issue 38 §2: the contexts the literature needs are in the grammar.
/// Vafeiadis et al. (POPL 2015) and RC11 (PLDI 2017) call each of these
/// invalid under RC11; each needs code before or after the fragment, a
/// guarded reader, or a second thread.
#[test]
fn rc11_finds_what_the_literature_calls_invalid() {
    for (from, to) in [
        // A write moved above a release fence (needs a write before it).
        ("F.rel; y.rlx := 1;", "y.rlx := 1; F.rel;"),
        // An acquire read eliminated in favour of an earlier relaxed read.
        ("r := x.rlx; s := x.acq;", "r := x.rlx; s := r;"),
        // A plain write moved above a release write (a guarded reader).
        ("x := 1; y.rel := 1;", "y.rel := 1; x := 1;"),
        // Load buffering: a relaxed read moved after a relaxed write.
        ("r := x.rlx; y.rlx := 1;", "y.rlx := 1; r := x.rlx;"),
        // An sc read weakened to acquire (store buffering: an sc write
        // before it in P0, the grammar's sc `pre`).
        ("r := y.sc;", "r := y.acq;"),
    ] {
        let r = quick(from, to).expect("parses");
        match search(&r, "rc11", sized(3, 1)) {
            Found::Counterexample(c) => {
                let e = engine::named("rc11").expect("rc11");
                assert!(
                    table::reproduces(&c, e.as_ref()),
                    "{from}: {}",
                    c.target_test
                );
            }
            other => panic!("{from} ~> {to}: {other:?}"),
        }
    }
}

/// The prunings of the grammar are exact: on a sample of instances, the
/// pruned search finds a distinguishing context exactly when the
/// brute-force enumeration (every context of the bound, none left out)
/// does.
#[test]
fn prunings_lose_no_counterexample() {
    let inst = transform::bundled_instances(&[
        "reorder-wr".into(),
        "reorder-fw".into(),
        "elim-waw".into(),
    ])
    .expect("bundled schemas");
    let bound = sized(2, 2);
    let mut checked = 0;
    for (k, i) in inst.iter().enumerate().filter(|(k, _)| k % 5 == 0) {
        let r = &i.refinement;
        // Every model, each on a share of the sample (debug builds are slow).
        let model = MODELS[k / 5 % MODELS.len()];
        let e = engine::named(model).expect("model");
        let m = e.options(&r.program.model);
        let vocab = transform::context::vocabulary(r);
        let all = grammar::enumerate(&vocab, bound.size(), false);
        let pruned = grammar::enumerate(&vocab, bound.size(), true);
        assert!(pruned.len() < all.len());
        let brute = all
            .iter()
            .any(|c| transform::context::distinguishes(r, e.as_ref(), &m, &vocab, c).is_some());
        let found = search(r, model, bound);
        assert_eq!(
            brute,
            matches!(found, Found::Counterexample(_)),
            "{} under {model}: {found:?}",
            i.label()
        );
        checked += 1;
    }
    assert!(checked >= 6);
}

/// A fragment that names the `gpu` scope is also tried with its parallel
/// threads split over two GPUs (`gpu` and `sys` differ only there): sys →
/// gpu, a weakening, gets a test with its `scopes:` line that `run`
/// reproduces under pwt and ptx; gpu → sys, a strengthening, gets none
/// under pwt. The placements kept (once up to the order of equal threads)
/// find a test exactly when every placement of every context does (the
/// brute force), a fragment without `gpu` gets the contexts it had, and
/// the models blind to placement decide a split test as the unsplit one.
#[test]
fn a_gpu_scoped_fragment_is_tried_on_two_gpus() {
    let weaker = quick("y := 1; x.rel.sys := 1;", "y := 1; x.rel.gpu := 1;").expect("parses");
    let stronger = quick("y := 1; x.rel.gpu := 1;", "y := 1; x.rel.sys := 1;").expect("parses");
    for model in ["pwt", "ptx"] {
        match search(&weaker, model, sized(2, 1)) {
            Found::Counterexample(c) => {
                assert!(
                    c.target_test
                        .contains("scopes: sys { gpu { P0 } gpu { P1 } }"),
                    "{}",
                    c.target_test
                );
                let e = engine::named(model).expect("bundled");
                assert!(table::reproduces(&c, e.as_ref()), "{}", c.target_test);
            }
            other => panic!("sys → gpu under {model}: {other:?}"),
        }
    }
    let e = engine::named("pwt").expect("pwt");
    let bound = sized(2, 2);
    for r in [&weaker, &stronger] {
        let m = e.options(&r.program.model);
        let vocab = transform::context::vocabulary(r);
        assert!(vocab.gpu_scoped);
        let placed = grammar::contexts(&vocab, bound.size());
        let unplaced: Vec<grammar::Context> =
            placed.iter().filter(|c| c.apart == 0).cloned().collect();
        // Two equal threads: three of their four placements are kept.
        let pair = unplaced
            .iter()
            .find(|c| c.threads.len() == 2 && c.threads[0] == c.threads[1])
            .expect("a context of two equal threads");
        let kept = placed
            .iter()
            .filter(|c| c.threads == pair.threads && c.pre == pair.pre && c.post == pair.post)
            .count();
        assert_eq!(kept, 3);
        let brute = unplaced.iter().any(|c| {
            (0..1u32 << c.threads.len()).any(|apart| {
                let c = grammar::Context { apart, ..c.clone() };
                transform::context::distinguishes(r, e.as_ref(), &m, &vocab, &c).is_some()
            })
        });
        let found = search(r, "pwt", bound);
        assert_eq!(
            brute,
            matches!(found, Found::Counterexample(_)),
            "{found:?}"
        );
        assert_eq!(brute, std::ptr::eq(r, &weaker));
    }
    // An engine blind to placement skips the split contexts: exact, since
    // it decides each split test as the test on one GPU.
    let blind: Vec<&str> = MODELS
        .iter()
        .copied()
        .filter(|m| !engine::named(m).expect("bundled").reads_placement())
        .collect();
    assert_eq!(blind, ["rc11", "sc"]);
    let vocab = transform::context::vocabulary(&weaker);
    let split: Vec<grammar::Context> = grammar::contexts(&vocab, bound.size())
        .into_iter()
        .filter(|c| c.apart != 0)
        .step_by(7)
        .collect();
    assert!(split.len() > 20);
    for model in blind.iter().chain(&["ptx"]) {
        let e = engine::named(model).expect("bundled");
        let mut differ = 0;
        for c in &split {
            let (p0, threads) = c.texts(&vocab, &weaker.target_text);
            let body = format!("{p0}\n|| {}\n", threads.join("\n|| "));
            let states = |scopes: &str| {
                let t = pomset::syntax::parse(&format!("litmus T\n{scopes}\n{body}"))
                    .expect("a generated test parses");
                let m = e.options(&t.program.model);
                let o = e
                    .outcomes(&t.program, &m, Limits::default())
                    .expect("decided");
                (o.states.into_keys().collect::<Vec<_>>(), o.flags)
            };
            let scopes = c.scopes_line().expect("split");
            differ += usize::from(states(&scopes) != states(""));
        }
        // And ptx, which reads it, tells some of them apart.
        assert_eq!(differ > 0, *model == "ptx", "{model}");
    }
    let plain = quick("y := 1; x.rel := 1;", "y := 1; x.rel.cta := 1;").expect("parses");
    let vocab = transform::context::vocabulary(&plain);
    assert!(!vocab.gpu_scoped);
    // A fork's threads are not in the tree: it keeps the default placement.
    let forked =
        quick("y := 1; x.rel.gpu := 1;", "( y := 1; || x.rel.gpu := 1; )").expect("parses");
    assert!(!transform::context::vocabulary(&forked).gpu_scoped);
    assert!(grammar::contexts(&vocab, bound.size())
        .iter()
        .all(|c| c.apart == 0));
}

/// Limits are named, never read as verdicts.
#[test]
fn a_stopped_search_is_no_verdict() {
    let r = quick("r := x; s := y;", "r := x; s := y;").expect("parses");
    let bound = Bound {
        max_contexts: Some(3),
        ..sized(2, 1)
    };
    match search(&r, "rc11", bound) {
        Found::Stopped {
            tried,
            total,
            limit,
            ..
        } => {
            assert_eq!(tried, 3);
            assert!(total > 3);
            assert_eq!(limit, "--max-contexts 3");
        }
        other => panic!("{other:?}"),
    }
    let e = engine::named("rc11").expect("rc11");
    let past = Limits {
        deadline: Some((std::time::Instant::now(), 0.0)),
        ..Limits::default()
    };
    let m = e.options(&r.program.model);
    match transform::search(&r, e.as_ref(), &m, sized(2, 1), past) {
        Found::Stopped { limit, .. } => assert_eq!(limit, "--timeout 0"),
        other => panic!("{other:?}"),
    }
    // A bound too large to list (millions of contexts) stops while it is
    // listed, at the deadline, rather than listing on.
    match transform::search(&r, e.as_ref(), &m, sized(12, 6), past) {
        Found::Unknown(why) => assert!(
            why.starts_with("stopped by --timeout 0 while listing the contexts of size ≤ 12"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bundled_catalogue_has_at_least_200_instances() {
    let all = transform::bundled_instances(&[]).expect("bundled schemas parse");
    assert!(all.len() >= 200, "{} instances", all.len());
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/transformations"))
        .expect("transformations/")
        .count();
    assert_eq!(
        files,
        transform::catalogue::BUNDLED.len(),
        "every file is bundled"
    );
}

#[test]
fn schema_hole_errors_are_located() {
    let d = transform::parse_schema("bad", "holes M1\nrefine X\n").unwrap_err();
    let text = d.render("bad.refine", "holes M1\nrefine X\n");
    assert!(text.contains("bad.refine:1:1"), "{text}");
    let s = transform::parse_schema("s", "holes M = rlx\nrefine X\nsource { x.{M} := 1 }\n")
        .expect("holes parse");
    let err = s.instances().unwrap_err();
    assert_eq!(err.0, "s[M=rlx]");
}

/// The rows of the book's table (between its `<!-- table -->` markers).
fn book_rows() -> Vec<String> {
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/book/src/transformations.md"
    ))
    .expect("the chapter");
    let start = book.find("<!-- table:").expect("the table's start marker");
    let end = book
        .find("<!-- end table -->")
        .expect("the table's end marker");
    book[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| transformation"))
        .map(str::to_string)
        .collect()
}

/// The book's table is the command's (`pomset transformations --markdown`):
/// the rows of a few schemas are recomputed here at the table's default
/// bound; `POMSET_FULL_TABLE=1` recomputes every row (minutes in release).
#[test]
fn book_table_is_the_commands() {
    let full = std::env::var_os("POMSET_FULL_TABLE").is_some();
    let schemas: Vec<String> = if full {
        vec![]
    } else {
        vec![
            "elim-fence".into(),
            "roach-rel".into(),
            "reorder-ww-same".into(),
        ]
    };
    let inst = transform::bundled_instances(&schemas).expect("bundled schemas");
    let engines = engines(MODELS);
    let t = table::build(&inst, &engines, sized(2, 2), None, 2, &|_, _| {});
    let ours: Vec<String> = t.markdown().lines().skip(2).map(str::to_string).collect();
    let book: Vec<String> = book_rows()
        .into_iter()
        .filter(|r| full || schemas.iter().any(|s| r.starts_with(&format!("| {s} |"))))
        .collect();
    assert!(!ours.is_empty());
    assert_eq!(
        book, ours,
        "regenerate the book's table with `pomset transformations --markdown`"
    );
}

/// `transformations --out` names files after the instance: no `_` left at
/// either end by the brackets, none doubled, and one name per instance.
#[test]
fn counterexample_files_are_named_after_the_instance() {
    use pomset::transform::catalogue::{self, file_stem};
    assert_eq!(
        file_stem("reorder-rr[M1=acq,M2=rlx]"),
        "reorder-rr_M1-acq_M2-rlx"
    );
    assert_eq!(file_stem("elim-waw"), "elim-waw");
    let mut stems = std::collections::BTreeSet::new();
    for (name, text) in catalogue::BUNDLED {
        let schema = catalogue::parse_schema(name, text).expect("bundled schemas parse");
        for inst in schema.instances().expect("bundled instances check") {
            let stem = file_stem(&inst.label());
            assert!(
                !stem.starts_with('_') && !stem.ends_with('_') && !stem.contains("__"),
                "{stem}"
            );
            assert!(stems.insert(stem.clone()), "two instances named {stem}");
        }
    }
    assert!(stems.len() >= 200);
}

// Spreading the table: shards, records, resuming, merging. Each runs the
// binary on two small schemas under two models at context size 1.

const SWEEP: &[&str] = &[
    "transformations",
    "--models",
    "sc,rc11",
    "--context-size",
    "1",
    "elim-fence",
    "intro-write",
];

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pomset-transformations-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Runs `pomset` in `dir`: success, stdout, stderr.
fn pomset(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pomset"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `pomset` on the small sweep with `more` flags after it.
fn sweep(dir: &std::path::Path, more: &[&str]) -> (bool, String, String) {
    let args: Vec<&str> = SWEEP.iter().chain(more).copied().collect();
    pomset(dir, &args)
}

fn read_records(dir: &std::path::Path, file: &str) -> transform::records::Read {
    let text = std::fs::read_to_string(dir.join(file)).expect("records written");
    transform::records::read(file, &text).expect("records")
}

#[test]
fn shards_merged_equal_the_whole_table() {
    let dir = scratch("shards");
    let (ok, whole_md, err) = sweep(&dir, &["--markdown"]);
    assert!(ok, "{err}");
    let (ok, whole_json, err) = sweep(&dir, &["--json"]);
    assert!(ok, "{err}");
    for k in 0..2 {
        let shard = format!("{k}/2");
        let file = format!("s{k}.jsonl");
        let (ok, out, err) = sweep(&dir, &["--shard", &shard, "--jsonl", &file]);
        assert!(ok, "{err}");
        assert!(
            out.contains(&format!("4 instances (shard {k}/2) × 2 models")),
            "{out}"
        );
        let read = read_records(&dir, &file);
        assert!(read.finished);
        assert_eq!(read.header.instances, 8);
        assert!(read.records.iter().all(|r| r.index % 2 == k));
    }
    let merge = ["transformations", "--merge", "s0.jsonl", "s1.jsonl"];
    let (ok, md, err) = pomset(&dir, &[&merge[..], &["--markdown"]].concat());
    assert!(ok, "{err}");
    assert_eq!(md, whole_md);
    // The records give back every cell, counterexamples included.
    let (ok, json, err) = pomset(&dir, &[&merge[..], &["--json"]].concat());
    assert!(ok, "{err}");
    assert_eq!(json, whole_json);
    assert!(
        json.contains("\"target_test\""),
        "a counterexample in the sample"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cut_records_file_resumes_to_the_same_table() {
    let dir = scratch("resume");
    let (ok, whole, err) = sweep(&dir, &["--json", "--jsonl", "r.jsonl"]);
    assert!(ok, "{err}");
    let path = dir.join("r.jsonl");
    let text = std::fs::read_to_string(&path).expect("written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "a header, eight records, an end line");
    // The header and two records, then a partial line: a run killed mid-write.
    let mut cut = lines[..3].join("\n");
    cut.push_str("\n{\"index\":5,\"inst");
    std::fs::write(&path, cut).expect("written");
    let (ok, resumed, err) = sweep(&dir, &["--json", "--jsonl", "r.jsonl", "--progress"]);
    assert!(ok, "{err}");
    assert_eq!(resumed, whole);
    assert!(err.contains("8 instances, 6 decided"), "{err}");
    let read = read_records(&dir, "r.jsonl");
    assert!(read.finished);
    let mut indices: Vec<usize> = read.records.iter().map(|r| r.index).collect();
    indices.sort();
    assert_eq!(
        indices,
        [0, 1, 2, 3, 4, 5, 6, 7],
        "each instance recorded once"
    );
    // Another table's file is refused, naming what differs.
    let (ok, _, err) = pomset(
        &dir,
        &[
            "transformations",
            "--models",
            "sc",
            "--context-size",
            "1",
            "elim-fence",
            "intro-write",
            "--jsonl",
            "r.jsonl",
        ],
    );
    assert!(!ok);
    assert!(
        err.contains("another sweep (models: sc,rc11 there, sc here)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_merge_without_a_shard_names_it_and_fails_unless_partial() {
    let dir = scratch("missing");
    let (ok, _, err) = sweep(&dir, &["--shard", "0/3", "--jsonl", "s0.jsonl"]);
    assert!(ok, "{err}");
    let (ok, out, err) = pomset(&dir, &["transformations", "--merge", "s0.jsonl"]);
    assert!(!ok, "an incomplete merge fails");
    assert!(
        err.contains("no file holds shards 1/3, 2/3 (1 of 3 given)"),
        "{err}"
    );
    assert!(
        err.contains("5 of 8 instances have no record: elim-fence[F=rel], elim-fence[F=ra], intro-write[M1=wk], intro-write[M1=rlx], intro-write[M1=sc]"),
        "{err}"
    );
    assert!(
        out.contains("INCOMPLETE: no file holds shards 1/3, 2/3"),
        "{out}"
    );
    let (ok, partial, err) = pomset(
        &dir,
        &["transformations", "--merge", "s0.jsonl", "--partial"],
    );
    assert!(ok, "{err}");
    assert_eq!(partial, out);
    // A file whose run stopped is named too.
    let text = std::fs::read_to_string(dir.join("s0.jsonl")).expect("written");
    let stopped: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(dir.join("s0.jsonl"), stopped.join("\n") + "\n").expect("written");
    let (ok, _, err) = pomset(&dir, &["transformations", "--merge", "s0.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("s0.jsonl (shard 0/3) was stopped after 1 of 3 instances"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_shards_and_records_are_errors_with_a_place() {
    let dir = scratch("bad");
    let (ok, _, err) = sweep(&dir, &["--shard", "2/2"]);
    assert!(!ok);
    assert!(err.contains("`2/2`: --shard takes K/N"), "{err}");
    std::fs::write(dir.join("f.jsonl"), "not json\n").expect("written");
    let (ok, _, err) = pomset(&dir, &["transformations", "--merge", "f.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("f.jsonl:1: not the header of `pomset transformations` records"),
        "{err}"
    );
    let header = transform::records::header_line(&transform::records::Header {
        models: vec!["sc".into()],
        bound: small(),
        timeout: None,
        schemas: vec!["elim-fence".into()],
        instances: 4,
        shard: "0/1".into(),
    });
    let record = r#"{"index":0,"instance":"elim-fence[F=acq]","schema":"elim-fence","holes":[["F","acq"]],"cells":[{"verdict":"maybe"}]}"#;
    std::fs::write(dir.join("f.jsonl"), format!("{header}\n{record}\n")).expect("written");
    let (ok, _, err) = pomset(&dir, &["transformations", "--merge", "f.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("f.jsonl:2: not a record (no verdict `maybe`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep cancelled before it starts decides nothing and says so.
#[test]
fn a_cancelled_sweep_records_nothing() {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    let inst = transform::bundled_instances(&["elim-fence".into()]).expect("bundled");
    let part = table::Part {
        shard: pomset::sweep::Shard::WHOLE,
        done: &Default::default(),
        cancel: Some(&STOP),
    };
    let rows = std::sync::Mutex::new(0);
    let through = table::sweep(
        &inst,
        &engines(&["sc"]),
        small(),
        &Limits::default,
        2,
        part,
        &|_, _| {
            *rows.lock().expect("a count") += 1;
        },
    );
    assert!(!through);
    assert_eq!(*rows.lock().expect("a count"), 0);
}

#[test]
fn the_books_gnu_parallel_recipe_equals_one_run() {
    let has = std::process::Command::new("sh")
        .args(["-c", "command -v parallel"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "GNU parallel is missing under CI=true (.ci/run installs Debian's `parallel`)"
        );
        eprintln!("skipped: GNU parallel is not installed (Debian: apt-get install parallel)");
        return;
    }
    let book = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/transformations.md"),
    )
    .expect("the chapter");
    let (_, after) = book
        .split_once("<!-- tests/it/transformations.rs runs this recipe -->")
        .expect("the recipe's marker");
    let recipe = after
        .split_once("```sh\n")
        .and_then(|(_, b)| b.split_once("```"))
        .map(|(b, _)| b)
        .expect("the recipe's block");
    // The table the shards decide: the flags between `transformations` and `--shard`.
    let flags: Vec<&str> = recipe
        .split_once("pomset transformations")
        .and_then(|(_, rest)| rest.split_once("--shard"))
        .map(|(flags, _)| flags.split_whitespace().collect())
        .expect("a sharded table");
    let dir = scratch("parallel");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_pomset"))
        .parent()
        .expect("a directory");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("sh")
        .args(["-e", "-c", recipe])
        .env("PATH", &path)
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let args: Vec<&str> = ["transformations"]
        .iter()
        .chain(&flags)
        .chain(&["--markdown"])
        .copied()
        .collect();
    let (ok, whole, err) = pomset(&dir, &args);
    assert!(ok, "{err}");
    let merged = std::fs::read_to_string(dir.join("table.md")).expect("the merged table");
    assert_eq!(merged, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_table_and_keeps_what_it_decided() {
    let dir = scratch("sigint");
    // The whole catalogue: a minute or more, surely running when the signal comes.
    let stopped = crate::interrupt::ctrl_c_after_a_record(
        &dir,
        &[
            "transformations",
            "--models",
            "sc,rc11",
            "--jsonl",
            "c.jsonl",
        ],
        "c.jsonl",
        "the table",
    );
    let (stdout, stderr) = (&stopped.stdout, &stopped.stderr);
    assert_eq!(stopped.code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("INCOMPLETE: stopped by Ctrl-C after "),
        "{stdout}"
    );
    assert!(stderr.contains("resume with"), "{stderr}");
    assert!(stderr.contains("--jsonl c.jsonl"), "{stderr}");
    // Whole records, no end line, no cell cut short by the interruption.
    let read = read_records(&dir, "c.jsonl");
    assert!(!read.finished);
    assert!(!read.records.is_empty());
    for r in &read.records {
        assert!(
            r.cells
                .iter()
                .all(|c| !matches!(c, Cell::Unknown(w) if w.contains("interrupted"))),
            "{r:?}"
        );
    }
    let (ok, _, err) = pomset(&dir, &["transformations", "--merge", "c.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("c.jsonl (shard 0/1) was stopped after"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The book's argument for `unsound*` cells: under the note's §2 closure
/// rules (`monotonicity`, `merge`) the pomset-level check proves them
/// sound. Strengthening a write, and eliminating an overwritten write,
/// are `unsound*` under Fig. 1 and `sound` with the rule that validates
/// them; the corpus keeps its outcomes under both rules (the book).
#[test]
fn closure_rules_prove_the_unsound_star_cells_they_cover() {
    let models = ["pwt", "pwt[monotonicity=modes_scopes]", "pwt[merge=multi]"];
    let words = |schema: &str, choice: &[(&str, &str)]| -> Vec<&'static str> {
        let (t, _) = build(&[schema], &models);
        let row = t
            .rows
            .iter()
            .find(|r| {
                choice
                    .iter()
                    .all(|(h, v)| r.choice.iter().any(|(a, b)| a == h && b == v))
            })
            .expect("the instance is in the schema");
        row.cells.iter().map(Cell::word).collect()
    };
    assert_eq!(
        words("strengthen-write", &[("M1", "rlx"), ("M2", "rel")]),
        ["unsound*", "sound", "unsound*"]
    );
    assert_eq!(
        words("elim-waw", &[("M1", "rlx"), ("M2", "rlx")]),
        ["unsound*", "unsound*", "sound"]
    );
}

/// A row's cells share the parsed generated tests (`context::Tests`):
/// each cell decided alone, parsing its own, is the same cell.
#[test]
fn cells_sharing_parsed_tests_are_the_cells_decided_alone() {
    let names: Vec<String> = ["elim-fence", "intro-write"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let inst = transform::bundled_instances(&names).expect("bundled schemas");
    let engines = engines(&["rc11", "sc"]);
    let bound = sized(1, 2);
    let t = table::build(&inst, &engines, bound, None, 2, &|_, _| {});
    let mut unsound = 0;
    for (row, i) in t.rows.iter().zip(&inst) {
        for (cell, (_, e)) in row.cells.iter().zip(&engines) {
            let alone = table::decide(&i.refinement, e.as_ref(), false, bound);
            assert_eq!(cell, &alone, "{} under {}", i.schema, e.name());
            unsound += usize::from(matches!(cell, Cell::Unsound(Some(_))));
        }
    }
    assert!(unsound > 0, "no counterexample among the cells compared");
}

/// The table's default models as `--models` spells them and as a list.
#[test]
fn the_default_models_are_one_list() {
    assert_eq!(table::DEFAULT_MODELS.join(","), table::DEFAULT_MODELS_TEXT);
}
