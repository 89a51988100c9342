//! Hand-computed cases for the data constructs of LANGUAGE.md §7.4–7.6
//! (`programs/data_cases.json` on `programs/data.tf`): every case runs in
//! the interpreter (unfused and fused) and in the generated code (unfused
//! and fused); each must give the expected field values, or fail with the
//! expected message at the expected `line:col`.

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
fn data_cases() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/programs");
    let program =
        treefuse::compile_file(format!("{dir}/data.tf")).unwrap_or_else(|e| panic!("{e}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let schema = g::data::schema();
    let text = std::fs::read_to_string(format!("{dir}/data_cases.json")).expect("read the cases");
    let cases: Vec<Json> = serde_json::from_str(&text).expect("the cases are JSON");
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let mut input = case["in"].clone();
        input["type"] = Json::from("Case");
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
            let r = g::data::run_by_name(&schema, "run", is_fused, &tree, &[])
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

/// Map and enum values in JSON: a repeated map key, an unknown variant and
/// a malformed pair are input errors that name the JSON path.
#[test]
fn data_input_errors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/programs");
    let program =
        treefuse::compile_file(format!("{dir}/data.tf")).unwrap_or_else(|e| panic!("{e}"));
    for (input, expected) in [
        (
            r#"{"type": "Case", "m": [["a", 1], ["b", 2], ["a", 3]]}"#,
            "$.m[2][0]: repeated key in the map",
        ),
        (
            r#"{"type": "Case", "e": "Div"}"#,
            "$.e: unknown variant `Div` of enum `Op`",
        ),
        (
            r#"{"type": "Case", "m": [["a"]]}"#,
            "$.m[0]: expected a `[key, value]` pair of the map, found an array",
        ),
        (
            r#"{"type": "Case", "m": [[1, 2]]}"#,
            "$.m[0][0]: expected str, found a number",
        ),
    ] {
        let err = program
            .read_tree("run", input)
            .expect_err(input)
            .to_string();
        assert!(err.contains(expected), "{input}: {err}");
    }
}
