//! Deciding the refinements: `cargo bench --bench refine`. One benchmark per
//! file of examples/refinements/ (pomset-level check and, when unsound, the
//! contextual search), and the whole directory.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::refinement::{parse_refinement, refine, refinement_files, Limits, Refinement};

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn decide(r: &Refinement) -> bool {
    refine(r, &r.program.model, Limits::default()).is_ok_and(|rep| rep.as_expected())
}

fn refinements(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/refinements");
    let all: Vec<(String, Refinement)> = refinement_files(&[root])
        .expect("examples/refinements/")
        .into_iter()
        .map(|p| {
            let src = std::fs::read_to_string(&p).expect("readable");
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                parse_refinement(&src).expect("parses"),
            )
        })
        .collect();
    let mut group = c.benchmark_group("refine");
    group.sample_size(10);
    for (name, r) in &all {
        group.bench_function(name.as_str(), |b| {
            b.iter(|| std::hint::black_box(decide(r)))
        });
    }
    group.bench_function("all", |b| {
        b.iter(|| all.iter().filter(|(_, r)| decide(r)).count())
    });
    group.finish();
}

criterion_group!(benches, refinements);
criterion_main!(benches);
