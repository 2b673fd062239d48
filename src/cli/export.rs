//! `pomset export`: tests in another tool's format.

use super::args::{for_each, Ctx};
use std::path::PathBuf;

use super::ExportFormat;

/// `pomset export`: each test in another tool's format on standard output.
pub fn export(paths: &[PathBuf], to: ExportFormat, cx: Ctx) -> Result<bool, String> {
    let ExportFormat::HerdC = to;
    for_each(
        paths,
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
