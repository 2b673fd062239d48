//! The transformation table: `cargo bench --bench transformations`. The
//! whole bundled catalogue under the five models (issue 29 asks for under
//! two minutes on two cores), and one schema alone.

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::engine;
use pomset::transform::{self, table, Bound};

fn table_of(names: &[String]) -> usize {
    let inst = transform::bundled_instances(names).expect("bundled schemas");
    let engines: Vec<(String, Box<dyn engine::Engine>)> = ["pwt", "rc11", "ptx", "vulkan", "sc"]
        .iter()
        .map(|m| (m.to_string(), engine::named(m).expect("bundled model")))
        .collect();
    let bound = Bound {
        threads: 1,
        max_contexts: 400,
    };
    table::build(&inst, &engines, bound, 2, &|_, _| {})
        .rows
        .len()
}

fn transformations(c: &mut Criterion) {
    let mut group = c.benchmark_group("transformations");
    group.sample_size(10);
    group.bench_function("reorder-wr", |b| {
        b.iter(|| table_of(&["reorder-wr".to_string()]))
    });
    group.bench_function("all", |b| b.iter(|| table_of(&[])));
    group.finish();
}

criterion_group!(benches, transformations);
criterion_main!(benches);
