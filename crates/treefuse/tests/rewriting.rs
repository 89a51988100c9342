//! Data-driven cases of rewriting in place (LANGUAGE.md §7.1–7.3), run by
//! every engine of the interpreter: unfused, and fused under several
//! cut-offs.
//!
//! `tests/rewriting/NAME.tf` is a program whose `fuse` item is `main`;
//! `NAME.in.json` its input tree. The expected result, computed by hand, is
//! either `NAME.out.json` (the output tree with `"globals"`, compared as
//! JSON values) with `NAME.visits` (the unfused visit count), or
//! `NAME.err` (text the runtime error message must contain). Every engine
//! must produce exactly that.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use treefuse::Host;
use treefuse::{compile_source, Engine, FusionOptions};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rewriting");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "tf"))
        .collect();
    files.sort();
    files
}

/// The cut-offs every case is fused under.
fn cutoffs() -> Vec<FusionOptions> {
    [(1, 1), (2, 1), (8, 2), (64, 4)]
        .into_iter()
        .map(|(max_group, max_repeat)| FusionOptions {
            max_group,
            max_repeat,
        })
        .collect()
}

#[test]
fn every_case_runs_as_computed_by_hand_in_every_engine() {
    let files = cases();
    assert!(files.len() >= 5, "cases are missing");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = fs::read_to_string(path).unwrap();
        let input = fs::read_to_string(path.with_extension("in.json"))
            .unwrap_or_else(|e| panic!("{name}: no input tree: {e}"));
        let expected_out = fs::read_to_string(path.with_extension("out.json")).ok();
        let expected_err = fs::read_to_string(path.with_extension("err")).ok();
        let expected_visits: Option<u64> = fs::read_to_string(path.with_extension("visits"))
            .ok()
            .map(|v| v.trim().parse().expect("visits is a number"));
        let program = compile_source(&format!("{name}.tf"), &source)
            .unwrap_or_else(|d| panic!("{name} does not compile:\n{d}"));
        let mut engines: Vec<(String, Option<treefuse::FusedProgram>)> =
            vec![("unfused".into(), None)];
        for c in cutoffs() {
            engines.push((
                format!("fused {}/{}", c.max_group, c.max_repeat),
                Some(program.fuse_all(&c)),
            ));
        }
        for (engine_name, fused) in &engines {
            let mut tree = program.read_tree("main", &input).unwrap();
            let engine = match fused {
                Some(f) => Engine::Fused(f),
                None => Engine::Unfused,
            };
            let result = program.run_tree_with("main", &mut tree, Vec::new(), &Host::new(), engine);
            match (&result, &expected_out, &expected_err) {
                (Ok((stats, globals)), Some(out), _) => {
                    let got = treefuse_runtime::write_tree(
                        &program.model,
                        &tree,
                        Some(globals),
                        Default::default(),
                    );
                    let got: serde_json::Value = serde_json::from_str(&got).unwrap();
                    let want: serde_json::Value = serde_json::from_str(out)
                        .unwrap_or_else(|e| panic!("{name}.out.json: {e}"));
                    if got != want {
                        failures.push(format!("{name} ({engine_name}): got {got}\nwant {want}"));
                    }
                    if fused.is_none() {
                        if let Some(v) = expected_visits {
                            if stats.node_visits != v {
                                failures.push(format!(
                                    "{name}: {} visits unfused, expected {v}",
                                    stats.node_visits
                                ));
                            }
                        }
                    }
                }
                (Err(e), _, Some(err)) if e.to_string().contains(err.trim()) => {}
                (Err(e), _, _) => failures.push(format!("{name} ({engine_name}): error {e}")),
                (Ok(_), None, _) => failures.push(format!(
                    "{name} ({engine_name}): ran, but an error was expected"
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The toy language with blog-style rules (`toylang_rewrite.tf`: each
/// node replaces itself) gives the same results as `toylang.tf` (parents
/// move subtrees up), on the blog's example and on random programs, in
/// every engine.
#[test]
fn toylang_rules_that_replace_themselves_match_the_slot_rewrites() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/toylang/");
    let slots = treefuse::compile_file(format!("{root}toylang.tf")).unwrap();
    let selfs = treefuse::compile_file(format!("{root}toylang_rewrite.tf")).unwrap();
    let fused: Vec<_> = cutoffs().iter().map(|c| selfs.fuse_all(c)).collect();
    let mut inputs = vec![fs::read_to_string(format!("{root}program.json")).unwrap()];
    for seed in 0..12 {
        inputs.push(treefuse_casegen::generate_string("toylang", 1, 120, seed).unwrap());
    }
    let host = Host::new();
    let output = |p: &treefuse::Program, json: &str, engine: Engine| {
        let mut tree = p.read_tree("simplify", json).unwrap();
        let (stats, _) = p
            .run_tree_with("simplify", &mut tree, Vec::new(), &host, engine)
            .unwrap_or_else(|e| panic!("{e}"));
        (
            treefuse_runtime::write_tree(&p.model, &tree, None, Default::default()),
            stats.node_visits,
        )
    };
    for (i, json) in inputs.iter().enumerate() {
        let (want, _) = output(&slots, json, Engine::Unfused);
        let (got, visits) = output(&selfs, json, Engine::Unfused);
        assert_eq!(got, want, "input {i}, unfused");
        if i == 0 {
            // The blog's example: 5; 10 / 2 (see examples/toylang/README.md).
            // dce 11 visits, constant_division 8, remove_redundant_let 7.
            assert_eq!(visits, 26, "visits of toylang_rewrite.tf on program.json");
        }
        for f in &fused {
            let (got, _) = output(&selfs, json, Engine::Fused(f));
            assert_eq!(got, want, "input {i}, fused");
        }
    }
}

/// `examples/rewriting/cleanup.tf`: dead-statement removal, block
/// flattening and declaration insertion over statement lists, on the
/// example's tree (result checked by hand, see the program's comments) in
/// every engine, and fused ≡ unfused on random trees.
#[test]
fn statement_list_cleanup_example() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rewriting/");
    let program = treefuse::compile_file(format!("{root}cleanup.tf")).unwrap();
    let input = fs::read_to_string(format!("{root}cleanup.json")).unwrap();
    let want: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(format!("{root}cleanup.out.json")).unwrap())
            .unwrap();
    let mut engines = vec![(None, 73)];
    for c in cutoffs() {
        let visits = if c == FusionOptions::default() { 63 } else { 0 };
        engines.push((Some(program.fuse_all(&c)), visits));
    }
    for (fused, want_visits) in &engines {
        let mut tree = program.read_tree("cleanup", &input).unwrap();
        let engine = match fused {
            Some(f) => Engine::Fused(f),
            None => Engine::Unfused,
        };
        let (stats, globals) = program
            .run_tree_with("cleanup", &mut tree, Vec::new(), &Host::new(), engine)
            .unwrap();
        let got =
            treefuse_runtime::write_tree(&program.model, &tree, Some(&globals), Default::default());
        let got: serde_json::Value = serde_json::from_str(&got).unwrap();
        assert_eq!(got, want, "fused: {}", fused.is_some());
        if *want_visits > 0 {
            assert_eq!(
                stats.node_visits,
                *want_visits,
                "fused: {}",
                fused.is_some()
            );
        }
    }
    support::differential::compare_on_random_trees(&program, "cleanup", 40);
}

/// A pass that replaces nodes and the pass after it fuse completely
/// (`tests/rewriting/resume.tf`): where `subst` replaced a node (a `Var`
/// by a literal, a `Pair` in the list by a thicket), the fused call runs
/// `fold` on the replacement when `subst` is done, and the loop over the
/// list walks each element's region. 25 visits unfused; fused, one per
/// node plus one per replacement node (17).
#[test]
fn a_replacing_pass_fuses_with_the_pass_after_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rewriting");
    let src = fs::read_to_string(dir.join("resume.tf")).unwrap();
    let program = compile_source("resume.tf", &src).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(report.contains("0 call pairs left unmerged"), "{report}");
    let input = fs::read_to_string(dir.join("resume.in.json")).unwrap();
    let mut tree = program.read_tree("main", &input).unwrap();
    let (stats, _) = program
        .run_tree_with(
            "main",
            &mut tree,
            Vec::new(),
            &Host::new(),
            Engine::Fused(&fused),
        )
        .unwrap();
    assert_eq!(stats.node_visits, 17);
    let (unfused, fused_visits) =
        support::differential::compare_on_random_trees(&program, "main", 60);
    assert!(
        fused_visits < unfused,
        "{fused_visits} fused visits, {unfused} unfused"
    );
}

/// A pass that replaces a node only after its children (post-order) keeps
/// the pass after it out of its children's fused calls: the later pass
/// must see the replacement, and the report says so.
#[test]
fn a_post_order_replacement_keeps_the_later_pass_after_it() {
    let src = r#"
tree P {
    child e: E;
    traversal fold() { self.e.fold(); }
    traversal mark() { self.e.mark(); }
}
abstract tree E { traversal fold() {} traversal mark() {} }
tree Lit : E { v: i64; traversal mark() { self.v = self.v + 100; } }
tree Add : E {
    child l: E;
    child r: E;
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Lit && self.r is Lit {
            self = new Lit { v: (self.l as Lit).v + (self.r as Lit).v };
        }
    }
    traversal mark() { self.l.mark(); self.r.mark(); }
}
fuse main(root: P) { root.fold(); root.mark(); }
"#;
    let program = compile_source("post.tf", src).unwrap_or_else(|d| panic!("{d}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let report = treefuse_fusion::report::text_report(&program.model, &fused, &program.source);
    assert!(
        report.contains("fused call on `e`: p0 self.e.fold(); p1 self.e.mark()")
            && report.contains("not merged: 13:9 `self.l.fold()` and 19:24 `self.l.mark()`"),
        "{report}"
    );
    let mut tree = program
        .read_tree(
            "main",
            r#"{"type":"P","e":{"type":"Add","l":{"type":"Add","l":{"type":"Lit","v":1},"r":{"type":"Lit","v":2}},"r":{"type":"Lit","v":4}}}"#,
        )
        .unwrap();
    program
        .run_tree_with(
            "main",
            &mut tree,
            Vec::new(),
            &Host::new(),
            Engine::Fused(&fused),
        )
        .unwrap();
    let out = treefuse_runtime::write_tree(&program.model, &tree, None, Default::default());
    assert_eq!(out, r#"{"type":"P","e":{"type":"Lit","v":107}}"#);
    support::differential::compare_on_random_trees(&program, "main", 60);
}
