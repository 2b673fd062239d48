//! The command line: the arguments (clap) here, and one file per command,
//! each a thin layer over the library (`workbench`, `engine`, `render`).

use std::io::IsTerminal;
use std::path::PathBuf;
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
mod pomsets;
mod refine;
mod run;
mod transformations;
mod vary;

pub use args::{litmus_files, LimitArgs};
pub use draw::{DrawArgs, DrawFormat};
pub use run::Engine;

use crate::workbench::options_table;

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
        #[command(flatten)]
        limits: LimitArgs,
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
        #[arg(long, value_name = "SECONDS", value_parser = args::seconds, allow_negative_numbers = true)]
        timeout: Option<f64>,
        /// Decide under this model: `pwt` (the pomset-level check, the
        /// default) or any other (`rc11`, `ptx`, `vulkan`, `sc`, FILE.cat),
        /// by the context search alone: unsound, or no counterexample up to
        /// the bound, never sound.
        #[arg(long, default_value = "pwt")]
        model: String,
        /// Generated context threads beside the fragment (1 or 2), for a
        /// model other than `pwt`.
        #[arg(long, default_value_t = 2)]
        context_threads: usize,
    },
    /// The table of transformations (transformations/*.refine): one row
    /// per family of instances, one column per model, each cell sound,
    /// unsound (with a distinguishing test), unsound* (pomset-level only),
    /// bounded (no counterexample up to the bound) or unknown.
    #[command(after_help = "\
Examples:
  pomset transformations
  pomset transformations --models pwt,rc11 reorder-rr elim-raw
  pomset transformations --out cex/ --json > table.json")]
    Transformations {
        /// Bundled schemas by name (all when none); or .refine schema files.
        schemas: Vec<String>,
        /// The models, one column each.
        #[arg(long, value_delimiter = ',', default_value = "pwt,rc11,ptx,vulkan,sc")]
        models: Vec<String>,
        /// Generated context threads beside the fragment (1 or 2).
        #[arg(long, default_value_t = 1)]
        context_threads: usize,
        /// Contexts tried at most per instance and model.
        #[arg(long, default_value_t = 400)]
        max_contexts: usize,
        /// Write each unsound cell's distinguishing test (both versions)
        /// here, re-checked under `run`.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Every instance and cell as JSON.
        #[arg(long)]
        json: bool,
        /// The table in Markdown.
        #[arg(long)]
        markdown: bool,
        /// A progress line on stderr even when it is not a terminal.
        #[arg(long)]
        progress: bool,
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
  pomset import tests/foreign/herd-c/mp.litmus
  pomset import tests/foreign/ptx/spin.litmus > spin.litmus

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
    /// Where two models differ: every small program decided under both,
    /// the minimal ones that tell them apart written as litmus tests
    #[command(after_help = distinguish::AFTER_HELP)]
    Distinguish(distinguish::DistinguishArgs),
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
        import: crate::import::Options { unroll: cli.unroll },
    };
    let result = match cli.command {
        Command::Fmt {
            paths,
            check,
            stdout,
        } => fmt::fmt(&paths, check, stdout, color),
        Command::Parse { paths } => check::parse(&paths, cx),
        Command::Check { paths } => check::check(&paths, cx),
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
        } => run::run(
            &paths,
            run::RunOptions {
                sets: set,
                json,
                allow_unknown,
                limits,
                stats,
                draw,
                all_states,
                cx,
                verdict_only,
            },
            &model,
            engine,
        ),
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
                pomsets::candidate_pomsets(&path, &set, (limit, limits), cx)
            } else {
                pomsets::pomsets(&path, outcome.as_deref(), &set, (limit, limits), cx)
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
            draw::draw(
                &path,
                (outcome.as_deref(), &set),
                opts,
                output.as_deref(),
                &model,
                cx,
            )
        }
        Command::Explain {
            path,
            condition,
            set,
            model,
            mapping,
            limits,
        } => explain::explain(
            &path,
            (condition.as_deref(), &set),
            (&model, mapping.as_deref()),
            limits.limits(),
            cx,
        ),
        Command::Compare {
            paths,
            models,
            mapping,
            set,
            limits,
        } => compare::compare(&paths, &models, mapping.as_deref(), &set, limits, cx),
        Command::Refine {
            paths,
            from,
            to,
            max_contexts,
            model,
            context_threads,
            ..
        } if model != "pwt" => refine::refine_under(
            &paths,
            from.zip(to),
            &model,
            crate::transform::Bound {
                threads: context_threads,
                max_contexts,
            },
            color,
        ),
        Command::Refine {
            paths,
            from,
            to,
            set,
            max_contexts,
            max_pomsets,
            timeout,
            ..
        } => refine::refine_files(
            &paths,
            from.zip(to),
            &set,
            (max_contexts, max_pomsets, timeout),
            color,
        ),
        Command::Transformations {
            schemas,
            models,
            context_threads,
            max_contexts,
            out,
            json,
            markdown,
            progress,
        } => transformations::table(
            &schemas,
            &models,
            crate::transform::Bound {
                threads: context_threads,
                max_contexts,
            },
            transformations::Output {
                out,
                json,
                markdown,
                progress: progress || std::io::stderr().is_terminal(),
            },
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
            crate::repl::start(script.as_deref(), color, cx.import).map(|()| true)
        }
        Command::Serve { port, bind } => crate::serve::run(&bind, port).map(|()| true),
        Command::Vary {
            paths,
            options,
            product,
            json,
            format,
            limits,
        } => vary::vary(&paths, (&options, product), (json, &format), limits, cx),
        Command::Fit {
            paths,
            expect,
            max_conflict_size,
            max_settings,
            json,
            format,
            limits,
        } => fit::fit(
            &paths,
            expect.as_deref(),
            (max_conflict_size, max_settings),
            (json, &format),
            limits,
            cx,
        ),
        Command::Import { paths } => import::import(&paths, cx),
        Command::Export { paths, to } => export::export(&paths, to, cx),
        Command::Distinguish(args) => distinguish::distinguish(&args),
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

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
