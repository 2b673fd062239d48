//! `pomset import`: tests from another tool's format, in ours.

use super::args::{litmus_files, read, Ctx};
use std::path::PathBuf;

/// `pomset import`: each file in our syntax on standard output.
pub fn import(paths: &[PathBuf], cx: Ctx) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
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
