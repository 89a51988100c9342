//! `flat-bench`: the paper's Figure 1 benchmark on this CPU.
//!
//! ```text
//! cargo run --release -p treefuse-flat --bin flat-bench -- [--quick | --scaling]
//!     [--max-nodes N] [--min-time SECS] [--reps N] [--out DIR] [--no-hugepages]
//! ```
//!
//! Unless `--no-hugepages` is given or `GLIBC_TUNABLES` is already set, the
//! program re-runs itself with [`TUNABLES`]: malloc backs large allocations
//! with transparent huge pages, keeps freed memory instead of returning it
//! to the kernel, and serves all threads from one arena. Page faults on
//! fresh memory otherwise dominate on these VMs, and glibc would treat the
//! contenders differently: flat-seq allocates on the main thread, whose
//! arena reuses freed memory, while flat-par allocates on pool threads,
//! whose arenas unmap it and fault it in again on every call.
//!
//! `--scaling` runs only the thread-scaling benchmark of
//! [`treefuse_flat::scaling`]: flat-seq and flat-par with 1 and all threads
//! on the grid's trees of 10^6 to `--max-nodes` (default 5·10^6) nodes,
//! `--reps` (default 9) interleaved repetitions each, both with the
//! allocating functions and with reused output buffers, writing
//! `scaling.md`; its last line is `1->all threads = R1, par-all/seq = R2`
//! for the allocating functions (the line before gives the same for reused
//! buffers).
//!
//! Times flat-seq, flat-par with 1 and all threads, functional and mutation
//! flattening on complete trees over the depth x branching grid, and writes
//! `results.md`, `results.csv` and `heatmap.svg` to the output directory
//! (default: `bench-results/` in this crate, or `bench-results/quick/` with
//! `--quick`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use treefuse_flat::bench::{self, Measurement};
use treefuse_flat::scaling;

struct Args {
    quick: bool,
    scaling: bool,
    reps: Option<usize>,
    max_nodes: Option<u64>,
    min_time: Option<f64>,
    out: Option<PathBuf>,
}

const USAGE: &str = "usage: flat-bench [--quick | --scaling] [--max-nodes N] [--min-time SECS] \
     [--reps N] [--out DIR] [--no-hugepages]";

fn parse() -> Result<Args, String> {
    let mut a = Args {
        quick: false,
        scaling: false,
        reps: None,
        max_nodes: None,
        min_time: None,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--quick" => a.quick = true,
            "--scaling" => a.scaling = true,
            "--reps" => {
                let v = value("--reps")?;
                a.reps = Some(v.parse().map_err(|e| format!("--reps {v}: {e}"))?);
            }
            "--no-hugepages" => {}
            "--max-nodes" => {
                let v = value("--max-nodes")?;
                a.max_nodes = Some(
                    v.replace('_', "")
                        .parse::<f64>()
                        .map_err(|e| format!("--max-nodes {v}: {e}"))? as u64,
                );
            }
            "--min-time" => {
                let v = value("--min-time")?;
                a.min_time = Some(v.parse().map_err(|e| format!("--min-time {v}: {e}"))?);
            }
            "--out" => a.out = Some(PathBuf::from(value("--out")?)),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if a.quick && a.scaling {
        return Err(format!("--quick and --scaling exclude each other\n{USAGE}"));
    }
    Ok(a)
}

/// The `GLIBC_TUNABLES` the benchmark runs with: transparent huge pages for
/// large allocations, freed memory kept (no trimming; blocks up to 32 MiB,
/// the largest threshold glibc accepts, come from the heap rather than
/// fresh mappings) and one arena for all threads.
const TUNABLES: &str = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1:\
     glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=17179869184";

/// Re-runs this program with `GLIBC_TUNABLES` set to [`TUNABLES`] unless it
/// is set already or `--no-hugepages` was given. On this kind of VM, page
/// faults on freshly allocated memory dominate every contender's time
/// (they all allocate their output); these settings cut that cost for all
/// of them alike. Returns only when no re-run happened.
fn rerun_with_hugepages() {
    let argv: Vec<String> = std::env::args().collect();
    if std::env::var_os("GLIBC_TUNABLES").is_some() || argv.iter().any(|a| a == "--no-hugepages") {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    match std::process::Command::new(exe)
        .args(&argv[1..])
        .env("GLIBC_TUNABLES", TUNABLES)
        .status()
    {
        Ok(st) => std::process::exit(st.code().unwrap_or(1)),
        Err(e) => eprintln!("flat-bench: could not re-run with {TUNABLES}: {e}"),
    }
}

fn main() {
    rerun_with_hugepages();
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.scaling {
        run_scaling(&args, threads);
        return;
    }
    let (max_nodes, min_time, branchings, depths): (u64, f64, Vec<u32>, Vec<u32>) = if args.quick {
        (
            args.max_nodes.unwrap_or(300_000),
            args.min_time.unwrap_or(0.01),
            vec![1, 2, 3, 4, 6, 8, 12, 16, 24, 31],
            vec![],
        )
    } else {
        (
            args.max_nodes.unwrap_or(30_000_000),
            args.min_time.unwrap_or(0.1),
            vec![],
            vec![],
        )
    };
    let out_dir = args.out.unwrap_or_else(|| {
        let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench-results");
        if args.quick {
            base.join("quick")
        } else {
            base
        }
    });
    let (one, all) = (pool(1), pool(threads));
    let configs = bench::grid(max_nodes, &branchings, &depths);
    let work: u64 = configs.iter().map(|c| c.nodes + 20_000).sum();
    eprintln!(
        "flat-bench: {} configurations up to {max_nodes} nodes, {threads} threads, \
         min {min_time}s per algorithm; writing to {}",
        configs.len(),
        out_dir.display()
    );
    let bar = ProgressBar::new(work);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40.cyan/blue}] {percent:>3}% eta {eta} {msg}",
        )
        .expect("progress template")
        .progress_chars("=> "),
    );
    let run = Run {
        quick: args.quick,
        max_nodes,
        min_time,
        threads,
        out_dir: out_dir.clone(),
        load_before: loadavg(),
        planned: configs.len(),
    };
    let start = Instant::now();
    let mut results: Vec<Measurement> = Vec::with_capacity(configs.len());
    for c in &configs {
        bar.set_message(format!(
            "depth {} branching {} ({} nodes)",
            c.depth, c.branching, c.nodes
        ));
        let m = bench::measure(*c, &one, &all, Duration::from_secs_f64(min_time));
        if c.nodes >= 1_000_000 {
            bar.println(format!(
                "d={:2} b={:2} n={:>9}: seq {:8.2} ms  par1 {:8.2} ms  par{} {:8.2} ms  fun {:8.2} ms  mut {:8.2} ms  ({:.1}x fun, {:.2}x mut, {:.2}x threads)",
                c.depth,
                c.branching,
                c.nodes,
                m.secs[0] * 1e3,
                m.secs[1] * 1e3,
                threads,
                m.secs[2] * 1e3,
                m.secs[3] * 1e3,
                m.secs[4] * 1e3,
                m.vs_functional(),
                m.vs_mutation(),
                m.thread_speedup()
            ));
        }
        results.push(m);
        bar.inc(c.nodes + 20_000);
        // Rewrite the reports after every configuration, so that an
        // interrupted run still leaves its results so far.
        let partial = results.len() < configs.len();
        if let Err(e) = write_reports(&run, &results, start, partial) {
            bar.println(e);
            std::process::exit(1);
        }
    }
    bar.finish_and_clear();
    let md = match write_reports(&run, &results, start, false) {
        Ok(md) => md,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    // Print the summary part of the report.
    for line in md.lines().take_while(|l| !l.starts_with("## All")) {
        println!("{line}");
    }
    println!("wrote {}", out_dir.display());
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

/// Stop starting new configurations after this long, so that a run on a
/// loaded machine still ends in under two minutes.
const SCALING_BUDGET: Duration = Duration::from_secs(100);

/// `--scaling`: prints a Markdown table (also written to `scaling.md`) and,
/// as the last line, the summary.
fn run_scaling(args: &Args, threads: usize) {
    let max_nodes = args.max_nodes.unwrap_or(5_000_000);
    let reps = args.reps.unwrap_or(9);
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench-results"));
    let configs = scaling::configs(max_nodes);
    let (one, all) = (pool(1), pool(threads));
    let load_before = loadavg();
    eprintln!(
        "flat-bench --scaling: {} configurations of 10^6..{max_nodes} nodes, 1 and {threads} \
         threads, {reps} interleaved repetitions; load average {load_before}",
        configs.len()
    );
    println!("{}", scaling::table_header(threads));
    let start = Instant::now();
    let mut rows = Vec::with_capacity(configs.len());
    for c in &configs {
        if start.elapsed() > SCALING_BUDGET {
            eprintln!(
                "flat-bench: time budget spent, skipping the remaining {} configurations",
                configs.len() - rows.len()
            );
            break;
        }
        let r = scaling::measure(*c, &one, &all, reps);
        println!("{}", scaling::table_row(&r));
        rows.push(r);
    }
    let context = format!(
        "Command: `cargo run --release -p treefuse-flat --bin flat-bench -- --scaling{}{}`. \
         {} of {} configurations (10^6..{max_nodes} nodes), {threads} hardware threads, \
         {reps} interleaved repetitions, medians; the run took {:.0} s. Load average (1, 5, \
         15 min) before: {load_before}; after: {}. GLIBC_TUNABLES={}.",
        if max_nodes != 5_000_000 {
            format!(" --max-nodes {max_nodes}")
        } else {
            String::new()
        },
        if reps != 9 {
            format!(" --reps {reps}")
        } else {
            String::new()
        },
        rows.len(),
        configs.len(),
        start.elapsed().as_secs_f64(),
        loadavg(),
        std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| "(unset)".to_string())
    );
    let path = out_dir.join("scaling.md");
    let written = std::fs::create_dir_all(&out_dir)
        .and_then(|()| std::fs::write(&path, scaling::markdown(&rows, threads, &context)));
    match written {
        Ok(()) => eprintln!("{context}\nwrote {}", path.display()),
        Err(e) => eprintln!("cannot write {}: {e}", path.display()),
    }
    println!("{}", scaling::closing_lines(&rows));
}

/// What the report needs to know about the run.
struct Run {
    quick: bool,
    max_nodes: u64,
    min_time: f64,
    threads: usize,
    out_dir: PathBuf,
    load_before: String,
    planned: usize,
}

/// Writes `results.md`, `results.csv` and `heatmap.svg`; returns the
/// Markdown.
fn write_reports(
    run: &Run,
    results: &[Measurement],
    start: Instant,
    partial: bool,
) -> Result<String, String> {
    let elapsed = start.elapsed().as_secs_f64();
    let status = if partial {
        format!(
            "PARTIAL RUN: {} of {} configurations measured so far. ",
            results.len(),
            run.planned
        )
    } else {
        String::new()
    };
    let context = format!(
        "{status}Command: `cargo run --release -p treefuse-flat --bin flat-bench --{}{}`. \
         {} configurations (depth and branching in 1..32, at most {} nodes), \
         {} hardware threads, at least {} s and 3 repetitions per algorithm and \
         configuration (one when a run takes over 2 s); the run took {elapsed:.0} s. \
         Load average (1, 5, 15 min) before the run: {}; at the end: {}. The machine was \
         shared with other work, so timings, especially the 2-thread ones, are noisy. \
         GLIBC_TUNABLES={}.",
        if run.quick { " --quick" } else { "" },
        if run.max_nodes != 30_000_000 && !run.quick {
            format!(" --max-nodes {}", run.max_nodes)
        } else {
            String::new()
        },
        results.len(),
        run.max_nodes,
        run.threads,
        run.min_time,
        run.load_before,
        loadavg(),
        std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| "(unset)".to_string())
    );
    std::fs::create_dir_all(&run.out_dir)
        .map_err(|e| format!("cannot create {}: {e}", run.out_dir.display()))?;
    let md = bench::markdown(results, run.threads, &context);
    let files = [
        ("results.md", md.clone()),
        ("results.csv", bench::csv(results)),
        (
            "heatmap.svg",
            bench::svg(
                results,
                run.threads,
                "Key-based expression flattening vs recursive baselines (speedup by depth x branching)",
            ),
        ),
    ];
    for (name, text) in files {
        let p = run.out_dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    Ok(md)
}

/// The first three fields of `/proc/loadavg`, or "unknown".
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}
