//! Cost of list splicing: a loop over n elements in which every other
//! element deletes itself, or every element replaces itself by two, for
//! n = 10^4 .. 10^6, in the interpreter and in generated Rust (the module
//! `treefuse_codegen_example::splice`, generated from the same file by
//! `build.rs`), each unfused and fused, side by side in one run. Linear
//! growth (time per element flat across n) shows the O(n + inserted)
//! loop.
//!
//! `cargo run --release -p treefuse --example splice_bench [MAX_N]`, or
//! `... splice_bench N` with `ONLY=N` in the environment to run only that
//! size, and `ENGINES=generated-fused` (a comma-separated list of
//! `interp-unfused`, `interp-fused`, `generated-unfused`,
//! `generated-fused`, or `none`) to run only those engines: for
//! instruction counts under `valgrind --tool=cachegrind`, which the loaded
//! CI machine makes more reliable than times (subtract the `none` run,
//! which only builds the trees).

use std::time::Instant;
use treefuse::{compile_file, Engine, FusionOptions, Host};
use treefuse_codegen_example::splice as generated;

fn list_json(n: usize, item: impl Fn(usize) -> &'static str) -> String {
    let mut s = String::with_capacity(n * 24);
    s.push_str(r#"{"type": "List", "items": ["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(item(i));
    }
    s.push_str("]}");
    s
}

fn main() {
    let max_n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/rewriting/splice.tf"
    );
    let program = compile_file(file).expect("the example checks");
    let fused = program.fuse_all(&FusionOptions::default());
    let host = Host::new();
    println!(
        "{:>10} {:>14} {:>18} {:>12} {:>12} {:>10}",
        "n", "case", "engine", "ms", "ns/elem", "out len"
    );
    let engines = std::env::var("ENGINES").unwrap_or_default();
    let wanted = |name: &str| engines.is_empty() || engines.split(',').any(|e| e == name);
    let only = std::env::var("ONLY").is_ok();
    let mut n = if only { max_n } else { 10_000 };
    while n <= max_n {
        let cases: [(&str, String, usize); 2] = [
            (
                "delete half",
                list_json(n, |i| {
                    if i % 2 == 0 {
                        r#"{"type": "Keep", "v": 1}"#
                    } else {
                        r#"{"type": "Drop"}"#
                    }
                }),
                n - n / 2,
            ),
            (
                "expand x2",
                list_json(n, |_| r#"{"type": "Dup", "v": 3}"#),
                2 * n,
            ),
        ];
        for (name, json, expected_len) in &cases {
            let tree = program.read_tree("main", json).expect("tree reads");
            let report = |engine_name: &str, ms: f64, out_len: usize| {
                assert_eq!(out_len, *expected_len, "{name}: wrong list length");
                println!(
                    "{n:>10} {name:>14} {engine_name:>18} {ms:>12.1} {:>12.1} {out_len:>10}",
                    ms * 1e6 / n as f64
                );
            };
            for (engine_name, engine) in [
                ("interp-unfused", Engine::Unfused),
                ("interp-fused", Engine::Fused(&fused)),
            ] {
                if !wanted(engine_name) {
                    continue;
                }
                let mut t = tree.clone();
                let start = Instant::now();
                let (_, globals) = program
                    .run_tree_with("main", &mut t, Vec::new(), &host, engine)
                    .expect("runs");
                let ms = start.elapsed().as_secs_f64() * 1e3;
                drop(globals);
                report(engine_name, ms, t.len(&program.model) - 1);
            }
            type Run = fn(
                &mut generated::Tree,
                &mut generated::Globals,
            ) -> Result<(), generated::RuntimeError>;
            let runs: [(&str, Run); 2] = [
                ("generated-unfused", generated::run_main_unfused),
                ("generated-fused", generated::run_main_fused),
            ];
            for (engine_name, run) in runs {
                if !wanted(engine_name) {
                    continue;
                }
                let mut t = generated::Tree::from_runtime(&tree);
                let mut globals = generated::Globals::default();
                let start = Instant::now();
                run(&mut t, &mut globals).expect("runs");
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let root = t.root.list().expect("the root is a List");
                report(engine_name, ms, t[root].items.len());
            }
        }
        n *= 10;
    }
}
