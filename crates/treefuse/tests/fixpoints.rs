//! `fuse` items with global assignments and `while COND limit N` loops
//! (LANGUAGE §7.7): results computed by hand, the same in both engines,
//! the calls of one iteration fused, and the iterations reported.

use treefuse::{compile_source, Engine, FusionOptions, Host, Program, RunError, Tree};
use treefuse_runtime::{diff_globals, diff_trees};

/// A counter tree: `dec` lowers every positive `n` by one and records in
/// `changed` whether it did; `mark` counts the rounds in each node.
const COUNTDOWN: &str = r#"
global changed: bool = false;
global rounds: i64 = 0;
global step: i64 = 1;
abstract tree N {
    n: i64;
    seen: i64;
    traversal dec();
    traversal mark() { self.seen = self.seen + step; }
}
tree Pair : N {
    child l: N;
    child r: N;
    traversal dec() {
        self.l.dec();
        self.r.dec();
        if self.n > 0 { self.n = self.n - 1; changed = true; }
    }
    traversal mark() { self.l.mark(); self.r.mark(); self.seen = self.seen + step; }
}
tree Leaf : N {
    traversal dec() { if self.n > 0 { self.n = self.n - 1; changed = true; } }
}
fuse settle(root: N) {
    changed = true;
    while changed limit 16 {
        changed = false;
        rounds = rounds + 1;
        root.dec();
        root.mark();
    }
}
fuse capped(root: N, cap: i64) {
    changed = true;
    while changed && rounds < cap limit 2 {
        changed = false;
        rounds = rounds + 1;
        root.dec();
        root.mark();
    }
    step = 100;
    root.mark();
}
"#;

const TREE: &str = r#"{"type":"Pair","n":1,
    "l":{"type":"Leaf","n":3},
    "r":{"type":"Pair","n":0,"l":{"type":"Leaf","n":2},"r":{"type":"Leaf","n":0}}}"#;

fn program() -> Program {
    compile_source("countdown.tf", COUNTDOWN).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs `fuse` in both engines; checks they agree and returns the output
/// JSON and the (unfused, fused) run statistics.
fn both(
    program: &Program,
    fuse: &str,
    tree: &str,
    args: &[(&str, &str)],
) -> (serde_json::Value, treefuse::RunStats, treefuse::RunStats) {
    let fused = program.fuse_all(&FusionOptions::default());
    let input = program.read_tree(fuse, tree).unwrap();
    let values = program.fuse_args(fuse, args).unwrap();
    let host = Host::new();
    let (mut a, mut b): (Tree, Tree) = (input.clone(), input);
    let (sa, ga) = program
        .run_tree_with(fuse, &mut a, values.clone(), &host, Engine::Unfused)
        .unwrap();
    let (sb, gb) = program
        .run_tree_with(fuse, &mut b, values, &host, Engine::Fused(&fused))
        .unwrap();
    let mut d = diff_trees(&program.model, &a, &b, 3);
    d.extend(diff_globals(&program.model, &ga, &gb));
    assert!(d.is_empty(), "fused differs from unfused: {d:?}");
    let json = treefuse_runtime::write_tree(&program.model, &a, Some(&ga), Default::default());
    (serde_json::from_str(&json).unwrap(), sa, sb)
}

#[test]
fn a_fixpoint_loop_runs_until_nothing_changes() {
    let p = program();
    let (v, unfused, fused) = both(&p, "settle", TREE, &[]);
    // The largest counter is 3: three rounds lower something, the fourth
    // changes nothing and ends the loop.
    assert_eq!(v["globals"]["rounds"], 4);
    assert_eq!(v["globals"]["changed"], false);
    assert_eq!(v["n"], 0);
    assert_eq!(v["l"]["n"], 0);
    assert_eq!(v["r"]["l"]["n"], 0);
    assert_eq!(v["seen"], 4);
    assert_eq!(v["r"]["r"]["seen"], 4);
    assert_eq!(unfused.loop_iterations, vec![4]);
    assert_eq!(fused.loop_iterations, vec![4]);
    // Five nodes; unfused, each round visits them twice (dec, mark); fused,
    // once (both calls of an iteration run as one traversal).
    assert_eq!(unfused.node_visits, 4 * 2 * 5);
    assert_eq!(fused.node_visits, 4 * 5);
    assert_eq!(unfused.visits_per_call, vec![5; 8]);
    assert_eq!(fused.visits_per_call, vec![5; 4]);
}

#[test]
fn the_limit_ends_a_loop_without_an_error() {
    let p = program();
    let (v, unfused, fused) = both(&p, "capped", TREE, &[("cap", "10")]);
    assert_eq!(v["globals"]["rounds"], 2);
    assert_eq!(v["globals"]["changed"], true);
    assert_eq!(v["l"]["n"], 1);
    // Two rounds of `mark` with step 1, then one with step 100.
    assert_eq!(v["seen"], 102);
    assert_eq!(unfused.loop_iterations, vec![2]);
    assert_eq!(fused.loop_iterations, vec![2]);
    // The condition reads a parameter: with cap 0 the body never runs.
    let (v, unfused, _) = both(&p, "capped", TREE, &[("cap", "0")]);
    assert_eq!(v["globals"]["rounds"], 0);
    assert_eq!(v["seen"], 100);
    assert_eq!(unfused.loop_iterations, vec![0]);
}

#[test]
fn a_runtime_error_inside_a_loop_stops_both_engines() {
    let src = r#"
    global d: i64 = 3;
    tree Leaf {
        n: i64;
        traversal f() { self.n = self.n + 12 / d; d = d - 1; }
    }
    fuse run(root: Leaf) {
        while true limit 10 { root.f(); root.f(); }
    }
    "#;
    let p = compile_source("err.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let input = p.read_tree("run", r#"{"type":"Leaf"}"#).unwrap();
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = input.clone();
        match p.run_tree_with("run", &mut t, Vec::new(), &Host::new(), engine) {
            Err(RunError::Runtime(e)) => assert!(e.contains("zero"), "{e}"),
            other => panic!("expected a division by zero, got {other:?}"),
        }
    }
}

/// The checked program keeps calls apart across a global assignment (the
/// assignment must see the state after the first call).
#[test]
fn calls_are_not_fused_across_a_global_assignment() {
    let src = r#"
    global k: i64 = 0;
    tree Leaf {
        n: i64;
        traversal a() { self.n = self.n * 10 + k; }
    }
    fuse run(root: Leaf) { root.a(); k = 7; root.a(); }
    "#;
    let p = compile_source("set.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let (v, unfused, fused) = both(&p, "run", r#"{"type":"Leaf","n":1}"#, &[]);
    assert_eq!(v["n"], 107);
    assert_eq!(unfused.node_visits, 2);
    assert_eq!(fused.node_visits, 2);
}

/// An argument that reads one global does not keep a call apart from an
/// earlier call that writes a different global; it does from one that
/// writes the same global, and the report says why.
#[test]
fn argument_dependences_are_per_global() {
    let src = r#"
    global COUNT: i64 = 0;
    global K: i64 = 5;
    tree Leaf {
        n: i64;
        traversal count() { COUNT = COUNT + 1; }
        traversal setk(k: i64) { self.n = k; }
        traversal bump() { K = K + 1; }
    }
    fuse apart(root: Leaf) { root.count(); root.setk(K); }
    fuse together(root: Leaf) { root.bump(); root.setk(K); }
    "#;
    let p = compile_source("args.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let entry = |name: &str| fused.entries.iter().find(|e| e.fuse == name).unwrap();
    assert_eq!(
        entry("apart").chunks.len(),
        1,
        "different globals: one fused call"
    );
    assert_eq!(
        entry("together").chunks.len(),
        2,
        "same global: two fused calls"
    );
    assert_eq!(
        entry("together").chunks[1]
            .split
            .as_ref()
            .map(|s| s.to_string()),
        Some("its arguments read global `K`, which call 1 may write".to_string())
    );
    let (v, _, fused_stats) = both(&p, "apart", r#"{"type":"Leaf"}"#, &[]);
    assert_eq!(v["n"], 5);
    assert_eq!(fused_stats.node_visits, 1);
    let (v, _, _) = both(&p, "together", r#"{"type":"Leaf"}"#, &[]);
    assert_eq!(v["n"], 6);
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(
        report.contains("not merged with the call before")
            && report.contains("1 call pairs left unmerged"),
        "{report}"
    );
}

#[test]
fn the_report_shows_loops_and_cut_off_splits() {
    let p = program();
    let fused = p.fuse_all(&FusionOptions {
        max_group: 1,
        max_repeat: 1,
    });
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(
        report.contains("while changed limit 16 (at most 16 iterations"),
        "{report}"
    );
    assert!(report.contains("--max-group"), "{report}");
    let json = treefuse_fusion::report::json_report(&p.model, &fused, &p.source);
    let chunks = &json["entries"][0]["chunks"];
    assert!(chunks[1]["split"]["reason"]
        .as_str()
        .is_some_and(|r| r.contains("--max-group")));
    let dot = treefuse_fusion::report::dot(&p.model, &fused, &p.source);
    assert!(dot.contains("not merged: cut-off"), "{dot}");
}
