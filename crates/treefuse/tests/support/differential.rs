//! Differential checks shared by the integration tests: a program's fused
//! run must leave every tree and global exactly as the unfused run.

use treefuse::{Engine, FusionOptions, Host, Program};
use treefuse_runtime::{diff_globals, diff_trees, random_tree, GenOptions};

/// Runs `fuse` of `program` unfused and fused (default cut-offs) on
/// `runs` random trees of about 80 nodes and asserts that the results
/// agree; returns the (unfused, fused) node visits summed over the runs.
pub fn compare_on_random_trees(program: &Program, fuse: &str, runs: u64) -> (u64, u64) {
    let fused = program.fuse_all(&FusionOptions::default());
    let root = program.model.fuse_named(fuse).unwrap().root_type;
    let (mut vu, mut vf) = (0, 0);
    for seed in 0..runs {
        let t = random_tree(
            &program.model,
            root,
            &GenOptions {
                nodes: 80,
                seed,
                max_list: 6,
                ..Default::default()
            },
        )
        .unwrap();
        let (mut a, mut b) = (t.clone(), t);
        let host = Host::new();
        let (sa, ga) = program
            .run_tree_with(fuse, &mut a, Vec::new(), &host, Engine::Unfused)
            .unwrap();
        let (sb, gb) = program
            .run_tree_with(fuse, &mut b, Vec::new(), &host, Engine::Fused(&fused))
            .unwrap();
        let mut d = diff_trees(&program.model, &a, &b, 3);
        d.extend(diff_globals(&program.model, &ga, &gb));
        assert!(d.is_empty(), "seed {seed}: fused differs: {d:?}");
        vu += sa.node_visits;
        vf += sb.node_visits;
    }
    (vu, vf)
}
