//! Times the flattening implementations on one complete tree:
//! `cargo run --release -p treefuse-flat --example quicktime -- DEPTH BRANCHING`.
use std::time::Instant;
use treefuse_flat::{baseline, bench, lift};

fn main() {
    let a: Vec<u32> = std::env::args()
        .skip(1)
        .map(|x| x.parse().unwrap())
        .collect();
    let (d, b) = (
        a.first().copied().unwrap_or(11),
        a.get(1).copied().unwrap_or(4),
    );
    let t = bench::complete_tree(d, b);
    let f = t.to_forest();
    let s = bench::spec();
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (one, two) = (pool(1), pool(2));
    println!("{} nodes", t.len());
    for _ in 0..3 {
        let only = std::env::var("ONLY").ok();
        let best = |name: &str, g: &dyn Fn() -> usize| {
            if only
                .as_deref()
                .is_some_and(|o| !o.split(',').any(|x| x == name))
            {
                return;
            }
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t0 = Instant::now();
                let n = g();
                best = best.min(t0.elapsed().as_secs_f64());
                assert!(n > 0);
            }
            println!("{name:>12}: {:8.2} ms", best * 1e3);
        };
        best("seq", &|| lift::flatten_seq(&t, &s).len());
        best("par1", &|| one.install(|| lift::flatten_par(&t, &s).len()));
        best("par2", &|| two.install(|| lift::flatten_par(&t, &s).len()));
        best("mutation", &|| {
            baseline::flatten_mutation(&f, &s).unwrap().len()
        });
        best("functional", &|| {
            baseline::flatten_functional(&f, &s).unwrap().len()
        });
    }
}
