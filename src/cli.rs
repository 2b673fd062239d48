//! The command line: argument definitions (clap) and one function per command.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use std::collections::BTreeMap;

use crate::model::Model;
use crate::syntax;
use crate::syntax::core::Program;
use crate::workbench::{
    apply_sets, explain_text, load_options, options_table, pomset_listing, refusal_text,
};

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
    #[command(after_help = "\
Examples:
  pomset fmt my-test.litmus           rewrite the file in place
  pomset fmt --check examples/        exit 1 if any file under examples/ would change
  pomset fmt --stdout test.litmus     print the canonical form instead of writing it

Directories are searched recursively for *.litmus files. Comments above the
`litmus NAME` line are kept; the formatter refuses files with comments elsewhere
rather than drop them.")]
    Fmt {
        /// Files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Do not write; exit 1 if a file is not in canonical form.
        #[arg(long)]
        check: bool,
        /// Print the canonical form to standard output instead of writing files.
        #[arg(long, conflicts_with = "check")]
        stdout: bool,
    },
    /// Print the desugared core program: every access with its mode and scope,
    /// extended expressions as reads into fresh registers, threads labelled.
    #[command(after_help = "\
Example:
  $ pomset parse examples/classic/lb+datas.litmus
The output is itself a litmus file: `pomset parse` of it prints it again.")]
    Parse {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Decide litmus tests: final states, each condition's verdict, herd7's summary.
    #[command(after_help = "\
Examples:
  pomset run examples/classic/mp+rel+acq.litmus
  pomset run examples/                        every example; exit 1 if an expectation fails
  pomset run --set c7a=direct examples/catalogue/c06-mp-fences.litmus
  pomset run --json examples/classic/ > verdicts.json

States list every final state of a complete pomset with how many complete
pomsets (with their rf) end in it; `?` marks a value left undetermined, as a
register whose relaxed read was dropped (R4c). In a condition `?` is unknown,
like SQL's NULL: neither `r = 0` nor `~(r = 0)` holds of it. Past 1000 states
only those without `?` are listed (--all-states lists all). A condition is Ok or No as in
herd7, and `Expected ...` compares with the file's `expect` lines or its
allow/forbid. When a limit stops the search the verdict is Unknown and the
limit is named; it is never a wrong answer.")]
    Run {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Set a model option, overriding the file's `model {}` block (repeatable).
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: LimitArgs,
        /// Exit 0 even when a limit leaves a stated expectation undecided
        /// (by default an Unknown against an `expect` or allow/forbid fails the run).
        #[arg(long)]
        allow_unknown: bool,
        /// Print the logic layer's counters (queries, cache hits, SAT calls) per test.
        #[arg(long)]
        stats: bool,
        /// Draw, as SVG in this directory, one complete pomset for each condition it allows.
        #[arg(long, value_name = "DIR")]
        draw: Option<PathBuf>,
        /// List every state, also past 1000 of them (by default a long list shows
        /// only the states without `?` and counts the rest).
        #[arg(long)]
        all_states: bool,
        /// Which engine decides: the fast one; the literal reference engine
        /// (tiny tests only); or sc, sequential consistency by interleaving.
        #[arg(long, value_enum, default_value_t = Engine::Fast)]
        engine: Engine,
        /// Decide only each condition's verdict (herd7's -speedcheck fast): search
        /// for one state that makes it true and one that does not, pruning
        /// by the condition, and stop at each first one. Much faster on big
        /// tests; the states listed are just those found.
        #[arg(long)]
        verdict_only: bool,
        /// Which model decides: pwt (the pomset semantics), a bundled cat
        /// model (rc11, ptx, hrf-direct, hrf-indirect), or a .cat file. Under a cat model the file's
        /// expectations (the note's verdicts) are not checked.
        #[arg(long, default_value = "pwt", value_name = "MODEL")]
        model: String,
    },
    /// List the complete (or candidate) pomsets of a test in the note's notation.
    #[command(after_help = "\
Examples:
  pomset pomsets examples/classic/mp+rel+acq.litmus
  pomset pomsets examples/classic/lb+false-dep.litmus --outcome 'P0:r = 1 /\\ P1:s = 1'
  pomset pomsets --candidates examples/classic/lb+datas.litmus

Each pomset lists its events (`P1:R^acq y1` is thread P1's acquire read of
y = 1), its rf, and the covering edges of the dependency (⊴), sync (≤) and
per-location (⊑) orders, each with the rule that put it there (s3, s7a, s8a,
c6, c7a, c7b, c8a, c8b, M8a, M9b, M9c, §12). Every event of a complete pomset
has a tautological precondition, so none is printed.

--candidates lists candidates (§1.3) instead: an rf (each read has at most one
source) and orders that satisfy c2a-c8b, complete or not. Events read
`κ | label`, where κ names a read's value by its event (`s3` is e3's value) and
is left out when it is a tautology; a ✓ line shows a termination condition that
is not one. Each candidate says what keeps it from being complete (c2b, c3,
c5). For each event, the smallest dependency sets ↓e giving each distinct κ
are listed; larger ones add order only.")]
    Pomsets {
        path: PathBuf,
        /// Only pomsets whose final state satisfies this proposition.
        #[arg(long, value_name = "CONDITION")]
        outcome: Option<String>,
        /// The complete pomsets (the default).
        #[arg(long)]
        complete: bool,
        /// Candidate pomsets, complete or not (§1.3).
        #[arg(long, conflicts_with = "complete")]
        candidates: bool,
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        /// Print at most this many pomsets.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Draw complete or candidate pomsets: text for the terminal, SVG, TikZ or DOT.
    #[command(after_help = "\
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
with each.")]
    Draw {
        path: PathBuf,
        /// Only pomsets whose final state satisfies this proposition.
        #[arg(long, value_name = "CONDITION")]
        outcome: Option<String>,
        /// complete | candidates (every candidate, complete or not, as pomsets --candidates) | incomplete (the candidates not complete) | N (the N-th complete pomset).
        #[arg(long, default_value = "1", value_name = "WHICH")]
        which: String,
        #[arg(long, value_enum, default_value_t = DrawFormat::Text)]
        format: DrawFormat,
        /// Write to this file instead of standard output.
        #[arg(short = 'o', value_name = "PATH")]
        output: Option<PathBuf>,
        /// Every edge of each order, not only its transitive reduction.
        #[arg(long)]
        all_edges: bool,
        /// Draw the legend (default: on for svg and tikz).
        #[arg(long, conflicts_with = "no_legend")]
        legend: bool,
        /// Leave the legend out.
        #[arg(long)]
        no_legend: bool,
        /// TikZ: the tikzpicture alone, without the standalone document.
        #[arg(long)]
        snippet: bool,
        /// Draw the initialising writes as a thread `init`.
        #[arg(long)]
        init: bool,
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        /// Draw at most this many pictures (complete, candidates, all); the
        /// rest are counted on standard error.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[command(flatten)]
        limits: LimitArgs,
        /// pwt (the pomset semantics), a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect) or a .cat
        /// file: under a cat model, candidate executions are drawn (po, rf,
        /// co, fr, rmw, the model's `show`n relations and the failing
        /// check's cycle); --which N is the N-th consistent execution,
        /// complete|consistent every consistent one, incomplete|inconsistent
        /// the others, candidates all of them, and --outcome combines with
        /// each.
        #[arg(long, default_value = "pwt", value_name = "MODEL")]
        model: String,
    },
    /// Say why an outcome is forbidden: the rule that fails for each way to reach it.
    #[command(after_help = "\
Examples:
  pomset explain examples/classic/mp+rel+acq.litmus
  pomset explain examples/classic/lb+datas.litmus 'P0:r = 1 /\\ P1:s = 1'
  pomset explain --set c7a=direct examples/catalogue/c06-mp-fences.litmus

Without a condition, each condition of the file is explained. For each
combination of thread behaviours that produces the registers and each rf, it
names the failing rule: a cycle in one of the orders (listing its events), a
blocking write (c8b), or a precondition that is not a tautology (c3).")]
    Explain {
        path: PathBuf,
        /// A proposition over final registers and memory, as in a condition.
        condition: Option<String>,
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        /// pwt (the pomset semantics), a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect) or a .cat
        /// file: under a cat model, each candidate execution reaching the
        /// outcome and the checks that fail on it (the cycle or the pair).
        #[arg(long, default_value = "pwt", value_name = "MODEL")]
        model: String,
        /// Judge the program as `compare --mapping SRC:TGT[:VARIANT]` does:
        /// lowered to MODEL, which must be TGT (pwt:vulkan, pwt:vulkan:wk-rlx).
        #[arg(long, value_name = "SRC:TGT")]
        mapping: Option<String>,
    },
    /// Decide tests under several models side by side: one verdict per model
    /// per condition, as a table.
    #[command(after_help = "\
Examples:
  pomset compare examples/classic --models pwt,rc11
  pomset compare examples/classic/mp.litmus --models rc11,my-model.cat
  pomset compare examples/ --models pwt,rc11 --mapping rc11:pwt
  pomset compare examples/ --models pwt,ptx --mapping pwt:ptx
  pomset compare examples/ --models pwt,vulkan --mapping pwt:vulkan
  pomset compare examples/ --models pwt,vulkan --mapping pwt:vulkan:wk-rlx

Each cell is herd7's observation of the condition under that model:
Sometimes, Always or Never (the outcome is never observed), or Unknown with
the limit that stopped the search. --mapping SRC:TGT lists every test and
condition whose outcome the target model allows and the source model
forbids (a counterexample to compiling SRC's programs to TGT), with the
explain commands for both sides; the exit code is 1 when there is one. The
programs go to TGT by the identity on modes, except to ptx (the PTX
lowering, on every run of ptx) and from pwt to vulkan (the Vulkan mapping,
only here; the variant wk-rlx reads wk as atomic): the book's \"PTX\" and
\"Vulkan\" have the tables. An outcome in a test where TGT raises
data-race is listed apart as racy under TGT (undefined behaviour there),
not as a counterexample.")]
    Compare {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The models, comma-separated: pwt, a bundled cat model (rc11, ptx, hrf-direct, hrf-indirect), or .cat files.
        #[arg(long, default_value = "pwt,rc11", value_delimiter = ',')]
        models: Vec<String>,
        /// List the outcomes the target allows and the source forbids.
        #[arg(long, value_name = "SRC:TGT")]
        mapping: Option<String>,
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Decide whether rewriting a source program into a target is sound (§2).
    #[command(after_help = "\
Examples:
  pomset refine examples/refinements/r01-redundant-write.refine
  pomset refine examples/refinements/              every refinement; exit 1 if one fails its expect
  pomset refine --from 'x := 1; r := x;' --to 'x := 1; r := 1;'

A refinement file reuses the litmus syntax (the book's \"Checking transformations\"):

  refine R04 \"write elimination\"
  values {0, 1, 2}
  source { x := 1; x := 2; }
  target { x := 2; }
  expect unsound

The verdict is sound when every local pomset of the target is one of the
source (labels equal; ✓, κ for every dependency set and τ^D on the tested
postconditions equivalent over V; the source's s7a/s8a orders kept). When it is
unsound, the target pomset without a match is printed, and small contexts
(up to two more threads) are searched for a litmus test with an outcome the
target allows and the source forbids; that test runs with `pomset run`.")]
    Refine {
        /// Refinement files or directories (searched for *.refine).
        paths: Vec<PathBuf>,
        /// The source program, for a quick check without a file.
        #[arg(long, requires = "to", conflicts_with = "paths")]
        from: Option<String>,
        /// The target program.
        #[arg(long, requires = "from")]
        to: Option<String>,
        /// Set a model option, overriding the file's `model {}` block (repeatable).
        #[arg(long = "set", value_name = "OPTION=VALUE")]
        set: Vec<String>,
        /// How many contexts the contextual check may try (0: none).
        #[arg(long, default_value_t = 400)]
        max_contexts: usize,
        /// Give up (verdict unknown) beyond this many local pomsets per fragment.
        #[arg(long, default_value_t = 20_000)]
        max_pomsets: usize,
        /// Stop the contextual search after this many seconds per refinement
        /// (the verdict found so far stands; an unknown one stays unknown).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
    },
    /// A matrix of verdicts: tests × option settings, each value of the
    /// named options alone (or every combination), cells that differ from
    /// the default highlighted, the stated expectation beside each test.
    #[command(after_help = "\
Examples:
  pomset vary examples/catalogue/c21-rfi-coe-coe.litmus
  pomset vary examples/catalogue --options acyclic_union,orders
  pomset vary examples/classic --options c7a,orders --product --format md

Every option's values are varied when --options is not given; a setting
overrides the file's own `model {}` block, as `run --set` does. `✗` marks a
verdict that contradicts the stated expectation under that setting.")]
    Vary {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The options to vary, comma-separated [default: all].
        #[arg(long, value_delimiter = ',')]
        options: Vec<String>,
        /// Every combination of the options' values, not one option at a time.
        #[arg(long)]
        product: bool,
        /// Print JSON instead of text.
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// `text` (the terminal) or `md` (Markdown, for a paper or an issue).
        #[arg(long, default_value = "text", value_parser = ["text", "md"])]
        format: String,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Search the option space for the settings that satisfy the most
    /// expectations, and the minimal sets of expectations no setting satisfies.
    #[command(after_help = "\
Examples:
  pomset fit examples/catalogue
  pomset fit examples/ --expect power.csv     a hardware model's verdicts
  pomset fit examples/catalogue --format md   the book's \"Where the note contradicts itself\"

The expectations are the files' allow/forbid/expect lines (an `expect ...
when` line applies under its setting), or with --expect a CSV of
`test,condition,verdict` lines (the test's name or file stem, the condition's
number from 1 or its text, allowed|forbidden|always|sometimes|never). The
options a file's `model {}` block sets stay as set for that file.")]
    Fit {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Expectations from this CSV instead of the files'.
        #[arg(long, value_name = "FILE.csv")]
        expect: Option<PathBuf>,
        /// The largest conflicting set looked for; a larger one is reported as not searched.
        #[arg(long, default_value_t = 8)]
        max_conflict_size: usize,
        /// Give up beyond this many settings of the relevant options.
        #[arg(long, default_value_t = 1 << 20)]
        max_settings: usize,
        /// Print JSON instead of text.
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// `text` or `md` (Markdown).
        #[arg(long, default_value = "text", value_parser = ["text", "md"])]
        format: String,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Parse and check litmus files, printing errors and warnings.
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// List the model options (semantics.md §7) with their values and defaults.
    Options,
    /// Explore interactively: type fragments, load tests, flip options (also
    /// `pomset` alone, in a terminal).
    #[command(after_help = "\
Examples:
  pomset repl                         the line editor: history, Tab completion, :help
  pomset repl < book/repl/1-fragments.session
                                      run a session from a pipe and print the transcript
  pomset repl book/repl/2-lb.session  the same from a file

At the prompt, type a fragment such as `r := x; y := r` (threads separated by
`||`) to see its complete pomsets, or a command: :load FILE, :run, :pomsets,
:show N, :explain COND, :set OPTION VALUE, :options, :vary OPTION, :let,
:values, :scopes, :help, :quit. Input waits for balanced braces; Ctrl-C stops
a running query and keeps the session; Ctrl-D quits. The book's \"Exploring in
the REPL\" is a guided tour.")]
    Repl {
        /// Run this session file instead of reading standard input.
        script: Option<PathBuf>,
    },
    /// Start the web explorer: a local page to write tests, decide them,
    /// flip options, explain outcomes and draw pomsets.
    #[command(after_help = "\
Examples:
  pomset serve                        http://127.0.0.1:8417/
  pomset serve --port 0               any free port (printed)

The page and its JSON API (POST /api/decide, /api/explain, /api/draw,
/api/pomsets, /api/refine, /api/vary, /api/options; GET /api/examples) run
every decision within limits (a timeout of 10 s by default, at most 60 s,
and a pomset count), so a large test cannot hang the server. The book's
\"The web explorer\" is a tour.")]
    Serve {
        /// The port (0: any free one).
        #[arg(long, default_value_t = 8417)]
        port: u16,
        /// The address to listen on; anything but a loopback address lets
        /// other machines reach the explorer.
        #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
        bind: String,
    },
    /// Print tests from other tools (herd7 C, Dat3M PTX, the PwT prototype's
    /// .lit) in pomset's syntax, with a comment naming the source.
    #[command(after_help = "\
Examples:
  pomset import examples/foreign/herd-c/mp.litmus
  pomset import examples/foreign/ptx/spin.litmus > spin.litmus

The format is recognised by the first word (`C`, `PTX`, `litmus`) or the
`.lit` extension. `run`, `explain`, `draw` and the REPL read these files
directly too. A construct with no faithful meaning (PTX proxies, barriers,
locks, print) is refused with its place and the reason; the book's \"Tests
from other tools\" has the mapping tables.")]
    Import {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Write tests in another tool's format (herd7's C), for the subset it can
    /// express; what it cannot is refused with the reason.
    #[command(after_help = "\
Example:
  pomset export --to herd-c examples/classic/mp+rel+acq.litmus > MP.litmus
  herd7 -model rc11.cat MP.litmus")]
    Export {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The format to write.
        #[arg(long, value_enum)]
        to: ExportFormat,
    },
}

/// `pomset export --to`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    /// herd7's C litmus format (C11 atomics).
    HerdC,
}

/// Runs a command; the exit code is 0 on success, 1 when a check fails.
pub fn run(cli: Cli) -> ExitCode {
    // Every command stops at the memory budget; `--max-memory` overrides it.
    crate::memory::set_budget_mb(crate::memory::default_budget_mb());
    crate::workbench::set_unroll(cli.unroll);
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal(),
    };
    let result = match cli.command {
        Command::Fmt {
            paths,
            check,
            stdout,
        } => fmt(&paths, check, stdout, color),
        Command::Parse { paths } => for_each(&paths, color, |_, test| {
            print!("{}", syntax::print::core_program(&test.program));
            true
        }),
        Command::Check { paths } => for_each(&paths, color, |path, test| {
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
        }),
        Command::Run {
            paths,
            set,
            json,
            limits,
            allow_unknown,
            stats,
            draw,
            all_states,
            engine,
            verdict_only,
            model,
        } => match cat_model(&model, color) {
            Err(why) => Err(why),
            Ok(Some(_)) if draw.is_some() || stats || verdict_only => Err(
                "--draw, --stats and --verdict-only belong to the pomset search; under a cat model, `draw --model` draws the executions and `explain --model` says why".to_string(),
            ),
            Ok(_) if model != "pwt" && engine != Engine::Fast => {
                Err("--engine chooses how the pomset semantics is decided; it does not combine with a cat --model".to_string())
            }
            Ok(cat) => run_tests(
                &paths,
                &RunOptions {
                    sets: set,
                    json,
                    allow_unknown,
                    limits,
                    stats,
                    draw,
                    all_states,
                    color,
                    engine,
                    verdict_only,
                    cat: cat.map(std::sync::Arc::new),
                },
            ),
        },
        Command::Pomsets {
            path,
            outcome,
            candidates,
            set,
            limit,
            limits,
            ..
        } => {
            if candidates {
                if outcome.is_some() {
                    return usage("--outcome selects complete pomsets by their final state, which a candidate need not have; drop --outcome or --candidates");
                }
                candidate_pomsets(&path, &set, (limit, limits), color)
            } else {
                pomsets(&path, outcome.as_deref(), &set, (limit, limits), color)
            }
        }
        Command::Draw {
            path,
            outcome,
            which,
            format,
            output,
            all_edges,
            legend,
            no_legend,
            snippet,
            init,
            set,
            limit,
            limits,
            model,
        } => {
            match cat_model(&model, color) {
                Err(why) => Err(why),
                Ok(cat) => {
                    let opts = DrawArgs {
                        which,
                        format,
                        all_edges,
                        legend: (legend || no_legend).then_some(legend),
                        snippet,
                        init,
                        limit,
                        limits: limits.limits(),
                    };
                    draw_command(
                        &path,
                        outcome.as_deref(),
                        &set,
                        opts,
                        output.as_deref(),
                        (cat.as_ref(), color),
                    )
                }
            }
        }
        Command::Explain {
            path,
            condition,
            set,
            model,
            mapping,
        } => match cat_model(&model, color).and_then(|m| lowered(m, &model, mapping.as_deref())) {
            Ok(Some(cat)) => explain_cat(&path, condition.as_deref(), &set, &cat, color),
            Ok(None) => explain(&path, condition.as_deref(), &set, color),
            Err(why) => Err(why),
        },
        Command::Compare {
            paths,
            models,
            mapping,
            set,
            limits,
        } => compare(&paths, &models, mapping.as_deref(), &set, limits, color),
        Command::Refine {
            paths,
            from,
            to,
            set,
            max_contexts,
            max_pomsets,
            timeout,
        } => refine_files(
            &paths,
            from.zip(to),
            &set,
            (max_contexts, max_pomsets, timeout),
            color,
        ),
        Command::Options => {
            print!("{}", options_table());
            Ok(true)
        }
        Command::Repl { script } => {
            let color = match cli.color {
                Color::Always => Some(true),
                Color::Never => Some(false),
                Color::Auto => None,
            };
            crate::repl::start(script.as_deref(), color).map(|()| true)
        }
        Command::Serve { port, bind } => crate::serve::run(&bind, port).map(|()| true),
        Command::Vary {
            paths,
            options,
            product,
            json,
            format,
            limits,
        } => vary(&paths, (&options, product), (json, &format), limits, color),
        Command::Fit {
            paths,
            expect,
            max_conflict_size,
            max_settings,
            json,
            format,
            limits,
        } => fit(
            &paths,
            expect.as_deref(),
            (max_conflict_size, max_settings),
            (json, &format),
            limits,
            color,
        ),
        Command::Import { paths } => import(&paths, color),
        Command::Export { paths, to } => export(&paths, to, color),
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

/// `run --engine`: `semantics::decide`, `reference`, or `interleaving` (SC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    Fast,
    Reference,
    Sc,
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

/// The limits of `run`, `pomsets` and `draw`: reaching one makes the answer
/// Unknown with the limit named, never wrong, and no search outgrows memory.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct LimitArgs {
    /// Give up (verdict unknown) beyond this many local pomsets.
    #[arg(long, default_value_t = 200_000)]
    pub max_pomsets: usize,
    /// With `--set if_closure=registers`: give up (verdict unknown) when one
    /// statement's registers in scope have more partitions of their
    /// valuations than this (Bell(7) = 877 fits, Bell(8) = 4140 does not).
    #[arg(long, default_value_t = crate::outcome::MAX_PARTITIONS)]
    pub max_partitions: usize,
    /// Give up (verdict unknown) beyond this many final states kept (the
    /// text report keeps interchangeable threads' states one per orbit), or
    /// complete pomsets of one rf search held at once (what bounds memory).
    #[arg(long, default_value_t = crate::outcome::MAX_STATES)]
    pub max_states: usize,
    /// Give up (verdict unknown) after this many steps of the rf searches.
    #[arg(long, default_value_t = 50_000_000)]
    pub max_steps: u64,
    /// Give up (verdict unknown) once the heap passes this many megabytes
    /// [default: three quarters of the machine's memory].
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<usize>,
    /// Give up (verdict unknown) after this many seconds per test.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Search every arrangement of threads with the same code, instead of one
    /// per multiset (the book's Performance chapter: thread symmetry).
    #[arg(long)]
    pub no_symmetry: bool,
}

impl LimitArgs {
    /// The limits, with the deadline counted from now; sets the memory budget.
    pub fn limits(&self) -> crate::outcome::Limits {
        if let Some(mb) = self.max_memory {
            crate::memory::set_budget_mb(mb);
        }
        let deadline = self.timeout.map(|t| {
            let secs = std::time::Duration::from_secs_f64(t.clamp(0.0, 1e9));
            (std::time::Instant::now() + secs, t)
        });
        crate::outcome::Limits {
            max_pomsets: self.max_pomsets,
            max_partitions: self.max_partitions,
            max_steps: self.max_steps,
            max_states: self.max_states,
            deadline,
            cancel: None,
            symmetry: !self.no_symmetry,
            orbits: false,
        }
    }
}

/// What `pomset run` was asked for, beyond the files.
struct RunOptions {
    sets: Vec<String>,
    json: bool,
    allow_unknown: bool,
    limits: LimitArgs,
    stats: bool,
    draw: Option<PathBuf>,
    all_states: bool,
    color: bool,
    engine: Engine,
    verdict_only: bool,
    /// A cat model deciding instead of the pomset semantics (`--model`).
    cat: Option<std::sync::Arc<crate::cat::Model>>,
}

/// One test decided: its report, or the line saying why it could not be.
enum Decided {
    Report(Box<crate::report::Report>),
    Unsupported(String),
    /// `--set` named an option the model rejects (already reported).
    BadSet,
}

/// `pomset run`: tests are decided in parallel, one per core, and reported
/// in the order of the files, each as soon as those before it are.
fn run_tests(paths: &[PathBuf], o: &RunOptions) -> Result<bool, String> {
    // Reject a bad --set before reading any file.
    apply_sets(&mut Model::default(), &o.sets)?;
    let files = litmus_files(paths)?;
    let mut parsed = Vec::new();
    for path in files {
        let src = read(&path)?;
        parsed.push((path, src));
    }
    let (send, receive) = std::sync::mpsc::channel();
    let tests: Vec<(PathBuf, String, Result<syntax::Litmus, _>)> = parsed
        .into_iter()
        .map(|(path, src)| {
            let test = crate::import::load(&path.display().to_string(), &src, load_options());
            (path, src, test)
        })
        .collect();
    let tests = std::sync::Arc::new(tests);
    for k in 0..tests.len() {
        let (tests, send) = (tests.clone(), send.clone());
        let (sets, limits, engine, verdict_only, cat) = (
            o.sets.clone(),
            o.limits,
            o.engine,
            o.verdict_only,
            o.cat.clone(),
        );
        // The text report lists a few states and counts the rest, so it can
        // take them one per orbit; JSON and `--all-states` list every one.
        let orbits = !o.json && !o.all_states;
        rayon::spawn(move || {
            let decided = match &tests[k].2 {
                Ok(test) => match cat {
                    Some(cat) => decide_cat(&test.program, &sets, &limits, &cat),
                    None => {
                        let how = (engine, verdict_only, orbits);
                        decide_one(&test.program, &sets, &limits, how)
                    }
                },
                Err(_) => Decided::BadSet,
            };
            let _ = send.send((k, (decided, crate::memory::peak_bytes())));
        });
    }
    drop(send);
    let mut ok = true;
    let mut reports = Vec::new();
    // Tests run, expectations not met, tests left unknown, tests whose
    // verdict differs from the note's as the file says it does.
    let mut tally = (0usize, 0usize, 0usize, 0usize);
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    for (k, (decided, peak)) in receive {
        waiting.insert(k, decided);
        while let Some(decided) = waiting.remove(&next) {
            let (path, src, test) = &tests[next];
            next += 1;
            let name = path.display().to_string();
            let test = match test {
                Ok(test) => test,
                Err(diags) => {
                    diags.emit_stderr(&name, src, o.color);
                    ok = false;
                    continue;
                }
            };
            test.warnings.emit_stderr(&name, src, o.color);
            if o.cat.is_none() {
                vulkan_refusal(&test.program, &name, src, o.color);
            }
            ok &= report_one(test, (decided, peak), o, &mut tally, &mut reports);
        }
    }
    if !o.json && tally.0 > 1 {
        let disputed = match tally.3 {
            0 => String::new(),
            n => format!(" ({n} disputed)"),
        };
        println!(
            "{} tests: {} as expected{disputed}, {} not as expected, {} unknown (limit or unsupported)",
            tally.0,
            tally.0 - tally.1 - tally.2,
            tally.1,
            tally.2
        );
    }
    if o.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).unwrap_or_default()
        );
    }
    Ok(ok)
}

/// Points at the first construct only the Vulkan model defines, when the
/// pomset semantics (or the SC or reference engine) is asked to run it.
fn vulkan_refusal(p: &Program, name: &str, src: &str, color: bool) {
    let Some((at, what)) = p.vulkan_only() else {
        return;
    };
    let d = syntax::diagnostic::Diagnostic::error(
        format!("{what} is defined by the Vulkan model only"),
        at,
    )
    .with_label("the pomset semantics has no meaning for this")
    .with_hint("run with --model vulkan (the book's \"Vulkan\" chapter)");
    syntax::diagnostic::Diagnostics(vec![d]).emit_stderr(name, src, color);
}

/// Decides one test under a cat model (on a worker thread).
fn decide_cat(
    p: &Program,
    sets: &[String],
    limit_args: &LimitArgs,
    cat: &crate::cat::Model,
) -> Decided {
    let mut model = p.model;
    if apply_sets(&mut model, sets).is_err() {
        return Decided::BadSet;
    }
    let report = crate::workbench::decide_cat(p, &model, cat, limit_args.limits());
    Decided::Report(Box::new(report))
}

/// Decides one test with the chosen engine (on a worker thread).
/// `how`: the engine, whether only verdicts are asked for, and whether the
/// report may take states one per orbit (`Limits::orbits`).
fn decide_one(
    p: &Program,
    sets: &[String],
    limit_args: &LimitArgs,
    (engine, verdict_only, orbits): (Engine, bool, bool),
) -> Decided {
    let mut model = p.model;
    if apply_sets(&mut model, sets).is_err() {
        return Decided::BadSet;
    }
    let engine = match engine {
        Engine::Fast => crate::workbench::Engine::Fast,
        Engine::Reference => crate::workbench::Engine::Reference,
        Engine::Sc => crate::workbench::Engine::Sc,
    };
    let limits = crate::outcome::Limits {
        orbits,
        ..limit_args.limits()
    };
    match crate::workbench::decide(p, &model, engine, verdict_only, limits) {
        Ok(report) => Decided::Report(Box::new(report)),
        Err(line) => Decided::Unsupported(line),
    }
}

/// Prints one decided test (in file order) and counts it; false when it
/// fails the run.
fn report_one(
    test: &syntax::Litmus,
    (decided, peak): (Decided, usize),
    o: &RunOptions,
    tally: &mut (usize, usize, usize, usize),
    reports: &mut Vec<crate::report::Report>,
) -> bool {
    let p = &test.program;
    let report = match decided {
        Decided::Report(mut r) => {
            r.peak_bytes = Some(peak);
            *r
        }
        Decided::Unsupported(line) => {
            println!("{line}");
            tally.0 += 1;
            tally.2 += 1;
            return true;
        }
        Decided::BadSet => return false,
    };
    let met = report.expectations_met();
    let undecided = report.undecided() && !o.allow_unknown;
    if undecided {
        eprintln!(
            "error: {}: a limit left a stated expectation undecided (--allow-unknown accepts this)",
            p.name
        );
    }
    tally.0 += 1;
    tally.1 += usize::from(!met);
    tally.2 += usize::from(report.limit.is_some() || report.unsupported.is_some());
    tally.3 += usize::from(met && report.conditions.iter().any(|c| c.is_disputed()));
    if o.json {
        reports.push(report);
    } else {
        let mut text = report.text_listing(p, o.all_states);
        if let Some(line) = report.stats_line().filter(|_| o.stats) {
            text.push_str(&line);
            text.push('\n');
        }
        println!("{text}");
    }
    if let Some(dir) = &o.draw {
        let mut model = p.model;
        if apply_sets(&mut model, &o.sets).is_ok() {
            match crate::render::draw::witnesses(test, &model, o.limits.limits(), dir) {
                Ok(files) => files.iter().for_each(|f| eprintln!("drew {}", f.display())),
                Err(e) => eprintln!("error: {e}"),
            }
        }
    }
    met && !undecided
}

/// `--model`: `None` for pwt (the pomset semantics), else the cat model,
/// bundled or from a file. A model with errors has them printed.
pub(crate) fn cat_model(spec: &str, color: bool) -> Result<Option<crate::cat::Model>, String> {
    if spec == "pwt" {
        return Ok(None);
    }
    match crate::cat::load(spec) {
        Ok(m) => Ok(Some(m)),
        Err(crate::cat::LoadError::Io(why)) => Err(why),
        Err(crate::cat::LoadError::Cat(e)) => {
            e.emit_stderr(color);
            Err(format!("the model `{spec}` has errors"))
        }
    }
}

/// A cat model with the lowering of `--mapping` (whose target must be the
/// model itself), for `explain`.
fn lowered(
    cat: Option<crate::cat::Model>,
    model: &str,
    mapping: Option<&str>,
) -> Result<Option<crate::cat::Model>, String> {
    let Some(text) = mapping else {
        return Ok(cat);
    };
    let m = crate::engine::axiomatic::lower::Mapping::parse(text)?;
    match (cat, m.lowering) {
        (Some(mut cat), Some(l)) if m.tgt == model => {
            cat.lowering = Some(l);
            Ok(Some(cat))
        }
        _ => Err(format!(
            "--mapping {text} lowers nothing for --model {model}: it takes a mapping whose target is the model and that lowers (pwt:vulkan, pwt:vulkan:wk-rlx)"
        )),
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Parses a test and applies `--set` to its model. A condition from the
/// command line is parsed as one more condition of the file
/// (`workbench::parse_test`). `None`: the file has errors, already printed.
pub(crate) fn load(
    path: &Path,
    condition: Option<&str>,
    sets: &[String],
    color: bool,
) -> Result<Option<(syntax::Litmus, Model)>, String> {
    let src = read(path)?;
    match crate::workbench::parse_test(&path.display().to_string(), &src, condition) {
        Ok(t) => {
            let mut model = t.program.model;
            apply_sets(&mut model, sets)?;
            Ok(Some((t, model)))
        }
        Err(failed) => {
            failed.emit_stderr(color);
            Ok(None)
        }
    }
}

fn pomsets(
    path: &Path,
    outcome: Option<&str>,
    sets: &[String],
    (limit, limit_args): (usize, LimitArgs),
    color: bool,
) -> Result<bool, String> {
    let Some((test, model)) = load(path, outcome, sets, color)? else {
        return Ok(false);
    };
    let p = &test.program;
    let filter = outcome
        .and_then(|_| p.conditions.last())
        .map(|c| c.prop.clone());
    let limits = limit_args.limits();
    let listing = pomset_listing(p, &model, filter.as_ref(), limits);
    if let Some(refusal) = &listing.unsupported {
        return Err(refusal.clone());
    }
    for shown in listing.pomsets.iter().take(limit) {
        println!("{shown}");
    }
    println!("{}", listing.summary(limit));
    Ok(true)
}

fn candidate_pomsets(
    path: &Path,
    sets: &[String],
    (limit, limit_args): (usize, LimitArgs),
    color: bool,
) -> Result<bool, String> {
    let Some((test, model)) = load(path, None, sets, color)? else {
        return Ok(false);
    };
    let listing =
        crate::workbench::candidate_listing(&test.program, &model, limit_args.limits(), limit)?;
    for shown in &listing.pomsets {
        println!("{shown}");
    }
    println!("{}", listing.summary());
    Ok(true)
}

fn explain(
    path: &Path,
    condition: Option<&str>,
    sets: &[String],
    color: bool,
) -> Result<bool, String> {
    let Some((test, model)) = load(path, condition, sets, color)? else {
        return Ok(false);
    };
    let p = &test.program;
    crate::engine::pwt::decide::refused_program(p, &model).map_err(|u| refusal_text(&u))?;
    let chosen: Vec<usize> = match condition {
        Some(_) => vec![p.conditions.len() - 1],
        None => (0..p.conditions.len()).collect(),
    };
    print!("{}", explain_text(p, &model, &chosen));
    Ok(true)
}

/// `explain --model CAT`: the candidate executions reaching each chosen
/// condition's outcome and the checks that fail on them.
fn explain_cat(
    path: &Path,
    condition: Option<&str>,
    sets: &[String],
    cat: &crate::cat::Model,
    color: bool,
) -> Result<bool, String> {
    let Some((test, _)) = load(path, condition, sets, color)? else {
        return Ok(false);
    };
    let p = &test.program;
    let surface = syntax::print::core_to_ast(p);
    let chosen: Vec<usize> = match condition {
        Some(_) => vec![p.conditions.len() - 1],
        None => (0..p.conditions.len()).collect(),
    };
    let limits = crate::outcome::Limits::default();
    for i in chosen {
        let (Some(shown), Some(c)) = (surface.conditions.get(i), p.conditions.get(i)) else {
            continue;
        };
        let shown = syntax::print::prop(&shown.prop, 0);
        println!("{} under {}: {shown}", p.name, cat.name);
        for line in crate::engine::axiomatic::explain::explain(p, cat, &c.prop, &limits)? {
            println!("  {line}");
        }
    }
    Ok(true)
}

/// `pomset compare`: the table, and with `--mapping` the counterexamples.
fn compare(
    paths: &[PathBuf],
    models: &[String],
    mapping: Option<&str>,
    sets: &[String],
    limit_args: LimitArgs,
    color: bool,
) -> Result<bool, String> {
    use crate::compare::{rows, table, Column, Engine};
    use crate::engine::axiomatic::lower::Mapping;
    apply_sets(&mut Model::default(), sets)?;
    let mut columns = Vec::new();
    for m in models {
        let engine = match cat_model(m, color)? {
            None => Engine::Pwt,
            Some(cat) => Engine::Cat(Box::new(cat)),
        };
        columns.push(Column {
            name: m.clone(),
            engine,
        });
    }
    let index = |name: &str| {
        models.iter().position(|m| m == name).ok_or_else(|| {
            format!(
                "--mapping names `{name}`, which is not among --models {}",
                models.join(",")
            )
        })
    };
    let mapping_arg = mapping;
    let mapping = mapping.map(Mapping::parse).transpose()?;
    let pair = match &mapping {
        None => None,
        Some(m) => Some((index(&m.src)?, index(&m.tgt)?)),
    };
    // The mapping's lowering goes on the target's column only.
    if let (Some(m), Some((_, tgt))) = (&mapping, pair) {
        if let (
            Some(l),
            Some(Column {
                engine: Engine::Cat(cat),
                ..
            }),
        ) = (m.lowering, columns.get_mut(tgt))
        {
            cat.lowering = Some(l);
        }
    }
    let mut all = Vec::new();
    let mut files = Vec::new();
    let parsed = for_each(paths, color, |path, test| {
        let mut model = test.program.model;
        if apply_sets(&mut model, sets).is_err() {
            return false;
        }
        let found = rows(&test.program, &model, &columns, || limit_args.limits());
        files.extend(found.iter().map(|_| path.to_path_buf()));
        all.extend(found);
        true
    })?;
    print!("{}", table(&columns, &all));
    let Some((src, tgt)) = pair else {
        return Ok(parsed);
    };
    let counter = |i: &usize| all[*i].allows(tgt) && all[*i].forbids(src);
    let (racy, bad): (Vec<usize>, Vec<usize>) = (0..all.len())
        .filter(counter)
        .partition(|&i| all[i].is_racy(tgt));
    let (s, t) = (&models[src], &models[tgt]);
    // The target side's explain takes the mapping when it lowers.
    let lowered = match &mapping {
        Some(m) if m.lowering.is_some() => format!(" --mapping {}", mapping_arg.unwrap_or("")),
        _ => String::new(),
    };
    let explain = |i: usize| {
        let (r, path) = (&all[i], files[i].display());
        println!("  {} {}", r.test, r.condition);
        println!("    pomset explain --model {s} {path} '{}'", r.prop);
        println!(
            "    pomset explain --model {t}{lowered} {path} '{}'",
            r.prop
        );
    };
    println!();
    if !racy.is_empty() {
        println!(
            "{} outcome{} {t} allows and {s} forbids in tests racy under {t} (a data race is undefined behaviour there; not counterexamples):",
            racy.len(),
            if racy.len() == 1 { "" } else { "s" }
        );
        for &i in &racy {
            println!("  {} {}: racy under {t}", all[i].test, all[i].condition);
        }
        println!();
    }
    if bad.is_empty() {
        let other = if racy.is_empty() { "" } else { " other" };
        println!("No{other} outcome that {t} allows is forbidden by {s}.");
        return Ok(parsed);
    }
    println!(
        "{} outcome{} {t} allows and {s} forbids:",
        bad.len(),
        if bad.len() == 1 { "" } else { "s" }
    );
    for i in bad {
        explain(i);
    }
    Ok(false)
}

/// The litmus files named by `paths`: files as given, directories searched
/// recursively for `*.litmus`, in sorted order.
pub fn litmus_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect(p, &mut out).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("no such file or directory: {}", p.display()));
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "litmus" || x == "lit") {
            out.push(e);
        }
    }
    Ok(())
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Parses each file and hands it to `f`; diagnostics go to standard error.
fn for_each(
    paths: &[PathBuf],
    color: bool,
    mut f: impl FnMut(&Path, &syntax::Litmus) -> bool,
) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
        let src = read(&path)?;
        let name = path.display().to_string();
        match crate::import::load(&name, &src, load_options()) {
            Ok(test) => {
                test.warnings.emit_stderr(&name, &src, color);
                ok &= f(&path, &test);
            }
            Err(diags) => {
                diags.emit_stderr(&name, &src, color);
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// The tests under `paths` for `vary` and `fit`; false when a file has errors.
fn space_tests(
    paths: &[PathBuf],
    color: bool,
) -> Result<(Vec<crate::options_space::Test>, bool), String> {
    let mut tests = Vec::new();
    let ok = for_each(paths, color, |path, t| {
        tests.push(crate::options_space::Test {
            file: path.display().to_string(),
            program: t.program.clone(),
        });
        true
    })?;
    Ok((tests, ok))
}

/// `pomset vary`: `crate::options_space::vary`, printed.
fn vary(
    paths: &[PathBuf],
    (names, product): (&[String], bool),
    (json, format): (bool, &str),
    limits: LimitArgs,
    color: bool,
) -> Result<bool, String> {
    use crate::options_space as space;
    let options = match names {
        [] => Model::OPTIONS.iter().collect(),
        _ => names
            .iter()
            .map(|n| space::option_named(n.trim()))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let (tests, ok) = space_tests(paths, color)?;
    let m = space::vary(&tests, &space::settings(&options, product), limits.limits());
    if json {
        println!("{}", serde_json::to_string_pretty(&m).unwrap_or_default());
    } else {
        let style = match format {
            "md" => space::Style::Markdown,
            _ => space::Style::Text {
                color: std::io::stdout().is_terminal() && color,
            },
        };
        print!("{}", space::render(&m, style));
    }
    Ok(ok)
}

/// `pomset fit`: `crate::options_space::fit`, printed.
fn fit(
    paths: &[PathBuf],
    expect: Option<&Path>,
    (max_conflict_size, max_settings): (usize, usize),
    (json, format): (bool, &str),
    limits: LimitArgs,
    color: bool,
) -> Result<bool, String> {
    use crate::options_space as space;
    let source = match expect {
        Some(path) => space::Source::Csv(
            space::parse_csv(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))?,
        ),
        None => space::Source::Files,
    };
    let (tests, ok) = space_tests(paths, color)?;
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

/// `pomset export`: each test in another tool's format on standard output.
fn export(paths: &[PathBuf], to: ExportFormat, color: bool) -> Result<bool, String> {
    let ExportFormat::HerdC = to;
    for_each(
        paths,
        color,
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

/// `pomset import`: each file in our syntax on standard output.
fn import(paths: &[PathBuf], color: bool) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
        let src = read(&path)?;
        let name = path.display().to_string();
        match crate::import::import(&name, &src, load_options()) {
            Ok(text) => println!("{text}"),
            Err(diags) => {
                diags.emit_stderr(&name, &src, color);
                ok = false;
            }
        }
    }
    Ok(ok)
}

fn fmt(paths: &[PathBuf], check: bool, stdout: bool, color: bool) -> Result<bool, String> {
    let mut ok = true;
    for path in litmus_files(paths)? {
        let src = read(&path)?;
        let formatted = match syntax::format(&src) {
            Ok(f) => f,
            Err(diags) => {
                diags.emit_stderr(&path.display().to_string(), &src, color);
                ok = false;
                continue;
            }
        };
        if stdout {
            print!("{formatted}");
        } else if formatted == src {
            continue;
        } else if check {
            println!("{}: not in canonical form", path.display());
            print!("{}", first_difference(&src, &formatted));
            ok = false;
        } else {
            std::fs::write(&path, &formatted)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("formatted {}", path.display());
        }
    }
    Ok(ok)
}

/// The first line that differs, as a two-line diff.
fn first_difference(a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let n = al.len().max(bl.len());
    for i in 0..n {
        let (x, y) = (
            al.get(i).copied().unwrap_or(""),
            bl.get(i).copied().unwrap_or(""),
        );
        if x != y {
            return format!("  line {}:\n  - {x}\n  + {y}\n", i + 1);
        }
    }
    "  (only the final newline differs)\n".to_string()
}

/// `pomset draw FILE`: parses, draws, and prints or writes the result.
fn draw_command(
    path: &std::path::Path,
    outcome: Option<&str>,
    sets: &[String],
    args: DrawArgs,
    output: Option<&std::path::Path>,
    (cat, color): (Option<&crate::cat::Model>, bool),
) -> Result<bool, String> {
    use crate::render::draw::{pictures_counted, render, DrawOptions, Format, Which};
    let which = Which::parse(&args.which)?;
    let Some((test, model)) = load(path, outcome, sets, color)? else {
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
    let drawn = match cat {
        Some(cat) => crate::render::execution::pictures(&test, cat, &opts),
        None => pictures_counted(&test, &model, &opts),
    }
    .map_err(|e| e.to_string())?;
    let pics = drawn.pictures;
    let what = if cat.is_some() {
        "executions"
    } else {
        "pomsets"
    };
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

/// `pomset refine`: each file (or the `--from/--to` pair); Ok(false) when a
/// verdict differs from its `expect` or a file does not parse.
fn refine_files(
    paths: &[std::path::PathBuf],
    quick_pair: Option<(String, String)>,
    sets: &[String],
    (max_contexts, max_pomsets, timeout): (usize, usize, Option<f64>),
    color: bool,
) -> Result<bool, String> {
    use crate::refinement::{parse_refinement, quick_text, refine, refinement_files, Limits};
    let mut inputs: Vec<(String, String)> = Vec::new();
    if let Some((from, to)) = quick_pair {
        inputs.push(("--from/--to".into(), quick_text(&from, &to)));
    } else {
        if paths.is_empty() {
            return Err("give refinement files, or --from and --to".into());
        }
        for path in refinement_files(paths)? {
            let src = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            inputs.push((path.display().to_string(), src));
        }
    }
    let mut ok = true;
    for (name, src) in inputs {
        let req = match parse_refinement(&src) {
            Ok(r) => r,
            Err(d) => {
                d.emit_stderr(&name, &src, color);
                ok = false;
                continue;
            }
        };
        let mut model = req.program.model;
        apply_sets(&mut model, sets)?;
        let mut limits = Limits {
            max_contexts,
            max_pomsets,
            ..Limits::default()
        };
        limits.run.deadline = timeout.map(|t| {
            let secs = std::time::Duration::from_secs_f64(t.clamp(0.0, 1e9));
            (std::time::Instant::now() + secs, t)
        });
        match refine(&req, &model, limits) {
            Ok(report) => {
                print!("{}", report.text());
                ok &= report.as_expected();
            }
            Err(e) => {
                println!("Refinement {}: {e}", req.name);
                ok = false;
            }
        }
    }
    Ok(ok)
}
