//! The contextual search under any engine: put a refinement's source and
//! target in thread P0 beside small context threads (reads, writes and
//! fences on the fragment's locations), decide both programs with one
//! [`Engine`], and look for a final state the target allows and the source
//! forbids, projected on the registers and locations both programs show.
//!
//! The answer is a distinguishing test or "none up to the bound": a cat
//! model has no local check, so this search never says "sound".

use crate::engine::{Capability, Engine};
use crate::model::Model;
use crate::outcome::{Limits, Outcomes, State};
use crate::refinement::Refinement;
use crate::syntax;

/// How far the search looks.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Generated context threads beside the file's own (1 or 2).
    pub threads: usize,
    /// Contexts tried at most.
    pub max_contexts: usize,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            threads: 2,
            max_contexts: 400,
        }
    }
}

impl Bound {
    /// The bound as the answer names it.
    pub fn text(&self, req: &Refinement) -> String {
        let v: Vec<String> = req.program.values.iter().map(i64::to_string).collect();
        let threads = crate::report::count(self.threads, "context thread");
        format!(
            "{threads} of at most 2 accesses and a fence each over V = {{{}}}",
            v.join(", ")
        )
    }
}

/// What the search found.
#[derive(Clone, Debug)]
pub enum Found {
    /// A test whose target version allows an outcome (or raises a flag)
    /// that its source version does not.
    Counterexample(Counterexample),
    /// No context within the bound tells them apart.
    NoneUpTo {
        bound: String,
        tried: usize,
        /// Contexts left out: the source raised a flag (undefined
        /// behaviour) or a limit stopped a decision.
        skipped: usize,
    },
    /// The engine cannot decide these programs.
    Unknown(String),
}

/// A distinguishing test, in both versions, and what tells them apart.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The test with the target in P0, its condition reached.
    pub target_test: String,
    /// The same test with the source in P0, its condition not reached.
    pub source_test: String,
    /// The condition, or the flag the target alone raises.
    pub witness: Witness,
    pub tried: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Witness {
    /// `exists (...)`: reached with the target, never with the source.
    Outcome(String),
    /// A cat model's flag (undefined behaviour) raised with the target alone.
    Flag(String),
}

/// Searches the contexts within `bound` for a test telling `req`'s source
/// and target apart under `engine`.
pub fn search(req: &Refinement, engine: &dyn Engine, model: &Model, bound: Bound) -> Found {
    let limits = Limits {
        symmetry: engine.can(Capability::Symmetry),
        orbits: false,
        max_pomsets: 50_000,
        ..Limits::default()
    };
    let mut tried = 0;
    let mut skipped = 0;
    for ctx in contexts(req, bound.threads) {
        if tried >= bound.max_contexts {
            break;
        }
        tried += 1;
        let threads: Vec<String> = req.context.iter().cloned().chain(ctx).collect();
        let text = |body: &str, cond: &str| test_text(req, body, &threads, cond);
        let (Ok(src), Ok(tgt)) = (
            syntax::parse(&text(&req.source_text, "")),
            syntax::parse(&text(&req.target_text, "")),
        ) else {
            skipped += 1;
            continue;
        };
        let so = match engine.outcomes(&src.program, model, limits) {
            Ok(o) => o,
            Err(why) => return Found::Unknown(why),
        };
        let to = match engine.outcomes(&tgt.program, model, limits) {
            Ok(o) => o,
            Err(why) => return Found::Unknown(why),
        };
        // A limit, or undefined behaviour in the source (a raised flag:
        // every outcome is then allowed to the target), decides nothing.
        if so.limit.is_some() || to.limit.is_some() || !so.flags.is_empty() {
            skipped += 1;
            continue;
        }
        let Some(witness) = distinguish(&so, &to) else {
            continue;
        };
        let cond = match &witness {
            Witness::Outcome(c) => format!("exists ({c})\n  expect allowed\n"),
            Witness::Flag(_) => String::new(),
        };
        let printed = |body: &str| {
            let t = text(body, &cond);
            syntax::format(&t).unwrap_or(t)
        };
        return Found::Counterexample(Counterexample {
            target_test: printed(&req.target_text),
            source_test: printed(&req.source_text),
            witness,
            tried,
        });
    }
    Found::NoneUpTo {
        bound: bound.text(req),
        tried,
        skipped,
    }
}

/// The test with `body` in P0, the threads after it, then `cond`.
fn test_text(req: &Refinement, body: &str, threads: &[String], cond: &str) -> String {
    let values: Vec<String> = req.program.values.iter().map(i64::to_string).collect();
    let mut t = format!(
        "litmus {}-CTX \"refinement {}: the target in P0; with the source there, the outcome is forbidden\"\n",
        req.name, req.name
    );
    if !req.header.contains("values") {
        t.push_str(&format!("values {{{}}}\n", values.join(", ")));
    }
    t.push_str(&format!("{}\n{body}\n", req.header));
    for th in threads {
        t.push_str(&format!("|| {th}\n"));
    }
    t.push_str(cond);
    t
}

/// What tells the target's outcomes from the source's: a flag only the
/// target raises, or a target state (projected on what both show) that
/// no source state agrees with.
pub fn distinguish(so: &Outcomes, to: &Outcomes) -> Option<Witness> {
    if let Some((f, _)) = to
        .flags
        .iter()
        .find(|(f, _)| so.flags.iter().all(|g| &g.0 != f))
    {
        return Some(Witness::Flag(f.clone()));
    }
    let common: Vec<String> = keys(so)
        .into_iter()
        .filter(|k| keys(to).contains(k))
        .collect();
    for t in to.states.keys() {
        // The target state's determined values on the common names.
        let atoms: Vec<(String, i64)> = named(t)
            .filter(|(k, _)| common.contains(k))
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        if atoms.is_empty() {
            continue;
        }
        // A source state with a value left undetermined (a register whose
        // read the pomset semantics dropped, `?`) may hold any value there:
        // it counts as reaching the atom, so no outcome is called forbidden
        // to the source that one of its states could show.
        let reached = so.states.keys().any(|s| {
            atoms
                .iter()
                .all(|(k, v)| named(s).any(|(n, x)| &n == k && x.is_none_or(|x| x == *v)))
        });
        if !reached {
            let c: Vec<String> = atoms.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            return Some(Witness::Outcome(c.join(" /\\ ")));
        }
    }
    None
}

/// A state's values by the names a condition uses (`P1:r`, `[x]`).
fn named(s: &State) -> impl Iterator<Item = (String, Option<i64>)> + '_ {
    s.regs
        .iter()
        .cloned()
        .chain(s.mem.iter().map(|(k, x)| (format!("[{k}]"), *x)))
}

fn keys(o: &Outcomes) -> Vec<String> {
    let mut k: Vec<String> = o
        .states
        .keys()
        .flat_map(|s| named(s).map(|(n, _)| n).collect::<Vec<_>>())
        .collect();
    k.sort();
    k.dedup();
    k
}

/// The contexts, smallest first: none, then one generated thread, then
/// (with `threads` = 2) each unordered pair.
fn contexts(req: &Refinement, threads: usize) -> Vec<Vec<String>> {
    let locs: Vec<String> = req.program.locs.iter().map(|l| l.name.clone()).collect();
    let values: Vec<i64> = req
        .program
        .values
        .iter()
        .copied()
        .filter(|&v| v != 0)
        .take(2)
        .collect();
    let (a, b) = (
        crate::refinement::templates(&locs, &values, "a"),
        crate::refinement::templates(&locs, &values, "b"),
    );
    let mut out: Vec<Vec<String>> = vec![vec![]];
    out.extend(a.iter().map(|t| vec![t.clone()]));
    if threads >= 2 {
        for (i, x) in a.iter().enumerate() {
            for y in &b[i..] {
                out.push(vec![x.clone(), y.clone()]);
            }
        }
    }
    out
}
