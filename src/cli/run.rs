//! `pomset run`: decide tests, in parallel, reported in file order.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;

use super::args::{engine_named, litmus_files, read, Ctx, LimitArgs};
use crate::engine::{require, Capability};
use crate::model::Model;
use crate::syntax;
use crate::syntax::core::Program;
use crate::workbench::apply_sets;

/// The examples and notes under `pomset run --help`.
pub const AFTER_HELP: &str = "\
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
limit is named; it is never a wrong answer.";

/// `pomset run`'s flags.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Litmus files, or directories searched for *.litmus and *.lit files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Set a model option, overriding the file's `model {}` block (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub sets: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Exit 0 even when a limit leaves a stated expectation undecided
    /// (by default an Unknown against an `expect` or allow/forbid fails the run).
    #[arg(long)]
    pub allow_unknown: bool,
    /// Print what each test's decision counted, on a `Stats` line: under pwt
    /// the logic layer's queries, cache hits and SAT calls; under `--model
    /// sc` the configurations visited; under a cat model the search's steps
    /// (as --max-steps counts them); and the spin loops decided as their
    /// last pass, the peak heap and the readers kept apart, where there are
    /// any.
    #[arg(long)]
    pub stats: bool,
    /// Draw, as SVG in this directory, one complete pomset for each condition it allows.
    #[arg(long, value_name = "DIR")]
    pub draw: Option<PathBuf>,
    /// List every state, also past 1000 of them (by default a long list shows
    /// only the states without `?` and counts the rest).
    #[arg(long)]
    pub all_states: bool,
    /// Which engine decides: the fast one; the literal reference engine
    /// (tiny tests only); or sc, sequential consistency by interleaving.
    #[arg(long, value_enum, default_value_t = Engine::Fast)]
    pub engine: Engine,
    /// Decide only each condition's verdict (herd7's -speedcheck fast): search
    /// for one state that makes it true and one that does not, pruning
    /// by the condition, and stop at each first one. Much faster on big
    /// tests; the states listed are just those found.
    #[arg(long)]
    pub verdict_only: bool,
    /// Which model decides: pwt (the pomset semantics), a bundled cat
    /// model (rc11, ptx, hrf-direct, hrf-indirect), or a .cat file. Under a cat model the file's
    /// expectations (the note's verdicts) are not checked.
    #[arg(long, default_value = "pwt", value_name = "MODEL")]
    pub model: String,
}

/// `pomset run --model NAME`: the tests under `paths`, decided by the
/// model's engine. `--engine` is the older way to name `pwt:reference` and
/// `sc`.
pub fn run(args: &RunArgs, cx: Ctx) -> Result<bool, String> {
    let model = args.model.as_str();
    let name = match (model, args.engine) {
        (_, Engine::Fast) => model,
        ("pwt", Engine::Reference) => "pwt:reference",
        ("pwt", Engine::Sc) => "sc",
        _ => {
            return Err("--engine chooses how the pomset semantics is decided; it does not combine with another --model (name `pwt:reference` or `sc` with --model instead)".to_string())
        }
    };
    let engine: Arc<dyn crate::engine::Engine> = Arc::from(engine_named(name, cx.color)?);
    if args.verdict_only {
        require(engine.as_ref(), Capability::VerdictOnly)?;
    }
    if let Some(dir) = &args.draw {
        // `--draw` draws pomsets, into a directory made before any test is
        // decided: one that cannot be made fails the run at once.
        require(engine.as_ref(), Capability::Pomsets)?;
        super::args::output_dir(dir, "--draw")?;
    }
    run_tests(args, cx, engine)
}

/// One test decided: its report, or why there is none.
enum Decided {
    Report(Box<crate::report::Report>),
    /// `--set` named an option the model rejects (already reported).
    BadSet,
    /// The decision panicked (a bug): the message, printed as an error so
    /// that the run fails instead of ending quietly without a report.
    Panicked(String),
}

/// `pomset run`: tests are decided in parallel, one per core, and reported
/// in the order of the files, each as soon as those before it are.
fn run_tests(o: &RunArgs, cx: Ctx, engine: Arc<dyn crate::engine::Engine>) -> Result<bool, String> {
    // Reject a bad --set before reading any file.
    apply_sets(&mut Model::default(), &o.sets)?;
    let files = litmus_files(&o.paths)?;
    let mut parsed = Vec::new();
    for path in files {
        let src = read(&path)?;
        parsed.push((path, src));
    }
    let (send, receive) = std::sync::mpsc::channel();
    let reading = cx.reading(&[engine.as_ref()]);
    let tests: Vec<(PathBuf, String, Result<syntax::Litmus, _>)> = parsed
        .into_iter()
        .map(|(path, src)| {
            let test = crate::import::load(&path.display().to_string(), &src, reading);
            (path, src, test)
        })
        .collect();
    let tests = std::sync::Arc::new(tests);
    for k in 0..tests.len() {
        let (tests, send) = (tests.clone(), send.clone());
        let (sets, limits, engine, verdict_only, json) = (
            o.sets.clone(),
            o.limits,
            engine.clone(),
            o.verdict_only,
            o.json,
        );
        // The text report and JSON list a page of states and count the rest,
        // so they can take them one per orbit; `--all-states` lists every one.
        let orbits = !o.all_states;
        rayon::spawn(move || {
            // A panic here would abort the process from a worker, racing the
            // main thread, which could exit 0 having printed nothing.
            let decided =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &tests[k].2 {
                    Ok(test) => {
                        let how = (verdict_only, orbits, json);
                        decide_one(&test.program, &sets, &limits, engine.as_ref(), how)
                    }
                    Err(_) => Decided::BadSet,
                }))
                .unwrap_or_else(|panic| Decided::Panicked(panic_text(panic.as_ref())));
            let _ = send.send((k, (decided, crate::memory::peak_bytes())));
        });
    }
    drop(send);
    let mut ok = true;
    let mut reports = Vec::new();
    let mut tally = Tally::default();
    // Of several files, one the model cannot read (a Vulkan test under the
    // pomset semantics) is a skip the summary names, not an error block.
    let skips = tests.len() > 1 && !engine.can(Capability::Vulkan);
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
                    diags.emit_stderr(&name, src, cx.color);
                    ok = false;
                    continue;
                }
            };
            test.warnings.emit_stderr(&name, src, cx.color);
            if skips && test.program.vulkan_only().is_some() {
                tally.skipped.push(name);
                if let (true, Decided::Report(r)) = (o.json, decided) {
                    reports.push(*r);
                }
                continue;
            }
            if !engine.can(Capability::Vulkan) {
                vulkan_refusal(&test.program, &name, src, cx.color);
            }
            ok &= report_one(test, (decided, peak), o, &mut tally, &mut reports);
        }
    }
    if next < tests.len() {
        // A worker ended without sending (cannot happen short of an abort):
        // never a quiet success.
        return Err(format!(
            "{}: the decision ended without a report",
            tests[next].0.display()
        ));
    }
    if !o.json {
        print!("{}", tally.summary(engine.as_ref()));
    }
    if o.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).unwrap_or_default()
        );
    }
    Ok(ok)
}

/// The most states one test lists in `run --json` (`--all-states` lists
/// every one); past it the report lists the first determined ones, as the
/// text report does, and its `unlisted` counts them all.
const JSON_STATES: usize = 10_000;

/// What a run of several tests found, for its summary line. The
/// expectations are counted one per condition, as `pomset fit` counts
/// them, so the two commands' numbers agree.
#[derive(Default)]
struct Tally {
    /// Tests decided and reported.
    run: usize,
    /// Stated verdicts (conditions) met.
    met: usize,
    /// Stated verdicts not met (or met against a stale `disputed` line).
    failed: usize,
    /// Stated verdicts not met where the file says so (`disputed "why"`):
    /// the note's verdict, which the model does not give. Not a failure,
    /// and not met: `fit` counts them as not satisfied.
    disputed: usize,
    /// Tests decided whose file states no verdict (`expect unknown`, or none).
    silent: usize,
    /// Tests left unknown by a limit, or refused.
    unknown: usize,
    /// Stated verdicts met, or missed, within a loop bound that an
    /// execution reaches or may reach (`report::Bounded`): not confirmed.
    bounded: usize,
    /// Tests with such a verdict (the summary of an engine that checks no
    /// expectation counts these).
    bounded_tests: usize,
    /// Written for a model that is not the one asked for (the Vulkan tests).
    skipped: Vec<String>,
}

impl Tally {
    /// The summary's count of bounded verdicts, when there are some.
    fn bounded_text(&self, n: usize, what: &str) -> String {
        match n {
            0 => String::new(),
            n => format!(
                ", {} bounded (a loop's cut reached or maybe reached: raise --unroll)",
                crate::report::count(n, what)
            ),
        }
    }

    /// The summary after several tests: whose expectations were checked
    /// (only an engine of the pomset semantics checks the files', which are
    /// the note's verdicts), and the skips with their reason. Empty for one test.
    fn summary(&self, engine: &dyn crate::engine::Engine) -> String {
        let mut out = String::new();
        if self.run > 1 && engine.can(Capability::Expectations) {
            let disputed = match self.disputed {
                0 => String::new(),
                n => format!(", {n} disputed"),
            };
            out.push_str(&format!(
                "{} tests: {} checked: {} as expected{disputed}, {} not as expected{}; {} {} no verdict; {} unknown (limit or unsupported)\n",
                self.run,
                crate::report::count(self.met + self.failed + self.disputed + self.bounded, "verdict"),
                self.met,
                self.failed,
                self.bounded_text(self.bounded, "verdict"),
                self.silent,
                if self.silent == 1 { "states" } else { "state" },
                self.unknown,
            ));
            if self.disputed > 0 {
                out.push_str("(a verdict is checked per condition, as `pomset fit` counts it; disputed: not met, as its file's `disputed` line says: the note's verdict, which this model does not give)\n");
            }
        } else if self.run > 1 {
            out.push_str(&format!(
                "{} tests decided under {}, {} unknown (limit or unsupported){}; their expectations are the pomset semantics' and are not checked\n",
                self.run,
                engine.name(),
                self.unknown,
                self.bounded_text(self.bounded_tests, "test")
            ));
        }
        if !self.skipped.is_empty() {
            out.push_str(&format!(
                "{} skipped, written for the Vulkan model (run them with --model vulkan): {}\n",
                self.skipped.len(),
                self.skipped.join(", ")
            ));
        }
        out
    }
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

/// Decides one test with the chosen engine (on a worker thread).
/// `how`: whether only verdicts are asked for, and whether the report may
/// take states one per orbit (`Limits::orbits`).
fn decide_one(
    p: &Program,
    sets: &[String],
    limit_args: &LimitArgs,
    engine: &dyn crate::engine::Engine,
    (verdict_only, orbits, json): (bool, bool, bool),
) -> Decided {
    let mut model = p.model;
    if apply_sets(&mut model, sets).is_err() {
        return Decided::BadSet;
    }
    // Without `--all-states` the report keeps only the states it prints.
    let listed = orbits.then_some(if json {
        JSON_STATES
    } else {
        crate::report::SHOWN_STATES
    });
    let limits = crate::outcome::Limits {
        orbits,
        listed,
        ..limit_args.limits()
    };
    Decided::Report(Box::new(crate::engine::decide(
        engine,
        p,
        &model,
        verdict_only,
        limits,
    )))
}

/// A panic's message, as `panic!` was given it.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Prints one decided test (in file order) and counts it; false when it
/// fails the run.
fn report_one(
    test: &syntax::Litmus,
    (decided, peak): (Decided, usize),
    o: &RunArgs,
    tally: &mut Tally,
    reports: &mut Vec<crate::report::Report>,
) -> bool {
    let p = &test.program;
    let report = match decided {
        Decided::Report(mut r) => {
            r.peak_bytes = Some(peak);
            *r
        }
        Decided::BadSet => return false,
        Decided::Panicked(why) => {
            eprintln!("error: {}: internal error, no verdict: {why}", p.name);
            return false;
        }
    };
    let met = report.expectations_met();
    let undecided = report.undecided() && !o.allow_unknown;
    if undecided {
        eprintln!(
            "error: {}: a limit left a stated expectation undecided (--allow-unknown accepts this)",
            p.name
        );
    }
    // Each test counts once: a failure first, then a limit, then whether
    // the file states a verdict (`expect unknown` states none).
    let stated = report
        .conditions
        .iter()
        .any(|c| c.expected.is_some_and(|e| e != "unknown"));
    // A limit leaves a test unknown unless the states found before it
    // settled every stated verdict (issue 74); a verdict within a loop
    // bound that an execution reaches is bounded, not confirmed.
    let open = report
        .conditions
        .iter()
        .any(|c| c.met.is_none() && c.expected.is_some_and(|e| e != "unknown"));
    tally.run += 1;
    let limited = report.limit.is_some() || report.unsupported.is_some();
    if (limited && met && (open || !stated)) || report.unsupported.is_some() {
        tally.unknown += 1;
    } else if !stated {
        tally.silent += usize::from(met);
    }
    tally.bounded_tests += usize::from(report.bounded());
    // Each stated verdict once, as `fit` counts it; one within a loop bound
    // that an execution reaches or may reach is bounded, not confirmed.
    for c in &report.conditions {
        if !c.expected.is_some_and(|e| e != "unknown") || c.met.is_none() {
            continue;
        }
        match (c.bounded.is_some(), c.passes(), c.is_disputed()) {
            (true, _, _) => tally.bounded += 1,
            (false, true, true) => tally.disputed += 1,
            (false, true, false) => tally.met += 1,
            (false, false, _) => tally.failed += 1,
        }
    }
    // The conditions as printed, for `--draw` to name one it cannot draw.
    let shown: Vec<String> = report.conditions.iter().map(|c| c.text.clone()).collect();
    if o.json {
        let mut report = report;
        if !o.all_states {
            report.list_at_most(JSON_STATES);
        }
        reports.push(report);
    } else {
        let mut text = report.text_listing(p, o.all_states);
        if let Some(line) = report.stats_line().filter(|_| o.stats) {
            text.push_str(&line);
            text.push('\n');
        }
        println!("{text}");
    }
    let mut drawn = true;
    if let Some(dir) = &o.draw {
        let mut model = p.model;
        if apply_sets(&mut model, &o.sets).is_ok() {
            match crate::workbench::draw_witnesses(test, &model, o.limits.limits(), dir) {
                Ok(files) => {
                    for (k, f) in files.iter().enumerate() {
                        match f {
                            Some(f) => eprintln!("drew {}", f.display()),
                            None => eprintln!(
                                "drew nothing for condition {} of {}, {}: no complete pomset satisfies it",
                                k + 1,
                                p.name,
                                shown.get(k).map_or("", String::as_str)
                            ),
                        }
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    drawn = false;
                }
            }
        }
    }
    met && !undecided && drawn
}

/// `run --engine`, the older way to choose: `fast` is the model `--model`
/// names, `reference` is `pwt:reference`, `sc` is `sc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    Fast,
    Reference,
    Sc,
}
