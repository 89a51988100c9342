//! `parallel-bench`: the parallel entry points of generated code
//! (`treefuse_codegen::Config::parallel`, `run_<fuse>_parallel`) against
//! the sequential fused run, on one tree read once:
//!
//! ```text
//! treefuse gen-example ast-lists --size 10000 > ast.json
//! cargo run --release -p treefuse-bench --bin parallel-bench -- ast-lists ast.json [ROUNDS] [GRAIN]
//! ```
//!
//! CASE is `render` or `render-lists` (`examples/render/render.tf`, the
//! faithful port, whose pages hang off a linked chain, or
//! `render_lists.tf`), `ast` or `ast-lists` (`examples/ast/ast.tf` or
//! `ast_lists.tf`) or `minic` (`examples/minic/`). Each round runs, on fresh clones of the tree (the
//! clone is not timed), alternately: the fused run of the module generated
//! without the option (`sequential`), the sequential fused entry point of
//! the module generated with it (`sequential, parallel module`: the
//! traversals instantiated with `Tree`), and `run_<fuse>_parallel` on rayon
//! pools of one and of two threads. The end prints median milliseconds, the
//! ratios, how many loops split into how many chunks, and whether every
//! run left the same tree and globals. GRAIN is the least number of nodes
//! of a chunk (default `Parallel::DEFAULT_GRAIN`).
//!
//! For profiling (callgrind, `--toggle-collect='*run_optimize*'`), the
//! environment variable `PARALLEL_BENCH_ONLY=sequential`,
//! `=sequential-parallel-module` or `=parallel` runs only the sequential
//! fused run, the sequential entry point of the module with parallel entry
//! points, or the parallel entry point on a pool of one thread, ROUNDS
//! times; `=parallel-2` runs the parallel entry point on the pool of two
//! threads. Each prints the median run. Run back to back, the
//! pool's threads are still awake when the next run starts, unlike in
//! the alternating rounds above, where the pool of two threads sits idle
//! while the other engines run and its second thread must be woken again
//! (on a virtual machine that can cost milliseconds: see
//! `crates/bench/results/parallel.md`).

use std::time::Instant;

use treefuse_runtime::generated::Parallel;
use treefuse_runtime::rayon;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

macro_rules! modules {
    ($($name:ident),*) => {
        $(
            #[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
            mod $name {
                include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
            }
        )*
        mod parallel {
            $(
                #[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
                pub mod $name {
                    include!(concat!(env!("OUT_DIR"), "/parallel/", stringify!($name), ".rs"));
                }
            )*
        }
    };
}

modules!(render_lists, ast_lists, render, ast, minic);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// One engine's run: its seconds and output JSON (tree and globals).
type Timed = (f64, String);

/// The engines of one case: each runs on a fresh clone of the tree.
struct Engines {
    sequential: Box<dyn Fn() -> Timed>,
    sequential_par_module: Box<dyn Fn() -> Timed>,
    parallel: Box<dyn Fn(&Parallel) -> Timed + Sync>,
}

macro_rules! engines {
    ($module:ident, $root:literal, $text:expr, $run:ident, $run_parallel:ident) => {{
        let schema = $module::schema();
        let tree = $module::read_json(&schema, $root, $text).unwrap_or_else(|e| fail(&e));
        let par_schema = parallel::$module::schema();
        let par_tree =
            parallel::$module::read_json(&par_schema, $root, $text).unwrap_or_else(|e| fail(&e));
        let par_tree2 = par_tree.clone();
        let par_schema2 = parallel::$module::schema();
        Engines {
            sequential: Box::new(move || {
                let mut t = tree.clone();
                let mut g = $module::Globals::default();
                let start = Instant::now();
                $module::$run(&mut t, &mut g).unwrap_or_else(|e| fail(&e.to_string()));
                let s = start.elapsed().as_secs_f64();
                (s, $module::write_json(&schema, &t, &g))
            }),
            sequential_par_module: Box::new(move || {
                let mut t = par_tree.clone();
                let mut g = parallel::$module::Globals::default();
                let start = Instant::now();
                parallel::$module::$run(&mut t, &mut g).unwrap_or_else(|e| fail(&e.to_string()));
                let s = start.elapsed().as_secs_f64();
                (s, parallel::$module::write_json(&par_schema, &t, &g))
            }),
            parallel: Box::new(move |p: &Parallel| {
                let mut t = par_tree2.clone();
                let mut g = parallel::$module::Globals::default();
                let start = Instant::now();
                parallel::$module::$run_parallel(&mut t, &mut g, p)
                    .unwrap_or_else(|e| fail(&e.to_string()));
                let s = start.elapsed().as_secs_f64();
                (s, parallel::$module::write_json(&par_schema2, &t, &g))
            }),
        }
    }};
}

fn fail(message: &str) -> ! {
    eprintln!("parallel-bench: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(case), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!(
            "usage: parallel-bench render|render-lists|ast|ast-lists|minic TREE.json [ROUNDS] [GRAIN]"
        );
        std::process::exit(2);
    };
    let rounds: usize = args
        .get(2)
        .map(|r| {
            r.parse()
                .unwrap_or_else(|_| fail("ROUNDS must be a positive integer"))
        })
        .unwrap_or(5)
        .max(1);
    let grain: usize = args
        .get(3)
        .map(|g| {
            g.parse()
                .unwrap_or_else(|_| fail("GRAIN must be a positive integer"))
        })
        .unwrap_or(Parallel::DEFAULT_GRAIN);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let engines = match case.as_str() {
        "render-lists" => engines!(
            render_lists,
            "Document",
            &text,
            run_render_fused,
            run_render_parallel
        ),
        "ast-lists" => engines!(
            ast_lists,
            "Program",
            &text,
            run_optimize_fused,
            run_optimize_parallel
        ),
        "render" => engines!(
            render,
            "Document",
            &text,
            run_render_fused,
            run_render_parallel
        ),
        "ast" => engines!(
            ast,
            "Program",
            &text,
            run_optimize_fused,
            run_optimize_parallel
        ),
        "minic" => engines!(
            minic,
            "Program",
            &text,
            run_optimize_fused,
            run_optimize_parallel
        ),
        other => fail(&format!("unknown case {other:?}")),
    };
    let pools: Vec<(usize, rayon::ThreadPool)> = [1, 2]
        .into_iter()
        .map(|n| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .stack_size(64 << 20)
                .build()
                .unwrap_or_else(|e| fail(&e.to_string()));
            (n, pool)
        })
        .collect();
    match std::env::var("PARALLEL_BENCH_ONLY").as_deref() {
        Ok(only @ ("sequential" | "sequential-parallel-module")) => {
            let engine = if only == "sequential" {
                &engines.sequential
            } else {
                &engines.sequential_par_module
            };
            let times: Vec<f64> = (0..rounds).map(|_| engine().0).collect();
            println!("median {:.3} ms", median(times) * 1e3);
            return;
        }
        Ok(only @ ("parallel" | "parallel-2")) => {
            let pool = &pools[usize::from(only == "parallel-2")].1;
            let mut times = Vec::new();
            for _ in 0..rounds {
                let (s, _) = pool.install(|| (engines.parallel)(&Parallel::new(grain)));
                times.push(s);
            }
            println!("median {:.3} ms", median(times) * 1e3);
            return;
        }
        Ok(other) => fail(&format!(
            "PARALLEL_BENCH_ONLY must be `sequential`, `sequential-parallel-module`, `parallel` or `parallel-2`, not {other:?}"
        )),
        Err(_) => {}
    }
    let (mut seq, mut seq_par, mut par1, mut par2) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut outputs = Vec::new();
    let options = Parallel::new(grain);
    for round in 0..rounds {
        let (s, out) = (engines.sequential)();
        seq.push(s);
        outputs.push(out);
        let (s, out) = (engines.sequential_par_module)();
        seq_par.push(s);
        outputs.push(out);
        for (n, pool) in &pools {
            let (s, out) = pool.install(|| (engines.parallel)(&options));
            if *n == 1 { &mut par1 } else { &mut par2 }.push(s);
            outputs.push(out);
        }
        println!(
            "round {round}: sequential {:.3} ms, sequential (parallel module) {:.3} ms, parallel 1 thread {:.3} ms, 2 threads {:.3} ms",
            seq[round] * 1e3,
            seq_par[round] * 1e3,
            par1[round] * 1e3,
            par2[round] * 1e3
        );
        outputs.dedup();
    }
    let (s, sp, p1, p2) = (median(seq), median(seq_par), median(par1), median(par2));
    println!(
        "median: sequential {:.3} ms, sequential (parallel module) {:.3} ms ({:.3}x), parallel 1 thread {:.3} ms, 2 threads {:.3} ms; 1->2 threads {:.2}x, 2 threads vs sequential {:.2}x; grain {grain}, {} loops split into {} chunks over all runs ({} of them chains); same tree and globals: {}",
        s * 1e3,
        sp * 1e3,
        sp / s,
        p1 * 1e3,
        p2 * 1e3,
        p1 / p2,
        s / p2,
        options.split_loops(),
        options.chunks(),
        options.split_chains(),
        outputs.len() == 1
    );
}
