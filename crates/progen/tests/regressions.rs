//! Every mismatch the fuzzer ever found, as a program (`NAME.tf`) and an
//! input tree (`NAME.json`) in `tests/regressions/`. Each `fuse` item
//! whose root type accepts the tree is run unfused and fused.
//!
//! A case whose bug is still open goes in [`OPEN`] (skipped by the
//! directory test) with its own `#[ignore]`d test that fails until the
//! fusion engine is fixed; then it leaves [`OPEN`] and is un-ignored.

use std::path::{Path, PathBuf};

/// Regression cases (file stems) whose bug is not fixed yet.
const OPEN: &[&str] = &[];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions")
}

/// Checks one case; returns the number of (`fuse` item, tree) pairs run.
fn check_case(tf: &Path) -> usize {
    let src = std::fs::read_to_string(tf).unwrap();
    let json = std::fs::read_to_string(tf.with_extension("json")).unwrap();
    let program = treefuse::compile_source("p.tf", &src).unwrap();
    let mut n = 0;
    for f in &program.model.fuses {
        if program.read_tree(&f.name, &json).is_err() {
            continue;
        }
        if let Err(m) = treefuse_progen::check_tree(&src, &f.name, &json) {
            panic!("{}: {m}", tf.display());
        }
        n += 1;
    }
    assert!(n > 0, "{}: no fuse item accepts the tree", tf.display());
    n
}

#[test]
fn fixed_regressions_stay_fixed() {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir())
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    let mut n = 0;
    for tf in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tf"))
    {
        let stem = tf.file_stem().unwrap().to_string_lossy();
        if OPEN.contains(&stem.as_ref()) {
            continue;
        }
        n += check_case(tf);
    }
    eprintln!("{n} regression pairs");
    assert!(n >= 3);
}

/// Loop fusion merged two loops over the same list child of one
/// traversal although the second may `return`: the first loop's calls on
/// the later elements never ran. Fixed in 81bf41b.
#[test]
fn loop_return_after_loop() {
    check_case(&dir().join("loop_return_after_loop.tf"));
}

/// The fuzzer's own minimized reproducer of the same bug.
#[test]
fn fuzz_seed_1000710() {
    check_case(&dir().join("fuzz_seed_1000710.tf"));
}

/// The same bug with data writes only: no traversing call is involved.
#[test]
fn loop_return_no_calls() {
    check_case(&dir().join("loop_return_no_calls.tf"));
}
