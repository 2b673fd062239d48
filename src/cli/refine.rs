//! `pomset refine`: is a transformation sound?

use std::path::PathBuf;

use super::args::Ctx;
use crate::refinement::{parse_refinement_with, quick_text, refinement_files, Refinement};
use crate::transform::{found_text, Bound, Found};
use crate::workbench::apply_sets;

/// The examples and notes under `pomset refine --help`.
pub const AFTER_HELP: &str = "\
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
unsound, the target pomset without a match is printed, and the contexts of
the book's grammar (an instruction before and after the fragment, parallel
threads; every context of size 3 by default) are searched for a litmus test
with an outcome the target allows and the source forbids; that test runs
with `pomset run` and says Sometimes with the target, Never with the source.

Under --model rc11 (or ptx, vulkan, sc, FILE.cat) there is no local check:
the answer is a distinguishing test, or `no counterexample` after every
context of the bound was decided, or unknown with the limit that stopped it.";

/// `pomset refine`'s flags.
#[derive(clap::Args, Debug)]
pub struct RefineArgs {
    /// Refinement files or directories (searched for *.refine).
    pub paths: Vec<PathBuf>,
    /// The source program, for a quick check without a file.
    #[arg(long, requires = "to", conflicts_with = "paths")]
    pub from: Option<String>,
    /// The target program.
    #[arg(long, requires = "from")]
    pub to: Option<String>,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
    /// Decide under this model: `pwt` (the pomset-level check and the
    /// context search, the default; `pwt[OPTION=VALUE]` too) or any other
    /// (`rc11`, `ptx`, `vulkan`, `sc`, FILE.cat), by the context search
    /// alone: unsound, or no counterexample in the bound, never sound.
    #[arg(long, default_value = "pwt")]
    pub model: String,
    /// The size of the contexts searched: instructions around the fragment
    /// and in parallel threads, a guarded reader counting two (the book's
    /// "Which transformations are sound", the context grammar) [default: 3;
    /// 2 under pwt, whose local check gives the verdict: there the search
    /// only looks for a test that shows it].
    #[arg(long, value_name = "N")]
    pub context_size: Option<usize>,
    /// Parallel context threads at most, beside the file's own.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub context_threads: usize,
    /// Stop after this many contexts (the answer then says how many of the
    /// bound were tried, and is no verdict) [default: every context of the
    /// bound]; 0 turns the context search off. Without it or --timeout, a
    /// bound of more than 50 000 contexts is refused before the search.
    #[arg(long, value_name = "N")]
    pub max_contexts: Option<usize>,
    /// Give up (verdict unknown) beyond this many local pomsets per
    /// fragment; each generated test is decided within the smaller of this
    /// and 50 000.
    #[arg(long, default_value_t = 20_000)]
    pub max_pomsets: usize,
    /// Give up (verdict unknown, the limit named) after this many seconds
    /// per refinement, in every phase: the pomset-level check and the
    /// context search.
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds, allow_negative_numbers = true)]
    pub timeout: Option<f64>,
}

impl RefineArgs {
    /// The bound of the context search; `local`: the engine has the
    /// pomset-level check, which gives the verdict (a smaller default).
    fn bound(&self, local: bool) -> Option<Bound> {
        if self.max_contexts == Some(0) {
            return None;
        }
        let size = match self.context_size {
            Some(n) => n,
            None if local => crate::refinement::PWT_CONTEXT_SIZE,
            None => Bound::default().size,
        };
        Some(Bound {
            size,
            threads: self.context_threads,
            max_contexts: self.max_contexts,
        })
    }

    /// The limits of each generated test, with the deadline from now.
    fn run_limits(&self) -> crate::outcome::Limits {
        crate::outcome::Limits {
            max_pomsets: self.max_pomsets.min(50_000),
            deadline: self.timeout.map(crate::outcome::limits::deadline_after),
            ..crate::outcome::Limits::default()
        }
    }
}

/// The refinements to decide, each with its name: the `--from/--to` pair,
/// or every file under `paths`.
fn inputs(args: &RefineArgs) -> Result<Vec<(String, String)>, String> {
    if let (Some(from), Some(to)) = (&args.from, &args.to) {
        return Ok(vec![("--from/--to".into(), quick_text(from, to))]);
    }
    if args.paths.is_empty() {
        return Err("give refinement files, or --from and --to".into());
    }
    let mut out = Vec::new();
    for path in refinement_files(&args.paths)? {
        let src = crate::syntax::diagnostic::read_text(&path)?;
        out.push((path.display().to_string(), src));
    }
    Ok(out)
}

/// `pomset refine`: each file (or the `--from/--to` pair) under the model;
/// Ok(false) when a verdict differs from its `expect`, a file does not
/// parse, or the model cannot decide it.
pub fn refine(args: &RefineArgs, cx: Ctx) -> Result<bool, String> {
    let engine = super::args::engine_named(&args.model, cx.color)?;
    // Refuse a bad `--set` once, before any file.
    apply_sets(&mut crate::model::Model::default(), &args.set)?;
    let mut ok = true;
    for (name, src) in inputs(args)? {
        let req = match parse_refinement_with(&src, cx.import.unroll) {
            Ok(r) => {
                r.warnings.emit_stderr(&name, &src, cx.color);
                r
            }
            Err(d) => {
                match (&args.from, &args.to) {
                    (Some(from), Some(to)) => {
                        let (flag, typed, moved) = crate::refinement::quick_located(from, to, &d);
                        moved.emit_stderr(flag, &typed, cx.color);
                    }
                    _ => d.emit_stderr(&name, &src, cx.color),
                }
                ok = false;
                continue;
            }
        };
        let has_local = engine.can(crate::engine::Capability::LocalRefine);
        unbudgeted(args, &req, has_local)?;
        let mut model = req.program.model;
        apply_sets(&mut model, &args.set)?;
        let model = engine.options(&model);
        ok &= if has_local {
            local(args, &req, &model)
        } else {
            under(args, &req, &model, engine.as_ref())
        };
    }
    Ok(ok)
}

/// Without a budget (`--max-contexts`, `--timeout`), a bound of more than
/// `DEFAULT_MAX_CONTEXTS` contexts is refused before any is decided: a
/// search that could run for hours names its size and the flags that
/// bound it, instead of running quietly.
fn unbudgeted(args: &RefineArgs, req: &Refinement, local: bool) -> Result<(), String> {
    let cap = crate::refinement::DEFAULT_MAX_CONTEXTS;
    let Some(bound) = args.bound(local) else {
        return Ok(());
    };
    if args.max_contexts.is_some() || args.timeout.is_some() {
        return Ok(());
    }
    match crate::transform::context::count_at_most(req, bound, cap) {
        Ok(_) => Ok(()),
        Err(()) => Err(format!(
            "{}: the contexts of {} are more than {cap}, the most `refine` decides without a budget: give --max-contexts N or --timeout SECONDS, or a smaller --context-size",
            req.name,
            bound.text()
        )),
    }
}

/// The pomset semantics: the pomset-level check, then the context search.
fn local(args: &RefineArgs, req: &Refinement, model: &crate::model::Model) -> bool {
    let limits = crate::refinement::Limits {
        max_pomsets: args.max_pomsets,
        contexts: args.bound(true),
        run: args.run_limits(),
        progress: progress(),
    };
    let refined = crate::refinement::refine(req, model, limits);
    end_progress();
    match refined {
        Ok(report) => {
            print!("{}", report.text());
            report.as_expected()
        }
        Err(e) => {
            println!("Refinement {}: {e}", req.name);
            false
        }
    }
}

/// Any other model: the context search alone.
fn under(
    args: &RefineArgs,
    req: &Refinement,
    model: &crate::model::Model,
    engine: &dyn crate::engine::Engine,
) -> bool {
    let head = format!("Refinement {} under {}", req.name, args.model);
    let Some(bound) = args.bound(false) else {
        println!("{head}: unknown: --max-contexts 0 turns the context search off, and {} has no local check", args.model);
        return true;
    };
    let found = crate::transform::context::search_reporting(
        req,
        engine,
        model,
        bound,
        args.run_limits(),
        progress(),
    );
    end_progress();
    let ok = !matches!(found, Found::Unknown(_));
    print!("{}", found_text(&head, &found));
    if req.expect.is_some() {
        println!(
            "(the file's expect line states the pwt verdict; not checked under {})",
            args.model
        );
    }
    ok
}

/// When the progress line was last drawn (none yet: `None`).
static SHOWN: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);

/// The context search's progress line, on a terminal only.
fn progress() -> Option<crate::transform::context::Progress> {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal().then_some(show_progress)
}

/// `context K of N`, at most five times a second.
fn show_progress(tried: usize, total: usize) {
    let Ok(mut last) = SHOWN.lock() else {
        return;
    };
    let now = std::time::Instant::now();
    if last.is_some_and(|t| now.duration_since(t).as_millis() < 200) {
        return;
    }
    *last = Some(now);
    eprint!("\rcontext search: {tried} of {total} contexts decided ");
}

/// Clears the progress line, if one was drawn.
fn end_progress() {
    if let Ok(mut last) = SHOWN.lock() {
        if last.take().is_some() {
            eprint!("\r{:70}\r", "");
        }
    }
}
