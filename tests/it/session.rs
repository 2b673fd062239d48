//! A sweep's threads built once (`engine::pwt::session`, `Limits::reuse`):
//! a family of programs that share threads, decided one after another in
//! the sessions of one OS thread, gets for each program the outcomes of a
//! fresh decision:
//! the same states, counts, witnesses, flags and notes.
//! `PROPTEST_CASES=N` raises the number of families.

use crate::gen;

use gen::{cases, Checked};
use pomset::engine::pwt::decide;
use pomset::outcome::{Limits, Outcomes};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A few settings that change how threads are built (if-closure, merging,
/// the initial writes, an observer of the final memory).
const SETTINGS: [(&str, &str); 5] = [
    ("init", "rlx"),
    ("if_closure", "registers"),
    ("merge", "binary"),
    ("init", "wk"),
    ("final", "observer"),
];

/// One step stronger where the mode has one in the vocabulary the
/// generator uses: what a sweep's mode variants differ by.
fn stronger(mode: &'static str, write: bool) -> &'static str {
    match (mode, write) {
        ("wk", _) => "rlx",
        ("rlx", false) => "acq",
        ("rlx", true) => "rel",
        (m, _) => m,
    }
}

fn strengthen(body: &mut [gen::Stmt]) {
    for s in body {
        match s {
            gen::Stmt::Read { mode, .. } => *mode = stronger(mode, false),
            gen::Stmt::Write { mode, .. } => *mode = stronger(mode, true),
            gen::Stmt::If { then, els, .. } => {
                strengthen(then);
                strengthen(els);
            }
            gen::Stmt::Loop { body, .. } => strengthen(body),
            _ => {}
        }
    }
}

/// The family of `t`: itself, its threads reversed (usually another
/// session: other registers in another order), each thread of `t`
/// strengthened in turn (back in `t`'s session), itself again (every
/// thread then built before), and the reversed threads again.
fn family(t: &gen::Test) -> Vec<gen::Test> {
    let reversed: Vec<usize> = (0..t.threads.len()).rev().collect();
    let reversed = t.permute_threads(&reversed);
    let mut f = vec![t.clone(), reversed.clone()];
    for k in 0..t.threads.len() {
        let mut v = t.clone();
        strengthen(&mut v.threads[k].body);
        f.push(v);
    }
    f.push(t.clone());
    f.push(reversed);
    f
}

fn comparable(o: &Outcomes) -> impl PartialEq + std::fmt::Debug + '_ {
    (&o.states, o.witnesses, &o.limit, &o.flags, &o.notes)
}

#[test]
fn a_sweeps_reused_threads_give_each_programs_own_outcomes() {
    let families = (gen::tiny(), 0usize..SETTINGS.len());
    gen::run_property("reused threads", cases(40), families, |(t, setting)| {
        let limits = Limits {
            max_steps: 1_000_000,
            max_states: 20_000,
            one_core: true,
            ..Limits::default()
        };
        let mut skipped = None;
        for member in family(&t) {
            let (text, p, model) = gen::program_under(&member, SETTINGS[setting])?;
            let run = |reuse| {
                decide::outcomes(&p, &model, Limits { reuse, ..limits })
                    .map_err(|e| TestCaseError::fail(format!("{e:?}")))
            };
            let (fresh, reused) = (run(false)?, run(true)?);
            if let Some(why) = &fresh.limit {
                skipped.get_or_insert(why.clone());
            }
            prop_assert_eq!(
                comparable(&fresh),
                comparable(&reused),
                "a reused thread changed the outcomes of\n{}",
                text
            );
        }
        Ok(match skipped {
            Some(why) => gen::skipped(&why, &t),
            None => Checked::Yes,
        })
    });
}
