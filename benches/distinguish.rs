//! `pomset distinguish`'s rate: `cargo bench --bench distinguish`. The
//! programs of two threads of at most two accesses (rlx, acq, rel) over two
//! locations, listed (enumeration and canonical forms), parsed from their
//! litmus text and checked (`parse`) or built as syntax trees and checked
//! (`build`, what a sweep does), decided by each engine alone, and swept as
//! a pair with minimality; throughput is in programs, so criterion prints
//! programs per second on one core.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pomset::distinguish::enumerate::programs;
use pomset::distinguish::shape::{Bound, Space, Vocabulary};
use pomset::distinguish::{sweep, Pair, Shard};
use pomset::outcome::Limits;
use pomset::syntax::ast::Mode;

/// The binary's heap and its count (`pomset::memory`): the rate measured is
/// the one `pomset` itself runs at, not glibc's malloc's.
#[global_allocator]
static ALLOCATOR: pomset::memory::Counting = pomset::memory::Counting;

fn space() -> Space {
    Space {
        bound: Bound::default(),
        vocabulary: Vocabulary {
            modes: vec![Mode::Rlx, Mode::Acq, Mode::Rel],
            ..Vocabulary::default()
        },
    }
}

fn distinguish(c: &mut Criterion) {
    let space = space();
    let shapes: Vec<_> = programs(&space).collect();
    let texts: Vec<String> = shapes.iter().map(|s| s.litmus("P", &space)).collect();
    let parsed: Vec<pomset::syntax::Litmus> = texts
        .iter()
        .map(|t| pomset::syntax::parse(t).expect("a generated program parses"))
        .collect();
    let mut group = c.benchmark_group("distinguish");
    group.sample_size(10);
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("enumerate", |b| b.iter(|| programs(&space).count()));
    group.bench_function("parse", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter(|t| pomset::syntax::parse(t).is_ok())
                .count()
        })
    });
    group.bench_function("build", |b| {
        b.iter(|| {
            shapes
                .iter()
                .filter_map(|s| s.file("P", &space))
                .filter(|f| pomset::syntax::check::check(f).is_ok())
                .count()
        })
    });
    for name in ["sc", "rc11", "pwt", "ptx"] {
        let engine = pomset::engine::named(name).expect("a bundled model");
        group.bench_function(format!("decide/{name}"), |b| {
            b.iter(|| {
                parsed
                    .iter()
                    .filter_map(|t| {
                        engine
                            .outcomes(&t.program, &t.program.model, Limits::default())
                            .ok()
                    })
                    .map(|o| o.states.len())
                    .sum::<usize>()
            })
        });
    }
    for (a, b_) in [("sc", "rc11"), ("rc11", "pwt"), ("pwt", "ptx")] {
        let pair = Pair::named(a, b_).expect("bundled models");
        group.bench_function(format!("sweep/{a}-{b_}"), |b| {
            b.iter(|| {
                let mut n = 0;
                sweep(
                    &space,
                    &pair,
                    Shard::WHOLE,
                    &Default::default(),
                    &mut |_, _| n += 1,
                );
                n
            })
        });
    }
    group.finish();
}

/// The bound of C58 and C59 (`--threads 3 --per-thread 2 --values 3
/// --modes rlx,acq,rel --rmws fadd`, about 45 M programs of 117 095
/// skeletons): the programs of one skeleton in every 2 003 among those with
/// at most four `FADD`s (113 151 skeletons, 37.8 M variants), listed once
/// in the setup, swept by `--mapping pwt:ptx` as a sweep does, a
/// skeleton's mode variants together in its frame (`distinguish::lattice`,
/// `Known::set_frames`): criterion's
/// rate is the sweep's on that part of the bound, without the enumeration a
/// shard repeats. The skeletons with five and six `FADD`s (a tenth of a
/// second to minutes each) are measured apart: the book's "Speed".
fn c58_space(c: &mut Criterion) {
    let space = Space::c59_bound();
    let fadds = |s: &pomset::distinguish::shape::Shape| {
        s.threads
            .iter()
            .flatten()
            .filter(|o| o.kind == pomset::distinguish::shape::Kind::Fadd)
            .count()
    };
    let sample: Vec<_> = pomset::distinguish::enumerate::skeletons(&space)
        .filter(|s| fadds(s) <= 4)
        .step_by(2_003)
        .map(|s| {
            let g = pomset::distinguish::enumerate::framed_group(&space, &s);
            (s, g)
        })
        .collect();
    let programs: usize = sample.iter().map(|(_, g)| g.len()).sum();
    let pair = Pair::mapping("pwt:ptx").expect("the bundled mapping");
    let mut group = c.benchmark_group("c58_space");
    group.sample_size(10);
    group.throughput(Throughput::Elements(programs as u64));
    group.bench_function("sweep-to-4-fadds/pwt:ptx", |b| {
        b.iter(|| {
            let mut same = 0;
            for (skeleton, programs) in &sample {
                let mut known = pomset::distinguish::lattice::Known::default();
                known.set_frames(&space, skeleton, programs);
                for (s, _) in programs {
                    let r = pomset::distinguish::record_known(&space, &pair, s, &mut known);
                    same += usize::from(r.verdict == "same");
                }
            }
            same
        })
    });
    group.finish();
}

criterion_group!(benches, distinguish, c58_space);
criterion_main!(benches);
