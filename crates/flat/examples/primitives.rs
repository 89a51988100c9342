//! Times every primitive of `treefuse_flat::prim`: the sequential reference
//! and the parallel version in a 1-thread and an all-thread pool, on inputs
//! of `N` elements (default 4·10^6; the tree primitives use the complete
//! binary tree with at least `N` nodes), median of `REPS` (default 9):
//!
//! ```text
//! cargo run --release -p treefuse-flat --example primitives -- [N] [REPS]
//! ```
//!
//! On a shared machine run it under `chrt -f 10` (see the crate README).
use std::time::Instant;
use treefuse_flat::{bench, prim::*};

fn median_ms(mut f: impl FnMut() -> usize, reps: usize) -> f64 {
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            let r = f();
            let e = t.elapsed().as_secs_f64() * 1e3;
            assert!(r < usize::MAX);
            e
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: primitives [N] [REPS]"))
        .collect();
    let n = args.first().copied().unwrap_or(4_000_000);
    let reps = args.get(1).copied().unwrap_or(9);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .expect("pool")
    };
    let (one, all) = (pool(1), pool(threads));
    let xs: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let mask: Vec<bool> = xs.iter().map(|x| x & 3 != 0).collect();
    let starts: Vec<bool> = xs.iter().map(|x| x % 97 == 0).collect();
    let perm: Vec<u32> = (0..n as u32)
        .map(|i| ((i as u64 * 7919) % n as u64) as u32)
        .collect();
    let keys: Vec<u32> = xs.iter().map(|x| x % 1000).collect();
    let depth = (usize::BITS - n.leading_zeros()).saturating_sub(1).max(1);
    let tree = bench::complete_tree(depth, 2);
    let marks: Vec<bool> = tree.kind().iter().map(|&k| k == bench::EXPR).collect();
    let add = |a: u32, b: u32| a.wrapping_add(b);
    type Case<'a> = (
        &'a str,
        Box<dyn Fn() -> usize + Sync + 'a>,
        Box<dyn Fn() -> usize + Sync + 'a>,
    );
    let cases: Vec<Case> = vec![
        (
            "scan (inclusive +)",
            Box::new(|| scan_inclusive_seq(&xs, add).len()),
            Box::new(|| scan_inclusive_par(&xs, 0, add).len()),
        ),
        (
            "segmented scan",
            Box::new(|| segmented_scan_inclusive_seq(&xs, &starts, add).len()),
            Box::new(|| segmented_scan_inclusive_par(&xs, &starts, 0, add).len()),
        ),
        (
            "where (compaction indices)",
            Box::new(|| where_seq(&mask).len()),
            Box::new(|| where_par(&mask).len()),
        ),
        (
            "compact",
            Box::new(|| compact_seq(&xs, &mask).len()),
            Box::new(|| compact_par(&xs, &mask).len()),
        ),
        (
            "gather (permutation)",
            Box::new(|| gather_seq(&xs, &perm).map_or(0, |v| v.len())),
            Box::new(|| gather_par(&xs, &perm).map_or(0, |v| v.len())),
        ),
        (
            "scatter (permutation)",
            Box::new(|| scatter_seq(&xs, &perm, n, 0).map_or(0, |v| v.len())),
            Box::new(|| scatter_par(&xs, &perm, n, 0).map_or(0, |v| v.len())),
        ),
        (
            "Key (1000 keys)",
            Box::new(|| key_seq(&keys).len()),
            Box::new(|| key_par(&keys).len()),
        ),
        (
            "depth+root (pointer jumping)",
            Box::new(|| depth_and_root_seq(tree.parent()).map_or(0, |j| j.depth.len())),
            Box::new(|| pointer_jump_par(tree.parent()).map_or(0, |j| j.depth.len())),
        ),
        (
            "nearest marked ancestor (down-sweep)",
            Box::new(|| nearest_marked_ancestor_seq(&tree, &marks).len()),
            Box::new(|| nearest_marked_ancestor_par(&tree, &marks).len()),
        ),
        (
            "delete subtrees",
            Box::new(|| delete_subtrees_seq(&tree, &marks).new_index.len()),
            Box::new(|| delete_subtrees_par(&tree, &marks).new_index.len()),
        ),
    ];
    println!(
        "{n} elements ({} tree nodes), median of {reps}, ms",
        tree.len()
    );
    println!("| primitive | seq | par-1 | par-{threads} | 1->{threads} | par-{threads}/seq |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (name, seq, par) in &cases {
        let s = median_ms(seq, reps);
        let p1 = one.install(|| median_ms(par, reps));
        let pa = all.install(|| median_ms(par, reps));
        println!(
            "| {name} | {s:.2} | {p1:.2} | {pa:.2} | {:.2} | {:.2} |",
            p1 / pa,
            s / pa
        );
    }
}
