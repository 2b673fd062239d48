//! `pomset vary`: a test under every value of some options.

use super::args::{for_each, Ctx, LimitArgs};
use std::path::PathBuf;

use crate::model::Model;
use std::io::IsTerminal;

/// The tests under `paths` for `vary` and `fit`; false when a file has errors.
pub fn space_tests(
    paths: &[PathBuf],
    cx: Ctx,
) -> Result<(Vec<crate::options_space::Test>, bool), String> {
    let mut tests = Vec::new();
    let ok = for_each(paths, cx, |path, t| {
        tests.push(crate::options_space::Test {
            file: path.display().to_string(),
            program: t.program.clone(),
        });
        true
    })?;
    Ok((tests, ok))
}

/// `pomset vary`: `crate::options_space::vary`, printed.
pub fn vary(
    paths: &[PathBuf],
    (names, product): (&[String], bool),
    (json, format): (bool, &str),
    limits: LimitArgs,
    cx: Ctx,
) -> Result<bool, String> {
    use crate::options_space as space;
    let options = match names {
        [] => Model::OPTIONS.iter().collect(),
        _ => names
            .iter()
            .map(|n| space::option_named(n.trim()))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let (tests, ok) = space_tests(paths, cx)?;
    let m = space::vary(&tests, &space::settings(&options, product), limits.limits());
    if json {
        println!("{}", serde_json::to_string_pretty(&m).unwrap_or_default());
    } else {
        let style = match format {
            "md" => space::Style::Markdown,
            _ => space::Style::Text {
                color: std::io::stdout().is_terminal() && cx.color,
            },
        };
        print!("{}", space::render(&m, style));
    }
    Ok(ok)
}
