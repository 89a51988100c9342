//! Tree folding (`examples/treefold/treefold.tf`) on hand-computed cases
//! and on the simulated recorder's trees (`treefuse_casegen::treefold`):
//! the results the seed describes, fused ≡ unfused, and folding that keeps
//! what one loop iteration computes.
//!
//! `examples/treefold/cases/NAME.json` is an input tree, `NAME.expected`
//! the folded tree computed by hand, in the notation of [`render`] (one
//! instruction a line, a secondary trace indented under its guard), and a
//! last line with the globals and the `while` iterations.

mod support;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use treefuse::{compile_source, Engine, FusedProgram, FusionOptions, Host, Program};
use treefuse_casegen::treefold::{self as tf, LoopBody, Machine};

fn example_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/treefold")
}

fn program_source() -> String {
    fs::read_to_string(example_dir().join("treefold.tf")).unwrap()
}

fn program() -> &'static (Program, FusedProgram) {
    static P: OnceLock<(Program, FusedProgram)> = OnceLock::new();
    P.get_or_init(|| {
        let p = compile_source("treefold.tf", &program_source()).unwrap_or_else(|d| panic!("{d}"));
        let f = p.fuse_all(&FusionOptions::default());
        (p, f)
    })
}

/// What a run of `fold` gives: the output tree with `"globals"`, and the
/// statistics.
struct Folded {
    tree: Value,
    node_visits: u64,
    iterations: Vec<u64>,
}

fn run(p: &Program, fused: Option<&FusedProgram>, input: &str) -> Folded {
    let mut tree = p.read_tree("fold", input).unwrap();
    let engine = match fused {
        Some(f) => Engine::Fused(f),
        None => Engine::Unfused,
    };
    let (stats, globals) = p
        .run_tree_with("fold", &mut tree, Vec::new(), &Host::new(), engine)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = treefuse_runtime::write_tree(&p.model, &tree, Some(&globals), Default::default());
    Folded {
        tree: serde_json::from_str(&out).unwrap(),
        node_visits: stats.node_visits,
        iterations: stats.loop_iterations,
    }
}

/// Folds unfused and fused, checks both agree (tree, globals, iterations),
/// and returns the fused run.
fn fold_both(input: &str) -> (Folded, Folded) {
    let (p, f) = program();
    let unfused = run(p, None, input);
    let fused = run(p, Some(f), input);
    assert_eq!(fused.tree, unfused.tree, "fused and unfused trees differ");
    assert_eq!(fused.iterations, unfused.iterations);
    (unfused, fused)
}

fn global(tree: &Value, name: &str) -> i64 {
    tree["globals"][name]
        .as_i64()
        .unwrap_or_else(|| panic!("no global {name}"))
}

fn snapshot(node: &Value) -> String {
    let pairs: Vec<String> = node["snapshot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{}={}", p[0].as_str().unwrap(), p[1]))
        .collect();
    format!("{{{}}}", pairs.join(" "))
}

fn render_trace(trace: &Value, indent: usize, out: &mut String) {
    for i in trace["ins"].as_array().unwrap() {
        assert_eq!(
            i["dead"],
            Value::Bool(false),
            "a dead instruction was left: {i}"
        );
        let pad = " ".repeat(indent);
        let line = match i["type"].as_str().unwrap() {
            "Const" => format!("Const {} = {}", i["id"], i["value"]),
            "Mov" => format!("Mov {} = {}", i["id"], i["src"]),
            "Arith" => format!(
                "Arith {} = {} {} {}",
                i["id"],
                i["op"].as_str().unwrap(),
                i["a"],
                i["b"]
            ),
            "Load" => format!("Load {} = [{}]", i["id"], i["addr"]),
            "Store" => format!("Store [{}] = {}", i["addr"], i["val"]),
            "Alloc" => format!("Alloc {} size {}", i["id"], i["size"]),
            "Sync" => "Sync".to_string(),
            "CMov" => format!(
                "CMov {} = {} ? {} : {}",
                i["id"], i["cond"], i["if_true"], i["if_false"]
            ),
            "Guard" => format!(
                "Guard pc {}: {} == {} {} {}",
                i["pc"],
                i["cond"],
                i["expect"],
                snapshot(i),
                i["verdict"].as_str().unwrap()
            ),
            "LoopEnd" => format!("LoopEnd pc {} {}", i["pc"], snapshot(i)),
            other => panic!("unknown instruction {other}"),
        };
        writeln!(out, "{pad}{line}").unwrap();
        if i["type"] == "Guard" && i["side"]["type"] == "Trace" {
            render_trace(&i["side"], indent + 2, out);
        }
    }
}

/// The folded tree in the notation of `cases/*.expected`.
fn render(folded: &Folded) -> String {
    let mut out = String::new();
    render_trace(&folded.tree, 0, &mut out);
    let t = &folded.tree;
    writeln!(
        out,
        "traces {}, cmovs {}, folded {}, blocked {}, iterations {}",
        global(t, "traces"),
        global(t, "cmovs"),
        global(t, "folded"),
        global(t, "blocked"),
        folded.iterations[0]
    )
    .unwrap();
    out
}

#[test]
fn hand_computed_cases_fold_as_expected_in_every_engine() {
    let dir = example_dir().join("cases");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "cases are missing");
    let (p, _) = program();
    let cutoffs = [(1, 1), (2, 1), (64, 4)];
    for case in &cases {
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let input = fs::read_to_string(case).unwrap();
        let want = fs::read_to_string(case.with_extension("expected")).unwrap();
        let unfused = run(p, None, &input);
        assert_eq!(render(&unfused), want, "{name}, unfused");
        for (max_group, max_repeat) in cutoffs {
            let f = p.fuse_all(&FusionOptions {
                max_group,
                max_repeat,
            });
            let fused = run(p, Some(&f), &input);
            assert_eq!(
                fused.tree, unfused.tree,
                "{name}, fused {max_group}/{max_repeat}"
            );
        }
    }
}

/// Random starting states: variables in -3..4, memory words 0..12 in 0..2.
fn machines(body: &LoopBody, seed: u64, n: usize) -> Vec<Machine> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| Machine {
            vars: body
                .vars()
                .iter()
                .map(|v| (v.clone(), rng.gen_range(-3..4)))
                .collect(),
            memory: (0..12).map(|a| (a, rng.gen_range(0..2))).collect(),
            allocations: 0,
        })
        .collect()
}

/// The folded tree runs one loop iteration exactly as the body does.
fn assert_same_iteration(body: &LoopBody, folded: &Value, what: &str) {
    for m in machines(body, 7, 40) {
        let by_tree = tf::run_tree(body, folded, &m).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(by_tree, tf::run_source(body, &m), "{what}: start {m:?}");
    }
}

#[test]
fn k_mins_fold_to_one_trace_and_k_conditional_moves() {
    for k in [1, 2, 3, 5, 8] {
        for seed in 0..3 {
            let body = tf::min_body(k, seed);
            let tree = tf::min_tree(k, seed).unwrap();
            let before = tf::tree_size(&tree).unwrap();
            assert_eq!(before.traces, k + 1, "a secondary trace at every side exit");
            let (_, fused) = fold_both(&tree.to_string());
            let t = &fused.tree;
            assert_eq!(global(t, "traces"), 1, "k = {k}, seed {seed}");
            assert_eq!(global(t, "cmovs"), k as i64);
            assert_eq!(global(t, "blocked"), 0);
            // Every site is found at once: one folding iteration, one to see
            // that nothing changes.
            assert_eq!(fused.iterations, [2]);
            assert_eq!(tf::tree_size(t).unwrap().primary_guards, 0);
            assert_same_iteration(&body, t, &format!("min k = {k}, seed {seed}"));
        }
    }
}

#[test]
fn nested_ifs_fold_inner_first_in_at_most_two_iterations_per_level() {
    for depth in 1..=6 {
        for seed in 0..3 {
            let body = tf::nested_body(depth, seed);
            let tree = tf::nested_tree(depth, seed).unwrap();
            let (_, fused) = fold_both(&tree.to_string());
            let t = &fused.tree;
            assert_eq!(global(t, "traces"), 1, "depth {depth}, seed {seed}");
            assert_eq!(global(t, "cmovs"), depth as i64);
            let iterations = fused.iterations[0];
            assert!(
                iterations <= 2 * depth as u64,
                "{iterations} iterations for depth {depth}"
            );
            // One level per iteration, and one more to see nothing changes.
            assert_eq!(iterations, depth as u64 + 1);
            assert_same_iteration(&body, t, &format!("nested {depth}, seed {seed}"));
        }
    }
}

#[test]
fn the_innermost_if_folds_first() {
    // The same program stopped after one iteration of its loop.
    let source = program_source().replace("while changed limit 1000", "while changed limit 1");
    assert_ne!(source, program_source(), "the loop header changed");
    let p = compile_source("treefold.tf", &source).unwrap();
    let depth = 4;
    let tree = tf::nested_tree(depth, 1).unwrap();
    let once = run(&p, None, &tree.to_string());
    let pcs = |t: &Value| -> Vec<i64> {
        t["ins"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "Guard")
            .map(|i| i["pc"].as_i64().unwrap())
            .collect()
    };
    let all = pcs(&tree);
    assert_eq!(all.len(), depth);
    // Only the innermost guard (the last on the primary trace) is gone.
    assert_eq!(pcs(&once.tree), all[..depth - 1]);
    assert_eq!(global(&once.tree, "cmovs"), 1);
}

#[test]
fn stores_allocations_and_synchronizations_between_split_and_merge_block_folding() {
    use tf::{BinOp, Expr, Stmt};
    let min = |then_extra: Vec<Stmt>, else_extra: Vec<Stmt>| {
        let mut then = vec![Stmt::Assign("a".into(), Expr::var("b"))];
        then.extend(then_extra);
        let mut els = vec![Stmt::Assign("a".into(), Expr::var("c"))];
        els.extend(else_extra);
        Stmt::If {
            cond: Expr::bin(BinOp::Lt, Expr::var("b"), Expr::var("c")),
            then,
            els,
            first: true,
        }
    };
    let cases = [
        ("Store", vec![Stmt::Store(3, Expr::var("a"))], vec![]),
        ("Alloc", vec![], vec![Stmt::Alloc("o".into(), 4)]),
        ("Sync", vec![Stmt::Sync], vec![]),
    ];
    for (reason, then_extra, else_extra) in cases {
        // A store before the split changes nothing: only the strands count.
        let body = LoopBody::new(&[
            Stmt::Store(1, Expr::var("b")),
            min(vec![], vec![]),
            min(then_extra, else_extra),
        ]);
        let mut tree = tf::record_primary(&body);
        while tf::record_side_exit(&body, &mut tree).unwrap().is_some() {}
        let (_, fused) = fold_both(&tree.to_string());
        let t = &fused.tree;
        assert_eq!(global(t, "blocked"), 1, "{reason}");
        // The first min folds, the second stays with its secondary trace.
        assert_eq!(global(t, "cmovs"), 1, "{reason}");
        assert_eq!(global(t, "traces"), 2, "{reason}");
        let guards: Vec<&Value> = t["ins"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "Guard")
            .collect();
        assert_eq!(guards.len(), 1);
        assert_eq!(guards[0]["verdict"], reason);
        assert_same_iteration(&body, t, reason);
    }
}

#[test]
fn game_of_life_inlines_all_eight_ifs_by_recording_again() {
    for seed in 0..3 {
        let body = tf::life_body(8, seed);
        let tree = tf::life_tree(8, seed).unwrap();
        let mut cmovs = 0;
        let (rounds, last) = tf::record_and_fold(&body, tree, 20, |t| {
            let (_, fused) = fold_both(&t.to_string());
            assert_eq!(global(&fused.tree, "traces"), 1);
            cmovs += global(&fused.tree, "cmovs");
            assert_same_iteration(&body, &fused.tree, "life");
            Ok::<Value, tf::TreeError>(fused.tree)
        })
        .unwrap();
        assert_eq!(rounds.len(), 8, "one if inlined per round (seed {seed})");
        for (i, r) in rounds.iter().enumerate() {
            assert_eq!(r.recorded.traces, 2, "round {i}");
            assert_eq!(r.folded.traces, 1, "round {i}");
            assert_eq!(r.folded.primary_guards, 7 - i, "round {i}");
            // The secondary trace of round i runs to the loop end; folding
            // keeps only its first strand.
            assert!(r.folded.instructions < r.recorded.instructions);
        }
        assert_eq!(rounds[7].next_exit, None);
        assert_eq!(cmovs, 8);
        assert_eq!(tf::tree_size(&last).unwrap().primary_guards, 0);
    }
}

/// The node visits in the table of `examples/treefold/README.md` (seed 0).
#[test]
fn fusion_saves_the_visits_the_readme_reports() {
    let cases = [
        ("treefold-min 10", tf::min_tree(10, 0).unwrap(), 659, 524),
        (
            "treefold-nested 10",
            tf::nested_tree(10, 0).unwrap(),
            2_261,
            1_667,
        ),
        ("treefold-life 8", tf::life_tree(8, 0).unwrap(), 304, 228),
    ];
    for (name, tree, unfused_visits, fused_visits) in cases {
        let (unfused, fused) = fold_both(&tree.to_string());
        assert_eq!(
            (unfused.node_visits, fused.node_visits),
            (unfused_visits, fused_visits),
            "{name}"
        );
    }
}

/// Schema-random trees (value numbers, snapshots and attached traces at
/// random, so most guards are refused and some traces fold): fused ≡
/// unfused.
#[test]
fn fused_equals_unfused_on_random_trees() {
    let (p, _) = program();
    let (unfused, fused) = support::differential::compare_on_random_trees(p, "fold", 40);
    assert!(fused < unfused, "{fused} fused visits, {unfused} unfused");
}
