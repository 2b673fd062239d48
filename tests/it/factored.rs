//! Readers kept apart (`engine::pwt::factor`): where the engine decides a
//! program's reader threads as a product, the product's states, counts,
//! witnesses and verdicts are exactly those of the plain search over every
//! combination, under every model option that changes the rules. Where the
//! argument does not apply (acquire or sc readers, readers whose reads
//! order two writes), the plain search decides, and the report is the same.
//! `PROPTEST_CASES=N` raises the number of programs.

use crate::families;
use crate::gen;

use std::collections::BTreeMap;

use families::{corr, iriw};
use gen::{cases, Checked};
use pomset::engine::pwt::decide;
use pomset::model::Model;
use pomset::outcome::verdict::judge;
use pomset::outcome::{Limits, Outcomes, State};
use pomset::syntax;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Option values that change which candidates are consistent, each checked
/// against the plain search; the first is the default model.
const SETTINGS: [(&str, &str); 12] = [
    ("c8b", "weak"),
    ("c8b", "strong"),
    ("c8a", "strong"),
    ("orders", "single"),
    ("c7a", "direct"),
    ("sc_order", "sec11"),
    ("acyclic_union", "on"),
    ("two_order", "on"),
    ("co_delays_rr", "on"),
    ("init", "wk"),
    ("init", "none"),
    ("merge", "binary"),
];

/// The modes a reader's reads take: `wk` and `rlx` are kept apart, `acq`
/// and `sc` make the thread part of the core (the fallback is checked too).
const READER_MODES: [&str; 6] = ["wk", "rlx", "rlx", "wk", "acq", "sc"];

/// A reader: its reads, as (location index, mode), and whether its second
/// read sits under an `if` on the first (a control dependency).
type Reader = (Vec<(usize, usize)>, bool);

fn reader() -> impl Strategy<Value = Reader> {
    (
        prop::collection::vec((0usize..8, 0usize..READER_MODES.len()), 1..=3),
        any::<bool>(),
    )
}

/// The test with `readers` added as threads `RD0`, `RD1`, ..., and an
/// `exists` over their first registers (and, half the time, memory).
fn with_readers(t: &gen::Test, readers: &[Reader], value: i64, mem: bool) -> gen::Test {
    let mut t = t.clone();
    t.freeze_names();
    t.filter = None;
    // A declared V must hold the value compared with.
    let value = match t.values.is_empty() {
        true => value,
        false => t.values[value as usize % t.values.len()],
    };
    let locs = t.locs.len().max(1);
    let mut atoms = Vec::new();
    for (k, (reads, guarded)) in readers.iter().enumerate() {
        let label = format!("RD{k}");
        let reg = |j: usize| format!("q{k}_{j}");
        let read = |j: usize, &(loc, mode): &(usize, usize)| gen::Stmt::Read {
            reg: reg(j),
            place: gen::Place::Loc(loc % locs),
            mode: READER_MODES[mode],
            scope: "sys",
        };
        let mut body: Vec<gen::Stmt> = reads.iter().enumerate().map(|(j, r)| read(j, r)).collect();
        if *guarded && body.len() >= 2 {
            let second = body.remove(1);
            body.insert(
                1,
                gen::Stmt::If {
                    cond: gen::Expr::Bin(
                        "=",
                        Box::new(gen::Expr::Reg(reg(0))),
                        Box::new(gen::Expr::Int(value)),
                    ),
                    then: vec![second],
                    els: vec![],
                },
            );
        }
        t.threads.push(gen::Thread {
            label: Some(label.clone()),
            body,
        });
        if let Some(s) = &mut t.scopes {
            s.push((label.clone(), 0, 0));
        }
        atoms.push(gen::Prop::Reg {
            thread: label,
            reg: reg(0),
            op: if k % 2 == 0 { "=" } else { "!=" },
            value,
        });
    }
    if mem && !t.locs.is_empty() {
        atoms.push(gen::Prop::Mem {
            loc: 0,
            op: "=",
            value,
        });
    }
    let prop = atoms
        .into_iter()
        .reduce(|a, b| gen::Prop::And(Box::new(a), Box::new(b)))
        .expect("at least two readers");
    t.conditions.push(gen::Cond {
        quantifier: "exists",
        prop: gen::Prop::Or(
            Box::new(prop),
            Box::new(gen::Prop::Not(Box::new(gen::Prop::Reg {
                thread: "RD1".into(),
                reg: "q1_0".into(),
                op: "=",
                value: 0,
            }))),
        ),
    });
    t
}

/// Every state of outcomes, expanded from a product where there is one.
fn every_state(o: &Outcomes) -> BTreeMap<State, usize> {
    let mut all = o.states.clone();
    if let Some(f) = &o.factored {
        f.each(&mut |values, n| *all.entry(f.state(values)).or_insert(0) += n);
    }
    if let Some(orbits) = &o.orbits {
        let mut each =
            |values: &[Option<i64>], n| *all.entry(orbits.state(values)).or_insert(0) += n;
        orbits.each_reported(false, &mut each).expect("no limit");
    }
    all
}

/// Decides `t` under `SETTINGS[setting]` with the product allowed and
/// plainly (no orbits, no product): `None` (skipped) where either refuses
/// or stops at a limit, else the states with their counts, the witnesses
/// and every condition's counts, Ok and observation must agree, and
/// `Some(true)` says the engine took the product.
fn product_agrees(t: &gen::Test, setting: usize) -> Result<Option<bool>, TestCaseError> {
    let (k, v) = SETTINGS[setting];
    let (text, p, model) = gen::program_under(t, (k, v))?;
    let limits = Limits {
        max_steps: 2_000_000,
        max_states: 50_000,
        orbits: true,
        ..Limits::default()
    };
    let product = decide::outcomes(&p, &model, limits);
    let plain = decide::outcomes(
        &p,
        &model,
        Limits {
            orbits: false,
            factor: false,
            ..limits
        },
    );
    let (Ok(product), Ok(plain)) = (product, plain) else {
        gen::skipped("refused", t);
        return Ok(None);
    };
    if product.limit.is_some() || plain.limit.is_some() {
        gen::skipped("a limit", t);
        return Ok(None);
    }
    prop_assert_eq!(
        every_state(&plain),
        every_state(&product),
        "states or counts differ under {}={} for\n{}",
        k,
        v,
        text
    );
    prop_assert_eq!(
        plain.witnesses,
        product.witnesses,
        "witnesses differ for\n{}",
        text
    );
    for c in &p.conditions {
        let (a, b) = (judge(&p, c, &plain, &model), judge(&p, c, &product, &model));
        prop_assert_eq!(
            (a.positive, a.negative, a.ok, a.observation),
            (b.positive, b.negative, b.ok, b.observation),
            "verdicts differ under {}={} for\n{}",
            k,
            v,
            text
        );
    }
    Ok(Some(product.factored.is_some()))
}

#[test]
fn readers_kept_apart_decide_as_the_plain_search() {
    let strategy = (
        gen::tiny(),
        prop::collection::vec(reader(), 2..=3),
        0i64..=2,
        any::<bool>(),
        0usize..SETTINGS.len(),
    );
    let kept_apart = std::cell::Cell::new(0u32);
    let (checked, _) = gen::run_property(
        "readers kept apart",
        cases(80),
        strategy,
        |(t, readers, value, mem, setting)| {
            let t = with_readers(&t, &readers, value, mem);
            let decided = product_agrees(&t, setting)?;
            if decided == Some(true) {
                kept_apart.set(kept_apart.get() + 1);
            }
            Ok(decided.map_or(Checked::Skipped, |_| Checked::Yes))
        },
    );
    not_vacuous("readers kept apart", kept_apart.get(), checked);
}

/// Prints how many of the programs checked were decided as a product, and
/// fails unless a third were: the property is then not vacuous.
fn not_vacuous(what: &str, decided: u32, checked: u32) {
    eprintln!("{what}: {decided} of {checked} programs decided as a product");
    assert!(
        decided * 3 >= checked,
        "{what}: only {decided} of {checked} programs decided as a product"
    );
}

/// The modes of a split reader's reads: mostly one mode, so that reads of
/// one label (which may coalesce) are common.
const SPLIT_MODES: [&str; 4] = ["rlx", "rlx", "rlx", "wk"];

/// One reader thread of two to five plain reads (`factor::split` keeps its
/// reads apart; the thread-level product needs two readers, so this
/// exercises the split alone), over at most two of the program's
/// locations: the states, the counts with the
/// coalescings put back, the witnesses and the verdicts are the plain
/// search's, under every setting (`co_delays_rr = on` is refused and
/// decided plainly).
#[test]
fn a_readers_reads_kept_apart_decide_as_the_plain_search() {
    let strategy = (
        gen::tiny(),
        prop::collection::vec((0usize..2, 0usize..SPLIT_MODES.len()), 2..=5),
        0i64..=2,
        0usize..SETTINGS.len(),
    );
    let split = std::cell::Cell::new(0u32);
    let (checked, _) = gen::run_property(
        "a reader's reads kept apart",
        cases(80),
        strategy,
        |(t, reads, value, setting)| {
            let mut t = t.clone();
            t.freeze_names();
            t.filter = None;
            let locs = t.locs.len().max(1);
            let value = match t.values.is_empty() {
                true => value,
                false => t.values[value as usize % t.values.len()],
            };
            let body: Vec<gen::Stmt> = reads
                .iter()
                .enumerate()
                .map(|(j, &(loc, mode))| gen::Stmt::Read {
                    reg: format!("q{j}"),
                    place: gen::Place::Loc(loc % locs),
                    mode: SPLIT_MODES[mode],
                    scope: "sys",
                })
                .collect();
            t.threads.push(gen::Thread {
                label: Some("RD".into()),
                body,
            });
            if let Some(s) = &mut t.scopes {
                s.push(("RD".into(), 0, 0));
            }
            let reg = |j: usize, op| gen::Prop::Reg {
                thread: "RD".into(),
                reg: format!("q{j}"),
                op,
                value,
            };
            t.conditions.push(gen::Cond {
                quantifier: "exists",
                prop: gen::Prop::Or(
                    Box::new(gen::Prop::And(
                        Box::new(reg(0, "=")),
                        Box::new(reg(1, "!=")),
                    )),
                    Box::new(gen::Prop::Not(Box::new(reg(reads.len() - 1, "=")))),
                ),
            });
            let decided = product_agrees(&t, setting)?;
            if decided == Some(true) {
                split.set(split.get() + 1);
            }
            Ok(decided.map_or(Checked::Skipped, |_| Checked::Yes))
        },
    );
    not_vacuous("a reader's reads kept apart", split.get(), checked);
}

/// CoRR with five reads (the most the plain search decides quickly): kept
/// apart read by read, the same report as the plain search, each state's
/// count a product of Bell numbers (the all-0 state: Bell(5) = 52
/// coalescings of five reads of the initial write), and 44 683 pomsets in
/// all, Σ over each read's choice (a value or none) of Π_v Bell(reads of
/// v). CoRR with eight reads is then decided in full: 10^8 states.
#[test]
fn corr_reads_are_kept_apart_with_their_coalescings() {
    let src = corr(5);
    let (product, plain) = (decided(&src, true), decided(&src, false));
    assert!(product.factored.is_some());
    assert_eq!(every_state(&product), every_state(&plain));
    assert_eq!((product.witnesses, plain.witnesses), (44_683, 44_683));
    let zeros = every_state(&product)
        .into_iter()
        .find(|(s, _)| s.regs.iter().all(|(_, v)| *v == Some(0)))
        .expect("the all-0 state");
    assert_eq!(zeros.1, 52);
    let eight = decided(&corr(8), true);
    assert_eq!(eight.limit, None);
    let f = eight.factored.as_ref().expect("kept apart");
    assert_eq!(f.states(), 10usize.pow(8));
    assert_eq!(eight.witnesses, 668_520_163);
    let p = syntax::parse(&corr(8)).expect("parses").program;
    let j = judge(&p, &p.conditions[0], &eight, &Model::default());
    assert_eq!((j.positive, j.ok), (1, Some(true)));
}

fn decided(src: &str, factor: bool) -> Outcomes {
    let p = syntax::parse(src).expect("parses").program;
    let limits = Limits {
        orbits: true,
        factor,
        ..Limits::default()
    };
    decide::outcomes(&p, &Model::default(), limits).expect("decides")
}

/// IRIW with ten relaxed readers is decided in full as a product: 3^20
/// states (each read may be dropped, `?`), one of them the IRIW outcome.
/// With acquire readers the readers order the two writes, so the product
/// is refused and the plain search decides (four readers, to stay quick).
#[test]
fn iriw_readers_are_kept_apart_only_when_relaxed() {
    let p = syntax::parse(&iriw(10, "rlx")).expect("parses").program;
    let o = decided(&iriw(10, "rlx"), true);
    assert_eq!(o.limit, None);
    let f = o.factored.as_ref().expect("kept apart");
    assert_eq!(f.states(), 3usize.pow(20));
    // Each reader's reads have distinct labels, so its thread is not split
    // (`factor::split`): ten readers of nine values each.
    assert_eq!(f.held(), 10 * 9);
    let j = judge(&p, &p.conditions[0], &o, &Model::default());
    assert_eq!((j.positive, j.ok), (1, Some(true)));
    // `--stats` names the readers kept apart.
    let report = pomset::report::Report::new(&p, &Model::default(), &o, Default::default());
    let stats = report.stats_line().unwrap_or_default();
    assert!(
        stats.ends_with(" readers-apart P2,P3,P4,P5,P6,P7,P8,P9,P10,P11"),
        "{stats}"
    );
    let acq = decided(&iriw(4, "acq"), true);
    assert!(acq.factored.is_none());
    assert_eq!(
        every_state(&acq),
        every_state(&decided(&iriw(4, "acq"), false))
    );
}

/// The small members against the reference engine (`engine::reference`,
/// the note's definitions built literally): IRIW with two and three relaxed
/// readers, message passing read by two relaxed readers, and a CoRR reader
/// kept apart read by read, decided as a product, end in the reference's states with its verdicts. (The counts of
/// complete pomsets differ between the engines by design.)
#[test]
fn small_members_agree_with_the_reference_engine() {
    let mp = "litmus MP-2R
locations { x; y }

x := 1; y.rel := 1;
|| r0 := y; s0 := x;
|| r1 := y; s1 := x;

exists (r0 = 1 /\\ s0 = 0 /\\ r1 = 1 /\\ s1 = 1)
";
    // A reader whose reads are kept apart one by one (two of one label:
    // relaxed reads of x), with a read of its own label between them.
    let corr = "litmus CoRR-2-mixed
locations { x; y }

x := 1; x.rlx := 2; y := 1;
|| r1 := x.rlx; r2 := y; r3 := x.rlx; r4 := x;

exists (r1 = 2 /\\ r3 = 1)
";
    for src in [
        iriw(2, "rlx"),
        iriw(3, "wk"),
        mp.to_string(),
        corr.to_string(),
    ] {
        let p = syntax::parse(&src).expect("parses").program;
        let model = Model::default();
        let product = decided(&src, true);
        assert!(product.factored.is_some(), "kept apart:\n{src}");
        let reference = pomset::engine::reference::outcomes(&p, &model, Limits::default())
            .expect("the reference engine decides it");
        assert_eq!(reference.limit, None, "{src}");
        let names = |o: &Outcomes| every_state(o).into_keys().collect::<Vec<_>>();
        assert_eq!(names(&product), names(&reference), "{src}");
        for c in &p.conditions {
            let (a, b) = (
                judge(&p, c, &product, &model),
                judge(&p, c, &reference, &model),
            );
            assert_eq!((a.observation, a.ok), (b.observation, b.ok), "{src}");
        }
    }
}
