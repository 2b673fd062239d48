//! `pomset parse` and `pomset check`: the core program, and the checks alone.

use std::path::PathBuf;

use super::args::{for_each, Ctx};
use crate::syntax;

/// `pomset parse`: each file's desugared core program.
pub fn parse(paths: &[PathBuf], cx: Ctx) -> Result<bool, String> {
    for_each(paths, cx, |_, test| {
        print!("{}", syntax::print::core_program(&test.program));
        true
    })
}

/// `pomset check`: each file parsed and checked, with its shape.
pub fn check(paths: &[PathBuf], cx: Ctx) -> Result<bool, String> {
    for_each(paths, cx, |path, test| {
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
