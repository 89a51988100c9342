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
use crate::flatten::{
    flatten_par_into, flatten_par_profiled, flatten_seq, flatten_seq_into, Phases,
};
use crate::prim::default_grain;

/// The smallest tree measured: the ">= 10^6 nodes".
pub const MIN_NODES: u64 = 1_000_000;

/// Median times (seconds) of the three contenders in one mode.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Times {
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
}

impl Times {
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

/// One configuration, timed in both modes.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    /// The configuration.
    pub config: Config,
    /// The allocating functions ([`flatten_seq`], [`flatten_par`]): every
    /// call allocates and fills its output.
    pub fresh: Times,
    /// The `_into` functions, each contender reusing its own output buffer
    /// from the previous repetition (a pass that runs again and again).
    pub reused: Times,
    /// Repetitions of each contender in each mode.
    pub reps: usize,
}

/// Which of the two modes of [`Scaling`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// [`Scaling::fresh`].
    Fresh,
    /// [`Scaling::reused`].
    Reused,
}

impl Scaling {
    /// The times of one mode.
    pub fn times(&self, mode: Mode) -> &Times {
        match mode {
            Mode::Fresh => &self.fresh,
            Mode::Reused => &self.reused,
        }
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

/// Samples of one mode, one per repetition.
#[derive(Default)]
struct Samples {
    seq: Vec<f64>,
    par_one: Vec<f64>,
    par_all: Vec<f64>,
    phases_one: Vec<Phases>,
    phases_all: Vec<Phases>,
}

impl Samples {
    fn medians(&self) -> Times {
        Times {
            seq: median(&self.seq),
            par_one: median(&self.par_one),
            par_all: median(&self.par_all),
            phases_one: median_phases(&self.phases_one),
            phases_all: median_phases(&self.phases_all),
        }
    }
}

fn seconds(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// Times the three contenders on one configuration in both modes, `reps`
/// interleaved rounds, after checking once that all agree with flat-seq.
/// Outputs are dropped outside the timed region.
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
    let grain = |pool: &rayon::ThreadPool| pool.install(|| default_grain(tree.len()));
    let (grain_one, grain_all) = (grain(one), grain(all));
    let reference = flatten_seq(&tree, &s);
    // The reused buffers, one per contender, start as correct outputs.
    let mut out_seq = flatten_seq(&tree, &s);
    let mut out_one = one.install(|| flatten_par_profiled(&tree, &s, grain_one).0);
    let mut out_all = all.install(|| flatten_par_profiled(&tree, &s, grain_all).0);
    assert!(out_one == reference, "flat-par-1 disagrees on {config:?}");
    assert!(out_all == reference, "flat-par-all disagrees on {config:?}");
    drop(reference);
    let reps = reps.max(1);
    let (mut fresh, mut reused) = (Samples::default(), Samples::default());
    for _ in 0..reps {
        let t = Instant::now();
        let out = flatten_seq(&tree, &s);
        fresh.seq.push(seconds(t));
        drop(out);
        for (pool, g, times, phases) in [
            (one, grain_one, &mut fresh.par_one, &mut fresh.phases_one),
            (all, grain_all, &mut fresh.par_all, &mut fresh.phases_all),
        ] {
            let t = Instant::now();
            let (out, p) = pool.install(|| flatten_par_profiled(&tree, &s, g));
            times.push(seconds(t));
            phases.push(p);
            drop(out);
        }
        let t = Instant::now();
        flatten_seq_into(&tree, &s, &mut out_seq);
        reused.seq.push(seconds(t));
        for (pool, g, out, times, phases) in [
            (
                one,
                grain_one,
                &mut out_one,
                &mut reused.par_one,
                &mut reused.phases_one,
            ),
            (
                all,
                grain_all,
                &mut out_all,
                &mut reused.par_all,
                &mut reused.phases_all,
            ),
        ] {
            let t = Instant::now();
            let p = pool.install(|| flatten_par_into(&tree, &s, g, out));
            times.push(seconds(t));
            phases.push(p);
        }
    }
    assert!(
        out_one == out_seq && out_all == out_seq,
        "reused outputs disagree on {config:?}"
    );
    Scaling {
        config,
        fresh: fresh.medians(),
        reused: reused.medians(),
        reps,
    }
}

/// `(R1, R2)`: the medians over configurations of
/// [`Times::thread_speedup`] and [`Times::vs_seq`] in one mode.
pub fn summary(rows: &[Scaling], mode: Mode) -> (f64, f64) {
    let r1: Vec<f64> = rows
        .iter()
        .map(|r| r.times(mode).thread_speedup())
        .collect();
    let r2: Vec<f64> = rows.iter().map(|r| r.times(mode).vs_seq()).collect();
    (median(&r1), median(&r2))
}

/// The summary line of one mode; the one of [`Mode::Fresh`] is the last
/// line of a scaling run.
pub fn summary_line(rows: &[Scaling], mode: Mode) -> String {
    let (r1, r2) = summary(rows, mode);
    format!("1->all threads = {r1:.2}, par-all/seq = {r2:.2}")
}

fn ms(d: f64) -> String {
    format!("{:.2}", d * 1e3)
}

/// The header of the Markdown table written by [`table_row`].
pub fn table_header(threads: usize) -> String {
    format!(
        "| depth | branching | nodes | mode | flat-seq ms | par-1 ms | par-{threads} ms | 1->{threads} | par-{threads}/seq | par-1/seq | par-1 phases ms (count, combine, fill, write, patch) | par-{threads} phases ms |\n\
         |---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|"
    )
}

fn phase_list(p: &Phases) -> String {
    p.named()
        .iter()
        .map(|(_, d)| ms(d.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One configuration as two Markdown table rows (fresh, reused).
pub fn table_row(r: &Scaling) -> String {
    [(Mode::Fresh, "fresh"), (Mode::Reused, "reused")]
        .iter()
        .map(|&(mode, name)| {
            let t = r.times(mode);
            format!(
                "| {} | {} | {} | {name} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {} |",
                r.config.depth,
                r.config.branching,
                r.config.nodes,
                ms(t.seq),
                ms(t.par_one),
                ms(t.par_all),
                t.thread_speedup(),
                t.vs_seq(),
                t.one_thread_overhead(),
                phase_list(&t.phases_one),
                phase_list(&t.phases_all)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The closing lines of a scaling run: the reused-buffer summary, then the
/// summary of the allocating functions as the very last line.
pub fn closing_lines(rows: &[Scaling]) -> String {
    format!(
        "reused buffers: {}\n{}",
        summary_line(rows, Mode::Reused),
        summary_line(rows, Mode::Fresh)
    )
}

/// A Markdown report: context, the table and the closing lines.
pub fn markdown(rows: &[Scaling], threads: usize, context: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# flat-bench --scaling\n\n{context}\n");
    let _ = writeln!(o, "{}", table_header(threads));
    for r in rows {
        let _ = writeln!(o, "{}", table_row(r));
    }
    let _ = writeln!(o, "\n{}", closing_lines(rows));
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
        let row = |one: f64, all: f64, seq: f64| {
            let t = Times {
                seq,
                par_one: one,
                par_all: all,
                ..Times::default()
            };
            Scaling {
                config: Config {
                    depth: 1,
                    branching: 1,
                    nodes: 2,
                },
                fresh: t.clone(),
                reused: Times {
                    seq: 2.0 * seq,
                    ..t
                },
                reps: 1,
            }
        };
        let rows = [row(2.0, 1.0, 3.0), row(4.0, 1.0, 1.0), row(3.0, 2.0, 3.0)];
        assert_eq!(summary(&rows, Mode::Fresh), (2.0, 1.5));
        assert_eq!(summary(&rows, Mode::Reused), (2.0, 3.0));
        let md = markdown(&rows, 2, "ctx");
        let last: Vec<&str> = md.trim_end().lines().rev().take(2).collect();
        assert_eq!(last[0], "1->all threads = 2.00, par-all/seq = 1.50");
        assert_eq!(
            last[1],
            "reused buffers: 1->all threads = 2.00, par-all/seq = 3.00"
        );
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
        for t in [&r.fresh, &r.reused] {
            assert!(t.seq > 0.0 && t.par_one > 0.0 && t.par_all > 0.0);
        }
        let rows = table_row(&r);
        assert!(rows.starts_with("| 6 | 5 | 19531 | fresh |"));
        assert!(rows
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("| 6 | 5 | 19531 | reused |")));
    }
}
