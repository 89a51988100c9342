//! `while COND limit N` and `break;` in traversals and `fuse` items
//! (LANGUAGE §8.6): results and visit counts computed by hand, the same in
//! both engines, loop statistics by source position, and how the fuser
//! treats a loop.

use treefuse::{compile_source, Engine, FusionOptions, Host, Program, RunError, RunStats, Tree};
use treefuse_runtime::{diff_globals, diff_trees};

fn program(src: &str) -> Program {
    compile_source("loops.tf", src).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs `fuse` in both engines; checks they agree and returns the output
/// JSON and the (unfused, fused) run statistics.
fn both(
    program: &Program,
    fuse: &str,
    tree: &str,
    args: &[(&str, &str)],
) -> (serde_json::Value, RunStats, RunStats) {
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
    assert_eq!(sa.traversal_loops, sb.traversal_loops, "loop statistics");
    assert_eq!(sa.loop_iterations, sb.loop_iterations, "fuse item loops");
    let json = treefuse_runtime::write_tree(&program.model, &a, Some(&ga), Default::default());
    (serde_json::from_str(&json).unwrap(), sa, sb)
}

/// The runtime error of both engines (they must agree).
fn both_fail(program: &Program, fuse: &str, tree: &str, args: &[(&str, &str)]) -> String {
    let fused = program.fuse_all(&FusionOptions::default());
    let input = program.read_tree(fuse, tree).unwrap();
    let values = program.fuse_args(fuse, args).unwrap();
    let mut errors = Vec::new();
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = input.clone();
        match program.run_tree_with(fuse, &mut t, values.clone(), &Host::new(), engine) {
            Err(RunError::Runtime(e)) => errors.push(e),
            other => panic!("expected a runtime error, got {other:?}"),
        }
    }
    assert_eq!(errors[0], errors[1], "both engines raise the same error");
    errors.remove(0)
}

/// (line, col, entered, iterations) of every traversal loop.
fn loop_stats(p: &Program, s: &RunStats) -> Vec<(usize, usize, u64, u64)> {
    let lines = treefuse_syntax::LineIndex::new(&p.source);
    s.traversal_loops
        .iter()
        .map(|l| {
            let (line, col) = lines.line_col(&p.source, l.span.start as usize);
            (line, col, l.entered, l.iterations)
        })
        .collect()
}

fn report(p: &Program) -> String {
    let fused = p.fuse_all(&FusionOptions::default());
    treefuse_fusion::report::text_report(&p.model, &fused, &p.source)
}

/// The fixpoint of LANGUAGE §8.6, per function of a program.
const FIXPOINT: &str = r#"tree Prog {
    child funcs: [Func];
    traversal optimize() { for f in self.funcs { f.optimize(); } }
}
tree Func {
    child body: Block;
    changed: bool;
    rounds: i64;
    traversal optimize() {
        self.changed = true;
        while self.changed limit 8 {
            self.changed = false;
            self.body.propagate();
            self.body.fold();
            self.changed = self.body.changed;
            self.rounds = self.rounds + 1;
        }
    }
}
tree Block {
    child items: [Item];
    changed: bool;
    traversal propagate() { for x in self.items { x.propagate(); } }
    traversal fold() {
        self.changed = false;
        for x in self.items {
            x.fold();
            if x.changed { self.changed = true; }
        }
    }
}
tree Item {
    v: i64;
    target: i64;
    changed: bool;
    traversal propagate() {}
    traversal fold() {
        self.changed = false;
        if self.v < self.target {
            self.v = self.v + 1;
            self.changed = true;
        }
    }
}
fuse opt(root: Prog) { root.optimize(); }
"#;

const FUNCS: &str = r#"{"type":"Prog","funcs":[
    {"type":"Func","body":{"type":"Block","items":[
        {"type":"Item","v":0,"target":3},{"type":"Item","v":5,"target":5}]}},
    {"type":"Func","body":{"type":"Block","items":[{"type":"Item","v":2,"target":2}]}},
    {"type":"Func","body":{"type":"Block","items":[
        {"type":"Item","v":0,"target":1},{"type":"Item","v":0,"target":2}]}}]}"#;

#[test]
fn a_fixpoint_per_node_runs_until_nothing_changes() {
    let p = program(FIXPOINT);
    let (v, unfused, fused) = both(&p, "opt", FUNCS, &[]);
    let f = &v["funcs"];
    // Three rounds raise the first item to 3, the fourth changes nothing.
    assert_eq!(f[0]["rounds"], 4);
    assert_eq!(f[0]["body"]["items"][0]["v"], 3);
    assert_eq!(f[0]["body"]["items"][1]["v"], 5);
    // Nothing to do: one round.
    assert_eq!(f[1]["rounds"], 1);
    // Two rounds change something, the third nothing.
    assert_eq!(f[2]["rounds"], 3);
    assert_eq!(f[2]["body"]["items"][0]["v"], 1);
    assert_eq!(f[2]["body"]["items"][1]["v"], 2);
    for i in 0..3 {
        assert_eq!(f[i]["changed"], false);
    }
    // Unfused: Prog 1; each Func 1 + rounds * (Block.propagate +
    // Block.fold + two visits per item): 1 + 4 * 6, 1 + 1 * 4, 1 + 3 * 6.
    assert_eq!(unfused.node_visits, 1 + 25 + 5 + 19);
    // Fused: the two calls of an iteration on `self.body` are one fused
    // call, whose merged loop visits each item once: each Func 1 + rounds
    // * (Block + one visit per item): 1 + 4 * 3, 1 + 1 * 2, 1 + 3 * 3.
    assert_eq!(fused.node_visits, 1 + 13 + 3 + 10);
    // The loop at 11:9 ran once per function, 4 + 1 + 3 iterations.
    assert_eq!(loop_stats(&p, &unfused), vec![(11, 9, 3, 8)]);
    assert_eq!(loop_stats(&p, &fused), vec![(11, 9, 3, 8)]);
    assert_eq!(unfused.traversal_loops[0].iterations, 8);
    assert_eq!(
        p.model.body_name(unfused.traversal_loops[0].body),
        "Func.optimize"
    );
}

#[test]
fn the_limit_is_any_i64_expression_evaluated_once() {
    let src = r#"global G: i64 = 2;
tree Leaf {
    n: i64;
    max: i64;
    a: i64;
    b: i64;
    c: i64;
    traversal byparam(k: i64) {
        while true limit k { self.a = self.a + 1; k = k + 1; }
    }
    traversal byfield() {
        while true limit self.max { self.b = self.b + 1; self.max = self.max + 10; }
    }
    traversal byglobal() {
        while self.c < 100 limit G * 2 { self.c = self.c + 1; G = G + 1; }
    }
    traversal bump() { self.n = self.n + 1; }
}
fuse run(root: Leaf, k: i64) { root.byparam(k); root.byfield(); root.byglobal(); }
fuse rep(root: Leaf, k: i64) {
    while true limit k - G {
        root.bump();
        G = G - 1;
    }
}
"#;
    let p = program(src);
    let tree = r#"{"type":"Leaf","max":3}"#;
    let (v, unfused, fused) = both(&p, "run", tree, &[("k", "4")]);
    // The limits are 4 (the parameter as passed), 3 (the field as the loop
    // started) and 4 (2 * G as the loop started), though the bodies
    // change what they were computed from.
    assert_eq!(v["a"], 4);
    assert_eq!(v["b"], 3);
    assert_eq!(v["max"], 33);
    assert_eq!(v["c"], 4);
    assert_eq!(v["globals"]["G"], 6);
    assert_eq!(unfused.node_visits, 3);
    assert_eq!(fused.node_visits, 1, "the three traversals fuse");
    assert_eq!(
        loop_stats(&p, &fused),
        vec![(9, 9, 1, 4), (12, 9, 1, 3), (15, 9, 1, 4)]
    );
    // In a fuse item: `k - G` once, 5 - 2 = 3, though `G` goes down.
    let (v, unfused, fused) = both(&p, "rep", tree, &[("k", "5")]);
    assert_eq!(v["n"], 3);
    assert_eq!(v["globals"]["G"], -1);
    assert_eq!(unfused.loop_iterations, vec![3]);
    assert_eq!(fused.loop_iterations, vec![3]);
    assert_eq!(unfused.node_visits, 3);
    assert_eq!(fused.node_visits, 3);
}

#[test]
fn a_limit_of_zero_or_less_runs_no_iteration_and_reads_no_condition() {
    // The condition divides by zero: evaluating it is a runtime error.
    let src = r#"global Z: i64 = 0;
tree Leaf {
    n: i64;
    zero: i64;
    traversal f(k: i64) {
        while 1 / self.zero == 0 limit k { self.n = self.n + 1; }
        self.n = self.n + 100;
    }
}
fuse run(root: Leaf, k: i64) {
    root.f(k);
    while 1 / Z == 0 limit k - 1 { root.f(0); }
}
"#;
    let p = program(src);
    let tree = r#"{"type":"Leaf"}"#;
    for k in ["0", "-5"] {
        let (v, unfused, fused) = both(&p, "run", tree, &[("k", k)]);
        assert_eq!(v["n"], 100);
        assert_eq!(unfused.loop_iterations, vec![0]);
        assert_eq!(loop_stats(&p, &unfused), vec![(6, 9, 1, 0)]);
        assert_eq!(fused.node_visits, 1);
    }
    // With a limit of 1 the condition is read, and fails.
    let e = both_fail(&p, "run", tree, &[("k", "1")]);
    assert!(e.contains("loops.tf:6:15") && e.contains("by zero"), "{e}");
}

#[test]
fn break_ends_the_loop_in_traversals_and_fuse_items() {
    let src = r#"global hits: i64 = 0;
tree Leaf {
    n: i64;
    after: i64;
    traversal f() {
        while true limit 100 {
            self.n = self.n + 1;
            if self.n % 3 == 0 { break; }
            hits = hits + 1;
        }
        self.after = self.n * 10;
    }
}
fuse run(root: Leaf) {
    while true limit 10 {
        root.f();
        break;
    }
    root.f();
}
"#;
    let p = program(src);
    let (v, unfused, fused) = both(&p, "run", r#"{"type":"Leaf"}"#, &[]);
    // First call: n 1, 2 (hits 2), 3 breaks; the item's loop breaks after
    // one iteration; second call: n 4, 5 (hits 4), 6 breaks.
    assert_eq!(v["n"], 6);
    assert_eq!(v["after"], 60);
    assert_eq!(v["globals"]["hits"], 4);
    assert_eq!(unfused.loop_iterations, vec![1]);
    assert_eq!(loop_stats(&p, &unfused), vec![(6, 9, 2, 6)]);
    assert_eq!(unfused.node_visits, 2);
    assert_eq!(fused.node_visits, 2);
    assert_eq!(fused.visits_per_call, vec![1, 1]);
}

#[test]
fn return_inside_a_loop_ends_the_traversal_only() {
    let src = r#"tree Leaf {
    n: i64;
    after: i64;
    other: i64;
    traversal f() {
        while true limit 10 {
            self.n = self.n + 1;
            if self.n == 2 { return; }
        }
        self.after = 1;
    }
    traversal g() { self.other = self.n * 5; }
}
fuse run(root: Leaf) { root.f(); root.g(); }
"#;
    let p = program(src);
    let (v, unfused, fused) = both(&p, "run", r#"{"type":"Leaf"}"#, &[]);
    assert_eq!(v["n"], 2);
    assert_eq!(v["after"], 0);
    assert_eq!(v["other"], 10);
    assert_eq!(loop_stats(&p, &unfused), vec![(6, 9, 1, 2)]);
    assert_eq!(unfused.node_visits, 2);
    assert_eq!(fused.node_visits, 1, "f and g fuse around the loop");
}

#[test]
fn a_loop_calls_traversals_on_self_and_on_children() {
    let src = r#"tree Node {
    child l: Leaf;
    child r: Leaf;
    n: i64;
    traversal grow() {
        while self.n < 3 limit 10 {
            self.bump();
            self.l.inc(self.n);
            self.r.inc(1);
        }
    }
    traversal bump() { self.n = self.n + 1; }
    traversal tag() { self.l.inc(100); }
}
tree Leaf {
    v: i64;
    traversal inc(d: i64) { self.v = self.v + d; }
}
fuse run(root: Node) { root.grow(); root.tag(); root.grow(); }
"#;
    let p = program(src);
    let tree = r#"{"type":"Node","l":{"type":"Leaf"},"r":{"type":"Leaf"}}"#;
    let (v, unfused, fused) = both(&p, "run", tree, &[]);
    // n 1, 2, 3: l gets 1 + 2 + 3, r 1 three times; then 100 on l; the
    // second grow finds n = 3 and runs no iteration.
    assert_eq!(v["n"], 3);
    assert_eq!(v["l"]["v"], 106);
    assert_eq!(v["r"]["v"], 3);
    assert_eq!(loop_stats(&p, &unfused), vec![(6, 9, 2, 3)]);
    // grow 1 + 3 * (bump, l.inc, r.inc); tag 1 + 1; grow 1.
    assert_eq!(unfused.node_visits, 10 + 2 + 1);
    // Fused: one visit of the root for the three calls, the loop's calls
    // as in the unfused run (9), and `tag`'s call on `l` (1).
    assert_eq!(fused.node_visits, 1 + 9 + 1);
    let r = report(&p);
    assert!(
        r.contains(
            "calls a traversal on `self.l` inside a `while` loop, which the fuser keeps whole"
        ),
        "{r}"
    );
}

#[test]
fn calls_around_a_loop_still_fuse() {
    let src = r#"tree Root {
    child c: Leaf;
    s: i64;
    traversal a() {
        self.c.x();
        while self.s < 5 limit 10 { self.s = self.s + 2; }
    }
    traversal b() { self.c.y(self.s); }
}
tree Leaf {
    p: i64;
    q: i64;
    traversal x() { self.p = self.p + 1; }
    traversal y(s: i64) { self.q = self.q + s; }
}
fuse run(root: Root) { root.a(); root.b(); }
"#;
    let p = program(src);
    let tree = r#"{"type":"Root","c":{"type":"Leaf"}}"#;
    let (v, unfused, fused) = both(&p, "run", tree, &[]);
    assert_eq!(v["s"], 6);
    assert_eq!(v["c"]["p"], 1);
    // `y`'s argument reads `s` after the loop wrote it.
    assert_eq!(v["c"]["q"], 6);
    assert_eq!(unfused.node_visits, 4);
    // The loop touches nothing of `c.x()`, so it runs first, and
    // `c.x(); c.y(s)` run as one fused call after it (whose argument then
    // reads `s` as the loop left it): root, c.
    assert_eq!(fused.node_visits, 2);
    let r = report(&p);
    assert!(r.contains("0 call pairs left unmerged"), "{r}");
    assert!(
        r.find("while self.s").unwrap_or(usize::MAX) < r.find("fused call on `c`").unwrap_or(0),
        "{r}"
    );
}

#[test]
fn a_runtime_error_inside_a_loop_is_the_same_in_both_engines() {
    let src = r#"tree Leaf {
    n: i64;
    d: i64;
    traversal f() {
        while true limit 10 {
            self.n = self.n + 12 / self.d;
            self.d = self.d - 1;
        }
    }
}
fuse run(root: Leaf) { root.f(); }
"#;
    let p = program(src);
    let e = both_fail(&p, "run", r#"{"type":"Leaf","d":3}"#, &[]);
    assert!(e.contains("loops.tf:6:"), "{e}");
    assert!(e.contains("in Leaf.f") && e.contains("by zero"), "{e}");
}

/// The CLI: exit 3 for the error, the same last line in both engines;
/// `--stats` names the loops by position.
#[test]
fn the_cli_reports_loop_errors_and_statistics() {
    let dir = std::env::temp_dir().join(format!("treefuse-loops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("err.tf");
    std::fs::write(
        &file,
        "tree Leaf {\n    n: i64;\n    d: i64;\n    traversal f() {\n        while true limit 10 {\n            self.n = self.n + 12 / self.d;\n            self.d = self.d - 1;\n        }\n    }\n}\nfuse run(root: Leaf) { root.f(); }\n",
    )
    .unwrap();
    let tree = dir.join("t.json");
    let run = |json: &str, engine: &str| {
        std::fs::write(&tree, json).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_treefuse"))
            .args(["run", file.to_str().unwrap(), "--fuse", "run", "--tree"])
            .arg(&tree)
            .args(["--engine", engine, "--stats"])
            .env(
                "TREEFUSE_CACHE_DIR",
                std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
            )
            .output()
            .unwrap()
    };
    let mut last = Vec::new();
    for engine in ["unfused", "fused"] {
        let o = run(r#"{"type":"Leaf","d":3}"#, engine);
        assert_eq!(o.status.code(), Some(3), "{engine}");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let line = err.lines().last().unwrap_or("").to_string();
        assert!(
            line.contains("err.tf:6:31: in Leaf.f") && line.contains("zero"),
            "{line}"
        );
        last.push(line);
    }
    assert_eq!(last[0], last[1]);
    // d = 20: ten iterations, the limit ends the loop.
    let o = run(r#"{"type":"Leaf","d":20}"#, "fused");
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let stats: serde_json::Value = serde_json::from_str(err.lines().last().unwrap_or("")).unwrap();
    let loops = stats["traversal_loops"].as_array().unwrap();
    assert_eq!(loops.len(), 1, "{stats}");
    assert!(loops[0]["file"].as_str().unwrap().ends_with("err.tf"));
    for (key, value) in [
        ("traversal", serde_json::json!("Leaf.f")),
        ("line", serde_json::json!(5)),
        ("col", serde_json::json!(9)),
        ("entered", serde_json::json!(1)),
        ("iterations", serde_json::json!(10)),
    ] {
        assert_eq!(loops[0][key], value, "{key}");
    }
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(out["d"], 10);
}

/// Loops in bodies that do not run are listed with zero counts.
#[test]
fn loops_that_never_run_are_counted_as_zero() {
    let src = r#"tree Leaf {
    n: i64;
    traversal f() { self.n = 1; }
    traversal g() {
        while self.n < 5 limit self.n + 1 { self.n = self.n + 1; }
    }
}
fuse run(root: Leaf) { root.f(); }
"#;
    let p = program(src);
    let (_, unfused, _) = both(&p, "run", r#"{"type":"Leaf"}"#, &[]);
    assert_eq!(loop_stats(&p, &unfused), vec![(5, 9, 0, 0)]);
}
