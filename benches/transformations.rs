//! The transformation table: `cargo bench --bench transformations`. The
//! whole bundled catalogue under the five models at the table's default
//! bound (contexts of size 2, two parallel threads), and one schema alone
//! at size 2 and at `refine`'s size 3.

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::engine;
use pomset::transform::{self, table, Bound};

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn table_of(names: &[String], size: usize) -> usize {
    let inst = transform::bundled_instances(names).expect("bundled schemas");
    let engines: Vec<(String, Box<dyn engine::Engine>)> = ["pwt", "rc11", "ptx", "vulkan", "sc"]
        .iter()
        .map(|m| (m.to_string(), engine::named(m).expect("bundled model")))
        .collect();
    let bound = Bound {
        size,
        threads: 2,
        max_contexts: None,
    };
    table::build(&inst, &engines, bound, None, 2, &|_, _| {})
        .rows
        .len()
}

fn transformations(c: &mut Criterion) {
    let mut group = c.benchmark_group("transformations");
    group.sample_size(10);
    group.bench_function("reorder-wr", |b| {
        b.iter(|| table_of(&["reorder-wr".to_string()], 2))
    });
    group.bench_function("reorder-wr size 3", |b| {
        b.iter(|| table_of(&["reorder-wr".to_string()], 3))
    });
    group.bench_function("all", |b| b.iter(|| table_of(&[], 2)));
    group.finish();
}

criterion_group!(benches, transformations);
criterion_main!(benches);
