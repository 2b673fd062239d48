//! `pomset explain`: why an outcome is reached or not, under any model that explains.

use std::path::PathBuf;

use super::args::{engine_named, load, lowered, Ctx, LimitArgs};
use crate::engine::{require, Capability};

/// The examples and notes under `pomset explain --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset explain examples/classic/mp+rel+acq.litmus
  pomset explain examples/classic/lb+datas.litmus 'P0:r = 1 /\\ P1:s = 1'
  pomset explain --set c7a=direct examples/catalogue/c06-mp-fences.litmus

Without a condition, each condition of the file is explained. For each
combination of thread behaviours that produces the registers and each rf, it
names the failing rule: a cycle in one of the orders (listing its events), a
blocking write (c8b), or a precondition that is not a tautology (c3).";

/// `pomset explain`'s flags.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The litmus file (or a test in another tool's format: herd7 C, PTX, .lit).
    pub path: PathBuf,
    /// A proposition over final registers and memory, as in a condition.
    pub condition: Option<String>,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
    /// pwt (the pomset semantics), a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect) or a .cat
    /// file: under a cat model, each candidate execution reaching the
    /// outcome and the checks that fail on it (the cycle or the pair).
    #[arg(long, default_value = "pwt", value_name = "MODEL")]
    pub model: String,
    /// Judge the program as `compare --mapping SRC:TGT[:VARIANT]` does:
    /// lowered to MODEL, which must be TGT (pwt:vulkan, pwt:vulkan:wk-rlx).
    #[arg(long, value_name = "SRC:TGT")]
    pub mapping: Option<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pomset explain`: for each chosen condition (the one given, else every
/// condition of the file), the model's account of its outcome: the failing
/// rule for each way to reach it (pwt), or the checks that fail on each
/// candidate execution reaching it (a cat model).
pub fn explain(args: &ExplainArgs, cx: Ctx) -> Result<bool, String> {
    let limits = args.limits.limits();
    let (model, condition) = (args.model.as_str(), args.condition.as_deref());
    let engine = lowered(
        engine_named(model, cx.color)?,
        model,
        args.mapping.as_deref(),
    )?;
    require(engine.as_ref(), Capability::Explain)?;
    let cx = Ctx {
        import: cx.reading(&[engine.as_ref()]),
        ..cx
    };
    let Some((test, options)) = load(&args.path, condition, &args.set, cx)? else {
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
