//! Regression tests for issue 13's syntax-side bugs: reassigned registers
//! (bug 5), values outside V (bug 9). Each program's answer follows from the
//! rules by hand; the reused-register programs are also compared with the
//! same programs written with distinct registers.

use std::collections::BTreeSet;

use pomset::engine::pwt::decide::outcomes;
use pomset::model::Model;
use pomset::outcome::verdict::judge;
use pomset::outcome::{Limits, Outcomes};
use pomset::syntax::{self, Litmus};

fn parse(src: &str) -> Litmus {
    syntax::parse(src).unwrap_or_else(|d| panic!("{}", d.render("test", src)))
}

fn decide(t: &Litmus) -> Outcomes {
    outcomes(&t.program, &Model::default(), Limits::default()).expect("decidable")
}

/// The final states as `name=value` lists, without the registers in `drop`.
fn states(src: &str, drop: &[&str]) -> BTreeSet<Vec<String>> {
    let t = parse(src);
    decide(&t)
        .states
        .keys()
        .map(|s| {
            s.regs
                .iter()
                .filter(|(n, _)| !drop.contains(&n.as_str()))
                .map(|(n, v)| format!("{n}={v:?}"))
                .chain(s.mem.iter().map(|(n, v)| format!("[{n}]={v:?}")))
                .collect()
        })
        .collect()
}

/// Each condition's observation (Always, Sometimes, Never).
fn observations(src: &str) -> Vec<&'static str> {
    let t = parse(src);
    let o = decide(&t);
    t.program
        .conditions
        .iter()
        .map(|c| {
            judge(&t.program, c, &o, &Model::default())
                .observation
                .map_or("Unknown", |x| x.as_str())
        })
        .collect()
}

// ------------------------------------------------------------ bug 5

#[test]
fn reused_register_after_fadd_is_the_rmw_result() {
    let reused = "litmus REUSE\nr := 1; r := FADD(x, 1); if (r = 1) { y := 1; }\nexists (r = 0 /\\ [y] = 1)\nexists (r = 0)\n";
    let renamed = "litmus RENAMED\nr0 := 1; r := FADD(x, 1); if (r = 1) { y := 1; }\nexists (r = 0 /\\ [y] = 1)\nexists (r = 0)\n";
    assert_eq!(observations(reused), ["Never", "Always"]);
    assert_eq!(observations(renamed), observations(reused));
    assert_eq!(states(reused, &[]), states(renamed, &["P0:r0"]));
}

#[test]
fn reused_register_after_a_read_is_the_value_read() {
    let reused = "litmus REUSE\nr := 1; r := x; if (r = 1) { y := 1; }\n|| x := 1;\nexists (P0:r = 0 /\\ [y] = 1)\nexists (P0:r = 1 /\\ [y] = 1)\n";
    let renamed = "litmus RENAMED\nr0 := 1; r := x; if (r = 1) { y := 1; }\n|| x := 1;\nexists (P0:r = 0 /\\ [y] = 1)\nexists (P0:r = 1 /\\ [y] = 1)\n";
    assert_eq!(observations(reused), ["Never", "Sometimes"]);
    assert_eq!(states(reused, &[]), states(renamed, &["P0:r0"]));
}

#[test]
fn cas_arguments_are_evaluated_before_the_assignment() {
    // The CAS expects 1 while x is 0: it fails, so x stays 0 and r = 0.
    let reused = "litmus CAS-REUSE\nr := 1; r := CAS(x, r, 2);\nexists ([x] = 2)\nexists (r = 0 /\\ [x] = 0)\n";
    let renamed = "litmus CAS-RENAMED\nr0 := 1; r := CAS(x, r0, 2);\nexists ([x] = 2)\nexists (r = 0 /\\ [x] = 0)\n";
    assert_eq!(observations(reused), ["Never", "Always"]);
    assert_eq!(states(reused, &[]), states(renamed, &["P0:r0"]));
}

#[test]
fn fadd_and_exchg_operands_read_the_old_version() {
    // r := 1; r := FADD(x, r) adds 1; r := EXCHG(y, r) stores the FADD's result.
    let reused = "litmus RMW-REUSE\nr := 1; r := FADD(x, r); r := EXCHG(y, r);\nexists ([x] = 1 /\\ [y] = 0 /\\ r = 0)\n";
    let renamed = "litmus RMW-RENAMED\na := 1; b := FADD(x, a); r := EXCHG(y, b);\nexists ([x] = 1 /\\ [y] = 0 /\\ r = 0)\n";
    assert_eq!(observations(reused), ["Always"]);
    assert_eq!(states(reused, &[]), states(renamed, &["P0:a", "P0:b"]));
}

#[test]
fn computed_address_reads_the_old_version() {
    let reused =
        "litmus ADDR-REUSE\nlocations { x @ 0; y @ 1 }\nr := 1; r := [r];\nexists (r = 0)\n";
    let renamed =
        "litmus ADDR-RENAMED\nlocations { x @ 0; y @ 1 }\na := 1; r := [a];\nexists (r = 0)\n";
    let core = syntax::print::core_program(&parse(reused).program);
    assert!(core.contains("_r1 := 1; r := [_r1]"), "{core}");
    assert_eq!(observations(reused), observations(renamed));
    assert_eq!(states(reused, &[]), states(renamed, &["P0:a"]));
}

#[test]
fn register_assigned_in_one_branch_joins_with_the_value_before_the_if() {
    // r is 2 where the branch ran (x = 1) and the value read elsewhere.
    let reused = "litmus JOIN\nr := x; if (r = 1) { r := 2; } y := r;\n|| x := 1;\nexists (P0:r = 2 /\\ [y] = 2)\nexists (P0:r = 1)\nexists (P0:r = 0 /\\ [y] = 0)\n";
    let renamed = "litmus JOIN-RENAMED\nr0 := x; if (r0 = 1) { r := 2; } else { r := r0; } y := r;\n|| x := 1;\nexists (P0:r = 2 /\\ [y] = 2)\nexists (P0:r = 1)\nexists (P0:r = 0 /\\ [y] = 0)\n";
    assert_eq!(observations(reused), ["Sometimes", "Never", "Sometimes"]);
    assert_eq!(states(reused, &[]), states(renamed, &["P0:r0"]));
}

#[test]
fn registers_assigned_once_in_each_branch_keep_one_register() {
    let t =
        parse("litmus BRANCHES\nr := x; if (r = 1) { s := y; } else { s := z; }\nexists (s = 0)\n");
    let names: Vec<&str> = t.program.regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["r", "s"]);
    assert!(t.program.regs.iter().all(|r| !r.fresh));
}

#[test]
fn only_the_final_version_is_visible_in_states_and_conditions() {
    let t = parse("litmus FINAL\nr := 1; s := 2; r := r + s;\nexists (P0:r = 3 /\\ s = 2)\n");
    let visible: Vec<&str> = t
        .program
        .regs
        .iter()
        .filter(|r| !r.fresh)
        .map(|r| r.name.as_str())
        .collect();
    // First-assignment order, as before renaming.
    assert_eq!(visible, ["r", "s"]);
    let o = decide(&t);
    let regs: Vec<Vec<(String, Option<i64>)>> = o.states.keys().map(|s| s.regs.clone()).collect();
    assert_eq!(
        regs,
        [vec![
            ("P0:r".to_string(), Some(3)),
            ("P0:s".to_string(), Some(2))
        ]]
    );
    assert_eq!(
        observations("litmus FINAL\nr := 1; s := 2; r := r + s;\nexists (P0:r = 3 /\\ s = 2)\n"),
        ["Always"]
    );
}

#[test]
fn forked_threads_have_their_own_registers() {
    // The fork reads the parent's r (1) before the parent reassigns it.
    let src = "litmus FORK\nr := 1; ( s := r; r := 5; || r := 2; )\nexists (P0:r = 2 /\\ P1:s = 1 /\\ P1:r = 5)\n";
    assert_eq!(observations(src), ["Always"]);
}

#[test]
fn reused_registers_print_as_a_core_that_parses_back_to_itself() {
    let src = "litmus PRINT\nr := 1; s := x; r := r + s; if (s = 1) { r := 5; t := 1; } else { t := 2; } r := CAS(y, r, 2); ( u := r; r := 7; || r := 9; )\n|| r := y;\nexists (P0:r = 9 /\\ P1:r = 0)\n";
    let printed = syntax::print::core_program(&parse(src).program);
    let again = parse(&printed);
    assert_eq!(syntax::print::core_program(&again.program), printed);
    // The reprinted core decides alike (its hidden versions become visible).
    let visible = |src: &str| -> BTreeSet<BTreeSet<String>> {
        states(src, &[])
            .into_iter()
            .map(|v| v.into_iter().filter(|x| !x.starts_with("P0:_")).collect())
            .collect()
    };
    assert_eq!(visible(src), visible(&printed));
}

#[test]
fn reuse_in_a_refinement_source_is_renamed_apart() {
    // The note's own example (§2): r := 1 is dead when the if is taken.
    let req = "refine R\nvalues {0, 1, 2}\nmodel { merge = binary; merge_read = prose }\nsource { r := 1; x := 2; if (m = 1) { r := x; } }\ntarget { r := 1; x := 2; if (m = 1) { r := 2; } }\nexpect sound\n";
    let r = pomset::refinement::parse_refinement(req).expect("parses");
    let report =
        pomset::refinement::refine(&r, &r.program.model, pomset::refinement::Limits::default())
            .expect("decides");
    assert_eq!(report.verdict, pomset::refinement::Verdict::Sound);
}

// ------------------------------------------------------------ bug 9

/// The default V of a program whose only mention of -1 is `body`.
fn default_values(body: &str) -> Vec<i64> {
    parse(&format!("litmus NEG\n{body}\n|| s := x;\nexists (s = 0)\n"))
        .program
        .values
}

#[test]
fn negative_written_values_enter_the_default_v_in_every_position() {
    for body in [
        "x := -1;",
        "x := 0 - 1;",
        "r := FADD(x, -1);",
        "r := CAS(x, -1, 1);",
        "r := CAS(x, 0, -1);",
        "r := EXCHG(x, -1);",
        "r := -1; x := r;",
    ] {
        assert_eq!(default_values(body), [-1, 0, 1], "{body}");
    }
    let init = parse("litmus INIT\ninit { x = -1 }\nr := x;\nexists (r = -1)\n");
    assert_eq!(init.program.values, [-1, 0, 1]);
}

#[test]
fn a_negative_write_is_observed() {
    let src = "litmus NEG\nx := -1;\n|| s := x;\nexists (s = -1)\nexists ([x] = -1)\n";
    assert_eq!(observations(src), ["Sometimes", "Always"]);
    let src = "litmus NEG2\nr := -1; x := r;\n|| s := x;\nexists (s = -1)\n";
    assert_eq!(observations(src), ["Sometimes"]);
}

#[test]
fn a_folded_constant_outside_a_declared_v_is_an_error() {
    let src = "litmus NEG\nvalues {0, 1}\nx := 0 - 1;\n|| s := x;\n";
    let d = syntax::parse(src).expect_err("outside V");
    let text = d.render("neg.litmus", src);
    assert!(text.contains("value -1 is outside V = {0, 1}"), "{text}");
    assert!(text.contains("neg.litmus:3:6"), "{text}");
    assert!(text.contains("add it to `values`"), "{text}");
}

#[test]
fn a_cas_expecting_a_value_outside_a_declared_v_is_accepted() {
    let src = "litmus CAS\nvalues {0, 1}\nr := CAS(x, 0 - 1, 1);\nexists ([x] = 0)\n";
    assert!(syntax::parse(src).is_ok());
}

#[test]
fn a_computed_write_that_can_leave_v_is_reported() {
    // r can be 1, so x := r + 1 can write 2, which V = {0, 1} lacks.
    let t =
        parse("litmus LEAVE\nvalues {0, 1}\nr := y; x := r + 1;\n|| y := 1;\nexists ([x] = 1)\n");
    let o = decide(&t);
    assert_eq!(o.notes.len(), 1, "{:?}", o.notes);
    assert!(o.notes[0].contains("P0 may write a value outside V = {0, 1} to x"));
    let report = pomset::report::Report::new(&t.program, &Model::default(), &o, Default::default());
    assert!(report.text(&t.program).contains("\nWarning: P0 may write"));
    let json = serde_json::to_string(&report).expect("serialises");
    assert!(json.contains("\"warnings\":[\"P0 may write"), "{json}");
    // A write that stays in V says nothing.
    let t =
        parse("litmus STAY\nvalues {0, 1}\nr := y; x := 1 - r;\n|| y := 1;\nexists ([x] = 1)\n");
    assert_eq!(decide(&t).notes, Vec::<String>::new());
}
