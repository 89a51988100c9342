//! Every explanation the fuser gives names a dependence the analysis
//! confirms (`treefuse_fusion::unconfirmed_explanations`): on random
//! programs under default and small cut-offs, and on the examples.

use treefuse::FusionOptions;

fn unconfirmed(name: &str, src_or_program: &treefuse::Program) -> Vec<String> {
    let analysis = treefuse_analysis::Analysis::new(&src_or_program.model);
    let mut out = Vec::new();
    for options in [
        FusionOptions::default(),
        FusionOptions {
            max_group: 2,
            max_repeat: 1,
        },
    ] {
        let fused = treefuse_fusion::fuse_program(&src_or_program.model, &analysis, &options);
        out.extend(
            treefuse_fusion::unconfirmed_explanations(&src_or_program.model, &analysis, &fused)
                .into_iter()
                .map(|e| format!("{name} ({options:?}): {e}")),
        );
    }
    out
}

#[test]
fn random_programs_explain_real_dependences() {
    let mut failures = Vec::new();
    let mut edges = 0;
    for seed in 0..150 {
        let src = treefuse_progen::generate(seed);
        let program = treefuse::compile_source("random.tf", &src)
            .unwrap_or_else(|e| panic!("seed {seed}: {}", e.render(false)));
        let fused = program.fuse_all(&FusionOptions::default());
        edges += fused
            .functions
            .iter()
            .map(|f| f.graph.edges.len())
            .sum::<usize>();
        failures.extend(unconfirmed(&format!("seed {seed}"), &program));
    }
    assert!(
        edges > 1000,
        "the programs have dependences to check ({edges})"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn examples_explain_real_dependences() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut failures = Vec::new();
    for path in [
        "minic",
        "ast/ast.tf",
        "render/render.tf",
        "figure2/figure2.tf",
        "rules",
        "passes/passes.tf",
        "fusion-rules/regroup.tf",
        "fusion-rules/split.tf",
    ] {
        let program = treefuse::compile_file(format!("{root}/{path}"))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        failures.extend(unconfirmed(path, &program));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
