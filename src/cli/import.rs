//! `pomset import`: tests from another tool's format, in ours.

use super::args::{litmus_files, read, Ctx};
use std::path::PathBuf;

/// The examples and notes under `pomset import --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset import tests/foreign/herd-c/mp.litmus
  pomset import tests/foreign/ptx/spin.litmus > spin.litmus

The format is recognised by the first word (`C`, `PTX`, `litmus`) or the
`.lit` extension. `run`, `explain`, `draw` and the REPL read these files
directly too. A construct with no faithful meaning (PTX proxies, barriers,
locks, print) is refused with its place and the reason; the book's \"Tests
from other tools\" has the mapping tables.";

/// `pomset import`'s flags.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Files in another tool's format (herd7 C, Dat3M PTX, .lit), or directories of them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// `pomset import`: each file in our syntax on standard output.
pub fn import(args: &ImportArgs, cx: Ctx) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(&args.paths)? {
        let src = read(&path)?;
        let name = path.display().to_string();
        match crate::import::import(&name, &src, cx.import) {
            Ok(text) => println!("{text}"),
            Err(diags) => {
                diags.emit_stderr(&name, &src, cx.color);
                ok = false;
            }
        }
    }
    Ok(ok)
}
