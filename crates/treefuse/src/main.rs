//! The `treefuse` command-line tool.
//!
//! Exit codes: 0 success; 1 the program has errors (`check`); 2 bad usage
//! or bad input (unreadable file, malformed tree, unknown `fuse` item);
//! 3 the traversal program raised a runtime error.

use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treefuse::{compile_file, compile_source, Host, LoadError, Program, RunError};
use treefuse_runtime::{diff_trees, write_tree, GenOptions, WriteOptions};

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
        /// The .tf program.
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
        /// The .tf program.
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
        /// A value for an extra parameter of the `fuse` item, as NAME=VALUE
        /// (VALUE in JSON; bare text is accepted for `str`).
        #[arg(long = "arg", value_name = "NAME=VALUE")]
        args: Vec<String>,
        /// Indent the output (grows with depth squared; for small trees).
        #[arg(long)]
        pretty: bool,
    },
    /// Generate a random tree for a program's schema as JSON.
    Gen {
        /// The .tf program.
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
    /// Generate an input tree for one of the bundled case studies.
    GenExample {
        /// render, render-lists, ast, ast-lists or toylang.
        name: String,
        /// Pages (render), functions (ast) or program size (toylang).
        #[arg(long)]
        size: usize,
        /// Generator variant (1, 2 or 3 for render and ast).
        #[arg(long, default_value_t = 1)]
        variant: u8,
        /// Random seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

/// A failed command: the message and the exit code.
struct Failure(String, u8);

fn usage(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

fn load(file: &Path) -> Result<Program, Failure> {
    compile_file(file).map_err(|e| match e {
        LoadError::Io(m) => usage(m),
        LoadError::Invalid(d) => Failure(d.render(false), 1),
    })
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
                .map_err(|e| usage(format!("cannot write output: {e}")))
        }
    }
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Demo => demo(),
        Command::Check { file, color } => compile_file(&file).map(|_| ()).map_err(|e| match e {
            LoadError::Io(m) => usage(m),
            LoadError::Invalid(d) => Failure(d.render(color), 1),
        }),
        Command::Run {
            file,
            fuse,
            tree,
            out,
            stats,
            args,
            pretty,
        } => {
            let program = load(&file)?;
            let pairs: Vec<(&str, &str)> = args
                .iter()
                .map(|a| {
                    a.split_once('=')
                        .ok_or_else(|| usage(format!("--arg expects NAME=VALUE, got `{a}`")))
                })
                .collect::<Result<_, _>>()?;
            let values = program.fuse_args(&fuse, &pairs).map_err(run_error)?;
            let text = read_input(&tree)?;
            let mut t = program.read_tree(&fuse, &text).map_err(run_error)?;
            let started = std::time::Instant::now();
            let (run_stats, globals) = program
                .run_tree(&fuse, &mut t, values, &Host::new())
                .map_err(run_error)?;
            let elapsed = started.elapsed();
            let json = write_tree(&program.model, &t, Some(&globals), WriteOptions { pretty });
            write_output(out.as_deref(), &json)?;
            if stats {
                let line = serde_json::json!({
                    "engine": "unfused",
                    "node_visits": run_stats.node_visits,
                    "visits_per_call": run_stats.visits_per_call,
                    "run_seconds": elapsed.as_secs_f64(),
                });
                eprintln!("{line}");
            }
            Ok(())
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
            let tree = treefuse_runtime::random_tree(&program.model, root_ty, &options)
                .map_err(|e| usage(e.0))?;
            write_output(
                None,
                &write_tree(&program.model, &tree, None, WriteOptions::default()),
            )
        }
        Command::GenExample {
            name,
            size,
            variant,
            seed,
        } => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            treefuse_casegen::generate(&name, variant, size, seed, &mut stdout)
                .map_err(|e| usage(e.to_string()))?;
            stdout
                .flush()
                .map_err(|e| usage(format!("cannot write output: {e}")))
        }
    }
}

const DEMO_PROGRAM: &str = include_str!("../../../examples/figure2/figure2.tf");
const DEMO_TREE: &str = include_str!("../../../examples/figure2/doc.json");

fn demo() -> Result<(), Failure> {
    let name = "examples/figure2/figure2.tf";
    let program = compile_source(name, DEMO_PROGRAM).map_err(|d| Failure(d.render(false), 1))?;
    println!("treefuse demo: {name} (the Grafter paper's Figure 2)");
    println!(
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
    println!("  ran `layout` (compute_width, then compute_height) on examples/figure2/doc.json, unfused:");
    for d in diff_trees(&program.model, &input, &tree, usize::MAX) {
        println!("    {:<34} {:>4} -> {}", d.path, d.left, d.right);
    }
    println!(
        "  node visits: {} ({} per traversal call)",
        stats.node_visits,
        stats
            .visits_per_call
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" + ")
    );
    Ok(())
}
