//! `explain` agrees with `run` and never gives an empty reason: for every
//! bundled example and for random programs, a proposition that `run` never
//! observes is explained as forbidden with at least one non-empty reason,
//! and one that `run` observes is not explained as forbidden. This calls the
//! library entry `semantics::explain::explain`, which `pomset explain`
//! (`cli::explain_text`) prints. `PROPTEST_CASES=N` raises the number of
//! random programs.

use crate::gen;

use std::path::{Path, PathBuf};

use gen::{cases, Checked};
use pomset::engine::pwt::decide;
use pomset::engine::pwt::explain::explain;
use pomset::model::Model;
use pomset::outcome::verdict::{self, Observation};
use pomset::syntax::{
    self,
    core::{Program, Prop},
};
use proptest::test_runner::TestCaseError;

/// Reason lines: what follows the headline, with list markers stripped.
fn reasons(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .skip(1)
        .map(|l| l.trim().trim_start_matches('-').trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Checks every condition of `p` under `model`; the error says which and why.
/// Returns how many conditions were compared and how many a limit skipped
/// (all of them when `run` stops at one).
fn agree(p: &Program, model: &Model, text: &str) -> Result<(usize, usize), String> {
    if decide::refused(model).is_err() {
        return Ok((0, 0));
    }
    let o = match decide::outcomes(p, model, pomset::outcome::Limits::default()) {
        Ok(o) if o.limit.is_none() => o,
        _ => return Ok((0, p.conditions.len())),
    };
    let (mut compared, mut skipped) = (0, 0);
    for (i, c) in p.conditions.iter().enumerate() {
        let Some(obs) = verdict::judge(p, c, &o, model).observation else {
            continue;
        };
        // `run` observes only states within `filter`; explain answers for
        // every state, so it is asked about the filter and the proposition.
        let prop = match &p.filter {
            Some(f) => Prop::And(Box::new(f.clone()), Box::new(c.prop.clone())),
            None => c.prop.clone(),
        };
        let e = explain(p, model, &prop).map_err(|u| format!("explain refused: {u:?}"))?;
        if e.lines.iter().any(|l| l.contains("search limit")) {
            skipped += 1;
            continue;
        }
        compared += 1;
        let fail = |why: &str| {
            Err(format!(
                "condition {} ({obs:?} by run): {why}\nexplain said:\n  {}\nprogram:\n{text}",
                i + 1,
                e.lines.join("\n  ")
            ))
        };
        match obs {
            Observation::Never if e.reachable => return fail("explain says reachable"),
            Observation::Never if reasons(&e.lines).is_empty() => {
                return fail("explain says forbidden without a reason")
            }
            Observation::Never => {}
            _ if !e.reachable => return fail("explain says forbidden"),
            _ => {}
        }
    }
    Ok((compared, skipped))
}

fn examples(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            examples(&path, out);
        } else if path.extension().is_some_and(|x| x == "litmus") {
            out.push(path);
        }
    }
}

#[test]
fn explain_agrees_with_run_on_every_example() {
    let mut paths = Vec::new();
    examples(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &mut paths,
    );
    paths.sort();
    assert!(paths.len() > 50, "examples not found");
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable example");
        let p = syntax::parse(&text).expect("examples parse").program;
        match agree(&p, &p.model, &text) {
            Ok((n, _)) => compared += n,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!("{compared} conditions of {} examples compared", paths.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn explain_agrees_with_run_on_random_programs() {
    gen::run_property("explain", cases(100), gen::test(), |t| {
        let text = t.text();
        let p = syntax::parse(&text)
            .map_err(|d| TestCaseError::fail(d.render("gen", &text)))?
            .program;
        match agree(&p, &Model::default(), &text).map_err(TestCaseError::fail)? {
            (_, 0) => Ok(Checked::Yes),
            _ => Ok(gen::skipped("a limit", &t)),
        }
    });
}
