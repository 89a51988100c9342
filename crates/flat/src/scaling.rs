//! The thread-scaling benchmark (`flat-bench --scaling`).
//!
//! # Why the module is shaped this way
//!
//! The question is narrow: does the parallel column algorithm get faster
//! with more threads, and does it beat the sequential kernel? So only three
//! contenders run (flat-seq, flat-par in a 1-thread pool, flat-par in an
//! all-thread pool), only on trees with at least 10^6 nodes, and they run
//! *interleaved*: every repetition times all three back to back, so that a
//! burst of load from other processes hits all of them rather than one.
//! Times are medians over the repetitions, ratios are taken per
//! configuration, and the summary is the median ratio over configurations.
//! The phase times of [`crate::flatten::Phases`] are kept too, to show which
//! phase does (not) scale.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::bench::{complete_tree, grid, spec, Config};
use crate::flatten::{flatten_par_profiled, flatten_seq, Phases};
use crate::prim::default_grain;

/// The smallest tree measured: the ">= 10^6 nodes".
pub const MIN_NODES: u64 = 1_000_000;

/// Median times (seconds) of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    /// The configuration.
    pub config: Config,
    /// flat-seq.
    pub seq: f64,
    /// flat-par in a 1-thread pool.
    pub par_one: f64,
    /// flat-par in the all-thread pool.
    pub par_all: f64,
    /// Median phase times of flat-par in the 1-thread pool.
    pub phases_one: Phases,
    /// Median phase times of flat-par in the all-thread pool.
    pub phases_all: Phases,
    /// Repetitions of each contender.
    pub reps: usize,
}

impl Scaling {
    /// `time(1 thread) / time(all threads)`.
    pub fn thread_speedup(&self) -> f64 {
        self.par_one / self.par_all
    }

    /// `time(flat-seq) / time(flat-par, all threads)`.
    pub fn vs_seq(&self) -> f64 {
        self.seq / self.par_all
    }

    /// `time(flat-par, 1 thread) / time(flat-seq)`: the cost of chunking.
    pub fn one_thread_overhead(&self) -> f64 {
        self.par_one / self.seq
    }
}

/// The configurations of the grid with `MIN_NODES..=max_nodes` nodes.
pub fn configs(max_nodes: u64) -> Vec<Config> {
    grid(max_nodes, &[], &[])
        .into_iter()
        .filter(|c| c.nodes >= MIN_NODES)
        .collect()
}

/// The median of `xs` (the upper one for an even count); NaN when empty.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn median_phases(ps: &[Phases]) -> Phases {
    let m = |f: fn(&Phases) -> Duration| {
        let secs: Vec<f64> = ps.iter().map(|p| f(p).as_secs_f64()).collect();
        Duration::from_secs_f64(median(&secs).max(0.0))
    };
    Phases {
        count: m(|p| p.count),
        combine: m(|p| p.combine),
        fill: m(|p| p.fill),
        write: m(|p| p.write),
        patch: m(|p| p.patch),
    }
}

/// Times the three contenders on one configuration, `reps` interleaved
/// rounds, after checking once that both parallel runs agree with flat-seq.
///
/// # Panics
/// If flat-par disagrees with flat-seq (a bug).
pub fn measure(
    config: Config,
    one: &rayon::ThreadPool,
    all: &rayon::ThreadPool,
    reps: usize,
) -> Scaling {
    let tree = complete_tree(config.depth, config.branching);
    let s = spec();
    let par = |pool: &rayon::ThreadPool| {
        pool.install(|| flatten_par_profiled(&tree, &s, default_grain(tree.len())))
    };
    let reference = flatten_seq(&tree, &s);
    assert!(
        par(one).0 == reference,
        "flat-par-1 disagrees on {config:?}"
    );
    assert!(
        par(all).0 == reference,
        "flat-par-all disagrees on {config:?}"
    );
    drop(reference);
    let reps = reps.max(1);
    let (mut seq, mut par_one, mut par_all) = (vec![], vec![], vec![]);
    let (mut phases_one, mut phases_all) = (vec![], vec![]);
    for _ in 0..reps {
        let t = Instant::now();
        let out = flatten_seq(&tree, &s);
        seq.push(t.elapsed().as_secs_f64());
        drop(out);
        for (pool, times, phases) in [
            (one, &mut par_one, &mut phases_one),
            (all, &mut par_all, &mut phases_all),
        ] {
            let t = Instant::now();
            let (out, p) = par(pool);
            times.push(t.elapsed().as_secs_f64());
            phases.push(p);
            drop(out);
        }
    }
    Scaling {
        config,
        seq: median(&seq),
        par_one: median(&par_one),
        par_all: median(&par_all),
        phases_one: median_phases(&phases_one),
        phases_all: median_phases(&phases_all),
        reps,
    }
}

/// `(R1, R2)`: the medians over configurations of
/// [`Scaling::thread_speedup`] and [`Scaling::vs_seq`].
pub fn summary(rows: &[Scaling]) -> (f64, f64) {
    let r1: Vec<f64> = rows.iter().map(Scaling::thread_speedup).collect();
    let r2: Vec<f64> = rows.iter().map(Scaling::vs_seq).collect();
    (median(&r1), median(&r2))
}

/// The last line of a scaling run.
pub fn summary_line(rows: &[Scaling]) -> String {
    let (r1, r2) = summary(rows);
    format!("1->all threads = {r1:.2}, par-all/seq = {r2:.2}")
}

fn ms(d: f64) -> String {
    format!("{:.2}", d * 1e3)
}

/// The header of the Markdown table written by [`table_row`].
pub fn table_header(threads: usize) -> String {
    format!(
        "| depth | branching | nodes | reps | flat-seq ms | par-1 ms | par-{threads} ms | 1->{threads} | par-{threads}/seq | par-1/seq | par-1 phases ms (count, combine, fill, write, patch) | par-{threads} phases ms |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
    )
}

fn phase_list(p: &Phases) -> String {
    p.named()
        .iter()
        .map(|(_, d)| ms(d.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One configuration as a Markdown table row.
pub fn table_row(r: &Scaling) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {} |",
        r.config.depth,
        r.config.branching,
        r.config.nodes,
        r.reps,
        ms(r.seq),
        ms(r.par_one),
        ms(r.par_all),
        r.thread_speedup(),
        r.vs_seq(),
        r.one_thread_overhead(),
        phase_list(&r.phases_one),
        phase_list(&r.phases_all)
    )
}

/// A Markdown report: context, the table and the summary line.
pub fn markdown(rows: &[Scaling], threads: usize, context: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# flat-bench --scaling\n\n{context}\n");
    let _ = writeln!(o, "{}", table_header(threads));
    for r in rows {
        let _ = writeln!(o, "{}", table_row(r));
    }
    let _ = writeln!(o, "\n{}", summary_line(rows));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_summary() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 3.0);
        assert!(median(&[]).is_nan());
        let row = |one: f64, all: f64, seq: f64| Scaling {
            config: Config {
                depth: 1,
                branching: 1,
                nodes: 2,
            },
            seq,
            par_one: one,
            par_all: all,
            phases_one: Phases::default(),
            phases_all: Phases::default(),
            reps: 1,
        };
        let rows = [row(2.0, 1.0, 3.0), row(4.0, 1.0, 1.0), row(3.0, 2.0, 3.0)];
        assert_eq!(summary(&rows), (2.0, 1.5));
        assert_eq!(
            summary_line(&rows),
            "1->all threads = 2.00, par-all/seq = 1.50"
        );
        assert!(markdown(&rows, 2, "ctx")
            .trim_end()
            .ends_with("par-all/seq = 1.50"));
    }

    #[test]
    fn measures_small_trees() {
        assert!(configs(2_000_000).iter().all(|c| c.nodes >= MIN_NODES));
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("pool")
        };
        let c = Config {
            depth: 6,
            branching: 5,
            nodes: 19531,
        };
        let r = measure(c, &pool(1), &pool(2), 2);
        assert_eq!(r.reps, 2);
        assert!(r.seq > 0.0 && r.par_one > 0.0 && r.par_all > 0.0);
        assert!(table_row(&r).starts_with("| 6 | 5 | 19531 | 2 |"));
    }
}
