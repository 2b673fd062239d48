//! `pomset draw`: pictures of what reaches an outcome, under any model that draws.

use clap::ValueEnum;

use super::args::{engine_named, load, Ctx};
use crate::engine::{require, Capability};

/// `pomset draw FILE`: parses, draws, and prints or writes the result.
pub fn draw(
    path: &std::path::Path,
    (outcome, sets): (Option<&str>, &[String]),
    args: DrawArgs,
    output: Option<&std::path::Path>,
    model: &str,
    cx: Ctx,
) -> Result<bool, String> {
    use crate::render::draw::{render, DrawOptions, Format, Which};
    let engine = engine_named(model, cx.color)?;
    require(engine.as_ref(), Capability::Draw)?;
    let which = Which::parse(&args.which)?;
    let Some((test, model)) = load(path, outcome, sets, cx)? else {
        return Ok(false);
    };
    let opts = DrawOptions {
        format: match args.format {
            DrawFormat::Text => Format::Text,
            DrawFormat::Svg => Format::Svg,
            DrawFormat::Tikz => Format::Tikz,
            DrawFormat::Dot => Format::Dot,
        },
        which,
        outcome: outcome.and_then(|_| test.program.conditions.last().map(|c| c.prop.clone())),
        all_edges: args.all_edges,
        legend: args.legend,
        snippet: args.snippet,
        init: args.init,
        limits: args.limits,
        max_pictures: Some(args.limit),
    };
    let (drawn, what) = engine.pictures(&test, &model, &opts)?;
    let pics = drawn.pictures;
    if drawn.in_all > pics.len() {
        eprintln!(
            "drew {} of {} {what} (--limit {} draws more)",
            pics.len(),
            drawn.in_all,
            args.limit
        );
    }
    if let Some(l) = drawn.limit {
        eprintln!("Limit reached: {l} (there may be more {what})");
    }
    let text = render(&pics, &opts);
    match output {
        Some(o) => {
            std::fs::write(o, text).map_err(|e| format!("cannot write {}: {e}", o.display()))?
        }
        None => print!("{text}"),
    }
    Ok(true)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DrawFormat {
    Text,
    Svg,
    Tikz,
    Dot,
}

/// `pomset draw`'s options, as given.
#[derive(Clone, Debug)]
pub struct DrawArgs {
    pub which: String,
    pub format: DrawFormat,
    pub all_edges: bool,
    pub legend: Option<bool>,
    pub snippet: bool,
    pub init: bool,
    /// At most this many pictures.
    pub limit: usize,
    pub limits: crate::outcome::Limits,
}
