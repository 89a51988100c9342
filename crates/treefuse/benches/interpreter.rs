//! Interpreter throughput (node visits per second) on the case studies,
//! unfused and fused side by side, and the time fusion itself takes.
//!
//! Run with `cargo bench -p treefuse --bench interpreter`. Criterion
//! reports the throughput as "elem/s", one element per node visit of the
//! run being measured (so fused runs, which make fewer visits, report
//! their own visit rate; compare their times for the speedup). Tree
//! reading is outside the timed region: each iteration clones the parsed
//! tree and runs the `fuse` item on it.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use treefuse::{compile_file, Engine, FusionOptions, Host};

fn case(c: &mut Criterion, file: &str, fuse: &str, example: &str, size: usize) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let program = compile_file(format!("{root}{file}")).expect("example checks");
    let json = treefuse_casegen::generate_string(example, 1, size, 0).expect("generator");
    let tree = program.read_tree(fuse, &json).expect("tree reads");
    let fused = program.fuse_all(&FusionOptions::default());
    let host = Host::new();
    let mut group = c.benchmark_group(format!("interpreter/{example}-{size}"));
    group.sample_size(20);
    for (name, engine) in [
        ("unfused", Engine::Unfused),
        ("fused", Engine::Fused(&fused)),
    ] {
        let visits = {
            let mut t = tree.clone();
            program
                .run_tree_with(fuse, &mut t, Vec::new(), &host, engine)
                .expect("runs")
                .0
                .node_visits
        };
        group.throughput(Throughput::Elements(visits));
        group.bench_function(name, |b| {
            b.iter_batched_ref(
                || tree.clone(),
                |t| {
                    program
                        .run_tree_with(fuse, t, Vec::new(), &host, engine)
                        .expect("runs")
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
    c.bench_function(&format!("fusion-time/{example}"), |b| {
        b.iter(|| program.fuse_all(&FusionOptions::default()))
    });
}

fn interpreter(c: &mut Criterion) {
    case(c, "examples/render/render.tf", "render", "render", 1000);
    case(c, "examples/ast/ast.tf", "optimize", "ast", 1000);
    case(
        c,
        "examples/render/render_lists.tf",
        "render",
        "render-lists",
        1000,
    );
}

criterion_group!(benches, interpreter);
criterion_main!(benches);
