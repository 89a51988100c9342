//! `minic-bench`: the generated Rust of `examples/minic/` (the
//! whole `optimize` pipeline), unfused against fused, on one tree read
//! once (`treefuse gen-example minic --size N > prog.json`):
//!
//! ```text
//! cargo run --release -p treefuse-bench --bin minic-bench -- prog.json [ROUNDS]
//! ```
//!
//! Each round runs both engines on fresh clones of the tree, alternately,
//! and prints node visits and seconds; the end prints the median times,
//! the speedup, and whether both engines left the same tree and globals.
//! With `--features mimalloc` both engines allocate with mimalloc.

use std::time::Instant;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod minic {
    include!(concat!(env!("OUT_DIR"), "/minic.rs"));
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: minic-bench PROG.json [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = match args.next().map(|r| r.parse()) {
        None => 3,
        Some(Ok(r)) if r > 0 => r,
        Some(_) => {
            eprintln!("ROUNDS must be a positive integer");
            std::process::exit(2);
        }
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2);
    });
    let schema = minic::schema();
    let tree = minic::read_json(&schema, "Program", &text).unwrap_or_else(|e| {
        eprintln!("invalid tree: {e}");
        std::process::exit(2);
    });
    let (mut unfused, mut fused) = (Vec::new(), Vec::new());
    let mut outputs = Vec::new();
    for round in 0..rounds {
        for use_fused in [false, true] {
            let mut t = tree.clone();
            let mut g = minic::Globals::default();
            let start = Instant::now();
            let result = if use_fused {
                measured_fused(&mut t, &mut g)
            } else {
                measured_unfused(&mut t, &mut g)
            };
            let seconds = start.elapsed().as_secs_f64();
            let visits = result.unwrap_or_else(|e| {
                eprintln!("runtime error: {e}");
                std::process::exit(3);
            });
            let name = if use_fused { "fused" } else { "unfused" };
            println!("round {round} {name}: {visits} visits, {seconds:.3} s");
            if use_fused { &mut fused } else { &mut unfused }.push(seconds);
            if round == 0 {
                outputs.push(minic::write_json(&schema, &t, &g));
            }
        }
    }
    let (u, f) = (median(unfused), median(fused));
    println!(
        "median unfused {u:.3} s, fused {f:.3} s, fused speedup {:.2}x; same tree and globals: {}",
        u / f,
        outputs[0] == outputs[1]
    );
}

/// The fused run, never inlined, so that profilers can single it out
/// (`valgrind --tool=callgrind --toggle-collect='*measured_fused*'`).
#[inline(never)]
fn measured_fused(t: &mut minic::Tree, g: &mut minic::Globals) -> Result<u64, minic::RuntimeError> {
    minic::run_optimize_fused_counted(t, g)
}

/// The unfused run, never inlined (`--toggle-collect='*measured_unfused*'`).
#[inline(never)]
fn measured_unfused(
    t: &mut minic::Tree,
    g: &mut minic::Globals,
) -> Result<u64, minic::RuntimeError> {
    minic::run_optimize_unfused_counted(t, g)
}
