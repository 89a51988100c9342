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

/// Refusals about loops over one list are checked too, not skipped: the
/// two kinds the checker reads (loops that cannot interleave, calls on the
/// element kept apart by a statement between them) are confirmed as the
/// fuser writes them, and flagged once their dependence is misquoted.
#[test]
fn loop_refusals_are_checked() {
    let src = "global M: {i64: i64} = {};
global N: {i64: i64} = {};
tree E {
    id: i64;
    k: i64;
    v: i64;
    t: i64;
    child kids: [E];
    traversal a() {
        for c in self.kids { c.a(); }
        for c in self.kids { if c.k == 1 { M[c.id] = 1; } }
    }
    traversal b() {
        for c in self.kids { c.b(); }
        for c in self.kids { if c.k == 2 { N[c.id] = 1; } }
    }
    traversal f() { self.v = self.v + 1; for c in self.kids { c.f(); } }
    traversal g() { for c in self.kids { self.t = self.t + c.v; c.g(); } self.v = self.v * 2; }
}
fuse go(root: E) { root.a(); root.b(); }
fuse element(root: E) { root.f(); root.g(); }
";
    let program =
        treefuse::compile_source("loops.tf", src).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let analysis = treefuse_analysis::Analysis::new(&program.model);
    let fused = treefuse_fusion::fuse_program(&program.model, &analysis, &FusionOptions::default());
    let check = |fused: &treefuse_fusion::FusedProgram| {
        treefuse_fusion::unconfirmed_explanations(&program.model, &analysis, fused)
    };
    assert_eq!(check(&fused), Vec::<String>::new());
    let reasons: Vec<(usize, usize, String)> = fused
        .functions
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            f.blocked
                .iter()
                .enumerate()
                .map(move |(k, b)| (i, k, b.reason.clone()))
        })
        .collect();
    let find = |needle: &str| {
        reasons
            .iter()
            .find(|(_, _, r)| r.contains(needle))
            .unwrap_or_else(|| panic!("no refusal with {needle:?} in {reasons:#?}"))
            .clone()
    };
    // Each misquoted claim is flagged.
    let interleave = find("on another element (write/write conflict on global:M)");
    let across = find("of them cannot interleave");
    let element = find("depends on the earlier call and the later call depends on it");
    for ((i, k, reason), wrong) in [
        (
            interleave.clone(),
            interleave.2.replace("global:M)", "global:N)"),
        ),
        (across.clone(), across.2.replace("global:M)", "global:N)")),
        (
            element.clone(),
            element.2.replace("statement 1 ", "statement 2 "),
        ),
    ] {
        assert_ne!(reason, wrong, "the test changes the claim");
        let mut tampered = fused.clone();
        tampered.functions[i].blocked[k].reason = wrong.clone();
        assert!(
            !check(&tampered).is_empty(),
            "a misquoted refusal passes the check: {wrong}"
        );
    }
}
