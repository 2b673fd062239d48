//! `pomset parse` and `pomset check`: the core program, and the checks alone.

use std::path::PathBuf;

use super::args::{for_each, Ctx};
use crate::syntax;

/// The example under `pomset parse --help`.
pub const PARSE_AFTER_HELP: &str = "\
Example:
  $ pomset parse examples/classic/lb+datas.litmus
The output is itself a litmus file: `pomset parse` of it prints it again.";

/// `pomset parse`'s arguments.
#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `pomset check`'s arguments.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `pomset parse`: each file's desugared core program.
pub fn parse(args: &ParseArgs, cx: Ctx) -> Result<bool, String> {
    for_each(&args.paths, cx, |_, test| {
        print!("{}", syntax::print::core_program(&test.program));
        true
    })
}

/// `pomset check`: each file parsed and checked, with its shape.
pub fn check(args: &CheckArgs, cx: Ctx) -> Result<bool, String> {
    for_each(&args.paths, cx, |path, test| {
        let t = &test.program;
        println!(
            "{}: ok ({} threads, {} locations, V = {{{}}})",
            path.display(),
            t.threads.len(),
            t.locs.len(),
            t.values
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        true
    })
}
