//! The diagnostic codes the parser and checker can emit, found by reading
//! their sources, so that tests which must cover every code (the
//! diagnostics cases, the book's error index) notice a new code without
//! anyone updating a list.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The diagnostic codes used in the `.rs` files of `dir`: every string
/// literal of lowercase words joined by `-` (such as `"unknown-type"`; no
/// other literal of the front end has that shape), however it reaches
/// `Diagnostic::error`. Sub-directories are scanned too.
pub fn codes_in_source(dir: &Path, codes: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            codes_in_source(&path, codes);
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices('"') {
            let rest = &text[at + 1..];
            let Some(len) = rest.find(|c: char| !(c.is_ascii_lowercase() || c == '-')) else {
                continue;
            };
            if !rest[len..].starts_with('"') {
                continue;
            }
            let literal = &rest[..len];
            let words: Vec<&str> = literal.split('-').collect();
            if words.len() > 1
                && words
                    .iter()
                    .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
            {
                codes.insert(literal.to_string());
            }
        }
    }
}

/// Every code used in `crates/syntax/src` and `crates/sema/src`, plus
/// `syntax`.
pub fn emitted_codes() -> BTreeSet<String> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut emitted = BTreeSet::new();
    codes_in_source(&crates.join("syntax/src"), &mut emitted);
    codes_in_source(&crates.join("sema/src"), &mut emitted);
    emitted.insert("syntax".to_string());
    assert!(
        emitted.len() > 40,
        "code scan found too little: {emitted:?}"
    );
    emitted
}
