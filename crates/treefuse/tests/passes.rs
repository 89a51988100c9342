//! Passes as small as their logic (LANGUAGE.md §8.1–§8.4): default walks,
//! `impl` blocks and programs of several files, subtypes' own defaults and
//! aliases through casts. Results computed by hand, the same in both
//! engines; walks fuse exactly as the recursion they stand for.

mod support;

use treefuse::{compile_file, compile_source, Engine, FusionOptions, Host, Program};
use treefuse_runtime::{diff_globals, diff_trees, random_tree, GenOptions};

fn repo(path: &str) -> String {
    format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `fuse` on `json` in both engines, checks that they agree, and
/// returns the unfused output, its visits per call and the fused visits.
fn run_both(program: &Program, fuse: &str, json: &str) -> (serde_json::Value, Vec<u64>, u64) {
    let fused = program.fuse_all(&FusionOptions::default());
    let input = program.read_tree(fuse, json).unwrap();
    let (mut a, mut b) = (input.clone(), input);
    let host = Host::new();
    let (su, gu) = program
        .run_tree_with(fuse, &mut a, Vec::new(), &host, Engine::Unfused)
        .unwrap();
    let (sf, gf) = program
        .run_tree_with(fuse, &mut b, Vec::new(), &host, Engine::Fused(&fused))
        .unwrap();
    let mut d = diff_trees(&program.model, &a, &b, 3);
    d.extend(diff_globals(&program.model, &gu, &gf));
    assert!(d.is_empty(), "fused differs: {d:?}");
    let out = treefuse_runtime::write_tree(&program.model, &a, Some(&gu), Default::default());
    (
        serde_json::from_str(&out).unwrap(),
        su.visits_per_call,
        sf.node_visits,
    )
}

/// `examples/passes`: fold (post-order, replacing), depth (one body on the
/// base type with `walk(d + 1)`), names (a cast alias of a loop variable),
/// every pass reaching its nodes by default walks.
#[test]
fn passes_example_by_hand() {
    let program = compile_file(repo("examples/passes/passes.tf")).unwrap();
    let json = std::fs::read_to_string(repo("examples/passes/module.json")).unwrap();
    let (out, per_call, fused) = run_both(&program, "all", &json);
    // fold: 2 additions folded (1+2, 3+4), -5 folded without counting.
    // depth: the variables below Neg and Add (1 each) and `yy` (1).
    // names: x (1), yy (2), let x (10), let zz (20).
    assert_eq!(
        out["globals"],
        serde_json::json!({"FOLDS": 2, "NAMES": 33, "DEPTHS": 3})
    );
    // fold visits the 20 nodes of the input; the 15 nodes after folding
    // are visited by depth and by names.
    assert_eq!(per_call, vec![20, 15, 15]);
    assert_eq!(fused, 26);
    let body = &out["funcs"][0]["body"]["body"];
    // A folded literal built by `new` takes IntLit's own defaults.
    assert_eq!(
        body[0]["value"],
        serde_json::json!({"type": "IntLit", "line": 2, "ty": "Int", "pure_": true, "v": 3})
    );
    assert_eq!(body[1]["args"][1]["l"]["v"], 7);
    assert_eq!(body[1]["args"][1]["r"]["type"], "Var");
    // The empty print became an empty block (its walk did not run).
    assert_eq!(
        body[2],
        serde_json::json!({"type": "Block", "line": 0, "body": []})
    );
    assert_eq!(body[3]["body"][0]["value"]["v"], -5);
    assert_eq!(body[3]["body"][0]["value"]["ty"], "Int");
    support::differential::compare_on_random_trees(&program, "all", 60);
}

/// A program whose rules live in several files (`examples/rules`, a
/// directory): `impl` blocks add each rule to the shared types.
#[test]
fn rules_in_several_files() {
    let program = compile_file(repo("examples/rules")).unwrap();
    assert!(program.sources.is_multi_file());
    let json = std::fs::read_to_string(repo("examples/rules/module.json")).unwrap();
    let (out, per_call, fused) = run_both(&program, "lint", &json);
    assert_eq!(
        out["globals"],
        serde_json::json!({
            "E711": [[1013, 1], [6009, 1]],
            "E712": [[2004, 1]],
            "E731": [[1001, 1]],
        })
    );
    // Each rule visits the 21 nodes; fused, the three walks are one.
    assert_eq!(per_call, vec![21, 21, 21]);
    assert_eq!(fused, 21);
    support::differential::compare_on_random_trees(&program, "lint", 60);
}

/// Diagnostics and runtime errors of a program of several files name the
/// file they are in, with its own line numbers.
#[test]
fn several_files_name_their_files() {
    let dir = std::env::temp_dir().join(format!("treefuse-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(
        dir.join("a.tf"),
        "global N: i64 = 0;\ntree Leaf { n: i64; }\nfuse go(root: Leaf) { root.f(); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("rules/f.tf"),
        "// the rule\nimpl Leaf {\n    traversal f() { N = N / self.n; }\n}\n",
    )
    .unwrap();
    let program = compile_file(&dir).unwrap();
    let err = program
        .run_json("go", r#"{"type": "Leaf", "n": 0}"#, &[])
        .unwrap_err()
        .to_string();
    let expected = format!("{}:3:25", dir.join("rules/f.tf").display());
    assert!(err.contains(&expected), "{err}");
    // A duplicate body in a second file: both places named.
    std::fs::write(
        dir.join("rules/g.tf"),
        "impl Leaf {\n    traversal f() { N = 1; }\n}\n",
    )
    .unwrap();
    let diags = match compile_file(&dir) {
        Err(treefuse::LoadError::Invalid(d)) => d.render(false),
        _ => panic!("a duplicate traversal body must be rejected"),
    };
    assert!(diags.contains("error[duplicate-name]"), "{diags}");
    assert!(diags.contains("rules/g.tf:2:15"), "{diags}");
    assert!(diags.contains("rules/f.tf:3:15"), "{diags}");
    // An `impl` of a type no file declares.
    std::fs::write(dir.join("rules/g.tf"), "impl Leave { traversal g() {} }\n").unwrap();
    let diags = match compile_file(&dir) {
        Err(treefuse::LoadError::Invalid(d)) => d.render(false),
        _ => panic!("an impl of an unknown type must be rejected"),
    };
    assert!(diags.contains("error[impl-target]"), "{diags}");
    assert!(diags.contains("rules/g.tf:1:6"), "{diags}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same passes written with walks and spelled out by hand.
const WALKED: &str = r#"
global SUM: i64 = 0;
global SEEN: i64 = 0;
abstract tree E {
    v: i64;
    traversal fold() walk;
    traversal tally(k: i64) walk;
}
tree Lit : E {}
tree Neg : E {
    child e: E;
    traversal fold() {
        walk;
        if self.e is Lit { self = new Lit { v: 0 - self.e.v }; }
    }
}
tree Add : E {
    child l: E;
    child r: E;
    traversal fold() {
        walk;
        if self.l is Lit && self.r is Lit { self = new Lit { v: self.l.v + self.r.v }; }
    }
    traversal tally(k: i64) {
        SEEN = SEEN + 1;
        walk(k * 2);
        SUM = SUM + self.v * k;
    }
}
tree Seq : E {
    child items: [E];
    child last: E;
}
fuse go(root: E) { root.fold(); root.tally(1); }
"#;

const SPELLED: &str = r#"
global SUM: i64 = 0;
global SEEN: i64 = 0;
abstract tree E {
    v: i64;
    traversal fold();
    traversal tally(k: i64);
}
tree Lit : E {
    traversal fold() {}
    traversal tally(k: i64) {}
}
tree Neg : E {
    child e: E;
    traversal fold() {
        self.e.fold();
        if self.e is Lit { self = new Lit { v: 0 - self.e.v }; }
    }
    traversal tally(k: i64) { self.e.tally(k); }
}
tree Add : E {
    child l: E;
    child r: E;
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Lit && self.r is Lit { self = new Lit { v: self.l.v + self.r.v }; }
    }
    traversal tally(k: i64) {
        SEEN = SEEN + 1;
        let a = k * 2;
        self.l.tally(a);
        self.r.tally(a);
        SUM = SUM + self.v * k;
    }
}
tree Seq : E {
    child items: [E];
    child last: E;
    traversal fold() {
        for x in self.items { x.fold(); }
        self.last.fold();
    }
    traversal tally(k: i64) {
        for x in self.items { x.tally(k); }
        self.last.tally(k);
    }
}
fuse go(root: E) { root.fold(); root.tally(1); }
"#;

/// Walks are the spelled-out recursion: on random trees both programs
/// compute the same trees and globals with the same visits, unfused and
/// fused, and fuse into the same fused functions.
#[test]
fn walks_fuse_like_spelled_out_recursion() {
    let walked = compile_source("walked.tf", WALKED).unwrap();
    let spelled = compile_source("spelled.tf", SPELLED).unwrap();
    let (fw, fs) = (
        walked.fuse_all(&FusionOptions::default()),
        spelled.fuse_all(&FusionOptions::default()),
    );
    let names = |p: &Program, f: &treefuse::FusedProgram| -> Vec<String> {
        let mut v: Vec<String> = f
            .functions
            .iter()
            .map(|x| treefuse_fusion::report::function_name(&p.model, x))
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&walked, &fw), names(&spelled, &fs));
    let root = walked.model.type_named("E").unwrap();
    let host = Host::new();
    for seed in 0..200 {
        let opts = GenOptions {
            nodes: 60,
            seed,
            max_list: 4,
            ..Default::default()
        };
        let t = random_tree(&walked.model, root, &opts).unwrap();
        let json = treefuse_runtime::write_tree(&walked.model, &t, None, Default::default());
        let mut outs = Vec::new();
        for (p, f) in [(&walked, &fw), (&spelled, &fs)] {
            for engine in [Engine::Unfused, Engine::Fused(f)] {
                let mut tree = p.read_tree("go", &json).unwrap();
                let (stats, globals) = p
                    .run_tree_with("go", &mut tree, Vec::new(), &host, engine)
                    .unwrap();
                let out = treefuse_runtime::write_tree(
                    &p.model,
                    &tree,
                    Some(&globals),
                    Default::default(),
                );
                outs.push((out, stats.node_visits));
            }
        }
        assert_eq!(outs[0], outs[2], "seed {seed}: unfused runs differ");
        assert_eq!(outs[1], outs[3], "seed {seed}: fused runs differ");
        assert_eq!(
            outs[0].0, outs[1].0,
            "seed {seed}: fused differs from unfused"
        );
    }
}

/// `walk(args)` evaluates its arguments once, before the first child, even
/// when the node has no child to visit; a child whose type lacks the
/// traversal is skipped.
#[test]
fn walk_arguments_and_skipped_children() {
    let src = r#"
global HITS: i64 = 0;
tree Other { n: i64; }
abstract tree T {
    d: i64;
    traversal f(k: i64) walk;
}
tree Leaf : T {
    traversal f(k: i64) { self.d = k; HITS = HITS + 1; }
}
tree Node : T {
    child side: Other;
    child kids: [T];
    child one: T;
    traversal f(k: i64) {
        self.d = k;
        walk(100 / k);
    }
}
fuse go(root: T) { root.f(5); }
"#;
    let program = compile_source("walk.tf", src).unwrap();
    let json = r#"{"type": "Node", "side": {"type": "Other", "n": 1},
        "kids": [{"type": "Leaf"}, {"type": "Node", "side": {"type": "Other"}, "kids": [], "one": {"type": "Leaf"}}],
        "one": {"type": "Leaf"}}"#;
    let (out, per_call, fused) = run_both(&program, "go", json);
    assert_eq!(out["d"], 5);
    assert_eq!(out["kids"][0]["d"], 20);
    assert_eq!(out["kids"][1]["d"], 20);
    assert_eq!(out["kids"][1]["one"]["d"], 5);
    assert_eq!(out["one"]["d"], 20);
    assert_eq!(out["globals"]["HITS"], 3);
    // The `Other` child has no `f`: 5 visits, not 7.
    assert_eq!((per_call, fused), (vec![5], 5));
    // 100 / k with k = 0 fails at the walk even on a node with no children
    // of a type that has `f`.
    let zero =
        r#"{"type": "Node", "side": {"type": "Other"}, "kids": [], "one": {"type": "Leaf"}}"#;
    let src0 = src.replace("root.f(5)", "root.f(0)");
    let program = compile_source("walk.tf", &src0).unwrap();
    let err = program.run_json("go", zero, &[]).unwrap_err().to_string();
    assert!(err.contains("walk.tf:17:14"), "{err}");
    assert!(err.contains("division"), "{err}");
}

/// §8.3: a subtype's default is used by `new`, by JSON input without the
/// field, by random trees, and inherited by its own subtypes.
#[test]
fn subtype_defaults() {
    let src = r#"
enum Ty { Unknown, Int, Str }
abstract tree Expr { ty: Ty; size: i64 = 8; }
tree IntLit : Expr { ty = Ty::Int; v: i64; }
tree SmallInt : IntLit { size = 1; }
tree StrLit : Expr { ty = Ty::Str; size = 16; }
tree Pair : Expr {
    child a: Expr;
    child b: Expr;
    traversal make() { self.b = new SmallInt { v: 3 }; }
}
fuse go(root: Pair) { root.make(); }
"#;
    let program = compile_source("defaults.tf", src).unwrap();
    let json = r#"{"type": "Pair", "a": {"type": "StrLit"}, "b": {"type": "IntLit", "v": 1}}"#;
    let (out, _, _) = run_both(&program, "go", json);
    assert_eq!(
        out["a"],
        serde_json::json!({"type": "StrLit", "ty": "Str", "size": 16})
    );
    assert_eq!(
        out["b"],
        serde_json::json!({"type": "SmallInt", "ty": "Int", "size": 1, "v": 3})
    );
    assert_eq!(out["ty"], "Unknown");
    assert_eq!(out["size"], 8);
    // Random trees keep every type's own defaults.
    let root = program.model.type_named("Pair").unwrap();
    let mut checked = 0;
    for seed in 0..20 {
        let t = random_tree(
            &program.model,
            root,
            &GenOptions {
                nodes: 30,
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        let out: serde_json::Value = serde_json::from_str(&treefuse_runtime::write_tree(
            &program.model,
            &t,
            None,
            Default::default(),
        ))
        .unwrap();
        let mut stack = vec![out];
        while let Some(n) = stack.pop() {
            match n["type"].as_str() {
                Some("SmallInt") => {
                    assert_eq!(
                        (n["ty"].as_str(), n["size"].as_i64()),
                        (Some("Int"), Some(1))
                    );
                    checked += 1;
                }
                Some("StrLit") => {
                    assert_eq!(
                        (n["ty"].as_str(), n["size"].as_i64()),
                        (Some("Str"), Some(16))
                    );
                    checked += 1;
                }
                Some("IntLit") => assert_eq!(n["ty"], "Int"),
                _ => {}
            }
            for k in ["a", "b"] {
                if n[k].is_object() {
                    stack.push(n[k].clone());
                }
            }
        }
    }
    assert!(checked > 0);
}

/// §8.4: `let l = (s as Let);` aliases a loop variable by its type; the
/// cast is checked at the `let`, in both engines.
#[test]
fn cast_aliases() {
    let src = r#"
global N: i64 = 0;
abstract tree Stmt { traversal go() {} }
tree Let : Stmt { v: i64; child e: Expr; }
tree Nop : Stmt {}
abstract tree Expr {}
tree IntLit : Expr { v: i64; }
tree Neg : Expr { child e: Expr; }
tree Block : Stmt {
    child stmts: [Stmt];
    traversal go() {
        for s in self.stmts {
            if s is Let {
                let l = (s as Let);
                N = N + l.v;
                l.v = l.v * 10;
                let n = ((s as Let).e as IntLit);
                n.v = n.v + 1;
            }
            s.go();
        }
    }
}
fuse f(root: Block) { root.go(); }
"#;
    let program = compile_source("cast.tf", src).unwrap();
    let json = r#"{"type": "Block", "stmts": [
        {"type": "Let", "v": 3, "e": {"type": "IntLit", "v": 5}},
        {"type": "Nop"},
        {"type": "Let", "v": 4, "e": {"type": "IntLit"}}]}"#;
    let (out, per_call, _) = run_both(&program, "f", json);
    assert_eq!(out["globals"]["N"], 7);
    assert_eq!(out["stmts"][0]["v"], 30);
    assert_eq!(out["stmts"][0]["e"]["v"], 6);
    assert_eq!(out["stmts"][2]["e"]["v"], 1);
    assert_eq!(per_call, vec![4]);
    // A `Neg` where the alias expects an `IntLit`: a runtime error at the
    // `let`, in both engines.
    let bad = json.replace(
        r#"{"type": "IntLit"}"#,
        r#"{"type": "Neg", "e": {"type": "IntLit"}}"#,
    );
    let fused = program.fuse_all(&FusionOptions::default());
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = program.read_tree("f", &bad).unwrap();
        let e = program
            .run_tree_with("f", &mut t, Vec::new(), &Host::new(), engine)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cast.tf:17:25"), "{e}");
    }
}
