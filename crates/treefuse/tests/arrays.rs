//! LANGUAGE.md §8.5 (arrays and lists that grow and shrink) and §8.8 (pure
//! functions that read nodes) in the interpreter, the analysis and the
//! fuser: hand-computed trees, globals and visit counts unfused and fused,
//! the report lines that say why calls stay apart, fused ≡ unfused on
//! random trees, and runtime errors from the command line. (Each built-in
//! is checked in every engine, generated Rust included, by
//! `crates/codegen-example/tests/arrays_cases.rs`; list edits and the
//! cases below by `tests/rewriting/` in every engine too.)

mod support;

use std::process::Command;
use treefuse::{compile_source, Engine, FusionOptions, Host, Program};
use treefuse_runtime::write_tree;

/// Runs `fuse` on `json` unfused and fused (default cut-offs): the output
/// tree with globals (both runs must agree) and the visits of each run.
fn run_both(p: &Program, fuse: &str, json: &str) -> (serde_json::Value, u64, u64) {
    let fused = p.fuse_all(&FusionOptions::default());
    let mut out = Vec::new();
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = p.read_tree(fuse, json).unwrap();
        let (stats, globals) = p
            .run_tree_with(fuse, &mut t, Vec::new(), &Host::new(), engine)
            .unwrap_or_else(|e| panic!("{e}"));
        let text = write_tree(&p.model, &t, Some(&globals), Default::default());
        out.push((
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            stats.node_visits,
        ));
    }
    assert_eq!(out[0].0, out[1].0, "fused and unfused runs differ");
    (out[0].0.clone(), out[0].1, out[1].1)
}

fn report(p: &Program) -> String {
    let fused = p.fuse_all(&FusionOptions::default());
    treefuse_fusion::report::text_report(&p.model, &fused, &p.source)
}

fn rewriting_case(name: &str) -> (Program, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rewriting");
    let source = std::fs::read_to_string(format!("{dir}/{name}.tf")).unwrap();
    let input = std::fs::read_to_string(format!("{dir}/{name}.in.json")).unwrap();
    let p = compile_source(&format!("{name}.tf"), &source).unwrap_or_else(|d| panic!("{d}"));
    (p, input)
}

/// Two passes down a chain that read each cell's item only through pure
/// functions over nodes: the analysis counts `weight(self.item)` as a
/// read of `item.*`, which no call on `next` writes, so the passes share
/// the walk (4 visits instead of 8).
const CHAIN: &str = r#"
abstract tree Expr {}
tree Num : Expr { v: i64; }
tree Neg : Expr { child e: Expr; }
abstract tree List { traversal weigh() {} traversal flag() {} }
tree End : List {}
tree Cell : List {
    child item: Expr;
    child next: List;
    weight: i64;
    zero: bool;
    traversal weigh() { self.next.weigh(); self.weight = weight(self.item) + 1; }
    traversal flag() { self.next.flag(); self.zero = is_zero(self.item); }
}
pure fn is_zero(e: Expr) -> bool = e is Num && (e as Num).v == 0;
pure fn weight(e: Expr) -> i64 = if e is Neg { 1 + inner((e as Neg).e) } else { inner(e) };
pure fn inner(e: Expr) -> i64 = if e is Num { (e as Num).v } else { 10 };
fuse both(root: List) { root.weigh(); root.flag(); }
"#;

#[test]
fn passes_reading_items_through_pure_functions_share_the_walk() {
    let p = compile_source("chain.tf", CHAIN).unwrap_or_else(|d| panic!("{d}"));
    let input = r#"{"type": "Cell", "item": {"type": "Num", "v": 0},
      "next": {"type": "Cell", "item": {"type": "Neg", "e": {"type": "Num", "v": 4}},
      "next": {"type": "Cell", "item": {"type": "Neg", "e": {"type": "Neg", "e": {"type": "Num", "v": 1}}},
      "next": {"type": "End"}}}}"#;
    let (out, unfused, fused) = run_both(&p, "both", input);
    // weight: Num 0 -> 0 + 1; Neg(Num 4) -> 1 + 4 + 1; Neg(Neg(..)) -> 1 + 10 + 1.
    let want: serde_json::Value = serde_json::from_str(
        r#"{"type": "Cell", "item": {"type": "Num", "v": 0}, "weight": 1, "zero": true,
      "next": {"type": "Cell", "item": {"type": "Neg", "e": {"type": "Num", "v": 4}}, "weight": 6, "zero": false,
      "next": {"type": "Cell", "item": {"type": "Neg", "e": {"type": "Neg", "e": {"type": "Num", "v": 1}}}, "weight": 12, "zero": false,
      "next": {"type": "End"}}}, "globals": {}}"#,
    )
    .unwrap();
    assert_eq!(out, want);
    assert_eq!((unfused, fused), (8, 4));
    assert!(
        report(&p).contains("0 call pairs left unmerged"),
        "{}",
        report(&p)
    );
    let (u, f) = support::differential::compare_on_random_trees(&p, "both", 30);
    assert_eq!(u, 2 * f, "every visit shared: {u} unfused, {f} fused");
}

/// `tests/rewriting/node_fns.tf`: two post-order passes that call pure
/// functions over nodes after their calls on the children. The calls
/// `zeros(self.l)` read all of `l`, which `count` writes (`size`), so the
/// calls on the children stay apart and only the root's visits merge
/// (22 visits unfused, 21 fused); the report names the read of `l.size`.
#[test]
fn a_pure_function_reading_a_subtree_keeps_later_writes_below_it_apart() {
    let (p, input) = rewriting_case("node_fns");
    let (out, unfused, fused) = run_both(&p, "main", &input);
    assert_eq!(out["n"], 2102);
    assert_eq!((unfused, fused), (22, 21));
    let r = report(&p);
    assert!(
        r.contains("not merged: 13:9 `self.l.fold()` and 19:9 `self.l.count()`")
            && r.contains("read/write conflict on Add.l.Add.size"),
        "{r}"
    );
    support::differential::compare_on_random_trees(&p, "main", 30);
}

/// `tests/rewriting/array_order.tf`: two passes append to one global
/// array. Merging their calls on the children would interleave the
/// elements, so the calls stay apart (the root's visits merge: 10 visits
/// unfused, 9 fused) and `LOG` keeps the unfused order.
#[test]
fn appends_to_a_global_array_keep_the_unfused_order() {
    let (p, input) = rewriting_case("array_order");
    let (out, unfused, fused) = run_both(&p, "main", &input);
    assert_eq!(
        out["globals"]["LOG"],
        serde_json::json!([1, 2, 3, 101, 102, 103])
    );
    assert_eq!((unfused, fused), (10, 9));
    let r = report(&p);
    assert!(
        r.contains("not merged: 26:21 `self.l.a()` and 27:21 `self.l.b()`")
            && r.contains("write/read conflict on global:LOG"),
        "{r}"
    );
    support::differential::compare_on_random_trees(&p, "main", 30);
}

/// Two checks over one list: with a commutative counter (`N = N + 1`)
/// their loops merge; with appends to a global array (`LOG = append(LOG,
/// ..)`, not a counter: the order of its elements is observable) they stay
/// apart and the report says why.
#[test]
fn an_append_is_not_a_commutative_update() {
    let template = r#"
global N: i64 = 0;
global LOG: [i64] = [];
tree Item {
    v: i64;
    traversal a() { UPDATE_A }
    traversal b() { UPDATE_B }
}
tree Prog {
    child items: [Item];
    traversal a() { for i in self.items { i.a(); } }
    traversal b() { for i in self.items { i.b(); } }
}
fuse check(root: Prog) { root.a(); root.b(); }
"#;
    let input =
        r#"{"type": "Prog", "items": [{"type": "Item", "v": 1}, {"type": "Item", "v": 2}]}"#;
    let counter = template
        .replace("UPDATE_A", "N = N + self.v;")
        .replace("UPDATE_B", "N = N + 10 * self.v;");
    let p = compile_source("counter.tf", &counter).unwrap();
    let (out, unfused, fused) = run_both(&p, "check", input);
    assert_eq!(out["globals"]["N"], 33);
    assert_eq!((unfused, fused), (6, 3));
    let appends = template
        .replace("UPDATE_A", "LOG = append(LOG, self.v);")
        .replace("UPDATE_B", "LOG = append(LOG, 10 * self.v);");
    let p = compile_source("appends.tf", &appends).unwrap();
    let (out, unfused, fused) = run_both(&p, "check", input);
    assert_eq!(out["globals"]["LOG"], serde_json::json!([1, 2, 10, 20]));
    assert_eq!((unfused, fused), (6, 5));
    let r = report(&p);
    assert!(
        r.contains("does not commute") && r.contains("write/read conflict on global:LOG"),
        "{r}"
    );
}

/// The in-place form `x = append(x, e);` on a local, a field and a
/// global, and the built-ins used as values, agree with a reference
/// computation on random trees, fused and unfused.
#[test]
fn in_place_and_copying_forms_agree() {
    let src = r#"
global G: [i64] = [];
tree Node {
    child kids: [Node];
    v: i64;
    xs: [i64];
    copy_: [i64];
    traversal go(d: i64) {
        let a: [i64] = [];
        for i in 0..3 { a = append(a, self.v + i); }
        let b = append(a, d);
        self.xs = append(self.xs, len(b));
        self.xs = concat(self.xs, a);
        self.copy_ = append(self.xs, -1);
        G = append(G, self.v);
        for k in self.kids { k.go(d + 1); }
        G = remove_at(insert_at(G, 0, d), 0);
    }
}
fuse run(root: Node) { root.go(0); }
"#;
    let p = compile_source("inplace.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let input =
        r#"{"type": "Node", "v": 5, "xs": [9], "kids": [{"type": "Node", "v": 1, "kids": []}]}"#;
    let (out, _, _) = run_both(&p, "run", input);
    assert_eq!(out["xs"], serde_json::json!([9, 4, 5, 6, 7]));
    assert_eq!(out["copy_"], serde_json::json!([9, 4, 5, 6, 7, -1]));
    assert_eq!(out["kids"][0]["xs"], serde_json::json!([4, 1, 2, 3]));
    assert_eq!(out["globals"]["G"], serde_json::json!([5, 1]));
    support::differential::compare_on_random_trees(&p, "run", 20);
}

/// An index out of range in an array built-in is a runtime error: exit
/// code 3, the message (with the built-in's position) as the last line.
#[test]
fn an_index_out_of_range_exits_3_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("treefuse-arrays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "self.xs = slice(self.xs, 1, 3);",
            "1:56: in N.go: slice(1, 3) is out of range for array of length 2",
        ),
        (
            "self.xs = insert_at(self.xs, 3, 0);",
            "1:56: in N.go: insert position 3 out of range for array of length 2",
        ),
        (
            "self.xs = remove_at(self.xs, -1);",
            "1:56: in N.go: index -1 out of range for array of length 2",
        ),
        (
            "self.n = len(remove_at(self.xs, 2));",
            "1:59: in N.go: index 2 out of range for array of length 2",
        ),
    ];
    let tree = dir.join("t.json");
    std::fs::write(&tree, r#"{"type": "N", "xs": [1, 2]}"#).unwrap();
    for (i, (stmt, want)) in cases.iter().enumerate() {
        let program = dir.join(format!("p{i}.tf"));
        std::fs::write(
            &program,
            format!(
                "tree N {{ xs: [i64]; n: i64; traversal go() {{ {stmt} }} }}\nfuse f(root: N) {{ root.go(); }}\n"
            ),
        )
        .unwrap();
        for engine in ["unfused", "fused"] {
            let o = Command::new(env!("CARGO_BIN_EXE_treefuse"))
                .args(["run", program.to_str().unwrap(), "--fuse", "f"])
                .args(["--tree", tree.to_str().unwrap(), "--engine", engine])
                .env(
                    "TREEFUSE_CACHE_DIR",
                    std::env::temp_dir()
                        .join(format!("treefuse-test-cache-{}", std::process::id())),
                )
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(3), "{stmt}: {err}");
            let last = err.lines().last().unwrap_or("");
            assert!(last.ends_with(want), "{stmt} ({engine}): {last}");
            assert!(o.stdout.is_empty(), "no tree is written after an error");
        }
    }
}
