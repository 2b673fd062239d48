//! Regression tests for wrong verdicts found by hand (issue 13), one per bug,
//! each named after what it checks. Each asserts the verdict and, where it
//! matters, the exact set of final states.

use std::collections::BTreeSet;

use pomset::engine::pwt::decide::{outcomes, settle_conditions};
use pomset::engine::pwt::explain::explain;
use pomset::model::Model;
use pomset::outcome::verdict::{judge, judge_settled, Observation};
use pomset::outcome::{Limits, State};
use pomset::syntax::{self, Litmus};

fn parse(src: &str) -> Litmus {
    syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)))
}

/// The observation of each condition, in order.
fn observations(src: &str) -> Vec<Observation> {
    let t = parse(src);
    let p = &t.program;
    let model = Model::default();
    let o = outcomes(p, &model, Limits::default()).expect("decidable");
    assert_eq!(o.limit, None, "no limit on a tiny test");
    p.conditions
        .iter()
        .map(|c| judge(p, c, &o, &model).observation.expect("decided"))
        .collect()
}

/// Every final state, as `name=value` strings (`?` when undetermined).
fn states(src: &str) -> BTreeSet<String> {
    let t = parse(src);
    let o = outcomes(&t.program, &Model::default(), Limits::default()).expect("decidable");
    assert_eq!(o.limit, None);
    o.states.keys().map(show).collect()
}

fn show(s: &State) -> String {
    let v = |v: &Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
    let regs = s.regs.iter().map(|(n, x)| format!("{n}={}", v(x)));
    let mem = s.mem.iter().map(|(n, x)| format!("[{n}]={}", v(x)));
    regs.chain(mem).collect::<Vec<_>>().join(" ")
}

use Observation::{Never, Sometimes};

/// Bug 1: both orders of the two writes are possible finals whatever the
/// read saw (SC: `x:=1; r:=x; x:=2` and `x:=2; r:=x; x:=1`).
#[test]
fn final_memory_keeps_every_last_write() {
    let src = "litmus LOCMAX1
values {0,1,2}
x := 1;
|| x := 2;
|| r := x;
exists (P2:r = 1 /\\ [x] = 2)
exists (P2:r = 2 /\\ [x] = 1)
";
    assert_eq!(observations(src), vec![Sometimes, Sometimes]);
    let all = states(src);
    for r in ["?", "0", "1", "2"] {
        for x in ["1", "2"] {
            assert!(
                all.contains(&format!("P2:r={r} [x]={x}")),
                "P2:r={r} [x]={x} in {all:?}"
            );
        }
    }
}

/// Bug 1: swapping the writers' order changes no state.
#[test]
fn final_memory_does_not_depend_on_thread_order() {
    let a = "litmus A\nvalues {0,1,2}\nx := 1;\n|| x := 2;\n|| r := x;\nexists (r = 1)\n";
    let b = "litmus B\nvalues {0,1,2}\nx := 2;\n|| x := 1;\n|| r := x;\nexists (r = 1)\n";
    let rename = |s: String| s.replace("P2:", "");
    let sa: BTreeSet<String> = states(a).into_iter().map(rename).collect();
    let sb: BTreeSet<String> = states(b).into_iter().map(rename).collect();
    assert_eq!(sa, sb);
}

/// Bug 1: a lost update between two ctas, a condition on registers only:
/// the execution where both FADDs read 0 is not dropped for want of a
/// single last write.
#[test]
fn lost_update_across_ctas_keeps_its_registers() {
    let src = "litmus LOST
values {0, 1, 2}
scopes: gpu { cta { P0 } cta { P1 } }
r := FADD.ra.cta(x, 1);
|| s := FADD.ra.cta(x, 1);
exists (P0:r = 0 /\\ P1:s = 0)
";
    assert_eq!(observations(src), vec![Sometimes]);
}

/// Bug 2: a κ that depends on a read coalesced into another is tried with
/// the read's event: ↓Wx1 = {Rz} makes κ(Wx1) a tautology.
#[test]
fn dependency_on_a_coalesced_read_is_tried() {
    let src = "litmus LB-ALIAS
r := y; if (r = 1) { x := 1; s := z; } else { s := z; x := s; }
|| t := x; y := t;
|| z := 1;
exists (P0:r = 1 /\\ P1:t = 1)
";
    assert_eq!(observations(src), vec![Sometimes]);
    let swapped = src.replace("{ x := 1; s := z; }", "{ s := z; x := 1; }");
    assert_eq!(observations(&swapped), vec![Sometimes]);
}

/// Bug 3: three reads coalesce in a chain (t into s in the IF, s into r in
/// the SEQ); every symbol ends at the first read's.
#[test]
fn alias_chains_are_closed() {
    let src = "litmus ALIAS-CHAIN
x := 1;
|| r := x; if (u = 1) { s := x; t := x; y := t; } else { s := r; y := r; }
exists (P1:r = 1 /\\ P1:s = 1 /\\ [y] = 1)
";
    assert_eq!(observations(src), vec![Sometimes]);
}

/// Bug 4: register arithmetic is exact; values outside V are printed.
#[test]
fn register_values_outside_v_are_exact() {
    let src = "litmus REGS
values {0, 1}
r := 10; s := x + 5;
exists (r > 1 /\\ s > 1)
exists (r = 10 /\\ s = 5)
";
    assert_eq!(observations(src), vec![Sometimes, Sometimes]);
    let all = states(src);
    assert!(all.contains("P0:r=10 P0:s=5 [x]=0"), "{all:?}");
    assert!(all.iter().all(|s| s.contains("P0:r=10")), "{all:?}");
}

/// Bug 4: a value that does not depend on the undetermined read is still
/// determined: u = (r + 5) - r is 5 even when r's read was dropped.
#[test]
fn determined_arithmetic_on_an_undetermined_register() {
    let src = "litmus DET
values {0,1}
r := x; s := r + 5; u := s - r;
forall (u = 5)
";
    assert!(states(src).iter().all(|s| s.contains("P0:u=5")));
}

/// Bug 6: a thread forked in a branch that is not taken never runs: its
/// register stays undetermined when t = 0.
#[test]
fn fork_in_an_untaken_branch_does_not_run() {
    let src = "litmus FORK
t := x; if (t = 1) { ( r := 1; || skip; ) }
exists (P0:t = 0 /\\ P1:r = 1)
exists (P1:r = 1)
";
    assert_eq!(observations(src), vec![Never, Never]);
    let taken = "litmus FORK2
x := 1;
|| t := x; if (t = 1) { ( r := 1; || skip; ) }
exists (P1:t = 1 /\\ P2:r = 1)
";
    assert_eq!(observations(taken), vec![Sometimes]);
}

/// Bug 7: `?` is unknown, as SQL's NULL: `r ≠ 0` and `¬(r = 0)` agree.
#[test]
fn undetermined_registers_mean_one_thing_in_every_operator() {
    let src = "litmus QMARK
values {0,1}
x := 1;
|| r := x;
exists (r != 0 /\\ r != 1)
exists (~(r = 0) /\\ ~(r = 1))
exists (~(r = 0 \\/ r = 1))
exists (r = 0 \\/ r != 0)
";
    assert_eq!(observations(src), vec![Never, Never, Never, Sometimes]);
}

/// Bug 8: a CAS that cannot succeed (its expected value is outside V) is a
/// relaxed read: it reads every value a plain read does, and, as a relaxed
/// read may be (R4c, R5a), it may be dropped.
#[test]
fn cas_with_expected_value_outside_v_reads_like_a_read() {
    let cas = "litmus CAS\nvalues {0,1}\nx := 1;\n|| r := CAS(x, 0 - 1, 1);\nexists (r = 1)\n";
    let read = "litmus READ\nvalues {0,1}\nx := 1;\n|| r := x;\nexists (r = 1)\n";
    assert_eq!(states(cas), states(read));
    assert!(states(cas).contains("P1:r=1 [x]=1"));
}

/// `explain` agrees with `run` and never prints an empty list of reasons,
/// here where only the final memory rules the outcome out.
#[test]
fn explain_names_a_reason_when_only_memory_fails() {
    let src = "litmus MEM\nx := 1;\nexists ([x] = 0)\n";
    assert_eq!(observations(src), vec![Never]);
    let t = parse(src);
    let c = &t.program.conditions[0];
    let e = explain(&t.program, &Model::default(), &c.prop).expect("explains");
    assert!(!e.reachable);
    let reasons: Vec<&String> = e.lines.iter().filter(|l| l.starts_with("- ")).collect();
    assert!(!reasons.is_empty(), "{:?}", e.lines);
    assert!(reasons[0].contains("[x]=1"), "{:?}", e.lines);
}

/// Bug 7: past 1000 states, `run` lists the determined ones and counts the
/// states with `?`, instead of printing thousands of rows no one reads.
#[test]
fn long_state_lists_show_the_determined_states() {
    let src = "litmus MANY
locations { a; b; c; d; e; f; g }
a := 1; b := 1; c := 1; d := 1; e := 1; f := 1; g := 1;
|| r1 := a; r2 := b; r3 := c; r4 := d; r5 := e; r6 := f; r7 := g;
exists (r1 = 1)
";
    let t = parse(src);
    let model = Model::default();
    let o = outcomes(&t.program, &model, Limits::default()).expect("decidable");
    let total = o.states.len();
    let determined = o
        .states
        .keys()
        .filter(|s| s.regs.iter().chain(&s.mem).all(|(_, v)| v.is_some()))
        .count();
    assert!(total > pomset::report::SHOWN_STATES, "{total} states");
    let report = pomset::report::Report::new(&t.program, &model, &o, std::time::Duration::ZERO);
    let text = report.text(&t.program);
    let rows = text.lines().filter(|l| l.contains(":>")).count();
    assert_eq!(rows, determined);
    assert!(text.lines().all(|l| !l.contains(":>") || !l.contains('?')));
    let more = format!("{} more states not listed", total - determined);
    assert!(text.contains(&more), "{text}");
    let all = report.text_listing(&t.program, true);
    assert_eq!(all.lines().filter(|l| l.contains(":>")).count(), total);
}

/// The same FADD in both branches of an IF is one pair of events (I1: the
/// branches' events with equal labels are shared, and rmw stays a partial
/// function, M9), so, as with plain accesses (LB with a false dependency),
/// its write does not depend on the condition's read.
#[test]
fn an_rmw_in_both_branches_coalesces_like_plain_accesses() {
    let rmw = "litmus U1IF
r := y; if (r = 1) { s := FADD(x, 1); } else { s := FADD(x, 1); }
|| t := x; y := t;
exists (P0:r = 1 /\\ P1:t = 1)
";
    let plain = "litmus LBIF
r := y; if (r = 1) { s := x; x := s + 1; } else { s := x; x := s + 1; }
|| t := x; y := t;
exists (P0:r = 1 /\\ P1:t = 1)
";
    assert_eq!(observations(rmw), vec![Sometimes]);
    assert_eq!(observations(plain), vec![Sometimes]);
}

/// Two FADDs in sequence never share their read: coalescing the reads
/// without the writes would make rmw no function (M9), and coalescing both
/// closes a ⊑ cycle (s8a, M9b). No update is lost within one thread.
#[test]
fn sequential_fadds_do_not_share_a_read() {
    let src = "litmus FADD2
values {0, 1, 2}
r := FADD(x, 1); s := FADD(x, 1);
exists (r = 0 /\\ s = 0)
exists ([x] = 1)
";
    assert_eq!(observations(src), vec![Never, Never]);
}

/// Found by the differential test: with `monotonicity`, a weak read may
/// carry rlx and so be one event with a later rlx read of the same cell
/// (s1's coalescing needs equal labels). Strengthening adds constraints to
/// the candidate rules but can add states through coalescing, so the fast
/// engine may not prune it away.
#[test]
fn monotonicity_lets_strengthened_events_coalesce() {
    let src = "litmus MONO
values {0, 1}
locations { x @ 0 }
init { x = 1 }
( r0 := x.wk.gpu; r1 := [r0].rlx.gpu; || skip; )
exists (P1:r0 = 1 /\\ P1:r1 = 1)
";
    let t = parse(src);
    let p = &t.program;
    let judge_under = |m: &Model| {
        let o = outcomes(p, m, Limits::default()).expect("decidable");
        judge(p, &p.conditions[0], &o, m).observation
    };
    assert_eq!(judge_under(&Model::default()), Some(Never));
    let mut mono = Model::default();
    mono.set("monotonicity", "modes").expect("an option");
    assert_eq!(judge_under(&mono), Some(Sometimes));
}

/// Found by the differential test: M3a holds of every pomset, the inner ones
/// too. `r1 := [r0 + 1]` with r0 = 1 reads from no cell of V; its event on
/// x has κ = ff after the LET, so that inner pomset does not exist, and the
/// read of x in the condition cannot revive it by coalescing (κ1 ∨ ff).
#[test]
fn an_inconsistent_event_is_not_revived_by_coalescing() {
    let src = "litmus ADDR2
values {0, 1}
locations { x @ 0 }
if (x.rlx + 1) { r0 := 1; r1 := [r0 + 1].rlx.sys; } else { skip; }
exists (P0:r1 = 0)
";
    assert_eq!(observations(src), vec![Never]);
}

/// Found by the differential test: M3a over V for a computed address. With
/// r0 read from memory (so in V = {0, 1}), `[r0 + 1]` can name no cell of V
/// but [1]; an event on x = [0] has guard r0 + 1 = 0, unsatisfiable, so it
/// exists in no pomset and cannot coalesce with the read of x.
#[test]
fn an_unsatisfiable_address_guard_makes_no_event() {
    let src = "litmus ACQ2
values {0, 1}
locations { x @ 0 }
init { x = 1 }
r0 := x.rlx; r1 := [r0 + 1].rlx;
exists (P0:r0 = 1 /\\ P0:r1 = 1)
";
    assert_eq!(observations(src), vec![Never]);
}

/// Found by the SC-inclusion test (under `sc_order = sec11`, but the bug was
/// in construction): M3a's pruning over V is sound only where every register
/// ranges over V. The write's value 1 mentions no register, but its computed
/// address does: r1 = r0 - 1 is LET-assigned and reaches -1, outside
/// V = {0, 1}, so the guard r1 + 2 = 1 must not be dropped as unsatisfiable
/// over V. The fast engine kept only the other state; the reference engine
/// and SC have both.
#[test]
fn a_let_register_outside_v_may_compute_an_address() {
    let src = "litmus ADDR3
locations { x @ 1 }
r0 := y.rlx; r1 := r0 - 1; [r1 + 2].rlx := 1;
|| y.rlx := 1;
exists (P0:r1 = -1 /\\ x = 1)
";
    assert_eq!(observations(src), vec![Sometimes]);
    let expected: BTreeSet<String> = [
        "P0:r0=0 P0:r1=-1 [x]=1 [y]=1",
        "P0:r0=1 P0:r1=0 [x]=0 [y]=1",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(states(src), expected);
}

/// Found by the differential test: under `monotonicity` a stronger label can
/// leave no write ⊑-last, so `[x]` is `?` in a state the labels as written
/// do not reach (`semantics::gap`). No found state falsifies `[x] = 0`, so a
/// coarsening could (and does): both the full run and the verdict-only
/// searches must decide again with every stronger label built.
#[test]
fn monotonicity_can_leave_final_memory_undetermined() {
    let src = "litmus MONO-FINAL
model { monotonicity = modes_scopes }
x.wk.cta := 0;
|| x.wk.cta := 0; r0 := x.wk.cta; r1 := x.sc.cta;
forall ([x] = 0)
";
    let t = parse(src);
    let (p, model) = (&t.program, t.program.model);
    let o = outcomes(p, &model, Limits::default()).expect("decidable");
    let found: BTreeSet<String> = o.states.keys().map(show).collect();
    assert!(found.contains("P1:r0=0 P1:r1=0 [x]=?"), "{found:?}");
    let full = judge(p, &p.conditions[0], &o, &model);
    assert_eq!((full.ok, full.observation), (Some(false), Some(Sometimes)));
    let [holds, fails] = settle_conditions(p, &model, Limits::default())
        .expect("decidable")
        .swap_remove(0);
    let quick = judge_settled(
        &p.conditions[0],
        Some(holds.found.is_some()),
        Some(fails.found.is_some()),
        &model,
    );
    assert_eq!(
        (quick.ok, quick.observation),
        (Some(false), Some(Sometimes))
    );
}

/// M3a keeps a precondition that mentions a register some LET assigns,
/// whose value may leave V (`Logic::consistent_or_unbounded`): here
/// `r1 = 2` is false for every r1 in V = {0, 1}, yet r1 is 2 once P0 reads
/// 1, and the write of `y` happens. Deciding M3a on the two substitutions
/// composed must still reach this rule (it once had no test: dropping it
/// left the suite green and lost every state with `[y]=1`).
#[test]
fn a_guard_on_a_register_outside_v_is_not_dropped() {
    let src = "litmus LET-OUTSIDE-V
values {0, 1}
r0 := x; r1 := r0 + 1; if (r1 = 2) { y := 1; }
|| x := 1;
|| r2 := y;
exists (P2:r2 = 1)
";
    assert_eq!(observations(src), vec![Sometimes]);
    let all = states(src);
    assert!(
        all.contains("P0:r0=1 P0:r1=2 P2:r2=1 [x]=1 [y]=1"),
        "{all:?}"
    );
    assert_eq!(all.len(), 5, "{all:?}");
}
