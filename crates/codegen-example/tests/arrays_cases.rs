//! Hand-computed cases for the array built-ins, list inserts and removes
//! of LANGUAGE.md §8.5 and the pure functions over nodes of §8.8
//! (`programs/arrays_cases.json` on `programs/arrays.tf`): every case runs
//! in the interpreter (unfused and fused) and in the generated code
//! (unfused and fused); each must give the expected field values, or fail
//! with the expected message at the expected `line:col`.

use serde_json::Value as Json;
use treefuse::{Engine, FusionOptions, Host, RunError};
use treefuse_codegen_example as g;
use treefuse_runtime::write_tree;

/// `(line:col, message)` of a rendered runtime error (the context left out).
fn position_and_message(rendered: &str) -> (String, String) {
    let (at, after) = g::error_position_and_message(rendered);
    let message = after.split_once(": ").map_or(after.as_str(), |(_, m)| m);
    (at, message.to_string())
}

#[test]
fn arrays_cases() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/programs");
    let program =
        treefuse::compile_file(format!("{dir}/arrays.tf")).unwrap_or_else(|e| panic!("{e}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let schema = g::arrays::schema();
    let text = std::fs::read_to_string(format!("{dir}/arrays_cases.json")).expect("read the cases");
    let cases: Vec<Json> = serde_json::from_str(&text).expect("the cases are JSON");
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for case in &cases {
        let mut input = case["in"].clone();
        input["type"] = Json::from("Case");
        // Children the case does not give: an empty list, a `Num`.
        if input.get("items").is_none() {
            input["items"] = Json::Array(Vec::new());
        }
        if input.get("e").is_none() {
            input["e"] = serde_json::json!({"type": "Num", "v": 0});
        }
        let what = input.to_string();
        let tree = program
            .read_tree("run", &input.to_string())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut results: Vec<(&str, Result<String, String>)> = Vec::new();
        for (name, engine) in [
            ("interpreter unfused", Engine::Unfused),
            ("interpreter fused", Engine::Fused(&fused)),
        ] {
            let mut t = tree.clone();
            let r = match program.run_tree_with("run", &mut t, Vec::new(), &Host::new(), engine) {
                Ok((_, globals)) => Ok(write_tree(
                    &program.model,
                    &t,
                    Some(&globals),
                    Default::default(),
                )),
                Err(RunError::Runtime(m)) => Err(m),
                Err(e) => panic!("{what}: {name}: {e}"),
            };
            results.push((name, r));
        }
        for (name, is_fused) in [("generated unfused", false), ("generated fused", true)] {
            let r = g::arrays::run_by_name(&schema, "run", is_fused, &tree, &[])
                .expect("the fuse item exists")
                .map(|(json, _)| json)
                .map_err(|e| e.to_string());
            results.push((name, r));
        }
        for (name, r) in &results {
            match (r, case.get("out"), case.get("error")) {
                (Ok(json), Some(out), None) => {
                    let got: Json = serde_json::from_str(json).expect("engines write JSON");
                    for (key, want) in out.as_object().expect("`out` is an object") {
                        assert_eq!(&got[key], want, "{what}: {name}: field `{key}` in {json}");
                    }
                }
                (Err(m), None, Some(error)) => {
                    let (at, message) = position_and_message(m);
                    assert_eq!(message, error.as_str().unwrap_or(""), "{what}: {name}: {m}");
                    assert_eq!(at, case["at"].as_str().unwrap_or(""), "{what}: {name}: {m}");
                }
                _ => panic!("{what}: {name}: unexpected result {r:?}"),
            }
        }
    }
}
