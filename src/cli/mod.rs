//! The command line: `Cli` and the dispatch here; each command's flags
//! (a `#[derive(clap::Args)]` struct) and its code in its own file, a thin
//! layer over the library (`workbench`, `engine`, `render`).

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod args;
mod check;
mod compare;
mod distinguish;
mod draw;
mod explain;
mod export;
mod fit;
mod fmt;
mod import;
mod options;
mod pomsets;
mod refine;
mod repl;
mod run;
mod serve;
mod sweep;
mod transformations;
mod vary;

pub use args::{litmus_files, LimitArgs};
pub use draw::{DrawArgs, DrawFormat};
pub use repl::ReplArgs;
pub use run::Engine;

const ABOUT: &str =
    "A workbench for relaxed-memory semantics: litmus tests, pomsets with predicate \
transformers, and compiler-transformation checks.";

const AFTER_HELP: &str = "\
Examples:
  pomset fmt --check examples/        check that every example is in canonical form
  pomset fmt my-test.litmus           rewrite a file in canonical form
  pomset parse examples/classic/mp.litmus
                                      print the desugared core program
  pomset run examples/classic/mp+rel+acq.litmus
                                      decide a test: states, verdicts, herd7's summary
  pomset explain examples/classic/mp+rel+acq.litmus
                                      why is the outcome forbidden? the rule that fails
  pomset draw examples/classic/mp+rel+acq.litmus --format svg -o mp.svg
                                      draw a pomset for a paper (also tikz, dot, text)
  pomset check examples/              parse and check, reporting errors and warnings
  pomset options                      list the model options, their values and defaults
  pomset refine --from 'x := 1; r := x;' --to 'x := 1; r := 1;'
                                      is this compiler transformation sound?
  pomset repl                         explore interactively (also `pomset` alone, in a terminal)
  pomset serve                        the same in a web page, at http://127.0.0.1:8417/

A litmus file looks like this (the book's \"Writing litmus tests\" has the whole syntax):

  litmus MP \"message passing through a release/acquire pair\"
  x := 1; y.rel := 1;
  || r := y.acq; s := x;
  forbid (r = 1 /\\ s = 0)";

#[derive(Parser, Debug)]
#[command(name = "pomset", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// When to colour diagnostics.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    pub color: Color,
    /// Unroll each loop (`while`, `do ... while`, PTX's backward jumps) this
    /// many times; a path that needs more is not an execution [default: the
    /// file's `model { unroll = N }`, else 2].
    #[arg(long, global = true, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::syntax::check::MAX_UNROLL)))]
    pub unroll: Option<u32>,
    /// Unroll spin loops like any other loop. By default `run`, `compare`
    /// and `explain` decide a spin loop (one that only reads and sets
    /// registers until it exits) as its last pass under `--model sc`, which
    /// is exact there and needs no bound; every other model unrolls.
    #[arg(long, global = true)]
    pub no_spin_reduction: bool,
    /// Unroll PTX or Vulkan jumps by following every path, the code after
    /// a loop copied into each exit, the next pass into each path that goes
    /// round again, and the code after a branch into both sides, as herd7
    /// and Dat3M do. By default each comes once: the same paths, so only the
    /// pomset semantics' counts differ (the book's "Loops of jumps").
    #[arg(long, global = true)]
    pub copy_after_loops: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print litmus files in canonical form, or check that they are.
    #[command(after_help = fmt::AFTER_HELP)]
    Fmt(fmt::FmtArgs),
    /// Print the desugared core program: every access with its mode and scope,
    /// extended expressions as reads into fresh registers, threads labelled.
    #[command(after_help = check::PARSE_AFTER_HELP)]
    Parse(check::ParseArgs),
    /// Decide litmus tests: final states, each condition's verdict, herd7's summary.
    #[command(after_help = run::AFTER_HELP)]
    Run(run::RunArgs),
    /// List the complete (or candidate) pomsets of a test in the note's notation.
    #[command(after_help = pomsets::AFTER_HELP)]
    Pomsets(pomsets::PomsetsArgs),
    /// Draw complete or candidate pomsets: text for the terminal, SVG, TikZ or DOT.
    #[command(after_help = draw::AFTER_HELP)]
    Draw(draw::DrawArgs),
    /// Say why an outcome is forbidden: the rule that fails for each way to reach it.
    #[command(after_help = explain::AFTER_HELP)]
    Explain(explain::ExplainArgs),
    /// Decide tests under several models side by side: one verdict per model
    /// per condition, as a table.
    #[command(after_help = compare::AFTER_HELP)]
    Compare(compare::CompareArgs),
    /// Decide whether rewriting a source program into a target is sound (§2).
    #[command(after_help = refine::AFTER_HELP)]
    Refine(refine::RefineArgs),
    /// The table of transformations (transformations/*.refine): one row
    /// per family of instances, one column per model, each cell sound,
    /// unsound (with a distinguishing test), unsound* (pomset-level only),
    /// bounded (no counterexample up to the bound) or unknown.
    #[command(after_help = transformations::AFTER_HELP)]
    Transformations(transformations::TransformationsArgs),
    /// A matrix of verdicts: tests × option settings, each value of the
    /// named options alone (or every combination), cells that differ from
    /// the default highlighted, the stated expectation beside each test.
    #[command(after_help = vary::AFTER_HELP)]
    Vary(vary::VaryArgs),
    /// Search the option space for the settings that satisfy the most
    /// expectations, and the minimal sets of expectations no setting satisfies.
    #[command(after_help = fit::AFTER_HELP)]
    Fit(fit::FitArgs),
    /// Parse and check litmus files, printing errors and warnings.
    Check(check::CheckArgs),
    /// List the model options (semantics.md §7) with their values and defaults.
    Options(options::OptionsArgs),
    /// Explore interactively: type fragments, load tests, flip options (also
    /// `pomset` alone, in a terminal).
    #[command(after_help = repl::AFTER_HELP)]
    Repl(repl::ReplArgs),
    /// Start the web explorer: a local page to write tests, decide them,
    /// flip options, explain outcomes and draw pomsets.
    #[command(after_help = serve::AFTER_HELP)]
    Serve(serve::ServeArgs),
    /// Print tests from other tools (herd7 C, Dat3M PTX, the PwT prototype's
    /// .lit) in pomset's syntax, with a comment naming the source.
    #[command(after_help = import::AFTER_HELP)]
    Import(import::ImportArgs),
    /// Write tests in another tool's format (herd7's C), for the subset it can
    /// express; what it cannot is refused with the reason.
    #[command(after_help = export::AFTER_HELP)]
    Export(export::ExportArgs),
    /// Where two models differ: every small program decided under both,
    /// the minimal ones that tell them apart written as litmus tests
    #[command(after_help = distinguish::AFTER_HELP)]
    Distinguish(distinguish::DistinguishArgs),
}

/// Runs a command; the exit code is 0 on success, 1 when a check fails.
pub fn run(cli: Cli) -> ExitCode {
    // Every command stops at the memory budget; `--max-memory` overrides it.
    // The budget is the process's, as the heap is: the one limit that does
    // not travel with a request.
    crate::memory::set_budget_mb(crate::memory::default_budget_mb());
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    };
    let cx = args::Ctx {
        color,
        import: crate::import::Options {
            unroll: cli.unroll,
            spin: false,
            copy_after_loops: cli.copy_after_loops,
        },
        spin_reduction: !cli.no_spin_reduction,
    };
    let result = match &cli.command {
        Command::Fmt(a) => fmt::fmt(a, cx),
        Command::Parse(a) => check::parse(a, cx),
        Command::Check(a) => check::check(a, cx),
        Command::Run(a) => run::run(a, cx),
        Command::Pomsets(a) => pomsets::pomsets(a, cx),
        Command::Draw(a) => draw::draw(a, cx),
        Command::Explain(a) => explain::explain(a, cx),
        Command::Compare(a) => compare::compare(a, cx),
        Command::Refine(a) => refine::refine(a, cx),
        Command::Transformations(a) => transformations::table(a, color),
        Command::Options(a) => options::options(a),
        Command::Repl(a) => repl::repl(a, cli.color, cx),
        Command::Serve(a) => serve::serve(a),
        Command::Vary(a) => vary::vary(a, cx),
        Command::Fit(a) => fit::fit(a, cx),
        Command::Import(a) => import::import(a, cx),
        Command::Export(a) => export::export(a, cx),
        Command::Distinguish(a) => distinguish::distinguish(a),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
