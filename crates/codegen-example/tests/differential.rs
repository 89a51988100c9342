//! Differential tests: the generated unfused and fused code and the
//! interpreter (unfused and fused) agree on every example — output JSON
//! (tree and globals), runtime-error existence, and node visits
//! (generated unfused = interpreter unfused, generated fused = interpreter
//! fused).

use treefuse::sema::Value;
use treefuse::{Engine, FusionOptions, Host, Program, RunError};
use treefuse_codegen_example as g;
use treefuse_runtime::{random_tree, write_tree, GenOptions, Tree as RtTree};

fn example(path: &str) -> Program {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    treefuse::compile_file(&full).unwrap_or_else(|e| panic!("{e}"))
}

/// One engine of a generated module: runs on a runtime tree and returns
/// the output JSON and the visits, or the error message.
type Run<'a> = &'a dyn Fn(&RtTree) -> Result<(String, u64), String>;
type BoxedRun = Box<dyn Fn(&RtTree) -> Result<(String, u64), String>>;

/// Runs the four engines on `input`; panics on any disagreement. Returns
/// the (unfused, fused) visits, or `None` if all raised runtime errors.
fn agree(
    what: &str,
    program: &Program,
    fuse: &str,
    input: &RtTree,
    gen_unfused: Run,
    gen_fused: Run,
) -> Option<(u64, u64)> {
    let fused = program.fuse_all(&FusionOptions::default());
    let host = Host::new();
    let interp = |engine: Engine| -> Result<(String, u64), String> {
        let mut t = input.clone();
        match program.run_tree_with(fuse, &mut t, Vec::new(), &host, engine) {
            Ok((stats, globals)) => Ok((
                write_tree(&program.model, &t, Some(&globals), Default::default()),
                stats.node_visits,
            )),
            Err(RunError::Runtime(m)) => Err(m),
            Err(e) => panic!("{what}: {e}"),
        }
    };
    let iu = interp(Engine::Unfused);
    let ifu = interp(Engine::Fused(&fused));
    let gu = gen_unfused(input);
    let gf = gen_fused(input);
    match (iu, ifu, gu, gf) {
        (Ok((ju, vu)), Ok((jf, vf)), Ok((gju, gvu)), Ok((gjf, gvf))) => {
            assert_eq!(ju, jf, "{what}: interpreter fused differs from unfused");
            assert!(ju == gju, "{what}: generated unfused output differs");
            assert!(ju == gjf, "{what}: generated fused output differs");
            assert_eq!(vu, gvu, "{what}: unfused visits");
            assert_eq!(vf, gvf, "{what}: fused visits");
            Some((vu, vf))
        }
        (Err(_), Err(_), Err(_), Err(_)) => None,
        (a, b, c, d) => panic!(
            "{what}: error behaviour differs: interp unfused {:?} / fused {:?} / generated unfused {:?} / fused {:?}",
            a.err(),
            b.err(),
            c.err(),
            d.err()
        ),
    }
}

/// The generated engines of module `$m` for fuse item `$fuse`.
macro_rules! engines {
    ($m:ident, $unfused:ident, $fused:ident) => {{
        fn run(
            input: &RtTree,
            f: fn(&mut g::$m::Tree, &mut g::$m::Globals) -> Result<u64, g::$m::RuntimeError>,
        ) -> Result<(String, u64), String> {
            thread_local!(static SCHEMA: treefuse::sema::Program = g::$m::schema());
            SCHEMA.with(|schema| {
                let mut tree = g::$m::Tree::from_runtime(input);
                let mut globals = g::$m::Globals::default();
                let visits = f(&mut tree, &mut globals).map_err(|e| e.to_string())?;
                Ok((g::$m::write_json(schema, &tree, &globals), visits))
            })
        }
        (
            |t: &RtTree| run(t, g::$m::$unfused),
            |t: &RtTree| run(t, g::$m::$fused),
        )
    }};
}

fn generated(
    program: &Program,
    fuse: &str,
    name: &str,
    variant: u8,
    size: usize,
    seed: u64,
) -> RtTree {
    let json = treefuse_casegen::generate_string(name, variant, size, seed).unwrap();
    program.read_tree(fuse, &json).unwrap()
}

#[test]
fn figure2() {
    let program = example("examples/figure2/figure2.tf");
    let (u, f) = engines!(
        figure2,
        run_layout_unfused_counted,
        run_layout_fused_counted
    );
    let doc = include_str!("../../../examples/figure2/doc.json");
    let tree = program.read_tree("layout", doc).unwrap();
    assert_eq!(
        agree("figure2 doc", &program, "layout", &tree, &u, &f),
        Some((12, 6))
    );
    // The JSON layer reads what the runtime reads.
    let schema = g::figure2::schema();
    let direct = g::figure2::read_json(&schema, "Element", doc).unwrap();
    assert_eq!(direct, g::figure2::Tree::from_runtime(&tree));
    let root = program.model.type_named("Element").unwrap();
    for seed in 0..20 {
        let t = random_tree(
            &program.model,
            root,
            &GenOptions {
                nodes: 80,
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        agree(
            &format!("figure2 seed {seed}"),
            &program,
            "layout",
            &t,
            &u,
            &f,
        );
    }
}

#[test]
fn render() {
    for (file, name) in [
        ("examples/render/render.tf", "render"),
        ("examples/render/render_lists.tf", "render-lists"),
    ] {
        let program = example(file);
        let (u, f): (BoxedRun, BoxedRun) = if name == "render" {
            let (u, f) = engines!(render, run_render_unfused_counted, run_render_fused_counted);
            (Box::new(u), Box::new(f))
        } else {
            let (u, f) = engines!(
                render_lists,
                run_render_unfused_counted,
                run_render_fused_counted
            );
            (Box::new(u), Box::new(f))
        };
        for (variant, size) in [(1, 1), (1, 7), (2, 6), (3, 5), (3, 12)] {
            let tree = generated(&program, "render", name, variant, size, 7);
            let what = format!("{name} document {variant} size {size}");
            let r = agree(&what, &program, "render", &tree, &*u, &*f);
            if name == "render" && variant == 1 {
                assert_eq!(r.map(|(v, _)| v), Some(100 * size as u64 + 5), "{what}");
            }
        }
        let root = program.model.fuse_named("render").unwrap().root_type;
        for seed in 0..10 {
            let t = random_tree(
                &program.model,
                root,
                &GenOptions {
                    nodes: 150,
                    seed,
                    ..Default::default()
                },
            )
            .unwrap();
            agree(
                &format!("{name} random seed {seed}"),
                &program,
                "render",
                &t,
                &*u,
                &*f,
            );
        }
    }
}

#[test]
fn ast() {
    for (file, name) in [
        ("examples/ast/ast.tf", "ast"),
        ("examples/ast/ast_lists.tf", "ast-lists"),
    ] {
        let program = example(file);
        let (u, f): (BoxedRun, BoxedRun) = if name == "ast" {
            let (u, f) = engines!(
                ast,
                run_optimize_unfused_counted,
                run_optimize_fused_counted
            );
            (Box::new(u), Box::new(f))
        } else {
            let (u, f) = engines!(
                ast_lists,
                run_optimize_unfused_counted,
                run_optimize_fused_counted
            );
            (Box::new(u), Box::new(f))
        };
        for (variant, size) in [(1, 1), (1, 6), (2, 30), (3, 3), (3, 10)] {
            let tree = generated(&program, "optimize", name, variant, size, 7);
            agree(
                &format!("{name} program {variant} size {size}"),
                &program,
                "optimize",
                &tree,
                &*u,
                &*f,
            );
        }
        let root = program.model.fuse_named("optimize").unwrap().root_type;
        for seed in 0..10 {
            let t = random_tree(
                &program.model,
                root,
                &GenOptions {
                    nodes: 150,
                    seed,
                    ..Default::default()
                },
            )
            .unwrap();
            agree(
                &format!("{name} random seed {seed}"),
                &program,
                "optimize",
                &t,
                &*u,
                &*f,
            );
        }
    }
}

#[test]
fn toylang() {
    let program = example("examples/toylang/toylang.tf");
    let (u, f) = engines!(
        toylang,
        run_simplify_unfused_counted,
        run_simplify_fused_counted
    );
    for seed in 0..15 {
        let tree = generated(&program, "simplify", "toylang", 1, 40, seed);
        agree(
            &format!("toylang seed {seed}"),
            &program,
            "simplify",
            &tree,
            &u,
            &f,
        );
    }
    agree_on_random_trees("toylang", &program, "simplify", &u, &f);
}

/// [`agree`] on ten random trees of 150 nodes.
fn agree_on_random_trees(what: &str, program: &Program, fuse: &str, u: Run, f: Run) {
    let root = program.model.fuse_named(fuse).unwrap().root_type;
    for seed in 0..10 {
        let options = GenOptions {
            nodes: 150,
            seed,
            ..Default::default()
        };
        let t = random_tree(&program.model, root, &options).unwrap();
        agree(
            &format!("{what} random seed {seed}"),
            program,
            fuse,
            &t,
            u,
            f,
        );
    }
}

/// `programs/moves.tf`: a participant replaces its node with one built
/// from a record parameter and reads the parameter in a later statement
/// (`fuse run`), and one that may return moves a parameter into a call,
/// assigns it and passes it to another call (`fuse walk`). Fused, the
/// later statements stay reachable for the Rust compiler whatever the
/// participant's flag, so the values are cloned (the module would not
/// compile if they were moved), and both engines agree with the
/// interpreter.
#[test]
fn values_read_after_a_fused_replacement_are_not_moved() {
    let program = example("crates/codegen-example/programs/moves.tf");
    let (u, f) = engines!(moves, run_walk_unfused_counted, run_walk_fused_counted);
    agree_on_random_trees("moves walk", &program, "walk", &u, &f);
    let (u, f) = engines!(moves, run_run_unfused_counted, run_run_fused_counted);
    agree_on_random_trees("moves", &program, "run", &u, &f);
    // A leaf that replaces itself, and one that does not.
    for (v, expected) in [
        (3, r#""type":"Tagged","v":8"#),
        (1, r#""type":"Leaf","v":8"#),
    ] {
        let json = format!(
            r#"{{"type":"Pair","a":{{"type":"Leaf","v":{v}}},"b":{{"type":"Leaf","v":0}}}}"#
        );
        let input = program.read_tree("run", &json).unwrap();
        agree("moves", &program, "run", &input, &u, &f);
        let (out, _) = f(&input).unwrap();
        assert!(out.contains(expected), "{out}");
    }
}

/// A chain of 10^6 text boxes: the generated code must not overflow the
/// stack (on the test thread's small stack) and must agree with the
/// interpreter (unfused; fused on the chain is checked on smaller trees).
#[test]
fn million_deep_chain() {
    const N: usize = 1_000_000;
    let mut json = String::with_capacity(N * 40);
    for i in 0..N {
        json.push_str(&format!(
            "{{\"type\":\"TextBox\",\"text\":\"{}\",\"next\":",
            "ab".repeat(i % 3)
        ));
    }
    json.push_str("{\"type\":\"End\"}");
    json.push_str(&"}".repeat(N));
    let program = example("examples/figure2/figure2.tf");
    let input = program.read_tree("layout", &json).unwrap();
    drop(json);
    let mut t = input.clone();
    let (stats, globals) = program
        .run_tree_with("layout", &mut t, Vec::new(), &Host::new(), Engine::Unfused)
        .unwrap();
    let expected = write_tree(&program.model, &t, Some(&globals), Default::default());
    drop(t);
    assert_eq!(stats.node_visits, 2 * N as u64 + 2);
    let (u, f) = engines!(
        figure2,
        run_layout_unfused_counted,
        run_layout_fused_counted
    );
    let (ju, vu) = u(&input).unwrap();
    assert!(ju == expected, "generated unfused differs on the chain");
    assert_eq!(vu, 2 * N as u64 + 2);
    let (jf, vf) = f(&input).unwrap();
    assert!(jf == expected, "generated fused differs on the chain");
    assert_eq!(vf, N as u64 + 1);
}

/// A chain of 10^5 links that doubles below its running visits
/// (`programs/grow.tf`): created nodes make the recursion deeper than the
/// tree the run started with, so their visits check the stack and move to
/// new segments; both engines must agree with the interpreter.
#[test]
fn chain_growing_below_its_visits() {
    const N: usize = 100_000;
    let mut json = String::with_capacity(N * 24);
    for _ in 0..N {
        json.push_str("{\"type\":\"Link\",\"next\":");
    }
    json.push_str("{\"type\":\"End\"}");
    json.push_str(&"}".repeat(N));
    let program = example("crates/codegen-example/programs/grow.tf");
    let input = program.read_tree("grow", &json).unwrap();
    drop(json);
    let mut t = input.clone();
    let (stats, globals) = program
        .run_tree_with("grow", &mut t, Vec::new(), &Host::new(), Engine::Unfused)
        .unwrap();
    let expected = write_tree(&program.model, &t, Some(&globals), Default::default());
    drop(t);
    let (u, f) = engines!(grow, run_grow_unfused_counted, run_grow_fused_counted);
    let (ju, vu) = u(&input).unwrap();
    assert!(
        ju == expected,
        "generated unfused differs on the growing chain"
    );
    assert_eq!(vu, stats.node_visits);
    let (jf, _) = f(&input).unwrap();
    assert!(
        jf == expected,
        "generated fused differs on the growing chain"
    );
}

#[test]
fn globals_round_trip() {
    let values = g::render::Globals::default().to_values();
    assert_eq!(
        g::render::Globals::from_values(&values),
        g::render::Globals::default()
    );
    assert!(!values.is_empty() && values.iter().all(|v| !matches!(v, Value::Str(_))));
}

/// The random programs of the soundness fuzzer's generator, compiled in
/// one batch by `build.rs`: generated unfused agrees with the interpreter
/// unfused and generated fused with the interpreter fused (each pair on
/// output, error existence and visits), on random trees and arguments.
#[test]
fn random_programs() {
    let mut runs = 0;
    let mut rewritten = 0;
    for r in g::random::PROGRAMS {
        let name = if r.hostile { "hostile" } else { "random" };
        let program = treefuse::compile_source(&format!("{name}_{}.tf", r.seed), r.source)
            .unwrap_or_else(|e| panic!("{e}"));
        let fused = program.fuse_all(&FusionOptions::default());
        let host = Host::new();
        for fuse in &program.model.fuses {
            for seed in 0..4 {
                let what = format!(
                    "{name} program {} fuse {} tree seed {seed}",
                    r.seed, fuse.name
                );
                let input = random_tree(
                    &program.model,
                    fuse.root_type,
                    &treefuse_progen::tree_options(40, seed),
                )
                .unwrap();
                let args = treefuse_progen::fuse_args(&program, &fuse.name, seed);
                for (engine, is_fused) in [(Engine::Unfused, false), (Engine::Fused(&fused), true)]
                {
                    let mut t = input.clone();
                    let interp = match program.run_tree_with(
                        &fuse.name,
                        &mut t,
                        args.clone(),
                        &host,
                        engine,
                    ) {
                        Ok((stats, globals)) => Ok((
                            write_tree(&program.model, &t, Some(&globals), Default::default()),
                            stats.node_visits,
                        )),
                        Err(RunError::Runtime(m)) => Err(m),
                        Err(e) => panic!("{what}: {e}"),
                    };
                    let generated = (r.run)(&program.model, &fuse.name, is_fused, &input, &args)
                        .expect("the fuse item exists");
                    match (&interp, &generated) {
                        (Ok(a), Ok(b)) => assert!(a == b, "{what} (fused: {is_fused}): generated differs from the interpreter:\n{a:?}\n{b:?}"),
                        (Err(a), Err(b)) => assert_eq!(
                            g::error_position_and_message(a),
                            g::error_position_and_message(b),
                            "{what} (fused: {is_fused}): the errors differ"
                        ),
                        _ => panic!("{what} (fused: {is_fused}): error behaviour differs: interpreter {interp:?} / generated {generated:?}"),
                    }
                    if let Ok((json, _)) = &interp {
                        rewritten += u32::from(
                            json != &write_tree(&program.model, &input, None, Default::default()),
                        );
                    }
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 100, "{runs}");
    assert!(rewritten > 0);
}

/// The toy language with rules that replace their node
/// (`toylang_rewrite.tf`, LANGUAGE.md §7.1): generated code agrees with
/// the interpreter on the blog's program and on generated and random
/// trees, and computes the same trees as the slot-rewriting `toylang.tf`.
#[test]
fn toylang_rewrite() {
    let program = example("examples/toylang/toylang_rewrite.tf");
    let slots = example("examples/toylang/toylang.tf");
    let (u, f) = engines!(
        toylang_rewrite,
        run_simplify_unfused_counted,
        run_simplify_fused_counted
    );
    let (su, _) = engines!(
        toylang,
        run_simplify_unfused_counted,
        run_simplify_fused_counted
    );
    let blog = std::fs::read_to_string(format!(
        "{}/../../examples/toylang/program.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut trees = vec![("blog".to_string(), blog)];
    for seed in 0..15 {
        trees.push((
            format!("seed {seed}"),
            treefuse_casegen::generate_string("toylang", 1, 60, seed).unwrap(),
        ));
    }
    for (what, json) in trees {
        let tree = program.read_tree("simplify", &json).unwrap();
        agree(
            &format!("toylang_rewrite {what}"),
            &program,
            "simplify",
            &tree,
            &u,
            &f,
        );
        // The same result as the rules written as slot rewrites.
        let slot_tree = slots.read_tree("simplify", &json).unwrap();
        let strip = |r: Result<(String, u64), String>| {
            let v: serde_json::Value = serde_json::from_str(&r.unwrap().0).unwrap();
            v
        };
        assert_eq!(
            strip(u(&tree)),
            strip(su(&slot_tree)),
            "toylang_rewrite {what}"
        );
    }
    agree_on_random_trees("toylang_rewrite", &program, "simplify", &u, &f);
}

/// `examples/rewriting/cleanup.tf` (statement lists: dead statements
/// removed, blocks flattened, declarations inserted): the checked-in
/// program gives `cleanup.out.json` in generated code too, and random
/// trees agree with the interpreter.
#[test]
fn cleanup() {
    let program = example("examples/rewriting/cleanup.tf");
    let (u, f) = engines!(
        cleanup,
        run_cleanup_unfused_counted,
        run_cleanup_fused_counted
    );
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rewriting");
    let json = std::fs::read_to_string(format!("{dir}/cleanup.json")).unwrap();
    let tree = program.read_tree("cleanup", &json).unwrap();
    agree("cleanup.json", &program, "cleanup", &tree, &u, &f);
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/cleanup.out.json")).unwrap())
            .unwrap();
    let runs: [Run; 2] = [&u, &f];
    for run in runs {
        let got: serde_json::Value = serde_json::from_str(&run(&tree).unwrap().0).unwrap();
        assert_eq!(got, want, "cleanup.json in generated code");
    }
    agree_on_random_trees("cleanup", &program, "cleanup", &u, &f);
}

/// `examples/fusion-rules/regions.tf`: a loop that does more than call the
/// element after a loop that replaces elements by one node each, merged
/// (its `is` test reads the node standing in the element's place): the
/// generated code agrees with the interpreter, visits included.
#[test]
fn regions() {
    let program = example("examples/fusion-rules/regions.tf");
    let (u, f) = engines!(regions, run_go_unfused_counted, run_go_fused_counted);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/fusion-rules");
    let json = std::fs::read_to_string(format!("{dir}/regions.json")).unwrap();
    let tree = program.read_tree("go", &json).unwrap();
    agree("regions.json", &program, "go", &tree, &u, &f);
    let runs: [Run; 2] = [&u, &f];
    for run in runs {
        let got: serde_json::Value = serde_json::from_str(&run(&tree).unwrap().0).unwrap();
        assert_eq!(got["n"], 7, "regions.json in generated code");
    }
    assert_eq!(f(&tree).unwrap().1, 10, "fused visits of regions.json");
    agree_on_random_trees("regions", &program, "go", &u, &f);
}

/// The splice benchmark's program (`examples/rewriting/splice.tf`):
/// deleting and expanding list elements in one loop, on mixed lists.
#[test]
fn splice() {
    let program = example("examples/rewriting/splice.tf");
    let (u, f) = engines!(splice, run_main_unfused_counted, run_main_fused_counted);
    for seed in 0..8u64 {
        let items: Vec<String> = (0..(50 + seed * 7))
            .map(|i| match (i * 7 + seed) % 3 {
                0 => format!(r#"{{"type": "Keep", "v": {i}}}"#),
                1 => r#"{"type": "Drop"}"#.to_string(),
                _ => format!(r#"{{"type": "Dup", "v": {i}}}"#),
            })
            .collect();
        let json = format!(
            r#"{{"type": "List", "items": [{}], "kept": 0}}"#,
            items.join(",")
        );
        let tree = program.read_tree("main", &json).unwrap();
        agree(
            &format!("splice seed {seed}"),
            &program,
            "main",
            &tree,
            &u,
            &f,
        );
    }
}

/// Trace-tree folding (`examples/treefold/treefold.tf`: a `while`
/// fixpoint, maps, enums, list rebuilding and thickets): the hand-computed
/// cases, the three recording generators and random trees.
#[test]
fn treefold() {
    let program = example("examples/treefold/treefold.tf");
    let (u, f) = engines!(treefold, run_fold_unfused_counted, run_fold_fused_counted);
    let cases = format!(
        "{}/../../examples/treefold/cases",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut inputs: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(&cases).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "json") {
            inputs.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    assert!(inputs.len() >= 5, "the hand-computed cases are missing");
    for (name, size) in [
        ("treefold-min", 6),
        ("treefold-nested", 5),
        ("treefold-life", 8),
    ] {
        for seed in 0..3 {
            inputs.push((
                format!("{name} {size} seed {seed}"),
                treefuse_casegen::generate_string(name, 1, size, seed).unwrap(),
            ));
        }
    }
    for (what, json) in inputs {
        let tree = program.read_tree("fold", &json).unwrap();
        assert!(
            agree(&format!("treefold {what}"), &program, "fold", &tree, &u, &f).is_some(),
            "treefold {what}: a runtime error"
        );
    }
    agree_on_random_trees("treefold", &program, "fold", &u, &f);
}

/// The minic middle end (`examples/minic/`, one file per pass: 15 passes with maps,
/// enums, nodes replacing themselves, thickets and a fixpoint loop;
/// fused calls resume postponed passes on replacement nodes): the
/// hand-checked program, generated programs and random trees.
#[test]
fn minic() {
    let program = example("examples/minic");
    let (u, f) = engines!(
        minic,
        run_optimize_unfused_counted,
        run_optimize_fused_counted
    );
    let hand = std::fs::read_to_string(format!(
        "{}/../../examples/minic/program.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut inputs = vec![("program.json".to_string(), hand)];
    for seed in 0..3 {
        inputs.push((
            format!("minic 12 seed {seed}"),
            treefuse_casegen::generate_string("minic", 1, 12, seed).unwrap(),
        ));
    }
    for (what, json) in inputs {
        let tree = program.read_tree("optimize", &json).unwrap();
        assert!(
            agree(
                &format!("minic {what}"),
                &program,
                "optimize",
                &tree,
                &u,
                &f
            )
            .is_some(),
            "minic {what}: a runtime error"
        );
    }
    agree_on_random_trees("minic", &program, "optimize", &u, &f);
}

/// Host functions, records, arrays, strings, aliases, casts and runtime
/// errors (`programs/features.tf`), with a fuse parameter.
#[test]
fn features() {
    let program = example("crates/codegen-example/programs/features.tf");
    let mut host = Host::new();
    host.define("scale", |a| Ok(Value::Int(g::host::scale(a[0].as_int()))));
    host.define("label", |a| {
        Ok(Value::Str((&*g::host::label(a[0].as_int())).into()))
    });
    let fused = program.fuse_all(&FusionOptions::default());
    let schema = g::features::schema();
    let root = program.model.fuse_named("run").unwrap().root_type;
    let (mut ok, mut failed) = (0, 0);
    for seed in 0..60 {
        let input = random_tree(
            &program.model,
            root,
            &GenOptions {
                // Small trees: every leaf may divide by zero, so larger
                // trees almost always end in a runtime error, and the test
                // wants both outcomes.
                nodes: 8,
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        let k = seed as i64 % 7 - 2;
        for (fuse, engine, is_fused) in [
            ("run", Engine::Unfused, false),
            ("run", Engine::Fused(&fused), true),
            ("settle", Engine::Unfused, false),
            ("settle", Engine::Fused(&fused), true),
        ] {
            let what = format!("features `{fuse}` seed {seed} (fused: {is_fused})");
            let mut t = input.clone();
            let interp =
                match program.run_tree_with(fuse, &mut t, vec![Value::Int(k)], &host, engine) {
                    Ok((stats, globals)) => Ok((
                        write_tree(&program.model, &t, Some(&globals), Default::default()),
                        stats.node_visits,
                    )),
                    Err(RunError::Runtime(m)) => Err(m),
                    Err(e) => panic!("{what}: {e}"),
                };
            let generated =
                g::features::run_by_name(&schema, fuse, is_fused, &input, &[Value::Int(k)])
                    .unwrap();
            match (&interp, &generated) {
                (Ok(a), Ok(b)) => {
                    assert!(*a == *b, "{what}: generated differs:\n{a:?}\n{b:?}");
                    ok += 1;
                }
                (Err(_), Err(e)) => {
                    assert!(e.line > 0 && e.col > 0, "{what}: {e}");
                    failed += 1;
                }
                _ => panic!("{what}: error behaviour differs: interpreter {interp:?} / generated {generated:?}"),
            }
        }
    }
    assert!(
        ok > 10 && failed > 10,
        "{ok} runs completed, {failed} failed"
    );
}

/// A tree built by hand with the typed API (struct literals, defaults for
/// data fields), run by the module generated without the JSON layer.
#[test]
fn hand_built_tree_without_json() -> Result<(), g::figure2_plain::BuildError> {
    use g::figure2_plain::*;
    let mut t = Tree::default();
    let end = t.add(End::default())?;
    let b = t.add(TextBox {
        next: end,
        text: "abcdefghijklmnop".into(),
        ..Default::default()
    })?;
    let a = t.add(TextBox {
        next: b,
        text: "xy".into(),
        ..Default::default()
    })?;
    t.root = NodeRef::Element(a);
    let (mut u, mut f) = (t.clone(), t);
    let (mut gu, mut gf) = (Globals::default(), Globals::default());
    assert_eq!(run_layout_unfused_counted(&mut u, &mut gu), Ok(6));
    assert_eq!(run_layout_fused_counted(&mut f, &mut gf), Ok(3));
    assert_eq!(u, f);
    assert_eq!(u[a].total_width, 18);
    assert_eq!(u[b].height, 16 * (16 / 8) + 1);
    assert_eq!(u[a].max_height, 33);
    // A runtime error carries the traversal and the position.
    gu.char_width = 0;
    let err = run_layout_unfused(&mut u, &mut gu).unwrap_err();
    assert_eq!(err.context, "TextBox.compute_height");
    assert_eq!((err.line, err.col), (28, 41));
    // Typed reads.
    let read = u.get::<TextBox>(a).expect("a is a text box");
    assert_eq!((read.next, read.total_width, &*read.text), (b, 18, "xy"));
    assert_eq!(u.get::<Group>(a), None);
    Ok(())
}

/// A child that is not in the tree, or of a type its field does not
/// accept, is rejected by `Tree::add` with an error value, never a panic;
/// so a tree built node by node is always well typed.
#[test]
fn typed_api_rejects_wrong_children() {
    use g::ast::*;
    let mut t = Tree::default();
    // A child left unset (its default) names no node.
    let err = t.add(BinaryExpr::default()).unwrap_err();
    assert_eq!(
        (err.node_type, err.field, err.expected, err.found),
        ("BinaryExpr", "lhs", "ExpressionNode", None)
    );
    assert!(err
        .to_string()
        .contains("`BinaryExpr.lhs` takes a `ExpressionNode` node"));
    // A field typed with a subtype accepts only nodes of that subtype:
    // a statement is not an expression, though both are `ASTNode`s.
    let stmt = t.add(NullStmt::default()).expect("no children");
    let one = t.add(ConstantExpr { value: 1 }).expect("no children");
    let err = t
        .add(BinaryExpr {
            lhs: one,
            rhs: stmt,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!((err.field, err.found), ("rhs", Some("NullStmt")));
    let sum = t.add(BinaryExpr {
        lhs: one,
        rhs: one,
        ..Default::default()
    });
    assert!(sum.is_ok());
    // Typed reads check the type.
    assert_eq!(t.get::<ConstantExpr>(one), Some(ConstantExpr { value: 1 }));
    assert_eq!(t.get::<VarRefExpr>(one), None);
    assert_eq!(t.get::<NullStmt>(ASTNodeId(99)), None);
    // Data fields start at their declared defaults.
    assert_eq!(&*Function::default().function_name, "not-set");
}

/// An empty tree (no root node) is a runtime error of every entry point,
/// not a panic; an empty JSON document is an input error; an empty tree
/// writes as `null`.
#[test]
fn empty_tree_is_an_error() {
    use g::figure2::*;
    let empty = "the tree is empty: it has no root node";
    let (mut t, mut globals) = (Tree::default(), Globals::default());
    assert!(t.is_empty());
    for run in [
        run_layout_unfused as fn(&mut Tree, &mut Globals) -> Result<(), RuntimeError>,
        run_layout_fused,
    ] {
        let err = run(&mut t, &mut globals).unwrap_err();
        assert_eq!((err.message.as_str(), err.context), (empty, "fuse layout"));
    }
    let err = run_layout_fused_counted(&mut t, &mut globals).unwrap_err();
    assert_eq!(err.message, empty);
    let schema = schema();
    for text in ["", "null", "{}", "[]", "{\"type\": \"Nope\"}"] {
        assert!(read_json(&schema, "Element", text).is_err(), "{text:?}");
    }
    assert_eq!(write_json(&schema, &t, &globals), "null");
    for fused in [false, true] {
        let r = run_by_name(&schema, "layout", fused, &RtTree::new(), &[]);
        assert_eq!(r.map(|r| r.map_err(|e| e.message)), Some(Err(empty.into())));
    }
    // The same holds for a program that rewrites its root in place.
    let mut t = g::toylang_rewrite::Tree::default();
    let mut globals = g::toylang_rewrite::Globals::default();
    let err = g::toylang_rewrite::run_simplify_fused(&mut t, &mut globals).unwrap_err();
    assert_eq!(err.message, empty);
}

/// Shared slots: a node is about the size of its hierarchy's largest
/// concrete type, not the sum of every type's fields. The AST case study's
/// node was 112 bytes with one member per field; shared slots made it 40
/// (kind and flag, three child ids, the function name, one integer), and
/// with the function name, which no pass reads, kept out of line (a cold
/// field) it is 24.
#[test]
fn nodes_share_slots() {
    use std::mem::size_of;
    assert_eq!(size_of::<g::ast::ASTNodeSlots>(), 24);
    // TextBox.next and Group.next share one slot, named after both.
    let n = g::figure2_plain::ElementSlots::group(
        0,
        0,
        0,
        0,
        g::figure2_plain::ElementId(1),
        g::figure2_plain::ElementId(2),
        Default::default(),
    );
    assert_eq!(
        (n.content, n.next),
        (
            g::figure2_plain::ElementId(1),
            g::figure2_plain::ElementId(2)
        )
    );
    // The render `Element` (every type has a base of 9 fields) was 192.
    assert!(size_of::<g::render::ElementSlots>() <= 168);
    // Accessors reach fields stored in a slot of another name.
    let mut e = g::ast::ASTNodeSlots::constant_expr(7);
    assert_eq!(e.value(), 7);
    *e.value_mut() = 8;
    assert_eq!(e.operator_or_var_id_or_value, 8);
}

/// Cold fields (`programs/cold.tf`: data fields no traversal reads or
/// writes) live out of the node structs, in one `ColdTable` per concrete
/// type, yet come in from JSON and go back out, are set by `new`, travel
/// with `copy` and with a node replacing itself, and read back through
/// the typed API.
#[test]
fn cold_fields_live_out_of_line() -> Result<(), g::cold::BuildError> {
    use g::cold::*;
    // Kind, two child ids and `Num.v`; the label, span, tags and notes
    // are elsewhere.
    assert_eq!(std::mem::size_of::<ExprSlots>(), 24);
    let program = example("crates/codegen-example/programs/cold.tf");
    let (u, f) = engines!(
        cold,
        run_fold_and_count_unfused_counted,
        run_fold_and_count_fused_counted
    );
    agree_on_random_trees("cold", &program, "fold_and_count", &u, &f);
    // Built through the typed API: Twice { e: Add(2, 5), again: 5 }.
    let mut t = Tree::default();
    let two = t.add(Num {
        v: 2,
        label: "two".into(),
        span: Span::new(3, 4),
    })?;
    let five = t.add(Num {
        v: 5,
        ..Default::default()
    })?;
    let sum = t.add(Add {
        l: two,
        r: five,
        tags: vec![9],
        ..Default::default()
    })?;
    let top = t.add(Twice {
        e: sum,
        again: five,
        label: "top".into(),
        ..Default::default()
    })?;
    t.root = NodeRef::Expr(top);
    assert_eq!(t.get::<Num>(five).map(|n| n.label), Some("expr".into()));
    assert_eq!(t.get::<Add>(sum).map(|n| n.tags), Some(vec![9]));
    let (mut unfused, mut fused) = (t.clone(), t);
    let (mut gu, mut gf) = (Globals::default(), Globals::default());
    assert_eq!(run_fold_and_count_unfused(&mut unfused, &mut gu), Ok(()));
    assert_eq!(run_fold_and_count_fused(&mut fused, &mut gf), Ok(()));
    assert_eq!(unfused, fused);
    assert_eq!(gu.total, 14);
    // The sum folded into a new `Num`, whose cold fields `new` set; the
    // copy in `again` carries them too.
    let folded = Num {
        v: 7,
        label: "folded".into(),
        span: Span::new(1, 2),
    };
    let (e, again) = (fused[top].l_or_e, fused[top].r_or_again);
    assert_ne!(e, again);
    assert_eq!(fused.get::<Num>(e), Some(folded.clone()));
    assert_eq!(fused.get::<Num>(again), Some(folded));
    assert_eq!(fused.get::<Twice>(top).map(|n| n.label), Some("top".into()));
    // And they go out to JSON.
    let json = write_json(&schema(), &fused, &gf);
    assert!(
        json.contains(r#""label":"folded","v":7,"span":{"line":1,"col":2}"#),
        "{json}"
    );
    // A node pushed without its cold fields reads them as blanks.
    let bare = fused.push_expr(ExprSlots::num(1));
    assert_eq!(fused.get::<Num>(bare).map(|n| n.label), Some("".into()));
    // Memory reports count the cold entries.
    let hot = fused.expr.len() * std::mem::size_of::<ExprSlots>();
    assert!(fused.node_bytes() > hot);
    Ok(())
}

/// `programs/names.tf`, whose names collide with the generated code's own
/// identifiers, compiles (warning-free: `#[deny(warnings)]`) and runs like
/// the interpreter on random trees, its rewriting item included.
#[test]
fn names_like_generated_identifiers() {
    let program = example("crates/codegen-example/programs/names.tf");
    let (u, f) = engines!(names, run_x_unfused_counted, run_x_fused_counted);
    agree_on_random_trees("names x", &program, "x", &u, &f);
    let (u, f) = engines!(names, run_prune_unfused_counted, run_prune_fused_counted);
    agree_on_random_trees("names prune", &program, "prune", &u, &f);
    // `fuse layout(root, t)` has a parameter: run by name.
    let root = program.model.fuse_named("layout").unwrap().root_type;
    for seed in 0..10 {
        let options = GenOptions {
            nodes: 150,
            seed,
            ..Default::default()
        };
        let t = random_tree(&program.model, root, &options).unwrap();
        let schema = g::names::schema();
        let args = [Value::Int(seed as i64 - 3)];
        let fused_program = program.fuse_all(&FusionOptions::default());
        let mut outputs = Vec::new();
        for fused in [false, true] {
            let generated = g::names::run_by_name(&schema, "layout", fused, &t, &args)
                .expect("fuse layout")
                .map(|(json, _)| json)
                .map_err(|e| e.to_string());
            let mut it = t.clone();
            let engine = if fused {
                Engine::Fused(&fused_program)
            } else {
                Engine::Unfused
            };
            let interp =
                match program.run_tree_with("layout", &mut it, args.to_vec(), &Host::new(), engine)
                {
                    Ok((_, globals)) => Ok(write_tree(
                        &program.model,
                        &it,
                        Some(&globals),
                        Default::default(),
                    )),
                    Err(RunError::Runtime(m)) => Err(m),
                    Err(e) => panic!("names layout: {e}"),
                };
            assert_eq!(
                generated.is_ok(),
                interp.is_ok(),
                "names layout seed {seed} fused {fused}"
            );
            if let (Ok(a), Ok(b)) = (&generated, &interp) {
                assert!(
                    a == b,
                    "names layout seed {seed} fused {fused}: outputs differ"
                );
            }
            outputs.push(generated);
        }
        assert_eq!(
            outputs[0], outputs[1],
            "names layout seed {seed}: fused differs"
        );
    }
}

/// Type names that generated names could take (`programs/type_names.tf`):
/// the hierarchy root `Root` (whose arena is not `Tree::root`), a type
/// `Tree` (its struct gives way: `Tree_2`) and the hierarchy of `Node`,
/// whose names are `NodeId`, `NodeKind` and `NodeSlots`.
#[test]
fn generated_names_do_not_collide() -> Result<(), g::type_names::BuildError> {
    use g::type_names::*;
    let mut t = Tree::default();
    let leaf = t.add(Leaf::default())?;
    let other: NodeId = t.add(Leaf { size: 3 })?;
    let inner = t.add(Tree_2 {
        left: leaf,
        right: other,
        ..Default::default()
    })?;
    let root = t.add(Root {
        top: inner,
        ..Default::default()
    })?;
    t.root = NodeRef::Root(root);
    let mut fused = t.clone();
    let (mut g1, mut g2) = (Globals::default(), Globals::default());
    assert_eq!(run_count_unfused_counted(&mut t, &mut g1), Ok(4));
    assert!(run_count_fused(&mut fused, &mut g2).is_ok());
    assert_eq!(t, fused);
    assert_eq!(t.get::<Root>(root).map(|r| r.total), Some(5));
    assert_eq!(t.root_2.len(), 1);
    let _: &NodeSlots = &t[inner];
    Ok(())
}

/// `programs/type_c.tf` and `programs/traversal_t.tf`: a type named `C`
/// and traversals named `t` and `cx`, which generated code once used for
/// its own parameters: the modules compile and agree with the
/// interpreter.
#[test]
fn names_the_generator_uses_itself() {
    let program = example("crates/codegen-example/programs/type_c.tf");
    let (u, f) = engines!(type_c, run_go_unfused_counted, run_go_fused_counted);
    agree_on_random_trees("type C", &program, "go", &u, &f);
    let program = example("crates/codegen-example/programs/traversal_t.tf");
    let (u, f) = engines!(traversal_t, run_go_unfused_counted, run_go_fused_counted);
    agree_on_random_trees("traversal t", &program, "go", &u, &f);
}

/// `programs/python_names.tf`: node types named like Python's AST and like
/// Rust's prelude (`Set`, `List`, `Match`, `Try`, `Box`, `Ok`, `Default`,
/// `u32`, `ListId`), traversals `clone`, `set`/`Set` and `fooBar`/`foo_bar`,
/// a global `Tree`, a record `Option` with fields `Some` and `None`: the
/// module compiles warning-free and computes the hand-computed result.
#[test]
fn python_and_rust_names() {
    let program = example("crates/codegen-example/programs/python_names.tf");
    let (u, f) = engines!(
        python_names,
        run_await_unfused_counted,
        run_await_fused_counted
    );
    agree_on_random_trees("python names", &program, "Await", &u, &f);
    let input = program
        .read_tree(
            "Await",
            r#"{"type":"Match","List":[{"type":"Try","Await":{"type":"Yield"}},{"type":"Yield"},{"type":"Box"}]}"#,
        )
        .unwrap();
    let (visits_unfused, _) = agree("python names", &program, "Await", &input, &u, &f).unwrap();
    assert_eq!(visits_unfused, 25, "five calls on five nodes");
    let (out, _) = f(&input).unwrap();
    // clone: Yield.union 5 → 6, Try.move 1 → 2; set: Yield.self_ = 3 + 6,
    // Match.self_ = 3; Set: Yield.union = 0 (gen is Err), Try.move = 20;
    // fooBar: Tree = 100 + 20 + 100; foo_bar: Tree = 220 * 2 * 2 + 1.
    assert_eq!(
        out,
        r#"{"type":"Match","self_":3,"List":[{"type":"Try","self_":0,"Await":{"type":"Yield","self_":9,"union":0,"gen":"Err"},"move":20},{"type":"Yield","self_":9,"union":0,"gen":"Err"},{"type":"Box","self_":0}],"box":"Ok","globals":{"Tree":881}}"#
    );
}

/// `programs/wide.tf`: seventy passes, each of which may `return`, fused
/// into one walk whose functions take a 128-bit mask of their active
/// participants: generated unfused and fused code agree with the
/// interpreter, and the fused run visits each node once.
#[test]
fn wide() {
    let program = example("crates/codegen-example/programs/wide.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    assert_eq!(fused.functions.len(), 1, "one walk");
    assert_eq!(fused.functions[0].participants.len(), 70);
    let (u, f) = engines!(wide, run_all_unfused_counted, run_all_fused_counted);
    agree_on_random_trees("wide all", &program, "all", &u, &f);
}

/// `programs/widest.tf`: a hundred and forty passes, which may `return` or
/// call their children under a guard, fused into one walk: past 128
/// participants the generated functions take `WideMask<3>` masks and the
/// interpreter its wide masks; both agree with the unfused runs, and the
/// fused run visits each node once.
#[test]
fn widest() {
    let program = example("crates/codegen-example/programs/widest.tf");
    let fused = program.fuse_all(&FusionOptions::default());
    assert_eq!(fused.functions.len(), 1, "one walk");
    assert_eq!(fused.functions[0].participants.len(), 140);
    let (u, f) = engines!(widest, run_all_unfused_counted, run_all_fused_counted);
    agree_on_random_trees("widest all", &program, "all", &u, &f);
    let path = format!("{}/programs/widest.tf", env!("CARGO_MANIFEST_DIR"));
    let code = treefuse_codegen::emit_file(path).expect("the program compiles");
    assert!(
        code.contains("mask: WideMask<3>"),
        "wide masks in the generated code"
    );
}

/// `programs/loops.tf`: `while` loops and `break` in traversals and `fuse`
/// items (LANGUAGE §8.6), with limits from parameters, fields and globals,
/// locals carried across iterations, `return` inside a loop, and a
/// condition that fails when it is read: generated unfused and fused code
/// agree with the interpreter on random trees, for limits from 0 to 5
/// (outputs, visits, runtime errors and their positions).
#[test]
fn loops() {
    let program = example("crates/codegen-example/programs/loops.tf");
    let (u, f) = engines!(loops, run_fix_unfused_counted, run_fix_fused_counted);
    agree_on_random_trees("loops fix", &program, "fix", &u, &f);
    let fused = program.fuse_all(&FusionOptions::default());
    let schema = g::loops::schema();
    let root = program.model.fuse_named("run").unwrap().root_type;
    let (mut ok, mut failed) = (0, 0);
    for seed in 0..40 {
        let input = random_tree(
            &program.model,
            root,
            &GenOptions {
                nodes: 20 + seed as usize,
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        let k = seed as i64 % 6;
        for (engine, is_fused) in [(Engine::Unfused, false), (Engine::Fused(&fused), true)] {
            let what = format!("loops `run` seed {seed} k {k} (fused: {is_fused})");
            let mut t = input.clone();
            let interp = match program.run_tree_with(
                "run",
                &mut t,
                vec![Value::Int(k)],
                &Host::new(),
                engine,
            ) {
                Ok((stats, globals)) => Ok((
                    write_tree(&program.model, &t, Some(&globals), Default::default()),
                    stats.node_visits,
                )),
                Err(RunError::Runtime(m)) => Err(m),
                Err(e) => panic!("{what}: {e}"),
            };
            let generated =
                g::loops::run_by_name(&schema, "run", is_fused, &input, &[Value::Int(k)]).unwrap();
            match (&interp, &generated) {
                (Ok(a), Ok(b)) => {
                    assert!(*a == *b, "{what}: generated differs:\n{a:?}\n{b:?}");
                    ok += 1;
                }
                (Err(m), Err(e)) => {
                    let (at, message) = g::error_position_and_message(m);
                    assert_eq!(at, format!("{}:{}", e.line, e.col), "{what}: {m} / {e}");
                    assert!(message.contains("by zero"), "{what}: {m}");
                    failed += 1;
                }
                _ => panic!(
                    "{what}: error behaviour differs: interpreter {interp:?} / generated {generated:?}"
                ),
            }
        }
    }
    assert!(
        ok > 20 && failed > 4,
        "{ok} runs completed, {failed} failed"
    );
}

/// `examples/passes` (default walks, `impl` blocks, subtype defaults and
/// cast aliases) and `examples/rules` (a program of several files): the
/// hand-computed inputs and random trees, in every engine.
#[test]
fn passes_and_rules() {
    let program = example("examples/passes/passes.tf");
    let (u, f) = engines!(passes, run_all_unfused_counted, run_all_fused_counted);
    let json = std::fs::read_to_string(format!(
        "{}/../../examples/passes/module.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let tree = program.read_tree("all", &json).unwrap();
    assert_eq!(
        agree("passes", &program, "all", &tree, &u, &f),
        Some((50, 26))
    );
    agree_on_random_trees("passes", &program, "all", &u, &f);
    // A folded literal built by the generated `new` takes IntLit's own
    // defaults, and so does the typed API's `Default`.
    let (out, _) = f(&tree).unwrap();
    assert!(
        out.contains(r#""type":"IntLit","line":2,"ty":"Int","pure_":true,"v":3"#),
        "{out}"
    );
    let lit = g::passes::IntLit::default();
    assert_eq!((lit.ty, lit.pure_), (g::passes::Ty::Int, true));

    let program = example("examples/rules");
    let (u, f) = engines!(rules, run_lint_unfused_counted, run_lint_fused_counted);
    let json = std::fs::read_to_string(format!(
        "{}/../../examples/rules/module.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let tree = program.read_tree("lint", &json).unwrap();
    assert_eq!(
        agree("rules", &program, "lint", &tree, &u, &f),
        Some((63, 21))
    );
    agree_on_random_trees("rules", &program, "lint", &u, &f);
}

/// `programs/optional.tf`: optional children (LANGUAGE.md §8.7) in
/// generated code, unfused and fused, against the interpreter: calls on
/// empty and full ones (plain, guarded, with arguments), `is none`,
/// emptying, filling, moves, copies, nodes replacing themselves in them,
/// and (`fuse strict`) reads through empty ones that fail.
#[test]
fn optional_children() {
    let program = example("crates/codegen-example/programs/optional.tf");
    let root = program.model.fuse_named("all").unwrap().root_type;
    let (u, f) = engines!(optional, run_all_unfused_counted, run_all_fused_counted);
    let (su, sf) = engines!(
        optional,
        run_strict_unfused_counted,
        run_strict_fused_counted
    );
    let (mut ran, mut failed) = (0, 0);
    for seed in 0..60 {
        let options = GenOptions {
            nodes: 10 + 5 * (seed as usize % 12),
            seed,
            ..Default::default()
        };
        let t = random_tree(&program.model, root, &options).unwrap();
        agree(
            &format!("optional all seed {seed}"),
            &program,
            "all",
            &t,
            &u,
            &f,
        );
        match agree(
            &format!("optional strict seed {seed}"),
            &program,
            "strict",
            &t,
            &su,
            &sf,
        ) {
            Some(_) => ran += 1,
            None => failed += 1,
        }
    }
    assert!(ran > 5 && failed > 5, "strict: {ran} ran, {failed} failed");
    // A tree built with the typed API: optional children are `Option`s.
    use g::optional::{Add, Block, If, Num, Return, Tree};
    let mut tree = Tree::default();
    let one = tree
        .add(Num {
            v: 1,
            ..Default::default()
        })
        .unwrap();
    let two = tree
        .add(Num {
            v: 7,
            ..Default::default()
        })
        .unwrap();
    let sum = tree
        .add(Add {
            l: one,
            r: Some(two),
            ..Default::default()
        })
        .unwrap();
    let ret = tree
        .add(Return {
            value: Some(sum),
            line: 3,
        })
        .unwrap();
    let empty = tree
        .add(Return {
            value: None,
            line: 9,
        })
        .unwrap();
    let cond = tree
        .add(Num {
            v: -1,
            ..Default::default()
        })
        .unwrap();
    let test = tree
        .add(If {
            cond,
            then_s: ret,
            else_s: Some(empty),
        })
        .unwrap();
    let block = tree
        .add(Block {
            body: vec![test].into(),
            tail: None,
        })
        .unwrap();
    tree.root = g::optional::NodeRef::Stmt(block);
    assert_eq!(tree.get::<Return>(empty).unwrap().value, None);
    assert_eq!(tree.get::<Add>(sum).unwrap().r, Some(two));
    let bad = Return {
        value: Some(g::optional::ExprId(99)),
        line: 0,
    };
    assert!(
        tree.clone().add(bad).is_err(),
        "a missing child is rejected"
    );
    let schema = g::optional::schema();
    let json = g::optional::write_json(&schema, &tree, &Default::default());
    assert!(json.contains(r#""tail":null"#), "{json}");
    let input = program.read_tree("all", &json).unwrap();
    agree("optional typed tree", &program, "all", &input, &u, &f);
    // Computed by hand: `count(0)` adds the depths of the numbers (the
    // condition at 0, `1` and `7` below the `Add` at 2 each: 4); `prune(5)`
    // fills the empty `value` of the `else` (line 9 > 5) and then empties
    // `else_s` (the condition is negative); `fold` turns `1 + 7` into `8`;
    // `sum` adds the condition and that number (the `else` is empty):
    // -1 + 8 = 7.
    let (out, _) = f(&input).unwrap();
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(out["globals"]["SUM"], 7, "{out}");
    assert_eq!(out["globals"]["DEPTHS"], 4, "{out}");
    assert_eq!(out["body"][0]["else_s"], serde_json::Value::Null, "{out}");
    assert_eq!(out["body"][0]["then_s"]["value"]["v"], 8, "{out}");
}
