//! The axiomatic engine under the bundled RC11 model: `cargo bench --bench cat`.
//! The classic shapes (each also decided by the pomset engine in
//! `benches/semantics.rs`, for the ratio), the slowest catalogue example
//! (C08), the whole classic directory, and compiling the model.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
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

fn cat(c: &mut Criterion) {
    let rc11 = pomset::cat::load("rc11").expect("bundled");
    let decide = |t: &Litmus| {
        pomset::engine::axiomatic::outcomes(&t.program, &rc11, Limits::default())
            .map_or(0, |o| o.witnesses)
    };
    let mut group = c.benchmark_group("rc11");
    group.sample_size(20);
    for name in [
        "classic/mp+rel+acq.litmus",
        "classic/sb.litmus",
        "classic/sb+fences.litmus",
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/classic");
    let classic: Vec<Litmus> = pomset::cli::litmus_files(&[root])
        .expect("examples/classic")
        .iter()
        .map(|p| syntax::parse(&std::fs::read_to_string(p).expect("readable")).expect("parses"))
        .collect();
    group.bench_function("all_classic", |b| {
        b.iter(|| classic.iter().map(decide).sum::<usize>())
    });
    group.bench_function("compile_rc11", |b| {
        b.iter(|| std::hint::black_box(pomset::cat::load("rc11").map(|m| m.slots).unwrap_or(0)))
    });
    group.finish();
}

criterion_group!(benches, cat);
criterion_main!(benches);
