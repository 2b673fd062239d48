//! The candidate search on hand-built pomsets of classic tests: each pins a
//! verdict that follows from the rules of §1.3, and the options that flip it.
//! (The denotation that builds these pomsets from programs is issue 4's.)

use pomset::action::{Action, Groups, Mode, Scope, ThreadId};
use pomset::engine::pwt::check::{
    candidates, Choice, Failure, OrderKind, Reason, RfMode, Search, Visit,
};
use pomset::model::Model;
use pomset::pomset::Skeleton;

use Mode::*;
use Scope::*;

/// Every thread in a cta of its own, all on one gpu (the note's §9 default).
struct OwnCtas;

impl Groups for OwnCtas {
    fn same_cta(&self, a: ThreadId, b: ThreadId) -> bool {
        a == b
    }
    fn same_gpu(&self, _: ThreadId, _: ThreadId) -> bool {
        true
    }
}

const X: u32 = 0;
const Y: u32 = 1;
/// The initialising writes run as thread 9.
const INIT: ThreadId = 9;

fn w(t: ThreadId, m: Mode, s: Scope, l: u32, v: i64) -> Action {
    Action::write(t, m, s, l, v)
}
fn r(t: ThreadId, m: Mode, s: Scope, l: u32, v: i64) -> Action {
    Action::read(t, m, s, l, v)
}
fn f(t: ThreadId, m: Mode) -> Action {
    Action::fence(t, m, Sys)
}

/// Initial writes of 0 to x and y (before everything), then each thread's
/// events in program order. Returns the skeleton; events are numbered in that order.
fn litmus(threads: &[Vec<Action>]) -> Skeleton {
    let mut labels = vec![w(INIT, Rlx, Sys, X, 0), w(INIT, Rlx, Sys, Y, 0)];
    let mut spans = Vec::new();
    for t in threads {
        spans.push(labels.len()..labels.len() + t.len());
        labels.extend(t.iter().copied());
    }
    let mut sk = Skeleton::new(labels);
    for e in 2..sk.len() {
        sk.po.add(0, e);
        sk.po.add(1, e);
    }
    for span in spans {
        for a in span.clone() {
            for b in a + 1..span.end {
                sk.po.add(a, b);
            }
        }
    }
    sk
}

/// Whether some total rf gives a candidate: the outcome the labels describe is reachable.
fn allowed(sk: &Skeleton, model: &Model) -> bool {
    let found = candidates(sk, model, &OwnCtas, RfMode::Total, 1_000_000).expect("within budget");
    !found.is_empty()
}

fn with(set: &[(&str, &str)]) -> Model {
    let mut m = Model::default();
    for (k, v) in set {
        m.set(k, v).expect("a known option");
    }
    m
}

fn mp(wmode: Mode, rmode: Mode) -> Skeleton {
    litmus(&[
        vec![w(0, Rlx, Sys, X, 1), w(0, wmode, Sys, Y, 1)],
        vec![r(1, rmode, Sys, Y, 1), r(1, Rlx, Sys, X, 0)],
    ])
}

#[test]
fn mp_relaxed_is_allowed_and_mp_release_acquire_is_forbidden() {
    let m = Model::default();
    assert!(allowed(&mp(Rlx, Rlx), &m));
    assert!(!allowed(&mp(Rel, Acq), &m));
    assert!(
        allowed(&mp(Rel, Rlx), &m),
        "a release alone does not publish"
    );
}

#[test]
fn mp_release_acquire_fails_by_blocking() {
    let sk = mp(Rel, Acq);
    let m = Model::default();
    let mut search = Search::new(&sk, &m, &OwnCtas, 10_000);
    // Events: 0 Wx0, 1 Wy0, 2 Wx1, 3 W^rel y1, 4 R^acq y1, 5 Rx0.
    let rf = [None, None, None, None, Some(3), Some(0)];
    // c8b for Rx0 ← Wx0 with blocker Wx1: Wx1 ⊑ Wx0 contradicts the
    // initialisation, and Rx0 ⊑ Wx1 contradicts Wx1 ≤ Rx0, which c7a and M8a
    // derive from the release/acquire pair.
    let failure = search.decide(&rf).expect_err("publication");
    let Failure::Each { rule, alternatives } = failure else {
        panic!("expected c8b to fail both ways")
    };
    assert_eq!(
        rule,
        Choice::C8b {
            read: 5,
            source: 0,
            blocker: 2
        }
    );
    assert_eq!(alternatives.len(), 2);
    assert_eq!(
        alternatives[0],
        Failure::Cycle {
            order: OrderKind::Loc,
            path: vec![0, 2]
        }
    );
    let Failure::Cycle {
        order: OrderKind::Loc,
        path,
    } = &alternatives[1]
    else {
        panic!("{:?}", alternatives[1])
    };
    assert!(
        path.contains(&2) && path.contains(&5),
        "Wx1 ⊑ Rx0 ⊑ Wx1: {path:?}"
    );
}

fn lb(deps: bool) -> Skeleton {
    let mut sk = litmus(&[
        vec![r(0, Rlx, Sys, X, 1), w(0, Rlx, Sys, Y, 1)],
        vec![r(1, Rlx, Sys, Y, 1), w(1, Rlx, Sys, X, 1)],
    ]);
    if deps {
        sk.dep.add(2, 3);
        sk.dep.add(4, 5);
    }
    sk
}

#[test]
fn lb_is_allowed_and_lb_with_dependencies_is_thin_air() {
    let m = Model::default();
    assert!(allowed(&lb(false), &m));
    assert!(!allowed(&lb(true), &m));
    let sk = lb(true);
    let mut search = Search::new(&sk, &m, &OwnCtas, 10_000);
    let failure = search
        .decide(&[None, None, Some(5), None, Some(3), None])
        .expect_err("thin air");
    match failure {
        Failure::Cycle {
            order: OrderKind::Dep,
            path,
        } => assert_eq!(path.len(), 4, "Rx1 ◁ Wy1 rf Ry1 ◁ Wx1 rf Rx1"),
        other => panic!("expected a dependency cycle, got {other:?}"),
    }
}

#[test]
fn lb_with_release_writes_depends_on_the_orders_option() {
    // C18 LB-REL: allowed when rf stays out of sync order, forbidden with one order.
    let sk = litmus(&[
        vec![r(0, Rlx, Sys, X, 1), w(0, Rel, Sys, Y, 1)],
        vec![r(1, Rlx, Sys, Y, 1), w(1, Rel, Sys, X, 1)],
    ]);
    assert!(allowed(&sk, &Model::default()));
    assert!(!allowed(&sk, &with(&[("orders", "single")])));
}

fn sb(m: Mode) -> Skeleton {
    litmus(&[
        vec![w(0, m, Sys, X, 1), r(0, m, Sys, Y, 0)],
        vec![w(1, m, Sys, Y, 1), r(1, m, Sys, X, 0)],
    ])
}

#[test]
fn sb_relaxed_is_allowed_and_sb_sc_is_forbidden() {
    let m = Model::default();
    assert!(allowed(&sb(Rlx), &m));
    assert!(
        !allowed(&sb(Sc), &m),
        "co-delays (A^sc, A^sc) close a ⊑ cycle"
    );
}

#[test]
fn corr_needs_read_read_coherence() {
    // C46 / catalogue A12: literal co-delays allow CoRR; (Rx, Rx) forbids it.
    let sk = litmus(&[
        vec![w(0, Rlx, Sys, X, 1)],
        vec![r(1, Rlx, Sys, X, 1), r(1, Rlx, Sys, X, 0)],
    ]);
    assert!(allowed(&sk, &Model::default()));
    assert!(!allowed(&sk, &with(&[("co_delays_rr", "on")])));
}

#[test]
fn tc16_wk_needs_weak_c8a() {
    // C16 / catalogue A3: allowed only if rf between weak accesses adds no ⊑.
    let sk = litmus(&[
        vec![r(0, Wk, Cta, X, 2), w(0, Wk, Cta, X, 1)],
        vec![r(1, Wk, Cta, X, 1), w(1, Wk, Cta, X, 2)],
    ]);
    assert!(!allowed(&sk, &with(&[("c8a", "strong")])));
    assert!(allowed(&sk, &with(&[("c8a", "weak")])));
}

#[test]
fn fence_publication_needs_fences_to_match() {
    // C06: forbidden with Fig. 1's c7a once rel/acq fences strongly-match;
    // allowed with the old direct c7a, and under the literal definitions.
    let sk = litmus(&[
        vec![w(0, Rlx, Sys, X, 1), f(0, Rel), w(0, Rlx, Sys, Y, 1)],
        vec![r(1, Rlx, Sys, Y, 1), f(1, Acq), r(1, Rlx, Sys, X, 0)],
    ]);
    assert!(allowed(&sk, &with(&[("fence_match", "literal")])));
    assert!(!allowed(&sk, &with(&[("fence_match", "fences")])));
    assert!(!allowed(
        &sk,
        &with(&[("fence_match", "fences"), ("c7a", "closure_po")])
    ));
    assert!(allowed(
        &sk,
        &with(&[("fence_match", "fences"), ("c7a", "direct")])
    ));
}

#[test]
fn sc_fences_order_rwc_only_with_c7b() {
    // C52 (Lahav et al. 2017, Fig. 5).
    let sk = litmus(&[
        vec![w(0, Rlx, Sys, X, 1)],
        vec![r(1, Rlx, Sys, X, 1), f(1, Sc), r(1, Rlx, Sys, Y, 0)],
        vec![w(2, Rlx, Sys, Y, 1), f(2, Sc), r(2, Rlx, Sys, X, 0)],
    ]);
    assert!(!allowed(&sk, &Model::default()));
    assert!(allowed(&sk, &with(&[("c7b", "off")])));
}

#[test]
fn acquire_reads_orders_prior_same_location_reads_only_under_ptx() {
    // C07: allowed by Fig. 1's sync-delays, forbidden with footnote 1's (R x, R^acq x).
    let sk = litmus(&[
        vec![w(0, Rlx, Sys, X, 1), w(0, Rel, Sys, Y, 1)],
        vec![
            r(1, Rlx, Sys, Y, 1),
            w(1, Rlx, Sys, Y, 2),
            r(1, Acq, Sys, Y, 2),
            r(1, Rlx, Sys, X, 0),
        ],
    ]);
    assert!(allowed(&sk, &Model::default()));
    assert!(!allowed(&sk, &with(&[("ptx_acq_sync", "on")])));
}

#[test]
fn partial_rf_lists_every_candidate() {
    // MP relaxed, reading y=1 and x=0: each read may also go unfulfilled.
    let sk = mp(Rlx, Rlx);
    let found =
        candidates(&sk, &Model::default(), &OwnCtas, RfMode::Partial, 10_000).expect("small");
    assert_eq!(found.len(), 4, "{{none, Wy1}} × {{none, Wx0}}");
}

#[test]
fn the_budget_is_a_stated_limit() {
    let sk = mp(Rlx, Rlx);
    let partial = candidates(&sk, &Model::default(), &OwnCtas, RfMode::Partial, 2);
    assert!(
        partial.is_err(),
        "a tiny budget must report that it ran out"
    );
}
#[test]
fn witnesses_say_which_rule_put_each_edge() {
    // MP with rel/acq, reading x = 1: a candidate whose edges carry their rules.
    let sk = litmus(&[
        vec![w(0, Rlx, Sys, X, 1), w(0, Rel, Sys, Y, 1)],
        vec![r(1, Acq, Sys, Y, 1), r(1, Rlx, Sys, X, 1)],
    ]);
    let m = Model::default();
    let mut search = Search::new(&sk, &m, &OwnCtas, 10_000);
    let witness = search
        .decide(&[None, None, None, None, Some(3), Some(2)])
        .expect("allowed");
    let has = |k, a, b, why| witness.edges.contains(&(k, a, b, why));
    assert!(
        has(OrderKind::Sync, 2, 3, Reason::SyncDelays),
        "s7a: (a, W^rel)"
    );
    assert!(
        has(OrderKind::Sync, 3, 4, Reason::C7a),
        "c7a: the release/acquire pair synchronises"
    );
    assert!(has(OrderKind::Dep, 3, 4, Reason::C6), "c6: rf in ⊴");
    assert!(has(OrderKind::Loc, 2, 5, Reason::C8a), "c8a: rf in ⊑");
    assert!(witness.orders.sync.has(2, 5), "closure: Wx1 ≤ Rx1");
}

/// One generated event: a kind (0 read, 1 write, 2 fence, 3 an RMW's read
/// and write), a mode, a scope, a location, a value, and whether it depends
/// on the thread's previous read.
type Gen = (u8, u8, u8, u32, i64, bool);

/// Threads of generated events after the initial writes, as `litmus` lays
/// them out, with each RMW's pair and each chosen dependency.
fn generated(threads: &[Vec<Gen>]) -> Skeleton {
    const MODES: [Mode; 5] = [Wk, Rlx, Acq, Rel, Sc];
    const SCOPES: [Scope; 3] = [Cta, Gpu, Sys];
    let mut rmw = Vec::new();
    let mut deps = Vec::new();
    let mut acts = Vec::new();
    let mut next = 2;
    for (t, events) in threads.iter().enumerate() {
        let t = t as ThreadId;
        let mut thread = Vec::new();
        let mut last_read = None;
        for &(kind, mode, scope, loc, value, dep) in events {
            let (m, s) = (MODES[mode as usize % 5], SCOPES[scope as usize % 3]);
            let at = next + thread.len();
            if let (true, Some(r)) = (dep, last_read) {
                deps.push((r, at));
            }
            match kind % 4 {
                0 => {
                    thread.push(r(t, m, s, loc, value));
                    last_read = Some(at);
                }
                1 => thread.push(w(t, m, s, loc, value)),
                2 => thread.push(f(t, m)),
                _ => {
                    thread.push(r(t, m, s, loc, value));
                    thread.push(w(t, m, s, loc, value + 1));
                    rmw.push((at, at + 1));
                    last_read = Some(at);
                }
            }
        }
        next += thread.len();
        acts.push(thread);
    }
    let mut sk = litmus(&acts);
    sk.rmw = rmw;
    for (a, b) in deps {
        sk.dep.add(a, b);
    }
    sk
}

#[test]
fn cutting_rf_prefixes_loses_no_candidate() {
    // The search cuts an rf once the reads given a source so far have no
    // candidate (`Search::prefix_can_complete`). Against it: every rf tried
    // and decided, under a random setting of every option, in both modes.
    use proptest::prelude::*;
    let event = (0u8..4, 0u8..5, 0u8..3, 0u32..2, 0i64..2, any::<bool>());
    let thread = proptest::collection::vec(event, 1..4);
    let threads = proptest::collection::vec(thread, 2..4);
    let options = proptest::collection::vec(0usize..8, Model::OPTIONS.len());
    let cases = crate::gen::cases(300);
    crate::gen::run_property(
        "rf prefixes",
        cases,
        (threads, options, any::<bool>()),
        |(threads, options, total)| {
            let sk = generated(&threads);
            let mut model = Model::default();
            for (o, &k) in Model::OPTIONS.iter().zip(&options) {
                model
                    .set(o.name, o.values[k % o.values.len()])
                    .expect("a listed value");
            }
            let mode = if total {
                RfMode::Total
            } else {
                RfMode::Partial
            };
            let budget = 10_000_000;
            let Ok(cut) = candidates(&sk, &model, &OwnCtas, mode, budget) else {
                return Ok(crate::gen::Checked::Skipped);
            };
            let mut every = Vec::new();
            let mut search = Search::new(&sk, &model, &OwnCtas, budget);
            let complete = search.each_rf(mode, &mut |s, rf, visit| {
                if visit == Visit::Whole {
                    if let Ok(found) = s.decide(rf) {
                        every.push(found.rf);
                    }
                }
                true
            });
            prop_assert!(complete, "the uncut search ran out of budget");
            let cut: Vec<_> = cut.into_iter().map(|found| found.rf).collect();
            prop_assert_eq!(
                cut,
                every,
                "{:?} under {}",
                sk.labels,
                model.non_defaults().join(" ")
            );
            Ok(crate::gen::Checked::Yes)
        },
    );
}

#[test]
fn cutting_parts_without_a_candidate_loses_no_state() {
    // The product of threads cuts a choice of the first threads whose part
    // has no candidate (`Limits::parts`). Against it: every combination
    // decided, on random programs of up to five threads under a few
    // settings that change which candidates exist.
    use crate::gen::{self, Checked};
    use pomset::outcome::Limits;
    use proptest::prelude::*;
    const SETTINGS: [(&str, &str); 6] = [
        ("init", "rlx"),
        ("c8b", "strong"),
        ("rfi_acq_weakening", "on"),
        ("acyclic_union", "on"),
        ("orders", "single"),
        ("final", "observer"),
    ];
    gen::run_property(
        "parts cut",
        gen::cases(60),
        (gen::test(), 0usize..SETTINGS.len()),
        |(t, setting)| {
            let (text, p, model) = gen::program_under(&t, SETTINGS[setting])?;
            let limits = Limits {
                max_steps: 2_000_000,
                max_states: 20_000,
                ..Limits::default()
            };
            let plain = |l| Limits { parts: false, ..l };
            let (plain, cut) = match gen::pwt_plain_and_pruned(&p, &model, limits, plain) {
                Ok(both) => both,
                Err(why) => return Ok(gen::skipped(&why, &t)),
            };
            prop_assert_eq!(&plain.states, &cut.states, "states differ for\n{}", text);
            prop_assert_eq!(
                plain.witnesses,
                cut.witnesses,
                "witnesses differ for\n{}",
                text
            );
            Ok(Checked::Yes)
        },
    );
}
