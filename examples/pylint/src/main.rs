//! The `treefuse-pylint` command: finds the files, lints them in
//! parallel with the library's `check_file`, prints what it found.

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use rayon::prelude::*;

use treefuse_pylint::check::{self, CheckError, Engine, FileReport};
use treefuse_pylint::report;

/// Lint Python files with fifteen rules written as treefuse passes and
/// fused into one walk over each file's syntax tree.
///
/// Prints `path:line:col: CODE message` for every finding, sorted by file
/// and position, like `ruff check --output-format concise`; exits with 1
/// when there are findings (a syntax error is one), 0 when
/// there are none, 2 when a path does not exist. A file that is not UTF-8
/// text is skipped with a warning, as ruff does; `# noqa` comments
/// suppress findings as in ruff.
#[derive(Parser)]
#[command(name = "treefuse-pylint", version)]
struct Cli {
    /// Files and directories to lint (directories: every `.py` and `.pyi`
    /// file below them, hidden directories skipped). Default: the current
    /// directory.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Concise)]
    format: Format,
    /// Only report these rule codes (comma separated, e.g. `E711,F541`);
    /// all rules still run.
    #[arg(long, value_delimiter = ',')]
    select: Vec<String>,
    /// Run the rules fused into one walk (the default) or one walk per rule.
    #[arg(long, value_enum, default_value_t = Engine::Fused)]
    engine: Engine,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the time spent parsing, building trees and linting (summed
    /// over files, and wall time), the files, nodes and diagnostics, as
    /// one JSON object on standard error.
    #[arg(long)]
    stats: bool,
    /// Count node visits (adds `node_visits` to `--stats`; the counting
    /// entry points are slightly slower).
    #[arg(long)]
    count_visits: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// `path:line:col: CODE message`, one per line.
    Concise,
    /// One JSON array of `{code, message, filename, location: {row, column}}`.
    Json,
}

/// Stack for each worker: the parser and the copy into the generated tree
/// recurse as deep as the source nests.
const WORKER_STACK: usize = 64 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let wall = Instant::now();
    if let Some(unknown) = cli
        .select
        .iter()
        .find(|c| !check::RULES.contains(&c.as_str()))
    {
        eprintln!(
            "treefuse-pylint: unknown rule code `{unknown}` in --select (the rules: {})",
            check::RULES.join(", ")
        );
        return ExitCode::from(2);
    }
    let roots = if cli.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        cli.paths.clone()
    };
    let files = match check::collect_files(&roots) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("treefuse-pylint: {e}");
            return ExitCode::from(2);
        }
    };
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK);
    if let Some(n) = cli.threads {
        pool = pool.num_threads(n.max(1));
    }
    let pool = match pool.build() {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("treefuse-pylint: cannot start worker threads: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = report::progress_bar(files.len());
    let options = check::Options {
        engine: cli.engine,
        count_visits: cli.count_visits,
    };
    let reports: Vec<Result<FileReport, CheckError>> = pool.install(|| {
        files
            .par_iter()
            .map(|path| {
                let r = check::check_file(path, &options);
                progress.inc(1);
                r
            })
            .collect()
    });
    progress.finish_and_clear();

    let mut failed = false;
    let mut ok = Vec::with_capacity(reports.len());
    for r in reports {
        match r {
            Ok(report) => ok.push(report),
            // As ruff: a file that is not UTF-8 text is skipped with a warning.
            Err(CheckError::Unreadable(e)) => eprintln!("warning: Failed to lint {e}"),
            Err(CheckError::Internal(e)) => {
                eprintln!("treefuse-pylint: internal error: {e}");
                failed = true;
            }
        }
    }
    let diagnostics = report::collect(&ok, &cli.select);
    let out = match cli.format {
        Format::Concise => report::concise(&diagnostics),
        Format::Json => report::json(&diagnostics),
    };
    print!("{out}");
    if cli.stats {
        eprintln!(
            "{}",
            report::stats(&ok, diagnostics.len(), wall.elapsed(), cli.count_visits)
        );
    }
    if failed {
        ExitCode::from(2)
    } else if diagnostics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
