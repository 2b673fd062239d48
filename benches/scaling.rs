//! Scaling: `cargo bench --bench scaling`.
//!
//! Generated families of growing size (the issue "Decide big tests"): IRIW
//! with n relaxed readers, CoRR with n writes and n reads, and rings or
//! chains of n threads (SB, LB, LB with data dependencies, MP). Criterion
//! times the members that decide in well under a second; then every member
//! up to the sizes below is decided once, in full and with
//! `--verdict-only` under the pomset semantics and in full under RC11
//! (`--model rc11`), each given 60 s and 4 GB as the comparison with herd7
//! was, and the table in the book's Performance chapter (between the
//! `scaling` markers of `book/src/appendix-performance.md`) is rewritten with the
//! times and peak heaps. `SCALING_TABLE=0` skips the table.

use std::fmt::Write;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use pomset::engine::pwt::decide::{outcomes, settle_conditions};
use pomset::outcome::Limits;
use pomset::report::Report;
use pomset::syntax::{self, core::Program};

#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

/// A family: its name, how a member is written, and the sizes tabled.
struct Family {
    name: &'static str,
    what: &'static str,
    text: fn(usize) -> String,
    sizes: &'static [usize],
}

fn locations(names: &[String]) -> String {
    let decl: Vec<String> = names.iter().map(|n| format!("{n};")).collect();
    format!("locations {{ {} }}", decl.join(" "))
}

fn test(name: &str, locs: &[String], threads: &[String], cond: &[String]) -> String {
    format!(
        "litmus {name}\n{}\n\n{}\n\nexists ({})\n",
        locations(locs),
        threads.join("\n|| "),
        cond.join(" /\\ ")
    )
}

/// Two writers and n readers alternating the order they read a0 and a1.
fn iriw(n: usize) -> String {
    let mut threads = vec!["a0 := 1;".to_string(), "a1 := 1;".to_string()];
    let mut cond = Vec::new();
    for i in 0..n {
        let (first, second) = if i % 2 == 0 {
            ("a0", "a1")
        } else {
            ("a1", "a0")
        };
        threads.push(format!("r{i} := {first}; s{i} := {second};"));
        cond.push(format!("r{i} = 1 /\\ s{i} = 0"));
    }
    test(
        &format!("IRIW-{n}"),
        &["a0".into(), "a1".into()],
        &threads,
        &cond,
    )
}

/// x := 1; ...; x := n against n reads of x, read in reverse order.
fn corr(n: usize) -> String {
    let writes: Vec<String> = (1..=n).map(|k| format!("x := {k};")).collect();
    let reads: Vec<String> = (1..=n).map(|k| format!("r{k} := x;")).collect();
    let cond: Vec<String> = (1..=n).map(|k| format!("r{k} = {}", n + 1 - k)).collect();
    test(
        &format!("CoRR-{n}"),
        &["x".into()],
        &[writes.join(" "), reads.join(" ")],
        &cond,
    )
}

fn ring(n: usize, name: &str, thread: fn(usize, usize) -> String, want: i64) -> String {
    let locs: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let threads: Vec<String> = (0..n).map(|i| thread(i, (i + 1) % n)).collect();
    let cond: Vec<String> = (0..n).map(|i| format!("r{i} = {want}")).collect();
    test(&format!("{name}-{n}"), &locs, &threads, &cond)
}

fn sb(n: usize) -> String {
    ring(n, "SB", |i, j| format!("a{i} := 1; r{i} := a{j};"), 0)
}

fn lb(n: usize) -> String {
    ring(n, "LB", |i, j| format!("r{i} := a{i}; a{j} := 1;"), 1)
}

fn lb_data(n: usize) -> String {
    ring(
        n,
        "LB+datas",
        |i, j| format!("r{i} := a{i}; a{j} := r{i};"),
        1,
    )
}

/// Message passing through a chain of n flags.
fn mp(n: usize) -> String {
    let mut locs = vec!["d".to_string()];
    locs.extend((0..n).map(|i| format!("f{i}")));
    let mut threads = vec!["d := 1; f0 := 1;".to_string()];
    let mut cond = Vec::new();
    for i in 0..n - 1 {
        threads.push(format!("r{i} := f{i}; f{} := 1;", i + 1));
        cond.push(format!("r{i} = 1"));
    }
    threads.push(format!("s := f{}; t := d;", n - 1));
    cond.extend(["s = 1".to_string(), "t = 0".to_string()]);
    test(&format!("MP-{n}"), &locs, &threads, &cond)
}

const FAMILIES: &[Family] = &[
    Family {
        name: "IRIW-n",
        what: "two writers, n relaxed readers",
        text: iriw,
        sizes: &[2, 3, 4, 5, 6, 7, 8, 10],
    },
    Family {
        name: "CoRR-n",
        what: "n writes of x, n reads of x",
        text: corr,
        sizes: &[2, 3, 4, 5, 6, 7, 8, 10],
    },
    Family {
        name: "SB-n",
        what: "store buffering ring",
        text: sb,
        sizes: &[4, 6, 8, 10],
    },
    Family {
        name: "LB-n",
        what: "load buffering ring",
        text: lb,
        sizes: &[4, 6, 8, 10],
    },
    Family {
        name: "LB+datas-n",
        what: "load buffering ring, data dependencies",
        text: lb_data,
        sizes: &[4, 6, 8, 10],
    },
    Family {
        name: "MP-n",
        what: "message passing through n flags",
        text: mp,
        sizes: &[4, 6, 8, 10],
    },
];

fn parse(text: &str) -> Program {
    syntax::parse(text).expect("generated tests parse").program
}

fn limits(seconds: u64) -> Limits {
    Limits {
        deadline: Some((
            Instant::now() + Duration::from_secs(seconds),
            seconds as f64,
        )),
        ..Limits::default()
    }
}

/// What `pomset run FILE` computes for its text report: the outcomes, kept
/// one per orbit where threads are interchangeable, every state judged, and
/// the first determined states listed.
fn full(p: &Program, limits: Limits) -> Report {
    let limits = Limits {
        orbits: true,
        listed: Some(pomset::report::SHOWN_STATES),
        ..limits
    };
    let start = Instant::now();
    match outcomes(p, &p.model, limits) {
        Ok(o) => Report::listing(p, &p.model, &o, start.elapsed(), limits.listed),
        Err(u) => Report::unsupported(p, &p.model, u.to_string()),
    }
}

/// What `pomset run --model rc11 FILE` computes for its text report.
fn rc11(p: &Program, limits: Limits) -> Report {
    let limits = Limits {
        orbits: true,
        listed: Some(pomset::report::SHOWN_STATES),
        ..limits
    };
    match pomset::engine::named("rc11") {
        Ok(engine) => pomset::engine::decide(engine.as_ref(), p, &p.model, false, limits),
        Err(e) => Report::unsupported(p, &p.model, format!("{e:?}")),
    }
}

/// One run: seconds, peak heap in MB, and the observation or the limit.
fn measure(p: &Program, mode: Mode) -> (f64, f64, String) {
    let verdict_only = mode == Mode::VerdictOnly;
    // The last member's outcomes may still be freed aside: not this one's heap.
    pomset::engine::settle_drops();
    pomset::memory::reset_peak();
    let start = Instant::now();
    let verdict = if verdict_only {
        match settle_conditions(p, &p.model, limits(60)) {
            Ok(found) => {
                let c = &p.conditions[0];
                let [holds, fails] = &found[0];
                let answer = |s: &pomset::outcome::Settled| match (&s.found, &s.limit) {
                    (Some(_), _) => Some(true),
                    (None, None) => Some(false),
                    _ => None,
                };
                let j = pomset::outcome::verdict::judge_settled(
                    c,
                    answer(holds),
                    answer(fails),
                    &p.model,
                );
                match (j.observation, holds.limit.as_ref().or(fails.limit.as_ref())) {
                    (Some(o), _) => o.as_str().to_string(),
                    (None, Some(l)) => format!("Unknown ({l})"),
                    (None, None) => "Unknown".to_string(),
                }
            }
            Err(e) => format!("{e:?}"),
        }
    } else {
        let report = match mode {
            Mode::Rc11 => rc11(p, limits(60)),
            _ => full(p, limits(60)),
        };
        match (
            &report.limit,
            report.conditions.first(),
            &report.unsupported,
        ) {
            (Some(l), _, _) => format!("Unknown ({l})"),
            (None, Some(c), None) => {
                let obs = c.observation.unwrap_or("Unknown");
                let n = report.unlisted.map_or(report.states.len(), |u| u.total);
                format!("{obs}, {n} state{}", if n == 1 { "" } else { "s" })
            }
            (_, _, why) => format!("{why:?}"),
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let mb = pomset::memory::peak_bytes() as f64 / f64::from(1 << 20);
    (secs, mb, verdict)
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group.sample_size(10);
    let quick = [
        ("iriw-4", iriw(4), Mode::Full),
        ("iriw-10", iriw(10), Mode::Full),
        ("iriw-10 verdict-only", iriw(10), Mode::VerdictOnly),
        ("iriw-10 rc11", iriw(10), Mode::Rc11),
        ("corr-4", corr(4), Mode::Full),
        ("corr-8", corr(8), Mode::Full),
        ("corr-8 verdict-only", corr(8), Mode::VerdictOnly),
        ("corr-8 rc11", corr(8), Mode::Rc11),
        ("sb-8", sb(8), Mode::Full),
        ("mp-8", mp(8), Mode::Full),
    ];
    for (name, text, mode) in quick {
        let p = parse(&text);
        group.bench_function(name, |b| {
            b.iter(|| match mode {
                Mode::VerdictOnly => {
                    std::hint::black_box(settle_conditions(&p, &p.model, Limits::default()).is_ok())
                }
                Mode::Full => std::hint::black_box(full(&p, Limits::default()).limit.is_none()),
                Mode::Rc11 => std::hint::black_box(rc11(&p, Limits::default()).limit.is_none()),
            })
        });
    }
    group.finish();
}

/// How a member is decided: the pomset semantics in full or verdict only,
/// or RC11 (the bundled `rc11.cat`) in full.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Full,
    VerdictOnly,
    Rc11,
}

/// Decides every family member once per mode and rewrites the book's table.
fn table() {
    pomset::memory::set_budget_mb(4096);
    let mut rows = String::new();
    let _ = writeln!(
        rows,
        "| test | full enumeration | peak heap | verdict only | peak heap | `--model rc11` | peak heap |"
    );
    let _ = writeln!(rows, "|---|---|---|---|---|---|---|");
    for f in FAMILIES {
        // Once a size ends at a limit, larger ones would too: not run.
        let mut given_up = [false, false, false];
        for &n in f.sizes {
            let p = parse(&(f.text)(n));
            let mut cells = Vec::new();
            for (k, mode) in [Mode::Full, Mode::VerdictOnly, Mode::Rc11]
                .into_iter()
                .enumerate()
            {
                if given_up[k] {
                    cells.push("(not run: a smaller size hit a limit) | —".to_string());
                    continue;
                }
                let (secs, mb, verdict) = measure(&p, mode);
                given_up[k] = verdict.starts_with("Unknown");
                eprintln!(
                    "{} n={n} mode={k}: {secs:.3} s {mb:.1} MB {verdict}",
                    f.name
                );
                cells.push(format!("{secs:.3} s: {verdict} | {mb:.0} MB"));
            }
            let _ = writeln!(
                rows,
                "| {} (n = {n}: {}) | {} |",
                f.name,
                f.what,
                cells.join(" | ")
            );
        }
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/appendix-performance.md");
    let Ok(book) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {}", path.display());
        return;
    };
    let (begin, end) = ("<!-- scaling:begin -->", "<!-- scaling:end -->");
    match (book.find(begin), book.find(end)) {
        (Some(b), Some(e)) if b < e => {
            let updated = format!("{}{begin}\n{rows}{}", &book[..b], &book[e..]);
            if std::fs::write(&path, updated).is_ok() {
                eprintln!("rewrote the scaling table in {}", path.display());
            }
        }
        _ => eprintln!("no scaling markers in {}", path.display()),
    }
}

criterion_group!(benches, scaling);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::var("SCALING_TABLE").map_or(true, |v| v != "0") {
        table();
    }
}
