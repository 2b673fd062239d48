//! Deciding and refining, with plain values in and out.

use serde::Serialize;

use crate::engine::Engine;

/// Decides one test with a model's engine (`engine::named`): its report,
/// or the report of what the engine cannot do.
pub use crate::engine::decide;

/// A refinement decided: the verdict, the report as `pomset refine` prints
/// it, and the distinguishing test when there is one.
#[derive(Clone, Debug, Serialize)]
pub struct Refined {
    pub name: String,
    pub verdict: &'static str,
    pub expected: Option<&'static str>,
    pub counterexample: Option<String>,
    pub text: String,
    /// The model it was decided under (`pwt`, `rc11`, ...).
    pub model: String,
    /// The limit that stopped it (the verdict is then unknown), named.
    pub limit: Option<String>,
    /// A context search that went through: the contexts of the bound and
    /// how many were vacuous (the source undefined there: they tested
    /// nothing). `None` where no search answered.
    pub contexts: Option<usize>,
    pub vacuous: Option<usize>,
    /// Of those, how many lay outside the model (the source unsupported).
    pub outside: Option<usize>,
}

/// Decides a refinement file's text (`refine`/`source`/`target`) under its
/// model with the overrides, by the pomset semantics.
pub fn refine(
    src: &str,
    sets: &[String],
    limits: crate::refinement::Limits,
) -> Result<Refined, super::Problem> {
    refine_under(src, sets, &crate::engine::pwt::Pwt, limits)
}

/// Decides a refinement file's text under `engine`, as `pomset refine
/// --model M` does: the pomset semantics (`pwt`, `pwt[OPTION=VALUE]`) by
/// its local check and the context search, any other model by the context
/// search alone (`limits.contexts`, the default bound when `None`), whose
/// answer is unsound or no counterexample in the bound, never sound.
pub fn refine_under(
    src: &str,
    sets: &[String],
    engine: &dyn Engine,
    limits: crate::refinement::Limits,
) -> Result<Refined, super::Problem> {
    use crate::transform::Found;
    let req = crate::refinement::parse_refinement(src).map_err(|d| {
        super::Failed {
            diagnostics: d,
            file: "refinement".into(),
            text: src.to_string(),
        }
        .problem()
    })?;
    let mut model = req.program.model;
    super::apply_sets(&mut model, sets).map_err(super::Problem::message)?;
    let model = engine.options(&model);
    let name = engine.name().to_string();
    if engine.can(crate::engine::Capability::LocalRefine) {
        let report = crate::refinement::refine(&req, &model, limits)
            .map_err(|e| super::Problem::message(format!("Refinement {}: {e}", req.name)))?;
        return Ok(Refined {
            name: report.name.clone(),
            verdict: report.word(),
            expected: report.expect.map(|v| v.as_str()),
            counterexample: report.counterexample.clone(),
            text: report.text(),
            model: name,
            limit: report.limit.clone(),
            contexts: None,
            vacuous: None,
            outside: None,
        });
    }
    let head = format!("Refinement {} under {name}", req.name);
    let bound = limits.contexts.unwrap_or_default();
    let found = crate::transform::search(&req, engine, &model, bound, limits.run);
    let (verdict, counterexample, limit) = match &found {
        Found::Counterexample(c) => ("unsound", Some(c.target_test.clone()), None),
        Found::NoneUpTo {
            total,
            vacuous,
            outside,
            ..
        } if crate::transform::context::mostly_vacuous(*total, vacuous + outside) => {
            ("vacuous", None, None)
        }
        Found::NoneUpTo { .. } => ("no counterexample", None, None),
        Found::Stopped { limit, .. } => ("unknown", None, Some(limit.clone())),
        Found::Unknown(_) => ("unknown", None, None),
    };
    Ok(Refined {
        name: req.name.clone(),
        verdict,
        expected: None,
        counterexample,
        text: crate::transform::found_text(&head, &found),
        model: name,
        limit,
        contexts: match &found {
            Found::NoneUpTo { total, .. } => Some(*total),
            _ => None,
        },
        vacuous: match &found {
            Found::NoneUpTo { vacuous, .. } => Some(*vacuous),
            _ => None,
        },
        outside: match &found {
            Found::NoneUpTo { outside, .. } => Some(*outside),
            _ => None,
        },
    })
}
