//! The minic middle end (`examples/minic/`): the hand-checked program
//! (`program.json` → `expected.json`, explained step by step in
//! `examples/minic/README.md`) in the unfused and the fused interpreter
//! under several cut-offs, and fused ≡ unfused on generated programs and on
//! random trees of the schema (which exercise ill-typed and unresolved
//! code, sugar in odd places and runtime errors).

use treefuse::{Engine, FusedProgram, FusionOptions, Host, Program, RunError, Tree};
use treefuse_runtime::{diff_globals, diff_trees, random_tree, GenOptions};

const FUSE: &str = "optimize";

fn minic() -> Program {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/minic");
    treefuse::compile_file(file).unwrap_or_else(|e| panic!("{e}"))
}

fn example_file(name: &str) -> String {
    let path = format!("{}/../../examples/minic/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cutoffs() -> Vec<FusionOptions> {
    vec![
        FusionOptions::default(),
        FusionOptions {
            max_group: 1,
            max_repeat: 1,
        },
        FusionOptions {
            max_group: 3,
            max_repeat: 2,
        },
        FusionOptions {
            max_group: 64,
            max_repeat: 8,
        },
    ]
}

/// The output document of one run (tree plus `"globals"`) and its node visits.
fn run(program: &Program, json: &str, engine: Engine) -> (serde_json::Value, u64) {
    let host = Host::new();
    let mut tree = program.read_tree(FUSE, json).unwrap();
    let (stats, globals) = program
        .run_tree_with(FUSE, &mut tree, Vec::new(), &host, engine)
        .unwrap_or_else(|e| panic!("{e}"));
    let text =
        treefuse_runtime::write_tree(&program.model, &tree, Some(&globals), Default::default());
    (serde_json::from_str(&text).unwrap(), stats.node_visits)
}

#[test]
fn the_hand_checked_program_gives_the_expected_tree_in_every_engine() {
    let program = minic();
    let input = example_file("program.json");
    let expected: serde_json::Value = serde_json::from_str(&example_file("expected.json")).unwrap();
    let (got, visits) = run(&program, &input, Engine::Unfused);
    assert_eq!(got, expected, "unfused run of program.json");
    // 15 passes; propagate + fold run one round in `sq` and three in `main`
    // (README: "The small program").
    assert_eq!(visits, 1107, "unfused node visits on program.json");
    for options in cutoffs() {
        let fused = program.fuse_all(&options);
        let (got, visits) = run(&program, &input, Engine::Fused(&fused));
        assert_eq!(got, expected, "fused run of program.json with {options:?}");
        if options == FusionOptions::default() {
            assert_eq!(visits, 608, "fused node visits on program.json");
        }
    }
}

fn plans(program: &Program) -> Vec<(FusionOptions, FusedProgram)> {
    cutoffs()
        .into_iter()
        .map(|o| {
            let p = program.fuse_all(&o);
            (o, p)
        })
        .collect()
}

/// Both engines on `input` under every cut-off: the same tree, globals and
/// runtime errors. Returns whether the runs succeeded.
fn equivalent(
    program: &Program,
    plans: &[(FusionOptions, FusedProgram)],
    input: &Tree,
    what: &str,
) -> bool {
    let host = Host::new();
    let mut unfused = input.clone();
    let want = program.run_tree_with(FUSE, &mut unfused, Vec::new(), &host, Engine::Unfused);
    for (options, plan) in plans {
        let mut fused = input.clone();
        let got = program.run_tree_with(FUSE, &mut fused, Vec::new(), &host, Engine::Fused(plan));
        match (&want, got) {
            (Ok((_, ga)), Ok((_, gb))) => {
                let mut d = diff_trees(&program.model, &unfused, &fused, 3);
                d.extend(diff_globals(&program.model, ga, &gb));
                assert!(d.is_empty(), "{what}, {options:?}: fused differs: {d:?}");
            }
            (Err(RunError::Runtime(_)), Err(RunError::Runtime(_))) => {}
            (w, g) => panic!(
                "{what}, {options:?}: unfused {:?} / fused {:?}",
                w.as_ref().err(),
                g.err()
            ),
        }
    }
    want.is_ok()
}

#[test]
fn fused_equals_unfused_on_random_trees() {
    let program = minic();
    let root = program.model.fuse_named(FUSE).unwrap().root_type;
    let plans = plans(&program);
    let mut ran = 0;
    for seed in 0..40 {
        for nodes in [60, 250] {
            let tree = random_tree(
                &program.model,
                root,
                &GenOptions {
                    nodes,
                    seed,
                    max_list: 5,
                    ..Default::default()
                },
            )
            .unwrap();
            if equivalent(
                &program,
                &plans,
                &tree,
                &format!("random tree {nodes} nodes, seed {seed}"),
            ) {
                ran += 1;
            }
        }
    }
    eprintln!("{ran} of 80 random trees ran without a runtime error");
    assert!(
        ran > 20,
        "only {ran} random trees ran without a runtime error"
    );
}

#[test]
fn fused_equals_unfused_on_generated_programs() {
    let program = minic();
    let plans = plans(&program);
    for (size, seed) in [(1, 0), (3, 1), (10, 2), (25, 3), (60, 4)] {
        let json = treefuse_casegen::generate_string("minic", 1, size, seed).unwrap();
        let tree = program.read_tree(FUSE, &json).unwrap();
        assert!(
            equivalent(
                &program,
                &plans,
                &tree,
                &format!("generated program, {size} functions, seed {seed}")
            ),
            "generated programs run without runtime errors"
        );
    }
}

// ----- walks fuse as well as spelled-out recursion ------------------------

fn fixture(name: &str) -> Program {
    let file = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    treefuse::compile_file(&file).unwrap_or_else(|e| panic!("{e}"))
}

/// The sorted names (`Type[traversals]`) of a fused program's functions.
fn fused_names(program: &Program, fused: &FusedProgram) -> Vec<String> {
    let mut names: Vec<String> = fused
        .functions
        .iter()
        .map(|f| treefuse_fusion::report::function_name(&program.model, f))
        .collect();
    names.sort();
    names
}

/// One run's output document (tree and globals, as text) and its visits in
/// all and per call of the `fuse` item.
fn run_text(program: &Program, fuse: &str, json: &str, engine: Engine) -> (String, u64, Vec<u64>) {
    let host = Host::new();
    let mut tree = program.read_tree(fuse, json).unwrap();
    let (stats, globals) = program
        .run_tree_with(fuse, &mut tree, Vec::new(), &host, engine)
        .unwrap_or_else(|e| panic!("{e}"));
    let text =
        treefuse_runtime::write_tree(&program.model, &tree, Some(&globals), Default::default());
    (text, stats.node_visits, stats.visits_per_call)
}

/// `walked` and `spelled` fuse into the same functions (as many, with the
/// same `Type[traversals]` names) and, on every input, leave the same tree
/// and globals with the same visits (in all and per call of the item),
/// unfused and fused. Returns the visits of the last input (unfused,
/// fused).
fn same_fusion_and_visits(
    walked: &Program,
    spelled: &Program,
    fuse: &str,
    inputs: &[(String, String)],
) -> (u64, u64) {
    let options = FusionOptions::default();
    let (fw, fs) = (walked.fuse_all(&options), spelled.fuse_all(&options));
    assert_eq!(fw.functions.len(), fs.functions.len(), "fused functions");
    assert_eq!(fused_names(walked, &fw), fused_names(spelled, &fs));
    let mut last = (0, 0);
    for (what, json) in inputs {
        let unfused = run_text(walked, fuse, json, Engine::Unfused);
        assert_eq!(
            unfused,
            run_text(spelled, fuse, json, Engine::Unfused),
            "{what}: unfused runs differ"
        );
        let fused = run_text(walked, fuse, json, Engine::Fused(&fw));
        assert_eq!(
            fused,
            run_text(spelled, fuse, json, Engine::Fused(&fs)),
            "{what}: fused runs differ"
        );
        assert_eq!(unfused.0, fused.0, "{what}: fused differs from unfused");
        last = (unfused.1, fused.1);
    }
    last
}

/// Walks fuse as well as spelled-out recursion: `examples/minic/` (default
/// walks, `impl` blocks, subtype defaults, cast aliases, one file per pass)
/// against the single file it was rewritten from, with every recursion
/// spelled out (`tests/fixtures/minic_spelled.tf`). Each walk stands for
/// exactly the calls the old body made (where a body visits children in
/// another order or skips some, as `For.desugar_loops`, `Cond.fold`,
/// `If.typecheck` or `Block.propagate`, it stayed explicit), and the sugar
/// the first two passes remove is kept out of the later passes' walks by
/// empty bodies on its abstract base `Sugar`, as the old inherited empty
/// bodies did. So both programs fuse into the same 298 functions (the
/// same `Type[traversals]` multiset) and make the same visits on the
/// hand-checked program and on generated ones, unfused and fused.
#[test]
fn walks_fuse_as_well_as_spelled_out_recursion_minic() {
    let walked = minic();
    let spelled = fixture("minic_spelled.tf");
    let mut inputs = Vec::new();
    for (size, seed) in [(1, 0), (5, 1), (20, 2), (40, 3), (80, 4)] {
        inputs.push((
            format!("gen-example minic --size {size} --seed {seed}"),
            treefuse_casegen::generate_string("minic", 1, size, seed).unwrap(),
        ));
    }
    inputs.push(("program.json".to_string(), example_file("program.json")));
    let visits = same_fusion_and_visits(&walked, &spelled, FUSE, &inputs);
    assert_eq!(visits, (1107, 608), "program.json");
    assert_eq!(
        walked.fuse_all(&FusionOptions::default()).functions.len(),
        298
    );
}

/// The same for the AST case study: `tests/fixtures/ast_walks.tf` is
/// `examples/ast/ast.tf` with the function lists' forwarding bodies
/// (`Program`, `FunctionListInner`, `FunctionListEnd`, `Function`, five
/// traversals each) written as default walks. The statement lists and
/// statements keep their bodies: they guard calls with `is` tests (a walk
/// would visit every child whose type has the traversal, and in this port
/// every type has every traversal) or visit children out of slot order
/// (`IfStmt.remove_unreachable_branches`: `else_part` first).
#[test]
fn walks_fuse_as_well_as_spelled_out_recursion_ast() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/ast");
    let spelled =
        treefuse::compile_file(format!("{root}/ast.tf")).unwrap_or_else(|e| panic!("{e}"));
    let walked = fixture("ast_walks.tf");
    let mut inputs = Vec::new();
    for (variant, size, seed) in [(1, 3, 0), (1, 20, 1), (2, 8, 2), (3, 5, 3), (3, 12, 4)] {
        inputs.push((
            format!("gen-example ast --variant {variant} --size {size} --seed {seed}"),
            treefuse_casegen::generate_string("ast", variant, size, seed).unwrap(),
        ));
    }
    let hand = std::fs::read_to_string(format!("{root}/program.json")).unwrap();
    inputs.push(("examples/ast/program.json".to_string(), hand));
    same_fusion_and_visits(&walked, &spelled, "optimize", &inputs);
}
