//! `pomset draw`: pictures of what reaches an outcome, under any model that draws.

use std::path::PathBuf;

use clap::ValueEnum;

use super::args::{engine_named, load, Ctx, LimitArgs};
use crate::engine::{require, Capability};

/// The examples and notes under `pomset draw --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset draw examples/classic/mp+rel+acq.litmus
  pomset draw examples/classic/mp+rel+acq.litmus --format svg -o mp.svg
  pomset draw examples/classic/lb+datas.litmus --outcome 'P0:r = 1 /\\ P1:s = 0' --format tikz
  pomset draw examples/classic/sb.litmus --which complete --format text
  pomset draw examples/classic/coww.litmus --which incomplete
  pomset draw --model rc11 examples/classic/sb.litmus --which candidates --format svg -o sb.svg

Threads are columns, events sit in program order and read `κ | label` (`tt |`
omitted). Each arrow's style says why it is there: dependency (s3),
sync-delays (s7a), co-delays (s8a), matching (c6, c7a, c8a, with rf),
strong fencing (c7b), blocking (c8b), M8a, §12 and rmw (M9b, M9c); rf that
adds no drawn order is dotted. Only each order's transitive reduction is
drawn unless --all-edges. SVG needs no external program; TikZ compiles with
pdflatex (--snippet for the tikzpicture alone).

With --model rc11 (or a .cat file) the pictures are candidate executions:
po, rf, co, fr, rmw, the model's `show`n relations, and for an inconsistent
one the path of the first failing check. --which N is then the N-th
consistent execution, complete (consistent) every consistent one,
incomplete (inconsistent) the others, candidates all; --outcome combines
with each.";

/// `pomset draw`'s flags.
#[derive(clap::Args, Debug)]
pub struct DrawArgs {
    /// The litmus file (or a test in another tool's format: herd7 C, PTX, .lit).
    pub path: PathBuf,
    /// Only pomsets whose final state satisfies this proposition.
    #[arg(long, value_name = "CONDITION")]
    pub outcome: Option<String>,
    /// complete | candidates (every candidate, complete or not, as pomsets --candidates) | incomplete (the candidates not complete) | N (the N-th complete pomset).
    #[arg(long, default_value = "1", value_name = "WHICH")]
    pub which: String,
    /// The picture's format: text for the terminal, svg, tikz (LaTeX) or dot (Graphviz).
    #[arg(long, value_enum, default_value_t = DrawFormat::Text)]
    pub format: DrawFormat,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Every edge of each order, not only its transitive reduction.
    #[arg(long)]
    pub all_edges: bool,
    /// Draw the legend (default: on for svg and tikz).
    #[arg(long, conflicts_with = "no_legend")]
    pub legend: bool,
    /// Leave the legend out.
    #[arg(long)]
    pub no_legend: bool,
    /// TikZ: the tikzpicture alone, without the standalone document.
    #[arg(long)]
    pub snippet: bool,
    /// Draw the initialising writes as a thread `init`.
    #[arg(long)]
    pub init: bool,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
    /// Draw at most this many pictures (complete, candidates, all); the
    /// rest are counted on standard error.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// pwt (the pomset semantics), a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect) or a .cat
    /// file: under a cat model, candidate executions are drawn (po, rf,
    /// co, fr, rmw, the model's `show`n relations and the failing
    /// check's cycle); --which N is the N-th consistent execution,
    /// complete|consistent every consistent one, incomplete|inconsistent
    /// the others, candidates all of them, and --outcome combines with
    /// each.
    #[arg(long, default_value = "pwt", value_name = "MODEL")]
    pub model: String,
}

/// `pomset draw FILE`: parses, draws, and prints or writes the result.
pub fn draw(args: &DrawArgs, cx: Ctx) -> Result<bool, String> {
    use crate::render::draw::{render, DrawOptions, Format, Which};
    let outcome = args.outcome.as_deref();
    let engine = engine_named(&args.model, cx.color)?;
    require(engine.as_ref(), Capability::Draw)?;
    let which = Which::parse(&args.which)?;
    let Some((test, model)) = load(&args.path, outcome, &args.set, cx)? else {
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
        legend: (args.legend || args.no_legend).then_some(args.legend),
        snippet: args.snippet,
        init: args.init,
        limits: args.limits.limits(),
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
    match &args.output {
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
