//! `pomset vary` and `pomset fit` (the option space as a tool) on the
//! bundled examples, and the book chapter `fit` writes: "Where the note
//! contradicts itself" (`UPDATE_BOOK=1 cargo test --test it options_space::`
//! rewrites it; the test fails if it is stale).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use pomset::options_space::{
    self as space, Cell, Explorations, Fit, FitLimits, Source, Style, Test,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The tests under `examples/<dir>` whose file name starts with one of `prefixes`
/// (all of them when `prefixes` is empty), named relative to `examples/`.
fn tests(dir: &str, prefixes: &[&str]) -> Vec<Test> {
    let base = root().join("examples");
    pomset::cli::litmus_files(&[base.join(dir)])
        .expect("examples/ is readable")
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            prefixes.is_empty() || prefixes.iter().any(|x| name.starts_with(x))
        })
        .map(|p| {
            let src = std::fs::read_to_string(&p).expect("readable");
            let t = pomset::syntax::parse(&src)
                .unwrap_or_else(|d| panic!("{}", d.render("example", &src)));
            Test {
                file: p.strip_prefix(&base).unwrap_or(&p).display().to_string(),
                program: t.program,
            }
        })
        .collect()
}

/// `space::fit`, sharing one `Explorations` across the tests of this file:
/// each catalogue test is explored (decided under every relevant setting)
/// once, not once per fit that includes it (issue 31: this file's time).
fn fit(tests: &[Test], source: &Source, limits: FitLimits) -> Result<Fit, String> {
    static SHARED: OnceLock<Mutex<Explorations>> = OnceLock::new();
    let shared = SHARED.get_or_init(Mutex::default);
    // A panic elsewhere leaves the explorations whole: each is inserted complete.
    let mut known = shared.lock().unwrap_or_else(|e| e.into_inner());
    space::fit_with(tests, source, limits, &mut known)
}

fn options(names: &[&str]) -> Vec<&'static pomset::model::OptionInfo> {
    names
        .iter()
        .map(|n| space::option_named(n).expect("an option"))
        .collect()
}

/// One option at a time: the default column first, then each other value,
/// the differing cells marked, the stated expectation beside each test.
#[test]
fn vary_one_option_at_a_time() {
    let t = tests("catalogue", &["c21", "c39", "c58", "c59"]);
    let settings = space::settings(&options(&["c7a", "acyclic_union"]), false);
    let labels: Vec<String> = settings.iter().map(|s| s.label()).collect();
    assert_eq!(
        labels,
        [
            "default",
            "c7a=direct",
            "c7a=closure_po",
            "c7a=closure_rmw",
            "acyclic_union=on"
        ]
    );
    let m = space::vary(&t, &settings, Default::default());
    let c39 = m
        .rows
        .iter()
        .find(|r| r.test == "C39-RSYNC-RSC")
        .expect("C39");
    assert_eq!(c39.cells[0], Cell::Allowed);
    assert_eq!(c39.cells[4], Cell::Forbidden);
    assert!(c39.differs(4) && !c39.differs(1));
    assert_eq!(c39.met[0], Some(false));
    assert_eq!(c39.met[4], Some(true));
    insta::assert_snapshot!(space::render(&m, Style::Markdown));
    insta::assert_snapshot!(space::render(&m, Style::Text { color: false }));
}

/// The product of two options: every combination, the default first.
#[test]
fn vary_product() {
    let settings = space::settings(&options(&["orders", "acyclic_union"]), true);
    let labels: Vec<String> = settings.iter().map(|s| s.label()).collect();
    assert_eq!(
        labels,
        [
            "default",
            "orders=single",
            "acyclic_union=on",
            "orders=single, acyclic_union=on"
        ]
    );
    let m = space::vary(&tests("catalogue", &["c03"]), &settings, Default::default());
    let cells: Vec<&str> = m.rows[0].cells.iter().map(|c| c.as_str()).collect();
    assert_eq!(cells, ["allowed", "forbidden", "forbidden", "forbidden"]);
}

/// §13.4: C58 (✗) and C59 (✓) conflict on c7a; C57 and C60 fit with both.
#[test]
fn fit_finds_the_release_sequence_conflict() {
    let t = tests("catalogue", &["c57", "c58", "c59", "c60"]);
    let f = fit(&t, &Source::Files, FitLimits::default()).expect("fit");
    assert!(f.limit.is_none() && f.complete);
    let names = |c: &space::Conflict| -> Vec<String> {
        c.members
            .iter()
            .map(|i| f.expectations[*i].test.clone())
            .collect()
    };
    let conflicts: Vec<Vec<String>> = f.conflicts.iter().map(names).collect();
    assert_eq!(
        conflicts,
        [["C58-RELSEQ-FREL-RMW-RA-RLX", "C59-RELSEQ-RMW-RLX-RA"]]
    );
    assert!(f.conflicts[0].options.contains(&"c7a"));
    assert_eq!((f.default_satisfies, f.best_satisfies), (3, 3));
    insta::assert_snapshot!(space::fit_text(&f, false));
}

/// External expectations: a CSV of `test,condition,verdict`.
#[test]
fn fit_with_external_expectations() {
    let csv = "test,condition,verdict\n\
               # a model that forbids both\n\
               C59-RELSEQ-RMW-RLX-RA,1,forbidden\n\
               c60-frel-rmw-rlx-rlx,P1:a = 1 /\\ P2:r = 3 /\\ P2:s = 0,forbidden\n";
    let rows = space::parse_csv(csv).expect("valid CSV");
    assert_eq!(rows.len(), 2);
    let t = tests("catalogue", &["c59", "c60"]);
    let f = fit(&t, &Source::Csv(rows), FitLimits::default()).expect("fit");
    // The defaults forbid C59 but allow C60; acyclic_union = on forbids both.
    assert_eq!((f.default_satisfies, f.best_satisfies), (1, 2));
    assert!(f.conflicts.is_empty());
    assert!(f
        .best
        .iter()
        .all(|s| s.0.contains(&("acyclic_union", "on")) || s.0.contains(&("init", "none"))));
    let err = space::parse_csv("C59,1,maybe\n").expect_err("not a verdict");
    assert_eq!(
        err,
        "line 1: `maybe` is not a verdict; use allowed, forbidden, always, sometimes or never"
    );
    let err = fit(
        &t,
        &Source::Csv(space::parse_csv("C99,1,allowed").expect("valid")),
        FitLimits::default(),
    )
    .expect_err("no such test");
    assert_eq!(err, "no test named `C99` among the files");
}

/// A conflict larger than `--max-conflict-size` is reported as not searched.
#[test]
fn the_conflict_size_limit_is_named() {
    let t = tests("catalogue", &["c58", "c59"]);
    let limits = FitLimits {
        max_conflict_size: 1,
        ..FitLimits::default()
    };
    let f = fit(&t, &Source::Files, limits).expect("fit");
    assert!(f.conflicts.is_empty() && !f.complete);
    assert!(space::fit_text(&f, false).contains("NOT complete"));
}

/// The book's "Where the note contradicts itself": `fit` on the catalogue
/// (the note's stated verdicts), with every minimal conflicting set.
#[test]
fn contradiction_chapter_is_current() {
    let t = tests("catalogue", &[]);
    let f = fit(&t, &Source::Files, FitLimits::default()).expect("fit");
    assert!(f.limit.is_none() && f.complete, "{:?}", f.limit);
    let pairs: Vec<(String, String)> = f
        .conflicts
        .iter()
        .filter(|c| c.members.len() == 2)
        .map(|c| {
            (
                f.expectations[c.members[0]].test.clone(),
                f.expectations[c.members[1]].test.clone(),
            )
        })
        .collect();
    for (a, b) in [
        ("C03-SYNC-1", "C39-RSYNC-RSC"),
        ("C34-IRIW-ACQ-ACQ", "C39-RSYNC-RSC"),
        ("C39-RSYNC-RSC", "C60-FREL-RMW-RLX-RLX"),
        ("C58-RELSEQ-FREL-RMW-RA-RLX", "C59-RELSEQ-RMW-RLX-RA"),
    ] {
        assert!(
            pairs.contains(&(a.to_string(), b.to_string())),
            "{a} vs {b} missing from {pairs:?}"
        );
    }
    assert_ne!(f.default_satisfies, f.expectations.len());
    let page = format!("{}\n{}", CHAPTER_HEAD.trim_end(), space::fit_text(&f, true));
    let book = root().join("book/src/contradictions.md");
    if std::env::var_os("UPDATE_BOOK").is_some() {
        std::fs::write(&book, &page).expect("write the book page");
    }
    let current = std::fs::read_to_string(&book).unwrap_or_default();
    assert_eq!(
        current, page,
        "book/src/contradictions.md is stale: run UPDATE_BOOK=1 cargo test --test it options_space::"
    );
}

/// The chapter's prose; what follows it is `pomset fit --format md examples/catalogue`.
const CHAPTER_HEAD: &str = r#"# Where the note contradicts itself

Generated by `tests/it/options_space.rs` (`UPDATE_BOOK=1 cargo test --test it options_space::`
rewrites it; the test fails if it is stale). Everything below the line is the output of

```text
pomset fit --format md examples/catalogue
```

The catalogue's files state the note's verdicts (`allow`, `forbid`, `expect`; an `expect
... when OPTION = VALUE` line is what the note says under that option). No setting of the
model options reproduces all of them. `fit` searches the option space for the settings that
satisfy the most, and lists the **minimal conflicting sets**: sets of stated verdicts that no
setting satisfies together, while every smaller part of the set some setting does. Each is a
place where the note, read through any of our options, contradicts itself, or where our
options do not yet contain the reading the note meant.

How it is computed, and what it assumes:

- The options a file's `model { }` block sets stay as set for that file (the note's verdict
  is stated under them; C35 keeps `sc_order = sec11`). Every other option is varied over the
  values some command decides (`if_closure = on` is refused; `if_closure = registers` is
  decided, and where a limit stops it the expectation counts as not met and is listed as
  undecided).
- For each test, the options that can change its verdict are found by varying every option
  alone, at every setting of the options already found to matter (starting from those its
  `expect ... when` lines name), until none changes a verdict. An option that changes
  nothing when varied alone at every such setting is taken not to matter together with
  another such option either; this is the one assumption, and it is what keeps the search
  to a few thousand decisions instead of the full product of every option.
- Each test is decided once per distinct model (cached), then every setting of the union of
  the relevant options is scored by table look-up.
- The minimal conflicting sets are exact: a set conflicts iff every setting fails one of its
  members, so they are the minimal transversals of the family {the expectations a setting
  fails}, enumerated with Berge's algorithm, bounded by `--max-conflict-size` (default 8),
  and the text says when that bound stopped it. `init = none` forbids almost every outcome
  with a read of an initial value, which is why `init` appears among the deciding options of
  most sets.
- Three entries were added to the catalogue for this chapter, their programs legible in the
  note and their outcomes reconstructed from the prose (see their files): C39 (RSYNC+RSC, "a
  cycle"), C57 and C59 (§13.4's release-sequence pair). C39 and C59 carry `disputed` lines:
  no default reproduces them.

Reading the result: C39 is forbidden only by `acyclic_union = on`, which also forbids the
outcomes the note allows in C03-C05 (the SYNC examples drawn with rf outside the order),
C34, C35 and C60; §13.4's C58 (✗) and C59 (✓) need opposite values of `c7a` (C59 is allowed
only with `c7a = direct` or `closure_po`, and those allow C58 as well).

---
"#;

/// A misspelt option is refused with the closest name.
#[test]
fn unknown_options_are_named() {
    assert_eq!(
        space::option_named("acyclic").expect_err("no such option"),
        "unknown model option `acyclic` (see `pomset options`)"
    );
    assert_eq!(
        space::option_named("acyclic_unoin").expect_err("misspelt"),
        "unknown model option `acyclic_unoin` (did you mean `acyclic_union`?)"
    );
}

/// Issue 31: a fit that reuses earlier explorations says what a fresh fit
/// says, and explorations made under other limits are not reused.
#[test]
fn fit_with_earlier_explorations_is_a_fresh_fit() {
    let t = tests("catalogue", &["c03"]);
    let mut known = Explorations::default();
    let text = |f: &Fit| space::fit_text(f, false);
    let fresh = space::fit(&t, &Source::Files, FitLimits::default()).expect("fit");
    let first = space::fit_with(&t, &Source::Files, FitLimits::default(), &mut known).expect("fit");
    let again = space::fit_with(&t, &Source::Files, FitLimits::default(), &mut known).expect("fit");
    assert_eq!(text(&first), text(&fresh));
    assert_eq!(text(&again), text(&fresh));
    let tight = FitLimits {
        max_settings: 1,
        ..FitLimits::default()
    };
    let reused = space::fit_with(&t, &Source::Files, tight, &mut known).expect("fit");
    let alone = space::fit(&t, &Source::Files, tight).expect("fit");
    assert_eq!(text(&reused), text(&alone));
}
