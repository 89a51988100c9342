//! The long-running fusion soundness fuzzer.
//!
//! ```text
//! fuzz-fusion --pairs N [--seed S] [--threads T] [--trees K] [--nodes M]
//!             [--out DIR] [--keep-going] [--no-loop-returns]
//!             [--private-globals] [--print SEED] [--stats SEED]
//! ```
//! Program `i` is generated from seed `S + i` and run on `K` random trees
//! (about `M` nodes) per `fuse` item, unfused and fused (default and small
//! cut-offs), and fused with the parallel loops split on the rayon pool
//! (every element a chunk), which must match the fused run exactly. The first mismatch is minimized and written to `DIR`
//! (default `fuzz-findings/`) as `.tf`, `.json` and `.txt`; the exit status
//! is then 1. A program that does not compile is reported the same way
//! (exit 2). With `--keep-going` every mismatch is recorded and the run
//! goes on; the first few are minimized at the end. `--no-loop-returns`
//! generates no `return` inside `for` loops (to steer around a known bug).
//! `--print SEED` prints a program; `--stats SEED` times and checks one.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use treefuse_progen::{
    check_program, generate_with, minimize, GenConfig, Mismatch, MismatchKind, Stats,
};

struct Args {
    pairs: u64,
    seed: u64,
    threads: usize,
    trees: usize,
    nodes: usize,
    out: String,
    keep_going: bool,
    gen: GenConfig,
}

fn usage() -> ! {
    eprintln!(
        "usage: fuzz-fusion --pairs N [--seed S] [--threads T] [--trees K] [--nodes M] [--out DIR] [--keep-going] [--no-loop-returns] [--private-globals] [--print SEED] [--stats SEED]"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let mut a = Args {
        pairs: 10_000,
        seed: 0,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        trees: 8,
        nodes: 24,
        out: "fuzz-findings".into(),
        keep_going: false,
        gen: GenConfig::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| s.parse::<u64>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--pairs" => a.pairs = num(val()),
            "--seed" => a.seed = num(val()),
            "--threads" => a.threads = num(val()).max(1) as usize,
            "--trees" => a.trees = num(val()).max(1) as usize,
            "--nodes" => a.nodes = num(val()).max(1) as usize,
            "--out" => a.out = val(),
            "--keep-going" => a.keep_going = true,
            "--no-loop-returns" => a.gen.loop_returns = false,
            // Programs whose traversals keep to a commutative counter and
            // a write-first scratch global (`GenConfig::private_globals`),
            // as the parallel differential tests use.
            "--private-globals" => a.gen.private_globals = true,
            "--stats" => {
                let seed = num(val());
                let src = generate_with(seed, &a.gen);
                let t0 = Instant::now();
                if let Ok(p) = treefuse::compile_source("p.tf", &src) {
                    let t1 = Instant::now();
                    let f = p.fuse_all(&Default::default());
                    println!(
                        "{} lines, compile {:?}, fuse {:?} ({} fused functions)",
                        src.lines().count(),
                        t1 - t0,
                        t1.elapsed(),
                        f.functions.len()
                    );
                }
                let t0 = Instant::now();
                let r = check_program(&src, a.trees, a.nodes, seed);
                match r {
                    Ok(s) => println!("{s:?} in {:?}", t0.elapsed()),
                    Err(m) => println!("{m}"),
                }
                std::process::exit(0)
            }
            "--print" => {
                print!("{}", generate_with(num(val()), &a.gen));
                std::process::exit(0)
            }
            _ => usage(),
        }
    }
    a
}

fn save(dir: &str, seed: u64, m: &Mismatch, original: &Mismatch) -> std::io::Result<String> {
    std::fs::create_dir_all(dir)?;
    let stem = format!("{dir}/seed-{seed}");
    std::fs::write(format!("{stem}.tf"), &m.source)?;
    std::fs::write(format!("{stem}.json"), &m.tree_json)?;
    std::fs::write(
        format!("{stem}.txt"),
        format!(
            "program seed {seed}\nkind {:?}\nfuse {}\nmax_group {} max_repeat {}\n{}\n\n--- before minimization\n{original}",
            m.kind, m.fuse, m.options.max_group, m.options.max_repeat, m.difference
        ),
    )?;
    Ok(stem)
}

fn main() {
    let args = Arc::new(parse());
    let next = Arc::new(AtomicU64::new(0));
    let pairs = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(Mutex::new(Stats::default()));
    let findings: Arc<Mutex<Vec<(u64, Mismatch)>>> = Arc::new(Mutex::new(Vec::new()));
    let slowest = Arc::new(Mutex::new((Duration::ZERO, 0u64)));
    // Panics are findings; keep their default report short.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("panic: {info}");
    }));
    let start = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..args.threads {
        let (args, next, pairs, stop, total, findings, slowest) = (
            args.clone(),
            next.clone(),
            pairs.clone(),
            stop.clone(),
            total.clone(),
            findings.clone(),
            slowest.clone(),
        );
        // The interpreter grows its stack in segments when it runs low;
        // give the workers a main-thread-sized stack so that it rarely does.
        let builder = std::thread::Builder::new().stack_size(64 << 20);
        handles.push(
            builder
                .spawn(move || {
                    let mut local = Stats::default();
                    while !stop.load(Ordering::Relaxed)
                        && pairs.load(Ordering::Relaxed) < args.pairs
                    {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let seed = args.seed.wrapping_add(i);
                        let src = generate_with(seed, &args.gen);
                        let t0 = Instant::now();
                        match check_program(&src, args.trees, args.nodes, seed) {
                            Ok(s) => {
                                pairs.fetch_add(s.pairs as u64, Ordering::Relaxed);
                                local.add(&s);
                                let dt = t0.elapsed();
                                let mut sl = slowest.lock().unwrap();
                                if dt > sl.0 {
                                    *sl = (dt, seed);
                                }
                            }
                            Err(m) => {
                                if args.keep_going {
                                    eprintln!("MISMATCH in program seed {seed}: {}", m.difference);
                                    findings.lock().unwrap().push((seed, m));
                                } else if !stop.swap(true, Ordering::SeqCst) {
                                    findings.lock().unwrap().push((seed, m));
                                }
                            }
                        }
                        if local.programs >= 50 {
                            total.lock().unwrap().add(&local);
                            local = Stats::default();
                        }
                    }
                    total.lock().unwrap().add(&local);
                })
                .expect("cannot start a worker thread"),
        );
    }
    let report = |done: bool| {
        let t = total.lock().unwrap().clone();
        let el = start.elapsed().as_secs_f64();
        let p = pairs.load(Ordering::Relaxed);
        let sl = *slowest.lock().unwrap();
        eprintln!(
            "{}pairs {p}/{} ({:.0}/s, {:.0}s) programs ~{} | unfused errors {:.1}% (div {} cast {} index {}) | visits fused/unfused {:.3} (small cut-offs {:.3}), fewer {} more {} | split loops {} (chains {}, rerun {}) | slowest program {:.2}s (seed {})",
            if done { "done: " } else { "" },
            args.pairs,
            p as f64 / el.max(1e-9),
            el,
            next.load(Ordering::Relaxed),
            100.0 * t.errors as f64 / t.pairs.max(1) as f64,
            t.div_errors,
            t.cast_errors,
            t.index_errors,
            t.fused_visits as f64 / t.unfused_visits.max(1) as f64,
            t.small_fused_visits as f64 / t.unfused_visits.max(1) as f64,
            t.fewer_visits,
            t.more_visits,
            t.split_loops,
            t.split_chains,
            t.split_reruns,
            sl.0.as_secs_f64(),
            sl.1,
        );
        let _ = std::io::stderr().flush();
    };
    while handles.iter().any(|h| !h.is_finished()) {
        std::thread::sleep(Duration::from_millis(200));
        if start.elapsed().as_secs() % 10 == 0 && start.elapsed().subsec_millis() < 200 {
            report(false);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    report(true);
    let found = std::mem::take(&mut *findings.lock().unwrap());
    if !found.is_empty() {
        let seeds: Vec<u64> = found.iter().map(|f| f.0).collect();
        eprintln!(
            "{} MISMATCH(ES) in {} pairs from seed {}; program seeds {seeds:?}",
            found.len(),
            pairs.load(Ordering::Relaxed),
            args.seed
        );
        let mut status = 1;
        for (k, (seed, m)) in found.iter().enumerate() {
            if m.kind == MismatchKind::Compile {
                status = 2;
            }
            eprintln!("MISMATCH in program seed {seed}:\n{m}");
            // Minimize the first few; save the rest as found.
            let small = if k < 5 {
                minimize(
                    m,
                    Duration::from_secs(if found.len() == 1 { 300 } else { 60 }),
                )
            } else {
                m.clone()
            };
            match save(&args.out, *seed, &small, m) {
                Ok(stem) => eprintln!("reproducer written to {stem}.tf/.json/.txt"),
                Err(e) => eprintln!("cannot write the reproducer: {e}"),
            }
            eprintln!("minimized:\n{small}");
        }
        std::process::exit(status);
    }
    eprintln!(
        "no mismatch: {} pairs from seed {} (programs {}..{})",
        pairs.load(Ordering::Relaxed),
        args.seed,
        args.seed,
        args.seed + next.load(Ordering::Relaxed)
    );
}
