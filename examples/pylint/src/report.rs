//! Printing what the rules found: ruff's concise and JSON forms, the run's
//! statistics, and the progress bar of long runs.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::check::{Diagnostic, FileReport, SYNTAX_ERROR};

/// A diagnostic with its file.
pub struct Located<'a> {
    pub path: &'a str,
    pub diagnostic: &'a Diagnostic,
}

/// Every diagnostic of `reports` whose code `select` names (all when it
/// is empty; syntax errors always), sorted by file, then position.
pub fn collect<'a>(reports: &'a [FileReport], select: &[String]) -> Vec<Located<'a>> {
    let mut all: Vec<Located> = reports
        .iter()
        .flat_map(|r| {
            r.diagnostics.iter().map(|d| Located {
                path: &r.path,
                diagnostic: d,
            })
        })
        .filter(|l| {
            select.is_empty()
                || l.diagnostic.code == SYNTAX_ERROR
                || select.iter().any(|s| s == l.diagnostic.code)
        })
        .collect();
    all.sort_by(|a, b| (a.path, a.diagnostic).cmp(&(b.path, b.diagnostic)));
    all
}

/// `path:line:col: CODE message` lines (a syntax error reads
/// `invalid-syntax: message`, as in ruff).
pub fn concise(diagnostics: &[Located]) -> String {
    let mut out = String::new();
    for l in diagnostics {
        let d = l.diagnostic;
        let sep = if d.code == SYNTAX_ERROR { ":" } else { "" };
        out.push_str(&format!(
            "{}:{}:{}: {}{sep} {}\n",
            l.path, d.line, d.col, d.code, d.message
        ));
    }
    out
}

/// The diagnostics as one JSON array, with the keys ruff's `--output-format
/// json` uses for the same facts.
pub fn json(diagnostics: &[Located]) -> String {
    let items: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|l| {
            let d = l.diagnostic;
            let code = if d.code == SYNTAX_ERROR {
                serde_json::Value::Null
            } else {
                d.code.into()
            };
            serde_json::json!({
                "code": code,
                "message": d.message,
                "filename": l.path,
                "location": { "row": d.line, "column": d.col },
            })
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into());
    out.push('\n');
    out
}

/// The `--stats` line: times summed over files (CPU time of the workers)
/// and the wall time of the whole run.
pub fn stats(reports: &[FileReport], diagnostics: usize, wall: Duration, visits: bool) -> String {
    let sum =
        |f: fn(&FileReport) -> Duration| reports.iter().map(f).sum::<Duration>().as_secs_f64();
    let mut s = serde_json::json!({
        "files": reports.len(),
        "nodes": reports.iter().map(|r| r.nodes).sum::<usize>(),
        "diagnostics": diagnostics,
        "parse_seconds": sum(|r| r.parse),
        "build_seconds": sum(|r| r.build),
        "lint_seconds": sum(|r| r.lint),
        "wall_seconds": wall.as_secs_f64(),
    });
    if visits {
        s["node_visits"] = reports.iter().map(|r| r.visits).sum::<u64>().into();
    }
    s.to_string()
}

/// A bar counting files, drawn only when standard error is a terminal and
/// the run is long enough to want one.
pub fn progress_bar(files: usize) -> ProgressBar {
    if files < 200 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(files as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}") {
        bar.set_style(style);
    }
    bar
}
