//! `pomset fmt`: litmus files in canonical form.

use super::args::{litmus_files, read};
use std::path::PathBuf;

use crate::syntax;

pub fn fmt(paths: &[PathBuf], check: bool, stdout: bool, color: bool) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
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
