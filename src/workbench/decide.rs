//! Deciding, drawing and refining, with plain values in and out.

use serde::{Deserialize, Serialize};

use crate::engine::pwt::decide::{outcomes, settle_conditions};
use crate::model::Model;
use crate::outcome::{Limits, Unsupported};
use crate::report::Report;
use crate::syntax::core::{Program, Prop};
use crate::syntax::Litmus;

/// Which engine decides the pomset semantics (`run --engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// `semantics::decide`.
    #[default]
    Fast,
    /// The literal reference engine (tiny tests only).
    Reference,
    /// Sequential consistency by interleaving.
    Sc,
}

/// Decides one test with the chosen engine. What an engine cannot run is
/// an unsupported report, for every engine; `Err` is kept for callers that
/// print a line of their own, and is not produced today.
pub fn decide(
    p: &Program,
    model: &Model,
    engine: Engine,
    verdict_only: bool,
    limits: Limits,
) -> Result<Report, String> {
    let start = std::time::Instant::now();
    crate::memory::reset_peak();
    let (max_pomsets, deadline) = (limits.max_pomsets, limits.deadline);
    let unsupported = |u: Unsupported| {
        Report::unsupported(p, model, u.sentence("is not implemented by `run` yet"))
    };
    if verdict_only && engine == Engine::Fast {
        return Ok(match settle_conditions(p, model, limits) {
            Ok(found) => Report::settled(p, model, &found, start.elapsed()),
            Err(u) => unsupported(u),
        });
    }
    let decided = match engine {
        Engine::Fast => outcomes(p, model, limits),
        Engine::Reference => crate::engine::reference::outcomes(
            p,
            model,
            crate::engine::reference::Limits {
                max_pomsets,
                deadline: deadline.map(|d| d.0),
            },
        ),
        // Modes, scopes and model options mean nothing under SC.
        Engine::Sc => {
            let sc = crate::engine::sc::Limits {
                max_states: max_pomsets,
            };
            match crate::engine::sc::outcomes(p, sc) {
                Ok(o) => Ok(o),
                // Inside the report, as the other engines say it (and so in `--json`).
                Err(why) => return Ok(Report::unsupported(p, model, why.to_string())),
            }
        }
    };
    Ok(match decided {
        // A file's expectations are the note's verdicts, not SC's.
        Ok(o) if engine == Engine::Sc => {
            Report::new(p, model, &o, start.elapsed()).without_expectations()
        }
        Ok(o) => Report::new(p, model, &o, start.elapsed()),
        Err(u) => unsupported(u),
    })
}

/// Decides one test under a cat model. The file's expectations are the
/// note's verdicts, not the model's: not checked.
pub fn decide_cat(p: &Program, model: &Model, cat: &crate::cat::Model, limits: Limits) -> Report {
    let start = std::time::Instant::now();
    crate::memory::reset_peak();
    match crate::engine::axiomatic::outcomes(p, cat, limits) {
        Ok(o) => {
            let mut r = Report::new(p, model, &o, start.elapsed()).without_expectations();
            r.model = vec![cat.name.clone()];
            r
        }
        Err(why) => Report::unsupported(p, model, why),
    }
}

/// The complete pomsets (or a cat model's consistent executions) whose
/// final state satisfies `outcome`, each drawn alone in `opts.format`, with
/// how many there are in all and the limit that stopped the search.
pub fn draw_each(
    test: &Litmus,
    model: &Model,
    cat: Option<&crate::cat::Model>,
    outcome: Option<Prop>,
    opts: &crate::render::draw::DrawOptions,
) -> Result<(Vec<String>, usize, Option<String>), String> {
    use crate::render::draw::{pictures_counted, render};
    let opts = crate::render::draw::DrawOptions {
        outcome,
        ..opts.clone()
    };
    let drawn = match cat {
        Some(cat) => crate::render::execution::pictures(test, cat, &opts),
        None => pictures_counted(test, model, &opts),
    }
    .map_err(|e| e.to_string())?;
    let each = drawn
        .pictures
        .iter()
        .map(|pic| render(std::slice::from_ref(pic), &opts))
        .collect();
    Ok((each, drawn.in_all, drawn.limit))
}

/// A refinement decided: the verdict, the report as `pomset refine` prints
/// it, and the distinguishing test when there is one.
#[derive(Clone, Debug, Serialize)]
pub struct Refined {
    pub name: String,
    pub verdict: &'static str,
    pub expected: Option<&'static str>,
    pub counterexample: Option<String>,
    pub text: String,
}

/// Decides a refinement file's text (`refine`/`source`/`target`) under its
/// model with the overrides.
pub fn refine(
    src: &str,
    sets: &[String],
    limits: crate::refinement::Limits,
) -> Result<Refined, super::Problem> {
    use crate::refinement::{parse_refinement, refine};
    let req = parse_refinement(src).map_err(|d| {
        super::Failed {
            diagnostics: d,
            file: "refinement".into(),
            text: src.to_string(),
        }
        .problem()
    })?;
    let mut model = req.program.model;
    super::apply_sets(&mut model, sets).map_err(super::Problem::message)?;
    let report = refine(&req, &model, limits)
        .map_err(|e| super::Problem::message(format!("Refinement {}: {e}", req.name)))?;
    Ok(Refined {
        name: report.name.clone(),
        verdict: report.verdict().as_str(),
        expected: report.expect.map(|v| v.as_str()),
        counterexample: report.counterexample.clone(),
        text: report.text(),
    })
}
