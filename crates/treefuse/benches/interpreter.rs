//! Interpreter throughput in node visits per second on the case studies
//! (unfused). Run with `cargo bench -p treefuse --bench interpreter`;
//! criterion reports the throughput as "elem/s", one element per visit.
//! Tree reading is outside the timed region: each iteration clones the
//! parsed tree and runs the `fuse` item on it.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use treefuse::{compile_file, Host};

fn case(c: &mut Criterion, file: &str, fuse: &str, example: &str, size: usize) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let program = compile_file(format!("{root}{file}")).expect("example checks");
    let json = treefuse_casegen::generate_string(example, 1, size, 0).expect("generator");
    let tree = program.read_tree(fuse, &json).expect("tree reads");
    let visits = {
        let mut t = tree.clone();
        program
            .run_tree(fuse, &mut t, Vec::new(), &Host::new())
            .expect("runs")
            .0
            .node_visits
    };
    let host = Host::new();
    let mut group = c.benchmark_group("interpreter");
    group.throughput(Throughput::Elements(visits));
    group.sample_size(20);
    group.bench_function(format!("{example}-{size}"), |b| {
        b.iter_batched_ref(
            || tree.clone(),
            |t| program.run_tree(fuse, t, Vec::new(), &host).expect("runs"),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn interpreter(c: &mut Criterion) {
    case(c, "examples/render/render.tf", "render", "render", 1000);
    case(c, "examples/ast/ast.tf", "optimize", "ast", 1000);
}

criterion_group!(benches, interpreter);
criterion_main!(benches);
