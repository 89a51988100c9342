//! Cost of list splicing in the interpreter: a loop over n elements in
//! which every other element deletes itself, or every element replaces
//! itself by two, for n = 10^4 .. 10^6, unfused and fused. Linear growth
//! (time per element flat across n) shows the O(n + inserted) loop.
//!
//! `cargo run --release -p treefuse --example splice_bench [MAX_N]`, or
//! `... splice_bench N` with `ONLY=N` in the environment to run only that
//! size (for instruction counts under `valgrind --tool=cachegrind`, which
//! the loaded CI machine makes more reliable than times).

use std::time::Instant;
use treefuse::{compile_file, Engine, FusionOptions, Host};

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
        "{:>10} {:>14} {:>8} {:>12} {:>12} {:>10}",
        "n", "case", "engine", "ms", "ns/elem", "out len"
    );
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
            for (engine_name, engine) in [
                ("unfused", Engine::Unfused),
                ("fused", Engine::Fused(&fused)),
            ] {
                let mut t = tree.clone();
                let start = Instant::now();
                let (_, globals) = program
                    .run_tree_with("main", &mut t, Vec::new(), &host, engine)
                    .expect("runs");
                let ms = start.elapsed().as_secs_f64() * 1e3;
                drop(globals);
                let out_len = t.len(&program.model) - 1;
                assert_eq!(out_len, *expected_len, "{name}: wrong list length");
                println!(
                    "{n:>10} {name:>14} {engine_name:>8} {ms:>12.1} {:>12.1} {out_len:>10}",
                    ms * 1e6 / n as f64
                );
            }
        }
        n *= 10;
    }
}
