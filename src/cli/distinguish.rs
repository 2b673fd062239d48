//! `pomset distinguish`: every small program decided under two models, the
//! minimal ones that tell them apart (`crate::distinguish`), with progress,
//! resuming, JSON Lines and merging.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::distinguish::enumerate::{Bound, Dep, Kind, Space, Vocabulary};
use crate::distinguish::shard::{self, Header, Merged};
use crate::distinguish::{Pair, Shard};
use crate::syntax::ast::{Mode, Scope};

/// The examples under `pomset distinguish --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset distinguish --models sc,rc11              store buffering, message passing, ...
  pomset distinguish --models rc11,pwt --threads 2 --per-thread 2
  pomset distinguish --mapping pwt:ptx --modes rlx,acq,rel --rmws exchg --out found/
  pomset distinguish --models sc,rc11 --shard 0/4 --jsonl s0.jsonl   (one of four)
  pomset distinguish --merge s*.jsonl --out found/

Every program within the bound is decided once up to symmetry (threads
permuted, locations and written values renamed); those with a final state
one model allows and the other forbids distinguish them, and the minimal
ones (no access removable, no mode or scope weakenable, no dependency
droppable while still distinguishing) are listed by family (the shape with
modes relaxed) and written under --out as litmus tests. A program a model
refuses, stops on a limit for, or flags (a data race) is undecided, never
distinguishing. The book's \"Where models differ\" has the recipe for GNU
parallel and Slurm.";

/// The arguments of `pomset distinguish`.
#[derive(clap::Args, Debug)]
pub struct DistinguishArgs {
    /// The two models, comma-separated (`sc,rc11`).
    #[arg(long, value_delimiter = ',', conflicts_with = "mapping")]
    models: Vec<String>,
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
    /// Decide nothing: merge these files of records and print the summary.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["models", "mapping", "jsonl", "shard"])]
    merge: Vec<PathBuf>,
}

/// `pomset distinguish`.
pub fn distinguish(a: &DistinguishArgs) -> Result<bool, String> {
    if !a.merge.is_empty() {
        let mut files = Vec::new();
        for path in &a.merge {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
            files.push((name.clone(), shard::read(&name, &text)?));
        }
        return finish(&shard::merge(&files)?, a.out.as_deref());
    }
    let space = space(a)?;
    let mut pair = match (&a.mapping, a.models.as_slice()) {
        (Some(m), _) => Pair::mapping(m)?,
        (None, [x, y]) => Pair::named(x, y)?,
        _ => {
            return Err(
                "give two models, --models A,B, or a mapping, --mapping SRC:TGT".to_string(),
            )
        }
    };
    pair.timeout = a.timeout;
    let shard = match &a.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::WHOLE,
    };
    let header = Header {
        models: pair.names.clone(),
        space: space.describe(),
        shard: shard.to_string(),
    };
    let (done, mut records, mut sink) = match &a.jsonl {
        Some(path) => open_jsonl(path, &header)?,
        None => (HashSet::new(), Vec::new(), None),
    };
    let show = a.progress || std::io::stderr().is_terminal();
    // The total is counted beside the sweep, so a large one starts at once.
    let total = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut failed = None;
    std::thread::scope(|scope| {
        if show {
            scope.spawn(|| {
                let n = shard
                    .programs(&space)
                    .take_while(|_| !stop.load(Ordering::Relaxed))
                    .count();
                total.store(n, Ordering::Relaxed);
            });
        }
        let mut bar = Progress::new(show, &total, done.len());
        crate::distinguish::sweep(&space, &pair, shard, &done, &mut |r| {
            if let Some(f) = &mut sink {
                if let Err(e) = writeln!(f, "{}", shard::record_line(&r)) {
                    failed.get_or_insert(e.to_string());
                }
            }
            bar.step();
            records.push(r);
        });
        stop.store(true, Ordering::Relaxed);
        bar.end();
    });
    if let Some(e) = failed {
        return Err(format!("writing the records: {e}"));
    }
    let merged = Merged {
        models: header.models,
        space: header.space,
        records: records.into_iter().map(|r| (r.id.clone(), r)).collect(),
    };
    finish(&merged, a.out.as_deref())
}

/// The space the arguments describe.
fn space(a: &DistinguishArgs) -> Result<Space, String> {
    let modes = a
        .modes
        .iter()
        .map(|m| {
            Mode::parse(m.trim())
                .ok_or_else(|| format!("--modes: no mode `{m}` (wk, rlx, rel, acq, ra, sc)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scopes = a
        .scopes
        .iter()
        .map(|s| {
            Scope::parse(s.trim())
                .ok_or_else(|| format!("--scopes: no scope `{s}` (cta, gpu, sys)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rmws = a
        .rmws
        .iter()
        .map(|k| match k.trim() {
            "fadd" => Ok(Kind::Fadd),
            "exchg" => Ok(Kind::Exchg),
            _ => Err(format!("--rmws: no read-modify-write `{k}` (fadd, exchg)")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let deps = a
        .deps
        .iter()
        .map(|d| match d.trim() {
            "data" => Ok(Dep::Data),
            "ctrl" => Ok(Dep::Ctrl),
            _ => Err(format!("--deps: no dependency `{d}` (data, ctrl)")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let space = Space {
        bound: Bound {
            threads: a.threads,
            per_thread: a.per_thread,
            total: a.total.unwrap_or(a.threads * a.per_thread),
            locations: a.locations,
            values: a.values,
        },
        vocabulary: Vocabulary {
            modes,
            scopes,
            fences: a.fences,
            rmws,
            deps,
            scope_tree: a.scope_tree.clone(),
        },
    };
    space.check()?;
    Ok(space)
}

type Opened = (
    HashSet<String>,
    Vec<crate::distinguish::Record>,
    Option<std::fs::File>,
);

/// The records file: read and cut after its last complete line when it
/// exists (resuming), else created with its header.
fn open_jsonl(path: &Path, header: &Header) -> Result<Opened, String> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| format!("{name}: {e}");
    if !path.exists() {
        let mut f = std::fs::File::create(path).map_err(io)?;
        writeln!(f, "{}", shard::header_line(header)).map_err(io)?;
        return Ok((HashSet::new(), Vec::new(), Some(f)));
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let read = shard::read(&name, &text)?;
    if read.header != *header {
        return Err(format!(
            "{name} holds records of another sweep ({} vs {} over {}, shard {}); give another --jsonl",
            read.header.models[0], read.header.models[1], read.header.space, read.header.shard
        ));
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io)?;
    f.set_len(read.complete as u64).map_err(io)?;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io)?;
    f.flush().map_err(io)?;
    let done = read.records.iter().map(|r| r.id.clone()).collect();
    Ok((done, read.records, Some(f)))
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

/// A progress line on stderr: programs done, the rate, and an estimate.
struct Progress<'a> {
    show: bool,
    /// 0 while it is being counted.
    total: &'a AtomicUsize,
    done: usize,
    start: std::time::Instant,
    last: std::time::Instant,
    fresh: usize,
}

impl<'a> Progress<'a> {
    fn new(show: bool, total: &'a AtomicUsize, done: usize) -> Progress<'a> {
        let now = std::time::Instant::now();
        Progress {
            show,
            total,
            done,
            start: now,
            last: now,
            fresh: 0,
        }
    }

    fn step(&mut self) {
        self.done += 1;
        self.fresh += 1;
        if !self.show || self.last.elapsed().as_secs_f64() < 0.5 {
            return;
        }
        self.last = std::time::Instant::now();
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let rate = self.fresh as f64 / secs;
        let total = self.total.load(Ordering::Relaxed);
        if total == 0 {
            eprint!(
                "\r{} programs (counting the rest), {rate:.1}/s   ",
                self.done
            );
            return;
        }
        let left = total.saturating_sub(self.done) as f64 / rate.max(1e-9);
        eprint!(
            "\r{}/{total} programs, {rate:.1}/s, about {} left   ",
            self.done,
            clock(left)
        );
    }

    fn end(&self) {
        if self.show {
            let secs = self.start.elapsed().as_secs_f64();
            eprintln!(
                "\r{} programs, {} decided in {}, {:.1}/s                    ",
                self.done,
                self.fresh,
                clock(secs),
                self.fresh as f64 / secs.max(1e-9)
            );
        }
    }
}

/// Seconds as `1h02m`, `3m05s` or `12s`.
fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}
