//! What the commands that run long sweeps (`distinguish`, `transformations`)
//! share around `crate::sweep`: Ctrl-C, the records file opened to resume,
//! a stopped sweep's records saved, the command that resumes it, and the
//! progress line.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use crate::sweep::{self, Lines};

/// Set by the Ctrl-C handler (or a command's budget): the engines stop at
/// their next check (`Limits::cancel`) and the sweep before its next item.
pub static CANCEL: AtomicBool = AtomicBool::new(false);

/// Ctrl-C sets `CANCEL`; a second one ends the process.
pub fn stop_on_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if CANCEL.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
}

/// A records file opened to append to.
pub struct Opened<R> {
    /// The records already in it (resumed), in file order.
    pub records: Vec<R>,
    pub file: std::fs::File,
    /// Whether its sweep had gone through the shard (its end line is there).
    pub finished: bool,
}

/// The records file at `path`: read and cut after its last complete line
/// when it exists (resuming), else created with `header`'s line. `read`
/// parses it, `differs` says how its header differs from `header` (`None`:
/// the same sweep), and a different sweep's file is refused.
pub fn open_jsonl<H: Serialize, R>(
    path: &Path,
    header: &H,
    read: impl Fn(&str, &str) -> Result<Lines<H, R>, String>,
    differs: impl Fn(&H) -> Option<String>,
) -> Result<Opened<R>, String> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| format!("{name}: {e}");
    // An empty file holds no records: the sweep starts afresh in it (as in
    // a file made by `mktemp` or `touch`).
    let empty = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0);
    if !path.exists() || empty {
        let mut file = std::fs::File::create(path).map_err(io)?;
        writeln!(file, "{}", sweep::header_line(header)).map_err(io)?;
        return Ok(Opened {
            records: Vec::new(),
            file,
            finished: false,
        });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let lines = read(&name, &text)?;
    if let Some(why) = differs(&lines.header) {
        return Err(format!(
            "{name} holds records of another sweep ({why}); give another --jsonl, or the flags it was written with"
        ));
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io)?;
    f.set_len(lines.complete as u64).map_err(io)?;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io)?;
    Ok(Opened {
        records: lines.records,
        file,
        finished: lines.finished,
    })
}

/// Writes `header` and `records` to a new file in the working directory
/// (`STEM.jsonl`, else `STEM-2.jsonl`, ...), without the end line: a
/// stopped sweep's records, to resume from.
pub fn save<'r, H: Serialize, R: Serialize + 'r>(
    stem: &str,
    header: &H,
    records: impl IntoIterator<Item = &'r R>,
) -> Result<PathBuf, String> {
    let path = (1..)
        .map(|i| match i {
            1 => PathBuf::from(format!("{stem}.jsonl")),
            _ => PathBuf::from(format!("{stem}-{i}.jsonl")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| PathBuf::from(format!("{stem}.jsonl")));
    let mut text = sweep::header_line(header);
    text.push('\n');
    for r in records {
        text.push_str(&sweep::record_line(r));
        text.push('\n');
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// This command as it was given, with `--jsonl FILE` added when it had
/// none: run again, it resumes.
pub fn resume_command(jsonl: Option<&Path>) -> String {
    let mut args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(path) = jsonl {
        args.push("--jsonl".to_string());
        args.push(path.display().to_string());
    }
    let quote = |s: &String| {
        let plain = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./:,=+@%".contains(c));
        match plain {
            true => s.clone(),
            false => format!("'{}'", s.replace('\'', "'\\''")),
        }
    };
    args.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// A progress line on stderr: items done (resumed ones included) of the
/// total, the rate, and an estimate of the time left.
pub struct Progress<'a> {
    show: bool,
    /// The shard's items; 0 while they are being counted by listing.
    total: &'a AtomicU64,
    /// `programs`, `instances`.
    unit: &'static str,
    done: usize,
    start: std::time::Instant,
    last: std::time::Instant,
    fresh: usize,
    /// With `by_class`: the estimate class by class (see `left_by_class`).
    classed: Option<Classed<'a>>,
}

/// Items of one class take about as long as each other (for `distinguish`,
/// programs of as many threads, accesses and read-modify-writes).
pub type Class = u32;

/// What an estimate by class needs: the shard's items still to decide by
/// class (once a listing has counted them), and per class the seconds and
/// count of those decided since.
struct Classed<'a> {
    todo: &'a Mutex<Option<BTreeMap<Class, u64>>>,
    secs: BTreeMap<Class, f64>,
    fresh: BTreeMap<Class, u64>,
    /// When the last item ended (the next one's time starts there).
    since: std::time::Instant,
}

/// The time left, estimated class by class: the items of each class not
/// yet decided, at the mean time an item of that class has taken so far.
/// A sweep lists its programs roughly from small to large, and larger ones
/// take longer (the pwt:ptx sweep of C59's bound decided its first
/// programs at 160 a second and averages 40), so the overall rate so far
/// would promise far too little. A class with none timed yet is taken at
/// the slowest mean seen, still a guess from below; how many items that
/// covers is returned with the estimate, so that the line can say so.
/// `None` until an item is timed.
pub fn left_by_class(
    todo: &BTreeMap<Class, u64>,
    secs: &BTreeMap<Class, f64>,
    fresh: &BTreeMap<Class, u64>,
) -> Option<(f64, u64)> {
    let mean = |c: &Class| match fresh.get(c) {
        Some(&n) if n > 0 => Some(secs.get(c).copied().unwrap_or(0.0) / n as f64),
        _ => None,
    };
    let slowest = fresh.keys().filter_map(mean).reduce(f64::max)?;
    let (mut left, mut untimed) = (0.0, 0);
    for (c, &n) in todo {
        let rest = n.saturating_sub(fresh.get(c).copied().unwrap_or(0));
        match mean(c) {
            Some(t) => left += rest as f64 * t,
            None => {
                left += rest as f64 * slowest;
                untimed += rest;
            }
        }
    }
    Some((left, untimed))
}

impl<'a> Progress<'a> {
    /// `done` items are already recorded (resumed).
    pub fn new(show: bool, total: &'a AtomicU64, unit: &'static str, done: usize) -> Progress<'a> {
        let now = std::time::Instant::now();
        let p = Progress {
            show,
            total,
            unit,
            done,
            start: now,
            last: now,
            fresh: 0,
            classed: None,
        };
        if show {
            p.line();
        }
        p
    }

    /// Estimates class by class: `todo` holds, once counted, the shard's
    /// items by class that were not done when the sweep began; each item is
    /// then told with `step_class`.
    pub fn by_class(mut self, todo: &'a Mutex<Option<BTreeMap<Class, u64>>>) -> Progress<'a> {
        self.classed = Some(Classed {
            todo,
            secs: BTreeMap::new(),
            fresh: BTreeMap::new(),
            since: std::time::Instant::now(),
        });
        self
    }

    /// One more item decided, of class `class` (its time is the time since
    /// the last item ended).
    pub fn step_class(&mut self, class: Class) {
        if let Some(z) = &mut self.classed {
            let now = std::time::Instant::now();
            *z.secs.entry(class).or_default() += (now - z.since).as_secs_f64();
            *z.fresh.entry(class).or_default() += 1;
            z.since = now;
        }
        self.step();
    }

    /// The estimate by class, once the items are counted by class.
    fn classed_eta(&self) -> Option<String> {
        let z = self.classed.as_ref()?;
        let todo = z.todo.lock().ok()?;
        let (left, untimed) = left_by_class(todo.as_ref()?, &z.secs, &z.fresh)?;
        Some(match untimed {
            0 => format!("about {} left (by class)", clock(left)),
            n => format!(
                "about {} left (by class; {n} not timed yet, so likely more)",
                clock(left)
            ),
        })
    }

    /// One more item decided.
    pub fn step(&mut self) {
        self.done += 1;
        self.fresh += 1;
        if self.show && self.last.elapsed().as_secs_f64() >= 0.5 {
            self.last = std::time::Instant::now();
            self.line();
        }
    }

    fn line(&self) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let rate = self.fresh as f64 / secs;
        let total = self.total.load(Ordering::Relaxed);
        let unit = self.unit;
        if total == 0 {
            eprint!("\r{} {unit} (counting the rest), {rate:.1}/s   ", self.done);
            return;
        }
        let eta = match self.fresh {
            0 => "estimating the time".to_string(),
            _ if self.classed.is_some() => self
                .classed_eta()
                .unwrap_or_else(|| "estimating the time by class".to_string()),
            _ => {
                let left = total.saturating_sub(self.done as u64) as f64 / rate.max(1e-9);
                format!("about {} left", clock(left))
            }
        };
        eprint!("\r{}/{total} {unit}, {rate:.1}/s, {eta}   ", self.done);
    }

    /// The last line: how many, how many decided now, in how long.
    pub fn end(&self) {
        if self.show {
            let secs = self.start.elapsed().as_secs_f64();
            eprintln!(
                "\r{} {}, {} decided in {}, {:.1}/s                    ",
                self.done,
                self.unit,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each class at its own mean; a class not timed yet at the slowest
    /// mean, and counted apart; nothing timed, no estimate.
    #[test]
    fn the_time_left_is_summed_class_by_class() {
        let map = |v: &[(Class, u64)]| v.iter().copied().collect::<BTreeMap<_, _>>();
        let secs = |v: &[(Class, f64)]| v.iter().copied().collect::<BTreeMap<_, _>>();
        // Two classes timed: 3 left at 1 s and 2 left at 2 s.
        let both = left_by_class(
            &map(&[(1, 4), (2, 4)]),
            &secs(&[(1, 1.0), (2, 4.0)]),
            &map(&[(1, 1), (2, 2)]),
        );
        assert_eq!(both, Some((7.0, 0)));
        // Class 9 not reached: its 5 at the slowest mean (3 s), said apart.
        let ahead = left_by_class(
            &map(&[(1, 10), (2, 2), (9, 5)]),
            &secs(&[(1, 2.0), (2, 3.0)]),
            &map(&[(1, 2), (2, 1)]),
        );
        assert_eq!(ahead, Some((8.0 * 1.0 + 1.0 * 3.0 + 5.0 * 3.0, 5)));
        // The overall rate so far (3 items in 5 s) would say 15 * 5 / 3 = 25 s.
        assert!(ahead.is_some_and(|(s, _)| s > 25.0));
        assert_eq!(left_by_class(&map(&[(1, 3)]), &secs(&[]), &map(&[])), None);
    }
}
