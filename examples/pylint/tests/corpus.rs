//! The linter on the committed corpus (`corpus/*.py`, files written to
//! exercise every rule's edge cases) prints exactly what ruff printed on
//! it (`corpus/expected.txt`, written by `scripts/compare_ruff.py
//! --update-corpus`), fused and unfused alike, and the fused run visits
//! each node once.

use std::path::Path;
use std::process::Command;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the linter in the crate's directory; returns (stdout, stderr, status).
fn lint(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_treefuse-pylint"))
        .args(args)
        .current_dir(crate_dir())
        .output()
        .expect("run treefuse-pylint");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8 output");
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

fn expected() -> String {
    let text = std::fs::read_to_string(crate_dir().join("corpus/expected.txt"))
        .expect("corpus/expected.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn corpus_matches_ruff() {
    let (out, err, status) = lint(&["corpus"]);
    assert_eq!(out, expected(), "stderr: {err}");
    assert_eq!(status, 1, "findings give status 1");
}

#[test]
fn unfused_rules_find_the_same() {
    let (out, _, _) = lint(&["--engine", "unfused", "corpus"]);
    assert_eq!(out, expected());
}

/// Every rule is its own traversal, walking the whole tree when run alone;
/// fused, they share one walk: one visit per node, at most 1.2 / (number
/// of rules) of the unfused visits (the bound).
#[test]
fn fused_rules_share_one_walk() {
    let stats = |engine: &str| -> serde_json::Value {
        let (_, err, _) = lint(&["--engine", engine, "--stats", "--count-visits", "corpus"]);
        serde_json::from_str(err.lines().last().expect("a stats line")).expect("stats JSON")
    };
    let fused = stats("fused");
    let unfused = stats("unfused");
    let nodes = fused["nodes"].as_u64().expect("nodes");
    assert!(nodes > 0);
    assert_eq!(fused["node_visits"].as_u64(), Some(nodes), "{fused}");
    let unfused_visits = unfused["node_visits"].as_u64().expect("visits") as f64;
    assert!(
        nodes as f64 <= 1.2 / 15.0 * unfused_visits,
        "{fused} against {unfused}"
    );
}

#[test]
fn select_filters_codes_and_json_has_ruff_keys() {
    let (out, _, _) = lint(&["--select", "E711", "--format", "json", "corpus"]);
    let items: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON array");
    assert!(!items.is_empty());
    for item in &items {
        assert_eq!(item["code"], "E711");
        assert!(item["filename"]
            .as_str()
            .is_some_and(|f| f.starts_with("corpus/")));
        assert!(item["location"]["row"].as_u64().is_some());
        assert!(item["location"]["column"].as_u64().is_some());
    }
}

#[test]
fn unknown_select_code_is_an_error() {
    let (out, err, status) = lint(&["--select", "E999", "corpus"]);
    assert_eq!((out.as_str(), status), ("", 2));
    assert!(err.contains("unknown rule code `E999`"), "{err}");
}

#[test]
fn clean_file_exits_zero_and_missing_path_exits_two() {
    let dir = std::env::temp_dir().join(format!("treefuse-pylint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let clean = dir.join("clean.py");
    std::fs::write(&clean, "x = 1\n").expect("write");
    let (out, _, status) = lint(&[clean.to_str().expect("path")]);
    assert_eq!((out.as_str(), status), ("", 0));
    let (_, err, status) = lint(&[dir.join("missing.py").to_str().expect("path")]);
    assert_eq!(status, 2);
    assert!(err.contains("missing.py"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn syntax_errors_are_reported_and_the_rest_still_runs() {
    let dir = std::env::temp_dir().join(format!("treefuse-pylint-syntax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("a_bad.py"), "def f(:\n    pass\n").expect("write");
    std::fs::write(dir.join("b_good.py"), "if x == None:\n    pass\n").expect("write");
    let (out, _, status) = lint(&[dir.to_str().expect("path")]);
    assert_eq!(status, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("a_bad.py:1:7: invalid-syntax: "), "{out}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l
                .ends_with("b_good.py:1:9: E711 Comparison to `None` should be `cond is None`")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
