//! The case studies under `examples/` (render tree, AST passes, toy
//! language) run through the library facade: reference visit counts,
//! per-page render results, hand-written AST and toy-language programs, and
//! the list-children twins against the faithful ports on generated inputs.

use std::path::PathBuf;

use serde_json::{Map, Value};

// ------------------------------------------------------------ helpers

fn example(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel)
}

fn compile(rel: &str) -> treefuse::Program {
    treefuse::compile_file(example(rel)).unwrap_or_else(|e| panic!("{rel} does not check:\n{e}"))
}

fn run(program: &treefuse::Program, fuse: &str, tree: &str) -> treefuse::RunOutcome {
    program
        .run_json(fuse, tree, &[])
        .unwrap_or_else(|e| panic!("{}: run failed: {e}", program.file_name))
}

fn gen(name: &str, variant: u8, size: usize, seed: u64) -> String {
    treefuse_casegen::generate_string(name, variant, size, seed)
        .unwrap_or_else(|e| panic!("gen {name} {variant} {size}: {e}"))
}

/// Parses JSON without serde_json's nesting limit (the trees are deep).
fn parse(text: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let mut values = de.into_iter::<Value>();
    let v = values.next().expect("a value").expect("valid JSON");
    assert!(values.next().is_none());
    v
}

/// The result tree and the globals of a run, apart.
fn split(outcome: &treefuse::RunOutcome) -> (Value, Value) {
    let mut v = parse(&outcome.output_json);
    let globals = v
        .as_object_mut()
        .and_then(|m| m.remove("globals"))
        .expect("a globals key");
    (v, globals)
}

/// Items of a linked chain, following `next`/`next_page`.
fn chain<'a>(mut node: &'a Value, content: &str) -> Vec<&'a Value> {
    let mut out = Vec::new();
    loop {
        out.push(&node[content]);
        match node.get("next").or_else(|| node.get("next_page")) {
            Some(n) => node = n,
            None => return out,
        }
    }
}

// ------------------------------------------------------------ all programs

#[test]
fn every_example_checks_and_runs_on_its_bundled_input() {
    for (program, fuse, input) in [
        ("render/render.tf", "render", "render/doc.json"),
        ("render/render_lists.tf", "render", "render/doc_lists.json"),
        ("ast/ast.tf", "optimize", "ast/program.json"),
        ("ast/ast_lists.tf", "optimize", "ast/program_lists.json"),
        ("toylang/toylang.tf", "simplify", "toylang/program.json"),
        ("scopes/scopes.tf", "resolve", "scopes/tree.json"),
    ] {
        let p = compile(program);
        let json = std::fs::read_to_string(example(input)).unwrap();
        let out = run(&p, fuse, &json);
        assert!(out.node_visits > 0, "{program}");
        assert_eq!(out.visits_per_call.iter().sum::<u64>(), out.node_visits);
    }
}

// ------------------------------------------------------------ render tree

#[test]
fn render_doc1_takes_100n_plus_5_visits() {
    let p = compile("render/render.tf");
    for n in [1u64, 2, 3, 10, 250] {
        let out = run(&p, "render", &gen("render", 1, n as usize, 0));
        assert_eq!(out.node_visits, 100 * n + 5, "N = {n}");
        assert_eq!(out.visits_per_call, vec![20 * n + 1; 5], "N = {n}");
    }
}

/// Width, height, position of a node.
fn geometry(v: &Value) -> (i64, i64, i64, i64) {
    let g = |k: &str| {
        v[k].as_i64()
            .unwrap_or_else(|| panic!("{k} of {}", v["type"]))
    };
    (g("width"), g("height"), g("pos_x"), g("pos_y"))
}

/// The checks of CASE_STUDIES.md on one page of document 1 (faithful shape).
fn check_doc1_page(page: &Value) {
    let data_nodes = check_doc1_geometry(page, |list| chain(list, "content"));
    // Font: size 1 and type 1 from the page, color still unset.
    for node in data_nodes {
        assert_eq!(node["font_style"]["size"], 1, "{}", node["type"]);
        assert_eq!(node["font_style"]["font_type"], 1, "{}", node["type"]);
        assert_eq!(node["font_style"]["color"], -1, "{}", node["type"]);
    }
    // What the list nodes hold.
    let hl = &page["horiz_list"];
    assert_eq!(hl["max_width"], 200);
    assert_eq!(hl["aggregated_height"], 80);
    let h1_elems = &hl["content"]["elements_list"];
    assert_eq!(h1_elems["accumulated_width"], 200);
    assert_eq!(h1_elems["max_height"], 70);
    assert_eq!(h1_elems["next"]["accumulated_width"], 150);
    let vc_hl = &h1_elems["next"]["content"]["horiz_list"];
    assert_eq!(vc_hl["aggregated_height"], 70);
    assert_eq!(vc_hl["next"]["aggregated_height"], 56);
}

/// Checks every node's geometry on a document-1 page, given how to read a
/// list (chain or array); returns the nodes with `Data`.
fn check_doc1_geometry<'a>(
    page: &'a Value,
    items: impl Fn(&'a Value) -> Vec<&'a Value>,
) -> Vec<&'a Value> {
    assert_eq!(page["type"], "Page");
    assert_eq!(geometry(page), (200, 80, 0, 0), "page");
    let hcs = items(&page["horiz_list"]);
    assert_eq!(hcs.len(), 2);
    let (h1, h2) = (hcs[0], hcs[1]);
    assert_eq!(geometry(h1), (200, 70, 0, 0), "H1");
    let elems = items(&h1["elements_list"]);
    let (list, vc) = (elems[0], elems[1]);
    assert_eq!(list["type"], "List");
    assert_eq!(geometry(list), (50, 10, 0, 0), "List");
    assert_eq!(vc["type"], "VerticalContainer");
    assert_eq!(geometry(vc), (150, 70, 50, 0), "VC");
    let vc_hcs = items(&vc["horiz_list"]);
    assert_eq!(geometry(vc_hcs[0]), (150, 14, 50, 0), "VC container 1");
    assert_eq!(geometry(vc_hcs[1]), (112, 56, 50, 14), "VC container 2");
    let text = items(&vc_hcs[0]["elements_list"])[0];
    assert_eq!(text["type"], "TextBox");
    assert_eq!(geometry(text), (150, 14, 50, 0), "TextBox in VC");
    let image = items(&vc_hcs[1]["elements_list"])[0];
    assert_eq!(image["type"], "Image");
    assert_eq!(geometry(image), (112, 56, 50, 14), "Image");
    assert_eq!(geometry(h2), (200, 10, 0, 70), "H2");
    let text2 = items(&h2["elements_list"])[0];
    assert_eq!(text2["type"], "TextBox");
    assert_eq!(geometry(text2), (200, 10, 0, 70), "TextBox in H2");
    vec![
        page, h1, list, vc, vc_hcs[0], vc_hcs[1], text, image, h2, text2,
    ]
}

#[test]
fn render_doc1_per_page_results() {
    let p = compile("render/render.tf");
    let out = run(&p, "render", &gen("render", 1, 4, 0));
    let (doc, globals) = split(&out);
    for flag in ["flex_error", "rel_error", "font_error"] {
        assert_eq!(globals[flag], false, "no error logged");
    }
    let pages = chain(&doc["page_list"], "content");
    assert_eq!(pages.len(), 4);
    for page in pages {
        check_doc1_page(page);
    }
    // The document's own font stays unset.
    assert_eq!(doc["font_style"]["size"], -1);
}

#[test]
fn render_lists_doc1_per_page_results() {
    let p = compile("render/render_lists.tf");
    let out = run(&p, "render", &gen("render-lists", 1, 3, 0));
    let (doc, globals) = split(&out);
    for flag in ["flex_error", "rel_error", "font_error"] {
        assert_eq!(globals[flag], false, "no error logged");
    }
    for page in doc["page_list"].as_array().unwrap() {
        let nodes = check_doc1_geometry(page, |list| list.as_array().unwrap().iter().collect());
        for node in nodes {
            assert_eq!(node["font_style"]["size"], 1);
        }
    }
}

#[test]
fn render_error_logs_and_unset_fonts() {
    // One page (REL: logs 2 and is skipped by resolve_relative_widths), one
    // ABS container, one FLEX text box (logs 1); the document's font is
    // unset, so the text box's size stays unset and computeHeights logs 3.
    let p = compile("render/render.tf");
    let doc = r#"{"type": "Document", "page_list": {"type": "PageListEnd", "content":
        {"type": "Page", "wmode": 1, "width": 100, "horiz_list": {"type": "HorizontalContainerListEnd",
          "content": {"type": "HorizontalContainer", "wmode": 0, "width": 40, "elements_list":
            {"type": "ElementListEnd", "content": {"type": "TextBox", "wmode": 2, "width": 10, "text_length": 25}}}}}}}"#;
    let out = run(&p, "render", doc);
    let (tree, globals) = split(&out);
    assert_eq!(globals["font_error"], true, "the font size was never set");
    assert_eq!(globals["rel_error"], true, "the page is REL");
    assert_eq!(globals["flex_error"], true, "the text box is FLEX");
    let text = &tree["page_list"]["content"]["horiz_list"]["content"]["elements_list"]["content"];
    assert_eq!(text["font_style"]["size"], -1);
    // s = 25 * -1 = -25; -25 / 10 = -2, remainder != 0: -1; times (-1 * 2): 2
    assert_eq!(text["height"], 2);
    // 7 nodes; resolve_relative_widths stops at the REL page.
    assert_eq!(out.visits_per_call, vec![7, 3, 7, 7, 7]);

    // With a document font, only the font error goes away.
    let doc = doc.replace(
        r#""type": "Document","#,
        r#""type": "Document", "font_style": {"font_type": 1, "size": 2, "color": 3},"#,
    );
    let (tree, globals) = split(&run(&p, "render", &doc));
    assert_eq!(globals["font_error"], false);
    assert_eq!(globals["rel_error"], true);
    let text = &tree["page_list"]["content"]["horiz_list"]["content"]["elements_list"]["content"];
    assert_eq!(text["font_style"]["color"], 3);
    // s = 25 * 2 = 50; 50 / 10 = 5; times (2 * 2): 20
    assert_eq!(text["height"], 20);
}

/// Rewrites a faithful render or AST tree into the list-children shape:
/// chains become arrays of their contents (the list nodes' own fields
/// disappear).
fn render_linked_to_lists(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(render_linked_to_lists).collect()),
        Value::Object(m) => {
            let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
            if ty.ends_with("ListInner") || ty.ends_with("ListEnd") {
                return Value::Array(
                    chain(v, "content")
                        .into_iter()
                        .map(render_linked_to_lists)
                        .collect(),
                );
            }
            let mut out = Map::new();
            for (k, x) in m {
                out.insert(k.clone(), render_linked_to_lists(x));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[test]
fn render_lists_computes_what_render_computes() {
    let faithful = compile("render/render.tf");
    let lists = compile("render/render_lists.tf");
    let mut cases = vec![(1u8, 3usize, 0u64)];
    for seed in 0..4 {
        cases.push((2, 3 + seed as usize, seed));
        cases.push((3, 10, seed));
    }
    for (variant, size, seed) in cases {
        let a = run(&faithful, "render", &gen("render", variant, size, seed));
        let b = run(&lists, "render", &gen("render-lists", variant, size, seed));
        let (ta, ga) = split(&a);
        let (tb, gb) = split(&b);
        assert_eq!(ga, gb, "globals, doc {variant} size {size} seed {seed}");
        assert!(
            render_linked_to_lists(&ta) == tb,
            "trees differ: doc {variant} size {size} seed {seed}"
        );
    }
}

// ------------------------------------------------------------ AST

#[test]
fn ast_prog1_takes_244f_plus_5_visits() {
    let p = compile("ast/ast.tf");
    for f in [1u64, 2, 7, 40] {
        let out = run(&p, "optimize", &gen("ast", 1, f as usize, f));
        assert_eq!(out.node_visits, 244 * f + 5, "F = {f}");
    }
    let out = run(&p, "optimize", &gen("ast", 1, 1000, 0));
    assert_eq!(out.node_visits, 244_005);
    assert_eq!(
        out.visits_per_call,
        vec![26001, 26001, 48001, 118001, 26001]
    );
}

/// Where the visits go (`treefuse run --profile`): every visit is counted
/// once, by the body or fused function it ran, and the rows name them.
#[test]
fn ast_prog1_visit_profile() {
    let p = compile("ast/ast.tf");
    let json = gen("ast", 1, 40, 3);
    let count = |ty: &str| json.matches(&format!(r#""type":"{ty}""#)).count() as u64;
    // Desugaring turns each `x++` into `x = x + 1`, one more `BinaryExpr`.
    let binary_exprs = count("BinaryExpr") + count("IncrStmt") + count("DecrStmt");
    let fused = p.fuse_all(&treefuse::FusionOptions::default());
    let host = treefuse::Host::new();
    let profile_of = |engine| {
        let mut tree = p.read_tree("optimize", &json).unwrap();
        let (stats, _) = p
            .run_tree_with("optimize", &mut tree, Vec::new(), &host, engine)
            .unwrap();
        stats
    };
    let unfused = profile_of(treefuse::Engine::Unfused);
    assert_eq!(unfused.profile.by_body.iter().sum::<u64>(), 244 * 40 + 5);
    assert!(unfused.profile.by_fused.is_empty());
    // `fold_constants` visits every `BinaryExpr` once.
    let fold = p
        .model
        .bodies
        .iter()
        .position(|b| {
            p.model.type_name(b.owner) == "BinaryExpr"
                && p.model.methods[b.method.index()].name == "fold_constants"
        })
        .unwrap();
    assert_eq!(unfused.profile.by_body[fold], binary_exprs);
    let text = p.render_profile(&unfused.profile, None);
    assert!(
        text.starts_with("visit profile: 9765 visits (unfused)\n"),
        "{text}"
    );
    let row = format!("{binary_exprs:>12}  ");
    let first = text.lines().nth(2).unwrap();
    assert!(
        first.starts_with(&row)
            && first.contains("  BinaryExpr.fold_constants (")
            && first.ends_with("/ast.tf:283:15)"),
        "{text}"
    );

    let fused_stats = profile_of(treefuse::Engine::Fused(&fused));
    let by_fused = &fused_stats.profile.by_fused;
    assert_eq!(by_fused.len(), fused.functions.len());
    // Everything fused: no call ran outside a fused function.
    assert!(fused_stats.profile.by_body.iter().all(|&v| v == 0));
    assert_eq!(by_fused.iter().sum::<u64>(), fused_stats.node_visits);
    assert_eq!(fused_stats.node_visits, 155 * 40 + 1);
    // The fold walk of the expressions that no other pass shares.
    let f13 = &fused.functions[13];
    assert_eq!(
        treefuse_fusion::report::function_name(&p.model, f13),
        "BinaryExpr[fold_constants]"
    );
    assert_eq!(by_fused[13], 67 * 40);
    let text = p.render_profile(&fused_stats.profile, Some(&fused));
    assert!(
        text.contains("\n        2680   43.2%  F13 BinaryExpr[fold_constants]\n"),
        "{text}"
    );
    // After the table, the three largest say where they are called and
    // what kept calls apart there: F113, the second list walk, by the
    // repeat cut-off.
    let why = text
        .split_once("\nwhere the 3 fused functions with the most visits are called, and what kept calls apart there:\n")
        .map(|(_, why)| why)
        .unwrap_or_else(|| panic!("{text}"));
    let f113 = why
        .split_once("F113 is called by F106 on `next`, F113 on `next`, ")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("{why}"));
    assert!(
        f113.contains(
            "\n  not merged: 228:9 `self.next.desugar_decr()` and 168:9 \
             `self.next.replace_var_ref_with_const(var_ref_id, value)`: merging would \
             exceed the cut-offs (at most 2 calls of one traversal)\n"
        ),
        "{why}"
    );
    assert_eq!(
        why.lines().filter(|l| l.starts_with('F')).count(),
        3,
        "{why}"
    );
}

/// A program in the text form below, as JSON for ast.tf (`lists = false`)
/// or ast_lists.tf (`lists = true`). Statements: `xN = E`, `xN++`, `xN--`,
/// `if E { S; ... } else { S; ... }`; expressions: integers, `xN`,
/// `(E + E)`, `(E - E)`.
fn ast_json(functions: &[&[Stmt]], lists: bool) -> String {
    let funcs: Vec<Value> = functions
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let mut f = Map::new();
            f.insert("type".into(), "Function".into());
            f.insert("function_name".into(), format!("f{i}").into());
            f.insert(
                if lists { "body" } else { "stmt_list" }.into(),
                stmt_seq_json(body, lists),
            );
            Value::Object(f)
        })
        .collect();
    let functions = if lists {
        Value::Array(funcs)
    } else {
        let mut node = obj(&[("type", "FunctionListEnd".into())]);
        let mut it = funcs.into_iter().rev();
        node["content"] = it.next().expect("a function");
        for f in it {
            node = obj(&[
                ("type", "FunctionListInner".into()),
                ("content", f),
                ("next", node),
            ]);
        }
        node
    };
    obj(&[("type", "Program".into()), ("functions", functions)]).to_string()
}

#[derive(Clone)]
enum Expr {
    C(i64),
    V(i64),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
}

#[derive(Clone)]
enum Stmt {
    Assign(i64, Expr),
    Incr(i64),
    Decr(i64),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
}

fn c(v: i64) -> Expr {
    Expr::C(v)
}
fn x(v: i64) -> Expr {
    Expr::V(v)
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::Add(Box::new(a), Box::new(b))
}
fn sub(a: Expr, b: Expr) -> Expr {
    Expr::Sub(Box::new(a), Box::new(b))
}
fn set(v: i64, e: Expr) -> Stmt {
    Stmt::Assign(v, e)
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert((*k).into(), v.clone());
    }
    Value::Object(m)
}

fn expr_json(e: &Expr) -> Value {
    match e {
        Expr::C(v) => obj(&[("type", "ConstantExpr".into()), ("value", (*v).into())]),
        Expr::V(v) => obj(&[("type", "VarRefExpr".into()), ("var_id", (*v).into())]),
        Expr::Add(a, b) | Expr::Sub(a, b) => obj(&[
            ("type", "BinaryExpr".into()),
            ("operator", i64::from(matches!(e, Expr::Sub(..))).into()),
            ("lhs", expr_json(a)),
            ("rhs", expr_json(b)),
        ]),
    }
}

fn stmt_json(s: &Stmt, lists: bool) -> Value {
    match s {
        Stmt::Assign(v, e) => obj(&[
            ("type", "AssignStmt".into()),
            ("id", expr_json(&x(*v))),
            ("assigned_expr", expr_json(e)),
        ]),
        Stmt::Incr(v) => obj(&[("type", "IncrStmt".into()), ("id", expr_json(&x(*v)))]),
        Stmt::Decr(v) => obj(&[("type", "DecrStmt".into()), ("id", expr_json(&x(*v)))]),
        Stmt::If(cond, t, e) => obj(&[
            ("type", "IfStmt".into()),
            ("condition", expr_json(cond)),
            ("then_part", stmt_seq_json(t, lists)),
            ("else_part", stmt_seq_json(e, lists)),
        ]),
    }
}

fn stmt_seq_json(stmts: &[Stmt], lists: bool) -> Value {
    if lists {
        let slots = stmts
            .iter()
            .map(|s| obj(&[("type", "Stmt".into()), ("stmt", stmt_json(s, true))]))
            .collect();
        return obj(&[("type", "Block".into()), ("stmts", Value::Array(slots))]);
    }
    let mut it = stmts.iter().rev();
    let mut node = obj(&[
        ("type", "StmtListEnd".into()),
        ("stmt", stmt_json(it.next().expect("a statement"), false)),
    ]);
    for s in it {
        node = obj(&[
            ("type", "StmtListInner".into()),
            ("stmt", stmt_json(s, false)),
            ("next", node),
        ]);
    }
    node
}

/// An optimized program as text, from either shape.
fn ast_text(program: &Value) -> String {
    let functions: Vec<&Value> = match &program["functions"] {
        Value::Array(a) => a.iter().collect(),
        chain_start => chain(chain_start, "content"),
    };
    functions
        .iter()
        .map(|f| {
            let body = f.get("stmt_list").unwrap_or(&f["body"]);
            format!(
                "fn {} {{ {} }}",
                f["function_name"].as_str().unwrap(),
                block_text(body)
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn block_text(seq: &Value) -> String {
    let stmts: Vec<&Value> = if seq["type"] == "Block" {
        seq["stmts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|slot| &slot["stmt"])
            .collect()
    } else {
        chain(seq, "stmt")
    };
    stmts
        .iter()
        .map(|s| stmt_text(s))
        .collect::<Vec<_>>()
        .join("; ")
}

fn stmt_text(s: &Value) -> String {
    let var = |e: &Value| format!("x{}", e["var_id"]);
    match s["type"].as_str().unwrap() {
        "AssignStmt" => format!("{} = {}", var(&s["id"]), expr_text(&s["assigned_expr"])),
        "IncrStmt" => format!("{}++", var(&s["id"])),
        "DecrStmt" => format!("{}--", var(&s["id"])),
        "NullStmt" => "nop".into(),
        "IfStmt" => format!(
            "if {} {{ {} }} else {{ {} }}",
            expr_text(&s["condition"]),
            block_text(&s["then_part"]),
            block_text(&s["else_part"])
        ),
        other => panic!("unexpected statement {other}"),
    }
}

fn expr_text(e: &Value) -> String {
    match e["type"].as_str().unwrap() {
        "ConstantExpr" => e["value"].to_string(),
        "VarRefExpr" => format!("x{}", e["var_id"]),
        "BinaryExpr" => format!(
            "({} {} {})",
            expr_text(&e["lhs"]),
            if e["operator"] == 0 { "+" } else { "-" },
            expr_text(&e["rhs"])
        ),
        other => panic!("unexpected expression {other}"),
    }
}

/// Runs `optimize` of both AST programs on `functions` and checks that both
/// give `expected` (the functions' bodies, `;`-separated, one per function).
fn check_ast(functions: &[&[Stmt]], expected: &[&str]) {
    let want: Vec<String> = expected
        .iter()
        .enumerate()
        .map(|(i, body)| format!("fn f{i} {{ {body} }}"))
        .collect();
    let want = want.join(" ");
    for (file, lists) in [("ast/ast.tf", false), ("ast/ast_lists.tf", true)] {
        let p = compile(file);
        let (tree, _) = split(&run(&p, "optimize", &ast_json(functions, lists)));
        assert_eq!(ast_text(&tree), want, "{file}");
    }
}

#[test]
fn ast_the_readme_program() {
    let body = [
        set(0, c(10)),
        Stmt::Incr(0),
        set(1, c(5)),
        set(2, add(x(1), c(3))),
        Stmt::If(
            sub(x(1), c(5)),
            vec![set(3, add(c(1), c(2)))],
            vec![set(3, x(1))],
        ),
    ];
    check_ast(
        &[&body],
        &["x0 = 10; x0 = 11; x1 = 5; x2 = 8; if 0 { nop } else { x3 = 5 }"],
    );
    // The same program as bundled with the example.
    let p = compile("ast/ast.tf");
    let json = std::fs::read_to_string(example("ast/program.json")).unwrap();
    let (tree, _) = split(&run(&p, "optimize", &json));
    assert_eq!(
        ast_text(&tree),
        "fn main { x0 = 10; x0 = 11; x1 = 5; x2 = 8; if 0 { nop } else { x3 = 5 } }"
    );
}

#[test]
fn ast_desugaring() {
    let body = [
        Stmt::Incr(1),
        Stmt::Decr(2),
        set(1, x(2)),
        Stmt::If(
            add(x(1), x(2)),
            vec![Stmt::Incr(4), set(5, x(4)), Stmt::Decr(6)],
            vec![Stmt::Decr(6), Stmt::Incr(7)],
        ),
        Stmt::Incr(3),
    ];
    // The last statement of every list is left alone (as StmtListEnd does).
    check_ast(
        &[&body],
        &["x1 = (x1 + 1); x2 = (x2 - 1); x1 = x2; \
           if (x1 + x2) { x4 = (x4 + 1); x5 = x4; x6-- } else { x6 = (x6 - 1); x7++ }; x3++"],
    );
}

#[test]
fn ast_propagation_stops_at_reassignment() {
    // x0 = 1 reaches the reassignment `x0 = x0 + x0` and stops there; the
    // new value is not a constant yet (folding comes later), so `x1 = x0`
    // keeps its reference.
    let body = [
        set(0, c(1)),
        set(0, add(x(0), x(0))),
        set(1, x(0)),
        set(2, x(1)),
    ];
    check_ast(&[&body], &["x0 = 1; x0 = 2; x1 = x0; x2 = x1"]);
    // A chain of constants: each assignment that becomes constant starts
    // its own propagation.
    let body = [
        set(0, c(1)),
        set(1, x(0)),
        set(0, c(2)),
        set(2, add(x(0), x(1))),
        set(3, x(0)),
    ];
    check_ast(&[&body], &["x0 = 1; x1 = 1; x0 = 2; x2 = 3; x3 = 2"]);
    // Propagation does not cross functions.
    check_ast(
        &[&[set(0, c(7)), set(1, x(0))], &[set(2, x(0)), set(3, x(0))]],
        &["x0 = 7; x1 = 7", "x2 = x0; x3 = x0"],
    );
}

#[test]
fn ast_propagation_stops_at_if() {
    // The constant reaches into the `if` (condition and both branches) and
    // stops after it.
    let body = [
        set(0, c(1)),
        Stmt::If(add(x(0), c(0)), vec![set(1, x(0))], vec![set(2, x(0))]),
        set(3, x(0)),
    ];
    check_ast(&[&body], &["x0 = 1; if 1 { x1 = 1 } else { nop }; x3 = x0"]);
    // A condition that is a bare variable is not replaced (only references
    // inside binary expressions are), so the branch stays.
    let body = [
        set(0, c(0)),
        Stmt::If(x(0), vec![set(1, c(1))], vec![set(1, x(0))]),
        set(2, c(2)),
    ];
    check_ast(
        &[&body],
        &["x0 = 0; if x0 { x1 = 1 } else { x1 = 0 }; x2 = 2"],
    );
    // Inside a branch, propagation restarts.
    let body = [
        set(9, x(8)),
        Stmt::If(
            x(9),
            vec![
                set(4, c(4)),
                set(5, add(x(4), x(4))),
                set(4, c(0)),
                set(6, x(4)),
            ],
            vec![set(7, x(4))],
        ),
    ];
    check_ast(
        &[&body],
        &["x9 = x8; if x9 { x4 = 4; x5 = 8; x4 = 0; x6 = 0 } else { x7 = x4 }"],
    );
}

#[test]
fn ast_folding_and_branch_removal() {
    let body = [
        set(0, add(add(add(c(1), c(2)), c(3)), c(4))),
        set(1, sub(add(c(1), c(2)), add(x(5), c(3)))),
        set(2, sub(c(5), c(7))),
        Stmt::If(sub(c(1), c(1)), vec![set(3, c(1))], vec![set(3, c(2))]),
        Stmt::If(add(c(2), c(0)), vec![set(4, c(1))], vec![set(4, c(2))]),
        Stmt::If(add(x(6), c(0)), vec![set(5, c(1))], vec![set(5, c(2))]),
    ];
    check_ast(
        &[&body],
        &[
            "x0 = 10; x1 = (3 - (x5 + 3)); x2 = -2; if 0 { nop } else { x3 = 2 }; \
           if 2 { x4 = 1 } else { nop }; if (x6 + 0) { x5 = 1 } else { x5 = 2 }",
        ],
    );
}

#[test]
fn ast_lists_computes_what_ast_computes() {
    let faithful = compile("ast/ast.tf");
    let lists = compile("ast/ast_lists.tf");
    let mut cases = Vec::new();
    for seed in 0..3u64 {
        cases.push((1u8, 3usize, seed));
        cases.push((2, 60, seed));
        cases.push((3, 2, seed));
    }
    cases.push((2, 400, 7));
    for (variant, size, seed) in cases {
        let a = run(&faithful, "optimize", &gen("ast", variant, size, seed));
        let b = run(&lists, "optimize", &gen("ast-lists", variant, size, seed));
        let (ta, ga) = split(&a);
        let (tb, gb) = split(&b);
        // ast_lists.tf has more (constant) globals.
        for (name, value) in ga.as_object().unwrap() {
            assert_eq!(&gb[name], value, "global {name}");
        }
        let (xa, xb) = (ast_text(&ta), ast_text(&tb));
        assert!(
            xa == xb,
            "program {variant} size {size} seed {seed}:\n{xa}\n{xb}"
        );
    }
}

// ------------------------------------------------------------ toy language

/// Toy-language expressions in the blog's syntax, as JSON and back.
#[derive(Clone)]
enum Toy {
    Unit,
    B(bool),
    N(i64),
    Id(&'static str),
    Div(Box<Toy>, Box<Toy>),
    Seq(Box<Toy>, Box<Toy>),
    Let(&'static str, Box<Toy>, Box<Toy>),
    If(Box<Toy>, Box<Toy>, Box<Toy>),
}

fn div(a: Toy, b: Toy) -> Toy {
    Toy::Div(Box::new(a), Box::new(b))
}
fn seq(a: Toy, b: Toy) -> Toy {
    Toy::Seq(Box::new(a), Box::new(b))
}
fn let_(x: &'static str, v: Toy, b: Toy) -> Toy {
    Toy::Let(x, Box::new(v), Box::new(b))
}
fn if_(c: Toy, t: Toy, e: Toy) -> Toy {
    Toy::If(Box::new(c), Box::new(t), Box::new(e))
}

fn toy_json(t: &Toy) -> Value {
    match t {
        Toy::Unit => obj(&[("type", "Unit".into())]),
        Toy::B(b) => obj(&[("type", "Boolean".into()), ("value", (*b).into())]),
        Toy::N(n) => obj(&[("type", "Number".into()), ("value", (*n).into())]),
        Toy::Id(x) => obj(&[("type", "Id".into()), ("name", (*x).into())]),
        Toy::Div(a, b) => obj(&[
            ("type", "Divide".into()),
            ("left", toy_json(a)),
            ("right", toy_json(b)),
        ]),
        Toy::Seq(a, b) => obj(&[
            ("type", "Sequence".into()),
            ("first", toy_json(a)),
            ("second", toy_json(b)),
        ]),
        Toy::Let(x, v, b) => obj(&[
            ("type", "Let".into()),
            ("id", (*x).into()),
            ("value", toy_json(v)),
            ("body", toy_json(b)),
        ]),
        Toy::If(c, t, e) => obj(&[
            ("type", "If".into()),
            ("conditional", toy_json(c)),
            ("consequence", toy_json(t)),
            ("alternative", toy_json(e)),
        ]),
    }
}

fn toy_text(v: &Value) -> String {
    match v["type"].as_str().unwrap() {
        "Unit" => "()".into(),
        "Boolean" | "Number" => v["value"].to_string(),
        "Id" => v["name"].as_str().unwrap().into(),
        "Divide" => format!("({} / {})", toy_text(&v["left"]), toy_text(&v["right"])),
        "Sequence" => format!("({}; {})", toy_text(&v["first"]), toy_text(&v["second"])),
        "Let" => format!(
            "(let {} = {} in {})",
            v["id"].as_str().unwrap(),
            toy_text(&v["value"]),
            toy_text(&v["body"])
        ),
        "If" => format!(
            "(if {} then {} else {})",
            toy_text(&v["conditional"]),
            toy_text(&v["consequence"]),
            toy_text(&v["alternative"])
        ),
        other => panic!("unexpected {other}"),
    }
}

fn simplify(p: &treefuse::Program, body: &Value) -> String {
    let tree = obj(&[("type", "Program".into()), ("body", body.clone())]).to_string();
    let (out, _) = split(&run(p, "simplify", &tree));
    toy_text(&out["body"])
}

#[test]
fn toylang_blog_examples() {
    use Toy::*;
    let p = compile("toylang/toylang.tf");
    let cases: Vec<(Toy, &str)> = vec![
        // The blog: dead code elimination uncovers a division to fold.
        (div(N(10), if_(B(true), N(2), N(5))), "5"),
        // The blog: the division is looked at before the let is removed.
        (div(N(10), let_("x", N(2), Id("x"))), "(10 / 2)"),
        (
            if_(B(false), N(1), if_(B(true), div(N(7), N(7)), Unit)),
            "1",
        ),
        // `pass consequence`: the moved branch is simplified again.
        (
            div(if_(B(true), if_(B(false), N(1), N(84)), N(0)), N(2)),
            "42",
        ),
        (let_("y", let_("x", N(3), Id("x")), Id("y")), "3"),
        (let_("x", N(5), Id("y")), "(let x = 5 in y)"),
        // Division by zero is left alone.
        (
            seq(div(N(10), N(0)), if_(Id("x"), N(1), N(2))),
            "((10 / 0); (if x then 1 else 2))",
        ),
        (div(N(-7), N(2)), "-3"),
        (div(div(N(100), N(10)), N(5)), "(10 / 5)"),
    ];
    for (program, want) in cases {
        assert_eq!(simplify(&p, &toy_json(&program)), want);
    }
    // The bundled input.
    let json = std::fs::read_to_string(example("toylang/program.json")).unwrap();
    let (out, _) = split(&run(&p, "simplify", &json));
    assert_eq!(toy_text(&out["body"]), "(5; (10 / 2))");
}

/// The blog's `Not_fused.pass`, written directly on JSON values.
fn reference_simplify(v: &Value) -> Value {
    fn map(v: &Value, pass: &dyn Fn(&Value) -> Value) -> Value {
        let mut out = v.as_object().unwrap().clone();
        for x in out.values_mut() {
            if x.get("type").is_some() {
                *x = pass(x);
            }
        }
        Value::Object(out)
    }
    fn dce(v: &Value) -> Value {
        if v["type"] == "If" && v["conditional"]["type"] == "Boolean" {
            return if v["conditional"]["value"] == true {
                dce(&v["consequence"])
            } else {
                dce(&v["alternative"])
            };
        }
        map(v, &dce)
    }
    fn fold(v: &Value) -> Value {
        if v["type"] == "Divide" && v["left"]["type"] == "Number" && v["right"]["type"] == "Number"
        {
            let (n, m) = (
                v["left"]["value"].as_i64().unwrap(),
                v["right"]["value"].as_i64().unwrap(),
            );
            if m != 0 {
                return obj(&[
                    ("type", "Number".into()),
                    ("value", n.wrapping_div(m).into()),
                ]);
            }
        }
        map(v, &fold)
    }
    fn rlet(v: &Value) -> Value {
        if v["type"] == "Let" && v["body"]["type"] == "Id" && v["body"]["name"] == v["id"] {
            return rlet(&v["value"]);
        }
        map(v, &rlet)
    }
    rlet(&fold(&dce(v)))
}

#[test]
fn toylang_random_programs_match_the_blog_passes() {
    let p = compile("toylang/toylang.tf");
    for seed in 0..4 {
        let input = parse(&gen("toylang", 1, 150, seed));
        let (out, _) = split(&run(&p, "simplify", &input.to_string()));
        let want = reference_simplify(&input["body"]);
        assert!(out["body"] == want, "seed {seed}");
    }
}

// ------------------------------------------------------------ scopes

/// Slots of the `Var` and `Decl` nodes in document order.
fn scope_slots(v: &Value, out: &mut Vec<(String, i64)>) {
    match v {
        Value::Object(m) => {
            if let (Some(ty), Some(slot)) = (m.get("type"), m.get("slot")) {
                let name = m.get("name").and_then(Value::as_str).unwrap_or("");
                let ty = ty.as_str().unwrap_or("");
                out.push((format!("{ty} {name}"), slot.as_i64().unwrap_or(i64::MIN)));
            }
            for (k, x) in m {
                if k != "globals" {
                    scope_slots(x, out);
                }
            }
        }
        Value::Array(xs) => xs.iter().for_each(|x| scope_slots(x, out)),
        _ => {}
    }
}

#[test]
fn scopes_resolves_the_hand_checked_program() {
    let p = compile("scopes/scopes.tf");
    let json = std::fs::read_to_string(example("scopes/tree.json")).unwrap();
    let out = run(&p, "resolve", &json);
    let v = parse(&out.output_json);
    assert_eq!(v["globals"]["unresolved"], 2);
    assert_eq!(v["globals"]["slots"], 3);
    let mut slots = Vec::new();
    scope_slots(&v, &mut slots);
    let got: Vec<(&str, i64)> = slots.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    // serde_json keeps keys sorted: a Decl's slot comes before its `init`.
    assert_eq!(
        got,
        [
            ("Decl x", 0),
            ("Var x", 0),
            ("Var y", -1),
            ("Decl y", 1),
            ("Var x", 0),
            ("Decl x", 2),
            ("Var x", 0),
            ("Var y", 1),
            ("Var x", 2),
            ("Var x", 0),
            ("Var y", -1),
        ]
    );
}

#[test]
fn scopes_engines_agree_on_generated_programs() {
    let p = compile("scopes/scopes.tf");
    let fused = p.fuse_all(&treefuse::FusionOptions::default());
    for seed in 0..3 {
        let json = gen("scopes", 1, 3_000, seed);
        let tree = p.read_tree("resolve", &json).unwrap();
        let mut results = Vec::new();
        for engine in [treefuse::Engine::Unfused, treefuse::Engine::Fused(&fused)] {
            let mut t = tree.clone();
            let (stats, globals) = p
                .run_tree_with(
                    "resolve",
                    &mut t,
                    Vec::new(),
                    &treefuse::Host::new(),
                    engine,
                )
                .unwrap();
            assert_eq!(
                stats.node_visits as usize,
                t.len(&p.model),
                "one visit per node"
            );
            results.push(treefuse_runtime::write_tree(
                &p.model,
                &t,
                Some(&globals),
                Default::default(),
            ));
        }
        assert_eq!(results[0], results[1], "seed {seed}");
    }
}
