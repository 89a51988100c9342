//! Side-by-side benchmark of the blog's three passes over random trees:
//! not fused (three hand-written recursive passes), the library's one-by-one
//! mode, manually fused (one hand-written `match`), and the library's fused
//! pipeline (with and without stack growth).
//!
//! ```text
//! cargo run --release -p treefuse-rewrite --example fusion_bench -- [TREES] [MAX_DEPTH] [SEED] [BATCH]
//! ```
//!
//! Defaults: 1,000,000 trees of depth at most 6, seed 42. Trees are
//! generated in batches of 10,000; each variant gets its own clone of the
//! batch, the order of the variants rotates from batch to batch, and only
//! the rewriting is timed (not generation, cloning or dropping). Results are
//! checked against each other on every tree, outside the timed region.

use std::hint::black_box;
use std::time::{Duration, Instant};

use treefuse_rewrite::toy::{manually_fused, not_fused, rules, Expr, Generator};
use treefuse_rewrite::{node_count, PassManager};

fn arg(n: usize, default: u64) -> u64 {
    std::env::args()
        .nth(n)
        .map(|s| s.replace('_', "").parse().expect("numeric argument"))
        .unwrap_or(default)
}

fn main() {
    let trees = arg(1, 1_000_000) as usize;
    let depth = arg(2, 6) as u32;
    let seed = arg(3, 42);
    let batch_size = arg(4, 10_000).max(1) as usize;

    let names = [
        "not fused (3 hand-written passes)",
        "library one-by-one (3 passes)",
        "manually fused (hand-written match)",
        "library fused",
        "library fused + stack growth",
    ];
    let mut times = [Duration::ZERO; 5];
    let mut fused = PassManager::new(rules());
    let mut one_by_one = PassManager::new(rules());
    let mut growing = PassManager::new(rules()).with_stack_growth(true);
    let mut gen = Generator::new(seed, depth);
    let mut nodes = 0usize;
    let mut done = 0usize;
    let mut batch_no = 0usize;
    while done < trees {
        let n = batch_size.min(trees - done);
        let input: Vec<Expr> = (0..n).map(|_| gen.next_expr()).collect();
        nodes += input.iter().map(node_count).sum::<usize>();
        let mut outputs: Vec<Vec<Expr>> = vec![Vec::new(); 5];
        let mut copies: Vec<Option<Vec<Expr>>> = (0..5).map(|_| Some(input.clone())).collect();
        for k in 0..5 {
            let v = (k + batch_no) % 5;
            let batch = copies[v].take().unwrap_or_default();
            let start = Instant::now();
            let out: Vec<Expr> = match v {
                0 => batch.into_iter().map(not_fused).collect(),
                1 => batch
                    .into_iter()
                    .map(|e| one_by_one.one_by_one(e))
                    .collect(),
                2 => batch.into_iter().map(manually_fused).collect(),
                3 => batch.into_iter().map(|e| fused.fused(e)).collect(),
                _ => batch.into_iter().map(|e| growing.fused(e)).collect(),
            };
            times[v] += start.elapsed();
            outputs[v] = black_box(out);
        }
        assert!(
            outputs[0] == outputs[1],
            "one-by-one differs from not fused"
        );
        assert!(
            outputs[2] == outputs[3],
            "fused differs from manually fused"
        );
        assert!(outputs[3] == outputs[4], "stack growth changed the result");
        done += n;
        batch_no += 1;
    }

    println!("{trees} random trees, max depth {depth}, seed {seed}, batches of {batch_size}: {nodes} nodes in all");
    println!("rules fired (fused): {:?}", fused.stats().fired);
    for (name, t) in names.iter().zip(&times) {
        println!(
            "{name:<38} {:>9.1} ms  {:>6.2} ns/node",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e9 / nodes as f64
        );
    }
    let s = |i: usize| times[i].as_secs_f64();
    println!(
        "fused / manually fused          = {:.3}  (target <= 1.10)",
        s(3) / s(2)
    );
    println!(
        "not fused / fused               = {:.3}  (target >= 1.5)",
        s(0) / s(3)
    );
    println!("library one-by-one / fused      = {:.3}", s(1) / s(3));
    println!("fused + stack growth / fused    = {:.3}", s(4) / s(3));
}
