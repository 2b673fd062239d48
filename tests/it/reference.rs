//! The reference engine (`pomset::engine::reference`) against hand derivations from
//! the note, and against the fast engine (`semantics::decide`) on the
//! bundled examples. State sets are compared as sets of printed states
//! (`P0:r=1 [x]=2`, `?` for undetermined).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use pomset::engine::pwt::decide;
use pomset::engine::reference;
use pomset::model::Model;
use pomset::outcome::{Outcomes, State};
use pomset::syntax::core::{Program, Stmt};
use pomset::syntax::{self, Litmus};

fn parse(src: &str) -> Litmus {
    syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)))
}

fn model_with(p: &Program, sets: &[(&str, &str)]) -> Model {
    let mut m = p.model;
    for (k, v) in sets {
        m.set(k, v).expect("a model option");
    }
    m
}

fn show(v: Option<i64>) -> String {
    v.map_or("?".to_string(), |v| v.to_string())
}

fn render(s: &State) -> String {
    let regs = s.regs.iter().map(|(n, v)| format!("{n}={}", show(*v)));
    let mem = s.mem.iter().map(|(n, v)| format!("[{n}]={}", show(*v)));
    regs.chain(mem).collect::<Vec<_>>().join(" ")
}

fn keys(o: &Outcomes) -> BTreeSet<String> {
    o.states.keys().map(render).collect()
}

fn run_reference(p: &Program, model: &Model, budget: Duration) -> Outcomes {
    let limits = reference::Limits {
        deadline: Some((Instant::now() + budget, budget.as_secs_f64())),
        ..reference::Limits::default()
    };
    reference::outcomes(p, model, limits).expect("the option is implemented")
}

fn run_fast(p: &Program, model: &Model) -> Outcomes {
    decide::outcomes(p, model, pomset::outcome::Limits::default())
        .expect("the option is implemented")
}

/// The reference engine's states of a litmus source, with some options set.
fn reference_states(src: &str, sets: &[(&str, &str)]) -> BTreeSet<String> {
    let t = parse(src);
    let m = model_with(&t.program, sets);
    let o = run_reference(&t.program, &m, Duration::from_secs(30));
    assert_eq!(o.limit, None, "{}", t.program.name);
    keys(&o)
}

fn set(states: &[&str]) -> BTreeSet<String> {
    states.iter().map(|s| s.to_string()).collect()
}

// ---- hand derivations ----

/// SB: each read may see the initial 0 or the other thread's 1 (nothing
/// orders a write before a later read of another location: no sync-delays,
/// no co-delays), or be dropped (R4c, rlx: R5a), leaving its register `?`.
/// Each location's ⊑-last write is the thread's: INIT's write co-delays it (s8a).
#[test]
fn sb_allows_every_combination() {
    let got = reference_states("litmus SB\nx := 1; r := y;\n|| y := 1; s := x;\n", &[]);
    let mut want = BTreeSet::new();
    for r in ["0", "1", "?"] {
        for s in ["0", "1", "?"] {
            want.insert(format!("P0:r={r} P1:s={s} [x]=1 [y]=1"));
        }
    }
    assert_eq!(got, want);
}

/// MP+rel+acq: Wx1 ≤ W^rel y (s7a: (a, W^⊒rel)), W^rel y ≤ R^acq y when it
/// reads it (c7a: they strongly match), R^acq y ≤ Rx (s7a: (R^⊒acq, b)), so
/// Wx1 ⊑ Rx (M8a). Rx reading INIT's 0 then breaks c8b both ways (INIT ⊑ Wx1
/// by s8a). The acquire read cannot be dropped (R5b), so r is never `?`.
#[test]
fn mp_with_release_and_acquire_forbids_the_stale_read() {
    let src = "litmus MP+rel+acq\nx := 1; y.rel := 1;\n|| r := y.acq; s := x;\n";
    let got = reference_states(src, &[]);
    let want = set(&[
        "P1:r=0 P1:s=0 [x]=1 [y]=1",
        "P1:r=0 P1:s=1 [x]=1 [y]=1",
        "P1:r=0 P1:s=? [x]=1 [y]=1",
        "P1:r=1 P1:s=1 [x]=1 [y]=1",
        "P1:r=1 P1:s=? [x]=1 [y]=1",
    ]);
    assert_eq!(got, want);
}

/// LB: the writes do not depend on the reads (κ = (1 = 1) is a tautology
/// with ↓e = ∅), so both reads may see 1: all nine combinations.
#[test]
fn lb_allows_both_reads_to_see_one() {
    let got = reference_states("litmus LB\nr := x; y := 1;\n|| s := y; x := 1;\n", &[]);
    assert_eq!(got.len(), 9);
    assert!(got.contains("P0:r=1 P1:s=1 [x]=1 [y]=1"));
    assert!(got.contains("P0:r=? P1:s=? [x]=1 [y]=1"));
}

/// LB+datas: κ(W y v) = τ^{↓e}(r = v) is a tautology only with the read in
/// ↓e and v its value (R4a); then rf ⊆ ⊴ (c6) closes a ⊴ cycle for any
/// value other than INIT's. Dropping a read leaves κ = (s = v) for a fresh
/// s, never a tautology, and dropping the write fails ✓ (w5b). No thin air.
#[test]
fn lb_with_data_dependencies_has_no_thin_air() {
    let got = reference_states(
        "litmus LB+datas\nr := x; y := r;\n|| s := y; x := s;\n",
        &[],
    );
    assert_eq!(got, set(&["P0:r=0 P1:s=0 [x]=0 [y]=0"]));
}

/// CoRR: the note's co-delays omit (Rx, Rx), so by default the two reads are
/// unordered and r = 1, s = 0 is allowed; with `co_delays_rr = on`, Rx1 ⊑ Rx0
/// and c8b fails both ways (Wx1 ⊑ Rx1 by c8a; INIT ⊑ Wx1 by s8a).
#[test]
fn corr_needs_read_read_coherence() {
    let src = "litmus CoRR\nx := 1;\n|| r := x; s := x;\n";
    let stale = "P1:r=1 P1:s=0 [x]=1";
    let loose = reference_states(src, &[]);
    assert_eq!(loose.len(), 9);
    assert!(loose.contains(stale));
    let strict = reference_states(src, &[("co_delays_rr", "on")]);
    assert_eq!(strict.len(), 8);
    assert!(!strict.contains(stale));
}

/// Two FADDs: neither RMW can be dropped (an absent read' takes its write
/// with it by U1, and an absent write fails ✓), and M9c keeps the other
/// RMW's write out from between a read and its write: no lost update.
#[test]
fn fadd_pair_loses_no_update() {
    let src = "litmus FADD2\nvalues {0,1,2}\nr := FADD(x, 1);\n|| s := FADD(x, 1);\n";
    let got = reference_states(src, &[]);
    assert_eq!(got, set(&["P0:r=0 P1:s=1 [x]=2", "P0:r=1 P1:s=0 [x]=2"]));
}

/// Two CASes from 0: exactly one succeeds; the other reads the winner's value.
#[test]
fn cas_pair_has_one_winner() {
    let src = "litmus CAS2\nvalues {0,1,2}\nr := CAS(x, 0, 1);\n|| s := CAS(x, 0, 2);\n";
    let got = reference_states(src, &[]);
    assert_eq!(got, set(&["P0:r=0 P1:s=1 [x]=1", "P0:r=2 P1:s=0 [x]=2"]));
}

/// A fork after a write: the write co-delays both reads (s8a applies to the
/// forked thread's events too: they are on SEQ's right), so reading INIT's
/// 0 breaks c8b; each read sees 1 or is dropped.
#[test]
fn a_fork_is_ordered_after_what_precedes_it() {
    let got = reference_states("litmus FORK\nx := 1; ( r := x; || s := x; )\n", &[]);
    let want = set(&[
        "P0:s=1 P1:r=1 [x]=1",
        "P0:s=1 P1:r=? [x]=1",
        "P0:s=? P1:r=1 [x]=1",
        "P0:s=? P1:r=? [x]=1",
    ]);
    assert_eq!(got, want);
}

/// An if whose branch holds a read: when r = 0 (or r is `?`), the read's
/// κ = (r = 1) ∧ Q_y (I3a) is no tautology, so the read must be absent and
/// s is `?`; when r = 1 it may read either value or be dropped.
#[test]
fn a_read_in_an_untaken_branch_is_dropped() {
    let src = "litmus IF-DROP\nr := x; if (r = 1) { s := y; }\n|| y := 1; x := 1;\n";
    let got = reference_states(src, &[]);
    let want = set(&[
        "P0:r=0 P0:s=? [x]=1 [y]=1",
        "P0:r=1 P0:s=0 [x]=1 [y]=1",
        "P0:r=1 P0:s=1 [x]=1 [y]=1",
        "P0:r=1 P0:s=? [x]=1 [y]=1",
        "P0:r=? P0:s=? [x]=1 [y]=1",
    ]);
    assert_eq!(got, want);
}

/// Issue 13, bug 1 (LOCMAX1): under SC `x:=1; r:=x; x:=2` and
/// `x:=2; r:=x; x:=1` end with r and [x] different; both are states.
#[test]
fn final_memory_keeps_every_last_write() {
    let src = "litmus LOCMAX1\nvalues {0,1,2}\nx := 1;\n|| x := 2;\n|| r := x;\n";
    let got = reference_states(src, &[]);
    let mut want = BTreeSet::new();
    for r in ["0", "1", "2", "?"] {
        for x in ["1", "2"] {
            want.insert(format!("P2:r={r} [x]={x}"));
        }
    }
    assert_eq!(got, want);
}

/// Issue 13, bug 2 (LB-ALIAS): coalesce the two reads of z and the two
/// writes of x (s1, I1); with ↓Wx1 = {Rz}, κ(Wx1) is a tautology and ⊴ is
/// acyclic, so r = 1 ∧ t = 1 is reachable.
#[test]
fn a_precondition_on_a_coalesced_read_is_tried() {
    let src = "litmus LB-ALIAS\nr := y; if (r = 1) { x := 1; s := z; } else { s := z; x := s; }\n\
               || t := x; y := t;\n|| z := 1;\n";
    let got = reference_states(src, &[]);
    assert!(
        got.contains("P0:r=1 P0:s=1 P1:t=1 [y]=1 [x]=1 [z]=1"),
        "{got:?}"
    );
}

/// Issue 13, bug 3 (ALIAS-CHAIN): all three reads of x coalesce (a chain).
#[test]
fn alias_chains_close() {
    let src = "litmus ALIAS-CHAIN\nx := 1;\n\
               || r := x; if (u = 1) { s := x; t := x; y := t; } else { s := r; y := r; }\n";
    let got = reference_states(src, &[]);
    assert!(
        got.contains("P1:r=1 P1:u=? P1:s=1 P1:t=? [x]=1 [y]=1"),
        "{got:?}"
    );
}

/// Issue 13, bug 4: register arithmetic is exact, outside V too.
#[test]
fn register_values_outside_v_are_found() {
    let src = "litmus OUTSIDE\nvalues {0, 1}\nr := 10; s := x + 5;\n";
    let got = reference_states(src, &[]);
    assert_eq!(got, set(&["P0:r=10 P0:s=5 [x]=0", "P0:r=10 P0:s=? [x]=0"]));
}

/// Issue 13, bug 6: a thread forked in an untaken branch never ran.
#[test]
fn a_fork_in_an_untaken_branch_leaves_its_registers_undetermined() {
    let src = "litmus UNTAKEN\nt := x; if (t = 1) { ( r := 1; || skip; ) }\n";
    let got = reference_states(src, &[]);
    assert_eq!(got, set(&["P0:t=0 P1:r=? [x]=0", "P0:t=? P1:r=? [x]=0"]));
}

/// `final = observer`: the observer's read of x may see either thread's
/// write (nothing orders the two writers; INIT's write is ⊑-before both and
/// co-delays the read, so c8b rules it out), or be dropped (rlx, R5a): `?`.
#[test]
fn the_observer_reads_any_coherence_maximal_write() {
    let src = "litmus OBS\nvalues {0,1,2}\nx := 1;\n|| x := 2;\n";
    let got = reference_states(src, &[("final", "observer")]);
    assert_eq!(got, set(&["[x]=1", "[x]=2", "[x]=?"]));
}

// ---- agreement with the fast engine ----

/// Access events a program can have: reads, writes and fences count one,
/// an RMW two.
fn accesses(s: &Stmt) -> usize {
    match s {
        Stmt::Read { .. } | Stmt::Write { .. } | Stmt::Fence { .. } | Stmt::Barrier { .. } => 1,
        Stmt::Vulkan { body, .. } => accesses(body),
        Stmt::Rmw { .. } => 2,
        Stmt::If { then, els, .. } => accesses(then) + accesses(els),
        Stmt::Seq(parts) => parts.iter().map(accesses).sum(),
        Stmt::Par { left, right, .. } => accesses(left) + accesses(right),
        Stmt::Skip | Stmt::Let { .. } | Stmt::Diverge { .. } => 0,
    }
}

/// The size limit for the agreement test: at most this many accesses
/// (INIT's writes not counted), so the test stays within seconds.
const MAX_ACCESSES: usize = 8;

fn small_examples() -> Vec<Litmus> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut out = Vec::new();
    for path in pomset::cli::litmus_files(&[root]).expect("examples/ is readable") {
        let src = std::fs::read_to_string(&path).expect("readable");
        let Ok(t) = syntax::parse(&src) else { continue };
        // The Vulkan extension has no pomset meaning (both engines refuse it).
        if t.program.vulkan_only().is_some() {
            continue;
        }
        let n: usize = t.program.main.iter().map(|(_, s)| accesses(s)).sum();
        if n <= MAX_ACCESSES && !t.program.main.is_empty() {
            out.push(t);
        }
    }
    out
}

/// Compares the two engines on one test under one model; returns a
/// description of the disagreement, if any, and whether the reference
/// finished.
fn compare(t: &Litmus, model: &Model) -> Result<bool, String> {
    let p = &t.program;
    let start = Instant::now();
    let r = run_reference(p, model, Duration::from_secs(20));
    if std::env::var_os("REFERENCE_TIMES").is_some() {
        eprintln!("{:>8.3}s {}", start.elapsed().as_secs_f64(), p.name);
    }
    if r.limit.is_some() {
        return Ok(false);
    }
    let (ours, theirs) = (keys(&r), keys(&run_fast(p, model)));
    if ours != theirs {
        let only_ref: Vec<_> = ours.difference(&theirs).collect();
        let only_fast: Vec<_> = theirs.difference(&ours).collect();
        return Err(format!(
            "{}: reference only {only_ref:?}; fast only {only_fast:?}",
            p.name
        ));
    }
    Ok(true)
}

#[test]
fn the_engines_agree_on_the_small_examples() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for t in small_examples() {
        let model = t.program.model;
        match compare(&t, &model) {
            Ok(true) => ran += 1,
            Ok(false) => {}
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} examples ran");
}

/// Options that change the candidate rules or the final state.
#[test]
fn the_engines_agree_under_other_options() {
    let settings: &[&[(&str, &str)]] = &[
        &[("final", "observer")],
        &[("c8b", "strong")],
        &[("orders", "single")],
        &[("c7a", "direct"), ("c8a", "strong")],
        &[("sc_order", "sec11"), ("co_delays_rr", "on")],
        &[("two_order", "on"), ("acyclic_union", "on")],
        &[("rfi_acq_weakening", "on"), ("c7a", "closure_rmw")],
        &[("init", "wk"), ("fence_match", "literal"), ("c7b", "off")],
    ];
    let names = [
        "MP+rel+acq",
        "SB+fences",
        "CoRR",
        "IRIW+acqs",
        "WRC+rel+acq",
        "2+2W+rels",
        "C06-MP-FENCES",
        "C21-RFI-COE-COE",
        "C35-IRIW-ACQ-SC1",
        "C43-MP-RA",
        "C19-RFI-BAD-EXCHG",
    ];
    let tests: Vec<Litmus> = small_examples()
        .into_iter()
        .filter(|t| {
            names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&t.program.name))
        })
        .collect();
    assert!(
        tests.len() >= 8,
        "found {} of the chosen examples",
        tests.len()
    );
    let mut failures = Vec::new();
    for sets in settings {
        for t in &tests {
            let model = model_with(&t.program, sets);
            if let Err(e) = compare(t, &model) {
                failures.push(format!("{sets:?} {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// §2 monotonicity, enumerated literally by the reference (every stronger
/// mode, and scope), against the fast engine, which argues that stronger
/// labels reach no new state and decides the labels as written. Small
/// tests only: each access multiplies the pomsets by its stronger modes.
/// `REFERENCE_LONG=1` adds the rest of the chosen examples.
#[test]
fn monotonicity_adds_no_state() {
    let mut names = vec!["MP", "SB", "CoRR", "LB"];
    if std::env::var_os("REFERENCE_LONG").is_some() {
        names.extend([
            "MP+rel+acq",
            "SB+fences",
            "2+2W+rels",
            "C06-MP-FENCES",
            "C43-MP-RA",
        ]);
    }
    let tests: Vec<Litmus> = small_examples()
        .into_iter()
        .filter(|t| {
            names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&t.program.name))
        })
        .collect();
    assert!(tests.len() >= 4);
    let mut failures = Vec::new();
    for value in ["modes", "modes_scopes"] {
        for t in &tests {
            let model = model_with(
                &t.program,
                &[("monotonicity", value), ("final", "observer")],
            );
            if let Err(e) = compare(t, &model) {
                failures.push(format!("monotonicity={value} {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The refused options are refused by the reference too (`merge = multi`,
/// which it does not model; `if_closure = on`, like `run`).
#[test]
fn multi_merge_and_if_closure_on_are_refused() {
    let t = parse("litmus X\nx := 1;\n");
    for (k, v) in [("merge", "multi"), ("if_closure", "on")] {
        let m = model_with(&t.program, &[(k, v)]);
        let r = reference::outcomes(&t.program, &m, reference::Limits::default());
        assert!(
            matches!(r, Err(pomset::outcome::Unsupported::Option(..))),
            "{k}={v}"
        );
    }
}

/// §2's binary merge, built by the reference in SEQ: `x := 1; r := x; x :=
/// 2` has more complete pomsets with the merge (the read merged into the
/// first write, the first write into the second), with the same states as
/// without it (a merge is a compiler's elimination: it adds no behaviour
/// here), and the fast engine finds those states too.
#[test]
fn binary_merge_adds_pomsets_but_no_state_here() {
    let t = parse(
        "litmus M\nvalues {0, 1, 2}\nx := 1; r := x; x := 2;\n|| s := x;\nexists (r = 1 /\\ s = 1)\n",
    );
    let off = model_with(&t.program, &[]);
    let binary = model_with(&t.program, &[("merge", "binary")]);
    let budget = Duration::from_secs(30);
    let (without, with) = (
        run_reference(&t.program, &off, budget),
        run_reference(&t.program, &binary, budget),
    );
    assert_eq!((without.limit.clone(), with.limit.clone()), (None, None));
    assert_eq!((without.witnesses, with.witnesses), (12, 22));
    assert_eq!(keys(&without), keys(&with));
    assert_eq!(keys(&with), keys(&run_fast(&t.program, &binary)));
}
