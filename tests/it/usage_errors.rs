//! Issue 75's "messages that are wrong or silent": an argument accepted and
//! then ignored is a usage error naming it; an output path is checked before
//! the work, with a non-zero exit; an error in text the tool wrapped around
//! what the user typed is located in what was typed; a `.refine` file's
//! mistakes are said as what they are.

use std::process::{Command, Output};

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

/// A fresh directory of this test process, `name` under it.
fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pomset-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let path = temp(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

#[test]
fn run_draw_into_a_path_that_cannot_be_a_directory_fails_before_deciding() {
    let file = temp_file("not-a-dir", b"");
    let under = file.join("pictures");
    let out = pomset(&[
        "run",
        "--draw",
        under.to_str().expect("utf-8"),
        "examples/classic/sb.litmus",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--draw") && err.contains("cannot create"),
        "{err}"
    );
    // Refused before the work: no verdict printed.
    assert!(
        !text(&out.stdout).contains("Test SB"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn distinguish_out_naming_a_file_fails_before_the_sweep() {
    let file = temp_file("out-is-a-file", b"x");
    let out = pomset(&[
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "1",
        "--per-thread",
        "1",
        "--out",
        file.to_str().expect("utf-8"),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("names a file, not a directory"), "{err}");
    // No summary: the sweep never started.
    assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
}

#[test]
fn a_garbage_scope_tree_is_a_located_usage_error() {
    let out = pomset(&[
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "2",
        "--per-thread",
        "1",
        "--scope-tree",
        "garbage",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--scope-tree:1:8"), "{err}");
    assert!(err.contains("unexpected end of the scope tree"), "{err}");
    assert!(text(&out.stdout).is_empty());
    // A thread the programs do not have, located in the tree.
    let out = pomset(&[
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "2",
        "--per-thread",
        "1",
        "--scope-tree",
        "gpu { cta { P0 } cta { P5 } }",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--scope-tree:1:24") && err.contains("no thread `P5`"),
        "{err}"
    );
}

#[test]
fn options_a_model_does_not_read_are_refused() {
    // sc reads no option; a cat model reads only those it declares
    // (`let NAME[OPTION = VALUE]`), and rc11 declares none.
    for (model, says) in [
        ("rc11[c7a=direct]", "has no option `c7a`"),
        ("sc[merge=binary]", "reads no model option"),
        (
            "hrf-direct[c7a=direct]",
            "the options of `HRF-direct-relaxed`: inclusion",
        ),
    ] {
        let out = pomset(&["run", "--model", model, "examples/classic/sb.litmus"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{model}: {err}");
        assert!(err.contains(says), "{model}: {err}");
    }
    // pwt reads them.
    let out = pomset(&[
        "run",
        "--model",
        "pwt[c7a=direct]",
        "examples/classic/sb.litmus",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn transformations_json_and_markdown_conflict() {
    let out = pomset(&["transformations", "--json", "--markdown", "elim-raw"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--markdown") && err.contains("--json"),
        "{err}"
    );
}

#[test]
fn a_condition_cut_short_is_located_at_its_end_without_the_wrappers_parenthesis() {
    let out = pomset(&["pomsets", "examples/classic/sb.litmus", "--outcome", "zz"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("<condition>:1:3"), "{err}");
    assert!(err.contains("unexpected end of the condition"), "{err}");
    assert!(
        !err.contains("`)`"),
        "the `)` is the tool's, not the user's: {err}"
    );
}

#[test]
fn refine_from_and_to_errors_are_located_in_the_fragment_typed() {
    let out = pomset(&["refine", "--from", "x := ;", "--to", "x := 1;"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--from:1:6"), "{err}");
    assert!(!err.contains("source {"), "the wrapper is not shown: {err}");
    let out = pomset(&["refine", "--from", "x := 1;", "--to", "x := 1; r :="]);
    let err = text(&out.stderr);
    assert!(
        err.contains("--to:1:13") && err.contains("unexpected end of --to"),
        "{err}"
    );
    assert!(!err.contains("`}`"), "the `}}` is the tool's: {err}");
}

#[test]
fn invalid_utf8_gets_a_line_and_column() {
    let path = temp_file("latin1.litmus", b"litmus L\nx := 1;\n|| r := x; \xe9\n");
    let out = pomset(&["run", path.to_str().expect("utf-8")]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("latin1.litmus:3:12: not UTF-8 text (byte 0xe9)"),
        "{err}"
    );
    let path = temp_file("latin1.refine", b"refine R\nsource { x := 1; }\n\xff");
    let out = pomset(&["refine", path.to_str().expect("utf-8")]);
    let err = text(&out.stderr);
    assert!(err.contains("latin1.refine:3:1: not UTF-8 text"), "{err}");
    // A NUL byte is a token error, located as every other.
    let path = temp_file("nul.litmus", b"litmus N\nx := 1;\0\n");
    let out = pomset(&["run", path.to_str().expect("utf-8")]);
    let err = text(&out.stderr);
    assert!(err.contains("nul.litmus:2:8"), "{err}");
}

#[test]
fn a_refinement_with_two_sources_says_so() {
    let path = temp_file(
        "two-sources.refine",
        b"refine T\nsource { x := 1; }\nsource { x := 2; }\ntarget { x := 1; }\n",
    );
    let out = pomset(&["refine", path.to_str().expect("utf-8")]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("a second `source` block"), "{err}");
    assert!(err.contains("two-sources.refine:3:1"), "{err}");
    assert!(!err.contains("comes before"), "{err}");
    let path = temp_file(
        "two-targets.refine",
        b"refine T\nsource { x := 1; }\ntarget { x := 1; }\ntarget { x := 2; }\n",
    );
    let err = text(&pomset(&["refine", path.to_str().expect("utf-8")]).stderr);
    assert!(err.contains("a second `target` block"), "{err}");
    assert!(!err.contains("comes before"), "{err}");
}

#[test]
fn a_schema_given_to_refine_points_at_transformations() {
    let out = pomset(&["refine", "transformations/elim-fence.refine"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("pomset transformations"), "{err}");
    assert!(!err.contains("pomset run"), "{err}");
    assert!(err.contains("elim-fence.refine:1:1"), "{err}");
}

#[test]
fn an_undeclared_hole_is_named_as_one() {
    let path = temp_file(
        "hole.refine",
        b"refine H\nsource { x := {N}; }\ntarget { x := 1; }\n",
    );
    let out = pomset(&["refine", path.to_str().expect("utf-8")]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("`{N}` is a hole"), "{err}");
    assert!(err.contains("hole.refine:2:15"), "{err}");
    assert!(!err.contains("unexpected `{`"), "{err}");
}

#[test]
fn an_empty_jsonl_file_starts_a_sweep_and_merging_one_says_what_to_do() {
    let empty = temp_file("empty.jsonl", b"");
    let e = empty.to_str().expect("utf-8");
    let out = pomset(&["distinguish", "--merge", e]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no header line") && err.contains("delete it"),
        "{err}"
    );
    // As the --jsonl of a sweep, it is a new file.
    let out = pomset(&[
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "1",
        "--per-thread",
        "1",
        "--jsonl",
        e,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&empty).expect("read back");
    assert!(written.starts_with("{\"header\""), "{written}");
}

#[test]
fn a_schema_name_after_merge_chooses_rows() {
    let jsonl = temp("merge-schemas.jsonl");
    let j = jsonl.to_str().expect("utf-8");
    let _ = std::fs::remove_file(&jsonl);
    let out = pomset(&[
        "transformations",
        "--models",
        "sc",
        "--context-size",
        "1",
        "--jsonl",
        j,
        "elim-raw",
        "elim-rar",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = pomset(&["transformations", "--merge", j, "elim-raw"]);
    let (o, err) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{err}");
    assert!(o.contains("elim-raw") && !o.contains("elim-rar"), "{o}");
    // A schema the records do not hold is named.
    let out = pomset(&["transformations", "--merge", j, "seq"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no schema seq"), "{err}");
}

#[test]
fn refine_refuses_a_bound_past_its_default_budget_before_searching() {
    let out = pomset(&[
        "refine",
        "--context-size",
        "1000",
        "--from",
        "x := 1; r := x;",
        "--to",
        "x := 1; r := 1;",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("more than 50000"), "{err}");
    assert!(
        err.contains("--max-contexts") && err.contains("--timeout"),
        "{err}"
    );
    assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
    // The default bound is searched as before.
    let out = pomset(&[
        "refine",
        "--from",
        "x := 1; r := x;",
        "--to",
        "x := 1; r := 1;",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn vary_names_a_products_size_and_refuses_it_past_the_default() {
    let out = pomset(&["vary", "--product", "examples/classic/sb.litmus"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("1769472 settings"), "{err}");
    assert!(err.contains("--max-settings 1024"), "{err}");
    assert!(text(&out.stdout).is_empty());
    // A small product is decided.
    let out = pomset(&[
        "vary",
        "--product",
        "--options",
        "c7a,orders",
        "examples/classic/sb.litmus",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn distinguish_bounds_its_sweep_before_it_starts() {
    let big = [
        "distinguish",
        "--models",
        "sc,rc11",
        "--values",
        "16",
        "--locations",
        "4",
        "--threads",
        "3",
        "--per-thread",
        "3",
        "--modes",
        "rlx,acq,rel,sc",
        "--fences",
        "--rmws",
        "fadd,exchg",
        "--deps",
        "data,ctrl",
    ];
    // Its threads alone would not fit in memory: refused, with or without a budget.
    for budget in [&[][..], &["--budget", "1"][..]] {
        let args: Vec<&str> = big.iter().chain(budget).copied().collect();
        let out = pomset(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("threads of accesses number 21471595"), "{err}");
    }
    for (flag, n) in [("--threads", "100"), ("--per-thread", "1000")] {
        let out = pomset(&["distinguish", "--models", "sc,rc11", flag, n]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {n}: {err}");
        assert!(err.contains("take at most 8"), "{err}");
    }
    // Past the default size: refused without --budget, its size named.
    let large = [
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "4",
        "--per-thread",
        "3",
        "--values",
        "3",
    ];
    let out = pomset(&large);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("holds 24652290 programs") && err.contains("--budget"),
        "{err}"
    );
    // (A stopped sweep keeps its records: in a file of this test's.)
    let jsonl = temp("large.jsonl");
    let _ = std::fs::remove_file(&jsonl);
    let j = jsonl.to_str().expect("utf-8");
    let args: Vec<&str> = large
        .iter()
        .copied()
        .chain(["--budget", "0", "--jsonl", j])
        .collect();
    let out = pomset(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("after 0 of 24652290 programs"),
        "{}",
        text(&out.stdout)
    );
}
