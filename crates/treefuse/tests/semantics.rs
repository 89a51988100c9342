//! Behaviour of every construct of the traversal language, run through the
//! library facade on small programs whose results are computed by hand.

use treefuse::{compile_source, RunError};

/// Compiles `src`, runs `fuse` on `tree`, and returns the output as JSON.
fn run(src: &str, fuse: &str, tree: &str) -> serde_json::Value {
    run_args(src, fuse, tree, &[])
}

fn run_args(src: &str, fuse: &str, tree: &str, args: &[(&str, &str)]) -> serde_json::Value {
    let program = compile_source("test.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let out = program
        .run_json(fuse, tree, args)
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&out.output_json).expect("output is JSON")
}

fn run_err(src: &str, fuse: &str, tree: &str) -> RunError {
    let program = compile_source("test.tf", src).unwrap_or_else(|d| panic!("{d}"));
    match program.run_json(fuse, tree, &[]) {
        Ok(out) => panic!("expected an error, got {}", out.output_json),
        Err(e) => e,
    }
}

#[test]
fn figure2_widths_and_heights() {
    let src = include_str!("../../../examples/figure2/figure2.tf");
    let doc = include_str!("../../../examples/figure2/doc.json");
    let program = compile_source("figure2.tf", src).unwrap();
    let out = program.run_json("layout", doc, &[]).unwrap();
    assert_eq!(out.node_visits, 12);
    assert_eq!(out.visits_per_call, vec![6, 6]);
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    // Group: width = content.width (19) + 2 * border (2); height = content.max_height + 4.
    assert_eq!(v["width"], 23);
    assert_eq!(v["total_width"], 23 + 15);
    assert_eq!(v["height"], 91 + 4);
    assert_eq!(v["max_height"], 95);
    let content = &v["content"];
    assert_eq!(content["width"], 19);
    assert_eq!(content["total_width"], 19 + 30);
    assert_eq!(content["height"], 19 * (19 / 8) + 1);
    assert_eq!(content["max_height"], 91);
    assert_eq!(content["next"]["width"], 30);
    assert_eq!(content["next"]["height"], 30 * (30 / 8) + 1);
    assert_eq!(v["next"]["width"], 15);
    assert_eq!(v["next"]["height"], 16, "15 * (15 / 8) + 1");
    assert_eq!(v["globals"]["CHAR_WIDTH"], 8);
}

const SHAPES: &str = r#"
global calls: i64 = 0;
abstract tree Shape {
    area: i64;
    traversal measure() { calls = calls + 1; self.area = -1; }
    traversal name_it();
}
tree Square : Shape {
    side: i64;
    traversal measure() { self.area = self.side * self.side; }
    traversal name_it() { calls = calls + 100; }
}
tree Rect : Square {
    other: i64;
    traversal measure() { self.area = self.side * self.other; }
}
tree Blob : Shape { traversal name_it() {} }
tree Pair {
    child left: Shape;
    child right: Shape;
    traversal run() { self.left.measure(); self.right.measure(); self.left.name_it(); self.right.name_it(); }
}
fuse go(root: Pair) { root.run(); }
"#;

#[test]
fn dynamic_dispatch_uses_the_most_specific_override() {
    let v = run(
        SHAPES,
        "go",
        r#"{"type":"Pair","left":{"type":"Rect","side":3,"other":5},"right":{"type":"Blob"}}"#,
    );
    assert_eq!(v["left"]["area"], 15, "Rect overrides Square's measure");
    assert_eq!(v["right"]["area"], -1, "Blob inherits the default body");
    assert_eq!(
        v["globals"]["calls"],
        1 + 100,
        "Rect inherits Square's name_it"
    );
}

#[test]
fn locals_records_and_arrays_have_value_semantics() {
    let src = r#"
    record Border { size: i64, color: i64 }
    tree Box {
        border: Border;
        xs: [i64];
        copy_size: i64;
        first: i64;
        traversal go() {
            let b = self.border;
            b.size = 100;                 // a copy: the field keeps its value
            self.copy_size = b.size;
            let a = self.xs;
            a[0] = 42;                    // also a copy
            self.first = self.xs[0] + a[0];
            self.border.color = self.border.size * 2;
            self.xs[1] = len(self.xs);
        }
    }
    fuse f(root: Box) { root.go(); }
    "#;
    let v = run(
        src,
        "f",
        r#"{"type":"Box","border":{"size":3,"color":0},"xs":[1,2,3]}"#,
    );
    assert_eq!(v["border"]["size"], 3);
    assert_eq!(v["border"]["color"], 6);
    assert_eq!(v["copy_size"], 100);
    assert_eq!(v["first"], 1 + 42);
    assert_eq!(v["xs"], serde_json::json!([1, 3, 3]));
}

#[test]
fn arithmetic_wraps_and_floats_follow_ieee() {
    let src = r#"
    tree N {
        a: i64; b: i64; c: f64; d: f64; e: i64; m: i64; r: i64;
        traversal go() {
            self.a = 9223372036854775807 + 1;
            self.b = -9223372036854775808 / -1;
            self.c = 1.0 / 0.0 - 1.0 / 0.0;
            self.d = sqrt(2.0) * sqrt(2.0);
            self.e = to_i64(floor(-2.5)) + to_i64(ceil(2.5)) + abs(-4) + min(3, 9) + max(3, 9);
            self.m = -7 % 3;
            self.r = to_i64(to_f64(7) / 2.0);
        }
    }
    fuse f(root: N) { root.go(); }
    "#;
    let v = run(src, "f", r#"{"type":"N"}"#);
    assert_eq!(v["a"], i64::MIN);
    assert_eq!(v["b"], i64::MIN);
    assert!(v["c"].is_null(), "NaN is written as null");
    assert_eq!(v["d"], 2.0000000000000004);
    assert_eq!(
        v["e"], 16,
        "floor(-2.5) + ceil(2.5) + abs(-4) + min(3, 9) + max(3, 9)"
    );
    assert_eq!(v["m"], -1);
    assert_eq!(v["r"], 3);
}

#[test]
fn short_circuit_and_if_expressions() {
    let src = r#"
    tree N {
        zero: i64; a: bool; b: bool; c: i64; s: str; n: i64;
        traversal go() {
            self.a = self.zero != 0 && 10 / self.zero > 1;
            self.b = self.zero == 0 || 10 / self.zero > 1;
            self.c = if self.a { 1 } else if self.b { 2 } else { 3 };
            self.s = if "ab" == "a" { "x" } else { "héllo" };
            self.n = len(self.s);
        }
    }
    fuse f(root: N) { root.go(); }
    "#;
    let v = run(src, "f", r#"{"type":"N"}"#);
    assert_eq!(v["a"], false);
    assert_eq!(v["b"], true);
    assert_eq!(v["c"], 2);
    assert_eq!(v["n"], 6, "len counts UTF-8 bytes");
}

#[test]
fn pure_functions_with_blocks_loops_and_returns() {
    let src = r#"
    pure fn list_height(lens: [i64], size: i64, margin: i64, width: i64) -> i64 {
        let h: i64 = 0;
        for l in lens {
            h = h + (l * size + margin + width - 1) / width;
        }
        return h;
    }
    pure fn sum_to(n: i64) -> i64 {
        let s = 0;
        for i in 0..n { s = s + i; if s > 1000 { return -1; } }
        return s;
    }
    pure fn max(a: i64, b: i64) -> i64 = if a > b { a } else { b };
    tree L {
        items: [i64]; h: i64; s: i64; t: i64; m: i64;
        traversal go() {
            self.h = list_height(self.items, 1, 3, 50);
            self.s = sum_to(5);
            self.t = sum_to(100);
            self.m = max(self.h, 7);
        }
    }
    fuse f(root: L) { root.go(); }
    "#;
    let v = run(src, "f", r#"{"type":"L","items":[100,150,120]}"#);
    // ceil(103/50) + ceil(153/50) + ceil(123/50) = 3 + 4 + 3
    assert_eq!(v["h"], 10);
    assert_eq!(v["s"], 10);
    assert_eq!(v["t"], -1);
    assert_eq!(v["m"], 10);
}

const EXPR_LANG: &str = r#"
global folded: i64 = 0;
abstract tree Expr { value: i64; traversal fold() {} }
tree Num : Expr {}
tree Add : Expr {
    child l: Expr;
    child r: Expr;
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Num && self.r is Num {
            self.value = (self.l as Num).value + (self.r as Num).value;
            folded = folded + 1;
        }
    }
}
tree If : Expr {
    child cond: Expr;
    child then_branch: Expr;
    child else_branch: Expr;
    traversal fold() { self.cond.fold(); self.then_branch.fold(); self.else_branch.fold(); }
}
tree Root {
    child e: Expr;
    traversal simplify() {
        self.e.fold();
        if self.e is Add && (self.e as Add).l is Num && (self.e as Add).r is Num {
            self.e = new Num { value: self.e.value };
        } else if self.e is If {
            let cond = (self.e as If).cond;
            if cond is Num {
                if cond.value != 0 {
                    self.e = (self.e as If).then_branch;
                } else {
                    self.e = (self.e as If).else_branch;
                }
            }
        }
    }
}
fuse simplify(root: Root) { root.simplify(); }
"#;

#[test]
fn new_replaces_and_moves_lift_descendants() {
    let v = run(
        EXPR_LANG,
        "simplify",
        r#"{"type":"Root","e":{"type":"Add","l":{"type":"Num","value":2},"r":{"type":"Num","value":3}}}"#,
    );
    assert_eq!(v["e"], serde_json::json!({"type":"Num","value":5}));
    assert_eq!(v["globals"]["folded"], 1);
    let v = run(
        EXPR_LANG,
        "simplify",
        r#"{"type":"Root","e":{"type":"If","cond":{"type":"Num","value":0},
            "then_branch":{"type":"Num","value":1},
            "else_branch":{"type":"Add","l":{"type":"Num","value":4},"r":{"type":"Add","l":{"type":"Num","value":1},"r":{"type":"Num","value":1}}}}}"#,
    );
    // The else branch moved up; its inner Add was folded (value 2) but the
    // outer one's r is an Add, so it keeps value 0.
    assert_eq!(v["e"]["type"], "Add");
    assert_eq!(v["e"]["r"]["value"], 2);
    assert_eq!(v["e"]["value"], 0);
}

#[test]
fn nested_new_with_defaults_and_list_children() {
    let src = r#"
    abstract tree Stmt { line: i64 = 7; traversal number(n: i64) { self.line = n; } }
    tree Nop : Stmt {}
    tree Assign : Stmt { id: i64; child value: Stmt; }
    tree Block : Stmt {
        child stmts: [Stmt];
        traversal number(n: i64) {
            let i = 0;
            for s in self.stmts { s.number(n * 10 + 1); }
        }
    }
    tree Root {
        child body: Stmt;
        traversal build() {
            self.body = new Block { stmts: [new Assign { id: 3, value: new Nop {} }, new Nop {}, self.body] };
        }
        traversal renumber() { self.body.number(4); }
    }
    fuse f(root: Root) { root.build(); root.renumber(); }
    "#;
    let program = compile_source("t.tf", src).unwrap();
    let out = program
        .run_json(
            "f",
            r#"{"type":"Root","body":{"type":"Nop","line":1}}"#,
            &[],
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    let stmts = &v["body"]["stmts"];
    assert_eq!(stmts.as_array().unwrap().len(), 3);
    assert_eq!(stmts[0]["type"], "Assign");
    assert_eq!(stmts[0]["id"], 3);
    assert_eq!(stmts[0]["line"], 41);
    assert_eq!(
        stmts[0]["value"]["line"], 7,
        "defaults fill omitted data fields"
    );
    assert_eq!(stmts[2]["line"], 41, "the moved old body was renumbered");
    assert_eq!(
        v["body"]["line"], 7,
        "Block overrides number without setting its line"
    );
    // build: 1; renumber: Root + Block + 3 statements.
    assert_eq!(out.visits_per_call, vec![1, 5]);
}

#[test]
fn return_ends_only_the_current_traversal_at_this_node() {
    let src = r#"
    abstract tree T { x: i64; traversal go() {} }
    tree Leaf : T {}
    tree Node : T {
        child a: T;
        child b: T;
        traversal go() {
            self.a.go();
            if self.x > 0 { return; }
            self.b.go();
            self.x = 99;
        }
    }
    tree Top { child t: T; traversal go() { self.t.go(); } traversal mark() { self.t.go(); } }
    fuse f(root: Top) { root.go(); root.mark(); }
    "#;
    let program = compile_source("t.tf", src).unwrap();
    let tree = r#"{"type":"Top","t":{"type":"Node","x":1,
        "a":{"type":"Node","x":0,"a":{"type":"Leaf"},"b":{"type":"Leaf"}},
        "b":{"type":"Leaf"}}}"#;
    let out = program.run_json("f", tree, &[]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.output_json).unwrap();
    assert_eq!(v["t"]["x"], 1, "returned before the write");
    assert_eq!(v["t"]["a"]["x"], 99, "the child ran to its end");
    // Top, Node, Node.a, a.a, a.b (Node.b skipped); then a.b is skipped too.
    assert_eq!(
        out.visits_per_call,
        vec![5, 4],
        "the second run returns early at the inner node too"
    );
}

#[test]
fn for_iterates_over_a_snapshot_and_aliases_outlive_replacement() {
    let src = r#"
    tree Item { n: i64; child sub: Leaf; traversal bump(k: i64) { self.n = self.n + k; } }
    tree Leaf { v: i64; }
    tree Holder {
        child items: [Item];
        total: i64;
        seen: i64;
        traversal go() {
            for it in self.items {
                it.bump(10);
                self.total = self.total + it.n;
                let old = it.sub;
                it.sub = new Leaf { v: 5 };
                old.v = 1000;              // writes the detached node only
                self.seen = self.seen + it.sub.v;
            }
        }
    }
    fuse f(root: Holder) { root.go(); }
    "#;
    let v = run(
        src,
        "f",
        r#"{"type":"Holder","items":[{"type":"Item","n":1,"sub":{"type":"Leaf"}},{"type":"Item","n":2,"sub":{"type":"Leaf"}}]}"#,
    );
    assert_eq!(v["total"], 11 + 12);
    assert_eq!(v["seen"], 10);
    assert_eq!(v["items"][0]["sub"]["v"], 5);
}

#[test]
fn fuse_arguments_and_globals_read_when_the_call_runs() {
    let src = r#"
    global step: i64 = 1;
    global CONFIG: [i64] = [step, 2];
    tree C {
        n: i64;
        traversal add(k: i64) { self.n = self.n + k; step = step * 10; }
    }
    fuse f(root: C, k: i64, label: str) { root.add(k); root.add(step); root.add(CONFIG[1]); }
    "#;
    let v = run_args(
        src,
        "f",
        r#"{"type":"C","n":0}"#,
        &[("k", "5"), ("label", "hi")],
    );
    assert_eq!(v["n"], 5 + 10 + 2);
    assert_eq!(v["globals"]["step"], 1000);
    assert_eq!(v["globals"]["CONFIG"], serde_json::json!([1, 2]));
    let program = compile_source("t.tf", src).unwrap();
    assert!(matches!(
        program.run_json("f", r#"{"type":"C"}"#, &[("k", "x")]),
        Err(RunError::Usage(_))
    ));
    assert!(matches!(
        program.run_json("f", r#"{"type":"C"}"#, &[]),
        Err(RunError::Usage(_))
    ));
}

#[test]
fn runtime_errors_name_the_traversal_and_position() {
    let src = "tree N {\n  d: i64;\n  r: i64;\n  traversal go() { self.r = 10 / self.d; }\n}\nfuse f(root: N) { root.go(); }\n";
    match run_err(src, "f", r#"{"type":"N","d":0}"#) {
        RunError::Runtime(m) => {
            assert!(m.contains("test.tf:4:"), "{m}");
            assert!(m.contains("N.go"), "{m}");
            assert!(m.contains("division"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    match run_err(
        EXPR_LANG
            .replace("self.l is Num && self.r is Num", "true")
            .as_str(),
        "simplify",
        r#"{"type":"Root","e":{"type":"Add","l":{"type":"Num"},"r":{"type":"Add","l":{"type":"Num"},"r":{"type":"Num"}}}}"#,
    ) {
        RunError::Runtime(m) => assert!(m.contains("cast failed") && m.contains("Add.fold"), "{m}"),
        other => panic!("{other:?}"),
    }
    let src = "tree N { xs: [i64]; r: i64; traversal go() { self.r = self.xs[3]; } }\nfuse f(root: N) { root.go(); }";
    match run_err(src, "f", r#"{"type":"N","xs":[1]}"#) {
        RunError::Runtime(m) => assert!(m.contains("out of range"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn input_errors_name_the_json_path() {
    let src = include_str!("../../../examples/figure2/figure2.tf");
    let program = compile_source("figure2.tf", src).unwrap();
    let cases = [
        (
            r#"{"type":"TextBox","text":"a"}"#,
            "$",
            "missing child `next`",
        ),
        (
            r#"{"type":"TextBox","text":"a","next":{"type":"Nope"}}"#,
            "$.next.type",
            "unknown tree type",
        ),
        (r#"{"type":"Element"}"#, "$.type", "abstract"),
        (
            r#"{"type":"TextBox","text":1,"next":{"type":"End"}}"#,
            "$.text",
            "expected str",
        ),
        (
            r#"{"type":"End","width":9223372036854775808}"#,
            "$.width",
            "outside the i64 range",
        ),
        (
            r#"{"type":"End","width":1.5}"#,
            "$.width",
            "expected an integer",
        ),
        (r#"{"type":"End","colour":1}"#, "$.colour", "unknown field"),
        (
            r#"{"type":"Group","border":{"size":1,"hue":2},"content":{"type":"End"},"next":{"type":"End"}}"#,
            "$.border.hue",
            "unknown field",
        ),
        (
            r#"{"type":"End","width":1,"width":2}"#,
            "$.width",
            "duplicate",
        ),
        (r#"{"type":"End"} trailing"#, "$", "malformed JSON"),
        (r#"[1,2]"#, "$", "expected a `Element` node"),
        ("", "$", "the input is empty"),
    ];
    for (json, path, message) in cases {
        match program.run_json("layout", json, &[]) {
            Err(RunError::Input(e)) => {
                assert_eq!(e.path, path, "{json}: {e}");
                assert!(e.message.contains(message), "{json}: {e}");
            }
            other => panic!("{json}: expected an input error, got {other:?}"),
        }
    }
}

#[test]
fn a_million_deep_chain_runs_without_overflow() {
    let src = include_str!("../../../examples/figure2/figure2.tf");
    let program = compile_source("figure2.tf", src).unwrap();
    let depth = 1_000_000;
    let mut json = String::with_capacity(depth * 40);
    for _ in 0..depth {
        json.push_str(r#"{"type":"TextBox","text":"abcdefghij","next":"#);
    }
    json.push_str(r#"{"type":"End"}"#);
    for _ in 0..depth {
        json.push('}');
    }
    // Run on a thread with a small stack to prove that nothing recurses on
    // the depth without growing its stack.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let out = program.run_json("layout", &json, &[]).unwrap();
            (
                out.node_visits,
                out.output_json.len(),
                out.output_json[..60].to_string(),
            )
        })
        .unwrap();
    let (visits, len, head) = handle.join().unwrap();
    assert_eq!(visits, 2 * (depth as u64 + 1));
    assert!(len > depth * 40);
    assert!(
        head.starts_with(r#"{"type":"TextBox","height":11,"width":10"#),
        "{head}"
    );
}
