//! Front-end speed: parse + check, and format, over the bundled examples.
//! Run with `cargo bench --bench front_end`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::syntax;

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    pomset::cli::litmus_files(&[root])
        .expect("examples/ is readable")
        .into_iter()
        .map(|p| {
            let src = std::fs::read_to_string(&p).expect("readable example");
            (p.display().to_string(), src)
        })
        .collect()
}

fn front_end(c: &mut Criterion) {
    let srcs = sources();
    let mut group = c.benchmark_group("front_end");
    group.sample_size(20);
    group.bench_function("parse_and_check_all_examples", |b| {
        b.iter(|| {
            for (_, src) in &srcs {
                std::hint::black_box(syntax::parse(src).is_ok());
            }
        })
    });
    group.bench_function("format_all_examples", |b| {
        b.iter(|| {
            for (_, src) in &srcs {
                std::hint::black_box(syntax::format(src).is_ok());
            }
        })
    });
    let mp = srcs
        .iter()
        .find(|(p, _)| p.ends_with("classic/mp+rel+acq.litmus"))
        .map(|(_, s)| s.clone());
    if let Some(mp) = mp {
        group.bench_function("parse_and_check_mp", |b| {
            b.iter(|| std::hint::black_box(syntax::parse(&mp).is_ok()))
        });
    }
    group.finish();
}

criterion_group!(benches, front_end);
criterion_main!(benches);
