//! Drawing: `cargo bench --bench draw`. Building the pictures of every
//! complete pomset of MP+rel+acq and IRIW and rendering them in each format,
//! and the SVG of every example's first complete pomset.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use pomset::render::draw::{DrawOptions, Format, Which};
use pomset::syntax::{self, Litmus};
use pomset::workbench::draw;

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn load(rel: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel);
    syntax::parse(&std::fs::read_to_string(path).expect("readable")).expect("parses")
}

fn drawing(c: &mut Criterion) {
    let mut group = c.benchmark_group("draw");
    group.sample_size(20);
    for name in ["classic/mp+rel+acq.litmus", "classic/iriw.litmus"] {
        let t = load(name);
        for (format, key) in [
            (Format::Text, "text"),
            (Format::Svg, "svg"),
            (Format::Tikz, "tikz"),
            (Format::Dot, "dot"),
        ] {
            let opts = DrawOptions {
                format,
                which: Which::Complete,
                ..DrawOptions::default()
            };
            let id = format!("{}/{key}", name.trim_end_matches(".litmus"));
            group.bench_function(id, |b| {
                b.iter(|| draw(&t, &t.program.model, &opts).map_or(0, |s| s.len()))
            });
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let all: Vec<Litmus> = pomset::cli::litmus_files(&[root])
        .expect("examples/")
        .iter()
        .map(|p| syntax::parse(&std::fs::read_to_string(p).expect("readable")).expect("parses"))
        .collect();
    let svg = DrawOptions {
        format: Format::Svg,
        ..DrawOptions::default()
    };
    group.sample_size(10);
    group.bench_function("all_examples_first_pomset/svg", |b| {
        b.iter(|| {
            all.iter()
                .map(|t| draw(t, &t.program.model, &svg).map_or(0, |s| s.len()))
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, drawing);
criterion_main!(benches);
