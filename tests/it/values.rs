//! Issue 27 §1, "no verdict from nothing": the default V is closed under the
//! program, a declared V that an execution may leave settles no verdict that
//! no found state witnesses, and zero states is never Ok or No, in every
//! engine and report.

use pomset::engine::{decide, named};
use pomset::outcome::Limits;
use pomset::report::Report;
use pomset::syntax::Litmus;

fn load(name: &str, src: &str) -> Litmus {
    pomset::import::load(name, src, pomset::import::Options::default())
        .unwrap_or_else(|d| panic!("{}", d.render(name, src)))
}

/// Each engine's report: fast, reference, SC, verdict-only, and every
/// bundled cat model that can read the test.
fn reports(t: &Litmus, reference: bool) -> Vec<(String, Report)> {
    let p = &t.program;
    let model = &p.model;
    let mut out = Vec::new();
    let mut engines = vec![("pwt", false), ("sc", false), ("pwt", true)];
    if reference {
        engines.push(("pwt:reference", false));
    }
    engines.extend(pomset::cat::BUNDLED.iter().map(|(name, _)| (*name, false)));
    for (name, only) in engines {
        let engine = named(name).expect("a model");
        let r = decide(engine.as_ref(), p, model, only, Limits::default());
        if r.unsupported.is_none() {
            out.push((format!("{name} verdict-only={only}"), r));
        }
    }
    out
}

const ATOM_SB: &str = "PTX Atom-SB
{ x=0; y=0; }
 P0@cta 0,gpu 0                  | P1@cta 1,gpu 0                  ;
 atom.acq_rel.gpu.add r1, x, 1   | atom.acq_rel.gpu.add r3, y, 1   ;
 atom.acq_rel.gpu.add r2, y, 1   | atom.acq_rel.gpu.add r4, x, 1   ;
~exists (P0:r1 = 0 /\\ P1:r3 = 0)
";

#[test]
fn atom_sb_keeps_its_sc_outcome_under_every_engine() {
    let t = load("atom-sb.litmus", ATOM_SB);
    assert_eq!(t.program.values, vec![0, 1, 2], "V closed under the adds");
    let all = reports(&t, false);
    assert!(all.len() >= 4, "fast, SC, verdict-only and the cat models");
    for (engine, r) in all {
        // The outcome is reachable under SC, so ~exists is No everywhere.
        assert_eq!(
            r.conditions[0].ok,
            Some(false),
            "{engine}: {}",
            r.text(&t.program)
        );
        // The three SC states at least (a weaker model may add more).
        if !r.verdict_only {
            assert!(r.states.len() >= 3, "{engine}: {}", r.text(&t.program));
        }
    }
}

#[test]
fn default_v_closure_follows_no_value_through_its_own_write() {
    // A syntactic closure would run 0, 1, 2, ... here; no execution writes 2.
    let t = load(
        "own.litmus",
        "litmus OWN\nr := x; x := r + 1;\nexists (r = 0)\n",
    );
    assert_eq!(t.program.values, vec![0, 1]);
    // A chain through two threads is followed: x = 2 needs both adds.
    let src = "litmus CHAIN\nr := x; y := r + 1;\n|| s := y; x := s + 1;\nexists (r = 2)\n";
    let t = load("chain.litmus", src);
    assert_eq!(t.program.values, vec![0, 1, 2]);
    // Sparse values stay a set: 0, 1 and 100, not the 101 between.
    let t = load(
        "sparse.litmus",
        "litmus SPARSE\nx := 100;\n|| r := x;\nexists (r = 100)\n",
    );
    assert_eq!(t.program.values, vec![0, 1, 100]);
}

const LEFT: &str = "litmus LEFT
values {0, 1}
r := x; y := r + 1;
|| x := 1;
exists (r = 0)
~exists (r = 1)
";

#[test]
fn a_declared_v_that_an_execution_leaves_settles_only_witnessed_verdicts() {
    let t = load("left.litmus", LEFT);
    assert_eq!(
        t.program.values_left,
        vec!["P0 may write 2 to y".to_string()]
    );
    for (engine, r) in reports(&t, true) {
        let text = r.text(&t.program);
        // r = 0 is found: exists is Ok whatever else V drops.
        assert_eq!(r.conditions[0].ok, Some(true), "{engine}: {text}");
        // r = 1 writes 2 to y, outside V: dropped, so ~exists is not Ok.
        assert_eq!(r.conditions[1].ok, None, "{engine}: {text}");
        assert!(
            text.contains("P0 may write 2 to y"),
            "{engine} names the thread, place and value: {text}"
        );
    }
    // Widened, the same test answers.
    let t = load("left.litmus", &LEFT.replace("{0, 1}", "{0, 1, 2}"));
    assert!(t.program.values_left.is_empty());
    for (engine, r) in reports(&t, true) {
        assert_eq!(r.conditions[1].ok, Some(false), "{engine}");
    }
}

#[test]
fn zero_states_is_never_ok_or_no() {
    // Every execution of P1 needs more iterations than the bound.
    let src = "litmus ZERO\nx := 1;\n|| r := x; while (r == r) { r := x; }\nexists (r = 1)\n~exists (r = 1)\n";
    let t = load("zero.litmus", src);
    let all = reports(&t, true);
    assert!(all.len() >= 5);
    for (engine, r) in all {
        let text = r.text(&t.program);
        assert!(r.states.is_empty(), "{engine}: {text}");
        for c in &r.conditions {
            assert_eq!(c.ok, None, "{engine}: {text}");
            assert_eq!(c.observation, None, "{engine}: {text}");
        }
        assert!(text.contains("States 0"), "{engine}: {text}");
        assert!(text.contains("none rests on no state"), "{engine}: {text}");
    }
}

#[test]
fn a_filter_that_keeps_no_state_settles_no_verdict() {
    let src = "litmus NONE\nx := 1;\n|| r := x;\nfilter (r = 5)\nexists (r = 1)\n";
    let t = load("none.litmus", src);
    for (engine, r) in reports(&t, true) {
        assert_eq!(r.conditions[0].ok, None, "{engine}: {}", r.text(&t.program));
    }
}

/// Every `.litmus` file under `examples/`.
fn bundled_examples() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("examples/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "litmus") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn export_then_import_round_trips_every_bundled_example() {
    let (mut exported, mut refused) = (0, 0);
    for path in bundled_examples() {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).expect("readable");
        let original = load(&name, &src);
        let Ok(c) = pomset::export::herd_c::export(&original.program) else {
            refused += 1;
            continue;
        };
        exported += 1;
        let back = pomset::import::load("exported.litmus", &c, Default::default())
            .unwrap_or_else(|d| panic!("{name}: {}\n{c}", d.render("exported.litmus", &c)));
        // The V it was decided with comes back with it.
        assert_eq!(back.program.values, original.program.values, "{name}");
        let model = &original.program.model;
        let pwt = named("pwt").expect("a model");
        let run = |p| decide(pwt.as_ref(), p, model, false, Limits::default());
        let (a, b) = (run(&original.program), run(&back.program));
        assert_eq!(a.states.len(), b.states.len(), "{name}\n{c}");
        let oks = |r: &Report| r.conditions.iter().map(|c| c.ok).collect::<Vec<_>>();
        assert_eq!(oks(&a), oks(&b), "{name}\n{c}");
    }
    eprintln!("{exported} exported, {refused} refused");
    assert!(exported > 20, "{exported} exported, {refused} refused");
}
