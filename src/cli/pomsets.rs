//! `pomset pomsets`: the complete (or candidate) pomsets of a test.

use super::args::{load, Ctx, LimitArgs};
use std::path::{Path, PathBuf};

use crate::workbench::pomset_listing;

/// The examples and notes under `pomset pomsets --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset pomsets examples/classic/mp+rel+acq.litmus
  pomset pomsets examples/classic/lb+false-dep.litmus --outcome 'P0:r = 1 /\\ P1:s = 1'
  pomset pomsets --candidates examples/classic/lb+datas.litmus

Each pomset lists its events (`P1:R^acq y1` is thread P1's acquire read of
y = 1), its rf, and the covering edges of the dependency (⊴), sync (≤) and
per-location (⊑) orders, each with the rule that put it there (s3, s7a, s8a,
c6, c7a, c7b, c8a, c8b, M8a, M9b, M9c, §12). Every event of a complete pomset
has a tautological precondition, so none is printed.

--candidates lists candidates (§1.3) instead: an rf (each read has at most one
source) and orders that satisfy c2a-c8b, complete or not. Events read
`κ | label`, where κ names a read's value by its event (`s3` is e3's value) and
is left out when it is a tautology; a ✓ line shows a termination condition that
is not one. Each candidate says what keeps it from being complete (c2b, c3,
c5). For each event, the smallest dependency sets ↓e giving each distinct κ
are listed; larger ones add order only.";

/// `pomset pomsets`' flags.
#[derive(clap::Args, Debug)]
pub struct PomsetsArgs {
    /// The litmus file (or a test in another tool's format: herd7 C, PTX, .lit).
    pub path: PathBuf,
    /// Only pomsets whose final state satisfies this proposition.
    #[arg(long, value_name = "CONDITION")]
    pub outcome: Option<String>,
    /// The complete pomsets (the default).
    #[arg(long)]
    pub complete: bool,
    /// Candidate pomsets, complete or not (§1.3).
    #[arg(long, conflicts_with = "complete")]
    pub candidates: bool,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
    /// Print at most this many pomsets.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pomset pomsets`: the complete pomsets, or with `--candidates` the candidates.
pub fn pomsets(args: &PomsetsArgs, cx: Ctx) -> Result<bool, String> {
    let limits = (args.limit, args.limits);
    if !args.candidates {
        return complete(&args.path, args.outcome.as_deref(), &args.set, limits, cx);
    }
    if args.outcome.is_some() {
        return Err("--outcome selects complete pomsets by their final state, which a candidate need not have; drop --outcome or --candidates".to_string());
    }
    candidate_pomsets(&args.path, &args.set, limits, cx)
}

fn complete(
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

fn candidate_pomsets(
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
