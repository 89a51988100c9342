//! How analysis + fusion time grows with program size, on random programs
//! from the fuzzer's generator: for each body-size setting, 20 programs are
//! generated, and the median time of `Program::fuse_all` is printed with the
//! median program size (lines) and number of fused functions.
//!
//! `cargo run --release -p treefuse-progen --example fusion_time`

use std::time::Instant;
use treefuse::{compile_source, FusionOptions};
use treefuse_progen::gen::{generate_with, GenConfig};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    println!("| max statements per body | median lines | median fused functions | median analysis+fusion ms | max ms |");
    println!("|---:|---:|---:|---:|---:|");
    for max_stmts in [2u32, 4, 8, 16, 32] {
        let cfg = GenConfig {
            max_stmts,
            ..GenConfig::default()
        };
        let (mut lines, mut fns, mut ms) = (Vec::new(), Vec::new(), Vec::new());
        for seed in 0..20u64 {
            let src = generate_with(seed, &cfg);
            let Ok(program) = compile_source("gen.tf", &src) else {
                continue;
            };
            let start = Instant::now();
            let fused = program.fuse_all(&FusionOptions::default());
            ms.push(start.elapsed().as_secs_f64() * 1e3);
            lines.push(src.lines().count() as f64);
            fns.push(fused.functions.len() as f64);
        }
        let max = ms.iter().cloned().fold(0.0, f64::max);
        println!(
            "| {max_stmts} | {:.0} | {:.0} | {:.1} | {:.1} |",
            median(lines),
            median(fns),
            median(ms),
            max
        );
    }
}
