//! `scopes-bench`: scope resolution over programs of 10^5 and 10^6 nodes
//! (`examples/scopes/scopes.tf`, inputs from `treefuse gen-example
//! scopes`), which passes a persistent map environment down the tree and
//! extends it across the statements of every block. Engines, side by side
//! in one run:
//!
//! - `generated`: the Rust that treefuse-codegen writes for the program
//!   (the `fuse` item as written; it is one traversal, so the fused code is
//!   the same traversal and `generated-fused` is shown as well);
//! - `hand`: the same pass written by hand (`src/hand_scopes.rs`) on the
//!   same tree layout with the same map type (`ValueMap`);
//! - `interpreter`: treefuse's interpreter (unfused) on its own tree.
//!
//! For each size the input is generated once (seeded), every engine's
//! result is checked equal to the hand-written one, and then the engines
//! run alternately, each on a fresh copy of the tree (copied outside the
//! timed region), in an order that rotates every iteration; times are
//! medians. Then, per engine, the binary runs itself with `--only ENGINE`
//! (one run in a fresh process) to read its peak resident set: the
//! resident set after building the input and dropping everything the
//! engine does not need (its tree, `VmRSS`), and the peak while the engine
//! runs (`VmHWM`, reset after the build through `/proc/self/clear_refs`).
//! With `--cachegrind SIZES` it also runs itself under `valgrind
//! --tool=cachegrind --cache-sim=no` once per engine, and once with
//! `--only build-ENGINE` (the same build, no run), and reports the
//! difference: the instructions of the engine alone.
//!
//! ```text
//! scopes-bench [--sizes 100000,1000000] [--iters N] [--interp-iters N]
//!              [--seed S] [--cachegrind SIZES] [--out FILE]
//! ```

use std::io::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod scopes {
    include!(concat!(env!("OUT_DIR"), "/scopes.rs"));
}

#[path = "../hand_scopes.rs"]
mod hand_scopes;

/// The engines, in table order.
const ENGINES: [&str; 4] = ["generated", "generated-fused", "hand", "interpreter"];

struct Args {
    sizes: Vec<usize>,
    iters: usize,
    interp_iters: usize,
    seed: u64,
    cachegrind: Vec<usize>,
    out: Option<String>,
    only: Option<(String, usize)>,
}

fn usage() -> ! {
    eprintln!(
        "usage: scopes-bench [--sizes 100000,1000000] [--iters N] [--interp-iters N] [--seed S] \
         [--cachegrind SIZES] [--out FILE]"
    );
    std::process::exit(2)
}

fn sizes(s: &str) -> Vec<usize> {
    s.split(',')
        .map(|x| x.trim().parse().unwrap_or_else(|_| usage()))
        .collect()
}

fn parse() -> Args {
    let mut a = Args {
        sizes: vec![100_000, 1_000_000],
        iters: 7,
        interp_iters: 3,
        seed: 7,
        cachegrind: Vec::new(),
        out: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    let mut only_engine = None;
    let mut only_size = None;
    while let Some(flag) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--sizes" => a.sizes = sizes(&val()),
            "--iters" => a.iters = val().parse().unwrap_or_else(|_| usage()),
            "--interp-iters" => a.interp_iters = val().parse().unwrap_or_else(|_| usage()),
            "--seed" => a.seed = val().parse().unwrap_or_else(|_| usage()),
            "--cachegrind" => a.cachegrind = sizes(&val()),
            "--out" => a.out = Some(val()),
            "--only" => only_engine = Some(val()),
            "--size" => only_size = Some(val().parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    if let Some(e) = only_engine {
        a.only = Some((e, only_size.unwrap_or_else(|| usage())));
    }
    a
}

/// The input of one size, in every engine's representation.
struct Input {
    program: treefuse::Program,
    runtime_tree: treefuse::Tree,
    tree: scopes::Tree,
}

fn input_json(size: usize, seed: u64) -> String {
    treefuse_casegen::generate_string("scopes", 1, size, seed)
        .unwrap_or_else(|e| panic!("generating the input: {e}"))
}

fn program() -> treefuse::Program {
    treefuse::compile_source("scopes.tf", scopes::SOURCE).unwrap_or_else(|d| panic!("{d}"))
}

fn build(size: usize, seed: u64) -> Input {
    let json = input_json(size, seed);
    let program = program();
    let runtime_tree = program
        .read_tree("resolve", &json)
        .unwrap_or_else(|e| panic!("reading the input: {e}"));
    let tree = scopes::Tree::from_runtime(&runtime_tree);
    Input {
        program,
        runtime_tree,
        tree,
    }
}

fn run_generated(t: &mut scopes::Tree, fused: bool) -> scopes::Globals {
    let mut g = scopes::Globals::default();
    let r = if fused {
        scopes::run_resolve_fused(t, &mut g)
    } else {
        scopes::run_resolve_unfused(t, &mut g)
    };
    if let Err(e) = r {
        panic!("generated code failed: {e}");
    }
    g
}

fn run_hand(t: &mut scopes::Tree) -> scopes::Globals {
    let mut g = scopes::Globals::default();
    hand_scopes::run(t, &mut g);
    g
}

fn run_interpreter(p: &treefuse::Program, t: &mut treefuse::Tree) -> Vec<treefuse::sema::Value> {
    match p.run_tree_with(
        "resolve",
        t,
        Vec::new(),
        &treefuse::Host::new(),
        treefuse::Engine::Unfused,
    ) {
        Ok((_, globals)) => globals,
        Err(e) => panic!("the interpreter failed: {e}"),
    }
}

/// Every engine computes the hand-written pass's tree and globals.
fn check(input: &Input) -> scopes::Globals {
    let mut want = input.tree.clone();
    let globals = run_hand(&mut want);
    for fused in [false, true] {
        let mut t = input.tree.clone();
        let g = run_generated(&mut t, fused);
        assert!(
            t == want && g == globals,
            "generated (fused: {fused}) differs from hand-written"
        );
    }
    let mut rt = input.runtime_tree.clone();
    let g = run_interpreter(&input.program, &mut rt);
    let t = scopes::Tree::from_runtime(&rt);
    assert!(
        t == want && scopes::Globals::from_values(&g) == globals,
        "the interpreter differs from hand-written"
    );
    globals
}

fn time_engine(input: &Input, engine: &str) -> Duration {
    match engine {
        "interpreter" => {
            let mut t = input.runtime_tree.clone();
            let start = Instant::now();
            std::hint::black_box(run_interpreter(&input.program, &mut t));
            start.elapsed()
        }
        _ => {
            let mut t = input.tree.clone();
            let start = Instant::now();
            match engine {
                "hand" => std::hint::black_box(run_hand(&mut t)),
                "generated-fused" => std::hint::black_box(run_generated(&mut t, true)),
                _ => std::hint::black_box(run_generated(&mut t, false)),
            };
            start.elapsed()
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A field of `/proc/self/status` in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `--only ENGINE --size N`: build what the engine needs, drop the rest,
/// run it once (unless ENGINE is `build-...`), print the resident sets.
fn only(engine: &str, size: usize, seed: u64) {
    let (build_only, engine) = match engine.strip_prefix("build-") {
        Some(e) => (true, e),
        None => (false, engine),
    };
    let rss_before;
    if engine == "interpreter" {
        let json = input_json(size, seed);
        let program = program();
        let mut t = program
            .read_tree("resolve", &json)
            .unwrap_or_else(|e| panic!("reading the input: {e}"));
        drop(json);
        reset_peak();
        rss_before = status_kib("VmRSS:");
        if !build_only {
            std::hint::black_box(run_interpreter(&program, &mut t));
        }
    } else {
        let json = input_json(size, seed);
        let program = program();
        let rt = program
            .read_tree("resolve", &json)
            .unwrap_or_else(|e| panic!("reading the input: {e}"));
        drop(json);
        let mut t = scopes::Tree::from_runtime(&rt);
        drop(rt);
        drop(program);
        reset_peak();
        rss_before = status_kib("VmRSS:");
        if !build_only {
            match engine {
                "hand" => {
                    std::hint::black_box(run_hand(&mut t));
                }
                "generated-fused" => {
                    std::hint::black_box(run_generated(&mut t, true));
                }
                _ => {
                    std::hint::black_box(run_generated(&mut t, false));
                }
            }
        }
    }
    println!(
        "rss_before_kib {rss_before} peak_kib {}",
        status_kib("VmHWM:")
    );
}

/// Resets the peak resident set (`VmHWM`) to the current one.
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Runs this binary with `--only ENGINE --size N` (under `wrapper`, if
/// any) and returns its stdout.
fn run_self(wrapper: &[String], engine: &str, size: usize, seed: u64) -> String {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no own path: {e}"));
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = Command::new(w);
            c.args(rest).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    cmd.args([
        "--only",
        engine,
        "--size",
        &size.to_string(),
        "--seed",
        &seed.to_string(),
    ]);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {exe:?} --only {engine}: {e}"));
    assert!(
        out.status.success(),
        "--only {engine} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (resident set after the build, peak during the run) in KiB.
fn rss(engine: &str, size: usize, seed: u64) -> (u64, u64) {
    let text = run_self(&[], engine, size, seed);
    let words: Vec<&str> = text.split_whitespace().collect();
    let num = |i: usize| words.get(i).and_then(|w| w.parse().ok()).unwrap_or(0);
    (num(1), num(3))
}

/// Instructions of one engine run: cachegrind's total for `--only
/// ENGINE` minus the one for `--only build-ENGINE`.
fn instructions(engine: &str, size: usize, seed: u64) -> u64 {
    let count = |what: &str| -> u64 {
        let file = std::env::temp_dir().join(format!(
            "scopes-bench-{}-{what}-{size}.cg",
            std::process::id()
        ));
        let wrapper = vec![
            "valgrind".to_string(),
            "--tool=cachegrind".to_string(),
            "--cache-sim=no".to_string(),
            format!("--cachegrind-out-file={}", file.display()),
        ];
        run_self(&wrapper, what, size, seed);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let _ = std::fs::remove_file(&file);
        text.lines()
            .find_map(|l| l.strip_prefix("summary:"))
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no cachegrind summary for {what}"))
    };
    let run = count(engine);
    let build = count(&format!("build-{engine}"));
    run.saturating_sub(build)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let args = parse();
    if let Some((engine, size)) = &args.only {
        only(engine, *size, args.seed);
        return;
    }
    let mut report = String::new();
    let mut line = |s: String| {
        println!("{s}");
        report.push_str(&s);
        report.push('\n');
    };
    line(format!(
        "# Scope resolution (examples/scopes/scopes.tf), seed {}\n",
        args.seed
    ));
    line(format!("load average at start: {}\n", load()));
    line("| nodes | engine | median time | / hand | runs | visits/s | resident after build | peak while running | instructions | / hand |".into());
    line("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|".into());
    for &size in &args.sizes {
        let input = build(size, args.seed);
        let globals = check(&input);
        let nodes = input.tree.program.len() + input.tree.stmt.len() + input.tree.expr.len();
        eprintln!(
            "{nodes} nodes: checked, {} unresolved uses, {} declarations",
            globals.unresolved, globals.slots
        );
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); ENGINES.len()];
        for i in 0..args.iters.max(1) {
            for k in 0..ENGINES.len() {
                let e = (i + k) % ENGINES.len();
                if ENGINES[e] == "interpreter" && times[e].len() >= args.interp_iters.max(1) {
                    continue;
                }
                times[e].push(time_engine(&input, ENGINES[e]));
            }
        }
        drop(input);
        let medians: Vec<Duration> = times.iter().map(|t| median(t.clone())).collect();
        let hand = medians[2].as_secs_f64();
        let with_cachegrind = args.cachegrind.contains(&size);
        let counts: Vec<Option<u64>> = ENGINES
            .iter()
            .map(|e| with_cachegrind.then(|| instructions(e, size, args.seed)))
            .collect();
        for (e, engine) in ENGINES.iter().enumerate() {
            let (after_build, peak) = rss(engine, size, args.seed);
            let t = medians[e].as_secs_f64();
            let (ins, ins_ratio) = match (counts[e], counts[2]) {
                (Some(c), Some(h)) if h > 0 => {
                    (format!("{c}"), format!("{:.2}", c as f64 / h as f64))
                }
                _ => ("–".into(), "–".into()),
            };
            line(format!(
                "| {nodes} | {engine} | {:.1} ms | {:.2} | {} | {:.2e} | {:.1} MiB | {:.1} MiB | {ins} | {ins_ratio} |",
                t * 1e3,
                t / hand,
                times[e].len(),
                nodes as f64 / t,
                after_build as f64 / 1024.0,
                peak as f64 / 1024.0,
            ));
        }
    }
    line(format!("\nload average at end: {}", load()));
    if let Some(path) = &args.out {
        let mut f = std::fs::File::create(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let _ = f.write_all(report.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    /// The check that runs before every measurement: generated code
    /// (unfused and fused) and the interpreter leave the hand-written
    /// pass's tree and globals.
    #[test]
    fn every_engine_computes_the_hand_written_result() {
        for seed in 0..3 {
            let globals = super::check(&super::build(5_000, seed));
            assert!(globals.slots > 0 && globals.unresolved > 0, "{globals:?}");
        }
    }
}
