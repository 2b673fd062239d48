//! `pomset pomsets`: the complete (or candidate) pomsets of a test.

use super::args::{load, Ctx, LimitArgs};
use std::path::Path;

use crate::workbench::pomset_listing;

pub fn pomsets(
    path: &Path,
    outcome: Option<&str>,
    sets: &[String],
    (limit, limit_args): (usize, LimitArgs),
    cx: Ctx,
) -> Result<bool, String> {
    let Some((test, model)) = load(path, outcome, sets, cx)? else {
        return Ok(false);
    };
    let p = &test.program;
    let filter = outcome
        .and_then(|_| p.conditions.last())
        .map(|c| c.prop.clone());
    let limits = limit_args.limits();
    let listing = pomset_listing(p, &model, filter.as_ref(), limits);
    if let Some(refusal) = &listing.unsupported {
        return Err(refusal.clone());
    }
    for shown in listing.pomsets.iter().take(limit) {
        println!("{shown}");
    }
    println!("{}", listing.summary(limit));
    Ok(true)
}

pub fn candidate_pomsets(
    path: &Path,
    sets: &[String],
    (limit, limit_args): (usize, LimitArgs),
    cx: Ctx,
) -> Result<bool, String> {
    let Some((test, model)) = load(path, None, sets, cx)? else {
        return Ok(false);
    };
    let listing =
        crate::workbench::candidate_listing(&test.program, &model, limit_args.limits(), limit)?;
    for shown in &listing.pomsets {
        println!("{shown}");
    }
    println!("{}", listing.summary());
    Ok(true)
}
