//! `pomset distinguish` (`pomset::distinguish`): the known pairs are
//! rediscovered, the written tests carry the verdicts they claim, a minimal
//! test has no removable access, canonical forms are stable under the
//! symmetries, every program is listed once, and shards are a partition
//! whose merge equals one unsharded run. Bounds are tiny: two threads of at
//! most two relaxed accesses over two locations.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::process::Command;

use pomset::distinguish::canon::{canonical, is_canonical};
use pomset::distinguish::enumerate::{programs, threads};
use pomset::distinguish::minimal::{self, Minimal};
use pomset::distinguish::shape::{Bound, Dep, Kind, Shape, Space, Vocabulary};
use pomset::distinguish::shard::{self, Merged, Tally};
use pomset::distinguish::{sweep, Decision, Pair, Record, Shard};
use pomset::syntax::ast::Mode;
use proptest::prelude::*;

fn tiny() -> Space {
    Space {
        bound: Bound::default(),
        vocabulary: Vocabulary::default(),
    }
}

/// The whole sweep of `space` under `a` and `b`, merged, and its records
/// by program.
fn run(space: &Space, a: &str, b: &str) -> (Pair, Merged, BTreeMap<String, Record>) {
    let pair = Pair::named(a, b).expect("bundled models");
    let mut records = BTreeMap::new();
    sweep(space, &pair, Shard::WHOLE, &HashSet::new(), &mut |_, r| {
        assert!(records.insert(r.id.clone(), r).is_none(), "a program twice");
    });
    let tally = Tally::from(records.values().cloned());
    let merged = Merged::new(pair.names.clone(), space.describe(), tally);
    (pair, merged, records)
}

/// The families of the minimal tests, and which model allows each one's state.
fn families(m: &Merged) -> BTreeSet<(String, String)> {
    shard::tests(m)
        .iter()
        .map(|t| {
            let f = t.record.family.clone().unwrap_or_default();
            (f, m.models[t.allowed_by].clone())
        })
        .collect()
}

const SB: &str = "x := 1; r1 := y; || y := 1; r1 := x;";
const MP: &str = "r0 := x; r1 := y; || y := 1; x := 1;";
const LB: &str = "r0 := x; y := 1; || r0 := y; x := 1;";

#[test]
fn sc_against_rc11_finds_store_buffering_and_relaxed_message_passing() {
    let (_, m, records) = run(&tiny(), "sc", "rc11");
    let found = families(&m);
    assert!(
        found.contains(&(SB.to_string(), "rc11".to_string())),
        "{found:?}"
    );
    assert!(
        found.contains(&(MP.to_string(), "rc11".to_string())),
        "{found:?}"
    );
    // SC's states are RC11's: no test the other way round.
    assert!(found.iter().all(|(_, by)| by == "rc11"), "{found:?}");
    assert!(records.values().all(|r| r.verdict != "undecided"));
}

#[test]
fn rc11_against_pwt_finds_load_buffering() {
    let (_, m, _) = run(&tiny(), "rc11", "pwt");
    let found = families(&m);
    assert!(
        found.contains(&(LB.to_string(), "pwt".to_string())),
        "{found:?}"
    );
}

/// Each written test decided by `compare`'s rows: the model allowing its
/// state says Sometimes, the other Never.
fn check_written_verdicts(m: &Merged) {
    let columns: Vec<pomset::compare::Column> = m
        .models
        .iter()
        .map(|n| pomset::compare::Column {
            name: n.clone(),
            engine: pomset::engine::named(n).expect("a model"),
        })
        .collect();
    let tests = shard::tests(m);
    assert!(!tests.is_empty());
    for t in &tests {
        let text = shard::litmus(m, t);
        let test = pomset::syntax::parse(&text).expect("a written test parses");
        let rows = pomset::compare::rows(
            &test.program,
            &test.program.model,
            &columns,
            pomset::outcome::Limits::default(),
        );
        let row = &rows[0];
        assert!(row.allows(t.allowed_by), "{text}\n{:?}", row.verdicts);
        assert!(row.forbids(1 - t.allowed_by), "{text}\n{:?}", row.verdicts);
    }
}

#[test]
fn written_tests_carry_the_verdicts_they_claim() {
    check_written_verdicts(&run(&tiny(), "sc", "rc11").1);
    check_written_verdicts(&run(&tiny(), "rc11", "pwt").1);
}

/// The body with statement `k` (counting across threads) left out, by
/// text: independent of `minimal::removed`.
fn without_statement(body: &str, k: usize) -> String {
    let mut seen = 0;
    let mut threads = Vec::new();
    for thread in body.split("||") {
        let mut kept = Vec::new();
        for stmt in thread.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            if seen != k {
                kept.push(format!("{stmt};"));
            }
            seen += 1;
        }
        if !kept.is_empty() {
            threads.push(kept.join(" "));
        }
    }
    threads.join("\n|| ")
}

/// The body with statement `k` (counting across threads), an RMW
/// `rK := FADD.m.w.s(x, v);` or `EXCHG`, replaced by its read half
/// (`rK := x.m.s;`) and by its write half (`x.w.s := v;`), by text:
/// independent of `minimal::halves`. Empty when statement `k` is no RMW.
fn rmw_halves(body: &str, k: usize) -> Vec<String> {
    let stmts: Vec<&str> = body.split(';').map(str::trim).collect();
    let Some(stmt) = stmts.get(k) else {
        return Vec::new();
    };
    let (bar, stmt) = match stmt.strip_prefix("||") {
        Some(rest) => ("|| ", rest.trim()),
        None => ("", *stmt),
    };
    let Some((reg, rmw)) = stmt.split_once(" := ") else {
        return Vec::new();
    };
    let Some((name, args)) = rmw.split_once('(') else {
        return Vec::new();
    };
    let Some((loc, value)) = args.trim_end_matches(')').split_once(", ") else {
        return Vec::new();
    };
    let mut suffix = name.split('.');
    if !matches!(suffix.next(), Some("FADD" | "EXCHG")) {
        return Vec::new();
    }
    // `.m.w` are the two modes unless both are rlx; a scope may follow.
    let rest: Vec<&str> = suffix.collect();
    let modes = ["wk", "rlx", "acq", "rel", "sc"];
    let (read, write, scope) = match rest.as_slice() {
        [m, w, s @ ..] if modes.contains(m) => (*m, *w, s.to_vec()),
        s => ("rlx", "rlx", s.to_vec()),
    };
    let dotted = |m: &str| {
        let mut parts: Vec<&str> = Vec::new();
        if m != "rlx" {
            parts.push(m);
        }
        parts.extend(&scope);
        parts.iter().map(|p| format!(".{p}")).collect::<String>()
    };
    let plain = [
        format!("{bar}{reg} := {loc}{}", dotted(read)),
        format!("{bar}{loc}{} := {value}", dotted(write)),
    ];
    plain
        .into_iter()
        .map(|p| {
            let mut all = stmts.clone();
            all[k] = &p;
            all.join("; ").trim_end().to_string()
        })
        .collect()
}

/// What `pair` decides of `body` (values 0 and 1, and what its FADDs of
/// 1 add) unless it is the same or outside what the models decide.
fn may_distinguish(pair: &Pair, body: &str) -> Option<Decision> {
    let top = 1 + body.matches("FADD").count();
    let values: Vec<String> = (0..=top).map(|v| v.to_string()).collect();
    let text = format!("litmus W\nvalues {{{}}}\n\n{body}\n", values.join(", "));
    let d = pair.decide(&text);
    match &d {
        Decision::Same => None,
        Decision::Undecided(u) if u.outside => None,
        _ => Some(d),
    }
}

#[test]
fn a_reported_test_never_has_a_removable_access() {
    let rmws = Space {
        vocabulary: Vocabulary {
            rmws: vec![Kind::Fadd, Kind::Exchg],
            ..Vocabulary::default()
        },
        ..tiny()
    };
    for space in [tiny(), rmws] {
        for (a, b) in [("sc", "rc11"), ("rc11", "pwt")] {
            let (pair, m, _) = run(&space, a, b);
            for r in m.tally.minimal.values() {
                let statements = r.id.matches(';').count();
                for k in 0..statements {
                    let body = without_statement(&r.id, k);
                    if !body.is_empty() {
                        let d = may_distinguish(&pair, &body);
                        assert!(
                            d.is_none(),
                            "{a} vs {b}: {} without statement {k}: {d:?}",
                            r.id
                        );
                    }
                    for body in rmw_halves(&r.id, k) {
                        let d = may_distinguish(&pair, &body);
                        assert!(d.is_none(), "{a} vs {b}: {} as {body}: {d:?}", r.id);
                    }
                }
            }
        }
    }
}

#[test]
fn a_removable_access_makes_a_test_not_minimal() {
    // SB with a third, useless access: distinguishing, but not minimal.
    let space = Space {
        bound: Bound {
            per_thread: 3,
            total: 5,
            ..Bound::default()
        },
        ..tiny()
    };
    let pair = Pair::named("sc", "rc11").expect("bundled models");
    let shape = shape_of(&space, &["x := 1; r1 := y; r2 := y;", "y := 1; r1 := x;"]);
    let r = pomset::distinguish::record(&space, &pair, &shape);
    assert_eq!(r.verdict, "differs");
    let minimal = r.minimal.unwrap_or_default();
    assert!(minimal.starts_with("no: removing"), "{minimal}");
}

/// The program of `space` with these threads (each as `Shape::body`
/// writes it).
fn shape_of(space: &Space, bodies: &[&str]) -> Shape {
    let all = threads(space);
    let find = |body: &str| {
        all.iter()
            .find(|th| {
                Shape {
                    threads: vec![(*th).clone()],
                }
                .body()
                    == body
            })
            .cloned()
            .unwrap_or_else(|| panic!("{body} is a thread of the space"))
    };
    Shape {
        threads: bodies.iter().map(|b| find(b)).collect(),
    }
}

fn with_wk() -> Space {
    Space {
        vocabulary: Vocabulary {
            modes: vec![Mode::Wk, Mode::Rlx],
            ..Vocabulary::default()
        },
        ..tiny()
    }
}

#[test]
fn a_racy_weakening_distinguishes_nothing() {
    // With wk, SB's and MP's weakenings to wk race under RC11 (undefined
    // behaviour, undecided): no program one model allows and the other
    // forbids, so SB and MP are minimal.
    let (pair, _, records) = run(&with_wk(), "sc", "rc11");
    for body in [SB, MP] {
        let r = records.get(body).expect("decided");
        assert_eq!(r.verdict, "differs", "{r:?}");
        assert_eq!(r.minimal.as_deref(), Some("yes"), "{r:?}");
    }
    let unknown: Vec<&Record> = records
        .values()
        .filter(|r| {
            r.minimal
                .as_deref()
                .is_some_and(|w| w.starts_with("unknown"))
        })
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
    // The weakening is undecided as outside what the models decide.
    let racy = "x.wk := 1; r1 := y; || y := 1; r1 := x;";
    let text = shape_of(&with_wk(), &["x.wk := 1; r1 := y;", "y := 1; r1 := x;"]);
    assert_eq!(text.body(), racy);
    match pair.decide(&text.litmus("P", &with_wk())) {
        Decision::Undecided(u) => {
            assert!(u.outside, "{u:?}");
            assert_eq!(u.why, "rc11: raises data-race");
        }
        d => panic!("{racy}: {d:?}"),
    }
}

/// A flag that is set: every engine stops at its first check.
static STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

#[test]
fn a_weakening_stopped_by_a_limit_leaves_the_minimality_unknown() {
    let space = with_wk();
    let sb = shape_of(&space, &["x := 1; r1 := y;", "y := 1; r1 := x;"]);
    let mut pair = Pair::named("sc", "rc11").expect("bundled models");
    pair.cancel = Some(&STOPPED);
    let m = minimal::minimal(&space, &pair, &sb);
    let Minimal::Unknown(why) = &m else {
        panic!("{m:?}")
    };
    assert!(why.contains("stopped by"), "{why}");
}

#[test]
fn an_rmw_replaced_by_its_write_still_distinguishing_is_not_minimal() {
    // Every EXCHG variant of SB and MP weakens to them: two families, not
    // one per variant (18 before the RMW's halves were a weakening).
    let space = Space {
        vocabulary: Vocabulary {
            rmws: vec![Kind::Exchg],
            ..Vocabulary::default()
        },
        ..tiny()
    };
    let (_, m, records) = run(&space, "sc", "rc11");
    let differs = records.values().filter(|r| r.verdict == "differs");
    assert_eq!(differs.count(), 18);
    let found = families(&m);
    let expected: BTreeSet<(String, String)> = [SB, MP]
        .iter()
        .map(|f| (f.to_string(), "rc11".to_string()))
        .collect();
    assert_eq!(found, expected);
    let sb = "r0 := EXCHG(x, 1); r1 := y; || r0 := EXCHG(y, 1); r1 := x;";
    let r = records.get(sb).expect("decided");
    assert_eq!(
        r.minimal.as_deref(),
        Some("no: replacing P0's access 0 by a plain write still distinguishes"),
        "{r:?}"
    );
}

#[test]
fn a_program_that_may_leave_its_v_is_undecided() {
    // Declared V = {0, 1}, and the FADD may write 2: the engines drop those
    // executions, so no verdict to compare, and nothing distinguished.
    let pair = Pair::named("sc", "rc11").expect("bundled models");
    let text = "litmus W\nvalues {0, 1}\n\nx := 1;\n|| r0 := FADD(x, 1);\n";
    let d = pair.decide(text);
    let Decision::Undecided(u) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(u.why, "P1 may write 2 to x");
    assert!(u.outside);
    let space = Space {
        vocabulary: Vocabulary {
            rmws: vec![Kind::Fadd],
            ..Vocabulary::default()
        },
        ..tiny()
    };
    let shape = shape_of(&space, &["x := 1;", "r0 := FADD(x, 1);"]);
    assert_eq!(Record::of(&shape, &d).verdict, "undecided");
    // The sweep declares V wide enough for the FADDs: 1 and what they add.
    let litmus = shape.litmus("P", &space);
    assert!(litmus.contains("values {0, 1, 2}\n"), "{litmus}");
    let r = pomset::distinguish::record(&space, &pair, &shape);
    assert_eq!(r.verdict, "same", "{r:?}");
}

/// A space where all three symmetries apply (values are names), with
/// fences and an RMW.
fn rich() -> Space {
    Space {
        bound: Bound {
            threads: 3,
            per_thread: 2,
            total: 6,
            locations: 3,
            values: 3,
        },
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel],
            fences: true,
            rmws: vec![Kind::Exchg],
            ..Vocabulary::default()
        },
    }
}

/// `s` with threads permuted, locations renamed by `locs`, and each
/// location's written values 1 and 2 swapped when `swap[loc]`.
fn transformed(s: &Shape, perm: &[usize], locs: &[u8], swap: &[bool]) -> Shape {
    let mut t = Shape {
        threads: perm.iter().map(|&i| s.threads[i].clone()).collect(),
    };
    for op in t.threads.iter_mut().flatten() {
        if op.kind == Kind::Fence {
            continue;
        }
        if swap[op.loc as usize] && op.val != 0 {
            op.val = 3 - op.val;
        }
        op.loc = locs[op.loc as usize];
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn canonical_forms_are_stable_under_the_symmetries(
        picks in prop::collection::vec(0usize..10_000, 1..=3),
        perm_seed in 0usize..6,
        loc_seed in 0usize..6,
        swap in prop::collection::vec(any::<bool>(), 3),
    ) {
        let space = rich();
        let all = threads(&space);
        let s = Shape { threads: picks.iter().map(|&i| all[i % all.len()].clone()).collect() };
        let n = s.threads.len();
        let perms: Vec<Vec<usize>> = permutations(n);
        let perm = &perms[perm_seed % perms.len()];
        let locs: Vec<u8> = permutations(3)[loc_seed].iter().map(|&l| l as u8).collect();
        let t = transformed(&s, perm, &locs, &swap);
        let c = canonical(&space, &s);
        prop_assert_eq!(&c, &canonical(&space, &t));
        prop_assert!(is_canonical(&space, &c));
        prop_assert_eq!(c.size(), s.size());
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn values_that_are_added_are_not_renamed() {
    let space = Space {
        vocabulary: Vocabulary {
            rmws: vec![Kind::Fadd],
            ..Vocabulary::default()
        },
        bound: Bound {
            values: 3,
            ..Bound::default()
        },
    };
    assert!(!space.values_are_names());
    let bodies: HashSet<String> = programs(&space).map(|s| s.body()).collect();
    assert!(bodies.contains("r0 := FADD(x, 1);"));
    assert!(bodies.contains("r0 := FADD(x, 2);"));
}

#[test]
fn every_program_is_listed_once_up_to_symmetry() {
    // Brute force: every tuple of threads within the bound has its
    // canonical form listed, and no two listed programs share one.
    let space = Space {
        bound: Bound {
            values: 3,
            ..Bound::default()
        },
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Acq],
            ..Vocabulary::default()
        },
    };
    let listed: Vec<Shape> = programs(&space).collect();
    let set: HashSet<Shape> = listed.iter().cloned().collect();
    assert_eq!(set.len(), listed.len(), "a program is listed twice");
    let all = threads(&space);
    for a in &all {
        let one = Shape {
            threads: vec![a.clone()],
        };
        assert!(set.contains(&canonical(&space, &one)), "{}", one.body());
        for b in &all {
            let two = Shape {
                threads: vec![a.clone(), b.clone()],
            };
            assert!(set.contains(&canonical(&space, &two)), "{}", two.body());
        }
    }
    for s in &listed {
        assert_eq!(&canonical(&space, s), s);
    }
    // Three threads of one access each, with fences: the cuts of the walk.
    let space = Space {
        bound: Bound {
            threads: 3,
            per_thread: 1,
            total: 3,
            locations: 3,
            values: 3,
        },
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Sc],
            fences: true,
            ..Vocabulary::default()
        },
    };
    let listed: Vec<Shape> = programs(&space).collect();
    let set: HashSet<Shape> = listed.iter().cloned().collect();
    assert_eq!(set.len(), listed.len(), "a program is listed twice");
    let all = threads(&space);
    for a in &all {
        for b in &all {
            for c in &all {
                let three = Shape {
                    threads: vec![a.clone(), b.clone(), c.clone()],
                };
                assert!(set.contains(&canonical(&space, &three)), "{}", three.body());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn shards_are_disjoint_and_their_union_is_the_whole(n in 1usize..6) {
        let space = tiny();
        let whole: Vec<String> = programs(&space).map(|s| s.body()).collect();
        let mut union = Vec::new();
        for k in 0..n {
            union.extend(Shard { index: k, count: n }.programs(&space).map(|s| s.body()));
        }
        prop_assert_eq!(union.len(), whole.len());
        let a: BTreeSet<String> = union.into_iter().collect();
        let b: BTreeSet<String> = whole.into_iter().collect();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn a_shard_is_read_as_k_of_n() {
    assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
    for bad in ["4/4", "1", "a/2", "0/0"] {
        let e = Shard::parse(bad).expect_err(bad);
        assert!(e.contains("K/N"), "{e}");
    }
}

fn pomset(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pomset"))
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

fn scratch(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("pomset-distinguish-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// With `--progress`, the first line already has the shard's total
/// (counted, not listed) and the last says how many were decided; the
/// summary on standard output is the same as without it.
#[test]
fn progress_shows_the_total_from_the_first_line() {
    let dir = scratch("progress");
    let args = [
        "distinguish",
        "--models",
        "sc,rc11",
        "--threads",
        "3",
        "--total",
        "4",
    ];
    let (ok, plain, err) = pomset(&dir, &args);
    assert!(ok, "{err}");
    let (ok, shown, err) = pomset(&dir, &[&args[..], &["--progress"]].concat());
    assert!(ok, "{err}");
    assert_eq!(plain, shown);
    let n = plain
        .lines()
        .find(|l| l.contains(" programs: "))
        .and_then(|l| l.split_whitespace().next())
        .expect("a summary line");
    assert!(n.parse::<u64>().is_ok_and(|n| n > 100), "{plain}");
    let first = err.split('\r').find(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(first.starts_with(&format!("0/{n} programs")), "{first}");
    assert!(
        err.contains(&format!("{n} programs, {n} decided in")),
        "{err}"
    );
}

#[test]
fn n_shards_merged_equal_one_unsharded_run() {
    let dir = scratch("shards");
    let (ok, whole, err) = pomset(
        &dir,
        &["distinguish", "--models", "sc,rc11", "--out", "whole"],
    );
    assert!(ok, "{err}");
    for k in 0..3 {
        let shard = format!("{k}/3");
        let file = format!("s{k}.jsonl");
        let (ok, _, err) = pomset(
            &dir,
            &[
                "distinguish",
                "--models",
                "sc,rc11",
                "--shard",
                &shard,
                "--jsonl",
                &file,
            ],
        );
        assert!(ok, "{err}");
    }
    let (ok, merged, err) = pomset(
        &dir,
        &[
            "distinguish",
            "--merge",
            "s0.jsonl",
            "s1.jsonl",
            "s2.jsonl",
            "--out",
            "merged",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(merged, whole);
    assert!(whole.contains("rc11 only"), "{whole}");
    // Two of three shards: said loudly, the summary marked, exit 1 unless
    // --partial accepts it.
    let two = ["distinguish", "--merge", "s0.jsonl", "s1.jsonl"];
    let (ok, partial, err) = pomset(&dir, &two);
    assert!(!ok, "{partial}");
    assert!(
        err.contains("no file holds shard 2/3 (2 of 3 given)"),
        "{err}"
    );
    assert!(
        partial.lines().nth(1) == Some("INCOMPLETE: no file holds shard 2/3 (2 of 3 given)"),
        "{partial}"
    );
    let (ok, accepted, err) = pomset(&dir, &[&two[..], &["--partial"]].concat());
    assert!(ok, "{err}");
    assert_eq!(accepted, partial);
    // Files that overlap count each program once: a shard twice, and the
    // whole sweep's file beside its shards.
    std::fs::copy(dir.join("s1.jsonl"), dir.join("s1-again.jsonl")).expect("copied");
    let models = ["distinguish", "--models", "sc,rc11"];
    let (ok, _, err) = pomset(&dir, &[&models[..], &["--jsonl", "w.jsonl"]].concat());
    assert!(ok, "{err}");
    let files = ["s0.jsonl", "s1.jsonl", "s1-again.jsonl", "s2.jsonl"];
    let (ok, again, err) = pomset(&dir, &[&["distinguish", "--merge"], &files[..]].concat());
    assert!(ok, "{err}");
    assert_eq!(again, whole);
    let (ok, again, err) = pomset(
        &dir,
        &[&["distinguish", "--merge", "w.jsonl"], &files[..]].concat(),
    );
    assert!(ok, "{err}");
    assert_eq!(again, whole);
    for f in ["F1-1.litmus", "F2-1.litmus"] {
        let a = std::fs::read_to_string(dir.join("whole").join(f)).expect("written");
        let b = std::fs::read_to_string(dir.join("merged").join(f)).expect("written");
        assert_eq!(a, b);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resumed_sweep_decides_only_what_is_missing() {
    let dir = scratch("resume");
    let args = ["distinguish", "--models", "sc,rc11", "--jsonl", "r.jsonl"];
    let (ok, whole, err) = pomset(&dir, &args);
    assert!(ok, "{err}");
    let path = dir.join("r.jsonl");
    let text = std::fs::read_to_string(&path).expect("written");
    let lines: Vec<&str> = text.lines().collect();
    // Keep half the records and a partial line, as a sweep killed mid-write leaves.
    let cut = lines.len() / 2;
    let mut stopped = lines[..cut].join("\n");
    stopped.push_str("\n{\"id\":\"x := 1;\",\"si");
    std::fs::write(&path, stopped).expect("written");
    let (ok, resumed, err) = pomset(&dir, &args);
    assert!(ok, "{err}");
    assert_eq!(resumed, whole);
    let again = std::fs::read_to_string(&path).expect("written");
    let read = shard::read("r.jsonl", &again).expect("records");
    let ids: HashSet<&String> = read.records.iter().map(|r: &Record| &r.id).collect();
    assert_eq!(ids.len(), read.records.len(), "a program recorded twice");
    // The header, the records, and the end line of a sweep that went through.
    assert_eq!(read.records.len(), lines.len() - 2);
    assert!(read.finished);
    // Another sweep's file is refused, not appended to.
    let (ok, _, err) = pomset(
        &dir,
        &["distinguish", "--models", "rc11,pwt", "--jsonl", "r.jsonl"],
    );
    assert!(!ok);
    assert!(err.contains("another sweep"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_record_is_located() {
    let header = shard::header_line(&shard::Header {
        models: ["sc".to_string(), "rc11".to_string()],
        space: tiny().describe(),
        shard: "0/1".to_string(),
        programs: None,
        order: None,
    });
    let e = shard::read("f.jsonl", &format!("{header}\n{{\"id\": 3}}\n")).expect_err("broken");
    assert!(e.starts_with("f.jsonl:2: not a record"), "{e}");
    let e = shard::read("f.jsonl", "not json\n").expect_err("broken");
    assert!(e.starts_with("f.jsonl:1:"), "{e}");
}

#[test]
fn the_pwt_ptx_mapping_tells_apart_the_release_sequence_shape_of_c59() {
    // C59 in the sweep's vocabulary (its x := 3 becomes x := 2): the RMW's
    // release does not carry P0's release to P1's later relaxed write
    // under PTX, and does under the pomset semantics (c7a = closure).
    let space = Space::c59_bound();
    let shape = canonical(
        &space,
        &shape_of(
            &space,
            &[
                "y := 1; x.rel := 1;",
                "r0 := FADD.rlx.rel(x, 1); x := 2;",
                "r0 := x.acq; r1 := y;",
            ],
        ),
    );
    let pair = Pair::mapping("pwt:ptx").expect("a mapping");
    let r = pomset::distinguish::record(&space, &pair, &shape);
    assert_eq!(r.verdict, "differs", "{r:?}");
    let only = r.only.clone().unwrap_or_default();
    assert!(
        only[0].is_empty(),
        "pwt allows nothing PTX forbids here: {r:?}"
    );
    assert!(
        only[1]
            .iter()
            .any(|s| s.contains("= 1") && s.contains("= 2")),
        "{r:?}"
    );
    assert_eq!(r.minimal.as_deref(), Some("yes"), "{r:?}");
}

#[test]
fn a_scope_tree_keeps_every_thread_it_names() {
    // The tree names P0 and P1: every program has both (a removal leaves
    // `skip;`), so none is refused for a missing thread.
    let space = Space {
        vocabulary: Vocabulary {
            scope_tree: Some("gpu { cta { P0 } cta { P1 } }".to_string()),
            ..Vocabulary::default()
        },
        ..tiny()
    };
    assert!(programs(&space).all(|s| s.threads.len() == 2));
    let (_, m, records) = run(&space, "sc", "ptx");
    let undecided: Vec<&Record> = records
        .values()
        .filter(|r| r.verdict == "undecided")
        .collect();
    assert!(undecided.is_empty(), "{undecided:?}");
    let tests = shard::tests(&m);
    assert!(
        tests.iter().any(|t| t.record.id == SB),
        "{:?}",
        tests.iter().map(|t| &t.record.id).collect::<Vec<_>>()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The count Burnside's lemma gives is the number of programs listed,
    /// over spaces with every symmetry on or off.
    #[test]
    fn the_count_of_programs_is_the_number_listed(
        threads_n in 1usize..=3,
        per_thread in 1usize..=2,
        spare in 0usize..=2,
        locations in 1u8..=3,
        values in 2u8..=4,
        modes in prop::sample::subsequence(vec![Mode::Wk, Mode::Rlx, Mode::Acq, Mode::Rel, Mode::Sc], 1..=2),
        fences in any::<bool>(),
        rmws in prop::sample::subsequence(vec![Kind::Fadd, Kind::Exchg], 0..=1),
        deps in prop::sample::subsequence(vec![Dep::Data, Dep::Ctrl], 0..=1),
        tree in any::<bool>(),
    ) {
        let total = (threads_n * per_thread).saturating_sub(spare).max(1);
        let scope_tree = (tree && threads_n == 2).then(|| "gpu { cta { P0 } cta { P1 } }".to_string());
        let space = Space {
            bound: Bound { threads: threads_n, per_thread, total, locations, values },
            vocabulary: Vocabulary { modes, fences, rmws, deps, scope_tree, ..Vocabulary::default() },
        };
        // Keep the listing quick: skip the largest spaces.
        prop_assume!(threads(&space).len() <= 400 || threads_n < 3);
        prop_assume!(threads(&space).len() <= 4000);
        let listed = programs(&space).count() as u64;
        prop_assert_eq!(pomset::distinguish::count::programs(&space), Some(listed), "{}", space.describe());
    }
}

#[test]
fn the_count_of_a_large_space_is_exact_and_instant() {
    // The book's three threads of two accesses, total 5, with fences: its
    // count is the table's, without listing 219 507 programs.
    let space = Space {
        bound: Bound {
            threads: 3,
            per_thread: 2,
            total: 5,
            locations: 2,
            values: 2,
        },
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel, Mode::Sc],
            fences: true,
            ..Vocabulary::default()
        },
    };
    assert_eq!(pomset::distinguish::count::programs(&space), Some(219_507));
    assert_eq!(pomset::distinguish::count::programs(&tiny()), Some(120));
}

/// The records of `text` (a file of records), which must read.
fn records_of(dir: &Path, file: &str) -> shard::Read {
    let text = std::fs::read_to_string(dir.join(file)).expect("written");
    shard::read(file, &text).expect("records")
}

#[test]
fn a_spent_budget_stops_the_sweep_resumably() {
    let dir = scratch("budget");
    let (ok, whole, err) = pomset(&dir, &["distinguish", "--models", "sc,rc11"]);
    assert!(ok, "{err}");
    let args = ["distinguish", "--models", "sc,rc11", "--budget", "0"];
    // Without --jsonl the records so far go to a new file, named in the
    // command that resumes.
    let (ok, out, err) = pomset(&dir, &args);
    assert!(!ok, "a stopped sweep exits 1: {out}");
    assert!(
        out.contains("INCOMPLETE: stopped by --budget 0 after 0 of 120 programs"),
        "{out}"
    );
    assert!(
        err.contains("distinguish --models sc,rc11 --budget 0 --jsonl distinguish.jsonl"),
        "{err}"
    );
    let read = records_of(&dir, "distinguish.jsonl");
    assert!(!read.finished);
    assert_eq!(read.header.programs, Some(120));
    // The file merges as a stopped sweep's: loudly, exit 1 unless --partial.
    let (ok, _, err) = pomset(&dir, &["distinguish", "--merge", "distinguish.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("distinguish.jsonl (shard 0/1) was stopped after 0 of 120 programs"),
        "{err}"
    );
    let with = |budget: &str| {
        [
            "distinguish",
            "--models",
            "sc,rc11",
            "--budget",
            budget,
            "--jsonl",
            "distinguish.jsonl",
        ]
        .map(str::to_string)
    };
    let (ok, _, _) = pomset(&dir, &with("0").each_ref().map(String::as_str));
    assert!(!ok);
    // Resumed with time enough, it is the whole run, and its file says so.
    let (ok, resumed, err) = pomset(&dir, &with("1000").each_ref().map(String::as_str));
    assert!(ok, "{err}");
    assert_eq!(resumed, whole);
    assert!(records_of(&dir, "distinguish.jsonl").finished);
    let (ok, merged, err) = pomset(&dir, &["distinguish", "--merge", "distinguish.jsonl"]);
    assert!(ok, "{err}");
    assert_eq!(merged, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_the_sweep_and_keeps_what_it_decided() {
    let dir = scratch("sigint");
    // A sweep of minutes: it is surely running when the signal comes.
    let stopped = crate::interrupt::ctrl_c_after_a_record(
        &dir,
        &[
            "distinguish",
            "--models",
            "rc11,pwt",
            "--threads",
            "3",
            "--total",
            "5",
            "--modes",
            "rlx,acq,rel,sc",
            "--fences",
            "--jsonl",
            "c.jsonl",
        ],
        "c.jsonl",
        "the sweep",
    );
    let (stdout, stderr) = (&stopped.stdout, &stopped.stderr);
    assert_eq!(stopped.code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("INCOMPLETE: stopped by Ctrl-C after "),
        "{stdout}"
    );
    assert!(stdout.contains(" of 219507 programs"), "{stdout}");
    assert!(stderr.contains("resume with"), "{stderr}");
    assert!(stderr.contains("--jsonl c.jsonl"), "{stderr}");
    // What it wrote is resumable: whole records, no end line, and none of
    // them an interruption read as a verdict.
    let read = records_of(&dir, "c.jsonl");
    assert!(!read.finished);
    assert!(!read.records.is_empty());
    for r in &read.records {
        let why = r.why.as_deref().unwrap_or("");
        assert!(!why.contains("interrupted"), "{r:?}");
        assert!(
            !r.minimal.as_deref().unwrap_or("").contains("interrupted"),
            "{r:?}"
        );
    }
    let (ok, _, err) = pomset(&dir, &["distinguish", "--merge", "c.jsonl"]);
    assert!(!ok);
    assert!(
        err.contains("c.jsonl (shard 0/1) was stopped after"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_books_gnu_parallel_recipe_equals_one_run() {
    let has = Command::new("sh")
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
        Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/distinguish.md"),
    )
    .expect("the chapter");
    let (_, after) = book
        .split_once("<!-- tests/it/distinguish.rs runs this recipe -->")
        .expect("the recipe's marker");
    let recipe = after
        .split_once("```sh\n")
        .and_then(|(_, b)| b.split_once("```"))
        .map(|(b, _)| b)
        .expect("the recipe's block");
    // The sweep the shards run: the flags between `distinguish` and `--shard`.
    let sweep = recipe
        .split_once("pomset distinguish")
        .and_then(|(_, rest)| rest.split_once("--shard"))
        .map(|(flags, _)| flags.trim())
        .expect("a sharded sweep");
    let dir = scratch("parallel");
    let bin = Path::new(env!("CARGO_BIN_EXE_pomset"))
        .parent()
        .expect("a directory");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |script: &str| {
        let out = Command::new("sh")
            .args(["-e", "-c", script])
            .env("PATH", &path)
            .current_dir(&dir)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("sh runs");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{script}\n{err}");
    };
    sh(recipe);
    sh(&format!("pomset distinguish {sweep} --out whole"));
    let files = |d: &str| -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(dir.join(d))
            .expect("written")
            .map(|e| {
                let p = e.expect("an entry").path();
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                (name, std::fs::read_to_string(&p).expect("readable"))
            })
            .collect();
        out.sort();
        out
    };
    let (found, whole) = (files("found"), files("whole"));
    assert!(found.iter().any(|(n, _)| n == "summary.txt"));
    assert!(found.len() > 1, "minimal tests written: {found:?}");
    assert_eq!(found, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The syntax tree a sweep decides (`Shape::file`, built without text) is
/// the one its litmus text parses to, and checks to the same program: for
/// every program of spaces that use every construct (each mode, scope,
/// fence, read-modify-write and dependency), and each of its weakenings,
/// so the two can never drift apart.
#[test]
fn a_program_built_directly_is_its_text_parsed() {
    use pomset::syntax::ast::Scope;
    let space = |[threads, per_thread, total]: [usize; 3],
                 values,
                 modes: &[Mode],
                 scopes: &[Scope],
                 fences,
                 rmws: &[Kind],
                 deps: &[Dep]| Space {
        bound: Bound {
            threads,
            per_thread,
            total,
            locations: 2,
            values,
        },
        vocabulary: Vocabulary {
            modes: modes.to_vec(),
            scopes: scopes.to_vec(),
            fences,
            rmws: rmws.to_vec(),
            deps: deps.to_vec(),
            scope_tree: None,
        },
    };
    let (rmws, deps) = ([Kind::Fadd, Kind::Exchg], [Dep::Data, Dep::Ctrl]);
    let spaces = [
        tiny(),
        space([1, 1, 1], 3, &Mode::ALL, &Scope::ALL, true, &rmws, &deps),
        space(
            [1, 2, 2],
            2,
            &[Mode::Rlx, Mode::Acq, Mode::Rel],
            &[Scope::Cta, Scope::Sys],
            true,
            &rmws,
            &deps,
        ),
        space(
            [2, 2, 3],
            2,
            &[Mode::Rlx, Mode::Sc],
            &[Scope::Sys],
            false,
            &[Kind::Fadd],
            &deps,
        ),
    ];
    let mut n = 0;
    for space in &spaces {
        for shape in programs(space) {
            let weakened = minimal::weakenings(space, &shape)
                .into_iter()
                .map(|(_, w)| w);
            for s in std::iter::once(shape.clone()).chain(weakened) {
                let text = s.litmus("P", space);
                let built = s.file("P", space);
                let Ok(parsed) = pomset::syntax::parse_file(&text) else {
                    // No thread left: the sweep parses the text, as before.
                    assert!(s.threads.is_empty() && built.is_none(), "{text}");
                    continue;
                };
                let built = built.expect("no scope tree, a thread");
                assert_eq!(built, parsed, "{text}");
                let check = |f| pomset::syntax::check::check(f).map(|(p, _)| p);
                assert_eq!(check(&built), check(&parsed), "{text}");
                n += 1;
            }
        }
    }
    assert!(n > 10_000, "{n} programs compared");
}

/// A vocabulary with every mode on a chain, fences, both RMWs and both
/// dependencies: what the mode lattice's property is checked over.
fn every_mode() -> Space {
    Space {
        bound: Bound {
            threads: 3,
            per_thread: 2,
            total: 4,
            locations: 2,
            values: 3,
        },
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel, Mode::Sc],
            fences: true,
            rmws: vec![Kind::Fadd, Kind::Exchg],
            deps: vec![Dep::Data, Dep::Ctrl],
            ..Vocabulary::default()
        },
    }
}

/// A program of `space`'s accesses (not necessarily canonical): threads of
/// indices into `space.ops()`, each access after a read with a dependency
/// chosen by `dep` when it can carry one.
fn built(space: &Space, threads: &[Vec<(usize, u8)>]) -> Shape {
    let ops = space.ops();
    let threads = threads
        .iter()
        .map(|t| {
            let mut after_read = false;
            t.iter()
                .map(|&(i, dep)| {
                    let mut op = ops[i % ops.len()];
                    if after_read {
                        op.dep = match dep % 3 {
                            1 => Dep::Ctrl,
                            2 if op.kind == Kind::Write && op.val == 1 => Dep::Data,
                            _ => Dep::None,
                        };
                    }
                    after_read |= op.kind.reads();
                    op
                })
                .collect()
        })
        .collect();
    Shape { threads }
}

/// The bundled models `names`, then the targets of the mappings `pwt:ptx`
/// and `pwt:vulkan` (named by the mapping, the engine as `engine::named`
/// gives it), with the two mappings' pairs.
#[allow(clippy::type_complexity)]
fn engines_and_mappings(
    names: &[&str],
) -> (
    Vec<(String, Box<dyn pomset::engine::Engine>)>,
    Vec<(&'static str, Pair)>,
) {
    let mut engines: Vec<(String, Box<dyn pomset::engine::Engine>)> = names
        .iter()
        .map(|n| {
            (
                n.to_string(),
                pomset::engine::named(n).expect("a bundled model"),
            )
        })
        .collect();
    let mut mappings = Vec::new();
    for m in ["pwt:ptx", "pwt:vulkan"] {
        let pair = Pair::mapping(m).expect("a bundled mapping");
        engines.push((
            m.to_string(),
            pomset::engine::named(&pair.names[1]).expect("a bundled model"),
        ));
        mappings.push((m, pair));
    }
    (engines, mappings)
}

/// A model's final states of `s`, the determined ones only, and whether it
/// raised a flag; `None` when it gave no complete answer.
fn determined(
    engine: &dyn pomset::engine::Engine,
    space: &Space,
    s: &Shape,
) -> Option<(BTreeSet<Vec<i64>>, bool)> {
    let (states, flagged) = every_state(engine, space, s)?;
    let determined = states
        .into_iter()
        .filter_map(|st| st.into_iter().collect::<Option<Vec<i64>>>())
        .collect();
    Some((determined, flagged))
}

/// A model's final states of `s`, those with a `?` value included, as
/// values, and whether it raised a flag; `None` when it gave no complete
/// answer.
fn every_state(
    engine: &dyn pomset::engine::Engine,
    space: &Space,
    s: &Shape,
) -> Option<(BTreeSet<Vec<Option<i64>>>, bool)> {
    let file = s.file("P", space)?;
    let (p, _) = pomset::syntax::check::check(&file).ok()?;
    if !p.values_left.is_empty() {
        return None;
    }
    let o = engine
        .outcomes(&p, &p.model, pomset::outcome::Limits::default())
        .ok()?;
    if o.limit.is_some() || !o.notes.is_empty() {
        return None;
    }
    let states = o
        .states
        .keys()
        .map(|st| st.regs.iter().chain(&st.mem).map(|(_, v)| *v).collect())
        .collect();
    Some((states, !o.flags.is_empty()))
}

proptest! {
    // A program with no mode to strengthen (fences, sc only) is rejected:
    // about one in twelve, so rejects may run past proptest's default.
    #![proptest_config(ProptestConfig { max_global_rejects: 1 << 20, ..ProptestConfig::with_cases(64) })]

    /// What `Capability::StrongerModes` declares, checked on every engine
    /// that declares it (the bundled models and the two mappings' lowered
    /// targets): strengthening one mode one step never adds a determined
    /// final state, and never raises a flag the weaker program does not;
    /// and for an engine declaring `Capability::ModeBlind` (sc), changes no
    /// determined state and no flag; and for an engine declaring
    /// `Capability::StrongerModesEveryState` (pwt), adds no state at all,
    /// those with a `?` value included.
    #[test]
    fn a_stronger_mode_adds_no_determined_state_and_no_flag(
        accesses in prop::collection::vec((0usize..1000, 0u8..3, 0usize..3), 1..=3),
        pick in any::<prop::sample::Index>(),
    ) {
        use pomset::distinguish::lattice;
        use pomset::engine::Capability;
        let space = every_mode();
        // Up to three accesses, each in one of up to three threads.
        let mut threads: Vec<Vec<(usize, u8)>> = vec![Vec::new(); 3];
        for &(op, dep, t) in &accesses {
            threads[t].push((op, dep));
        }
        threads.retain(|t| !t.is_empty());
        let weak = built(&space, &threads);
        let c = lattice::coordinates(&space, &weak);
        let mut at = lattice::position(&weak, &c);
        let movable: Vec<usize> = (0..c.len()).filter(|&k| at[k] + 1 < lattice::chain_len(&c[k])).collect();
        prop_assume!(!movable.is_empty());
        let k = movable[pick.index(movable.len())];
        at[k] += 1;
        let strong = lattice::at(&weak, &c, &at);
        let (engines, mappings) = engines_and_mappings(&["sc", "pwt", "rc11", "ptx", "vulkan", "hrf-direct", "hrf-indirect", "sc-axiomatic"]);
        for (m, pair) in &mappings {
            prop_assert!(pair.engine(1).can(Capability::StrongerModes), "{m}'s target");
        }
        let (mut compared, mut blind, mut every) = (0, 0, 0);
        for (name, engine) in &engines {
            prop_assert!(engine.can(Capability::StrongerModes), "{name} declares it");
            prop_assert_eq!(engine.can(Capability::StrongerModesEveryState), name == "pwt", "{} declares every state", name);
            let (Some((w, wflag)), Some((s, sflag))) = (determined(engine.as_ref(), &space, &weak), determined(engine.as_ref(), &space, &strong)) else { continue };
            compared += 1;
            prop_assert!(s.is_subset(&w), "{name}: {} allows a determined state {} does not", strong.body(), weak.body());
            prop_assert!(wflag || !sflag, "{name}: {} raises a flag {} does not", strong.body(), weak.body());
            if engine.can(Capability::StrongerModesEveryState) {
                let (Some((w, _)), Some((s, _))) = (every_state(engine.as_ref(), &space, &weak), every_state(engine.as_ref(), &space, &strong)) else { continue };
                prop_assert!(s.is_subset(&w), "{name}: {} allows a state {} does not", strong.body(), weak.body());
                every += 1;
            }
            if engine.can(Capability::ModeBlind) {
                blind += 1;
                prop_assert!(s == w && sflag == wflag, "{name} declares itself blind to modes, but {} and {} differ", strong.body(), weak.body());
            }
        }
        // sc is blind to modes: checked whenever it decides the program
        // (not when a register may be read before it is written).
        let sc = pomset::engine::named("sc").expect("sc");
        prop_assert!(blind > 0 || determined(sc.as_ref(), &space, &weak).is_none(), "sc decided {} but was not compared", weak.body());
        // Some engine decides every such program: never vacuous.
        prop_assert!(compared > 0, "no engine decided {}", weak.body());
        // pwt compares every state wherever it decides both programs.
        prop_assert!(every <= compared);
    }
}

proptest! {
    /// What `Capability::IncludesSc` declares, checked on every engine that
    /// declares it: every final state of the `sc` engine is among the
    /// model's determined states, unless the model flags the program (or
    /// stops at a limit). Programs of up to four accesses in up to three
    /// threads, with every mode (`wk` too), fences, RMWs and dependencies.
    /// `SC_FLOOR_SURVEY=1` also tries the models that do not declare it and
    /// prints each state they miss (a survey, not a pass/fail check).
    #[test]
    fn a_model_that_includes_sc_allows_every_interleavings_state(
        accesses in prop::collection::vec((0usize..1000, 0u8..3, 0usize..3), 1..=4),
    ) {
        use pomset::engine::Capability;
        let mut space = every_mode();
        space.vocabulary.modes.push(Mode::Wk);
        let mut threads: Vec<Vec<(usize, u8)>> = vec![Vec::new(); 3];
        for &(op, dep, t) in &accesses {
            threads[t].push((op, dep));
        }
        threads.retain(|t| !t.is_empty());
        let s = built(&space, &threads);
        let sc = pomset::engine::named("sc").expect("sc");
        let Some((floor, false)) = determined(sc.as_ref(), &space, &s) else {
            return Ok(());
        };
        let (engines, mappings) = engines_and_mappings(&["pwt", "rc11", "ptx", "vulkan", "hrf-direct", "hrf-indirect", "sc-axiomatic"]);
        for (m, pair) in &mappings {
            let target = pomset::engine::named(&pair.names[1]).expect("a bundled model");
            prop_assert_eq!(pair.engine(1).can(Capability::IncludesSc), target.can(Capability::IncludesSc), "{}'s target", m);
        }
        let survey = std::env::var("SC_FLOOR_SURVEY").is_ok();
        let mut compared = 0;
        for (name, engine) in &engines {
            let declares = engine.can(Capability::IncludesSc);
            if !survey && !declares {
                continue;
            }
            let Some((states, flagged)) = determined(engine.as_ref(), &space, &s) else { continue };
            if flagged {
                continue;
            }
            compared += usize::from(declares);
            if !floor.is_subset(&states) {
                if declares {
                    prop_assert!(false, "{name} misses an interleaving's state of {}", s.body());
                }
                eprintln!("SURVEY {name} misses {}", s.body());
            }
        }
        // pwt decides every program sc does here: never vacuous.
        prop_assert!(compared > 0, "no engine that includes SC decided {}", s.body());
    }
}

proptest! {
    /// `axiomatic::Found`, what a sweep decides a skeleton's mode variants
    /// by: for random programs without a control dependency (up to four
    /// accesses in up to three threads, every mode, fences, both RMWs, data
    /// dependencies), what each cat engine declaring
    /// `Capability::StrongerModes` found for the skeleton (every coordinate
    /// at its weakest), judged again with a variant's modes, gives exactly
    /// the variant's own outcomes: every state with its flags, the notes.
    #[test]
    fn a_skeletons_candidates_judged_again_give_each_variants_outcomes(
        accesses in prop::collection::vec((0usize..1000, 0usize..3), 1..=4),
        modes in prop::collection::vec(0usize..3, 8),
    ) {
        use pomset::distinguish::lattice;
        use pomset::engine::Capability;
        let space = every_mode();
        let mut threads: Vec<Vec<(usize, u8)>> = vec![Vec::new(); 3];
        for &(op, t) in &accesses {
            threads[t].push((op, 2));
        }
        threads.retain(|t| !t.is_empty());
        let weakest = lattice::skeleton(&space, &built(&space, &threads));
        let c = lattice::coordinates(&space, &weakest);
        let at: Vec<usize> = c.iter().zip(&modes).map(|(c, m)| m % lattice::chain_len(c)).collect();
        let variant = lattice::at(&weakest, &c, &at);
        let program = |s: &Shape| {
            let file = s.file("P", &space)?;
            let (p, _) = pomset::syntax::check::check(&file).ok()?;
            p.values_left.is_empty().then_some(p)
        };
        let (Some(w), Some(v)) = (program(&weakest), program(&variant)) else { return Ok(()) };
        let (mut engines, mappings) = engines_and_mappings(&["rc11", "ptx", "vulkan", "hrf-direct", "hrf-indirect", "sc-axiomatic"]);
        // The mappings' targets as the pair lowers them, not as named.
        engines.truncate(engines.len() - mappings.len());
        let mut all: Vec<(&str, &dyn pomset::engine::Engine)> = engines.iter().map(|(n, e)| (n.as_str(), e.as_ref())).collect();
        for (m, pair) in &mappings {
            all.push((m, pair.engine(1)));
        }
        let limits = pomset::outcome::Limits { symmetry: false, ..Default::default() };
        let mut compared = 0;
        for (name, engine) in all {
            prop_assert!(engine.can(Capability::StrongerModes), "{name}");
            let Some(Ok(found)) = engine.found(&w, limits) else { continue };
            let Ok(own) = engine.outcomes(&v, &v.model, limits) else { continue };
            if own.limit.is_some() {
                continue;
            }
            let Some(by) = found.outcomes(&v, &limits) else { continue };
            let by = by.map_err(TestCaseError::fail)?;
            let states = |o: &pomset::outcome::Outcomes| o.states.keys().cloned().collect::<BTreeSet<_>>();
            let flags = |o: &pomset::outcome::Outcomes| o.flags.iter().map(|(f, _)| f.clone()).collect::<BTreeSet<_>>();
            prop_assert_eq!(states(&by), states(&own), "{}: {} from {}", name, variant.body(), weakest.body());
            prop_assert_eq!(flags(&by), flags(&own), "{}: flags of {}", name, variant.body());
            prop_assert_eq!(&by.notes, &own.notes, "{}: notes of {}", name, variant.body());
            compared += 1;
        }
        // rc11 decides every such program: never vacuous.
        prop_assert!(compared > 0, "nothing compared for {}", variant.body());
    }
}

/// Two threads of at most two accesses, three in all, over two locations
/// and the values 0 and 1, in `vocabulary`.
fn three_accesses(vocabulary: Vocabulary) -> Space {
    Space {
        bound: Bound {
            threads: 2,
            per_thread: 2,
            total: 3,
            locations: 2,
            values: 2,
        },
        vocabulary,
    }
}

/// The mode lattice changes no record: sweeps with it and without it give
/// the same records, and it answers some programs without deciding them.
#[test]
fn the_mode_lattice_changes_no_record() {
    let space = three_accesses(Vocabulary {
        modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel],
        rmws: vec![Kind::Fadd],
        ..Vocabulary::default()
    });
    for (a, b) in [("sc", "rc11"), ("rc11", "pwt"), ("pwt", "ptx")] {
        let records = |lattice: bool| {
            let mut pair = Pair::named(a, b).expect("bundled models");
            pair.lattice = lattice;
            let mut out = Vec::new();
            sweep(&space, &pair, Shard::WHOLE, &HashSet::new(), &mut |_, r| {
                out.push(shard::record_line(&r))
            });
            out.sort();
            let runs = pair.decided.load(std::sync::atomic::Ordering::Relaxed);
            let inferred = pair.inferred.load(std::sync::atomic::Ordering::Relaxed);
            (out, runs, inferred)
        };
        let (with, runs, inferred) = records(true);
        let (without, runs_without, none) = records(false);
        assert_eq!(with, without, "{a} vs {b}");
        assert_eq!(none, 0, "{a} vs {b}: nothing inferred without the lattice");
        assert!(
            inferred * 2 > with.len() as u64,
            "{a} vs {b}: {inferred} of {} inferred",
            with.len()
        );
        assert!(
            runs * 2 < runs_without,
            "{a} vs {b}: {runs} engine runs with the lattice, {runs_without} without"
        );
    }
}

/// A skeleton's programs are listed together, and a shard holds whole
/// skeletons: every program of a group has the group's canonical skeleton,
/// no skeleton is in two groups, and the groups are the programs.
#[test]
fn a_skeletons_programs_are_listed_together() {
    use pomset::distinguish::{enumerate, lattice};
    let space = three_accesses(Vocabulary {
        modes: vec![Mode::Wk, Mode::Rlx, Mode::Acq, Mode::Rel, Mode::Sc],
        fences: true,
        rmws: vec![Kind::Exchg],
        ..Vocabulary::default()
    });
    let mut skeletons = HashSet::new();
    let mut listed = 0;
    for group in enumerate::groups(&space) {
        let key = canonical(&space, &lattice::skeleton(&space, &group[0]));
        assert!(
            skeletons.insert(key.body()),
            "{} begins a second group",
            key.body()
        );
        for s in &group {
            assert!(is_canonical(&space, s));
            assert_eq!(
                canonical(&space, &lattice::skeleton(&space, s)),
                key,
                "{}",
                s.body()
            );
        }
        listed += group.len();
    }
    // Each program's position in its group's frame is a variant of the
    // skeleton whose canonical form the program is (`Known::set_frames`).
    for skeleton in enumerate::skeletons(&space) {
        let c = lattice::coordinates(&space, &skeleton);
        for (s, p) in enumerate::framed_group(&space, &skeleton) {
            assert_eq!(canonical(&space, &lattice::at(&skeleton, &c, &p)), s);
        }
    }
    assert_eq!(
        Some(listed as u64),
        pomset::distinguish::count::programs(&space)
    );
    assert!(
        listed > 2 * skeletons.len(),
        "modes vary: {listed} programs, {} skeletons",
        skeletons.len()
    );
    let n = 3;
    let mut by_shard = 0;
    for k in 0..n {
        for group in (Shard { index: k, count: n }).groups(&space) {
            let key = canonical(&space, &lattice::skeleton(&space, &group[0]));
            assert!(skeletons.contains(&key.body()));
            by_shard += group.len();
        }
    }
    assert_eq!(by_shard, listed);
}

/// Shards cut by program (files of versions before the mode lattice) and
/// shards cut by skeleton hold different programs: merging the two, or
/// resuming one as the other, is refused, while a whole sweep's file is the
/// same either way.
#[test]
fn shards_cut_by_program_and_by_skeleton_do_not_mix() {
    let header = |shard: &str, order: Option<&str>| shard::Header {
        models: ["sc".to_string(), "rc11".to_string()],
        space: tiny().describe(),
        shard: shard.to_string(),
        programs: None,
        order: order.map(str::to_string),
    };
    let dir = scratch("cuts");
    let file = |name: &str, h: &shard::Header| {
        let text = format!("{}\n{}\n", shard::header_line(h), shard::end_line(0));
        std::fs::write(dir.join(name), text).expect("written");
        dir.join(name)
    };
    let (old, new) = (header("0/2", None), header("1/2", Some(shard::ORDER)));
    let e =
        shard::merge(&[file("old.jsonl", &old), file("new.jsonl", &new)]).expect_err("two cuts");
    assert!(e.contains("merge the shards of one version"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!old.same_sweep(&header("0/2", Some(shard::ORDER))));
    assert!(header("0/1", None).same_sweep(&header("0/1", Some(shard::ORDER))));
}

/// `--deps ctrl` puts a read under `if`: a later dependency must not read
/// its register, which that path may leave unassigned. Every thread of a
/// space with both dependencies is written, and each register it reads is
/// assigned before, outside any `if`.
#[test]
fn dependencies_never_read_a_register_an_if_may_leave_unassigned() {
    let vocabulary = Vocabulary::parse(
        &["rlx".to_string()],
        &["sys".to_string()],
        false,
        &["exchg".to_string()],
        &["data".to_string(), "ctrl".to_string()],
        None,
    )
    .expect("a vocabulary");
    let space = Space {
        bound: Bound {
            threads: 1,
            per_thread: 4,
            total: 4,
            locations: 2,
            values: 2,
        },
        vocabulary,
    };
    let (mut checked, mut after_a_guarded_read) = (0, 0);
    for t in threads(&space) {
        let guarded_read_then_dep = t.iter().enumerate().any(|(i, op)| {
            op.kind.reads() && op.dep == Dep::Ctrl && t[i + 1..].iter().any(|o| o.dep != Dep::None)
        });
        after_a_guarded_read += usize::from(guarded_read_then_dep);
        let text = Shape { threads: vec![t] }.litmus("T", &space);
        let body = text.lines().last().expect("a thread line");
        let (mut depth, mut sure) = (0, HashSet::new());
        let words: Vec<&str> = body.split_whitespace().collect();
        for (k, w) in words.iter().enumerate() {
            depth += w.matches('{').count();
            depth -= w.matches('}').count();
            let name = w.trim_matches(|c| "();".contains(c));
            if !(name.starts_with('r') && name[1..].parse::<u32>().is_ok()) {
                continue;
            }
            if words.get(k + 1) == Some(&":=") {
                if depth == 0 {
                    sure.insert(name.to_string());
                }
            } else {
                assert!(sure.contains(name), "{name} may be unassigned in: {body}");
            }
        }
        checked += 1;
    }
    assert!(checked > 1000, "{checked} threads");
    assert!(
        after_a_guarded_read > 0,
        "no thread puts a dependency after a guarded read"
    );
}
