//! `pomset export`: tests in another tool's format.

use super::args::{for_each, Ctx};
use std::path::PathBuf;

use clap::ValueEnum;

/// The examples and notes under `pomset export --help`.
pub const AFTER_HELP: &str = "\
Example:
  pomset export --to herd-c examples/classic/mp+rel+acq.litmus > MP.litmus
  herd7 -model rc11.cat MP.litmus";

/// `pomset export`'s flags.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The format to write.
    #[arg(long, value_enum)]
    pub to: ExportFormat,
}

/// `pomset export --to`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    /// herd7's C litmus format (C11 atomics).
    HerdC,
}

/// `pomset export`: each test in another tool's format on standard output.
pub fn export(args: &ExportArgs, cx: Ctx) -> Result<bool, String> {
    let ExportFormat::HerdC = args.to;
    for_each(
        &args.paths,
        cx,
        |path, test| match crate::export::herd_c::export(&test.program) {
            Ok(text) => {
                println!("{text}");
                true
            }
            Err(why) => {
                eprintln!(
                    "error: {}: cannot be written in herd7's C: {why}",
                    path.display()
                );
                false
            }
        },
    )
}
