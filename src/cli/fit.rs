//! `pomset fit`: the option settings that meet a set of expectations.

use super::args::{read, Ctx, LimitArgs};
use std::path::{Path, PathBuf};

use super::vary::space_tests;

/// `pomset fit`: `crate::options_space::fit`, printed.
pub fn fit(
    paths: &[PathBuf],
    expect: Option<&Path>,
    (max_conflict_size, max_settings): (usize, usize),
    (json, format): (bool, &str),
    limits: LimitArgs,
    cx: Ctx,
) -> Result<bool, String> {
    use crate::options_space as space;
    let source = match expect {
        Some(path) => space::Source::Csv(
            space::parse_csv(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))?,
        ),
        None => space::Source::Files,
    };
    let (tests, ok) = space_tests(paths, cx)?;
    let limits = space::FitLimits {
        decide: limits.limits(),
        max_conflict_size,
        max_settings,
    };
    let f = space::fit(&tests, &source, limits)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&f).unwrap_or_default());
    } else {
        print!("{}", space::fit_text(&f, format == "md"));
    }
    Ok(ok)
}
