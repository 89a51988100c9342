//! `fusion-scaling`: how analysis and fusion grow with the number of
//! passes, on linter-shaped programs (R rules over T node types, each rule
//! touching a few types and walking the rest; `treefuse_progen::linter`).
//!
//! ```text
//! cargo run --release -p treefuse-bench --bin fusion-scaling -- [--types T] [R ...]
//! cargo run --release -p treefuse-bench --bin fusion-scaling -- --emit R T > lint.tf
//! ```
//!
//! Each R (default 5 10 20 40 80, at T = 60) is measured in a fresh
//! process (this binary re-run with `--one R T`), so the peak resident
//! memory it reports (`VmHWM`) belongs to that program alone. Printed per
//! R: lines of source, check time, analysis time, fusion time, fused
//! functions, fused calls on the root, peak memory, and whether the fused
//! run on a random tree visited each node once.

use std::process::Command;
use std::time::Instant;
use treefuse::{Engine, FusionOptions, Host};
use treefuse_progen::linter::{linter_program, LinterShape};
use treefuse_runtime::{random_tree_sized, GenOptions};

/// With `--features mimalloc`, the allocator of the `treefuse` command
/// line, so the figures are the ones a user of `treefuse fuse` sees.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Measures one program in this process and prints one tab-separated line.
fn measure_one(rules: usize, types: usize) -> Result<(), String> {
    let src = linter_program(LinterShape {
        rules,
        types,
        seed: 1,
    });
    let lines = src.lines().count();
    let t0 = Instant::now();
    let program = treefuse::compile_source("lint.tf", &src).map_err(|e| e.render(false))?;
    let check = t0.elapsed();
    let t1 = Instant::now();
    let analysis = treefuse_analysis::Analysis::new(&program.model);
    let analyse = t1.elapsed();
    let t2 = Instant::now();
    let fused = treefuse_fusion::fuse_program(&program.model, &analysis, &FusionOptions::default());
    let fuse = t2.elapsed();
    let peak = peak_rss_kib();
    let root_calls = fused.entries.first().map_or(0, |e| e.chunks.len());
    let f = program
        .model
        .fuses
        .first()
        .ok_or("the program has no fuse item")?;
    let generated = random_tree_sized(
        &program.model,
        f.root_type,
        &GenOptions {
            nodes: 2000,
            seed: 1,
            ..GenOptions::default()
        },
    )
    .map_err(|e| e.0)?;
    let mut tree = generated.tree;
    let (stats, _) = program
        .run_tree_with(
            "lint",
            &mut tree,
            vec![],
            &Host::new(),
            Engine::Fused(&fused),
        )
        .map_err(|e| e.to_string())?;
    let one_walk = stats.node_visits == generated.nodes as u64;
    println!(
        "{rules}\t{types}\t{lines}\t{:.1}\t{:.1}\t{:.1}\t{}\t{root_calls}\t{:.0}\t{}",
        check.as_secs_f64() * 1e3,
        analyse.as_secs_f64() * 1e3,
        fuse.as_secs_f64() * 1e3,
        fused.functions.len(),
        peak as f64 / 1024.0,
        if one_walk {
            "yes".to_string()
        } else {
            format!(
                "no ({} visits for {} nodes)",
                stats.node_visits, generated.nodes
            )
        }
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> usize {
        args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| {
            eprintln!("fusion-scaling: expected a number at argument {}", i + 1);
            std::process::exit(2)
        })
    };
    match args.first().map(String::as_str) {
        Some("--emit") => {
            print!(
                "{}",
                linter_program(LinterShape {
                    rules: number(1),
                    types: number(2),
                    seed: 1,
                })
            );
            return;
        }
        Some("--one") => {
            if let Err(e) = measure_one(number(1), number(2)) {
                eprintln!("fusion-scaling: {e}");
                std::process::exit(1);
            }
            return;
        }
        _ => {}
    }
    let mut types = 60;
    let mut rules = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--types" {
            types = number(i + 1);
            i += 2;
        } else {
            rules.push(number(i));
            i += 1;
        }
    }
    if rules.is_empty() {
        rules = vec![5, 10, 20, 40, 80];
    }
    let exe = std::env::current_exe().unwrap_or_else(|e| {
        eprintln!("fusion-scaling: cannot find its own executable: {e}");
        std::process::exit(1)
    });
    println!("rules\ttypes\tlines\tcheck_ms\tanalysis_ms\tfusion_ms\tfused_fns\troot_calls\tpeak_mib\tone_walk");
    for r in rules {
        let status = Command::new(&exe)
            .args(["--one", &r.to_string(), &types.to_string()])
            .status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!("fusion-scaling: R = {r} failed");
            std::process::exit(1);
        }
    }
}
