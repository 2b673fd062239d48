//! Invariance: permuting threads, renaming registers and locations, and
//! adding an unrelated thread change neither the set of final states (up to
//! the renaming, with the added thread's state projected away) nor any
//! condition's verdict. At most 5% of programs may stop at a limit.
//! `PROPTEST_CASES=N` raises the number of programs.

use crate::gen;

use std::collections::BTreeSet;

use gen::{cases, Checked};
use pomset::engine::pwt::decide;
use pomset::model::Model;
use pomset::outcome::verdict::{self, Observation};
use pomset::outcome::{Outcomes, State};
use pomset::syntax::{self, core::Program};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A state as a set of named values, so that the order of threads and
/// locations in the listing does not matter.
type Named = BTreeSet<(String, Option<i64>)>;

fn named(s: &State) -> Named {
    s.regs.iter().chain(&s.mem).cloned().collect()
}

/// The program's states and each condition's observation; `None` at a limit.
fn decide(t: &gen::Test) -> Result<Option<(Program, Outcomes, Vec<Observation>)>, TestCaseError> {
    let text = t.text();
    let p = syntax::parse(&text)
        .map_err(|d| {
            TestCaseError::fail(format!(
                "does not check:\n{text}\n{}",
                d.render("gen", &text)
            ))
        })?
        .program;
    let model = Model::default();
    let o = match decide::outcomes(&p, &model, pomset::outcome::Limits::default()) {
        Ok(o) if o.limit.is_none() => o,
        _ => return Ok(None),
    };
    let obs = p
        .conditions
        .iter()
        .filter_map(|c| verdict::judge(&p, c, &o, &model).observation)
        .collect();
    Ok(Some((p, o, obs)))
}

/// States renamed by `rename` (on `thread:reg` and location names), with
/// the names `drop` says to project away removed.
fn states(
    o: &Outcomes,
    rename: &dyn Fn(&str) -> String,
    drop: &dyn Fn(&str) -> bool,
) -> BTreeSet<Named> {
    o.states
        .keys()
        .map(|s| {
            named(s)
                .into_iter()
                .filter(|(n, _)| !drop(n))
                .map(|(n, v)| (rename(&n), v))
                .collect()
        })
        .collect()
}

/// Compares `t` with its transform `u`; `rename` maps t's names to u's.
fn same(
    t: &gen::Test,
    u: &gen::Test,
    what: &str,
    rename: &dyn Fn(&str) -> String,
    drop: &dyn Fn(&str) -> bool,
) -> Result<Checked, TestCaseError> {
    let (Some((_, a, va)), Some((_, b, vb))) = (decide(t)?, decide(u)?) else {
        return Ok(gen::skipped("a limit", t));
    };
    let keep_all = |_: &str| false;
    let sa = states(&a, rename, &keep_all);
    let sb = states(&b, &|n: &str| n.to_string(), drop);
    if sa != sb || va != vb {
        let only_a: Vec<_> = sa.difference(&sb).take(4).collect();
        let only_b: Vec<_> = sb.difference(&sa).take(4).collect();
        return Err(TestCaseError::fail(format!(
            "{what} changed the outcome\noriginal:\n{}\ntransformed:\n{}\nverdicts {:?} vs {:?}\nstates only in the original (renamed): {only_a:?}\nstates only in the transformed: {only_b:?}",
            t.text(),
            u.text(),
            va,
            vb
        )));
    }
    // The same number of states (the renamings are injective, the added
    // thread's states project back one to one per original state).
    if a.states.len() != b.states.len() && what != "adding an unrelated thread" {
        return Err(TestCaseError::fail(format!(
            "{what} changed the number of states: {} vs {}\n{}",
            a.states.len(),
            b.states.len(),
            t.text()
        )));
    }
    Ok(Checked::Yes)
}

/// A permutation of 0..n from a seed (Fisher-Yates with a small LCG).
fn permutation(n: usize, mut seed: u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (seed >> 33) as usize % (i + 1);
        p.swap(i, j);
    }
    p
}

fn identity(n: &str) -> String {
    n.to_string()
}

#[test]
fn permuting_threads_changes_nothing() {
    let programs = (gen::test(), any::<u64>());
    gen::run_property("permuting threads", cases(100), programs, |(t, seed)| {
        let perm = permutation(t.threads.len(), seed);
        let u = t.permute_threads(&perm);
        same(&t, &u, "permuting threads", &identity, &|_| false)
    });
}

#[test]
fn renaming_registers_changes_nothing() {
    gen::run_property("renaming registers", cases(100), gen::test(), |t| {
        let f = |r: &str| format!("q{}", r.trim_start_matches('r'));
        let u = t.rename_registers(&f);
        // `P0:r3` becomes `P0:q3`; locations keep their names.
        let rename = |n: &str| match n.split_once(':') {
            Some((th, r)) => format!("{th}:{}", f(r)),
            None => n.to_string(),
        };
        same(&t, &u, "renaming registers", &rename, &|_| false)
    });
}

#[test]
fn renaming_locations_changes_nothing() {
    gen::run_property("renaming locations", cases(100), gen::test(), |t| {
        let f = |l: &str| format!("loc_{l}");
        let u = t.rename_locations(&f);
        let rename = |n: &str| if n.contains(':') { n.to_string() } else { f(n) };
        same(&t, &u, "renaming locations", &rename, &|_| false)
    });
}

#[test]
fn an_unrelated_thread_changes_nothing() {
    gen::run_property("an unrelated thread", cases(100), gen::test(), |t| {
        let (u, thread, loc) = t.add_unrelated_thread();
        let drop = |n: &str| n.starts_with(&thread) || n == loc;
        same(&t, &u, "adding an unrelated thread", &identity, &drop)
    });
}
