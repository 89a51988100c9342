//! Cost of `x = append(x, e);` (LANGUAGE.md §8.5): `examples/arrays/appends.tf`
//! appends n elements to a local, n to a data field and 2n to a global
//! (4n appends in all), in the interpreter and in generated Rust (the
//! module `treefuse_codegen_example::appends`, generated from the same file
//! by `build.rs`), each unfused and fused, for n = 10^4 .. MAX_N (10^6 by
//! default). Every engine changes the array where it stands, so the time
//! per append stays flat as n grows: linear, not quadratic.
//!
//! `cargo run --release -p treefuse --example append_bench [MAX_N]`

use std::time::Instant;
use treefuse::sema::Value;
use treefuse::{compile_file, Engine, FusionOptions, Host};
use treefuse_codegen_example::appends as generated;

fn main() {
    let max_n: i64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/arrays/appends.tf"
    );
    let program = compile_file(file).expect("the example checks");
    let fused = program.fuse_all(&FusionOptions::default());
    let host = Host::new();
    let json = r#"{"type": "Root", "xs": [], "total": 0}"#;
    let tree = program.read_tree("appends", json).expect("tree reads");
    println!(
        "{:>10} {:>18} {:>12} {:>14} {:>8}",
        "n", "engine", "ms", "ns/append", "visits"
    );
    let mut n = 10_000;
    while n <= max_n {
        let report = |engine: &str, ms: f64, visits: u64| {
            println!(
                "{n:>10} {engine:>18} {ms:>12.1} {:>14.1} {visits:>8}",
                ms * 1e6 / (4 * n) as f64
            );
        };
        for (name, engine) in [
            ("interp-unfused", Engine::Unfused),
            ("interp-fused", Engine::Fused(&fused)),
        ] {
            let mut t = tree.clone();
            let start = Instant::now();
            let (stats, globals) = program
                .run_tree_with("appends", &mut t, vec![Value::Int(n)], &host, engine)
                .expect("runs");
            let ms = start.elapsed().as_secs_f64() * 1e3;
            match &globals[0] {
                Value::Array(log) => assert_eq!(log.len() as i64, 2 * n, "{name}"),
                other => panic!("{name}: LOG is {other}"),
            }
            report(name, ms, stats.node_visits);
        }
        type Run = fn(
            &mut generated::Tree,
            &mut generated::Globals,
            i64,
        ) -> Result<(), generated::RuntimeError>;
        let runs: [(&str, Run); 2] = [
            ("generated-unfused", generated::run_appends_unfused),
            ("generated-fused", generated::run_appends_fused),
        ];
        for (name, run) in runs {
            let mut t = generated::Tree::from_runtime(&tree);
            let mut globals = generated::Globals::default();
            let start = Instant::now();
            run(&mut t, &mut globals, n).expect("runs");
            let ms = start.elapsed().as_secs_f64() * 1e3;
            assert_eq!(globals.log.len() as i64, 2 * n, "{name}");
            report(name, ms, 0);
        }
        n *= 10;
    }
}
