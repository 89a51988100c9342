//! Linting one file: read, parse, copy into the generated tree, run the
//! fused rules, and turn the rules' findings into positioned diagnostics.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::ValueEnum;
use ruff_python_ast::PySourceType;
use ruff_source_file::LineIndex;
use ruff_text_size::TextSize;

use crate::lint::{self, Diag, Globals};
use crate::noqa::Suppressions;
use crate::{host, lower};

/// How the rules run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// All rules in one fused walk.
    Fused,
    /// One walk per rule, in the order of the `fuse lint` item.
    Unfused,
}

/// What `check_file` does besides linting.
pub struct Options {
    pub engine: Engine,
    pub count_visits: bool,
}

/// One finding, positioned as ruff positions it: line and column from 1,
/// the column counted in characters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub line: usize,
    pub col: usize,
    pub code: &'static str,
    pub message: String,
}

/// A linted file: its diagnostics and where the time went.
pub struct FileReport {
    pub path: String,
    pub diagnostics: Vec<Diagnostic>,
    pub parse: Duration,
    pub build: Duration,
    pub lint: Duration,
    pub nodes: usize,
    pub visits: u64,
}

/// The codes of the rules, in the order of `fuse lint`.
pub const RULES: [&str; 15] = [
    "E711", "E712", "E722", "E731", "E741", "F541", "F631", "F632", "B006", "B011", "PLR0911",
    "PLR0912", "PLR0915", "C901", "F841",
];

/// The rules' findings by code: each rule appends to the global named by
/// its code (see `lint/rules/`). One line per rule of `fuse lint`, in the
/// order of [`RULES`].
fn findings(g: &Globals) -> [(&'static str, &[Diag]); 15] {
    let lists: [&[Diag]; 15] = [
        &g.e711, &g.e712, &g.e722, &g.e731, &g.e741, &g.f541, &g.f631, &g.f632, &g.b006, &g.b011,
        &g.plr0911, &g.plr0912, &g.plr0915, &g.c901, &g.f841,
    ];
    std::array::from_fn(|i| (RULES[i], lists[i]))
}

/// The files to lint below `roots`, in path order: files named directly,
/// and every `.py` and `.pyi` file below a directory (hidden entries
/// skipped).
pub fn collect_files(roots: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for root in roots {
        let meta = std::fs::metadata(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if meta.is_dir() {
            walk_dir(root, &mut files)?;
        } else {
            files.push(root.clone());
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn walk_dir(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    // An explicit stack: directory trees can be deep.
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let kind = entry
                .file_type()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if kind.is_dir() {
                pending.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("py" | "pyi")
            ) {
                files.push(path);
            }
        }
    }
    Ok(())
}

/// Why a file was not linted.
#[derive(Debug)]
pub enum CheckError {
    /// The file cannot be read as UTF-8 text (ruff warns and goes on).
    Unreadable(String),
    /// A bug: the copy built an invalid tree, or a rule failed at run time.
    Internal(String),
}

/// The code of a syntax error, as ruff names it.
pub const SYNTAX_ERROR: &str = "invalid-syntax";

/// Lints one file. Each syntax error is an `invalid-syntax` diagnostic,
/// as in ruff, and `# noqa` comments suppress what they name.
pub fn check_file(path: &Path, options: &Options) -> Result<FileReport, CheckError> {
    let mut source = std::fs::read_to_string(path)
        .map_err(|e| CheckError::Unreadable(format!("{}: {e}", path.display())))?;
    // Lines are indexed only for a file that has something to position
    // (a diagnostic, a `noqa` comment): most files have neither.
    let lines = OnceCell::new();
    let index = |source: &str| lines.get_or_init(|| LineIndex::from_source_text(source));
    let position = |offset: i64, source: &str| {
        let offset = u32::try_from(offset).unwrap_or(0);
        let at = index(source).line_column(TextSize::new(offset), source);
        (at.line.get(), at.column.get())
    };
    let mut report = FileReport {
        path: path.display().to_string(),
        diagnostics: Vec::new(),
        parse: Duration::ZERO,
        build: Duration::ZERO,
        lint: Duration::ZERO,
        nodes: 0,
        visits: 0,
    };

    let clock = Instant::now();
    let source_type = match path.extension().and_then(|e| e.to_str()) {
        Some("pyi") => PySourceType::Stub,
        _ => PySourceType::Python,
    };
    // The parser recovers from syntax errors; as ruff does, report each
    // and lint the tree it recovered.
    let parsed = ruff_python_parser::parse_unchecked_source(&source, source_type);
    report.parse = clock.elapsed();
    let suppressions = Suppressions::from_comments(parsed.tokens(), &source, || index(&source));
    for e in parsed.errors() {
        let (line, col) = position(i64::from(e.location.start().to_u32()), &source);
        report.diagnostics.push(Diagnostic {
            line,
            col,
            code: SYNTAX_ERROR,
            message: e.error.to_string(),
        });
    }

    let clock = Instant::now();
    let mut tree = lower::lower_module(parsed.syntax(), &source, parsed.tokens().len())
        .map_err(|e| CheckError::Internal(format!("{}: building the tree: {e}", path.display())))?;
    report.build = clock.elapsed();
    report.nodes = tree.node_count();

    let clock = Instant::now();
    let mut globals = Globals::default();
    let run = host::with_source(&mut source, || {
        match (options.engine, options.count_visits) {
            (Engine::Fused, false) => lint::run_lint_fused(&mut tree, &mut globals).map(|()| 0),
            (Engine::Fused, true) => lint::run_lint_fused_counted(&mut tree, &mut globals),
            (Engine::Unfused, false) => lint::run_lint_unfused(&mut tree, &mut globals).map(|()| 0),
            (Engine::Unfused, true) => lint::run_lint_unfused_counted(&mut tree, &mut globals),
        }
    });
    report.lint = clock.elapsed();
    report.visits = run.map_err(|e| {
        CheckError::Internal(format!(
            "{}: runtime error in the rules: {e}",
            path.display()
        ))
    })?;

    for (code, diags) in findings(&globals) {
        for d in diags {
            let (line, col) = position(d.start, &source);
            if !suppressions.suppresses(line, code) {
                let message = d.message.to_string();
                report.diagnostics.push(Diagnostic {
                    line,
                    col,
                    code,
                    message,
                });
            }
        }
    }
    report.diagnostics.sort();
    Ok(report)
}
