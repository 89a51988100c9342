//! Optional children (LANGUAGE.md §8.7), computed by hand: output trees,
//! globals and visit counts of the unfused and the fused engine, runtime
//! errors with their positions, JSON input and output, random trees, tree
//! differences. (The data-driven cases `tests/rewriting/optional_*.tf` run
//! in every engine and cut-off too, and in generated code.)

use std::process::Command;
use treefuse::{compile_source, Engine, FusionOptions, Host, Program, RunError};
use treefuse_runtime::{diff_trees, random_tree, write_tree, GenOptions, SlotRef};

fn program(src: &str) -> Program {
    compile_source("test.tf", src).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs `fuse` on `tree` unfused and fused (default cut-offs): the output
/// JSON (with globals) and the visits of each call (one entry per fused
/// call on the root for the fused run) of both.
fn both(p: &Program, fuse: &str, tree: &str) -> [(serde_json::Value, u64, Vec<u64>); 2] {
    let fused = p.fuse_all(&FusionOptions::default());
    let run = |engine: Engine| {
        let mut t = p.read_tree(fuse, tree).unwrap_or_else(|e| panic!("{e}"));
        let (stats, globals) = p
            .run_tree_with(fuse, &mut t, Vec::new(), &Host::new(), engine)
            .unwrap_or_else(|e| panic!("{e}"));
        let json = write_tree(&p.model, &t, Some(&globals), Default::default());
        (
            serde_json::from_str(&json).unwrap(),
            stats.node_visits,
            stats.visits_per_call,
        )
    };
    [run(Engine::Unfused), run(Engine::Fused(&fused))]
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

/// `tests/rewriting/optional_calls.tf`: calls on empty and full optional
/// children (`null` and missing keys read as empty), `is none`, `is T` on
/// an empty one, `= none`. Unfused: `total(1)` visits R1, Num 3, R2, R3,
/// Num 2, R4, R5 (7); `clear()` R1 to R4 (4, empties R1's `value`);
/// `total(10)` R1, R2, R3, Num 2, R4, R5 (6). R2's `d` is 0: its call
/// `self.value.total(k / self.d)` is on an empty child, so the division
/// never happens. Fused, the three passes are one call on the root: R1,
/// Num 3, R2, R3, Num 2 twice (its `value` is called before and after
/// `clear`'s test of it, which keeps those calls apart), R4, R5 twice: 9.
#[test]
fn calls_on_empty_and_full_optional_children() {
    let p = program(include_str!("rewriting/optional_calls.tf"));
    let input = include_str!("rewriting/optional_calls.in.json");
    let want = json(include_str!("rewriting/optional_calls.out.json"));
    let [unfused, fused] = both(&p, "main", input);
    assert_eq!(unfused.0, want);
    assert_eq!(fused.0, want);
    assert_eq!((unfused.1, unfused.2), (17, vec![7, 4, 6]));
    assert_eq!((fused.1, fused.2), (9, vec![9]));
}

/// `tests/rewriting/optional_fill.tf`: `= none` then a call (no visit),
/// `= new` then a call (a visit), `copy` out of an optional child, `new`
/// wrapping a slot's subtree with an optional child left out. Unfused:
/// `edit` visits Box 1, Box 2, Leaf 3 and the two new leaves (5), `mark`
/// eight nodes (8); fused, Box 1 is visited once for both passes (12).
#[test]
fn emptying_filling_and_copying() {
    let p = program(include_str!("rewriting/optional_fill.tf"));
    let input = include_str!("rewriting/optional_fill.in.json");
    let want = json(include_str!("rewriting/optional_fill.out.json"));
    let [unfused, fused] = both(&p, "main", input);
    assert_eq!(unfused.0, want);
    assert_eq!(fused.0, want);
    assert_eq!((unfused.1, unfused.2), (13, vec![5, 8]));
    assert_eq!(fused.1, 12);
}

const SMALL: &str = r#"
global N: i64 = 0;
tree Leaf {
    child t: Leaf?;
    v: i64;
    traversal f() { N = N + 1; }
}
tree Root {
    child c: Leaf?;
    child keep: Leaf;
    z: i64;
    traversal empty_then_call() { self.c = none; self.c.f(); }
    traversal fill_then_call() { self.c = new Leaf { v: 5 }; self.c.f(); self.c.f(); }
    traversal guarded() {
        if 10 / self.z > 0 { self.c.f(); }
        self.keep.f();
    }
    traversal copies() { self.c = copy(self.keep); self.keep.t = copy(self.keep); }
}
fuse a(root: Root) { root.empty_then_call(); }
fuse b(root: Root) { root.fill_then_call(); }
fuse g(root: Root) { root.guarded(); }
fuse c(root: Root) { root.copies(); }
"#;

#[test]
fn a_call_after_emptying_visits_nothing() {
    let p = program(SMALL);
    let input = r#"{"type": "Root", "c": {"type": "Leaf", "v": 1}, "keep": {"type": "Leaf"}}"#;
    for (out, visits, _) in both(&p, "a", input) {
        assert_eq!(visits, 1, "only the root");
        assert_eq!(out["c"], serde_json::Value::Null);
        assert_eq!(out["globals"]["N"], 0);
    }
}

#[test]
fn a_call_after_filling_visits_the_new_node() {
    let p = program(SMALL);
    let input = r#"{"type": "Root", "keep": {"type": "Leaf"}}"#;
    // Unfused the root and the new leaf twice; fused, the two calls on
    // the leaf are one fused call.
    for ((out, visits, _), want) in both(&p, "b", input).into_iter().zip([3, 2]) {
        assert_eq!(visits, want);
        assert_eq!(out["c"], json(r#"{"type": "Leaf", "t": null, "v": 5}"#));
        assert_eq!(out["globals"]["N"], 2);
    }
}

/// The guard of a call on an empty optional child is still evaluated
/// (only the call does nothing), in both engines.
#[test]
fn the_guard_of_a_call_on_an_empty_child_is_evaluated() {
    let p = program(SMALL);
    let fused = p.fuse_all(&FusionOptions::default());
    let input = r#"{"type": "Root", "c": null, "keep": {"type": "Leaf"}, "z": 0}"#;
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = p.read_tree("g", input).unwrap();
        match p.run_tree_with("g", &mut t, Vec::new(), &Host::new(), engine) {
            Err(RunError::Runtime(m)) => assert!(m.contains("by zero"), "{m}"),
            other => panic!("expected a division by zero, got {other:?}"),
        }
    }
    let input = r#"{"type": "Root", "c": null, "keep": {"type": "Leaf"}, "z": 3}"#;
    for (_, visits, _) in both(&p, "g", input) {
        assert_eq!(visits, 2, "the root and `keep`");
    }
}

/// `copy` copies optional children as they are: empty ones stay empty.
#[test]
fn copy_keeps_empty_optional_children() {
    let p = program(SMALL);
    let input =
        r#"{"type": "Root", "keep": {"type": "Leaf", "v": 4, "t": {"type": "Leaf", "v": 7}}}"#;
    let leaf = r#"{"type": "Leaf", "v": 4, "t": {"type": "Leaf", "v": 7, "t": null}}"#;
    for (out, _, _) in both(&p, "c", input) {
        assert_eq!(out["c"], json(leaf));
        assert_eq!(out["keep"]["t"], json(leaf));
    }
}

/// Reading a field through an empty optional child is a runtime error at
/// the path's position; the CLI exits with status 3 in both engines.
#[test]
fn a_read_through_an_empty_child_fails_with_its_position() {
    for engine in ["unfused", "fused"] {
        let o = Command::new(env!("CARGO_BIN_EXE_treefuse"))
            .args([
                "run",
                "crates/treefuse/tests/rewriting/optional_read_error.tf",
                "--fuse",
                "main",
                "--tree",
                "crates/treefuse/tests/rewriting/optional_read_error.in.json",
                "--engine",
                engine,
            ])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .env(
                "TREEFUSE_CACHE_DIR",
                std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
            )
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{engine}");
        assert!(o.stdout.is_empty(), "no output tree after an error");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err.trim_end().lines().last(),
            Some("runtime error: crates/treefuse/tests/rewriting/optional_read_error.tf:9:25: in Item.sum: the optional child `price` is empty"),
            "{engine}: {err}"
        );
    }
}

/// Casting, aliasing or moving an empty optional child fails; `is T` on
/// it is false and `is none` true.
#[test]
fn casts_aliases_and_moves_of_an_empty_child_fail() {
    let src = r#"
global B: bool = true;
abstract tree E {}
tree Leaf : E { v: i64; }
tree Holder : E {
    child o: E?;
    child k: E;
    traversal test() { B = !(self.o is Leaf) && self.o is none; }
    traversal cast() { B = (self.o as Leaf).v > 0; }
    traversal alias() { let x = self.o; B = x is Leaf; }
    traversal move_up() { self.k = (self.k as Holder).o; }
}
fuse test(root: Holder) { root.test(); }
fuse cast(root: Holder) { root.cast(); }
fuse alias(root: Holder) { root.alias(); }
fuse move_up(root: Holder) { root.move_up(); }
"#;
    let p = program(src);
    let input = r#"{"type": "Holder", "k": {"type": "Holder", "k": {"type": "Leaf"}}}"#;
    for (out, _, _) in both(&p, "test", input) {
        assert_eq!(out["globals"]["B"], true);
    }
    let fused = p.fuse_all(&FusionOptions::default());
    for (fuse, col) in [("cast", 28), ("alias", 33), ("move_up", 36)] {
        for engine in [Engine::Unfused, Engine::Fused(&fused)] {
            let mut t = p.read_tree(fuse, input).unwrap();
            let e = match p.run_tree_with(fuse, &mut t, Vec::new(), &Host::new(), engine) {
                Err(RunError::Runtime(m)) => m,
                other => panic!("{fuse}: expected a runtime error, got {other:?}"),
            };
            assert!(
                e.contains("the optional child `o` is empty") && e.contains(&format!(":{col}:")),
                "{fuse}: {e}"
            );
        }
    }
}

/// JSON: `null` and a missing key read as an empty optional child and
/// are written as `null`; anything else in its place is an input error
/// naming the path, and `null` is no value for a plain child.
#[test]
fn json_null_and_missing_keys() {
    let p = program(SMALL);
    let read = |s: &str| p.read_tree("a", s);
    for input in [
        r#"{"type": "Root", "keep": {"type": "Leaf"}}"#,
        r#"{"type": "Root", "c": null, "keep": {"type": "Leaf", "t": null}}"#,
    ] {
        let t = read(input).unwrap();
        let out = write_tree(&p.model, &t, None, Default::default());
        assert_eq!(
            json(&out),
            json(
                r#"{"type": "Root", "c": null, "keep": {"type": "Leaf", "t": null, "v": 0}, "z": 0}"#
            )
        );
    }
    let e = read(r#"{"type": "Root", "c": 5, "keep": {"type": "Leaf"}}"#).unwrap_err();
    assert!(e.to_string().contains("$.c"), "{e}");
    let e = read(r#"{"type": "Root", "c": null, "keep": null}"#).unwrap_err();
    assert!(e.to_string().contains("$.keep"), "{e}");
    let e = read(r#"{"type": "Root"}"#).unwrap_err();
    assert!(e.to_string().contains("missing child `keep`"), "{e}");
}

/// `treefuse gen` leaves some optional children empty and fills others,
/// even where only optional children continue a chain.
#[test]
fn random_trees_leave_some_optional_children_empty() {
    let p = program(SMALL);
    let root = p.model.type_named("Root").unwrap();
    let (mut empty, mut full) = (0, 0);
    for seed in 0..40 {
        let options = GenOptions {
            nodes: 12,
            seed,
            ..Default::default()
        };
        let t = random_tree(&p.model, root, &options).unwrap();
        for n in t.preorder(&p.model) {
            for i in 0..t.slot_count(n) {
                match t.slot(n, i) {
                    SlotRef::Empty => empty += 1,
                    SlotRef::Child(_) => full += 1,
                    _ => {}
                }
            }
        }
        // What is written reads back the same.
        let text = write_tree(&p.model, &t, None, Default::default());
        let back = p.read_tree("a", &text).unwrap();
        assert!(diff_trees(&p.model, &t, &back, 5).is_empty());
    }
    assert!(empty > 20 && full > 40, "empty {empty}, full {full}");
}

/// A tree difference names an optional child empty on one side only.
#[test]
fn tree_differences_name_an_empty_optional_child() {
    let p = program(SMALL);
    let a = p
        .read_tree("a", r#"{"type": "Root", "keep": {"type": "Leaf"}}"#)
        .unwrap();
    let b = p
        .read_tree(
            "a",
            r#"{"type": "Root", "c": {"type": "Leaf"}, "keep": {"type": "Leaf"}}"#,
        )
        .unwrap();
    let d = diff_trees(&p.model, &a, &b, 5);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].path.as_str(), d[0].left.as_str(), d[0].right.as_str()),
        ("$.c", "null", "a `Leaf` node")
    );
}

/// `none` stays an ordinary name: a global, a local, a field and a tree
/// type may be called `none`, and `p is none` on a plain child of type
/// `none` is a type test.
#[test]
fn none_is_an_ordinary_name_elsewhere() {
    let src = r#"
global none: i64 = 3;
tree none { none: i64; }
tree Top {
    child n: none;
    child m: none?;
    out: i64;
    traversal f(k: i64) {
        let none: i64 = k * 2;
        self.n.none = none;
        if self.n is none { self.out = self.out + 1; }
        if self.m is none { self.m = new none { none: none + 1 }; } else { self.m = none; }
    }
}
fuse run(root: Top) { root.f(none); root.f(none + 1); }
"#;
    let p = program(src);
    let input = r#"{"type": "Top", "n": {"type": "none"}}"#;
    for ((out, visits, _), want) in both(&p, "run", input).into_iter().zip([2, 1]) {
        assert_eq!(visits, want);
        assert_eq!(out["n"]["none"], 8);
        assert_eq!(
            out["m"],
            serde_json::Value::Null,
            "filled by the first call, emptied by the second"
        );
        assert_eq!(out["out"], 2);
    }
}

/// A default walk (§8.1) skips empty optional children: on this tree it
/// visits the outer `Pair`, the inner one, its two leaves and the leaf in
/// the list (5), and the empty `a` of the outer `Pair` not at all.
#[test]
fn walks_skip_empty_optional_children() {
    let src = r#"
global N: i64 = 0;
abstract tree Node { traversal count(d: i64) walk; }
tree Leaf : Node { traversal count(d: i64) { N = N + d; } }
tree Pair : Node { child a: Node?; child b: Node; child c: [Node]; }
fuse main(root: Node) { root.count(1); }
"#;
    let p = program(src);
    let input = r#"{"type": "Pair", "a": null,
        "b": {"type": "Pair", "a": {"type": "Leaf"}, "b": {"type": "Leaf"}, "c": []},
        "c": [{"type": "Leaf"}]}"#;
    for (out, visits, _) in both(&p, "main", input) {
        assert_eq!(visits, 5);
        assert_eq!(out["globals"]["N"], 3);
    }
}
