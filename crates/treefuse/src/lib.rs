//! treefuse: write tree passes as small separate traversals, run them as
//! few fused traversals.
//!
//! This crate is the front door: it ties the pipeline stages together
//! (`treefuse-syntax` → `treefuse-sema` → engines) behind a small API and
//! hosts the `treefuse` command-line tool.
//!
//! [`compile_file`] and [`compile_source`] give a checked [`Program`];
//! [`Program::fuse_all`] fuses it, [`Program::run_json`] runs a `fuse` item
//! on a JSON tree and [`Program::run_tree_with`] on a [`Tree`] with either
//! [`Engine`]. [`error_index`] is the book's error index compiled in. The
//! CLI allocates with mimalloc (feature `mimalloc`, on by default); the
//! library sets no global allocator.
//!
//! ```
//! let source = r#"
//!     tree Leaf { n: i64; traversal inc(by: i64) { self.n = self.n + by; } }
//!     fuse bump(root: Leaf) { root.inc(2); root.inc(3); }
//! "#;
//! let program = treefuse::compile_source("bump.tf", source).unwrap();
//! let outcome = program.run_json("bump", r#"{"type": "Leaf", "n": 1}"#, &[]).unwrap();
//! assert_eq!(outcome.node_visits, 2);
//! assert!(outcome.output_json.contains(r#""n":6"#));
//! ```

#![warn(missing_docs)]

pub mod cache;
pub mod error_index;

pub use cache::{CacheUse, Fusion, FusionCache};
use std::fmt;
use std::path::Path;
pub use treefuse_fusion::{FusedProgram, FusionOptions};
pub use treefuse_interp::{
    Host, RunProgress, RunStats, RuntimeError, SplitStats, TraversalLoopStats, VisitProfile,
};
pub use treefuse_runtime::{Tree, TreeInputError};
pub use treefuse_sema as sema;
use treefuse_sema::Value;
pub use treefuse_syntax::SourceMap;

/// Diagnostics of a program that failed to parse or check, with the source
/// needed to render them.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The individual diagnostics, in source order.
    pub items: Vec<treefuse_syntax::Diagnostic>,
    /// File name shown in the rendering (the program's file or
    /// directory).
    pub file_name: String,
    /// The source text (a program of several files: all of them, one after
    /// the other).
    pub source: String,
    /// The program's files, which the spans of `items` point into (boxed:
    /// an error value stays small).
    pub sources: Box<SourceMap>,
}

impl Diagnostics {
    /// Renders every diagnostic with `file:line:col` and a caret snippet.
    pub fn render(&self, color: bool) -> String {
        treefuse_syntax::render_map(&self.items, &self.sources, color)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// A checked program with its source.
#[derive(Clone, Debug)]
pub struct Program {
    /// The semantic model.
    pub model: treefuse_sema::Program,
    /// The source text.
    pub source: String,
    /// The file name used in messages (the program's file or directory).
    pub file_name: String,
    /// The program's files; `source` is their text.
    pub sources: SourceMap,
}

impl Program {
    /// Renders the checker's warnings (unreachable `match` patterns) as
    /// diagnostics are rendered.
    pub fn render_warnings(&self, color: bool) -> String {
        treefuse_syntax::render_map(&self.model.warnings, &self.sources, color)
    }

    /// `file:line:col` of a place in the program.
    pub fn location(&self, span: treefuse_syntax::Span) -> String {
        let at = self.sources.locate(span.start as usize);
        format!("{}:{}:{}", at.file, at.line, at.col)
    }
}

/// An error loading a program file.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read or is not UTF-8.
    Io(String),
    /// The program has errors.
    Invalid(Diagnostics),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(m) => f.write_str(m),
            LoadError::Invalid(d) => d.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<Diagnostics> for LoadError {
    fn from(d: Diagnostics) -> LoadError {
        LoadError::Invalid(d)
    }
}

/// Reads, parses and checks a program: a `.tf` file, or a directory whose
/// `.tf` files (below it, in path order) together form one program
/// (LANGUAGE.md §8.2).
pub fn compile_file(path: impl AsRef<Path>) -> Result<Program, LoadError> {
    let sources = SourceMap::read(path.as_ref()).map_err(LoadError::Io)?;
    Ok(compile_sources(sources)?)
}

/// Parses and checks program text.
pub fn compile_source(file_name: &str, source: &str) -> Result<Program, Diagnostics> {
    compile_sources(SourceMap::single(file_name, source))
}

/// Parses and checks a program of one or several files.
pub fn compile_sources(sources: SourceMap) -> Result<Program, Diagnostics> {
    let source = sources.text().to_string();
    let file_name = sources.name().to_string();
    match treefuse_sema::compile_map(&sources) {
        Ok(model) => Ok(Program {
            model,
            source,
            file_name,
            sources,
        }),
        Err(items) => Err(Diagnostics {
            items,
            file_name,
            source,
            sources: Box::new(sources),
        }),
    }
}

/// The result of running a `fuse` item.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The resulting tree as JSON; its top-level object also carries the
    /// final globals under `"globals"`.
    pub output_json: String,
    /// Total node visits.
    pub node_visits: u64,
    /// Visits per call of the `fuse` item, in order.
    pub visits_per_call: Vec<u64>,
    /// The resulting tree.
    pub tree: Tree,
    /// Final values of the globals, indexed like the program's globals.
    pub globals: Vec<Value>,
}

/// Why a run failed.
#[derive(Clone, Debug)]
pub enum RunError {
    /// No `fuse` item of that name, a bad or missing argument.
    Usage(String),
    /// The input tree is malformed.
    Input(TreeInputError),
    /// The program raised a runtime error (rendered with position).
    Runtime(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Usage(m) | RunError::Runtime(m) => f.write_str(m),
            RunError::Input(e) => write!(f, "invalid input tree: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Which engine runs a `fuse` item.
#[derive(Clone, Copy, Debug)]
pub enum Engine<'f> {
    /// The calls one after another, as written: the program's meaning.
    Unfused,
    /// The fused schedule.
    Fused(&'f FusedProgram),
    /// The fused schedule with participant masks of any width, as fused
    /// functions of more than 128 participants get, whatever the
    /// program's width: for testing that representation (the fusion
    /// fuzzer runs one of its variants so).
    FusedWide(&'f FusedProgram),
    /// The fused schedule, the loops it may run in parallel split into
    /// chunks of at least this many nodes on the threads of the current
    /// rayon pool (`treefuse run --threads`); results as [`Engine::Fused`]
    /// gives them.
    FusedSplit(&'f FusedProgram, usize),
}

impl Program {
    /// Fuses every `fuse` item of the program under the given cut-offs.
    pub fn fuse_all(&self, options: &FusionOptions) -> FusedProgram {
        let analysis = treefuse_analysis::Analysis::new(&self.model);
        treefuse_fusion::fuse_program(&self.model, &analysis, options)
    }

    /// Parses the arguments of `fuse` item `fuse` from `NAME=VALUE` pairs
    /// (values as JSON, or bare text for `str` parameters).
    pub fn fuse_args(&self, fuse: &str, args: &[(&str, &str)]) -> Result<Vec<Value>, RunError> {
        let f = self.fuse(fuse)?;
        for (name, _) in args {
            if !f.frame.locals[..f.frame.num_params]
                .iter()
                .any(|(n, _)| n == name)
            {
                return Err(RunError::Usage(format!(
                    "the fuse item `{fuse}` has no parameter `{name}`"
                )));
            }
        }
        let mut values = Vec::new();
        for (name, ty) in &f.frame.locals[..f.frame.num_params] {
            let Some((_, text)) = args.iter().find(|(n, _)| n == name) else {
                return Err(RunError::Usage(format!(
                    "missing argument for parameter `{name}` of `{fuse}`: pass --arg {name}=VALUE"
                )));
            };
            let value = match (ty, treefuse_runtime::parse_value(&self.model, ty, text)) {
                (_, Ok(v)) => v,
                (treefuse_sema::DataType::Str, Err(_)) => Value::Str((*text).into()),
                (_, Err(e)) => {
                    return Err(RunError::Usage(format!(
                        "bad value for `{name}` ({}): {}",
                        self.model.data_type_name(ty),
                        e.message
                    )))
                }
            };
            values.push(value);
        }
        Ok(values)
    }

    fn fuse(&self, name: &str) -> Result<&treefuse_sema::Fuse, RunError> {
        self.model.fuse_named(name).ok_or_else(|| {
            let known: Vec<&str> = self.model.fuses.iter().map(|f| f.name.as_str()).collect();
            RunError::Usage(format!(
                "no fuse item `{name}` in {} (it has: {})",
                self.file_name,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
    }

    /// How many fused functions, those with the most visits, a profile
    /// explains ([`Program::render_profile`]).
    pub const WHY_ROWS: usize = 3;

    /// Renders where a run's visits went (`treefuse run --profile`): one
    /// row per fused function (named `F<n>` as in the `treefuse fuse`
    /// report of `fused`, which must be the fused program the run used) and
    /// per traversal body that ran outside fused functions, most visits
    /// first, with the share of all visits. When some calls of the fused
    /// program stayed apart, the [`Program::WHY_ROWS`] fused functions with
    /// the most visits follow with their call sites and what kept calls
    /// apart there ([`treefuse_fusion::report::call_sites`]).
    pub fn render_profile(&self, profile: &VisitProfile, fused: Option<&FusedProgram>) -> String {
        let model = &self.model;
        let mut rows: Vec<(u64, String)> = Vec::new();
        // Fused functions by visits, for the explanations after the table.
        let mut by_visits: Vec<(u64, usize)> = Vec::new();
        for (i, &visits) in profile.by_fused.iter().enumerate() {
            if let (true, Some(f)) = (visits > 0, fused.and_then(|p| p.functions.get(i))) {
                let name = treefuse_fusion::report::function_name(model, f);
                rows.push((visits, format!("F{i} {name}")));
                by_visits.push((visits, i));
            }
        }
        for (body, &visits) in model.bodies.iter().zip(&profile.by_body) {
            if visits > 0 {
                rows.push((
                    visits,
                    format!(
                        "{}.{} ({})",
                        model.type_name(body.owner),
                        model.methods[body.method.index()].name,
                        self.location(body.span)
                    ),
                ));
            }
        }
        // Most visits first; the order of discovery (fused functions by
        // number, then bodies in source order) breaks ties.
        rows.sort_by_key(|row| std::cmp::Reverse(row.0));
        let total: u64 = rows.iter().map(|row| row.0).sum();
        let mut out = format!(
            "visit profile: {total} visits ({})\n{:>12}  {:>6}  ran\n",
            if fused.is_some() {
                "fused; F<n> as in `treefuse fuse`"
            } else {
                "unfused"
            },
            "visits",
            "share"
        );
        for (visits, what) in rows {
            let share = 100.0 * visits as f64 / total.max(1) as f64;
            out.push_str(&format!("{visits:>12}  {share:>5.1}%  {what}\n"));
        }
        let kept_apart = |p: &&FusedProgram| {
            p.functions.iter().any(|f| !f.blocked.is_empty())
                || p.entries
                    .iter()
                    .any(|e| e.chunks.iter().any(|c| c.split.is_some()))
        };
        if let Some(fused) = fused.filter(kept_apart).filter(|_| !by_visits.is_empty()) {
            by_visits.sort_by_key(|&(visits, _)| std::cmp::Reverse(visits));
            let which = match Self::WHY_ROWS.min(by_visits.len()) {
                1 => "the fused function with the most visits is".to_string(),
                n => format!("the {n} fused functions with the most visits are"),
            };
            out.push_str(&format!(
                "\nwhere {which} called, and what kept calls apart there:\n"
            ));
            for &(_, i) in by_visits.iter().take(Self::WHY_ROWS) {
                out.push_str(&self.why_separate(fused, i));
            }
        }
        out
    }

    /// The explanation of fused function `F<i>` in a profile: its call
    /// sites and the distinct pairs of calls left apart at them.
    fn why_separate(&self, fused: &FusedProgram, i: usize) -> String {
        /// Sites named, and pairs shown, per function.
        const SHOWN: usize = 4;
        let sites = treefuse_fusion::report::call_sites(
            &self.model,
            fused,
            &self.source,
            treefuse_fusion::FusedFnId(i as u32),
        );
        // Each site once, and each pair of calls once with the first
        // reason given for it (the same two calls can stay apart at several
        // sites, by different dependence paths).
        let mut names: Vec<&str> = Vec::new();
        let mut pairs: Vec<&treefuse_fusion::report::KeptApart> = Vec::new();
        for site in &sites {
            if !names.contains(&site.site.as_str()) {
                names.push(&site.site);
            }
            for p in &site.kept_apart {
                if !pairs.iter().any(|q| q.calls == p.calls) {
                    pairs.push(p);
                }
            }
        }
        let more_sites = names.len().saturating_sub(SHOWN);
        names.truncate(SHOWN);
        let mut out = format!("F{i} is called by {}", names.join(", "));
        if more_sites > 0 {
            out.push_str(&format!(" and {more_sites} more"));
        }
        if pairs.is_empty() {
            out.push_str(
                "; no call there stayed apart from another: it walks on its own where its callers do\n",
            );
            return out;
        }
        out.push_str(":\n");
        for p in pairs.iter().take(SHOWN) {
            out.push_str(&format!("  not merged: {}: {}\n", p.calls, p.reason));
        }
        if pairs.len() > SHOWN {
            out.push_str(&format!(
                "  ({} more pairs: `treefuse fuse` lists them under each caller)\n",
                pairs.len() - SHOWN
            ));
        }
        out
    }

    /// Reads a tree for the root type of `fuse` item `fuse`.
    pub fn read_tree(&self, fuse: &str, json: &str) -> Result<Tree, RunError> {
        self.read_tree_from(fuse, json.as_bytes())
    }

    /// Reads a tree for the root type of `fuse` item `fuse` from a stream
    /// (a file, standard input), in one pass without holding the text.
    pub fn read_tree_from(&self, fuse: &str, input: impl std::io::Read) -> Result<Tree, RunError> {
        let f = self.fuse(fuse)?;
        treefuse_runtime::read_tree_from(&self.model, f.root_type, input).map_err(RunError::Input)
    }

    /// Runs `fuse` item `fuse` on an in-memory tree, unfused, with the
    /// given host functions; returns the statistics and final globals.
    pub fn run_tree(
        &self,
        fuse: &str,
        tree: &mut Tree,
        args: Vec<Value>,
        host: &Host,
    ) -> Result<(RunStats, Vec<Value>), RunError> {
        self.run_tree_with(fuse, tree, args, host, Engine::Unfused)
    }

    /// Runs `fuse` item `fuse` on an in-memory tree with the chosen engine.
    /// With [`Engine::Fused`], `RunStats::visits_per_call` has one entry
    /// per fused call on the root.
    pub fn run_tree_with(
        &self,
        fuse: &str,
        tree: &mut Tree,
        args: Vec<Value>,
        host: &Host,
        engine: Engine,
    ) -> Result<(RunStats, Vec<Value>), RunError> {
        let f = self.fuse(fuse)?;
        let mut interp = treefuse_interp::Interpreter::new(&self.model, host);
        let result = match engine {
            Engine::Unfused => interp.run_fuse(tree, f, args),
            Engine::Fused(fused) => interp.run_fused(tree, fused, f, args),
            Engine::FusedWide(fused) => interp.run_fused_wide(tree, fused, f, args),
            Engine::FusedSplit(fused, grain) => {
                interp.split_loops(Some(grain));
                interp.run_fused(tree, fused, f, args)
            }
        };
        let stats = result.map_err(|e| RunError::Runtime(e.render_at(&self.location(e.span))))?;
        Ok((stats, interp.globals))
    }

    /// Runs `fuse` item `fuse` on a JSON tree with `NAME=VALUE` arguments.
    pub fn run_json(
        &self,
        fuse: &str,
        tree_json: &str,
        args: &[(&str, &str)],
    ) -> Result<RunOutcome, RunError> {
        let args = self.fuse_args(fuse, args)?;
        let mut tree = self.read_tree(fuse, tree_json)?;
        let (stats, globals) = self.run_tree(fuse, &mut tree, args, &Host::new())?;
        let output_json =
            treefuse_runtime::write_tree(&self.model, &tree, Some(&globals), Default::default());
        Ok(RunOutcome {
            output_json,
            node_visits: stats.node_visits,
            visits_per_call: stats.visits_per_call,
            tree,
            globals,
        })
    }
}
