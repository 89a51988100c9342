//! The paper's benchmark (Section 6, Figure 1) on this machine's CPU.
//!
//! # Why the module is shaped this way
//!
//! The paper times expression flattening on complete trees over a grid of
//! depth x branching factor, for every combination that fits in memory, and
//! compares the Key-based algorithm with the functional and the mutation
//! recursive algorithms. This module holds everything except the command
//! line (which is `src/bin/flat-bench.rs`) so that it can be tested:
//!
//! * [`complete_tree`] builds the input columns directly in pre-order;
//! * [`grid`] enumerates the configurations under a node budget;
//! * [`measure`] times the five contenders on one configuration, after
//!   checking that they all produce the same [`crate::lift::Flattened`];
//! * [`markdown`], [`csv`] and [`svg`] write the results: a table, and heat
//!   maps of the speedups in the style of Figure 1 (plain SVG rectangles and
//!   text, no plotting dependency).
//!
//! Trees: internal nodes at even depth are expressions (`E`, the target),
//! at odd depth applications (`A`, not lifted, so keys are not always the
//! parent); leaves alternate variables (`V`) and primitives (`P`). The value
//! of a node is its pre-order index.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::baseline::{flatten_functional, flatten_mutation};
use crate::lift::{flatten_par, flatten_seq, Flattened, LiftSpec};
use crate::tree::{FlatTree, Node, NONE};

/// Kind of expression nodes (the lifting target).
pub const EXPR: u8 = b'E';
/// Kind of application nodes (internal, not lifted).
pub const APP: u8 = b'A';
/// Kind of variable leaves (also the reference kind).
pub const VAR: u8 = b'V';
/// Kind of primitive leaves.
pub const PRIM: u8 = b'P';

/// The lifting specification used by the benchmark.
pub fn spec() -> LiftSpec<u8, u32> {
    LiftSpec {
        target: EXPR,
        reference: VAR,
        header_value: 0,
    }
}

/// Number of nodes of the complete tree of the given depth (edges from the
/// root to a leaf) and branching factor, or `None` on overflow.
pub fn complete_size(depth: u32, branching: u32) -> Option<u64> {
    let mut total: u64 = 0;
    let mut level: u64 = 1;
    for _ in 0..=depth {
        total = total.checked_add(level)?;
        level = level.checked_mul(branching as u64)?;
    }
    Some(total)
}

/// The complete tree of the given depth and branching factor as columns,
/// generated in pre-order without recursion.
///
/// # Panics
/// If the tree would have `u32::MAX` nodes or more.
pub fn complete_tree(depth: u32, branching: u32) -> FlatTree<u8, u32> {
    let n = complete_size(depth, branching).expect("tree size overflows") as usize;
    assert!(n < NONE as usize, "tree too large for u32 indices");
    let mut d = Vec::with_capacity(n);
    let mut kind = Vec::with_capacity(n);
    let mut parent = Vec::with_capacity(n);
    // Stack of (depth, parent index) still to emit, in reverse order.
    let mut stack: Vec<(u32, u32)> = vec![(0, NONE)];
    while let Some((dep, par)) = stack.pop() {
        let me = d.len() as u32;
        d.push(dep);
        parent.push(par);
        let k = if dep == depth || branching == 0 {
            if me & 1 == 0 {
                VAR
            } else {
                PRIM
            }
        } else if dep & 1 == 0 {
            EXPR
        } else {
            APP
        };
        kind.push(k);
        if dep < depth {
            for _ in 0..branching {
                stack.push((dep + 1, me));
            }
        }
    }
    let value = (0..n as u32).collect();
    FlatTree::from_parts(d, kind, value, parent).expect("generated tree is valid")
}

/// One configuration of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Depth (edges from root to leaves).
    pub depth: u32,
    /// Branching factor.
    pub branching: u32,
    /// Number of nodes.
    pub nodes: u64,
}

/// All configurations with depth and branching in `1..32` (the paper's
/// interval, without the degenerate 0) and at most `max_nodes` nodes,
/// restricted to the given branching factors and depths when not empty,
/// ordered by size.
pub fn grid(max_nodes: u64, branchings: &[u32], depths: &[u32]) -> Vec<Config> {
    let mut out = Vec::new();
    for branching in 1..32 {
        if !branchings.is_empty() && !branchings.contains(&branching) {
            continue;
        }
        for depth in 1..32 {
            if !depths.is_empty() && !depths.contains(&depth) {
                continue;
            }
            if let Some(nodes) = complete_size(depth, branching) {
                if nodes <= max_nodes {
                    out.push(Config {
                        depth,
                        branching,
                        nodes,
                    });
                }
            }
        }
    }
    out.sort_by_key(|c| (c.nodes, c.branching));
    out
}

/// The contenders, in table order.
pub const ALGORITHMS: [&str; 5] = [
    "flat-seq",
    "flat-par-1",
    "flat-par-all",
    "functional",
    "mutation",
];

/// Timings of one configuration (seconds, best of the repetitions).
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The configuration.
    pub config: Config,
    /// Best time of each algorithm, in [`ALGORITHMS`] order.
    pub secs: [f64; 5],
    /// Repetitions of each algorithm.
    pub reps: [u32; 5],
}

impl Measurement {
    /// `time(a) / time(b)` for algorithm indices `a` and `b`: how many times
    /// faster `b` is than `a`.
    pub fn ratio(&self, a: usize, b: usize) -> f64 {
        self.secs[a] / self.secs[b]
    }
    /// Speedup of flat-par-all over functional.
    pub fn vs_functional(&self) -> f64 {
        self.ratio(3, 2)
    }
    /// Speedup of flat-par-all over mutation.
    pub fn vs_mutation(&self) -> f64 {
        self.ratio(4, 2)
    }
    /// Speedup of flat-par from one thread to all threads.
    pub fn thread_speedup(&self) -> f64 {
        self.ratio(1, 2)
    }
}

/// Times `f`: at least one run; more until `min_total` has elapsed and at
/// least three runs were made (stopping early only when the runs so far
/// took over two seconds, or at `max_reps`). Returns the best time and the
/// repetitions. The result of the first run is handed to `check`. Taking
/// the best of several runs filters out interference from other processes
/// on a shared machine.
fn time_best<R>(
    mut f: impl FnMut() -> R,
    min_total: Duration,
    max_reps: u32,
    mut check: impl FnMut(R),
) -> (f64, u32) {
    let mut best = f64::INFINITY;
    let mut total = Duration::ZERO;
    let mut reps = 0;
    let enough = |total: Duration, reps: u32| {
        reps >= max_reps
            || (reps >= 1 && total >= Duration::from_secs(2))
            || (reps >= 3 && total >= min_total)
    };
    while !enough(total, reps) {
        let t = Instant::now();
        let r = f();
        let e = t.elapsed();
        if reps == 0 {
            check(r);
        } else {
            drop(r);
        }
        total += e;
        best = best.min(e.as_secs_f64());
        reps += 1;
    }
    (best, reps)
}

/// Times the five algorithms on one configuration, checking that all
/// results agree with flat-seq.
///
/// # Panics
/// If an algorithm disagrees with flat-seq (a bug), or a baseline refuses
/// the tree as too deep (depth is at most 31 here).
pub fn measure(
    config: Config,
    one: &rayon::ThreadPool,
    all: &rayon::ThreadPool,
    min_total: Duration,
) -> Measurement {
    let tree = complete_tree(config.depth, config.branching);
    let forest: Vec<Node<u8, u32>> = tree.to_forest();
    let s = spec();
    let max_reps = 1000;
    let mut secs = [0.0; 5];
    let mut reps = [0; 5];
    let reference: Flattened<u8, u32> = flatten_seq(&tree, &s);
    let same = |name: &str, r: Flattened<u8, u32>| {
        assert!(
            r == reference,
            "{name} disagrees with flat-seq on {config:?}"
        );
    };
    (secs[0], reps[0]) = time_best(
        || flatten_seq(&tree, &s),
        min_total,
        max_reps,
        |r| same("flat-seq", r),
    );
    (secs[1], reps[1]) = time_best(
        || one.install(|| flatten_par(&tree, &s)),
        min_total,
        max_reps,
        |r| same("flat-par-1", r),
    );
    (secs[2], reps[2]) = time_best(
        || all.install(|| flatten_par(&tree, &s)),
        min_total,
        max_reps,
        |r| same("flat-par-all", r),
    );
    (secs[3], reps[3]) = time_best(
        || flatten_functional(&forest, &s).expect("shallow tree"),
        min_total,
        max_reps,
        |r| same("functional", r),
    );
    (secs[4], reps[4]) = time_best(
        || flatten_mutation(&forest, &s).expect("shallow tree"),
        min_total,
        max_reps,
        |r| same("mutation", r),
    );
    Measurement { config, secs, reps }
}

/// Summary statistics of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Configurations with at least `big` nodes.
    pub big_configs: usize,
    /// The size threshold used for the targets (10^5).
    pub big: u64,
    /// Among those, how many reach 10x over functional.
    pub big_10x_functional: usize,
    /// Among those, how many are at least as fast as mutation.
    pub big_1x_mutation: usize,
    /// Smallest node count from which flat-par-all is at least as fast as
    /// mutation on every measured configuration (None if never).
    pub crossover_nodes: Option<u64>,
    /// Smallest and largest speedup over functional at >= `big` nodes.
    pub functional_range: (f64, f64),
    /// Smallest and largest speedup over mutation at >= `big` nodes.
    pub mutation_range: (f64, f64),
    /// Median 1 -> all threads speedup at >= 10^6 nodes (None if none).
    pub median_thread_speedup_1m: Option<f64>,
    /// Best speedups overall: (over functional, over mutation).
    pub best: (f64, f64),
}

/// Summarises measurements (see [`Summary`]).
pub fn summarize(ms: &[Measurement]) -> Summary {
    let big = 100_000;
    let bigs: Vec<&Measurement> = ms.iter().filter(|m| m.config.nodes >= big).collect();
    let range = |f: &dyn Fn(&Measurement) -> f64| {
        bigs.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), m| {
            (lo.min(f(m)), hi.max(f(m)))
        })
    };
    let mut sorted: Vec<&Measurement> = ms.iter().collect();
    sorted.sort_by_key(|m| m.config.nodes);
    // Walk from the largest down while flat-par-all keeps winning.
    let mut crossover = None;
    for m in sorted.iter().rev() {
        if m.vs_mutation() >= 1.0 {
            crossover = Some(m.config.nodes);
        } else {
            break;
        }
    }
    let mut th: Vec<f64> = ms
        .iter()
        .filter(|m| m.config.nodes >= 1_000_000)
        .map(Measurement::thread_speedup)
        .collect();
    th.sort_by(|a, b| a.total_cmp(b));
    Summary {
        big_configs: bigs.len(),
        big,
        big_10x_functional: bigs.iter().filter(|m| m.vs_functional() >= 10.0).count(),
        big_1x_mutation: bigs.iter().filter(|m| m.vs_mutation() >= 1.0).count(),
        crossover_nodes: crossover,
        functional_range: range(&|m| m.vs_functional()),
        mutation_range: range(&|m| m.vs_mutation()),
        median_thread_speedup_1m: th.get(th.len() / 2).copied(),
        best: ms.iter().fold((0.0f64, 0.0f64), |(a, b), m| {
            (a.max(m.vs_functional()), b.max(m.vs_mutation()))
        }),
    }
}

fn ms(x: f64) -> String {
    let v = x * 1e3;
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// The results as a Markdown report: context, summary and the full table.
pub fn markdown(ms_: &[Measurement], threads: usize, context: &str) -> String {
    let s = summarize(ms_);
    let mut o = String::new();
    let _ = writeln!(o, "# flat-bench: expression flattening on complete trees\n");
    let _ = writeln!(o, "{context}\n");
    let _ = writeln!(
        o,
        "Times are the best of the repetitions, in milliseconds. `flat-par-1` and \
         `flat-par-all` run the parallel algorithm in a rayon pool of 1 and {threads} threads. \
         Speedups are of flat-par-all ({threads} threads).\n"
    );
    let _ = writeln!(o, "## Summary\n");
    let _ = writeln!(
        o,
        "- configurations with >= {} nodes: {}",
        s.big, s.big_configs
    );
    let _ = writeln!(
        o,
        "- of those, >= 10x faster than functional: {}; speedup range {:.1}x .. {:.1}x",
        s.big_10x_functional, s.functional_range.0, s.functional_range.1
    );
    let _ = writeln!(
        o,
        "- of those, at least as fast as mutation: {}; speedup range {:.2}x .. {:.2}x",
        s.big_1x_mutation, s.mutation_range.0, s.mutation_range.1
    );
    let _ = writeln!(
        o,
        "- crossover (flat-par-all >= mutation on every configuration from this size up): {}",
        s.crossover_nodes
            .map_or("never".to_string(), |n| format!("{n} nodes"))
    );
    let _ = writeln!(
        o,
        "- median 1 -> {threads} thread speedup at >= 10^6 nodes: {}",
        s.median_thread_speedup_1m
            .map_or("n/a".to_string(), |x| format!("{x:.2}x"))
    );
    let _ = writeln!(
        o,
        "- best speedups: {:.1}x over functional, {:.2}x over mutation",
        s.best.0, s.best.1
    );
    // The same targets for the sequential column algorithm.
    let bigs: Vec<&Measurement> = ms_.iter().filter(|m| m.config.nodes >= s.big).collect();
    let seq_fun: Vec<f64> = bigs.iter().map(|m| m.ratio(3, 0)).collect();
    let seq_mut: Vec<f64> = bigs.iter().map(|m| m.ratio(4, 0)).collect();
    let lo_hi = |v: &[f64]| {
        v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
    };
    let (f_lo, f_hi) = lo_hi(&seq_fun);
    let (m_lo, m_hi) = lo_hi(&seq_mut);
    let _ = writeln!(
        o,
        "- flat-seq (no threads) at >= {} nodes: >= 10x over functional in {} of {}, range \
         {f_lo:.1}x .. {f_hi:.1}x; >= 1x over mutation in {} of {}, range {m_lo:.2}x .. {m_hi:.2}x\n",
        s.big,
        seq_fun.iter().filter(|&&x| x >= 10.0).count(),
        bigs.len(),
        seq_mut.iter().filter(|&&x| x >= 1.0).count(),
        bigs.len()
    );
    let _ = writeln!(o, "## All configurations\n");
    let _ = writeln!(
        o,
        "| depth | branching | nodes | flat-seq | flat-par-1 | flat-par-all | functional | mutation | vs functional | vs mutation | 1->{threads} threads |"
    );
    let _ = writeln!(
        o,
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for m in ms_ {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1}x | {:.2}x | {:.2}x |",
            m.config.depth,
            m.config.branching,
            m.config.nodes,
            ms(m.secs[0]),
            ms(m.secs[1]),
            ms(m.secs[2]),
            ms(m.secs[3]),
            ms(m.secs[4]),
            m.vs_functional(),
            m.vs_mutation(),
            m.thread_speedup()
        );
    }
    o
}

/// The results as CSV (seconds).
pub fn csv(ms_: &[Measurement]) -> String {
    let mut o = String::from("depth,branching,nodes");
    for a in ALGORITHMS {
        let _ = write!(o, ",{a}_s");
    }
    o.push('\n');
    for m in ms_ {
        let _ = write!(
            o,
            "{},{},{}",
            m.config.depth, m.config.branching, m.config.nodes
        );
        for s in m.secs {
            let _ = write!(o, ",{s:.9}");
        }
        o.push('\n');
    }
    o
}

/// Colour for a ratio on a log scale: red below 1, white at 1, green above,
/// saturating at `1 / hi` and `hi`.
fn colour(ratio: f64, hi: f64) -> String {
    let t = (ratio.ln() / hi.ln()).clamp(-1.0, 1.0);
    let (r, g, b) = if t >= 0.0 {
        (255.0 * (1.0 - t), 255.0 - 90.0 * t, 255.0 * (1.0 - t))
    } else {
        let t = -t;
        (255.0 - 40.0 * t, 255.0 * (1.0 - t), 255.0 * (1.0 - t))
    };
    format!("rgb({},{},{})", r as u8, g as u8, b as u8)
}

/// Heat maps in the style of the paper's Figure 1: one panel per speedup
/// (over functional, over mutation, 1 -> all threads), branching factor on
/// the x axis, depth on the y axis, one cell per measured configuration.
pub fn svg(ms_: &[Measurement], threads: usize, title: &str) -> String {
    let cell = 24.0;
    let (bmax, dmax) = ms_.iter().fold((1, 1), |(b, d), m| {
        (b.max(m.config.branching), d.max(m.config.depth))
    });
    let pw = cell * bmax as f64 + 70.0;
    let ph = cell * dmax as f64 + 90.0;
    type Panel<'a> = (String, &'a dyn Fn(&Measurement) -> f64, f64);
    let panels: [Panel; 3] = [
        (
            format!("flat-par-{threads} vs functional"),
            &|m: &Measurement| m.vs_functional(),
            100.0,
        ),
        (
            format!("flat-par-{threads} vs mutation"),
            &|m: &Measurement| m.vs_mutation(),
            10.0,
        ),
        (
            format!("flat-par 1 -> {threads} threads"),
            &|m: &Measurement| m.thread_speedup(),
            4.0,
        ),
    ];
    let width = pw * panels.len() as f64 + 20.0;
    let height = ph + 50.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="9">"#
    );
    let _ = writeln!(
        o,
        r#"<rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14">{}</text>"#,
        xml(title)
    );
    for (p, (name, f, hi)) in panels.iter().enumerate() {
        let x0 = 10.0 + p as f64 * pw + 40.0;
        let y0 = 60.0;
        let _ = writeln!(
            o,
            r#"<text x="{x0:.0}" y="{:.0}" font-size="12">{} (green: faster; saturates at {hi}x)</text>"#,
            y0 - 18.0,
            xml(name)
        );
        for m in ms_ {
            let v = f(m);
            let x = x0 + (m.config.branching - 1) as f64 * cell;
            let y = y0 + (m.config.depth - 1) as f64 * cell;
            let label = if v >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            };
            let _ = writeln!(
                o,
                r##"<rect x="{x:.0}" y="{y:.0}" width="{cell}" height="{cell}" fill="{}" stroke="#ccc"><title>depth {} branching {} nodes {}: {v:.3}x</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text>"##,
                colour(v, *hi),
                m.config.depth,
                m.config.branching,
                m.config.nodes,
                x + cell / 2.0,
                y + cell / 2.0 + 3.0
            );
        }
        for b in 1..=bmax {
            if b == 1 || b % 5 == 0 {
                let _ = writeln!(
                    o,
                    r#"<text x="{:.1}" y="{:.0}" text-anchor="middle">{b}</text>"#,
                    x0 + (b as f64 - 0.5) * cell,
                    y0 + dmax as f64 * cell + 12.0
                );
            }
        }
        for d in 1..=dmax {
            if d == 1 || d % 5 == 0 {
                let _ = writeln!(
                    o,
                    r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{d}</text>"#,
                    x0 - 4.0,
                    y0 + (d as f64 - 0.5) * cell + 3.0
                );
            }
        }
        let _ = writeln!(
            o,
            r#"<text x="{:.0}" y="{:.0}" text-anchor="middle" font-size="11">branching factor</text><text x="{:.0}" y="{:.0}" font-size="11" transform="rotate(-90 {:.0} {:.0})" text-anchor="middle">depth</text>"#,
            x0 + bmax as f64 * cell / 2.0,
            y0 + dmax as f64 * cell + 28.0,
            x0 - 24.0,
            y0 + dmax as f64 * cell / 2.0,
            x0 - 24.0,
            y0 + dmax as f64 * cell / 2.0
        );
    }
    o.push_str("</svg>\n");
    o
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_trees() {
        assert_eq!(complete_size(2, 3), Some(13));
        assert_eq!(complete_size(5, 1), Some(6));
        assert_eq!(complete_size(31, 31), None);
        let t = complete_tree(2, 3);
        assert_eq!(t.len(), 13);
        assert_eq!(&t.depth()[..5], &[0, 1, 2, 2, 2]);
        assert_eq!(t.kind()[0], EXPR);
        assert_eq!(t.kind()[1], APP);
        assert!(matches!(t.kind()[2], VAR | PRIM));
    }

    #[test]
    fn grid_and_reports() {
        let g = grid(200, &[], &[]);
        assert!(g.iter().all(|c| c.nodes <= 200));
        assert!(g.iter().any(|c| c.branching == 2 && c.depth == 6));
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let (one, all) = (pool(1), pool(2));
        let ms_: Vec<Measurement> = g
            .iter()
            .take(5)
            .map(|&c| measure(c, &one, &all, Duration::ZERO))
            .collect();
        let md = markdown(&ms_, 2, "test");
        assert!(md.contains("| depth | branching |"));
        assert_eq!(csv(&ms_).lines().count(), 6);
        let s = svg(&ms_, 2, "t");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    }
}
