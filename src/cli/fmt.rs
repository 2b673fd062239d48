//! `pomset fmt`: litmus files in canonical form.

use super::args::{litmus_files, read, Ctx};
use std::path::PathBuf;

use crate::syntax;

/// The examples under `pomset fmt --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset fmt my-test.litmus           rewrite the file in place
  pomset fmt --check examples/        exit 1 if any file under examples/ would change
  pomset fmt --stdout test.litmus     print the canonical form instead of writing it

Directories are searched recursively for *.litmus files. Comments above the
`litmus NAME` line are kept; the formatter refuses files with comments elsewhere
rather than drop them.";

/// `pomset fmt`'s flags.
#[derive(clap::Args, Debug)]
pub struct FmtArgs {
    /// Files or directories.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Do not write; exit 1 if a file is not in canonical form.
    #[arg(long)]
    pub check: bool,
    /// Print the canonical form to standard output instead of writing files.
    #[arg(long, conflicts_with = "check")]
    pub stdout: bool,
}

/// `pomset fmt`: each file rewritten, printed or checked.
pub fn fmt(args: &FmtArgs, cx: Ctx) -> Result<bool, String> {
    let (check, stdout, color) = (args.check, args.stdout, cx.color);
    let mut ok = true;
    for path in litmus_files(&args.paths)? {
        let src = read(&path)?;
        let formatted = match syntax::format(&src) {
            Ok(f) => f,
            Err(diags) => {
                diags.emit_stderr(&path.display().to_string(), &src, color);
                ok = false;
                continue;
            }
        };
        if stdout {
            print!("{formatted}");
        } else if formatted == src {
            continue;
        } else if check {
            println!("{}: not in canonical form", path.display());
            print!("{}", first_difference(&src, &formatted));
            ok = false;
        } else {
            std::fs::write(&path, &formatted)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("formatted {}", path.display());
        }
    }
    Ok(ok)
}

/// The first line that differs, as a two-line diff.
fn first_difference(a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let n = al.len().max(bl.len());
    for i in 0..n {
        let (x, y) = (
            al.get(i).copied().unwrap_or(""),
            bl.get(i).copied().unwrap_or(""),
        );
        if x != y {
            return format!("  line {}:\n  - {x}\n  + {y}\n", i + 1);
        }
    }
    "  (only the final newline differs)\n".to_string()
}
