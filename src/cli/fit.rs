//! `pomset fit`: the option settings that meet a set of expectations.

use super::args::{read, Ctx, LimitArgs};
use std::path::PathBuf;

use super::vary::space_tests;

/// The examples and notes under `pomset fit --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset fit examples/catalogue
  pomset fit examples/ --expect power.csv     a hardware model's verdicts
  pomset fit examples/catalogue --format md   the book's \"Where the note contradicts itself\"

The expectations are the files' allow/forbid/expect lines (an `expect ...
when` line applies under its setting), or with --expect a CSV of
`test,condition,verdict` lines (the test's name or file stem, the condition's
number from 1 or its text, allowed|forbidden|always|sometimes|never). The
options a file's `model {}` block sets stay as set for that file.";

/// `pomset fit`'s flags.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Expectations from this CSV instead of the files'.
    #[arg(long, value_name = "FILE.csv")]
    pub expect: Option<PathBuf>,
    /// The largest conflicting set looked for; a larger one is reported as not searched.
    #[arg(long, default_value_t = 8)]
    pub max_conflict_size: usize,
    /// Give up beyond this many settings of the relevant options.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_settings: usize,
    /// Print JSON instead of text.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// `text` or `md` (Markdown).
    #[arg(long, default_value = "text", value_parser = ["text", "md"])]
    pub format: String,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `pomset fit`: `crate::options_space::fit`, printed.
pub fn fit(args: &FitArgs, cx: Ctx) -> Result<bool, String> {
    let (paths, expect, limits) = (&args.paths, args.expect.as_deref(), args.limits);
    let (max_conflict_size, max_settings) = (args.max_conflict_size, args.max_settings);
    let (json, format) = (args.json, args.format.as_str());
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
