//! Shrinking a [`Mismatch`] to a small reproducer.
//!
//! The tree is shrunk first (smaller node budgets, many seeds), then the
//! program, line by line: `fuse` calls, statements, whole `if` and `for`
//! statements, unwrapped `if`s, traversal overrides. A candidate is kept
//! when it still compiles and still shows a mismatch on the current tree
//! (any mismatch: each one is a bug). Then the tree is shrunk again for the
//! smaller program. Generated programs put one statement per line; lines
//! marked `// keep` guard termination and are never deleted on their own.

use crate::{check_tree, tree_options, Mismatch, MismatchKind};
use std::time::{Duration, Instant};
use treefuse_runtime::random_tree;

/// Whether `src` with `tree_json` still mismatches; the new mismatch.
fn still(src: &str, fuse: &str, tree_json: &str) -> Option<Mismatch> {
    match check_tree(src, fuse, tree_json) {
        Err(m) if m.kind != MismatchKind::Compile && !m.difference.starts_with("bad tree") => {
            Some(m)
        }
        _ => None,
    }
}

/// Tries ever larger random trees for `src` until one shows a mismatch.
fn smallest_tree(m: &Mismatch, deadline: Instant) -> Option<Mismatch> {
    let prep = crate::prepare(&m.source).ok()?;
    let f = prep.program.model.fuse_named(&m.fuse)?;
    let current = m.tree_json.len();
    for nodes in [1usize, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64] {
        for seed in 0..40u64 {
            if Instant::now() > deadline {
                return None;
            }
            let Ok(tree) =
                random_tree(&prep.program.model, f.root_type, &tree_options(nodes, seed))
            else {
                return None;
            };
            let json =
                treefuse_runtime::write_tree(&prep.program.model, &tree, None, Default::default());
            if json.len() >= current {
                continue;
            }
            if let Some(found) = still(&m.source, &m.fuse, &json) {
                return Some(found);
            }
        }
    }
    None
}

fn net_braces(line: &str) -> i32 {
    let code = line.split("//").next().unwrap_or("");
    code.matches('{').count() as i32 - code.matches('}').count() as i32
}

/// The line closing the block opened on line `i` (`None` if it opens none).
fn block_end(lines: &[String], i: usize) -> Option<usize> {
    if net_braces(&lines[i]) <= 0 {
        return None;
    }
    let mut depth = 0;
    for (j, l) in lines.iter().enumerate().skip(i) {
        depth += net_braces(l);
        if depth == 0 {
            return Some(j);
        }
    }
    None
}

/// Candidate edits of the program, biggest first within each kind.
fn candidates(lines: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let keep = |l: &String| l.contains("// keep");
    // Whole blocks (traversals, if, for) and single statements.
    for i in 0..lines.len() {
        let t = lines[i].trim();
        // Items go too (records, globals, pure functions, types, `fuse`
        // items): a deletion that breaks the program or the tree is
        // simply rejected.
        if t == "}" || t.starts_with("} else") {
            continue;
        }
        if let Some(j) = block_end(lines, i) {
            let mut v = lines[..i].to_vec();
            v.extend_from_slice(&lines[j + 1..]);
            out.push(v);
            // Unwrap an `if` without `else`: keep its body.
            if t.starts_with("if ")
                && !keep(&lines[i])
                && !lines[i + 1..j]
                    .iter()
                    .any(|l| l.trim().starts_with("} else"))
            {
                let mut v = lines[..i].to_vec();
                v.extend_from_slice(&lines[i + 1..j]);
                v.extend_from_slice(&lines[j + 1..]);
                out.push(v);
            }
        } else if t.ends_with(';') || t.ends_with('}') {
            if keep(&lines[i]) {
                continue;
            }
            let mut v = lines[..i].to_vec();
            v.extend_from_slice(&lines[i + 1..]);
            out.push(v);
        }
    }
    out
}

/// Shrinks the program and tree of `m` while a mismatch persists, for at
/// most `budget`. Returns the smallest mismatch found (`m` itself when
/// nothing smaller reproduces).
pub fn minimize(m: &Mismatch, budget: Duration) -> Mismatch {
    if m.kind == MismatchKind::Compile || m.tree_json.is_empty() {
        return m.clone();
    }
    minimize_with(m, budget, true, still)
}

/// [`minimize`] with another test of "still failing" (program, `fuse`
/// item, tree JSON); `trees` enables shrinking the tree.
pub fn minimize_with(
    m: &Mismatch,
    budget: Duration,
    trees: bool,
    still: impl Fn(&str, &str, &str) -> Option<Mismatch>,
) -> Mismatch {
    let deadline = Instant::now() + budget;
    let mut best = m.clone();
    // The saved tree must reproduce on its own.
    if let Some(again) = still(&best.source, &best.fuse, &best.tree_json) {
        best = again;
    } else {
        return best;
    }
    for _round in 0..3 {
        let before = (best.source.len(), best.tree_json.len());
        if trees {
            if let Some(smaller) = smallest_tree(&best, deadline) {
                best = smaller;
            }
        }
        // Source reduction, to a fixed point.
        let mut lines: Vec<String> = best.source.lines().map(str::to_string).collect();
        let mut progress = true;
        while progress && Instant::now() < deadline {
            progress = false;
            for cand in candidates(&lines) {
                if Instant::now() > deadline {
                    break;
                }
                let src = cand.join("\n") + "\n";
                if let Some(found) = still(&src, &best.fuse, &best.tree_json) {
                    best = found;
                    lines = cand;
                    progress = true;
                    break;
                }
            }
        }
        if (best.source.len(), best.tree_json.len()) == before || Instant::now() > deadline {
            break;
        }
    }
    best
}
