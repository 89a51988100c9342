//! Runs one flattening algorithm repeatedly on one complete tree, for
//! profilers (`valgrind --tool=cachegrind`, `perf`) and per-phase timings:
//!
//! ```text
//! cargo run --release -p treefuse-flat --example profile -- ALGO DEPTH BRANCHING [REPS]
//! ```
//!
//! `ALGO` is `none` (only build the tree: subtract its cost), `seq`, `par1`
//! or `par` (all threads). The parallel ones print the median time of every
//! phase.
use std::time::Instant;
use treefuse_flat::{bench, lift, prim::default_grain};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: profile none|seq|par1|par DEPTH BRANCHING [REPS]";
    let num = |i: usize, default: u32| -> u32 {
        args.get(i)
            .map(|s| s.parse().unwrap_or_else(|_| panic!("{usage}")))
            .unwrap_or(default)
    };
    let algo = args.first().map_or("seq", String::as_str);
    let (depth, branching, reps) = (num(1, 19), num(2, 2), num(3, 5));
    let tree = bench::complete_tree(depth, branching);
    let spec = bench::spec();
    let threads = match algo {
        "par1" => 1,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut times = Vec::new();
    let mut phases = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let rows = match algo {
            "none" => tree.len(),
            "seq" => lift::flatten_seq(&tree, &spec).len(),
            "par1" | "par" => pool.install(|| {
                let (out, p) = lift::flatten_par_profiled(&tree, &spec, default_grain(tree.len()));
                phases.push(p);
                out.len()
            }),
            _ => panic!("{usage}"),
        };
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(rows > 0);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    print!(
        "{algo} {} nodes: median {:.2} ms",
        tree.len(),
        median(times)
    );
    if let Some(first) = phases.first() {
        for (i, (name, _)) in first.named().iter().enumerate() {
            let v = phases
                .iter()
                .map(|p| p.named()[i].1.as_secs_f64() * 1e3)
                .collect();
            print!(", {name} {:.2}", median(v));
        }
    }
    println!();
}
