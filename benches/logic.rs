//! Tautology queries of the size the semantics produces (20-60 nodes, 3-8
//! variables, V = {0,1,2}): the SAT path with and without the result cache, and
//! brute-force evaluation, overall and by variable count.
//!
//! Run with `cargo bench --bench logic`. A one-shot summary (queries per second,
//! and the per-variable-count crossover) is printed before criterion's groups.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use pomset::logic::{FormulaId, Logic, TermId, Var, DEFAULT_ENUMERATION_LIMIT};

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

const V: &[i64] = &[0, 1, 2];
const QUERIES: usize = 10_000;
const PER_BUCKET: usize = 300;

/// xorshift64*: deterministic, and no dependency for a few random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The i-th variable: registers, read registers and locations in turn.
fn variable(i: usize) -> Var {
    let n = (i / 3) as u32;
    match i % 3 {
        0 => Var::Reg(n),
        1 => Var::Read(n),
        _ => Var::Loc(i64::from(n)),
    }
}

/// Atoms as the transformers make them: `r = v` most, then `r = s`, `r + 1 = s`, `r < s`.
fn atom(l: &mut Logic, rng: &mut Rng, k: usize) -> FormulaId {
    let a = l.var(variable(rng.below(k)));
    let b: TermId = l.var(variable(rng.below(k)));
    let v = l.value(V[rng.below(V.len())]);
    match rng.below(8) {
        0..=3 => l.eq(a, v),
        4 => l.eq(a, b),
        5 => l.ne(a, v),
        6 => {
            let one = l.value(1);
            let sum = l.add(a, one);
            l.eq(sum, b)
        }
        _ => l.lt(a, b),
    }
}

fn random(l: &mut Logic, rng: &mut Rng, k: usize, budget: usize) -> FormulaId {
    if budget <= 1 {
        return atom(l, rng, k);
    }
    let left = 1 + rng.below(budget - 1);
    let (f, g) = (random(l, rng, k, left), random(l, rng, k, budget - left));
    match rng.below(7) {
        0..=1 => l.and(f, g),
        2..=3 => l.or(f, g),
        4..=5 => l.implies(f, g),
        _ => l.not(f),
    }
}

/// One query of one of three shapes: a random formula; `X ∧ Y ⇒ X ∨ Z` (a
/// tautology); and the case split `∧_v (r = v ⇒ A) ⇒ A`, a tautology over V only.
fn query(l: &mut Logic, rng: &mut Rng, k: usize) -> FormulaId {
    let atoms = 5 + rng.below(12);
    match rng.below(3) {
        0 => random(l, rng, k, atoms),
        1 => {
            let (x, y, z) = (
                random(l, rng, k, atoms / 3 + 1),
                random(l, rng, k, atoms / 3 + 1),
                random(l, rng, k, atoms / 3 + 1),
            );
            let (lhs, rhs) = (l.and(x, y), l.or(x, z));
            l.implies(lhs, rhs)
        }
        _ => {
            let a = random(l, rng, k, atoms / 3 + 1);
            let r = l.var(variable(rng.below(k)));
            let mut cases = l.tt();
            for &v in V {
                let v = l.value(v);
                let guard = l.eq(r, v);
                let case = l.implies(guard, a);
                cases = l.and(cases, case);
            }
            l.implies(cases, a)
        }
    }
}

/// A query of 20-60 nodes over exactly `k` variables.
fn sized_query(l: &mut Logic, rng: &mut Rng, k: usize) -> FormulaId {
    loop {
        let f = query(l, rng, k);
        let size = l.size(f);
        if (20..=60).contains(&size) && l.support(&[f]).vars.len() == k {
            return f;
        }
    }
}

struct Workload {
    logic: Logic,
    /// The 10,000 mixed queries, 3-8 variables each.
    mixed: Vec<FormulaId>,
    /// `PER_BUCKET` queries per variable count 3..=8.
    by_vars: Vec<(usize, Vec<FormulaId>)>,
}

fn workload() -> Workload {
    let mut logic = Logic::new(V);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mixed = (0..QUERIES)
        .map(|_| {
            let k = 3 + rng.below(6);
            sized_query(&mut logic, &mut rng, k)
        })
        .collect();
    let by_vars = (3..=8)
        .map(|k| {
            let fs = (0..PER_BUCKET)
                .map(|_| sized_query(&mut logic, &mut rng, k))
                .collect();
            (k, fs)
        })
        .collect();
    Workload {
        logic,
        mixed,
        by_vars,
    }
}

fn sat_all(l: &mut Logic, fs: &[FormulaId]) -> usize {
    fs.iter().filter(|&&f| l.tautology(f)).count()
}

fn brute_all(l: &mut Logic, fs: &[FormulaId]) -> usize {
    fs.iter().filter(|&&f| l.brute_force_tautology(f)).count()
}

fn per_second(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn timed(f: impl FnOnce() -> usize) -> (usize, Duration) {
    let start = Instant::now();
    let n = f();
    (n, start.elapsed())
}

/// One pass of each variant, printed as a table, checking the answers agree.
fn summary(w: &mut Workload) {
    let l = &mut w.logic;
    l.set_enumeration_limit(DEFAULT_ENUMERATION_LIMIT);
    l.set_cache(false);
    let (_, t_hybrid) = timed(|| sat_all(l, &w.mixed));
    // The rest measures the SAT path itself: no query is enumerated.
    l.set_enumeration_limit(0);
    let (sat, t_nocache) = timed(|| sat_all(l, &w.mixed));
    l.set_cache(true);
    l.reset_stats();
    let (_, t_cold) = timed(|| sat_all(l, &w.mixed));
    let cold = l.stats();
    let (_, t_warm) = timed(|| sat_all(l, &w.mixed));
    let (brute, t_brute) = timed(|| brute_all(l, &w.mixed));
    assert_eq!(sat, brute, "SAT and brute force disagree");
    let avg: f64 = w.mixed.iter().map(|&f| f64::from(l.size(f))).sum::<f64>() / QUERIES as f64;
    println!("logic summary: {QUERIES} tautology queries, V = {V:?}, mean size {avg:.1} nodes, {sat} tautologies");
    println!(
        "  default, no cache    {:>10.0} queries/s   (enumerates spaces of <= {DEFAULT_ENUMERATION_LIMIT} assignments)",
        per_second(QUERIES, t_hybrid)
    );
    println!(
        "  SAT, no cache        {:>10.0} queries/s",
        per_second(QUERIES, t_nocache)
    );
    println!(
        "  SAT, cache (cold)    {:>10.0} queries/s   ({} fast path, {} hits, {} SAT calls, {:.1} vars/{:.1} clauses per call)",
        per_second(QUERIES, t_cold),
        cold.fast_path,
        cold.cache_hits,
        cold.sat_calls,
        cold.sat_vars as f64 / cold.sat_calls.max(1) as f64,
        cold.sat_clauses as f64 / cold.sat_calls.max(1) as f64,
    );
    println!(
        "  SAT, cache (warm)    {:>10.0} queries/s",
        per_second(QUERIES, t_warm)
    );
    println!(
        "  brute force          {:>10.0} queries/s",
        per_second(QUERIES, t_brute)
    );
    println!("  by variable count (no cache): k, SAT q/s, brute q/s, brute/SAT time");
    l.set_cache(false);
    for (k, fs) in &w.by_vars {
        let (a, ts) = timed(|| sat_all(l, fs));
        let (b, tb) = timed(|| brute_all(l, fs));
        assert_eq!(a, b, "SAT and brute force disagree at k = {k}");
        println!(
            "    k={k}  {:>10.0}  {:>10.0}  {:>6.2}",
            per_second(fs.len(), ts),
            per_second(fs.len(), tb),
            tb.as_secs_f64() / ts.as_secs_f64()
        );
    }
    l.set_cache(true);
}

fn benches(c: &mut Criterion, w: &mut Workload) {
    let mixed = w.mixed.clone();
    let mut g = c.benchmark_group("tautology_10k");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(QUERIES as u64));
    let l = &mut w.logic;
    g.bench_function("default_no_cache", |b| {
        l.set_cache(false);
        l.set_enumeration_limit(DEFAULT_ENUMERATION_LIMIT);
        b.iter(|| black_box(sat_all(l, &mixed)));
    });
    l.set_enumeration_limit(0);
    g.bench_function("sat_no_cache", |b| {
        l.set_cache(false);
        b.iter(|| black_box(sat_all(l, &mixed)));
    });
    g.bench_function("sat_cache_cold", |b| {
        b.iter(|| {
            // Clearing per iteration keeps each pass honest: hits come from within it.
            l.set_cache(false);
            l.set_cache(true);
            black_box(sat_all(l, &mixed))
        });
    });
    g.bench_function("sat_cache_warm", |b| {
        l.set_cache(true);
        sat_all(l, &mixed);
        b.iter(|| black_box(sat_all(l, &mixed)));
    });
    g.bench_function("brute_force", |b| {
        b.iter(|| black_box(brute_all(l, &mixed)));
    });
    g.finish();

    let mut g = c.benchmark_group("by_vars");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    l.set_cache(false);
    for (k, fs) in &w.by_vars {
        g.throughput(Throughput::Elements(fs.len() as u64));
        g.bench_with_input(BenchmarkId::new("sat", k), fs, |b, fs| {
            b.iter(|| black_box(sat_all(l, fs)));
        });
        g.bench_with_input(BenchmarkId::new("brute_force", k), fs, |b, fs| {
            b.iter(|| black_box(brute_all(l, fs)));
        });
    }
    g.finish();
}

fn main() {
    let mut w = workload();
    summary(&mut w);
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &mut w);
    c.final_summary();
}
