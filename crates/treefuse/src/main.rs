//! The `treefuse` command-line tool.
//!
//! Exit codes: 0 success; 1 the program has errors (`check`); 2 bad usage
//! or bad input (unreadable file, malformed tree, unknown `fuse` item);
//! 3 the traversal program raised a runtime error.
//!
//! The tool never panics on its input: every output goes through one
//! writer that treats a closed pipe (`treefuse demo | head -3`) as the
//! reader having seen enough, and ends quietly with status 0, as Unix
//! filters do.

use clap::{Parser, Subcommand};

/// The tool's allocator (feature `mimalloc`, on by default): see the
/// feature's comment in Cargo.toml.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treefuse::{
    compile_file, compile_source, Engine, FusionOptions, Host, LoadError, Program, RunError,
};
use treefuse_runtime::{
    diff_globals, diff_trees, write_globals, write_tree, GenOptions, Tree, WriteOptions,
};

#[derive(Parser)]
#[command(
    name = "treefuse",
    version,
    about = "Write tree passes as small separate traversals; run them as few fused ones.",
    long_about = "Write tree passes as small separate traversals; run them as few fused ones.\n\n\
        Programs are written in the treefuse traversal language (.tf files). \
        Start with `treefuse demo`, which checks and runs a bundled example."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check and run the bundled example (the Grafter paper's Figure 2) and
    /// show what it computed.
    Demo,
    /// Check a program: print nothing and exit 0 if it is valid, print
    /// diagnostics and exit 1 otherwise.
    Check {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// Color the diagnostics.
        #[arg(long)]
        color: bool,
    },
    /// Run a `fuse` item on a JSON tree and write the resulting tree.
    ///
    /// The output is the root node object with one extra top-level key,
    /// "globals", holding the final value of every global.
    Run {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// The `fuse` item to run.
        #[arg(long)]
        fuse: String,
        /// The input tree (JSON); `-` reads standard input.
        #[arg(long)]
        tree: PathBuf,
        /// Write the result here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print one JSON object with run statistics as the last line of
        /// standard error.
        #[arg(long)]
        stats: bool,
        /// Print on standard error where the visits went: per fused
        /// function (numbered as in `treefuse fuse` with the same cut-offs)
        /// and per traversal body, most visits first, then where the three
        /// costliest fused functions are called and what kept calls apart
        /// there (before the --stats line).
        #[arg(long)]
        profile: bool,
        /// A value for an extra parameter of the `fuse` item, as NAME=VALUE
        /// (VALUE in JSON; bare text is accepted for `str`).
        #[arg(long = "arg", value_name = "NAME=VALUE")]
        args: Vec<String>,
        /// Indent the output (grows with depth squared; for small trees).
        #[arg(long)]
        pretty: bool,
        /// Run the calls fused (default) or one after another.
        #[arg(long, value_enum, default_value_t = EngineChoice::Fused)]
        engine: EngineChoice,
        /// Threads for the loops `treefuse fuse` reports as *may run in
        /// parallel* (fused engine only): each such loop, where it is the
        /// outermost one running, splits its list into chunks of at least
        /// --grain nodes. Results are the sequential run's (a loop whose
        /// chunks meet runs again sequentially). 1 (default): no split.
        #[arg(long, default_value_t = 1, value_name = "N")]
        threads: usize,
        /// Least nodes in a chunk of a split loop (with --threads).
        #[arg(long, default_value_t = DEFAULT_GRAIN, value_name = "NODES")]
        grain: usize,
        /// What to write: the tree with its "globals" key (default), only
        /// the globals (one JSON object), or nothing (with --stats, to time
        /// a run).
        #[arg(long, value_enum, default_value_t = WriteChoice::Tree)]
        write: WriteChoice,
        /// Write only this global (repeat for several); with `--write
        /// tree`, under the tree's "globals" key.
        #[arg(long = "global", value_name = "NAME")]
        only_globals: Vec<String>,
        #[command(flatten)]
        cutoffs: CutOffs,
        #[command(flatten)]
        cache: CacheChoice,
    },
    /// Fuse the program's `fuse` items and report what was fused, what each
    /// call site became, and why calls on the same child stayed apart.
    Fuse {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        report: ReportFormat,
        /// Break text report lines longer than this many characters (at
        /// list separators, continuation lines indented); 0 never breaks.
        /// Default: when standard output is a terminal, its width
        /// ($COLUMNS, else 120); otherwise lines are never broken, so
        /// scripts see one line per item.
        #[arg(long, value_name = "COLUMNS")]
        width: Option<usize>,
        /// Print the time of each phase (reading and checking, access
        /// analysis, fusion, report) on standard error. Measures the
        /// phases, so it always fuses (never reads the fusion cache).
        #[arg(long)]
        timings: bool,
        #[command(flatten)]
        cutoffs: CutOffs,
        #[command(flatten)]
        cache: CacheChoice,
    },
    /// Print the dependence graphs of the fused functions of a `fuse` item.
    Explain {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// The `fuse` item.
        #[arg(long)]
        fuse: String,
        /// Graphviz DOT output (the only format for now).
        #[arg(long)]
        dot: bool,
        #[command(flatten)]
        cutoffs: CutOffs,
        #[command(flatten)]
        cache: CacheChoice,
    },
    /// Run a `fuse` item unfused and fused on the same trees and compare
    /// the resulting trees, globals and runtime errors. Exit 0 when they
    /// agree, 1 with the first difference otherwise.
    CheckEquiv {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// The `fuse` item.
        #[arg(long)]
        fuse: String,
        /// An input tree (JSON).
        #[arg(long, conflicts_with = "random")]
        tree: Option<PathBuf>,
        /// Compare on this many random trees instead.
        #[arg(long)]
        random: Option<usize>,
        /// Seed of the first random tree.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Approximate size of each random tree.
        #[arg(long, default_value_t = 200)]
        nodes: usize,
        /// Extra parameters of the `fuse` item, as NAME=VALUE.
        #[arg(long = "arg", value_name = "NAME=VALUE")]
        args: Vec<String>,
        #[command(flatten)]
        cutoffs: CutOffs,
        #[command(flatten)]
        cache: CacheChoice,
    },
    /// Generate a random tree for a program's schema as JSON.
    Gen {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// Type of the root node (a concrete subtype is chosen if abstract).
        #[arg(long)]
        root: String,
        /// Approximate number of nodes.
        #[arg(long, default_value_t = 100)]
        nodes: usize,
        /// Random seed; the same seed gives the same tree.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Below this depth only the smallest completions are chosen.
        #[arg(long, default_value_t = 64)]
        max_depth: usize,
        /// Longest list of children.
        #[arg(long, default_value_t = 4)]
        max_list: usize,
    },
    /// Explain a diagnostic code (such as `unknown-field`) with an example
    /// and its fix; without a code, list every code.
    ExplainCode {
        /// The code, as shown in `error[CODE]`.
        code: Option<String>,
    },
    /// Generate Rust code for a program: its tree types, the unfused
    /// traversals and one function per `fuse` item, fused and unfused.
    Emit {
        /// The .tf program, or a directory whose .tf files form one program.
        file: PathBuf,
        /// Write the Rust module here instead of standard output.
        #[arg(short = 'o', long = "out")]
        out: Option<PathBuf>,
        #[command(flatten)]
        cache: CacheChoice,
    },
    /// Generate an input tree for one of the bundled case studies.
    GenExample {
        /// render, render-lists, ast, ast-lists, toylang, scopes, minic,
        /// treefold-min, treefold-nested or treefold-life.
        name: String,
        /// Pages (render), functions (ast, minic), program size (toylang),
        /// nodes (scopes), `min`s, nesting depth or neighbours (treefold).
        /// Default: 100 pages or functions, toylang 100, scopes 1000,
        /// treefold 8.
        #[arg(long)]
        size: Option<usize>,
        /// Generator variant (1, 2 or 3 for render and ast).
        #[arg(long, default_value_t = 1)]
        variant: u8,
        /// Random seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// The fusion cache: fused programs kept between runs, so that `run`,
    /// `fuse`, `explain` and `check-equiv` on an unchanged program do not
    /// fuse it again. It lives in $TREEFUSE_CACHE_DIR, else
    /// $XDG_CACHE_HOME/treefuse, else $HOME/.cache/treefuse.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
}

/// What `treefuse cache` does.
#[derive(Subcommand)]
enum CacheAction {
    /// Print the cache directory (whether or not it exists yet).
    Dir,
    /// Remove every entry of the cache (only the cache's own files).
    Clear,
}

/// Whether a command that fuses uses the fusion cache.
#[derive(clap::Args, Clone, Debug)]
struct CacheChoice {
    /// Fuse anew instead of reading the fusion cache, and do not write it.
    #[arg(long)]
    no_cache: bool,
}

impl CacheChoice {
    /// The cache to use, if any.
    fn cache(&self) -> Option<treefuse::FusionCache> {
        if self.no_cache {
            None
        } else {
            treefuse::FusionCache::from_env()
        }
    }
}

/// Which engine `run` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum EngineChoice {
    /// The calls one after another, as written.
    Unfused,
    /// The fused schedule.
    Fused,
}

/// What `run` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum WriteChoice {
    /// The whole tree, with the globals under a top-level "globals" key.
    Tree,
    /// Only the globals, as one JSON object.
    Globals,
    /// Nothing.
    None,
}

/// Report formats of `fuse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    /// Readable text.
    Text,
    /// One JSON document.
    Json,
}

/// The fusion cut-offs, shared by the commands that fuse.
#[derive(clap::Args, Clone, Debug)]
struct CutOffs {
    /// Most calls merged into one fused call (no limit unless given: every
    /// call that can join a fused call does).
    #[arg(long, value_name = "N", value_parser = parse_cut_off)]
    max_group: Option<usize>,
    /// Most occurrences of one traversal in one fused call.
    #[arg(long, default_value_t = FusionOptions::default().max_repeat, value_parser = parse_cut_off)]
    max_repeat: usize,
}

/// A cut-off: a count of at least 1.
fn parse_cut_off(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a number of at least 1".into()),
    }
}

impl CutOffs {
    fn options(&self) -> FusionOptions {
        FusionOptions {
            max_group: self.max_group.unwrap_or(FusionOptions::default().max_group),
            max_repeat: self.max_repeat,
        }
    }
}

/// A failed command: the message and the exit code. An empty message
/// with code 0 is the quiet end after the reader closed the output pipe.
struct Failure(String, u8);

fn usage(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

/// A failed write to standard output or a file.
fn output_error(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Failure(String::new(), 0)
    } else {
        usage(format!("cannot write output: {e}"))
    }
}

/// A line on standard error (diagnostic side channel: statistics,
/// timings, warnings); a closed standard error is no reason to fail.
fn note(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn load(file: &Path) -> Result<Program, Failure> {
    load_colored(file, false)
}

/// Loads a program; its warnings (unreachable `match` patterns) go to
/// stderr, and do not stop the command.
fn load_colored(file: &Path, color: bool) -> Result<Program, Failure> {
    let program = compile_file(file).map_err(|e| invalid_program(e, color))?;
    if !program.model.warnings.is_empty() {
        eprint!("{}", program.render_warnings(color));
    }
    Ok(program)
}

/// The failure for a program that cannot be loaded: its diagnostics, and
/// where to read more about the first one's code.
fn invalid_program(e: LoadError, color: bool) -> Failure {
    match e {
        LoadError::Io(m) => usage(m),
        LoadError::Invalid(d) => {
            let mut text = d.render(color);
            if let Some(first) = d.items.first() {
                text.push_str(&format!(
                    "For more information about an error, try `treefuse explain-code {}`.\n",
                    first.code
                ));
            }
            Failure(text, 1)
        }
    }
}

fn explain_code(code: Option<&str>) -> Result<(), Failure> {
    use treefuse::error_index;
    match code {
        Some(code) => {
            let code = code.trim_start_matches("error[").trim_end_matches(']');
            match error_index::lookup(code) {
                Some(entry) => write_output(None, &entry.render()),
                None => Err(usage(format!(
                    "no diagnostic code `{code}`; `treefuse explain-code` lists them"
                ))),
            }
        }
        None => {
            let mut out = String::new();
            for entry in error_index::entries() {
                out.push_str(&format!("{:<24} {}\n", entry.code, entry.summary()));
            }
            write_output(None, &out)
        }
    }
}

fn read_input(path: &Path) -> Result<String, Failure> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| usage(format!("cannot read standard input: {e}")))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?
    };
    String::from_utf8(bytes).map_err(|_| usage(format!("{} is not valid UTF-8", path.display())))
}

/// The progress bars of `run` on standard error, drawn only when it is a
/// terminal (never in pipes, files or tests).
struct ProgressBars {
    enabled: bool,
}

impl ProgressBars {
    fn new() -> ProgressBars {
        use std::io::IsTerminal;
        ProgressBars {
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn bar(
        &self,
        len: Option<u64>,
        template: &str,
        prefix: &'static str,
    ) -> Option<indicatif::ProgressBar> {
        if !self.enabled {
            return None;
        }
        let bar = match len {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        let style = indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_prefix(prefix);
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Some(bar)
    }

    /// Reading `len` bytes (unknown for standard input).
    fn reading(&self, len: Option<u64>) -> Option<indicatif::ProgressBar> {
        match len {
            Some(n) => self.bar(
                Some(n),
                "{prefix:>8} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})",
                "reading",
            ),
            None => self.bar(
                None,
                "{prefix:>8} {spinner} {bytes} ({bytes_per_sec})",
                "reading",
            ),
        }
    }

    /// Running: position = calls of the `fuse` item, message = visits.
    fn running(&self) -> Option<indicatif::ProgressBar> {
        self.bar(
            None,
            "{prefix:>8} {spinner} call {pos}: {msg} ({elapsed})",
            "running",
        )
    }

    /// Writing: position = bytes written.
    fn writing(&self) -> Option<indicatif::ProgressBar> {
        self.bar(
            None,
            "{prefix:>8} {spinner} {bytes} ({bytes_per_sec})",
            "writing",
        )
    }
}

/// Reads the input tree of `run` from a file or standard input (`-`),
/// streamed: the text is never held whole.
fn read_tree_input(
    program: &treefuse::Program,
    fuse: &str,
    path: &Path,
    bars: &ProgressBars,
) -> Result<Tree, Failure> {
    let input: Box<dyn std::io::Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(
            std::fs::File::open(path)
                .map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?,
        )
    };
    let len = std::fs::metadata(path)
        .ok()
        .map(|m| m.len())
        .filter(|_| path.as_os_str() != "-");
    match bars.reading(len) {
        Some(bar) => {
            let read = program.read_tree_from(fuse, bar.wrap_read(input));
            bar.finish_and_clear();
            read.map_err(run_error)
        }
        None => program.read_tree_from(fuse, input).map_err(run_error),
    }
}

/// The globals `--global` names (all of them when none is named), as
/// indices in declaration order.
fn select_globals(program: &treefuse::Program, names: &[String]) -> Result<Vec<usize>, Failure> {
    if names.is_empty() {
        return Ok((0..program.model.globals.len()).collect());
    }
    let mut chosen = Vec::new();
    for name in names {
        match program.model.globals.iter().position(|g| g.name == *name) {
            Some(i) if !chosen.contains(&i) => chosen.push(i),
            Some(_) => {}
            None => {
                let known: Vec<&str> = program
                    .model
                    .globals
                    .iter()
                    .map(|g| g.name.as_str())
                    .collect();
                return Err(usage(format!(
                    "--global {name}: the program has no global of that name (it has: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
        }
    }
    chosen.sort_unstable();
    Ok(chosen)
}

/// Writes what `run --write` asks for, streamed to `--out` or standard
/// output, ending with a newline.
#[allow(clippy::too_many_arguments)]
fn write_run_output(
    out: Option<&Path>,
    program: &treefuse::Program,
    tree: &Tree,
    globals: &[treefuse_sema::Value],
    selected: &[usize],
    what: WriteChoice,
    options: WriteOptions,
    bars: &ProgressBars,
) -> Result<(), Failure> {
    if what == WriteChoice::None {
        return Ok(());
    }
    // Only the selected globals: the others are written as if the program
    // had none of them.
    let shown = treefuse_runtime::SelectedGlobals::only(globals, selected);
    let write = |sink: &mut dyn Write| -> std::io::Result<()> {
        match what {
            WriteChoice::Tree => {
                treefuse_runtime::write_tree_to(&program.model, tree, Some(shown), options, sink)?
            }
            _ => sink.write_all(write_globals(&program.model, shown, options).as_bytes())?,
        }
        if !(options.pretty && what == WriteChoice::Tree) {
            sink.write_all(b"\n")?;
        }
        sink.flush()
    };
    let bar = bars.writing();
    let written = match out {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| usage(format!("cannot write {}: {e}", path.display())))?;
            let result = match &bar {
                Some(bar) => write(&mut bar.wrap_write(file)),
                None => write(&mut { file }),
            };
            result.map_err(|e| usage(format!("cannot write {}: {e}", path.display())))
        }
        None => {
            let stdout = std::io::stdout().lock();
            match &bar {
                Some(bar) => write(&mut bar.wrap_write(stdout)),
                None => write(&mut { stdout }),
            }
            .map_err(output_error)
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    written
}

/// The peak resident memory of this process (`VmHWM`), where the system
/// tells it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn run_error(e: RunError) -> Failure {
    match e {
        RunError::Runtime(m) => Failure(m, 3),
        other => usage(other.to_string()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) if msg.is_empty() => ExitCode::from(code),
        Err(Failure(msg, code)) => {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{msg}");
            if !msg.ends_with('\n') {
                let _ = writeln!(err);
            }
            ExitCode::from(code)
        }
    }
}

fn write_output(out: Option<&Path>, text: &str) -> Result<(), Failure> {
    match out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| usage(format!("cannot write {}: {e}", path.display()))),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|_| {
                    if text.ends_with('\n') {
                        Ok(())
                    } else {
                        stdout.write_all(b"\n")
                    }
                })
                .and_then(|_| stdout.flush())
                .map_err(output_error)
        }
    }
}

/// The `while` loops of the program's traversals with their counts
/// (LANGUAGE §8.6), by source position, for `--stats`.
fn traversal_loops_json(
    program: &treefuse::Program,
    stats: &treefuse::RunStats,
) -> Vec<serde_json::Value> {
    stats
        .traversal_loops
        .iter()
        .map(|l| {
            let at = program.sources.locate(l.span.start as usize);
            serde_json::json!({
                "traversal": program.model.body_name(l.body),
                "file": at.file,
                "line": at.line,
                "col": at.col,
                "entered": l.entered,
                "iterations": l.iterations,
            })
        })
        .collect()
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Demo => demo(),
        Command::Check { file, color } => load_colored(&file, color).map(|_| ()),
        Command::Run {
            file,
            fuse,
            tree,
            out,
            stats,
            profile,
            args,
            pretty,
            engine,
            threads,
            grain,
            write,
            only_globals,
            cutoffs,
            cache,
        } => {
            if threads == 0 {
                return Err(usage("--threads must be at least 1"));
            }
            if threads > 1 && engine != EngineChoice::Fused {
                return Err(usage(
                    "--threads splits fused loops: it needs --engine fused",
                ));
            }
            let program = load(&file)?;
            let values = fuse_arguments(&program, &fuse, &args)?;
            let selected = select_globals(&program, &only_globals)?;
            let bars = ProgressBars::new();
            let clock = std::time::Instant::now();
            let mut t = read_tree_input(&program, &fuse, &tree, &bars)?;
            let read_seconds = clock.elapsed().as_secs_f64();
            let fusion = (engine == EngineChoice::Fused)
                .then(|| program.fuse_cached(&cutoffs.options(), cache.cache().as_ref()));
            let fused = fusion.as_ref().map(|f| &f.fused);
            let engine_used = match fused {
                Some(f) if threads > 1 => Engine::FusedSplit(f, grain.max(1)),
                Some(f) => Engine::Fused(f),
                None => Engine::Unfused,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| Failure(format!("cannot start {threads} threads: {e}"), 1))?;
            let started = std::time::Instant::now();
            let run_bar = bars.running();
            let host = match &run_bar {
                Some(bar) => {
                    let bar = bar.clone();
                    let mut host = Host::new();
                    host.observe(move |p| {
                        bar.set_position(p.calls);
                        bar.set_message(format!("{} visits, {} rounds", p.visits, p.rounds));
                    });
                    host
                }
                None => Host::new(),
            };
            let outcome =
                pool.install(|| program.run_tree_with(&fuse, &mut t, values, &host, engine_used));
            if let Some(bar) = run_bar {
                bar.finish_and_clear();
            }
            let (run_stats, globals) = outcome.map_err(run_error)?;
            let elapsed = started.elapsed();
            let clock = std::time::Instant::now();
            let tree_bytes = t.heap_bytes();
            write_run_output(
                out.as_deref(),
                &program,
                &t,
                &globals,
                &selected,
                write,
                WriteOptions { pretty },
                &bars,
            )?;
            let write_seconds = clock.elapsed().as_secs_f64();
            drop(t);
            if profile {
                note(program.render_profile(&run_stats.profile, fused).trim_end());
            }
            if stats {
                let line = serde_json::json!({
                    "engine": if fused.is_some() { "fused" } else { "unfused" },
                    "fusion_cache": fusion.as_ref().map_or("off", |f| f.cache.as_str()),
                    "fusion_seconds": fusion.as_ref().map_or(0.0, |f| f.time.as_secs_f64()),
                    "fusion_cache_note": fusion.as_ref().and_then(|f| f.note.as_deref()),
                    "node_visits": run_stats.node_visits,
                    "visits_per_call": run_stats.visits_per_call,
                    "loop_iterations": run_stats.loop_iterations,
                    "traversal_loops": traversal_loops_json(&program, &run_stats),
                    "threads": threads,
                    "split_loops": run_stats.split.split_loops,
                    "split_chains": run_stats.split.split_chains,
                    "split_chunks": run_stats.split.chunks,
                    "split_visits": run_stats.split.chunk_visits,
                    "split_rerun": run_stats.split.rerun,
                    "run_seconds": elapsed.as_secs_f64(),
                    "read_seconds": read_seconds,
                    "write_seconds": write_seconds,
                    "tree_bytes": tree_bytes,
                    "peak_rss_bytes": peak_rss_bytes(),
                });
                note(line);
            }
            Ok(())
        }
        Command::Fuse {
            file,
            report,
            width,
            timings,
            cutoffs,
            cache,
        } => {
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            let started = std::time::Instant::now();
            let program = load(&file)?;
            let loaded = started.elapsed();
            // `--timings` measures analysis and fusion, so it fuses.
            let cache = cache.cache().filter(|_| !timings);
            let (fused, analysed, fusion) = if cache.is_some() {
                let fusion = program.fuse_cached(&cutoffs.options(), cache.as_ref());
                match fusion.cache {
                    treefuse::CacheUse::Hit => note(format_args!(
                        "fusion: {:.1} ms, read from the cache, for {} fused function(s)",
                        ms(fusion.time),
                        fusion.fused.functions.len()
                    )),
                    _ => note(format_args!(
                        "analysis and fusion: {:.1} ms for {} fused function(s)",
                        ms(fusion.time),
                        fusion.fused.functions.len()
                    )),
                }
                (fusion.fused, Default::default(), Default::default())
            } else {
                let started = std::time::Instant::now();
                let analysis = treefuse_analysis::Analysis::new(&program.model);
                let analysed = started.elapsed();
                let started = std::time::Instant::now();
                let fused =
                    treefuse_fusion::fuse_program(&program.model, &analysis, &cutoffs.options());
                let fusion = started.elapsed();
                note(format_args!(
                    "analysis and fusion: {:.1} ms for {} fused function(s)",
                    ms(analysed + fusion),
                    fused.functions.len()
                ));
                (fused, analysed, fusion)
            };
            let started = std::time::Instant::now();
            let text = match report {
                ReportFormat::Text => treefuse_fusion::report::wrap_report(
                    &treefuse_fusion::report::text_report(&program.model, &fused, &program.sources),
                    width.unwrap_or_else(terminal_width),
                ),
                ReportFormat::Json => {
                    treefuse_fusion::report::json_report(&program.model, &fused, &program.sources)
                        .to_string()
                }
            };
            if timings {
                note(format_args!(
                    "timings: read and check {:.1} ms, access analysis {:.1} ms, fusion {:.1} ms, report {:.1} ms",
                    ms(loaded),
                    ms(analysed),
                    ms(fusion),
                    ms(started.elapsed())
                ));
            }
            write_output(None, &text)
        }
        Command::Explain {
            file,
            fuse,
            dot: _,
            cutoffs,
            cache,
        } => {
            let program = load(&file)?;
            if program.model.fuse_named(&fuse).is_none() {
                return Err(usage(format!(
                    "no fuse item `{fuse}` in {}",
                    file.display()
                )));
            }
            let fused = program
                .fuse_cached(&cutoffs.options(), cache.cache().as_ref())
                .fused;
            write_output(
                None,
                &treefuse_fusion::report::dot(&program.model, &fused, &program.sources),
            )
        }
        Command::CheckEquiv {
            file,
            fuse,
            tree,
            random,
            seed,
            nodes,
            args,
            cutoffs,
            cache,
        } => {
            let program = load(&file)?;
            let values = fuse_arguments(&program, &fuse, &args)?;
            let fused = program
                .fuse_cached(&cutoffs.options(), cache.cache().as_ref())
                .fused;
            let trees: Vec<(String, Tree)> = match (tree, random) {
                (Some(path), _) => {
                    let text = read_input(&path)?;
                    vec![(
                        path.display().to_string(),
                        program.read_tree(&fuse, &text).map_err(run_error)?,
                    )]
                }
                (None, Some(count)) => {
                    let root = program
                        .model
                        .fuse_named(&fuse)
                        .map(|f| f.root_type)
                        .ok_or_else(|| usage(format!("no fuse item `{fuse}`")))?;
                    (0..count as u64)
                        .map(|i| {
                            let options = GenOptions {
                                nodes,
                                seed: seed + i,
                                ..GenOptions::default()
                            };
                            treefuse_runtime::random_tree(&program.model, root, &options)
                                .map(|t| (format!("random tree (seed {})", seed + i), t))
                                .map_err(|e| usage(e.0))
                        })
                        .collect::<Result<_, _>>()?
                }
                (None, None) => return Err(usage("give --tree FILE or --random N")),
            };
            let mut total = (0u64, 0u64);
            let mut both_failed: Vec<(String, String)> = Vec::new();
            for (name, input) in &trees {
                match compare(&program, &fuse, input, values.clone(), &fused)? {
                    Comparison::Equal { unfused, fused } => {
                        total.0 += unfused;
                        total.1 += fused;
                    }
                    Comparison::BothFailed { unfused } => both_failed.push((name.clone(), unfused)),
                    Comparison::Differ(what) => {
                        return Err(Failure(
                            format!("{name}: unfused and fused runs differ: {what}"),
                            1,
                        ));
                    }
                }
            }
            let ran = trees.len() - both_failed.len();
            // Two runs that fail with the same error compare nothing but
            // that error: a check where every tree failed checked nothing.
            if ran == 0 {
                let (first, message) = both_failed.first().cloned().unwrap_or_default();
                return Err(Failure(
                    format!(
                        "nothing checked: both runs failed with a runtime error on every one of the {} tree(s) (first, {first}: {message}); give trees the passes run on without error (other --seed or --nodes values, or guards in the program)",
                        trees.len()
                    ),
                    1,
                ));
            }
            let mut report = format!(
                "equivalent on {} tree(s): {ran} ran without error, {} node visits unfused, {} fused ({:.3} of unfused)",
                trees.len(),
                total.0,
                total.1,
                total.1 as f64 / total.0.max(1) as f64
            );
            if let Some((first, message)) = both_failed.first() {
                report.push_str(&format!(
                    "\nboth runs failed with the same runtime error on {} of them (their visits are not counted); first, {first}: {message}",
                    both_failed.len()
                ));
            }
            write_output(None, &report)
        }
        Command::Gen {
            file,
            root,
            nodes,
            seed,
            max_depth,
            max_list,
        } => {
            let program = load(&file)?;
            let Some(root_ty) = program.model.type_named(&root) else {
                return Err(usage(format!(
                    "no tree type `{root}` in {}",
                    file.display()
                )));
            };
            let options = GenOptions {
                nodes,
                max_depth,
                max_list,
                seed,
            };
            let generated = treefuse_runtime::random_tree_sized(&program.model, root_ty, &options)
                .map_err(|e| usage(e.0))?;
            if !generated.reached(&options) {
                note(gen_shortfall(&generated, &options, &root));
            }
            write_output(
                None,
                &write_tree(
                    &program.model,
                    &generated.tree,
                    None,
                    WriteOptions::default(),
                ),
            )
        }
        Command::ExplainCode { code } => explain_code(code.as_deref()),
        Command::Cache { action } => cache_command(action),
        Command::Emit { file, out, cache } => {
            // Diagnostics first, with the usual exit code for invalid programs.
            let program = load(&file)?;
            // The fused program as `treefuse run` would use it (from the
            // fusion cache when the program is unchanged), with the
            // options `treefuse_codegen::Config` uses by default.
            let config = treefuse_codegen::Config::new();
            let fused = program
                .fuse_cached(config.fusion_options(), cache.cache().as_ref())
                .fused;
            let code = config.generate_program(&program.model, &fused, &program.sources);
            write_output(out.as_deref(), &code)
        }
        Command::GenExample {
            name,
            size,
            variant,
            seed,
        } => {
            let size = size.unwrap_or(match name.as_str() {
                "scopes" => 1000,
                n if n.starts_with("treefold") => 8,
                _ => 100,
            });
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            treefuse_casegen::generate(&name, variant, size, seed, &mut stdout).map_err(
                |e| match e {
                    treefuse_casegen::GenerateError::Io(io) => output_error(io),
                    other => usage(other.to_string()),
                },
            )?;
            stdout.flush().map_err(output_error)
        }
    }
}

/// `treefuse cache dir|clear`.
fn cache_command(action: CacheAction) -> Result<(), Failure> {
    let Some(cache) = treefuse::FusionCache::from_env() else {
        return Err(usage(
            "no place for the fusion cache: none of TREEFUSE_CACHE_DIR, XDG_CACHE_HOME and HOME is set",
        ));
    };
    match action {
        CacheAction::Dir => write_output(None, &cache.dir().display().to_string()),
        CacheAction::Clear => {
            let (entries, bytes) = cache.clear().map_err(|e| {
                usage(format!(
                    "cannot clear the fusion cache in {}: {e}",
                    cache.dir().display()
                ))
            })?;
            write_output(
                None,
                &format!(
                    "removed {entries} fusion cache entr{} ({bytes} bytes) from {}",
                    if entries == 1 { "y" } else { "ies" },
                    cache.dir().display()
                ),
            )
        }
    }
}

/// Why `gen` did not reach the requested size (more than 10% off).
fn gen_shortfall(
    generated: &treefuse_runtime::Generated,
    options: &GenOptions,
    root: &str,
) -> String {
    if generated.nodes > options.nodes {
        format!(
            "treefuse gen: warning: the tree has {} nodes, more than the {} requested: \
             the smallest tree with a `{root}` root that the schema allows is that large",
            generated.nodes, options.nodes
        )
    } else {
        format!(
            "treefuse gen: warning: the tree has {} nodes, not about {}: no larger tree was \
             found within --max-depth {} and --max-list {} (raise them, or the schema allows \
             no larger trees below `{root}`)",
            generated.nodes, options.nodes, options.max_depth, options.max_list
        )
    }
}

fn fuse_arguments(
    program: &Program,
    fuse: &str,
    args: &[String],
) -> Result<Vec<treefuse::sema::Value>, Failure> {
    let pairs: Vec<(&str, &str)> = args
        .iter()
        .map(|a| {
            a.split_once('=')
                .ok_or_else(|| usage(format!("--arg expects NAME=VALUE, got `{a}`")))
        })
        .collect::<Result<_, _>>()?;
    for (i, (name, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
            return Err(usage(format!(
                "--arg {name}=... is given twice; give each parameter once"
            )));
        }
    }
    program.fuse_args(fuse, &pairs).map_err(run_error)
}

/// The outcome of running both engines on one tree.
enum Comparison {
    Equal {
        unfused: u64,
        fused: u64,
    },
    /// Both runs raised a runtime error (as they must, together); the
    /// unfused run's message.
    BothFailed {
        unfused: String,
    },
    Differ(String),
}

fn compare(
    program: &Program,
    fuse: &str,
    input: &Tree,
    args: Vec<treefuse::sema::Value>,
    fused: &treefuse::FusedProgram,
) -> Result<Comparison, Failure> {
    let host = Host::new();
    let mut a = input.clone();
    let mut b = input.clone();
    let ra = program.run_tree_with(fuse, &mut a, args.clone(), &host, Engine::Unfused);
    let rb = program.run_tree_with(fuse, &mut b, args, &host, Engine::Fused(fused));
    Ok(match (ra, rb) {
        (Ok((sa, ga)), Ok((sb, gb))) => {
            let mut diffs = diff_trees(&program.model, &a, &b, 1);
            diffs.extend(diff_globals(&program.model, &ga, &gb));
            match diffs.first() {
                None => Comparison::Equal {
                    unfused: sa.node_visits,
                    fused: sb.node_visits,
                },
                Some(d) => Comparison::Differ(format!(
                    "at {}: unfused {} but fused {}",
                    d.path, d.left, d.right
                )),
            }
        }
        (Err(RunError::Runtime(unfused)), Err(RunError::Runtime(_))) => {
            Comparison::BothFailed { unfused }
        }
        (Err(RunError::Runtime(m)), Ok(_)) => {
            Comparison::Differ(format!("only the unfused run fails: {m}"))
        }
        (Ok(_), Err(RunError::Runtime(m))) => {
            Comparison::Differ(format!("only the fused run fails: {m}"))
        }
        (Err(e), _) | (_, Err(e)) => return Err(run_error(e)),
    })
}

/// `writeln!` into a `String`, which cannot fail.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// `run --grain`'s default: chunks of a split loop hold at least this
/// many nodes (the interpreter spends microseconds on a node, so a chunk
/// of this size pays for its worker; see README, "Threads").
const DEFAULT_GRAIN: usize = 1024;

const DEMO_PROGRAM: &str = include_str!("../../../examples/figure2/figure2.tf");
const DEMO_TREE: &str = include_str!("../../../examples/figure2/doc.json");

fn demo() -> Result<(), Failure> {
    // Written whole at the end, through the one output writer.
    let mut out = String::new();
    let name = "examples/figure2/figure2.tf";
    let program = compile_source(name, DEMO_PROGRAM).map_err(|d| Failure(d.render(false), 1))?;
    outln!(out, "treefuse demo: {name} (the Grafter paper's Figure 2)");
    outln!(
        out,
        "  checked: {} tree types, {} traversals, {} fuse item(s)",
        program.model.types.len(),
        program.model.methods.len(),
        program.model.fuses.len()
    );
    let input = program.read_tree("layout", DEMO_TREE).map_err(run_error)?;
    let mut tree = input.clone();
    let (stats, _) = program
        .run_tree("layout", &mut tree, Vec::new(), &Host::new())
        .map_err(run_error)?;
    outln!(out, "  ran `layout` (compute_width, then compute_height) on examples/figure2/doc.json, unfused:");
    for d in diff_trees(&program.model, &input, &tree, usize::MAX) {
        outln!(out, "    {:<34} {:>4} -> {}", d.path, d.left, d.right);
    }
    outln!(
        out,
        "  node visits unfused: {} ({} per traversal call)",
        stats.node_visits,
        stats
            .visits_per_call
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" + ")
    );
    let fused = program.fuse_all(&FusionOptions::default());
    outln!(
        out,
        "  fused: {} fused function(s); the schedule:",
        fused.functions.len()
    );
    for line in
        treefuse_fusion::report::text_report(&program.model, &fused, &program.sources).lines()
    {
        outln!(out, "    {line}");
    }
    match compare(&program, "layout", &input, Vec::new(), &fused)? {
        Comparison::Equal { unfused, fused } => outln!(out,
            "  fused run leaves the same tree and globals: {fused} node visits instead of {unfused} ({:.2} of unfused)",
            fused as f64 / unfused.max(1) as f64
        ),
        Comparison::BothFailed { unfused } => return Err(Failure(format!("the demo program failed: {unfused}"), 3)),
        Comparison::Differ(what) => return Err(Failure(format!("fused and unfused runs differ: {what}"), 1)),
    }
    write_output(None, &out)
}

/// Fuzzing of the argument handling: random command lines built from the
/// tool's own words and hostile values go through clap and then through
/// the argument checks of the commands (`--arg` values against a `fuse`
/// item's parameters, `--root` types, error codes), without running
/// anything long. None may panic. `PROPTEST_CASES=1000000 cargo test -p
/// treefuse --bin treefuse` is the long run.
/// The width to wrap reports at by default: standard output's terminal
/// width (`$COLUMNS`, else 120) when it is a terminal, else 0 (no
/// wrapping, so output read by programs keeps one line per item).
fn terminal_width() -> usize {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return 0;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c >= 40)
        .unwrap_or(120)
}

#[cfg(test)]
mod argument_fuzz {
    use super::*;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    const WORDS: &[&str] = &[
        "--timings",
        "check",
        "run",
        "fuse",
        "explain",
        "check-equiv",
        "gen",
        "emit",
        "gen-example",
        "explain-code",
        "demo",
        "cache",
        "dir",
        "clear",
        "--no-cache",
        "--fuse",
        "--tree",
        "--arg",
        "--out",
        "--stats",
        "--engine",
        "--max-group",
        "--max-repeat",
        "--random",
        "--seed",
        "--nodes",
        "--root",
        "--max-depth",
        "--max-list",
        "--size",
        "--variant",
        "--report",
        "--dot",
        "--pretty",
        "-o",
        "--color",
        "--help",
        "--version",
        "-",
        "--",
        "fused",
        "unfused",
        "text",
        "json",
        "layout",
        "go",
        "k",
        "k=1",
        "k=",
        "=",
        "k=1.5",
        "k=\"s\"",
        "k=[1,2]",
        "k={}",
        "s=text",
        "root=1",
        "k=99999999999999999999",
        "0",
        "1",
        "64",
        "65",
        "-1",
        "18446744073709551616",
        "Element",
        "Leaf",
        "Nope",
        "unknown-field",
        "error[syntax]",
        "syntax",
        "examples/figure2/figure2.tf",
        "examples/figure2/doc.json",
        "no/such/file",
        "render",
        "ast",
        "toylang",
        "\u{0}",
        "é",
        "",
    ];

    fn program() -> &'static Program {
        static P: OnceLock<Program> = OnceLock::new();
        P.get_or_init(|| {
            compile_source(
                "args.tf",
                "record R { a: i64 }\n\
                 tree Leaf { n: i64; traversal f(k: i64, s: str, r: R, xs: [f64]) {} }\n\
                 fuse go(root: Leaf, k: i64, s: str, r: R, xs: [f64]) { root.f(k, s, r, xs); }\n",
            )
            .unwrap_or_else(|d| panic!("{d}"))
        })
    }

    /// The argument checks of a parsed command, without running it.
    fn check_arguments(command: Command) {
        let p = program();
        match command {
            Command::Run {
                fuse,
                args,
                cutoffs,
                ..
            }
            | Command::CheckEquiv {
                fuse,
                args,
                cutoffs,
                ..
            } => {
                let _ = cutoffs.options();
                let _ = fuse_arguments(p, &fuse, &args);
            }
            Command::Gen {
                root,
                nodes,
                max_depth,
                max_list,
                seed,
                ..
            } => {
                let _ = p.model.type_named(&root);
                let options = GenOptions {
                    nodes,
                    max_depth,
                    max_list,
                    seed,
                };
                let generated = treefuse_runtime::Generated {
                    tree: Tree::new(),
                    nodes: nodes / 2,
                };
                let _ = generated.reached(&options);
                let _ = gen_shortfall(&generated, &options, &root);
            }
            Command::ExplainCode { code: Some(code) } => {
                let _ = treefuse::error_index::lookup(&code);
            }
            _ => {}
        }
    }

    fn argv() -> impl Strategy<Value = Vec<String>> {
        let word = prop_oneof![
            4 => prop::sample::select(WORDS).prop_map(String::from),
            1 => "\\PC{0,12}",
            1 => (prop::sample::select(&["k", "s", "r", "xs", "zz"][..]), "\\PC{0,10}")
                .prop_map(|(n, v)| format!("{n}={v}")),
        ];
        prop::collection::vec(word, 0..10)
    }

    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 200, ..ProptestConfig::default() })]
        #[test]
        fn random_command_lines_do_not_panic(words in argv()) {
            let argv = std::iter::once("treefuse".to_string()).chain(words);
            if let Ok(cli) = Cli::try_parse_from(argv) {
                check_arguments(cli.command);
            }
        }
    }

    #[test]
    fn repeated_and_malformed_args_are_usage_errors() {
        let p = program();
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let twice = fuse_arguments(
            p,
            "go",
            &args(&["k=1", "k=2", "s=a", "r={\"a\":1}", "xs=[]"]),
        );
        assert!(matches!(twice, Err(Failure(m, 2)) if m.contains("given twice")));
        let bad = fuse_arguments(p, "go", &args(&["k"]));
        assert!(matches!(bad, Err(Failure(_, 2))));
        let ok = fuse_arguments(p, "go", &args(&["k=1", "s=a", "r={\"a\":1}", "xs=[1.5]"]));
        assert!(ok.is_ok());
    }
}
