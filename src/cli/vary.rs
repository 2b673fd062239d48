//! `pomset vary`: a test under every value of some options.

use super::args::{for_each, Ctx, LimitArgs};
use std::path::PathBuf;

use super::sweep::Progress;
use crate::model::Model;
use std::io::IsTerminal;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

/// The examples and notes under `pomset vary --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset vary examples/catalogue/c21-rfi-coe-coe.litmus
  pomset vary examples/catalogue --options acyclic_union,orders
  pomset vary examples/classic --options c7a,orders --product --format md

Every option's values are varied when --options is not given; a setting
overrides the file's own `model {}` block, as `run --set` does. `✗` marks a
verdict that contradicts the stated expectation under that setting.";

/// `pomset vary`'s flags.
#[derive(clap::Args, Debug)]
pub struct VaryArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The options to vary, comma-separated [default: all].
    #[arg(long, value_delimiter = ',')]
    pub options: Vec<String>,
    /// Every combination of the options' values, not one option at a time.
    #[arg(long)]
    pub product: bool,
    /// Refuse, before deciding anything, more settings than this (a
    /// --product grows as the product of the options' values: all of them
    /// make millions).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_settings: u64,
    /// Print JSON instead of text.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// `text` (the terminal) or `md` (Markdown, for a paper or an issue).
    #[arg(long, default_value = "text", value_parser = ["text", "md"])]
    pub format: String,
    #[command(flatten)]
    pub limits: LimitArgs,
}

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
pub fn vary(args: &VaryArgs, cx: Ctx) -> Result<bool, String> {
    let (paths, names, product) = (&args.paths, args.options.as_slice(), args.product);
    let (json, format, limits) = (args.json, args.format.as_str(), args.limits);
    use crate::options_space as space;
    let options = match names {
        [] => Model::OPTIONS.iter().collect(),
        _ => names
            .iter()
            .map(|n| space::option_named(n.trim()))
            .collect::<Result<Vec<_>, _>>()?,
    };
    // The size, before any setting is listed or decided.
    let count = space::settings_count(&options, product);
    if count.is_none_or(|n| n > u128::from(args.max_settings)) {
        let n = count.map_or("more than 2^128".to_string(), |n| n.to_string());
        return Err(format!(
            "{} of {} options is {n} settings, more than --max-settings {}: name fewer with --options (or raise --max-settings)",
            if product { "the product" } else { "varying each" },
            options.len(),
            args.max_settings
        ));
    }
    let (tests, ok) = space_tests(paths, cx)?;
    let settings = space::settings(&options, product);
    let show = std::io::stderr().is_terminal();
    let total = AtomicU64::new((settings.len() * tests.len()) as u64);
    let bar = Mutex::new(Progress::new(show, &total, "decisions", 0));
    let step = || {
        if let Ok(mut b) = bar.lock() {
            b.step();
        }
    };
    let m = space::vary_with(&tests, &settings, limits.limits(), &step);
    if let Ok(b) = bar.lock() {
        b.end();
    }
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
