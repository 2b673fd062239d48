//! Deciding the examples: `cargo bench --bench semantics`.
//! One benchmark per classic shape the issue names, 2+2W and LB without
//! initial writes (the OCaml prototype's slow cases), the slowest catalogue
//! example (C08), and the whole suite.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::engine::pwt::decide::outcomes;
use pomset::outcome::Limits;
use pomset::syntax::{self, Litmus};

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn load(rel: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel);
    let src = std::fs::read_to_string(&path).expect("readable example");
    syntax::parse(&src).expect("parses")
}

fn decide(t: &Litmus) -> usize {
    outcomes(&t.program, &t.program.model, Limits::default()).map_or(0, |o| o.witnesses)
}

fn semantics(c: &mut Criterion) {
    let mut group = c.benchmark_group("decide");
    group.sample_size(20);
    for name in [
        "classic/mp+rel+acq.litmus",
        "classic/sb.litmus",
        "classic/lb+datas.litmus",
        "classic/iriw.litmus",
        "classic/2+2w.litmus",
        "catalogue/c08-c11-rmw-chain-cycle.litmus",
    ] {
        let t = load(name);
        group.bench_function(name.trim_end_matches(".litmus"), |b| {
            b.iter(|| std::hint::black_box(decide(&t)))
        });
    }
    // The OCaml prototype's hardest small case: LB without initial writes.
    let lb = load("classic/lb.litmus");
    let mut no_init = lb.program.model;
    no_init.set("init", "none").expect("a known option");
    group.bench_function("classic/lb init=none", |b| {
        b.iter(|| {
            std::hint::black_box(
                outcomes(&lb.program, &no_init, Limits::default()).map_or(0, |o| o.witnesses),
            )
        })
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let all: Vec<Litmus> = pomset::cli::litmus_files(&[root])
        .expect("examples/")
        .iter()
        .map(|p| syntax::parse(&std::fs::read_to_string(p).expect("readable")).expect("parses"))
        .collect();
    group.sample_size(10);
    group.bench_function("all_examples", |b| {
        b.iter(|| all.iter().map(decide).sum::<usize>())
    });
    group.finish();
}

/// Issue 41: under sc, a spin loop decided as its last pass against the
/// same loop unrolled 2 and 4 times (`--no-spin-reduction`), and against
/// the loop-free MP it waits in: the PTX spin of `tests/foreign` and the
/// book's MP+spin.
fn spin(c: &mut Criterion) {
    let sc = pomset::engine::named("sc").expect("sc");
    let decide = |t: &Litmus| {
        sc.outcomes(&t.program, &t.program.model, Limits::default())
            .map_or(0, |o| o.witnesses)
    };
    let mut group = c.benchmark_group("spin");
    group.sample_size(20);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, rel) in [
        ("mp+spin", "book/snippets/mp-spin.litmus"),
        ("ptx-spin", "tests/foreign/ptx/spin.litmus"),
        // Issue 74: a CAS loop is a spin.
        ("cas-lock", "book/snippets/cas-lock.litmus"),
    ] {
        let src = std::fs::read_to_string(root.join(rel)).expect("readable");
        for (label, unroll, spin) in [
            ("reduced", 2, true),
            ("unroll2", 2, false),
            ("unroll4", 4, false),
        ] {
            let opts = pomset::import::Options {
                unroll: Some(unroll),
                spin,
                ..Default::default()
            };
            let t = pomset::import::load(rel, &src, opts).expect("loads");
            group.bench_function(format!("{name} {label}"), |b| {
                b.iter(|| std::hint::black_box(decide(&t)))
            });
        }
    }
    let mp = load("classic/mp+rel+acq.litmus");
    group.bench_function("mp+rel+acq (no loop)", |b| {
        b.iter(|| std::hint::black_box(decide(&mp)))
    });
    group.finish();
}

/// Issue 41: loops the pomset semantics unrolls (no spin reduction under
/// pwt), where building each thread's pomsets is the cost: an exchange loop
/// whose pass branches, a polling loop of three reads, and the PTX
/// test-and-test-and-set lock of `tests/foreign`, all at `--unroll 2`.
fn pwt_loops(c: &mut Criterion) {
    let mut group = c.benchmark_group("pwt_loops");
    group.sample_size(10);
    let pass = "litmus XCHG-PASS\ninit { m = 0 }\n\n\
        do { r := EXCHG(m, 1); if (r != 1) { s := EXCHG(m, 1); } } while (r != 1 && s = 0);\n\
        || do { t := EXCHG(m, 0); } while (t = 1);\n\nexists (r = 1)\n";
    let poll = "litmus POLL-THREE\ninit { f = 0 }\n\n\
        do { a := f; if (a != 1) { b := f; if (b != 1) { c := f; } } } while (a != 1 && b != 1 && c = 0);\n\
        || f := 1;\n\nexists (a = 1)\n";
    let rel = "tests/foreign/ptx/ttas.litmus";
    let src =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect("readable");
    let ttas = pomset::import::load(rel, &src, Default::default()).expect("loads");
    for (name, t) in [
        ("exchange pass", syntax::parse(pass).expect("parses")),
        ("poll three", syntax::parse(poll).expect("parses")),
        ("ptx ttas", ttas),
    ] {
        group.bench_function(name, |b| b.iter(|| std::hint::black_box(decide(&t))));
    }
    group.finish();
}

/// Issue 74: what saying whether a loop's cut is reached costs. A report
/// (`engine::decide`) of a `Never` under a bound, where the engine's own
/// search cannot tell, decides the test again with each cut read as the
/// loop's exit; against the outcomes alone, under pwt and rc11.
fn bounded(c: &mut Criterion) {
    let mut group = c.benchmark_group("bounded");
    group.sample_size(10);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, rel) in [
        ("mp+spin", "book/snippets/mp-spin.litmus"),
        ("cas-lock", "book/snippets/cas-lock.litmus"),
    ] {
        let src = std::fs::read_to_string(root.join(rel)).expect("readable");
        let t = pomset::import::load(rel, &src, Default::default()).expect("loads");
        let p = &t.program;
        for model in ["pwt", "rc11"] {
            let e = pomset::engine::named(model).expect("a model");
            group.bench_function(format!("{name} {model} outcomes"), |b| {
                b.iter(|| {
                    std::hint::black_box(
                        e.outcomes(p, &p.model, Limits::default())
                            .map_or(0, |o| o.witnesses),
                    )
                })
            });
            group.bench_function(format!("{name} {model} report"), |b| {
                b.iter(|| {
                    let r =
                        pomset::engine::decide(e.as_ref(), p, &p.model, false, Limits::default());
                    std::hint::black_box(r.witnesses)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, semantics, spin, pwt_loops, bounded);
criterion_main!(benches);
