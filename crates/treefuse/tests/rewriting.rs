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
        let visits = if c == FusionOptions::default() { 65 } else { 0 };
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
