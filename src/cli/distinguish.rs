//! `pomset distinguish`: every small program decided under two models, the
//! minimal ones that tell them apart (`crate::distinguish`), with progress,
//! resuming, JSON Lines and merging.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use super::sweep::{open_jsonl, resume_command, save, Class, Progress, CANCEL};

use crate::distinguish::count;
use crate::distinguish::shape::{Bound, Shape, Space, Vocabulary};
use crate::distinguish::shard::{self, Header, Merged, Record, Tally};
use crate::distinguish::{Pair, Shard};

/// The examples under `pomset distinguish --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset distinguish --models sc,rc11              store buffering, message passing, ...
  pomset distinguish --models rc11,pwt --threads 2 --per-thread 2
  pomset distinguish --mapping pwt:ptx --modes rlx,acq,rel --rmws exchg --out found/
  pomset distinguish --models sc,rc11 --shard 0/4 --jsonl s0.jsonl   (one of four)
  pomset distinguish --merge s*.jsonl --out found/
  pomset distinguish --models rc11,pwt --threads 3 --budget 3600 --jsonl r.jsonl
                                                   stops after an hour; run again to resume

Every program within the bound is decided once up to symmetry (threads
permuted, locations and written values renamed); those with a final state
one model allows and the other forbids distinguish them, and the minimal
ones (no access removable, no mode or scope weakenable, no dependency
droppable while still distinguishing) are listed by family (the shape with
modes relaxed) and written under --out as litmus tests. A program a model
refuses, stops on a limit for, or flags (a data race) is undecided, never
distinguishing. --budget or Ctrl-C stops a sweep, keeping its records, and
prints the summary so far (INCOMPLETE) and the command that resumes it;
--merge says which shards are missing or stopped. Either exits 1 unless
--partial. The book's \"Where models differ\" has the recipe for GNU
parallel and Slurm.";

/// The arguments of `pomset distinguish`.
#[derive(clap::Args, Debug)]
pub struct DistinguishArgs {
    /// The two models, comma-separated (`sc,rc11`).
    #[arg(long, value_parser = super::args::model_list, conflicts_with = "mapping")]
    models: Option<super::args::ModelList>,
    /// A mapping SRC:TGT (`pwt:ptx`): the target decides the lowered program.
    #[arg(long, value_name = "SRC:TGT")]
    mapping: Option<String>,
    /// At most this many threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// At most this many accesses (fences included) per thread.
    #[arg(long, default_value_t = 2)]
    per_thread: usize,
    /// At most this many accesses in all [default: threads × per-thread].
    #[arg(long)]
    total: Option<usize>,
    /// At most this many locations (x, y, z, w).
    #[arg(long, default_value_t = 2)]
    locations: u8,
    /// The values are 0 .. N-1; writes write 1 .. N-1.
    #[arg(long, default_value_t = 2)]
    values: u8,
    /// The modes, comma-separated; each access takes those legal for it.
    #[arg(long, value_delimiter = ',', default_value = "rlx")]
    modes: Vec<String>,
    /// The scopes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "sys")]
    scopes: Vec<String>,
    /// A `scopes:` header for every program (threads are then not interchangeable).
    #[arg(long, value_name = "TREE")]
    scope_tree: Option<String>,
    /// Fences too, in the legal modes among --modes.
    #[arg(long)]
    fences: bool,
    /// Read-modify-writes: fadd, exchg (comma-separated).
    #[arg(long, value_delimiter = ',')]
    rmws: Vec<String>,
    /// Dependencies on the thread's latest read: data (a write of the value
    /// read), ctrl (an access under `if (r = 1)`).
    #[arg(long, value_delimiter = ',')]
    deps: Vec<String>,
    /// Decide only shard K of N (0 ≤ K < N).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Append one JSON record per program decided; resumes when the file
    /// exists (programs already in it are skipped).
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Write each minimal test as a litmus file, and summary.txt, here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Show progress on stderr even when it is not a terminal.
    #[arg(long)]
    progress: bool,
    /// Seconds each model may spend on one program (then it is undecided).
    #[arg(long, value_name = "SECONDS", value_parser = super::args::seconds, allow_negative_numbers = true)]
    timeout: Option<f64>,
    /// Seconds the whole sweep may take: then it stops, keeps its records
    /// (resumable), prints the summary so far, marked incomplete, and the
    /// command that resumes it. Ctrl-C does the same.
    #[arg(long, value_name = "SECONDS", value_parser = budget, allow_negative_numbers = true)]
    budget: Option<f64>,
    /// Decide every program on its own: no verdict `same` inferred from a
    /// program's weaker and stronger mode variants, and no variant decided
    /// from its skeleton's candidates (the book's "Mode lattice"; the
    /// records are the same either way, only slower).
    #[arg(long)]
    no_mode_lattice: bool,
    /// Accept an incomplete sweep (stopped, or --merge of some shards
    /// only): exit 0 instead of 1. The summary still says INCOMPLETE.
    #[arg(long)]
    partial: bool,
    /// Decide nothing: merge these files of records and print the summary.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["models", "mapping", "jsonl", "shard", "budget"])]
    merge: Vec<PathBuf>,
}

/// The most programs a sweep (or one shard of it) decides without
/// `--budget`: a larger bound is refused before it starts, its size named.
pub const DEFAULT_MAX_PROGRAMS: u64 = 2_000_000;

fn budget(text: &str) -> Result<f64, String> {
    super::args::seconds(text)
        .map_err(|_| "--budget takes a number of seconds, finite and not negative".to_string())
}

/// `pomset distinguish`.
pub fn distinguish(a: &DistinguishArgs) -> Result<bool, String> {
    // The tests go under --out after the sweep: a path that cannot be a
    // directory fails now, not after the work.
    if let Some(dir) = &a.out {
        super::args::output_dir(dir, "--out")?;
    }
    if !a.merge.is_empty() {
        return merge(a);
    }
    let space = space(a)?;
    let models = a.models.as_ref().map_or(&[][..], |m| m.as_slice());
    let mut pair = match (&a.mapping, models) {
        (Some(m), _) => Pair::mapping(m)?,
        (None, [x, y]) => Pair::named(x, y)?,
        _ => {
            return Err(
                "give two models, --models A,B, or a mapping, --mapping SRC:TGT".to_string(),
            )
        }
    };
    pair.timeout = a.timeout;
    pair.cancel = Some(&CANCEL);
    pair.lattice = !a.no_mode_lattice;
    let shard = match &a.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::WHOLE,
    };
    // A shard holds whole skeletons, whose programs are counted by listing
    // them (beside the sweep); the whole is counted by formula.
    let whole = count::programs(&space);
    let total = whole.filter(|_| shard.count == 1);
    // The bound's size, said before the sweep starts; past the default,
    // a sweep needs a budget (it then stops, keeping its records, and
    // resumes).
    let share = whole.map(|n| n.div_ceil(shard.count as u64));
    if a.budget.is_none() && share.is_none_or(|n| n > DEFAULT_MAX_PROGRAMS) {
        let size = match (whole, shard.count) {
            (None, _) => "more programs than can be counted".to_string(),
            (Some(n), 1) => format!("{n} programs"),
            (Some(n), k) => format!(
                "{n} programs, about {} in a shard of {k}",
                n.div_ceil(k as u64)
            ),
        };
        return Err(format!(
            "the bound holds {size}, more than the {DEFAULT_MAX_PROGRAMS} a sweep decides without a budget: give --budget SECONDS (the sweep stops then, keeping its records, and resumes), spread it with --shard K/N, or choose a smaller bound"
        ));
    }
    let header = Header {
        models: pair.names.clone(),
        space: space.describe(),
        shard: shard.to_string(),
        programs: total,
        order: Some(shard::ORDER.to_string()),
    };
    let (opened, mut sink, finished) = match &a.jsonl {
        Some(path) => {
            let differs = |h: &Header| {
                let same = h.same_sweep(&header);
                let [x, y] = &h.models;
                (!same).then(|| format!("{x} vs {y} over {}, shard {}", h.space, h.shard))
            };
            let o = open_jsonl(path, &header, shard::read, differs)?;
            (o.records, Some(o.file), o.finished)
        }
        None => (Vec::new(), None, false),
    };
    // The records as the summary reads them: tallied, each program once.
    let (mut done, mut tally) = (HashSet::new(), Tally::default());
    for r in opened {
        if done.insert(r.id.clone()) {
            tally.add(r);
        }
    }
    // Without a file the records are kept, to save if the sweep stops.
    let mut kept: Vec<Record> = Vec::new();
    // Ctrl-C stops the sweep as the budget does.
    super::sweep::stop_on_ctrl_c();
    let show = a.progress || std::io::stderr().is_terminal();
    // (A bound counted shows `k/N` from the progress line's first step.)
    if show && whole.is_none() {
        eprintln!(
            "the bound holds more programs than can be counted; counting this sweep's as it goes"
        );
    }
    let counted = AtomicU64::new(total.unwrap_or(0));
    let over = AtomicBool::new(false);
    let spent = AtomicBool::new(false);
    let mut failed = None;
    let mut complete = true;
    // The shard's programs still to decide, by class, for the estimate
    // (`Progress::by_class`).
    let todo: Mutex<Option<BTreeMap<Class, u64>>> = Mutex::new(None);
    std::thread::scope(|scope| {
        if show {
            // Listed beside the sweep: by class for the estimate, and the
            // total too when there are too many symmetries to count it by
            // formula.
            scope.spawn(|| {
                let (mut by, mut n) = (BTreeMap::new(), 0u64);
                for shape in shard.programs(&space) {
                    if over.load(Ordering::Relaxed) {
                        return;
                    }
                    n += 1;
                    if done.is_empty() || !done.contains(&shape.body()) {
                        *by.entry(class(&shape)).or_insert(0u64) += 1;
                    }
                }
                if total.is_none() {
                    counted.store(n, Ordering::Relaxed);
                }
                if let Ok(mut kept) = todo.lock() {
                    *kept = Some(by);
                }
            });
        }
        if let Some(secs) = a.budget {
            let (over, spent) = (&over, &spent);
            // A budget already spent stops the sweep before its first program.
            if secs <= 0.0 {
                spent.store(true, Ordering::Relaxed);
                CANCEL.store(true, Ordering::Relaxed);
            }
            scope.spawn(move || watch_budget(secs, over, spent));
        }
        let mut bar = Progress::new(show, &counted, "programs", done.len()).by_class(&todo);
        complete = crate::distinguish::sweep(&space, &pair, shard, &done, &mut |shape, r| {
            if let Some(f) = &mut sink {
                // One write per record (`writeln!` makes two): a record is
                // never split across writes, and half the system calls.
                let mut line = shard::record_line(&r);
                line.push('\n');
                if let Err(e) = f.write_all(line.as_bytes()) {
                    failed.get_or_insert(e.to_string());
                }
            }
            bar.step_class(class(shape));
            if sink.is_none() {
                kept.push(r.clone());
            }
            tally.add(r);
        });
        over.store(true, Ordering::Relaxed);
        bar.end();
    });
    if show {
        let (runs, inferred) = (
            pair.decided.load(Ordering::Relaxed),
            pair.inferred.load(Ordering::Relaxed),
        );
        eprintln!("mode lattice: {inferred} verdicts `same` given without deciding the program; {runs} engine runs");
    }
    if let Some(e) = failed {
        return Err(format!("writing the records: {e}"));
    }
    if complete && !finished {
        if let Some(f) = &mut sink {
            writeln!(f, "{}", shard::end_line(tally.decided))
                .map_err(|e| format!("writing the records: {e}"))?;
        }
    }
    let decided = tally.decided;
    let mut merged = Merged::new(header.models.clone(), header.space.clone(), tally);
    if complete {
        finish(&merged, a.out.as_deref())?;
        return Ok(true);
    }
    let why = match (spent.load(Ordering::Relaxed), a.budget) {
        (true, Some(secs)) => format!("--budget {secs}"),
        _ => "Ctrl-C".to_string(),
    };
    let of = total.map_or(String::new(), |n| format!(" of {n}"));
    // Without --jsonl the records so far go to a new file, to resume from.
    let file = match &a.jsonl {
        Some(path) => path.clone(),
        None => save("distinguish", &header, &kept)?,
    };
    merged
        .incomplete
        .push(format!("stopped by {why} after {decided}{of} programs"));
    finish(&merged, a.out.as_deref())?;
    let resume = resume_command(a.jsonl.is_none().then_some(file.as_path()));
    eprintln!(
        "stopped by {why}: the records so far are in {}; resume with\n  {resume}",
        file.display()
    );
    Ok(a.partial)
}

/// A program's class for the estimate (`Progress::by_class`): its threads,
/// accesses and read-modify-writes, what a decision's cost grows with.
fn class(shape: &Shape) -> Class {
    let threads = shape.threads.len() as u32;
    let rmws = shape
        .threads
        .iter()
        .flatten()
        .filter(|op| op.kind.is_rmw())
        .count() as u32;
    threads << 16 | rmws << 8 | shape.size() as u32
}

/// `--merge`: the files' records and summary, said to be incomplete, loudly,
/// when a shard is missing or a file's sweep stopped.
fn merge(a: &DistinguishArgs) -> Result<bool, String> {
    let show = a.progress || std::io::stderr().is_terminal();
    let files = AtomicU64::new(a.merge.len() as u64);
    let mut bar = Progress::new(show, &files, "files", 0);
    let merged = shard::merge_reporting(&a.merge, || bar.step())?;
    if show {
        eprintln!(
            "\rmerged {} files                              ",
            a.merge.len()
        );
    }
    finish(&merged, a.out.as_deref())?;
    if merged.incomplete.is_empty() {
        return Ok(true);
    }
    for why in &merged.incomplete {
        eprintln!("warning: incomplete: {why}");
    }
    if !a.partial {
        eprintln!("warning: the summary is of these records only; --partial accepts that (exit 0)");
    }
    Ok(a.partial)
}

/// Sets `CANCEL` when `secs` have passed, unless the sweep is `over` first.
fn watch_budget(secs: f64, over: &AtomicBool, spent: &AtomicBool) {
    let (until, _) = crate::outcome::limits::deadline_after(secs);
    while !over.load(Ordering::Relaxed) {
        let now = std::time::Instant::now();
        if now >= until {
            spent.store(true, Ordering::Relaxed);
            CANCEL.store(true, Ordering::Relaxed);
            return;
        }
        std::thread::sleep((until - now).min(std::time::Duration::from_millis(50)));
    }
}

/// The space the arguments describe.
fn space(a: &DistinguishArgs) -> Result<Space, String> {
    let space = Space {
        bound: Bound {
            threads: a.threads,
            per_thread: a.per_thread,
            total: a.total.unwrap_or(a.threads * a.per_thread),
            locations: a.locations,
            values: a.values,
        },
        vocabulary: Vocabulary::parse(
            &a.modes,
            &a.scopes,
            a.fences,
            &a.rmws,
            &a.deps,
            a.scope_tree.clone(),
        )?,
    };
    space.check()?;
    crate::distinguish::check_held(&space)?;
    if let (Some((text, d)), Some(tree)) = (space.scope_tree_errors(), &a.scope_tree) {
        d.emit_stderr("--scope-tree", &text, std::io::stderr().is_terminal());
        return Err(format!(
            "--scope-tree `{tree}` is not a `scopes:` tree of the programs' threads (P0 to P{}, --threads {})",
            a.threads.saturating_sub(1),
            a.threads
        ));
    }
    Ok(space)
}

/// Prints the summary, and writes the tests and the summary under `out`.
fn finish(m: &Merged, out: Option<&Path>) -> Result<bool, String> {
    let summary = shard::summary(m);
    print!("{summary}");
    let Some(dir) = out else {
        return Ok(true);
    };
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    for t in shard::tests(m) {
        std::fs::write(dir.join(format!("{}.litmus", t.name)), shard::litmus(m, &t)).map_err(io)?;
    }
    std::fs::write(dir.join("summary.txt"), summary).map_err(io)?;
    Ok(true)
}
