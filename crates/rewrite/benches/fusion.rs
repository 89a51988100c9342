//! Criterion benchmark of the blog's three rules on random trees: not fused,
//! library one-by-one, manually fused, library fused.
//!
//! `cargo bench -p treefuse-rewrite --bench fusion`. For the million-tree
//! side-by-side ratios use `examples/fusion_bench.rs` instead.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::time::Duration;
use treefuse_rewrite::toy::{manually_fused, not_fused, rules, Expr, Generator};
use treefuse_rewrite::{node_count, PassManager};

fn bench(c: &mut Criterion) {
    let mut gen = Generator::new(42, 6);
    let input: Vec<Expr> = (0..1_000).map(|_| gen.next_expr()).collect();
    let nodes: usize = input.iter().map(node_count).sum();
    let mut group = c.benchmark_group("toy_rules_1000_trees");
    group.throughput(Throughput::Elements(nodes as u64));
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));

    group.bench_function("not_fused", |b| {
        b.iter_batched(
            || input.clone(),
            |v| v.into_iter().map(not_fused).collect::<Vec<_>>(),
            BatchSize::LargeInput,
        )
    });
    let mut pm = PassManager::<(), _>::new(rules()).expect("no ordering constraints");
    group.bench_function("library_one_by_one", |b| {
        b.iter_batched(
            || input.clone(),
            |mut v| {
                for e in &mut v {
                    pm.one_by_one(e, &mut ())
                        .expect("the toy rules cannot fail");
                }
                v
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("manually_fused", |b| {
        b.iter_batched(
            || input.clone(),
            |v| v.into_iter().map(manually_fused).collect::<Vec<_>>(),
            BatchSize::LargeInput,
        )
    });
    let mut pm = PassManager::<(), _>::new(rules()).expect("no ordering constraints");
    group.bench_function("library_fused", |b| {
        b.iter_batched(
            || input.clone(),
            |mut v| {
                for e in &mut v {
                    pm.fused(e, &mut ()).expect("the toy rules cannot fail");
                }
                v
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
