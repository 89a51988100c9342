//! Shape, size, determinism and deep-output tests of the case-study generators.

use std::collections::BTreeMap;
use std::io::{self, Write};

use proptest::prelude::*;
use serde_json::{Map, Value};
use treefuse_casegen::{generate, generate_string, variants, GenerateError, EXAMPLES};

fn parse(s: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(s);
    de.disable_recursion_limit();
    let mut values = de.into_iter::<Value>();
    let v = values
        .next()
        .expect("one value")
        .expect("generated JSON parses");
    assert!(values.next().is_none(), "exactly one JSON value");
    v
}

fn gen_value(name: &str, variant: u8, size: usize, seed: u64) -> Value {
    parse(&generate_string(name, variant, size, seed).expect("generates"))
}

/// Node counts by type (every object with a "type" key is a node).
fn type_counts(v: &Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(t)) = m.get("type") {
                    *counts.entry(t.clone()).or_insert(0) += 1;
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    counts
}

fn total(counts: &BTreeMap<String, usize>) -> usize {
    counts.values().sum()
}

fn count(counts: &BTreeMap<String, usize>, ty: &str) -> usize {
    counts.get(ty).copied().unwrap_or(0)
}

/// Follows a linked chain (`content` or `stmt` items, `next`/`next_page`
/// links) and returns its items in order.
fn chain_items<'a>(mut node: &'a Value, content: &str, next: &str) -> Vec<&'a Value> {
    let mut items = Vec::new();
    loop {
        items.push(&node[content]);
        match node.get(next) {
            Some(n) => node = n,
            None => return items,
        }
    }
}

/// Rewrites a faithful (linked) tree into the shape of the list-children
/// programs, so that a `-lists` output can be compared with its twin.
fn linked_to_lists(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(linked_to_lists).collect()),
        Value::Object(m) => {
            let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
            match ty {
                "PageListInner" | "PageListEnd" => Value::Array(
                    chain_items(v, "content", "next_page")
                        .into_iter()
                        .map(linked_to_lists)
                        .collect(),
                ),
                "HorizontalContainerListInner"
                | "HorizontalContainerListEnd"
                | "ElementListInner"
                | "ElementListEnd"
                | "FunctionListInner"
                | "FunctionListEnd" => Value::Array(
                    chain_items(v, "content", "next")
                        .into_iter()
                        .map(linked_to_lists)
                        .collect(),
                ),
                "StmtListInner" | "StmtListEnd" => {
                    let stmts = chain_items(v, "stmt", "next")
                        .into_iter()
                        .map(|s| {
                            let mut slot = Map::new();
                            slot.insert("type".into(), "Stmt".into());
                            slot.insert("stmt".into(), linked_to_lists(s));
                            Value::Object(slot)
                        })
                        .collect();
                    let mut block = Map::new();
                    block.insert("type".into(), "Block".into());
                    block.insert("stmts".into(), Value::Array(stmts));
                    Value::Object(block)
                }
                _ => {
                    let mut out = Map::new();
                    for (k, x) in m {
                        let key = if ty == "Function" && k == "stmt_list" {
                            "body".to_string()
                        } else {
                            k.clone()
                        };
                        out.insert(key, linked_to_lists(x));
                    }
                    Value::Object(out)
                }
            }
        }
        other => other.clone(),
    }
}

// ---------------------------------------------------------------- errors

#[test]
fn unknown_names_variants_and_bad_sizes_are_errors() {
    let mut sink = Vec::new();
    let e = generate("nope", 1, 1, 0, &mut sink).unwrap_err();
    assert!(matches!(e, GenerateError::UnknownExample { .. }));
    assert!(e.to_string().contains("render-lists"), "{e}");
    let e = generate("render", 4, 1, 0, &mut sink).unwrap_err();
    assert!(matches!(e, GenerateError::UnknownVariant { .. }));
    assert!(e.to_string().contains("no variant 4"), "{e}");
    assert!(matches!(
        generate("toylang", 2, 1, 0, &mut sink),
        Err(GenerateError::UnknownVariant { .. })
    ));
    assert!(matches!(
        generate("ast", 0, 1, 0, &mut sink),
        Err(GenerateError::UnknownVariant { .. })
    ));
    for (name, variant, size) in [
        ("render", 1, 0),
        ("render-lists", 2, 0),
        ("render", 3, 4),
        ("ast", 1, 0),
        ("ast-lists", 3, 0),
        ("toylang", 1, 0),
        ("scopes", 1, 1),
        ("minic", 1, 0),
        ("treefold-min", 1, 0),
        ("treefold-min", 1, 101),
        ("treefold-nested", 1, 1000),
        ("treefold-life", 1, 0),
    ] {
        let e = generate(name, variant, size, 0, &mut sink).unwrap_err();
        assert!(
            matches!(e, GenerateError::InvalidSize { .. }),
            "{name} {variant} {size}"
        );
        assert!(e.to_string().contains("invalid size"), "{e}");
    }
    assert!(sink.is_empty(), "nothing is written on a validation error");
    assert_eq!(variants("render"), Some(&[1u8, 2, 3][..]));
    assert_eq!(variants("toylang"), Some(&[1u8][..]));
    assert_eq!(variants("x"), None);
    assert_eq!(EXAMPLES.len(), 10);
    assert!(EXAMPLES.iter().all(|name| variants(name).is_some()));
}

#[test]
fn write_errors_are_reported() {
    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let e = generate("render", 1, 10, 0, &mut Broken).unwrap_err();
    assert!(matches!(e, GenerateError::Io(_)));
    assert!(std::error::Error::source(&e).is_some());
}

// ---------------------------------------------------------------- render

#[test]
fn render_doc1_has_20_nodes_per_page() {
    for n in [1usize, 2, 3, 7] {
        let v = gen_value("render", 1, n, 0);
        let c = type_counts(&v);
        assert_eq!(total(&c), 1 + 20 * n, "{c:?}");
        assert_eq!(count(&c, "Document"), 1);
        assert_eq!(count(&c, "PageListInner"), n - 1);
        assert_eq!(count(&c, "PageListEnd"), 1);
        assert_eq!(count(&c, "Page"), n);
        assert_eq!(count(&c, "HorizontalContainerListInner"), 2 * n);
        assert_eq!(count(&c, "HorizontalContainerListEnd"), 2 * n);
        assert_eq!(count(&c, "HorizontalContainer"), 4 * n);
        assert_eq!(count(&c, "ElementListInner"), n);
        assert_eq!(count(&c, "ElementListEnd"), 4 * n);
        assert_eq!(count(&c, "List"), n);
        assert_eq!(count(&c, "VerticalContainer"), n);
        assert_eq!(count(&c, "TextBox"), 2 * n);
        assert_eq!(count(&c, "Image"), n);
    }
}

#[test]
fn render_doc1_page_matches_the_builder() {
    let v = gen_value("render", 1, 2, 0);
    let page = &v["page_list"]["content"];
    assert_eq!(page["type"], "Page");
    assert_eq!(page["wmode"], 2);
    assert_eq!(page["width"], -1);
    assert_eq!(page["font_style"]["size"], 1);
    assert_eq!(page["font_style"]["font_type"], 1);
    assert_eq!(page["font_style"]["color"], -1);
    let h1 = &page["horiz_list"]["content"];
    assert_eq!(h1["wmode"], 2);
    let list = &h1["elements_list"]["content"];
    assert_eq!(list["type"], "List");
    assert_eq!(list["width"], 50);
    assert_eq!(list["item_margin"], 3);
    let lens: Vec<i64> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["length"].as_i64().unwrap())
        .collect();
    assert_eq!(lens, [100, 150, 120]);
    let vc = &h1["elements_list"]["next"]["content"];
    assert_eq!(vc["type"], "VerticalContainer");
    assert_eq!(vc["width"], 150);
    let hc_a = &vc["horiz_list"]["content"];
    assert_eq!(hc_a["rel_width"], 1.0);
    assert_eq!(hc_a["elements_list"]["content"]["type"], "TextBox");
    assert_eq!(hc_a["elements_list"]["content"]["text_length"], 1000);
    let hc_b = &vc["horiz_list"]["next"]["content"];
    assert_eq!(hc_b["rel_width"], 0.75);
    let img = &hc_b["elements_list"]["content"];
    assert_eq!(img["type"], "Image");
    assert_eq!(img["image_original_width"], 200.0);
    assert_eq!(img["image_original_height"], 100.0);
    let h2 = &page["horiz_list"]["next"]["content"];
    assert_eq!(h2["wmode"], 1);
    assert_eq!(h2["width"], -1);
    assert_eq!(h2["elements_list"]["content"]["type"], "TextBox");
    // Every page is the same.
    assert_eq!(
        v["page_list"]["content"],
        v["page_list"]["next_page"]["content"]
    );
}

#[test]
fn render_doc2_and_doc3_shapes() {
    for seed in 0..5 {
        let v = gen_value("render", 2, 6, seed);
        let pl = &v["page_list"];
        assert_eq!(pl["type"], "PageListEnd");
        let hcs = chain_items(&pl["content"]["horiz_list"], "content", "next");
        assert_eq!(hcs.len(), 7, "N + 1 containers");
        for hc in hcs {
            assert_eq!(hc["type"], "HorizontalContainer");
            assert_eq!(hc["wmode"], 1);
            // rand() % N + 1 elements
            let n = chain_items(&hc["elements_list"], "content", "next").len();
            assert!((1..=6).contains(&n), "{n}");
        }
        let v = gen_value("render", 3, 12, seed);
        let pages = chain_items(&v["page_list"], "content", "next_page");
        assert_eq!(pages.len(), 13, "N + 1 pages");
        for p in pages {
            // sizes in 1..=N/5 -> 2..=3 containers
            let n = chain_items(&p["horiz_list"], "content", "next").len();
            assert!((2..=3).contains(&n), "{n}");
        }
    }
}

#[test]
fn render_doc2_vertical_containers_only_with_depth() {
    // depth decreases strictly: a VC inside a VC needs depth >= 2, so
    // nesting is bounded; and every VC is ABS 150.
    let v = gen_value("render", 2, 8, 3);
    let c = type_counts(&v);
    assert!(count(&c, "VerticalContainer") > 0, "{c:?}");
    let mut stack = vec![&v];
    while let Some(x) = stack.pop() {
        if x["type"] == "VerticalContainer" {
            assert_eq!(x["wmode"], 0);
            assert_eq!(x["width"], 150);
        }
        match x {
            Value::Object(m) => stack.extend(m.values()),
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
}

#[test]
fn render_lists_is_the_same_tree() {
    for (variant, size) in [(1u8, 3usize), (2, 5), (2, 7), (3, 10)] {
        for seed in [0u64, 1, 42] {
            let linked = gen_value("render", variant, size, seed);
            let lists = gen_value("render-lists", variant, size, seed);
            assert_eq!(
                linked_to_lists(&linked),
                lists,
                "variant {variant} size {size} seed {seed}"
            );
        }
    }
    let c = type_counts(&gen_value("render-lists", 1, 4, 0));
    assert_eq!(total(&c), 1 + 10 * 4, "no list nodes: {c:?}");
}

// ---------------------------------------------------------------- ast

#[test]
fn ast_prog1_has_230_nodes_per_function() {
    for f in [1usize, 2, 10] {
        let v = gen_value("ast", 1, f, 0);
        let c = type_counts(&v);
        assert_eq!(total(&c), 1 + 230 * f, "{c:?}");
        assert_eq!(count(&c, "Program"), 1);
        assert_eq!(count(&c, "FunctionListInner"), f - 1);
        assert_eq!(count(&c, "FunctionListEnd"), 1);
        assert_eq!(count(&c, "Function"), f);
        assert_eq!(count(&c, "StmtListInner"), 20 * f);
        assert_eq!(count(&c, "StmtListEnd"), 3 * f);
        assert_eq!(count(&c, "AssignStmt"), 21 * f);
        assert_eq!(count(&c, "IncrStmt"), f);
        assert_eq!(count(&c, "IfStmt"), f);
        assert_eq!(count(&c, "BinaryExpr"), 69 * f);
        assert_eq!(count(&c, "ConstantExpr"), f);
        assert_eq!(count(&c, "VarRefExpr"), 112 * f);
    }
}

#[test]
fn ast_prog1_function_matches_the_builder() {
    let v = gen_value("ast", 1, 1, 5);
    let f = &v["functions"];
    assert_eq!(f["type"], "FunctionListEnd");
    assert_eq!(f["content"]["function_name"], "F0");
    let stmts = chain_items(&f["content"]["stmt_list"], "stmt", "next");
    assert_eq!(stmts.len(), 9);
    assert_eq!(stmts[0]["type"], "AssignStmt");
    assert_eq!(stmts[0]["id"]["var_id"], 0);
    assert_eq!(stmts[0]["assigned_expr"]["type"], "ConstantExpr");
    assert_eq!(stmts[0]["assigned_expr"]["value"], 10);
    assert_eq!(stmts[1]["type"], "IncrStmt");
    assert_eq!(stmts[1]["id"]["var_id"], 0);
    assert_eq!(stmts[2]["assigned_expr"]["type"], "VarRefExpr");
    for s in &stmts[3..8] {
        // (((v + v) + v) + v) + v
        let mut e = &s["assigned_expr"];
        for _ in 0..4 {
            assert_eq!(e["type"], "BinaryExpr");
            assert_eq!(e["operator"], 0);
            assert_eq!(e["rhs"]["type"], "VarRefExpr");
            e = &e["lhs"];
        }
        assert_eq!(e["type"], "VarRefExpr");
    }
    let iff = stmts[8];
    assert_eq!(iff["type"], "IfStmt");
    assert_eq!(iff["condition"]["type"], "BinaryExpr");
    for part in ["then_part", "else_part"] {
        let b = chain_items(&iff[part], "stmt", "next");
        assert_eq!(b.len(), 7);
        assert_eq!(b[6]["type"], "AssignStmt");
        assert_eq!(b[6]["assigned_expr"]["type"], "BinaryExpr");
    }
    // all variable ids in 0..5
    let mut stack = vec![&v];
    while let Some(x) = stack.pop() {
        if let Some(id) = x.get("var_id") {
            assert!((0..5).contains(&id.as_i64().unwrap()));
        }
        match x {
            Value::Object(m) => stack.extend(m.values()),
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
}

#[test]
fn ast_prog2_and_prog3_shapes() {
    let v = gen_value("ast", 2, 50, 1);
    assert_eq!(v["functions"]["type"], "FunctionListEnd");
    let stmts = chain_items(&v["functions"]["content"]["stmt_list"], "stmt", "next");
    assert_eq!(stmts.len(), 52);
    assert_eq!(stmts[50]["type"], "IncrStmt");
    assert_eq!(stmts[51]["type"], "IncrStmt");
    assert_eq!(stmts[51]["id"]["var_id"], 0);
    let kinds: std::collections::BTreeSet<&str> = stmts[..50]
        .iter()
        .map(|s| s["type"].as_str().unwrap())
        .collect();
    assert!(kinds.contains("AssignStmt") && kinds.contains("IfStmt") && kinds.contains("IncrStmt"));

    let v = gen_value("ast", 3, 3, 2);
    let funcs = chain_items(&v["functions"], "content", "next");
    assert_eq!(funcs.len(), 3);
    let lens: Vec<usize> = funcs
        .iter()
        .map(|f| chain_items(&f["stmt_list"], "stmt", "next").len())
        .collect();
    assert_eq!(
        lens,
        [202, 202, 6],
        "200 statements (F + 1 for the last) plus two increments"
    );
    // VarRefs of `x = y` point to previously assigned variables.
    for f in funcs {
        let mut assigned = std::collections::BTreeSet::new();
        for s in chain_items(&f["stmt_list"], "stmt", "next") {
            if s["type"] == "AssignStmt" {
                let lhs = s["id"]["var_id"].as_i64().unwrap();
                assert!((0..1_000_000_000).contains(&lhs));
                if s["assigned_expr"]["type"] == "VarRefExpr" {
                    assigned.insert(lhs);
                    assert!(assigned.contains(&s["assigned_expr"]["var_id"].as_i64().unwrap()));
                } else {
                    assigned.insert(lhs);
                }
            }
        }
    }
}

#[test]
fn ast_lists_is_the_same_tree() {
    for (variant, size) in [(1u8, 3usize), (2, 40), (3, 2)] {
        for seed in [0u64, 9] {
            let linked = gen_value("ast", variant, size, seed);
            let lists = gen_value("ast-lists", variant, size, seed);
            assert_eq!(
                linked_to_lists(&linked),
                lists,
                "variant {variant} size {size} seed {seed}"
            );
        }
    }
}

// ---------------------------------------------------------------- toylang

#[test]
fn toylang_programs_are_sequences() {
    let v = gen_value("toylang", 1, 20, 4);
    assert_eq!(v["type"], "Program");
    let mut node = &v["body"];
    let mut n = 1;
    while node["type"] == "Sequence" && node.get("first").is_some() && n < 20 {
        node = &node["second"];
        n += 1;
    }
    assert_eq!(n, 20);
    let c = type_counts(&v);
    for ty in ["If", "Divide", "Let", "Number", "Boolean"] {
        assert!(count(&c, ty) > 0, "{ty} missing: {c:?}");
    }
    let known = [
        "Program", "Unit", "Boolean", "Number", "Id", "Divide", "Sequence", "Let", "If",
    ];
    for ty in c.keys() {
        assert!(known.contains(&ty.as_str()), "{ty}");
    }
    let single = gen_value("toylang", 1, 1, 4);
    assert_ne!(single["body"]["type"], Value::Null);
}

// ---------------------------------------------------------------- scopes

#[test]
fn scopes_programs_have_about_size_nodes() {
    for (size, seed) in [(2usize, 0u64), (3, 1), (50, 2), (5_000, 3), (60_000, 4)] {
        let v = gen_value("scopes", 1, size, seed);
        let c = type_counts(&v);
        let n = total(&c);
        assert!(n >= size && n <= size + 16, "{size}: {n} nodes, {c:?}");
        assert_eq!(count(&c, "Program"), 1);
        let known = ["Program", "Block", "Decl", "ExprStmt", "Num", "Var", "Add"];
        for ty in c.keys() {
            assert!(known.contains(&ty.as_str()), "{ty}");
        }
        if size >= 5_000 {
            // Every kind of statement and expression occurs.
            assert!(known.iter().all(|k| count(&c, k) > 0), "{c:?}");
        }
    }
}

// ---------------------------------------------------------------- determinism

#[test]
fn output_is_deterministic_per_seed() {
    for name in EXAMPLES {
        for &variant in variants(name).unwrap() {
            let size = if variant == 3 { 6 } else { 4 };
            let a = generate_string(name, variant, size, 11).unwrap();
            let b = generate_string(name, variant, size, 11).unwrap();
            assert_eq!(a, b, "{name} {variant}");
            assert!(a.ends_with("}\n"));
            let random = !(name.starts_with("render") && variant == 1);
            if random {
                let others: Vec<String> = (12..16)
                    .map(|s| generate_string(name, variant, size, s).unwrap())
                    .collect();
                assert!(
                    others.iter().any(|o| *o != a),
                    "{name} {variant}: seed has no effect"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]
    #[test]
    fn small_outputs_parse_and_twins_agree(variant in 1u8..=3, size in 1usize..8, seed in any::<u64>()) {
        let size_r = if variant == 3 { size + 4 } else { size };
        let linked = gen_value("render", variant, size_r, seed);
        prop_assert_eq!(linked_to_lists(&linked), gen_value("render-lists", variant, size_r, seed));
        let size_a = if variant == 3 { size.min(3) } else { size };
        let linked = gen_value("ast", variant, size_a, seed);
        prop_assert_eq!(linked_to_lists(&linked), gen_value("ast-lists", variant, size_a, seed));
        let t = gen_value("toylang", 1, size, seed);
        prop_assert_eq!(&t["type"], "Program");
    }
}

// ---------------------------------------------------------------- deep output

/// A sink that checks bracket balance and counts nodes without building
/// anything.
#[derive(Default)]
struct Scan {
    depth: i64,
    max_depth: i64,
    nodes: u64,
    bytes: u64,
    in_string: bool,
    escape: bool,
    matched: usize,
}

const TYPE_KEY: &[u8] = b"\"type\":";

impl Write for Scan {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            // node count: occurrences of `"type":`
            if b == TYPE_KEY[self.matched] {
                self.matched += 1;
                if self.matched == TYPE_KEY.len() {
                    self.nodes += 1;
                    self.matched = 0;
                }
            } else {
                self.matched = usize::from(b == TYPE_KEY[0]);
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    self.max_depth = self.max_depth.max(self.depth);
                }
                b'}' | b']' => {
                    self.depth -= 1;
                    assert!(self.depth >= 0, "unbalanced");
                }
                _ => {}
            }
        }
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn scan(name: &str, variant: u8, size: usize) -> Scan {
    let mut s = Scan::default();
    generate(name, variant, size, 0, &mut s).unwrap();
    assert_eq!(s.depth, 0);
    assert!(!s.in_string);
    s
}

#[test]
fn render_doc1_100k_pages_streams_without_recursion() {
    let s = scan("render", 1, 100_000);
    assert_eq!(s.nodes, 1 + 20 * 100_000);
    assert!(
        s.max_depth > 100_000,
        "the page list nests one level per page"
    );
}

#[test]
fn deep_ast_and_toylang_stream() {
    let s = scan("ast", 1, 20_000);
    assert_eq!(s.nodes, 1 + 230 * 20_000);
    let s = scan("ast", 2, 50_000);
    assert!(s.max_depth > 50_000);
    let s = scan("toylang", 1, 50_000);
    assert!(s.max_depth > 50_000);
}

#[test]
#[ignore = "writes about 1.7 GB of JSON into a counting sink (run with --ignored)"]
fn render_doc1_one_million_pages() {
    let s = scan("render", 1, 1_000_000);
    assert_eq!(s.nodes, 1 + 20 * 1_000_000);
}

/// The minic generator: one `Func` per requested function, every statement
/// and expression form the passes rewrite present, deterministic per seed.
#[test]
fn functions_and_every_rewritten_form_are_generated() {
    let text = generate_string("minic", 1, 200, 5).unwrap();
    assert_eq!(
        text,
        generate_string("minic", 1, 200, 5).unwrap(),
        "deterministic"
    );
    assert_ne!(text, generate_string("minic", 1, 200, 6).unwrap(), "seeded");
    let v: Value = serde_json::from_str(&text).unwrap();
    let funcs = v["funcs"].as_array().unwrap();
    assert_eq!(funcs.len(), 200);
    for (i, f) in funcs.iter().enumerate() {
        assert_eq!(f["name"], format!("f{i}"));
        let last = f["body"]["stmts"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s["type"] == "Return");
        assert!(last.is_some(), "function {i} returns at top level");
    }
    let counts = type_counts(&v);
    for ty in [
        "Block",
        "Let",
        "Assign",
        "CompoundAssign",
        "Incr",
        "Decr",
        "If",
        "While",
        "DoWhile",
        "For",
        "Return",
        "ExprStmt",
        "Print",
        "Nop",
        "IntLit",
        "BoolLit",
        "Var",
        "Arith",
        "Compare",
        "Logical",
        "Neg",
        "Not",
        "Call",
        "Cond",
        "Param",
    ] {
        assert!(
            counts.get(ty).copied().unwrap_or(0) > 0,
            "no {ty} in {counts:?}"
        );
    }
    let nodes = total(&counts);
    assert!(
        (50 * 200..250 * 200).contains(&nodes),
        "{nodes} nodes for 200 functions"
    );
}
