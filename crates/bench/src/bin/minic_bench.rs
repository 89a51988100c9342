//! `minic-bench`: the generated Rust of `examples/minic/` (the
//! whole `optimize` pipeline), unfused against fused, on one tree read
//! once (`treefuse gen-example minic --size N > prog.json`):
//!
//! ```text
//! cargo run --release -p treefuse-bench --bin minic-bench -- prog.json [ROUNDS]
//! ```
//!
//! Each round runs both engines on fresh clones of the tree, alternately,
//! then the fused code of minic as it was before its fixpoint moved into
//! `Func` (the `fuse` item looping over the whole program, generated from
//! the same passes by `build.rs`), and prints node visits and seconds; the
//! end prints the median times, the speedups, and whether all three left
//! the same tree and globals. With `--features mimalloc` every engine
//! allocates with mimalloc.

use std::time::Instant;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod minic {
    include!(concat!(env!("OUT_DIR"), "/minic.rs"));
}

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod minic_global_fixpoint {
    include!(concat!(env!("OUT_DIR"), "/minic_global_fixpoint.rs"));
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
    let old_schema = minic_global_fixpoint::schema();
    let old_tree =
        minic_global_fixpoint::read_json(&old_schema, "Program", &text).unwrap_or_else(|e| {
            eprintln!("invalid tree: {e}");
            std::process::exit(2);
        });
    let (mut unfused, mut fused, mut old_fused) = (Vec::new(), Vec::new(), Vec::new());
    let mut outputs = Vec::new();
    for round in 0..rounds {
        for engine in ["unfused", "fused", "fused, fixpoint over the program"] {
            let start = Instant::now();
            let (result, output) = match engine {
                "fused, fixpoint over the program" => {
                    let mut t = old_tree.clone();
                    let mut g = minic_global_fixpoint::Globals::default();
                    let result =
                        measured_global_fixpoint(&mut t, &mut g).map_err(|e| e.to_string());
                    (
                        result,
                        (round == 0)
                            .then(|| minic_global_fixpoint::write_json(&old_schema, &t, &g)),
                    )
                }
                _ => {
                    let mut t = tree.clone();
                    let mut g = minic::Globals::default();
                    let result = if engine == "fused" {
                        measured_fused(&mut t, &mut g)
                    } else {
                        measured_unfused(&mut t, &mut g)
                    };
                    (
                        result.map_err(|e| e.to_string()),
                        (round == 0).then(|| minic::write_json(&schema, &t, &g)),
                    )
                }
            };
            let seconds = start.elapsed().as_secs_f64();
            let visits = result.unwrap_or_else(|e| {
                eprintln!("runtime error: {e}");
                std::process::exit(3);
            });
            println!("round {round} {engine}: {visits} visits, {seconds:.3} s");
            match engine {
                "unfused" => &mut unfused,
                "fused" => &mut fused,
                _ => &mut old_fused,
            }
            .push(seconds);
            outputs.extend(output);
        }
    }
    let (u, f, o) = (median(unfused), median(fused), median(old_fused));
    println!(
        "median unfused {u:.3} s, fused {f:.3} s, fused with the fixpoint over the program {o:.3} s; fused speedup {:.2}x over unfused, {:.2}x over the fixpoint over the program; same tree and globals: {}",
        u / f,
        o / f,
        outputs.windows(2).all(|w| w[0] == w[1])
    );
}

/// The fused run of minic with its fixpoint over the whole program, never
/// inlined (`--toggle-collect='*measured_global_fixpoint*'`).
#[inline(never)]
fn measured_global_fixpoint(
    t: &mut minic_global_fixpoint::Tree,
    g: &mut minic_global_fixpoint::Globals,
) -> Result<u64, minic_global_fixpoint::RuntimeError> {
    minic_global_fixpoint::run_optimize_fused_counted(t, g)
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
