//! Data-driven diagnostics tests.
//!
//! Every `tests/diagnostics/NAME.tf` is a program that must be rejected;
//! next to it, `NAME.stderr` holds the expected rendered diagnostics
//! (`Diagnostics::render(false)`, file name `NAME.tf`). Every
//! `tests/diagnostics/valid/NAME.tf` must check cleanly.
//!
//! Adding a case is a one-file change: write the `.tf` file and run
//!
//! ```text
//! TREEFUSE_BLESS=1 cargo test -p treefuse --test diagnostics
//! ```
//!
//! to (re)write the `.stderr` files, then review them. Besides comparing
//! outputs, the harness checks that every diagnostic code the parser and
//! checker can emit is exercised by at least one case.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics")
}

fn bless() -> bool {
    std::env::var_os("TREEFUSE_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// The `.tf` files directly in `dir`, sorted.
fn tf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "tf"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The codes (`error[CODE]`, `warning[CODE]`) of a rendered output.
fn codes_in(rendered: &str) -> impl Iterator<Item = &str> {
    rendered.lines().filter_map(|l| {
        let rest = l
            .strip_prefix("error[")
            .or_else(|| l.strip_prefix("warning["))?;
        Some(&rest[..rest.find(']')?])
    })
}

#[test]
fn rejected_programs_match_their_stderr() {
    let files = tf_files(&cases_dir());
    assert!(!files.is_empty(), "no cases in {}", cases_dir().display());
    let mut failures = Vec::new();
    let mut blessed = 0;
    for path in &files {
        let name = file_name(path);
        let source = fs::read_to_string(path).unwrap();
        let rendered = match treefuse::compile_source(&name, &source) {
            Ok(_) => {
                failures.push(format!(
                    "{name}: the program checks cleanly, but every case here must be rejected \
                     (valid programs go in valid/)"
                ));
                continue;
            }
            Err(d) => d.render(false),
        };
        let expected_path = path.with_extension("stderr");
        if bless() {
            let old = fs::read_to_string(&expected_path).ok();
            if old.as_deref() != Some(rendered.as_str()) {
                fs::write(&expected_path, &rendered).unwrap();
                blessed += 1;
            }
            continue;
        }
        match fs::read_to_string(&expected_path) {
            Ok(expected) if expected == rendered => {}
            Ok(expected) => failures.push(format!(
                "{name}: rendered diagnostics differ from {}\n--- expected\n{expected}\n--- actual\n{rendered}",
                file_name(&expected_path)
            )),
            Err(_) => failures.push(format!(
                "{name}: no {} (run with TREEFUSE_BLESS=1 to create it)\n--- actual\n{rendered}",
                file_name(&expected_path)
            )),
        }
    }
    // A `.stderr` without its `.tf` is a leftover from a renamed case.
    for entry in fs::read_dir(cases_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|x| x == "stderr") && !p.with_extension("tf").exists() {
            failures.push(format!("{}: no matching .tf file", file_name(&p)));
        }
    }
    if bless() {
        eprintln!("blessed {blessed} file(s)");
    }
    assert!(
        failures.is_empty(),
        "{} of {} case(s) failed:\n\n{}\n\nIf the new output is right, rerun with TREEFUSE_BLESS=1.",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn valid_programs_check_cleanly() {
    let files = tf_files(&cases_dir().join("valid"));
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in &files {
        let name = file_name(path);
        let source = fs::read_to_string(path).unwrap();
        if let Err(d) = treefuse::compile_source(&name, &source) {
            failures.push(d.render(false));
        }
    }
    assert!(
        failures.is_empty(),
        "valid programs were rejected:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_diagnostic_code_has_a_case() {
    let emitted = support::codes::emitted_codes();

    let mut covered = BTreeSet::new();
    for path in tf_files(&cases_dir()) {
        if let Ok(text) = fs::read_to_string(path.with_extension("stderr")) {
            covered.extend(codes_in(&text).map(String::from));
        }
    }
    let missing: Vec<&String> = emitted.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "diagnostic codes without a failing-program case: {missing:?}"
    );
}
