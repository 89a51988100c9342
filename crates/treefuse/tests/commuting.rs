//! Fusion of passes that only update a shared counter or flag
//! commutatively (`ERRORS = ERRORS + 1`, `DEEPEST = max(DEEPEST, d)`,
//! `ANY = ANY || e`): they fuse completely, and the results are those of
//! the unfused run. A counter that some statement reads is an ordinary
//! global again.

mod support;

use support::differential::compare_on_random_trees as compare;
use treefuse::{compile_source, Engine, FusionOptions, Host};

/// Two checks counting into one global (also in the book).
const LOOPS: &str = include_str!("../../../examples/fusion-rules/counters.tf");

#[test]
fn two_loops_that_only_count_fuse_into_one() {
    let p = compile_source("loops.tf", LOOPS).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(report.contains("fused loop over `items`"), "{report}");
    assert!(report.contains("0 call pairs left unmerged"), "{report}");
    let out = p
        .run_json(
            "check",
            r#"{"type":"Prog","items":[{"type":"Item","v":-1},{"type":"Item","v":500},{"type":"Item","v":2},{"type":"Item","v":-7}]}"#,
            &[],
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    assert_eq!(v["globals"]["ERRORS"], 3);
    // One visit per node fused; two unfused.
    let (unfused, fused) = compare(&p, "check", 30);
    assert_eq!(unfused, 2 * fused);
}

const TREE_COUNTERS: &str = r#"
global COUNT: i64 = 0;
global DEEPEST: i64 = 0;
global ANY_NEG: bool = false;
abstract tree E {
    traversal count();
    traversal depth(d: i64);
}
tree Add : E {
    child l: E;
    child r: E;
    traversal count() { self.l.count(); COUNT = COUNT + 1; self.r.count(); }
    traversal depth(d: i64) {
        COUNT = COUNT - d;
        DEEPEST = max(DEEPEST, d);
        self.l.depth(d + 1);
        self.r.depth(d + 1);
    }
}
tree Lit : E {
    v: i64;
    traversal count() { COUNT = COUNT + 1; ANY_NEG = ANY_NEG || self.v < 0; }
    traversal depth(d: i64) { DEEPEST = max(d, DEEPEST); ANY_NEG = (self.v < -5) || ANY_NEG; }
}
fuse stats(root: E) { root.count(); root.depth(0); }
"#;

#[test]
fn traversals_updating_the_same_counters_fuse_completely() {
    let p = compile_source("counters.tf", TREE_COUNTERS).unwrap_or_else(|d| panic!("{d}"));
    let tree = r#"{"type":"Add",
        "l":{"type":"Lit","v":-1},
        "r":{"type":"Add","l":{"type":"Lit","v":2},"r":{"type":"Lit","v":3}}}"#;
    let out = p.run_json("stats", tree, &[]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    // count: 5 nodes; depth: the two Adds at depths 0 and 1 subtract 1.
    assert_eq!(v["globals"]["COUNT"], 4);
    assert_eq!(v["globals"]["DEEPEST"], 2);
    assert_eq!(v["globals"]["ANY_NEG"], true);
    let (unfused, fused) = compare(&p, "stats", 30);
    assert_eq!(unfused, 2 * fused, "one visit per node fused");
}

#[test]
fn a_counter_that_is_read_is_an_ordinary_global() {
    // `number` reads COUNT: the updates no longer commute with it.
    let src = TREE_COUNTERS
        .replace(
            "tree Lit : E {\n    v: i64;",
            "tree Lit : E {\n    v: i64;\n    id: i64;",
        )
        .replace(
            "traversal count() { COUNT = COUNT + 1; ANY_NEG",
            "traversal count() { COUNT = COUNT + 1; self.id = COUNT; ANY_NEG",
        );
    let p = compile_source("read.tf", &src).unwrap_or_else(|d| panic!("{d}"));
    let (unfused, fused) = compare(&p, "stats", 30);
    assert!(
        fused > unfused / 2,
        "must not fuse completely: {unfused} / {fused}"
    );
    // A non-commutative update (`COUNT = COUNT * 2`) also keeps them apart.
    let src = TREE_COUNTERS.replace("COUNT = COUNT - d;", "COUNT = COUNT * 2;");
    let p = compile_source("mul.tf", &src).unwrap_or_else(|d| panic!("{d}"));
    let (unfused, fused) = compare(&p, "stats", 30);
    assert!(
        fused > unfused / 2,
        "must not fuse completely: {unfused} / {fused}"
    );
}

#[test]
fn a_conditional_operand_that_can_fail_does_not_commute() {
    // `ANY = ANY || 10 / self.v > 100` divides only while ANY is false:
    // the order decides whether the division by zero happens. Unfused, `a`
    // divides by zero on the right leaf; had `b` on the left leaf (which
    // sets ANY) moved before it, the division would be skipped.
    let src = r#"
    global ANY: bool = false;
    tree Pair {
        child l: Leaf;
        child r: Leaf;
        traversal a() { self.l.a(); self.r.a(); }
        traversal b() { self.r.b(); self.l.b(); }
    }
    tree Leaf {
        v: i64;
        traversal a() { ANY = ANY || 10 / self.v > 100; }
        traversal b() { ANY = ANY || self.v == 1; }
    }
    fuse run(root: Pair) { root.a(); root.b(); }
    "#;
    let p = compile_source("fail.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(!report.contains("0 call pairs left unmerged"), "{report}");
    let tree = r#"{"type":"Pair","l":{"type":"Leaf","v":1},"r":{"type":"Leaf","v":0}}"#;
    for engine in [Engine::Unfused, Engine::Fused(&fused)] {
        let mut t = p.read_tree("run", tree).unwrap();
        let r = p.run_tree_with("run", &mut t, Vec::new(), &Host::new(), engine);
        assert!(
            r.is_err(),
            "the division by zero must happen in both engines"
        );
    }
}

#[test]
fn loops_left_apart_are_reported_with_the_reason() {
    // `check_b` reads ERRORS, so an iteration of `check_a` on one element
    // does not commute with one of `check_b` on another.
    let src = LOOPS.replace("if self.v > 100 {", "if self.v > ERRORS {");
    let p = compile_source("read_loops.tf", &src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(
        report.contains("not merged: ") && report.contains("does not commute"),
        "{report}"
    );
    assert!(!report.contains(" 0 call pairs left unmerged"), "{report}");
    let (unfused, fused) = compare(&p, "check", 30);
    // Only the root's two visits become one, in each of the 30 runs.
    assert_eq!(unfused - fused, 30, "no loop fusion");
}

#[test]
fn a_loop_that_deletes_elements_fuses_with_a_later_loop_of_element_calls() {
    let src = r#"
    tree Prog {
        child items: [Item];
        traversal a() { for i in self.items { i.drop(); } }
        traversal b() { for i in self.items { i.bump(); } }
    }
    tree Item {
        v: i64;
        traversal drop() { if self.v < 0 { self = []; } }
        traversal bump() { self.v = self.v + 1; }
    }
    fuse run(root: Prog) { root.a(); root.b(); }
    "#;
    let p = compile_source("drop.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(report.contains(" 0 call pairs left unmerged"), "{report}");
    let out = p
        .run_json(
            "run",
            r#"{"type":"Prog","items":[{"type":"Item","v":-1},{"type":"Item","v":5}]}"#,
            &[],
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    assert_eq!(v["items"], serde_json::json!([{"type": "Item", "v": 6}]));
    let (unfused, fused) = compare(&p, "run", 20);
    assert!(fused < unfused, "{fused} fused visits, {unfused} unfused");
}

/// A later loop that does more than call the element (here it counts)
/// would count the nodes of the edited list: it stays apart.
#[test]
fn a_loop_that_deletes_elements_stays_apart_from_a_later_loop_with_the_reason() {
    let src = r#"
    tree Prog {
        child items: [Item];
        n: i64;
        traversal a() { for i in self.items { i.drop(); } }
        traversal b() { for i in self.items { i.bump(); self.n = self.n + 1; } }
    }
    tree Item {
        v: i64;
        traversal drop() { if self.v < 0 { self = []; } }
        traversal bump() { self.v = self.v + 1; }
    }
    fuse run(root: Prog) { root.a(); root.b(); }
    "#;
    let p = compile_source("drop.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(report.contains("may replace its elements"), "{report}");
    let out = p
        .run_json(
            "run",
            r#"{"type":"Prog","items":[{"type":"Item","v":-1},{"type":"Item","v":5}],"n":0}"#,
            &[],
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    assert_eq!(v["items"], serde_json::json!([{"type": "Item", "v": 6}]));
    assert_eq!(v["n"], 1);
    compare(&p, "run", 20);
}

/// Merged loops whose calls on the element stay two calls (the first
/// loop reads the element after its call, the second call changes what it
/// reads) say so in the report and count in the summary.
#[test]
fn element_calls_kept_apart_in_a_merged_loop_are_reported() {
    let src = r#"
    tree P {
        child xs: [E];
        total: i64;
        traversal a() { for x in self.xs { x.a(); self.total = self.total + x.v; } }
        traversal b() { for x in self.xs { x.b(); } }
    }
    tree E {
        v: i64;
        traversal a() { self.v = self.v + 1; }
        traversal b() { self.v = self.v * 2; }
    }
    fuse run(root: P) { root.a(); root.b(); }
    "#;
    let p = compile_source("element.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = p.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&p.model, &fused, &p.source);
    assert!(report.contains("2 fused call(s) per element"), "{report}");
    assert!(
        report.contains("calls on the loop element kept apart"),
        "{report}"
    );
    assert!(report.contains("1 call pairs left unmerged"), "{report}");
    compare(&p, "run", 20);
}
