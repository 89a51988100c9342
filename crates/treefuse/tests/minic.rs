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
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/minic/minic.tf");
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
    // 15 passes; propagate + fold run three rounds (README: "The small program").
    assert_eq!(visits, 1142, "unfused node visits on program.json");
    for options in cutoffs() {
        let fused = program.fuse_all(&options);
        let (got, visits) = run(&program, &input, Engine::Fused(&fused));
        assert_eq!(got, expected, "fused run of program.json with {options:?}");
        if options == FusionOptions::default() {
            assert_eq!(visits, 595, "fused node visits on program.json");
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
