//! `pomset explain`: why an outcome is reached or not, under any model that explains.

use std::path::Path;

use super::args::{engine_named, load, lowered, Ctx};
use crate::engine::{require, Capability};

/// `pomset explain`: for each chosen condition (the one given, else every
/// condition of the file), the model's account of its outcome: the failing
/// rule for each way to reach it (pwt), or the checks that fail on each
/// candidate execution reaching it (a cat model).
pub fn explain(
    path: &Path,
    (condition, sets): (Option<&str>, &[String]),
    (model, mapping): (&str, Option<&str>),
    limits: crate::outcome::Limits,
    cx: Ctx,
) -> Result<bool, String> {
    let engine = lowered(engine_named(model, cx.color)?, model, mapping)?;
    require(engine.as_ref(), Capability::Explain)?;
    let Some((test, options)) = load(path, condition, sets, cx)? else {
        return Ok(false);
    };
    let p = &test.program;
    let chosen: Vec<usize> = match condition {
        Some(_) => vec![p.conditions.len() - 1],
        None => (0..p.conditions.len()).collect(),
    };
    print!("{}", engine.explain(p, &options, &chosen, &limits)?);
    Ok(true)
}
