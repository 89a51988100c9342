//! The flagship benchmark: a compiler middle end over a three-family AST
//! (`Program`/`Function`, `Stmt`, `Expr`; see `treefuse_rewrite::middle`)
//! with six rules, on a random program of 10^6 nodes.
//!
//! ```text
//! cargo run --release -p treefuse-rewrite --example middle_end -- [--quick] [--nodes N] [--reps R] [--seed S] [--no-cachegrind]
//! ```
//!
//! Variants, each on a fresh copy of the same program, timed alternately in
//! one process (the order rotates every repetition), as thread CPU time:
//!
//! * `hand`: the six rewrites in one hand-written traversal (`hand_fused`);
//! * `fused`: the library, all six rules fused (one traversal over the
//!   whole family, stack growth on: the default configuration);
//! * `separate`: six hand-written passes one after the other (`separate`);
//! * `one_by_one`: the library, each rule its own traversal;
//! * `fused_nogrow`: `fused` with stack growth off (no stack check per
//!   node, replaced nodes dropped by their own recursive `Drop`): what the
//!   default's depth safety costs.
//!
//! Results are checked outside the timed region: `fused` equals `hand`
//! (tree and context), `one_by_one` equals `separate`. Then, if valgrind is
//! installed, the example runs itself under cachegrind once per variant
//! (`--cachegrind-child VARIANT`) and reports instructions, minus a run that
//! only builds and copies the program. Medians of times; the last line is
//! `fused/hand = R1, separate/fused = R2`.
//!
//! `--quick`: 10^6 nodes, 5 repetitions, cachegrind on 2·10^5 nodes (under
//! a minute). Default: 10^6 nodes, 21 repetitions, cachegrind on 10^6.

use std::hint::black_box;
use std::process::Command;

#[path = "support/clock.rs"]
mod clock;
use clock::Clock;

use treefuse_rewrite::middle::{generate, hand_fused, rules, separate, MiddleStats, Program};
use treefuse_rewrite::{deep_eq, node_count, PassManager};

const VARIANTS: [(&str, &str); 5] = [
    ("hand", "hand-fused (one hand-written traversal)"),
    ("fused", "library fused (one traversal)"),
    ("separate", "six separate hand-written passes"),
    ("one_by_one", "library one-by-one (six traversals)"),
    ("fused_nogrow", "library fused, stack growth off"),
];

struct Args {
    nodes: usize,
    reps: usize,
    seed: u64,
    cachegrind_nodes: Option<usize>,
    child: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        nodes: 1_000_000,
        reps: 21,
        seed: 7,
        cachegrind_nodes: Some(1_000_000),
        child: None,
    };
    let mut it = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> Result<u64, String> {
        v.ok_or(format!("{what} needs a value"))?
            .replace('_', "")
            .parse()
            .map_err(|e| format!("{what}: {e}"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => {
                args.reps = 5;
                args.cachegrind_nodes = args.cachegrind_nodes.map(|_| 200_000);
            }
            "--nodes" => args.nodes = num(it.next(), "--nodes")? as usize,
            "--reps" => args.reps = (num(it.next(), "--reps")? as usize).max(1),
            "--seed" => args.seed = num(it.next(), "--seed")?,
            "--no-cachegrind" => args.cachegrind_nodes = None,
            "--cachegrind-child" => args.child = it.next(),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

type Manager = PassManager<
    treefuse_rewrite::middle::Middle,
    <treefuse_rewrite::middle::MiddleRules as treefuse_rewrite::IntoRuleSet>::Rules,
>;

fn manager() -> Manager {
    match PassManager::new(rules()) {
        Ok(pm) => pm,
        Err(e) => panic!("the middle end's rules are ordered: {e}"),
    }
}

/// Runs variant `v` on `p` (`pms`: growing and not growing managers).
fn run(v: usize, p: &mut Program, ctx: &mut MiddleStats, pms: &mut [Manager; 2]) {
    let r = match v {
        0 => hand_fused(p, ctx).map_err(|e| format!("{e:?}")),
        1 => pms[0].fused(p, ctx).map_err(|e| e.to_string()),
        2 => separate(p, ctx).map_err(|e| format!("{e:?}")),
        3 => pms[0].one_by_one(p, ctx).map_err(|e| e.to_string()),
        _ => pms[1].fused(p, ctx).map_err(|e| e.to_string()),
    };
    if let Err(e) = r {
        panic!("{}: {e}", VARIANTS[v].0);
    }
}

fn median(xs: &mut [u64]) -> u64 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

/// Child mode: build the program, copy it, run one variant (or none).
fn cachegrind_child(variant: &str, nodes: usize, seed: u64) {
    let input = generate(seed, nodes);
    let mut p = input.clone();
    let mut ctx = MiddleStats::default();
    let mut pms = [manager(), manager().with_stack_growth(false)];
    if let Some(v) = VARIANTS.iter().position(|(n, _)| *n == variant) {
        run(v, &mut p, &mut ctx, &mut pms);
    }
    black_box((&p, &ctx));
}

/// Instructions executed by `--cachegrind-child variant`, from valgrind's
/// summary line.
fn instructions(variant: &str, nodes: usize, seed: u64) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .args(["--cachegrind-child", variant, "--nodes"])
        .arg(nodes.to_string())
        .args(["--seed", &seed.to_string()])
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| {
        let l = l.rsplit("==").next().unwrap_or(l).trim_start();
        l.starts_with("I ") && l.contains("refs:")
    })?;
    line.rsplit(':')
        .next()?
        .trim()
        .replace(',', "")
        .parse()
        .ok()
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("middle_end: {e}");
            std::process::exit(2);
        }
    };
    if let Some(v) = &args.child {
        cachegrind_child(v, args.nodes, args.seed);
        return;
    }

    let input = generate(args.seed, args.nodes);
    let nodes = node_count(&input);
    println!(
        "middle end, 6 rules, 3 node families: program of {} functions, {nodes} nodes (seed {})",
        input.functions.len(),
        args.seed
    );
    let mut clock = Clock::new();
    let mut pms = [manager(), manager().with_stack_growth(false)];
    let mut times: Vec<Vec<u64>> = vec![Vec::new(); VARIANTS.len()];
    for rep in 0..args.reps {
        let mut outputs: Vec<Option<(Program, MiddleStats)>> = vec![None; VARIANTS.len()];
        for k in 0..VARIANTS.len() {
            let v = (k + rep) % VARIANTS.len();
            let mut p = input.clone();
            let mut ctx = MiddleStats::default();
            let start = clock.now();
            run(v, &mut p, &mut ctx, &mut pms);
            times[v].push(clock.now() - start);
            outputs[v] = Some((black_box(p), ctx));
        }
        for (a, b) in [(0, 1), (2, 3), (0, 4)] {
            if let (Some((pa, ca)), Some((pb, cb))) = (&outputs[a], &outputs[b]) {
                assert!(
                    deep_eq(pa, pb) && ca == cb,
                    "{} and {} disagree",
                    VARIANTS[a].0,
                    VARIANTS[b].0
                );
            }
        }
    }
    if let Some((p, ctx, fired)) = &outputs_summary(&input) {
        println!(
            "after the fused pass: {} nodes; folded {}, unreachable statements removed {}; fired {fired:?}",
            node_count(p),
            ctx.folded,
            ctx.unreachable,
        );
    }
    let medians: Vec<u64> = times.iter_mut().map(|t| median(t)).collect();
    println!(
        "{} repetitions, medians of {}; machine load {}",
        args.reps,
        if clock.is_cpu_time() {
            "thread CPU time"
        } else {
            "wall-clock time"
        },
        std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".into())
    );
    let instr: Vec<Option<u64>> = match args.cachegrind_nodes {
        Some(n) => {
            let base = instructions("none", n, args.seed);
            VARIANTS
                .iter()
                .map(|(v, _)| {
                    let total = instructions(v, n, args.seed)?;
                    Some(total.saturating_sub(base?))
                })
                .collect()
        }
        None => vec![None; VARIANTS.len()],
    };
    if let Some(n) = args.cachegrind_nodes {
        if instr.iter().all(Option::is_some) {
            println!("instructions: cachegrind on a {n}-node program of the same seed (minus building and copying it)");
        } else {
            println!("instructions: valgrind not available");
        }
    }
    for (v, (_, what)) in VARIANTS.iter().enumerate() {
        let ins = match instr[v] {
            Some(i) => format!("{:>14} instr", group_digits(i)),
            None => String::new(),
        };
        println!(
            "  {what:<40} {:>9.2} ms {:>7.2} ns/node {ins}",
            medians[v] as f64 / 1e6,
            medians[v] as f64 / nodes as f64
        );
    }
    let ratio = |a: usize, b: usize| medians[a] as f64 / medians[b] as f64;
    let iratio = |a: usize, b: usize| match (instr[a], instr[b]) {
        (Some(x), Some(y)) if y > 0 => format!("{:.3}", x as f64 / y as f64),
        _ => "n/a".into(),
    };
    println!(
        "time: fused/hand {:.3} (target <= 1.05), separate/fused {:.3} (target >= 2.5), one_by_one/separate {:.3}, fused_nogrow/hand {:.3}",
        ratio(1, 0),
        ratio(2, 1),
        ratio(3, 2),
        ratio(4, 0)
    );
    println!(
        "instructions: fused/hand {} (target <= 1.10), separate/fused {}, one_by_one/separate {}, fused_nogrow/hand {}",
        iratio(1, 0),
        iratio(2, 1),
        iratio(3, 2),
        iratio(4, 0)
    );
    println!(
        "fused/hand = {:.2}, separate/fused = {:.2}",
        ratio(1, 0),
        ratio(2, 1)
    );
}

/// What fired, per rule.
type Fired = Vec<(&'static str, u64)>;

/// The fused result of the input and what fired, for the summary line.
fn outputs_summary(input: &Program) -> Option<(Program, MiddleStats, Fired)> {
    let mut p = input.clone();
    let mut ctx = MiddleStats::default();
    let mut pm = manager();
    pm.fused(&mut p, &mut ctx).ok()?;
    Some((p, ctx, pm.stats().fired))
}

fn group_digits(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
