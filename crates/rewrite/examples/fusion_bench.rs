//! Side-by-side benchmark of the blog's three rules over random trees.
//!
//! ```text
//! cargo run --release -p treefuse-rewrite --example fusion_bench -- [trees=N] [depth=D] [seed=S] [batch=B] [only=VARIANT]
//! ```
//!
//! Defaults: `trees=1000000 depth=6 seed=42 batch=100`. With small batches
//! each variant's fresh copy is still in cache when it runs, as the blog's
//! freshly generated trees are; `batch=10000` makes every variant start from
//! memory instead (then the shared cost of first touching each node, and
//! of freeing the discarded ones, dominates all variants alike). Variants:
//!
//! * `not_fused`: the blog's `Not_fused.pass`, three hand-written recursive
//!   passes applied to one tree after the other;
//! * `not_fused_batch`: the same three passes, but each pass runs over the
//!   whole batch before the next one starts (as separate compiler passes
//!   over one program made of `batch` functions would);
//! * `one_by_one`: the library's one-by-one mode (per tree);
//! * `manual`: the blog's `Manually_fused.pass`, one hand-written `match`;
//! * `fused`: the library's fused pipeline (stack growth on, the default);
//! * `fused_nogrow`: the same with stack growth off.
//!
//! Trees are generated in batches; every variant gets its own clone of the
//! batch, made just before it runs; the order of the variants rotates from
//! batch to batch; only the
//! rewriting is timed (not generating, cloning, comparing or dropping the
//! results), as thread CPU time where Linux provides it, so that time spent
//! preempted by other jobs on a shared machine does not count. Results are checked against each other on every tree, outside
//! the timed region. `only=V1,V2,..` runs only the listed variants, and
//! `only=none` none (generation and cloning only), for profilers such as
//! cachegrind: the difference between a variant's counts and `none`'s is
//! the variant's. Targets: fused / manually fused <= 1.10, not fused /
//! fused >= 1.5.

use std::hint::black_box;
use std::time::Duration;

#[path = "support/clock.rs"]
mod clock;
use clock::Clock;

use treefuse_rewrite::toy::{
    dce_pass, fold_pass, let_pass, manually_fused, not_fused, rules, Expr, Generator,
};
use treefuse_rewrite::{node_count, PassManager};

const VARIANTS: [(&str, &str); 6] = [
    ("not_fused", "not fused (3 passes, per tree)"),
    ("not_fused_batch", "not fused (3 passes, per batch)"),
    ("one_by_one", "library one-by-one (3 passes)"),
    ("manual", "manually fused (hand-written match)"),
    ("fused", "library fused (stack growth, the default)"),
    ("fused_nogrow", "library fused, stack growth off"),
];

fn main() {
    let mut trees = 1_000_000usize;
    let mut depth = 6u32;
    let mut seed = 42u64;
    let mut batch_size = 100usize;
    let mut only: Option<Vec<usize>> = None;
    for a in std::env::args().skip(1) {
        let (k, v) = a.split_once('=').unwrap_or(("trees", a.as_str()));
        let num = || v.replace('_', "").parse::<u64>().expect("numeric value");
        match k {
            "trees" => trees = num() as usize,
            "depth" => depth = num() as u32,
            "seed" => seed = num(),
            "batch" => batch_size = (num() as usize).max(1),
            "only" => {
                only = Some(
                    v.split(',')
                        .filter(|n| *n != "none")
                        .map(|n| {
                            VARIANTS
                                .iter()
                                .position(|(name, _)| *name == n)
                                .unwrap_or_else(|| panic!("unknown variant {n:?}"))
                        })
                        .collect(),
                )
            }
            _ => panic!("unknown argument {a:?}"),
        }
    }
    let active: Vec<usize> = only
        .clone()
        .unwrap_or_else(|| (0..VARIANTS.len()).collect());

    let mut times = [Duration::ZERO; VARIANTS.len()];
    let mut clock = Clock::new();
    let mut fused = PassManager::<(), _>::new(rules()).expect("no ordering constraints");
    let mut one_by_one = PassManager::<(), _>::new(rules()).expect("no ordering constraints");
    let mut not_growing = PassManager::<(), _>::new(rules())
        .expect("no ordering constraints")
        .with_stack_growth(false);
    let mut gen = Generator::new(seed, depth);
    let mut nodes = 0usize;
    let mut done = 0usize;
    let mut batch_no = 0usize;
    while done < trees {
        let n = batch_size.min(trees - done);
        let input: Vec<Expr> = (0..n).map(|_| gen.next_expr()).collect();
        nodes += input.iter().map(node_count).sum::<usize>();
        let mut outputs: Vec<Option<Vec<Expr>>> = vec![None; VARIANTS.len()];
        // With `only=none`, clone and drop one copy as the variants do, so
        // that profiles can be compared by difference.
        black_box(active.is_empty().then(|| input.clone()));
        for k in 0..active.len() {
            let v = active[(k + batch_no) % active.len()];
            // Each variant gets a fresh copy made just before it runs, so
            // every variant starts from the same cache and heap situation.
            let batch = input.clone();
            let start = clock.now();
            let out: Vec<Expr> = match v {
                0 => batch.into_iter().map(not_fused).collect(),
                1 => {
                    let b: Vec<Expr> = batch.into_iter().map(dce_pass).collect();
                    let b: Vec<Expr> = b.into_iter().map(fold_pass).collect();
                    b.into_iter().map(let_pass).collect()
                }
                2 => run_all(batch, |e| one_by_one.one_by_one(e, &mut ())),
                3 => batch.into_iter().map(manually_fused).collect(),
                4 => run_all(batch, |e| fused.fused(e, &mut ())),
                _ => run_all(batch, |e| not_growing.fused(e, &mut ())),
            };
            times[v] += Duration::from_nanos(clock.now() - start);
            outputs[v] = Some(black_box(out));
        }
        for group in [&[0usize, 1, 2][..], &[3, 4, 5][..]] {
            let present: Vec<&Vec<Expr>> =
                group.iter().filter_map(|&v| outputs[v].as_ref()).collect();
            for w in present.windows(2) {
                assert!(w[0] == w[1], "variants of one group disagree");
            }
        }
        done += n;
        batch_no += 1;
    }

    println!("{trees} random trees, max depth {depth}, seed {seed}, batches of {batch_size}: {nodes} nodes in all");
    println!(
        "times are {}",
        if clock.is_cpu_time() {
            "thread CPU time (/proc/thread-self/schedstat)"
        } else {
            "wall-clock time"
        }
    );
    if active.contains(&4) {
        println!("rules fired (fused): {:?}", fused.stats().fired);
    }
    for &v in &active {
        let t = times[v];
        println!(
            "{:<38} {:>9.1} ms  {:>6.2} ns/node",
            VARIANTS[v].1,
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e9 / nodes as f64
        );
    }
    let s = |i: usize| times[i].as_secs_f64();
    let ratio = |a: usize, b: usize, what: &str| {
        if active.contains(&a) && active.contains(&b) {
            println!("{what:<46}= {:.3}", s(a) / s(b));
        }
    };
    ratio(4, 3, "fused / manually fused (target <= 1.10)");
    ratio(0, 4, "not fused (per tree) / fused (target >= 1.5)");
    ratio(1, 4, "not fused (per batch) / fused");
    ratio(2, 4, "library one-by-one / fused");
    ratio(4, 5, "fused (stack growth) / fused (no growth)");
}

/// Rewrites every tree of the batch in place with `f`.
fn run_all<E: std::fmt::Debug>(
    mut batch: Vec<Expr>,
    mut f: impl FnMut(&mut Expr) -> Result<(), treefuse_rewrite::RunError<E>>,
) -> Vec<Expr> {
    for e in &mut batch {
        f(e).expect("the toy rules cannot fail");
    }
    batch
}
