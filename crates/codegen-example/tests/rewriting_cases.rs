//! The hand-computed rewriting cases of the interpreter's tests
//! (`crates/treefuse/tests/rewriting/NAME.tf` with `NAME.in.json` and
//! either `NAME.out.json` + `NAME.visits` or `NAME.err`, LANGUAGE.md
//! §7.1–7.3), compiled to Rust one module each by `build.rs`: the
//! generated code, unfused and fused, must give the expected output (and
//! the unfused visit count), or fail with the expected message; and it
//! must agree exactly with the interpreter (unfused with unfused, fused
//! with fused): output, visits, error message and `line:col`.

use std::fs;
use treefuse::{Engine, FusionOptions, Host, RunError};
use treefuse_codegen_example as g;
use treefuse_runtime::write_tree;

#[test]
fn every_rewriting_case_runs_as_computed_by_hand_in_generated_code() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../treefuse/tests/rewriting");
    assert!(g::rewriting::CASES.len() >= 9, "cases are missing");
    let mut failures = Vec::new();
    for case in g::rewriting::CASES {
        let name = case.name;
        let read = |ext: &str| fs::read_to_string(format!("{dir}/{name}.{ext}")).ok();
        let input = read("in.json").unwrap_or_else(|| panic!("{name}: no input tree"));
        let expected_out: Option<serde_json::Value> = read("out.json")
            .map(|t| serde_json::from_str(&t).unwrap_or_else(|e| panic!("{name}.out.json: {e}")));
        let expected_err = read("err");
        let expected_visits: Option<u64> = read("visits").map(|v| v.trim().parse().unwrap());
        let program = treefuse::compile_source(&format!("{name}.tf"), case.source)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let fused = program.fuse_all(&FusionOptions::default());
        let tree = program.read_tree("main", &input).unwrap();
        for (engine, is_fused) in [(Engine::Unfused, false), (Engine::Fused(&fused), true)] {
            let what = format!("{name} ({})", if is_fused { "fused" } else { "unfused" });
            let mut t = tree.clone();
            let interp =
                match program.run_tree_with("main", &mut t, Vec::new(), &Host::new(), engine) {
                    Ok((stats, globals)) => Ok((
                        write_tree(&program.model, &t, Some(&globals), Default::default()),
                        stats.node_visits,
                    )),
                    Err(RunError::Runtime(m)) => Err(m),
                    Err(e) => panic!("{what}: {e}"),
                };
            let generated = (case.run)(&program.model, "main", is_fused, &tree, &[])
                .expect("the fuse item exists");
            // Against the expected result.
            match (&generated, &expected_out, &expected_err) {
                (Ok((json, visits)), Some(want), _) => {
                    let got: serde_json::Value = serde_json::from_str(json).unwrap();
                    if &got != want {
                        failures.push(format!("{what}: got {got}\nwant {want}"));
                    }
                    if let (false, Some(v)) = (is_fused, expected_visits) {
                        if *visits != v {
                            failures.push(format!("{what}: {visits} visits, expected {v}"));
                        }
                    }
                }
                (Err(e), _, Some(err)) if e.contains(err.trim()) => {}
                (r, _, _) => failures.push(format!("{what}: unexpected result {r:?}")),
            }
            // Against the interpreter, errors to the position.
            match (&interp, &generated) {
                (Ok(a), Ok(b)) if a == b => {}
                (Err(a), Err(b))
                    if g::error_position_and_message(a) == g::error_position_and_message(b) => {}
                _ => failures.push(format!(
                    "{what}: generated {generated:?}\ninterpreter {interp:?}"
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
