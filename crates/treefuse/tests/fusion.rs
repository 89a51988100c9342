//! Differential tests of fusion: on every example and on hand-written
//! programs aimed at one feature each, the fused run must leave the tree
//! and the globals exactly as the unfused run, and fail exactly when it
//! fails. Node-visit counts of the fused schedules are pinned where the
//! schedule is known.

use treefuse::{compile_source, Engine, FusionOptions, Host, Program, RunError, Tree};
use treefuse_runtime::{diff_globals, diff_trees, random_tree, GenOptions};
use treefuse_sema::TypeId;

fn example(path: &str) -> Program {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    treefuse::compile_file(&full).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs both engines on `input`; panics on any difference. Returns the
/// (unfused, fused) node visits, or `None` if both raised runtime errors.
fn equivalent(
    program: &Program,
    fuse: &str,
    input: &Tree,
    options: &FusionOptions,
) -> Option<(u64, u64)> {
    let fused = program.fuse_all(options);
    let host = Host::new();
    let (mut a, mut b) = (input.clone(), input.clone());
    let ra = program.run_tree_with(fuse, &mut a, Vec::new(), &host, Engine::Unfused);
    let rb = program.run_tree_with(fuse, &mut b, Vec::new(), &host, Engine::Fused(&fused));
    match (ra, rb) {
        (Ok((sa, ga)), Ok((sb, gb))) => {
            let mut d = diff_trees(&program.model, &a, &b, 3);
            d.extend(diff_globals(&program.model, &ga, &gb));
            assert!(
                d.is_empty(),
                "{}: fused differs from unfused: {d:?}",
                program.file_name
            );
            Some((sa.node_visits, sb.node_visits))
        }
        (Err(RunError::Runtime(_)), Err(RunError::Runtime(_))) => None,
        (ra, rb) => panic!(
            "{}: error behaviour differs: unfused {:?} / fused {:?}",
            program.file_name,
            ra.err(),
            rb.err()
        ),
    }
}

fn generated(program: &Program, fuse: &str, name: &str, variant: u8, size: usize) -> Tree {
    let json = treefuse_casegen::generate_string(name, variant, size, 7).unwrap();
    program.read_tree(fuse, &json).unwrap()
}

/// A random tree of about `nodes` nodes for `program`, rooted at `root`.
fn random_input(program: &Program, root: TypeId, nodes: usize, max_list: usize, seed: u64) -> Tree {
    random_tree(
        &program.model,
        root,
        &GenOptions {
            nodes,
            seed,
            max_list,
            ..Default::default()
        },
    )
    .unwrap()
}

fn cutoff_variants() -> Vec<FusionOptions> {
    vec![
        FusionOptions::default(),
        FusionOptions {
            max_group: 1,
            max_repeat: 1,
        },
        FusionOptions {
            max_group: 2,
            max_repeat: 1,
        },
        FusionOptions {
            max_group: 3,
            max_repeat: 2,
        },
    ]
}

/// Fused ≡ unfused on one random tree per seed (about `nodes` nodes, rooted
/// at type `root`), under every cut-off. Returns how many runs completed
/// and how many raised a runtime error (in both engines alike).
fn equivalent_on_random_trees(
    program: &Program,
    fuse: &str,
    root: &str,
    nodes: usize,
    seeds: impl IntoIterator<Item = u64>,
) -> (usize, usize) {
    let root = program.model.type_named(root).unwrap();
    let (mut ran, mut failed) = (0, 0);
    for seed in seeds {
        let t = random_input(program, root, nodes, 6, seed);
        for options in cutoff_variants() {
            match equivalent(program, fuse, &t, &options) {
                Some(_) => ran += 1,
                None => failed += 1,
            }
        }
    }
    (ran, failed)
}

/// The JSON report and the DOT graphs of `fused`.
fn json_and_dot(program: &Program, fused: &treefuse_fusion::FusedProgram) -> (String, String) {
    let json = treefuse_fusion::report::json_report(&program.model, fused, &program.source);
    (
        serde_json::to_string(&json).unwrap(),
        treefuse_fusion::report::dot(&program.model, fused, &program.source),
    )
}

/// The output document (tree and globals) of a fused run of `fuse` on a
/// copy of `tree`.
fn fused_output(
    program: &Program,
    fused: &treefuse_fusion::FusedProgram,
    fuse: &str,
    tree: &Tree,
) -> String {
    let mut t = tree.clone();
    let (_, globals) = program
        .run_tree_with(fuse, &mut t, Vec::new(), &Host::new(), Engine::Fused(fused))
        .unwrap();
    treefuse_runtime::write_tree(&program.model, &t, Some(&globals), Default::default())
}

/// The programs `template` gives with each placeholder replaced by one of
/// its choices: every combination, the first placeholder varying slowest.
fn variants(template: &str, slots: &[(&str, &[&str])]) -> Vec<String> {
    let mut out = vec![template.to_string()];
    for (name, choices) in slots {
        out = out
            .iter()
            .flat_map(|s| choices.iter().map(move |c| s.replace(name, c)))
            .collect();
    }
    out
}

/// Compiles a variant and reports its fusion (text report).
fn compile_variant(source: &str) -> (Program, String) {
    let program = compile_source("variant.tf", source).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    (program, report)
}

#[test]
fn figure2_fuses_completely() {
    let program = example("examples/figure2/figure2.tf");
    let doc = include_str!("../../../examples/figure2/doc.json");
    let tree = program.read_tree("layout", doc).unwrap();
    assert_eq!(
        equivalent(&program, "layout", &tree, &FusionOptions::default()),
        Some((12, 6))
    );
    let fused = program.fuse_all(&FusionOptions::default());
    assert!(fused.functions.iter().all(|f| f.blocked.is_empty()));
    for seed in 0..30 {
        let root = program.model.type_named("Element").unwrap();
        let t = random_input(&program, root, 80, GenOptions::default().max_list, seed);
        for options in cutoff_variants() {
            equivalent(&program, "layout", &t, &options);
        }
    }
}

#[test]
fn render_tree_fused_equals_unfused() {
    for file in [
        "examples/render/render.tf",
        "examples/render/render_lists.tf",
    ] {
        let program = example(file);
        let name = if file.contains("lists") {
            "render-lists"
        } else {
            "render"
        };
        for (variant, size) in [(1, 1), (1, 7), (2, 6), (3, 5)] {
            let tree = generated(&program, "render", name, variant, size);
            for options in cutoff_variants() {
                equivalent(&program, "render", &tree, &options);
            }
        }
    }
}

#[test]
fn render_document_1_visits() {
    let program = example("examples/render/render.tf");
    for pages in [1usize, 10, 100] {
        let tree = generated(&program, "render", "render", 1, pages);
        let (unfused, fused) =
            equivalent(&program, "render", &tree, &FusionOptions::default()).unwrap();
        assert_eq!(unfused, 100 * pages as u64 + 5);
        // Two traversals: flex widths with fonts, then relative widths with
        // heights and positions (Grafter: 0.40 of unfused).
        assert_eq!(fused, 38 * pages as u64 + 1, "{fused} vs {unfused}");
    }
}

#[test]
fn ast_program_1_visits() {
    let program = example("examples/ast/ast.tf");
    for functions in [1usize, 10, 100] {
        let tree = generated(&program, "optimize", "ast", 1, functions);
        let (unfused, fused) =
            equivalent(&program, "optimize", &tree, &FusionOptions::default()).unwrap();
        assert_eq!(unfused, 244 * functions as u64 + 5);
        // Grafter: 0.76 of unfused.
        assert_eq!(fused, 155 * functions as u64 + 1, "{fused} vs {unfused}");
    }
}

#[test]
fn ast_passes_fused_equal_unfused() {
    for file in ["examples/ast/ast.tf", "examples/ast/ast_lists.tf"] {
        let program = example(file);
        let name = if file.contains("lists") {
            "ast-lists"
        } else {
            "ast"
        };
        for (variant, size) in [(1, 1), (1, 6), (2, 30), (3, 3)] {
            let tree = generated(&program, "optimize", name, variant, size);
            for options in cutoff_variants() {
                equivalent(&program, "optimize", &tree, &options);
            }
        }
    }
}

#[test]
fn toy_language_fused_equals_unfused() {
    let program = example("examples/toylang/toylang.tf");
    for seed in 0..20 {
        let json = treefuse_casegen::generate_string("toylang", 1, 40, seed).unwrap();
        let tree = program.read_tree("simplify", &json).unwrap();
        for options in cutoff_variants() {
            equivalent(&program, "simplify", &tree, &options);
        }
    }
}

#[test]
fn random_trees_of_every_example() {
    for (file, fuse) in [
        ("examples/render/render.tf", "render"),
        ("examples/render/render_lists.tf", "render"),
        ("examples/ast/ast.tf", "optimize"),
        ("examples/ast/ast_lists.tf", "optimize"),
        ("examples/toylang/toylang.tf", "simplify"),
    ] {
        let program = example(file);
        let root = program.model.fuse_named(fuse).unwrap().root_type;
        for seed in 0..15 {
            let t = random_input(&program, root, 150, GenOptions::default().max_list, seed);
            equivalent(&program, fuse, &t, &FusionOptions::default());
            equivalent(
                &program,
                fuse,
                &t,
                &FusionOptions {
                    max_group: 2,
                    max_repeat: 1,
                },
            );
        }
    }
}

/// Hand-written programs, each aimed at one thing fusion must respect.
const FEATURES: &[(&str, &str)] = &[
    (
        "loops over the same list with aggregates in their bodies",
        r#"
        global g: i64 = 0;
        abstract tree Item { w: i64; h: i64; traversal width() {} traversal height(k: i64) {} }
        tree Leaf : Item { traversal width() { self.w = self.w + 1; } traversal height(k: i64) { self.h = self.w * k; g = g + 1; } }
        tree Box : Item {
            child kids: [Item];
            traversal width() {
                let total = 0;
                for c in self.kids { c.width(); total = total + c.w; }
                self.w = total;
            }
            traversal height(k: i64) {
                let best = 0;
                let i = 0;
                for c in self.kids { if i > 0 { c.height(k + self.w); } best = max(best, c.h + g); i = i + 1; }
                self.h = best;
                for c in self.kids { if c.h > 3 { return; } c.height(1); }
            }
        }
        fuse f(root: Item) { root.width(); root.height(2); root.width(); }
        "#,
    ),
    (
        // Regression: a merged call's arguments were evaluated before an
        // earlier member of the same fused call had written what they read.
        "arguments read what an earlier call on the same child writes",
        r#"
        global g: i64 = 0;
        tree C { x: i64; y: i64; traversal inc() { g = g + 1; self.y = self.y + 1; } traversal use_it(v: i64, w: i64) { self.x = v + w; } }
        tree P { child c: C; traversal a() { self.c.inc(); } traversal b() { self.c.use_it(g, self.c.y); } }
        fuse f(root: P) { root.a(); root.b(); }
        "#,
    ),
    (
        "independent returns truncate one participant only",
        r#"
        global log: i64 = 0;
        abstract tree T { x: i64; y: i64; traversal a() {} traversal b() {} }
        tree Leaf : T {}
        tree N : T {
            child l: T;
            child r: T;
            traversal a() { if self.x > 2 { return; } self.l.a(); self.x = self.x + self.l.x; self.r.a(); }
            traversal b() { self.l.b(); if self.y < 0 { return; } self.y = self.y + self.x; self.r.b(); log = log * 3 + self.y; }
        }
        fuse f(root: T) { root.a(); root.b(); }
        "#,
    ),
    (
        "a later pass reads what an earlier one writes below",
        r#"
        abstract tree T { s: i64; d: i64; traversal sum() {} traversal down(k: i64) {} }
        tree Leaf : T { traversal sum() { self.s = self.d; } traversal down(k: i64) { self.d = self.d + k; } }
        tree N : T {
            child l: T;
            child r: T;
            traversal sum() { self.l.sum(); self.r.sum(); self.s = self.l.s + self.r.s + self.d; }
            traversal down(k: i64) { self.d = k + self.s; self.l.down(self.d); self.r.down(self.l.s); }
        }
        fuse f(root: T) { root.sum(); root.down(1); root.sum(); }
        "#,
    ),
    (
        "rewrites with new and moves between passes",
        r#"
        abstract tree E { v: i64; traversal fold() {} traversal count() {} traversal lift() {} }
        tree Num : E {}
        tree Add : E {
            child a: E;
            child b: E;
            traversal fold() {
                self.a.fold(); self.b.fold();
                if self.a is Num && self.b is Num { self.v = self.a.v + self.b.v; }
            }
            traversal count() { self.a.count(); self.b.count(); self.v = self.v + 1; }
            traversal lift() {
                self.a.lift(); self.b.lift();
                if self.a is Add { self.a = (self.a as Add).b; }
                if self.b is Num { self.b = new Num { v: self.b.v * 2 }; }
            }
        }
        fuse f(root: E) { root.fold(); root.lift(); root.count(); root.fold(); }
        "#,
    ),
    (
        "runtime errors in either pass",
        r#"
        global total: i64 = 0;
        abstract tree T { x: i64; traversal p() {} traversal q() {} }
        tree Leaf : T { traversal q() { total = total + 100 / self.x; } }
        tree N : T {
            child l: T;
            child r: T;
            traversal p() { self.l.p(); self.r.p(); self.x = self.l.x - self.r.x; }
            traversal q() { self.l.q(); total = total + 10 / (self.x + 3); self.r.q(); }
        }
        fuse f(root: T) { root.p(); root.q(); }
        "#,
    ),
    (
        "list children, loops and aliases",
        r#"
        global seen: i64 = 0;
        tree Item { n: i64; child sub: Leaf; traversal inc(k: i64) { self.n = self.n + k; } traversal note() { seen = seen + self.n; } }
        tree Leaf { v: i64; }
        tree Holder {
            child items: [Item];
            child first: Leaf;
            total: i64;
            traversal a() { for it in self.items { it.inc(2); let s = it.sub; s.v = s.v + it.n; } }
            traversal b() { for it in self.items { it.note(); } self.total = seen; self.first.v = self.total; }
        }
        fuse f(root: Holder) { root.a(); root.b(); root.a(); }
        "#,
    ),
];

/// Found by the fuzzer (crates/progen, seed 1000710): two loops of one
/// traversal over the same list, the second returning, were interleaved,
/// so the return cut the first loop short.
#[test]
fn regression_return_in_a_second_loop_of_the_same_traversal() {
    let src = r#"
    abstract tree A { y: i64; traversal f2(); }
    tree A1 : A { traversal f2() { self.y = self.y + (-1 * self.y); } }
    tree A4 : A1 {
        child kids: [A];
        traversal f2() {
            for x30 in self.kids { x30.f2(); }
            for x37 in self.kids { return; }
        }
    }
    fuse main0(root: A) { root.f2(); }
    "#;
    let program = compile_source("regression.tf", src).unwrap();
    let tree = program
        .read_tree(
            "main0",
            r#"{"type":"A4","y":13,"kids":[{"type":"A1","y":3},{"type":"A1","y":1}]}"#,
        )
        .unwrap();
    for options in cutoff_variants() {
        equivalent(&program, "main0", &tree, &options);
    }
}

#[test]
fn feature_programs_fused_equal_unfused() {
    for (what, src) in FEATURES {
        let program = compile_source(what, src).unwrap_or_else(|d| panic!("{what}: {d}"));
        let fuse = &program.model.fuses[0];
        let (name, root) = (fuse.name.clone(), fuse.root_type);
        let mut compared = 0;
        for seed in 0..60 {
            let t = random_input(&program, root, 60, 3, seed);
            for options in cutoff_variants() {
                if equivalent(&program, &name, &t, &options).is_some() {
                    compared += 1;
                }
            }
        }
        assert!(compared > 0, "{what}: every run failed");
    }
}

/// Statements that call traversals on the same child or list but are not
/// in a shape the fuser merges are reported as pairs left apart, with the
/// shape named: the summary never undercounts.
#[test]
fn calls_in_shapes_the_fuser_does_not_take_apart_are_reported() {
    for (file, phrase, pairs) in [
        (
            "examples/ast/ast_lists.tf",
            "loops over `self.stmts` making calls that are not whole statements",
            "call pairs left unmerged",
        ),
        (
            "examples/toylang/toylang_rewrite.tf",
            "calls a traversal on `self.consequence` inside a statement the fuser does not take apart",
            "call pairs left unmerged",
        ),
    ] {
        let program = example(file);
        let fused = program.fuse_all(&FusionOptions::default());
        let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
        assert!(report.contains(phrase), "{file}:\n{report}");
        assert!(report.contains(pairs), "{file}:\n{report}");
        assert!(!report.contains(" 0 call pairs left unmerged"), "{file}:\n{report}");
        // Frame variables in reasons are named as written.
        assert!(!report.contains("local#"), "{file}:\n{report}");
    }
    let program = example("examples/ast/ast_lists.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("write/read conflict on local `count`"),
        "{report}"
    );
}

/// `if`/`else if`/`else` chains choosing between calls on one child or
/// loop element are lowered to guarded calls (crates/sema/src/lower.rs)
/// and merged with other traversals' calls there; conditions that fail at
/// runtime, and conditions reading a global an earlier call writes, keep
/// the unfused results.
#[test]
fn call_chains_choosing_between_calls_fuse_and_keep_their_results() {
    let source = r#"
global log: i64 = 0;
global hits: i64 = 0;
abstract tree N {
    traversal a() {}
    traversal b() {}
    traversal c() {}
}
tree Leaf : N {
    v: i64;
    traversal a() { log = log * 3 + 1; hits = hits + self.v; }
    traversal b() { log = log * 3 + 2; self.v = self.v * 2; }
    traversal c() { self.v = 10 / self.v; }
}
tree Node : N {
    v: i64;
    child l: N;
    child items: [N];
    traversal pick(k: i64) {
        if self.v > k { self.l.a(); } else if 100 / (self.v - 3) > 1 { self.l.b(); } else { self.l.c(); }
        for x in self.items {
            if hits > 5 { x.a(); } else if hits > 2 { x.b(); } else { x.c(); }
        }
    }
    traversal walk() {
        self.l.c();
        for x in self.items { x.c(); }
    }
}
fuse run(root: Node) { root.pick(3); root.walk(); }
"#;
    let program = compile_source("chains.tf", source).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    // The chain on `l` joins `walk`'s call; in the loop, the second
    // condition reads `hits`, which `x.a()` writes, so the chain's calls
    // form two fused calls per element, not one.
    assert!(
        report.contains(
            "fused call on `l`: p0 self.l.a(); p0 self.l.b(); p0 self.l.c(); p1 self.l.c()"
        ),
        "{report}"
    );
    assert!(
        report.contains("fused loop over `items` (2 fused call(s) per element)"),
        "{report}"
    );
    let (ran, failed) = equivalent_on_random_trees(&program, "run", "Node", 40, 0..60);
    assert!(ran > 0 && failed > 0, "{ran} runs, {failed} runtime errors");
}

/// A chain whose branches start with a call on the loop element and go on
/// with more statements (`if done { x.skip(); } else { x.scan(); done =
/// ..; }`, minic's `Block.unreachable`) is lowered to guarded calls and
/// guarded tails (crates/sema/src/lower.rs), so the loop fuses element by
/// element with another pass's loop. The tail reads what the call wrote,
/// writes the local the guards read and may fail (a division by a field
/// the earlier pass changed); a later `else if` condition reads what an
/// earlier tail writes. Exact visits, and fused ≡ unfused on random trees
/// under every cut-off, failures included.
#[test]
fn call_chains_with_tails_fuse_and_keep_their_results() {
    let source = r#"
global log: i64 = 0;
abstract tree N {
    v: i64;
    flag: bool;
    traversal mark() {}
    traversal skip() {}
    traversal scan() {}
    traversal other() {}
}
tree Leaf : N {
    traversal mark() { self.v = self.v + 1; }
    traversal skip() { log = log * 3 + 1; }
    traversal scan() { log = log * 3 + 2; self.flag = self.v > 2; }
    traversal other() { log = log * 5 + self.v; }
}
tree Node : N {
    child items: [N];
    traversal mark() { for x in self.items { x.mark(); } }
    traversal scan() {
        let done = false;
        let seen = 0;
        for x in self.items {
            if done {
                x.skip();
            } else if seen > 2 {
                x.other();
                seen = seen - 1;
            } else {
                x.scan();
                done = x.flag && 12 / (x.v - 3) > 2;
                seen = seen + 1;
            }
        }
        self.flag = done;
        self.v = seen;
    }
}
fuse run(root: Node) { root.mark(); root.scan(); }
"#;
    let program = compile_source("tails.tf", source).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("fused loop over `items` (1 fused call(s) per element): p0 for x in self.items { x.mark(); }; p1 for x in self.items {"),
        "{report}"
    );
    assert!(report.contains("0 call pairs left unmerged"), "{report}");
    // Node { Leaf 3, Leaf 4, Node { Leaf 1 }, Leaf 5 }: `mark` makes 6
    // visits; `scan` 5, since the first leaf sets `done` and the inner node
    // is skipped, not scanned; fused, one visit per node.
    let input = r#"{"type": "Node", "v": 0, "flag": false, "items": [
        {"type": "Leaf", "v": 3, "flag": false}, {"type": "Leaf", "v": 4, "flag": false},
        {"type": "Node", "v": 0, "flag": false, "items": [{"type": "Leaf", "v": 1, "flag": false}]},
        {"type": "Leaf", "v": 5, "flag": false}]}"#;
    let tree = program.read_tree("run", input).unwrap();
    assert_eq!(
        equivalent(&program, "run", &tree, &FusionOptions::default()),
        Some((11, 6))
    );
    let (ran, failed) = equivalent_on_random_trees(&program, "run", "Node", 30, 0..80);
    assert!(ran > 0 && failed > 0, "{ran} runs, {failed} runtime errors");
}

/// A traversal that splices its receiver only under `in_list()` (minic's
/// `Block.flatten`), called on a node in a single child slot, cannot write
/// that slot: the thicket would fail there before writing anything. So a
/// read of the child between another pass's call and this one does not
/// keep the two calls apart (the analysis's slot variant of the summary;
/// crates/analysis/src/lib.rs). Called on a list element, the same read
/// does keep them apart. Exact visits, the report, and fused ≡ unfused on
/// random trees under every cut-off.
#[test]
fn a_thicket_cannot_replace_a_node_in_a_single_slot() {
    let source = r#"
global seen: i64 = 0;
abstract tree S {
    done: bool;
    traversal mark() {}
    traversal flat() {}
}
tree Blk : S {
    child items: [S];
    traversal mark() {
        for x in self.items { x.mark(); }
        self.done = true;
    }
    traversal flat() {
        for x in self.items { x.flat(); }
        if in_list() { self = self.items; }
    }
}
tree Leaf : S {
    v: i64;
    traversal mark() { self.v = self.v + 1; }
    traversal flat() { if self.v > 3 && in_list() { self = []; } }
}
tree Top {
    child body: Blk;
    child rest: [S];
    traversal mark() {
        self.body.mark();
        if self.body.done { seen = seen + 1; }
        for x in self.rest {
            x.mark();
            if x.done { seen = seen * 2; }
        }
    }
    traversal flat() {
        self.body.flat();
        for x in self.rest { x.flat(); }
    }
}
fuse run(root: Top) { root.mark(); root.flat(); }
"#;
    let program = compile_source("slots.tf", source).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("fused call on `body`: p0 self.body.mark(); p1 self.body.flat()"),
        "{report}"
    );
    // In the list, `x.done` is read between the calls and `x.flat()` may
    // splice `x`: two calls per element.
    assert!(
        report.contains("fused loop over `rest` (2 fused call(s) per element)"),
        "{report}"
    );
    // Top { body: Blk { Leaf 1, Leaf 5, Blk { Leaf 2 } }, rest: [Leaf 7] }:
    // 6 visits per pass in the body, 1 on the root, 1 in `rest`; fused, the
    // body's nodes once each, the root once, the leaf in `rest` twice.
    let input = r#"{"type": "Top", "body": {"type": "Blk", "done": false, "items": [
        {"type": "Leaf", "done": false, "v": 1}, {"type": "Leaf", "done": false, "v": 5},
        {"type": "Blk", "done": false, "items": [{"type": "Leaf", "done": false, "v": 2}]}]},
        "rest": [{"type": "Leaf", "done": false, "v": 7}]}"#;
    let tree = program.read_tree("run", input).unwrap();
    assert_eq!(
        equivalent(&program, "run", &tree, &FusionOptions::default()),
        Some((14, 8))
    );
    equivalent_on_random_trees(&program, "run", "Top", 30, 0..60);
}

/// Type-guarded participation: between `x.mark()` and `x.bump()` on the
/// element of merged loops, `if x is Set { .. (x as Set).v .. }` reads what
/// `mark` writes and `bump` changes, but only for `Set` elements. Every
/// other element gets one fused call (`mark` and `bump`); a `Set` gets
/// `mark` at the first call and `bump` at the second. Exact visits, the
/// report, and fused ≡ unfused on random trees, failures included (the
/// guarded statement divides by a field that may be zero).
#[test]
fn element_calls_fuse_for_the_types_a_type_test_excludes() {
    // The program of the fusion guide's type-guard section.
    let program = example("examples/fusion-rules/typed.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("type guard: fused call 1 on the element runs")
            && report.contains("`x.bump()` only where the element is `Other`, `Block`"),
        "{report}"
    );
    assert!(
        report.contains("type guard: fused call 2 on the element runs")
            && report.contains("`x.bump()` only where the element is `Set`"),
        "{report}"
    );
    let (json, dot) = json_and_dot(&program, &fused);
    assert!(json.contains("\"only_types\":[\"Set\"]"), "{json}");
    assert!(dot.contains("only for Set"), "{dot}");
    // Block { Set 1, Other 2, Set 3, Other 4, Other 5 }.
    let input = r#"{"type": "Block", "sum": 0, "stmts": [
        {"type": "Set", "v": 1}, {"type": "Other", "w": 2}, {"type": "Set", "v": 3},
        {"type": "Other", "w": 4}, {"type": "Other", "w": 5}]}"#;
    let tree = program.read_tree("go", input).unwrap();
    // Unfused: 6 visits per pass. Fused: the block once, each `Other` once,
    // each `Set` twice.
    assert_eq!(
        equivalent(&program, "go", &tree, &FusionOptions::default()),
        Some((12, 8))
    );
    // `sum` read `v` after `mark` and before `bump`: 100/2 + 100/4.
    let out = fused_output(&program, &fused, "go", &tree);
    assert!(
        out.contains("\"total\":75") || out.contains("\"total\": 75"),
        "{out}"
    );
    assert!(
        out.contains("\"v\":20") || out.contains("\"v\": 20"),
        "{out}"
    );
    let (ran, failed) = equivalent_on_random_trees(&program, "go", "Block", 30, 0..80);
    assert!(ran > 0 && failed > 0, "{ran} runs, {failed} runtime errors");
}

/// The type split is not used where it would be unsound: an unguarded cast
/// (it fails for the other types, so the statement is live for every type),
/// and an element call before the split that may replace the element (the
/// node called would not be the element whose type the test saw).
#[test]
fn element_calls_stay_apart_without_a_type_test_or_after_a_replacement() {
    let base = r#"
abstract tree Stmt {
    traversal mark() {}
    traversal bump() {}
}
tree Set : Stmt {
    v: i64;
    traversal mark() { self.v = self.v + 1; REPLACE }
    traversal bump() { self.v = self.v * 10; }
}
tree Other : Stmt {
    w: i64;
    traversal mark() { self.w = self.w + 1; }
    traversal bump() { self.w = self.w * 10; }
}
tree Block {
    child stmts: [Stmt];
    sum: i64;
    traversal mark() {
        for x in self.stmts {
            x.mark();
            READ
        }
    }
    traversal bump() { for x in self.stmts { x.bump(); } }
}
fuse go(root: Block) { root.mark(); root.bump(); }
"#;
    let cases = [
        ("", "self.sum = self.sum + (x as Set).v;"),
        (
            "if self.v > 2 { self = new Other { w: self.v }; }",
            "if x is Set { self.sum = self.sum + (x as Set).v; }",
        ),
    ];
    for (replace, read) in cases {
        let source = base.replace("REPLACE", replace).replace("READ", read);
        let program = compile_source("apart.tf", &source).unwrap_or_else(|d| panic!("{d}"));
        let fused = program.fuse_all(&FusionOptions::default());
        let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
        assert!(!report.contains("type guard"), "{source}\n{report}");
        let root = program.model.type_named("Block").unwrap();
        for seed in 0..40 {
            let t = random_input(&program, root, 20, 6, seed);
            equivalent(&program, "go", &t, &FusionOptions::default());
        }
    }
}

/// A type-guarded call's guard and arguments are evaluated only where it
/// takes part: for a `Set`, `x.b(10 / k)` runs after `k` is set from what
/// `x.a()` wrote, and its division must not be evaluated at the earlier
/// fused call (where `k` is still 0 and the division would fail).
#[test]
fn type_guarded_calls_evaluate_their_arguments_only_where_they_take_part() {
    let source = r#"
abstract tree Stmt {
    traversal a() {}
    traversal b(d: i64) {}
}
tree Set : Stmt {
    v: i64;
    traversal a() { self.v = self.v + 1; }
    traversal b(d: i64) { self.v = d; }
}
tree Other : Stmt {
    w: i64;
    traversal a() { self.w = self.w + 1; }
}
tree Block {
    child stmts: [Stmt];
    traversal go() {
        let k = 0;
        for x in self.stmts {
            x.a();
            if x is Set { k = (x as Set).v; }
            x.b(10 / k);
        }
    }
}
fuse run(root: Block) { root.go(); }
"#;
    let program = compile_source("args.tf", source).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(report.contains("type guard"), "{report}");
    let input =
        r#"{"type": "Block", "stmts": [{"type": "Set", "v": 0}, {"type": "Other", "w": 0}]}"#;
    let tree = program.read_tree("run", input).unwrap();
    assert_eq!(
        equivalent(&program, "run", &tree, &FusionOptions::default()),
        Some((5, 4))
    );
    let root = program.model.type_named("Block").unwrap();
    for seed in 0..40 {
        let t = random_input(&program, root, 20, 6, seed);
        for options in cutoff_variants() {
            equivalent(&program, "run", &t, &options);
        }
    }
}

/// Type guards on many variants of the pattern (which type is tested,
/// what the guarded statement reads and writes, whether the read is
/// guarded at all, whether a call may replace the element or fail, and
/// arguments that read what the statement writes): fused ≡ unfused on
/// random trees, every cut-off. The random programs of `treefuse-progen`
/// seldom merge loops of two passes, so this covers the pattern directly.
#[test]
fn type_guard_variants_fused_equal_unfused() {
    let template = r#"
global g: i64 = 0;
abstract tree Stmt {
    traversal a(k: i64) {}
    traversal b(d: i64) {}
}
tree P : Stmt {
    v: i64;
    traversal a(k: i64) { A_P }
    traversal b(d: i64) { B_P }
}
tree Q : Stmt {
    w: i64;
    traversal a(k: i64) { self.w = self.w + k; }
    traversal b(d: i64) { self.w = self.w * 2 + d; }
}
tree R : Q {
    traversal b(d: i64) { self.w = self.w - d; }
}
tree Block : Stmt {
    child stmts: [Stmt];
    sum: i64;
    traversal a(k: i64) {
        let c = 1;
        for x in self.stmts {
            x.a(c);
            STMT
        }
        self.sum = self.sum + c;
    }
    traversal b(d: i64) {
        LOOP_B
    }
}
fuse go(root: Block) { root.a(1); root.b(2); }
"#;
    let a_p = [
        "self.v = self.v + k;",
        "self.v = self.v + k; if self.v > 3 { self = new Q { w: self.v }; }",
    ];
    let b_p = ["self.v = self.v * 3 + d;", "self.v = 100 / (self.v - 2);"];
    let stmts = [
        "if x is P { c = c + (x as P).v; }",
        "if x is Q { c = c + (x as Q).w; }",
        "if x is R && (x as R).w > 1 { self.sum = self.sum + (x as R).w; }",
        "if x is P { g = g + 10 / (x as P).v; }",
        "c = c + (x as Q).w;",
        "if x is Q { c = 0; }",
    ];
    let loops_b = [
        "for y in self.stmts { y.b(d); }",
        "let e = d; for y in self.stmts { y.b(e); e = e + 1; }",
    ];
    let slots: [(&str, &[&str]); 4] = [
        ("A_P", &a_p),
        ("B_P", &b_p),
        ("STMT", &stmts),
        ("LOOP_B", &loops_b),
    ];
    let mut guarded = 0;
    for (i, source) in variants(template, &slots).iter().enumerate() {
        let (program, report) = compile_variant(source);
        guarded += usize::from(report.contains("type guard"));
        let first = i as u64 * 12;
        let seeds = (0..12).map(|seed| (first + seed + 1) * 31 + seed);
        equivalent_on_random_trees(&program, "go", "Block", 25, seeds);
    }
    assert!(guarded >= 8, "only {guarded} variants use a type guard");
}

/// Calls on a child kept apart by a statement that tests the child's type
/// and rewrites it (the fusion guide's `typed-child.tf`): merged for the
/// types the test excludes, apart for the one it rewrites.
#[test]
fn child_calls_fuse_for_the_types_a_rewrite_test_excludes() {
    let program = example("examples/fusion-rules/typed-child.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains(
            "here only where `self.stmt` is `Seq`, `If`, `Set`, `Nop` as the function starts"
        ) && report.contains("here only where `self.stmt` is `Inc` as the function starts"),
        "{report}"
    );
    assert!(
        report.contains("(only where `self.stmt` is of type `Inc` as the function starts; merged for its other types)"),
        "{report}"
    );
    let (json, dot) = json_and_dot(&program, &fused);
    assert!(json.contains("\"only_types\":[\"Inc\"]"), "{json}");
    assert!(dot.contains("here only where self.stmt is `Inc`"), "{dot}");
    let tree = program
        .read_tree(
            "go",
            include_str!("../../../examples/fusion-rules/typed-child.json"),
        )
        .unwrap();
    // Unfused: `lower` 8 visits, `count` 11 (the rewritten `Inc`s are
    // `Set`s by then). Fused: every node once, the `If`'s branches with
    // both passes, and each rewritten `Inc` again as a `Set` for `count`.
    assert_eq!(
        equivalent(&program, "go", &tree, &FusionOptions::default()),
        Some((19, 11))
    );
    let out = fused_output(&program, &fused, "go", &tree);
    assert!(out.contains("\"sets\":3"), "{out}");
    equivalent_on_random_trees(&program, "go", "Seq", 30, 0..60);
}

/// The split on a child is refused where a call on the child may replace
/// it, and a statement after a write the fuser cannot follow stays live
/// for every type.
#[test]
fn child_calls_stay_apart_after_a_replacing_call_or_an_unknown_write() {
    let template = r#"
abstract tree S {
    traversal a() {}
    traversal b() {}
}
tree P : S {
    v: i64;
    traversal a() { A_P }
    traversal b() { self.v = self.v * 2; }
}
tree Q : S { w: i64; }
tree L : S {
    child s: S;
    child other: S;
    traversal a() {
        if self.s is P { self.s.a(); }
        WRITE
        if self.s is Q { self.s = new P { v: 7 }; }
    }
    traversal b() {
        if self.s is P { self.s.b(); }
    }
}
fuse go(root: L) { root.a(); root.b(); }
"#;
    let cases = [
        // Merged where `s` starts as a `P` (nothing between writes it).
        ("self.v = self.v + 1;", "", true),
        // `P.a` may replace the child: no split.
        ("self = new Q { w: 1 };", "", false),
        // A move into the slot the fuser does not follow: `s` may be
        // anything after it, so the rewrite of a `Q` stays live.
        ("self.v = self.v + 1;", "self.s = copy(self.other);", false),
    ];
    for (a_p, write, split) in cases {
        let source = template.replace("A_P", a_p).replace("WRITE", write);
        let (program, report) = compile_variant(&source);
        assert_eq!(report.contains("type guard"), split, "{source}\n{report}");
        equivalent_on_random_trees(&program, "go", "L", 25, 0..40);
    }
}

/// Loops over one list grouped where their calls on the element share a
/// walk (issue 15, kind 3 of the minic README): `bump`'s loop commutes with
/// the loop that builds `resolve`'s table, so the greedy merge puts it
/// there, but the table must be complete before `resolve`'s second loop,
/// which walks every element anyway. Regrouping moves `bump` next to `use`:
/// the table loop only calls the shallow `sig`, and every `Body` is walked
/// once.
#[test]
fn loops_are_regrouped_where_their_element_calls_share_a_walk() {
    let program = example("examples/fusion-rules/regroup.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains(
            "fused loop over `fns` (1 fused call(s) per element): p0 for f in self.fns { f.bump(); }; p1 for f in self.fns { f.use(t); }"
        ),
        "{report}"
    );
    let input = r#"{"type": "Prog", "fns": [
        {"type": "Fn", "name": 0, "idx": 0, "seen": 0, "body": {"type": "Body", "v": 1}},
        {"type": "Fn", "name": 5, "idx": 1, "seen": 0, "body": {"type": "Body", "v": 2}},
        {"type": "Fn", "name": 7, "idx": 2, "seen": 0, "body": {"type": "Body", "v": 3}}]}"#;
    let tree = program.read_tree("go", input).unwrap();
    // Unfused: bump 1 + 3 + 3, resolve 1 + 3 (sig) + 3 + 3 (use). Fused:
    // the root, `sig` on each `Fn`, then one `Fn[bump, use]` and one
    // `Body[bump, use]` per element (13 before regrouping: `Fn[bump, sig]`,
    // its bodies, then `Fn[use]` and the bodies again).
    assert_eq!(
        equivalent(&program, "go", &tree, &FusionOptions::default()),
        Some((17, 10))
    );
    equivalent_on_random_trees(&program, "go", "Prog", 25, 0..40);
}

/// Regrouping on variants of that pattern, including the ones where a move
/// is illegal (`bump` writes what the table reads, replaces elements before
/// a loop that is not only calls, or returns; the table's loop reads what
/// `bump` writes; the `use` loop writes the table): fused ≡ unfused on
/// random trees, every cut-off.
#[test]
fn regrouping_variants_fused_equal_unfused() {
    let template = r#"
global g: i64 = 0;
tree Body {
    v: i64;
    traversal bump() { self.v = self.v + 1; }
    traversal use(t: {i64: i64}) { self.v = self.v * 2 + t[0]; g = g + self.v; }
}
tree Fn {
    name: i64;
    idx: i64;
    seen: i64;
    child body: Body;
    traversal bump() { BUMP_FN }
    traversal sig() { self.seen = self.name; }
    traversal use(t: {i64: i64}) { self.body.use(t); }
}
tree Prog {
    child fns: [Fn];
    traversal bump() { BUMP_LOOP }
    traversal resolve() {
        let t: {i64: i64} = {};
        t[0] = 1;
        for f in self.fns { TABLE }
        USE_LOOP
    }
}
fuse go(root: Prog) { root.bump(); root.resolve(); }
"#;
    let bump_fn = [
        "self.body.bump();",
        "self.body.bump(); self.name = self.name + 1;",
        "self.body.bump(); if self.idx > 1 { self = new Fn { name: self.idx, idx: 0, seen: 0, body: new Body { v: 9 } }; }",
        "self.body.bump(); self.seen = 100 / self.idx;",
    ];
    let bump_loop = [
        "for f in self.fns { f.bump(); }",
        "for f in self.fns { f.bump(); if f.name > 4 { return; } }",
    ];
    let table = [
        "f.sig(); t[f.idx] = f.name;",
        "t[f.idx] = f.name;",
        "f.sig(); t[f.idx] = f.seen;",
    ];
    let use_loop = [
        "for f in self.fns { f.use(t); }",
        "for f in self.fns { f.use(t); t[0] = t[0] + 1; }",
        "for f in self.fns { if f.idx > 0 { f.use(t); } }",
    ];
    let slots: [(&str, &[&str]); 4] = [
        ("BUMP_FN", &bump_fn),
        ("BUMP_LOOP", &bump_loop),
        ("TABLE", &table),
        ("USE_LOOP", &use_loop),
    ];
    let mut regrouped = 0;
    for (i, source) in variants(template, &slots).iter().enumerate() {
        let (program, report) = compile_variant(source);
        regrouped += usize::from(report.lines().any(|l| {
            l.contains("fused loop over `fns`") && l.contains("f.bump()") && l.contains("f.use(t)")
        }));
        let first = i as u64 * 10;
        equivalent_on_random_trees(&program, "go", "Prog", 25, first * 31..first * 31 + 10);
    }
    assert!(regrouped >= 12, "only {regrouped} variants were regrouped");
}

/// A loop whose body does more than call the element, after a loop that
/// may replace elements by one node each (issue 15, kind 4 of the minic
/// README; `examples/fusion-rules/regions.tf`): the two loops share one
/// iteration and one fused call per element, and the later loop's `is`
/// test reads the node standing in the element's place.
#[test]
fn a_loop_after_one_replacing_elements_by_one_node_merges_whole() {
    let program = example("examples/fusion-rules/regions.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("fused loop over `stmts` (1 fused call(s) per element): p0 for s in self.stmts { s.lower(); }; p1 for s in self.stmts { s.number(i); if s is Add {"),
        "{report}"
    );
    assert!(report.contains("0 call pairs left unmerged"), "{report}");
    assert!(
        report.contains("    rebound: p1 for s in self.stmts"),
        "{report}"
    );
    let (json, dot) = json_and_dot(&program, &fused);
    assert!(json.contains("\"rebound\":[1]"), "{json}");
    assert!(dot.contains("rebound: for s in self.stmts"), "{dot}");
    let input = include_str!("../../../examples/fusion-rules/regions.json");
    let tree = program.read_tree("go", input).unwrap();
    // Unfused: 7 + 7. Fused: the root, one `[lower, number]` call per
    // element (the nested block's two included), and `number` resumed on
    // each of the three `Add`s that replaced an `Inc` (13 before: the
    // loops ran apart, 1 + 6 + 6).
    assert_eq!(
        equivalent(&program, "go", &tree, &FusionOptions::default()),
        Some((14, 10))
    );
    let out: serde_json::Value =
        serde_json::from_str(&fused_output(&program, &fused, "go", &tree)).unwrap();
    // 1 (the first `Add`) + 5 + 1 (the last): the block's own sum is not
    // counted, and every `Inc` counts as the `Add` that replaced it.
    assert_eq!(out["n"], 7, "{out}");
    equivalent_on_random_trees(&program, "go", "Blk", 25, 0..40);
}

/// Variants of that pattern, including the ones that must stay apart
/// (thickets, so a region may be several nodes or none; a later loop that
/// replaces elements itself and does more than call them): fused ≡
/// unfused on random trees, every cut-off, runtime errors included.
#[test]
fn loops_after_replacing_loops_variants_fused_equal_unfused() {
    let template = r#"
global g: i64 = 0;
abstract tree S {
    n: i64;
    traversal lower(k: i64) {}
    traversal number(k: i64) { self.n = k; }
}
tree Inc : S {
    traversal lower(k: i64) { LOWER_INC }
}
tree Add : S {
    v: i64;
    traversal number(k: i64) { NUMBER_ADD }
}
tree Blk : S {
    child stmts: [S];
    traversal lower(k: i64) { for s in self.stmts { s.lower(k); } }
    traversal number(k: i64) {
        let i = k;
        NUMBER_LOOP
        self.n = i;
    }
}
fuse go(root: Blk) { root.lower(1); root.number(0); }
"#;
    let lower_inc = [
        "self = new Add { v: k };",
        "if self.n > 0 { self = new Add { v: 10 / (self.n - 2) }; }",
        "g = g + 1; self.n = self.n + k;",
        "self = [];",
        "if self.n > 1 { self = [new Add { v: 1 }, new Add { v: self.n }]; }",
    ];
    let number_add = [
        "self.n = k + self.v;",
        "self.n = 100 / (k - 3);",
        "g = g * 2 + k; self.n = g;",
    ];
    let number_loop = [
        "for s in self.stmts { s.number(i); if s is Add { i = i + (s as Add).v; } }",
        "for s in self.stmts { if s is Add { i = i + (s as Add).v; } s.number(i); }",
        "for s in self.stmts { s.number(i); i = i + (s as Add).v; }",
        "for s in self.stmts { s.number(i); i = i + s.n; g = g + 1; }",
        "for s in self.stmts { s.number(i); if s is Add { (s as Add).v = i; } }",
        "for s in self.stmts { s.number(i); s.lower(i); i = i + 1; }",
        "for s in self.stmts { s.number(i); if s.n > 3 { return; } i = i + 1; }",
    ];
    let slots: [(&str, &[&str]); 3] = [
        ("LOWER_INC", &lower_inc),
        ("NUMBER_ADD", &number_add),
        ("NUMBER_LOOP", &number_loop),
    ];
    let mut merged = 0;
    for (i, source) in variants(template, &slots).iter().enumerate() {
        let (program, report) = compile_variant(source);
        let whole = report.contains(
            "p0 for s in self.stmts { s.lower(k); }; p1 for s in self.stmts { s.number(i)",
        );
        // Thickets, and a later loop that replaces and does more than call,
        // keep the loops apart.
        let must_refuse = i / (number_add.len() * number_loop.len()) >= 3
            || (i % number_loop.len() == 5 && i / (number_add.len() * number_loop.len()) != 2);
        assert!(
            !(whole && must_refuse),
            "variant {i} merged:\n{source}\n{report}"
        );
        merged += usize::from(whole);
        let first = i as u64 * 10;
        equivalent_on_random_trees(&program, "go", "Blk", 25, first * 31..first * 31 + 10);
    }
    assert!(merged >= 30, "only {merged} variants merged their loops");
}

/// Split calls (issue 15): `s.fold()` after `s.prop()` and a read of a
/// `Let`'s initializer root runs as `s.fold$head()` with `s.prop()` (the
/// children folded in the same walk) and `s.fold$tail()` after the read.
/// Exact visits, the reports, and fused ≡ unfused on random trees.
#[test]
fn split_calls_run_the_head_with_the_earlier_call() {
    let program = example("examples/fusion-rules/split.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("split call: 67:46 `s.fold()` runs as head and tail (apart where the element is `Let`), its head joining 61:13 `s.prop()`"),
        "{report}"
    );
    // The parts of one call are not reported as a pair kept apart.
    assert!(
        !report.contains("`s.fold()` and 67:46 `s.fold()`"),
        "{report}"
    );
    // A type guard on a part names the part.
    assert!(
        report.contains("runs 67:46 the tail of `s.fold()` only where the element is `Let`"),
        "{report}"
    );
    let (json, dot) = json_and_dot(&program, &fused);
    assert!(json.contains("\"split\":[{\"call\""), "{json}");
    assert!(json.contains("\"part\":\"head\""), "{json}");
    assert!(json.contains("\"part\":\"tail\""), "{json}");
    assert!(
        dot.contains("split call: s.fold() as head and tail"),
        "{dot}"
    );
    // Synthetic parts are not part of the program's surface.
    assert!(program
        .model
        .method_named(program.model.type_named("Let").unwrap(), "fold$head")
        .is_none());
    let input = include_str!("../../../examples/fusion-rules/split.json");
    let tree = program.read_tree("go", input).unwrap();
    // Unfused: 15 visits per pass. Fused: 26 with `fold` kept apart on
    // `Let`s; split, the first `Let`'s `Add` and its literals are walked
    // once (the tail visits the `Let` and the `Add` again).
    assert_eq!(
        equivalent(&program, "go", &tree, &FusionOptions::default()),
        Some((30, 23))
    );
    let out = fused_output(&program, &fused, "go", &tree);
    assert!(
        out.contains("\"SEEN\":5") || out.contains("\"SEEN\": 5"),
        "{out}"
    );
    let (ran, _) = equivalent_on_random_trees(&program, "go", "Block", 40, 0..60);
    assert!(ran > 0);
}

/// Where a split would not help or not be sound the call stays whole: a
/// read below the initializer's root (the head writes there), a head that
/// does nothing (the replacement comes first), and a statement between that
/// replaces the initializer (it conflicts with the head). Every variant,
/// those that split included, is fused ≡ unfused on random trees.
#[test]
fn split_call_variants_fused_equal_unfused() {
    let source = include_str!("../../../examples/fusion-rules/split.tf");
    let read = "if s is Let && (s as Let).init is Lit {\n                SEEN = SEEN * 10 + ((s as Let).init as Lit).v;\n            }";
    let fold = "self.l.fold();\n        self.r.fold();\n        if self.l is Lit && self.r is Lit {\n            self = new Lit { v: (self.l as Lit).v + (self.r as Lit).v };\n        }";
    assert!(source.contains(read) && source.contains(fold));
    let reads = [
        read,
        // Below the root: the head folds `l`.
        "if s is Let && (s as Let).init is Add && ((s as Let).init as Add).l is Lit { SEEN = SEEN + 1; }",
        // The root replaced between the calls.
        "if s is Let && (s as Let).init is Var { (s as Let).init = new Lit { v: 9 }; }",
        // Reads that may fail: a cast without a test.
        "if s is Let { SEEN = SEEN + 100 / ((s as Let).init as Lit).v; }",
    ];
    let folds = [
        fold,
        // Pre-order: the replacement comes first, the head does nothing.
        "if self.l is Lit && self.r is Lit {\n            self = new Lit { v: (self.l as Lit).v + (self.r as Lit).v };\n        }\n        self.l.fold();\n        self.r.fold();",
        // A failure in the tail.
        "self.l.fold();\n        self.r.fold();\n        if self.l is Lit && self.r is Lit {\n            self = new Lit { v: 100 / (self.l as Lit).v + (self.r as Lit).v };\n        }",
    ];
    let mut split = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        for (j, f) in folds.iter().enumerate() {
            let (program, report) = compile_variant(&source.replace(read, r).replace(fold, f));
            if report.contains("split call") {
                split.push((i, j));
            }
            let first = (i * folds.len() + j) as u64 * 20;
            let (ran, _) =
                equivalent_on_random_trees(&program, "go", "Block", 30, first..first + 20);
            assert!(ran > 0, "variant {i}/{j} never completed");
        }
    }
    assert_eq!(split, vec![(0, 0), (0, 2), (3, 0), (3, 2)]);
}

/// The parts of a split call are ordinary calls for the analysis: a head
/// that does nothing on some type of its receiver still reads the slot it
/// is called on, so a statement that may replace that slot conflicts with
/// it both ways and stays ordered against it.
#[test]
fn a_split_call_head_conflicts_with_a_write_of_its_slot() {
    let program = example("examples/fusion-rules/split.tf");
    let m = &program.model;
    let analysis = treefuse_analysis::Analysis::new(m);
    let ty = |name: &str| m.type_named(name).unwrap();
    let expr_fold = m.method_named(ty("Lit"), "fold").unwrap();
    let expr_split = m.split_of(expr_fold).unwrap();
    // `Expr.fold`'s head does something on an `Add` only.
    assert_eq!(expr_split.walks, vec![ty("Add")]);
    // `Let`'s head is `self.init.fold$head()`; `Let.prop` may replace `init`.
    let stmt_fold = m.method_named(ty("Let"), "fold").unwrap();
    let head = analysis
        .summary(ty("Let"), m.split_of(stmt_fold).unwrap().head)
        .unwrap();
    let prop = analysis
        .summary(ty("Let"), m.method_named(ty("Let"), "prop").unwrap())
        .unwrap();
    assert!(analysis.conflict(prop, head, false).is_some());
    assert!(analysis.conflict(head, prop, false).is_some());
    // A call of the head on `self.init` whose static type is `Lit`, where
    // the head does nothing, still reads the slot `init`.
    let init = m.field_named(ty("Let"), "init").unwrap();
    let lit_head = analysis
        .call_access(&[analysis.labels().field(init)], ty("Lit"), expr_split.head)
        .unwrap();
    assert!(analysis.conflict(prop, &lit_head, false).is_some());
}

/// The reason given for two calls on the same child kept apart is the one
/// that applied: "the later call's arguments or guard read what the
/// earlier one may write" only where they do, otherwise the dependence
/// path through the statement between them. (The AST case study's
/// `desugar_decr` / `desugar_inc` calls on an `IfStmt` were reported with
/// the first reason, quoting an edge between the callees' bodies, which
/// merging orders; the path through `self.stmt = ..` was the real one.)
#[test]
fn calls_kept_apart_are_explained_by_the_reason_that_applied() {
    let template = r#"
abstract tree T {
    v: i64;
    traversal f() {}
    traversal g(x: i64) {}
}
tree A : T {
    traversal f() { self.v = self.v + 1; }
    traversal g(x: i64) { self.v = self.v * 2 + x; }
}
tree B : T {}
tree N {
    child c: T;
    traversal f() {
        self.c.f();
        BETWEEN
    }
    traversal g() { CALL }
}
fuse run(root: N) { root.f(); root.g(); }
"#;
    let cases: [(&str, &str, &str); 3] = [
        // A replacement between the calls: a path through it, although
        // the later call has a guard (which reads only the slot) and the
        // callees' bodies conflict (which merging would order).
        (
            "if self.c is B { self.c = new A { v: 7 }; }",
            "if self.c is A { self.c.g(1); }",
            "a dependence path runs between them through other statements: 0#0 -> 0#1",
        ),
        (
            "if self.c is B { self.c = new A { v: 7 }; }",
            "self.c.g(1);",
            "a dependence path runs between them through other statements: 0#0 -> 0#1",
        ),
        // An argument reading what the earlier call writes.
        (
            "",
            "self.c.g((self.c as A).v);",
            "the later call's arguments or guard read what the earlier one may write (0#0 -> 1#0: write/read conflict on",
        ),
    ];
    for (between, call, reason) in cases {
        let source = template.replace("BETWEEN", between).replace("CALL", call);
        let (program, report) = compile_variant(&source);
        assert!(
            report.contains("`self.c.f()` and ") && report.contains(reason),
            "{source}\n{report}"
        );
        equivalent_on_random_trees(&program, "run", "N", 20, 0..40);
    }
}

/// `report::call_sites` names every place that calls a fused function and
/// what kept calls apart there: a call on the root split from the one
/// before it, and a merged loop's type-guarded second call on its element.
#[test]
fn call_sites_say_why_a_function_runs_on_its_own() {
    use treefuse_fusion::report::{call_sites, CallSite, KeptApart};
    use treefuse_fusion::FusedFnId;
    let p = example("examples/fusion-rules/arguments.tf");
    let fused = p.fuse_all(&FusionOptions::default());
    let sites = |p: &Program, fused, f| call_sites(&p.model, fused, &p.source, FusedFnId(f));
    assert_eq!(
        sites(&p, &fused, 2),
        vec![CallSite {
            site: "fused call 2 on the root of `kept`".into(),
            kept_apart: vec![KeptApart {
                calls: "15:38 `root.setk(K)` and the call before it".into(),
                reason: "its arguments read global `K`, which call 1 may write".into(),
            }],
        }]
    );
    assert_eq!(
        sites(&p, &fused, 1),
        vec![CallSite {
            site: "fused call 1 on the root of `kept`".into(),
            kept_apart: Vec::new(),
        }]
    );
    // The profile explains the functions that ran, here the split chunk.
    let profile_of = |fuse: &str| {
        let mut tree = p.read_tree(fuse, r#"{"type":"Leaf","n":1}"#).unwrap();
        let (stats, _) = p
            .run_tree_with(
                fuse,
                &mut tree,
                Vec::new(),
                &Host::new(),
                Engine::Fused(&fused),
            )
            .unwrap();
        p.render_profile(&stats.profile, Some(&fused))
    };
    let text = profile_of("kept");
    assert!(
        text.ends_with(
            "\nwhere the 2 fused functions with the most visits are called, and what kept calls apart there:\n\
             F1 is called by fused call 1 on the root of `kept`; no call there stayed apart from \
             another: it walks on its own where its callers do\n\
             F2 is called by fused call 2 on the root of `kept`:\n  \
             not merged: 15:38 `root.setk(K)` and the call before it: its arguments read global \
             `K`, which call 1 may write\n"
        ),
        "{text}"
    );

    let text = profile_of("apart");
    assert!(
        text.ends_with(
            "\nwhere the fused function with the most visits is called, and what kept calls apart there:\n\
             F0 is called by fused call 1 on the root of `apart`; no call there stayed apart from \
             another: it walks on its own where its callers do\n"
        ),
        "{text}"
    );

    let p = example("examples/fusion-rules/typed.tf");
    let fused = p.fuse_all(&FusionOptions::default());
    // `Set[bump]` (F3) runs from the loops of F0 (`Block[mark, bump]`) and
    // F5 (`Block[bump]`): in F0 the `if x is Set` statement keeps
    // `x.bump()` apart from `x.mark()`; in F5 there is nothing to merge.
    let set_bump = sites(&p, &fused, 3);
    assert_eq!(set_bump.len(), 2, "{set_bump:?}");
    assert_eq!(set_bump[0].site, "F0 on the elements of `stmts`");
    assert_eq!(set_bump[0].kept_apart.len(), 1);
    assert_eq!(
        set_bump[0].kept_apart[0].calls,
        "25:13 `x.mark()` and 30:31 `x.bump()`"
    );
    assert!(set_bump[0].kept_apart[0]
        .reason
        .starts_with("calls on the loop element kept apart: "));
    assert_eq!(
        set_bump[1],
        CallSite {
            site: "F5 on the elements of `stmts`".into(),
            kept_apart: Vec::new(),
        }
    );
}

/// A refusal names a dependence between the two loops it names: `b`'s
/// two loops touch only `N` (through `c.b()` and directly), so they stay
/// apart for `N`, not for the conflict on `M` that keeps `a`'s loops
/// apart. Where two loops stay apart only because of the other loops of
/// their groups, the reason names those two loops.
#[test]
fn loop_refusals_name_their_own_dependence() {
    let (_, report) = compile_variant(
        "global M: {i64: i64} = {};
global N: {i64: i64} = {};
tree E {
    id: i64;
    k: i64;
    child kids: [E];
    traversal a() {
        for c in self.kids { c.a(); }
        for c in self.kids { if c.k == 1 { M[c.id] = 1; } }
    }
    traversal b() {
        for c in self.kids { c.b(); }
        for c in self.kids { if c.k == 2 { N[c.id] = 1; } }
    }
}
fuse go(root: E) { root.a(); root.b(); }
",
    );
    let refusal = |first: &str, second: &str| {
        report
            .lines()
            .find(|l| l.contains("not merged") && l.contains(first) && l.contains(second))
            .unwrap_or_else(|| panic!("no refusal for {first} and {second}:\n{report}"))
            .to_string()
    };
    let a = refusal("8:9", "9:9");
    assert!(a.ends_with("(write/write conflict on global:M)"), "{a}");
    let b = refusal("12:9", "13:9");
    assert!(b.ends_with("(write/write conflict on global:N)"), "{b}");
    let across = refusal("8:9", "13:9");
    assert!(
        across.contains("loops p0#0 and p0#1 of them cannot interleave")
            && across.ends_with("(write/write conflict on global:M)"),
        "{across}"
    );
}
