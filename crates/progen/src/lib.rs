//! Random well-typed treefuse programs and the fusion soundness check.
//!
//! [`generate`] writes a random program (schema, traversals, `fuse` items)
//! as `.tf` source; [`check_program`] compiles it, fuses it under two sets
//! of cut-offs, runs every `fuse` item unfused and fused on random trees and
//! compares the resulting trees, globals and runtime errors. The
//! soundness contract (LANGUAGE.md): a fused run leaves every tree and
//! global exactly as the unfused run, and raises a runtime error exactly
//! when the unfused run does. [`minimize`] shrinks a [`Mismatch`] to a
//! small reproducer.
//!
//! ```
//! let src = treefuse_progen::generate(7);
//! let stats = treefuse_progen::check_program(&src, 2, 20, 7).unwrap();
//! assert!(stats.pairs > 0);
//! ```

#![warn(missing_docs)]

pub mod gen;
pub mod hostile;
pub mod linter;
pub mod minimize;
mod optional;

pub use gen::{generate, generate_with, GenConfig};
pub use hostile::{generate_hostile, rename_hostile};
pub use minimize::{minimize, minimize_with};

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use treefuse::{Engine, FusedProgram, FusionOptions, Host, Program, RunError};
use treefuse::{RunStats, SplitStats};
use treefuse_runtime::{random_tree, GenOptions, Tree};
use treefuse_sema::Value;

/// Counts from checking programs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Programs checked.
    pub programs: usize,
    /// (`fuse` item, tree) pairs run unfused and under every fusion variant.
    pub pairs: usize,
    /// Pairs whose unfused run ended with a runtime error.
    pub errors: usize,
    /// Of those: division or remainder by zero.
    pub div_errors: usize,
    /// Of those: failed casts.
    pub cast_errors: usize,
    /// Of those: array indices out of range.
    pub index_errors: usize,
    /// Trees that could not be generated (no finite tree for a root).
    pub no_tree: usize,
    /// Node visits of the unfused runs that completed.
    pub unfused_visits: u64,
    /// Node visits of the fused runs (default cut-offs) that completed.
    pub fused_visits: u64,
    /// Node visits of the fused runs with small cut-offs that completed.
    pub small_fused_visits: u64,
    /// Completed pairs where the fused run (default cut-offs) made fewer
    /// visits than the unfused one.
    pub fewer_visits: usize,
    /// Completed pairs where it made more visits.
    pub more_visits: usize,
    /// Loops the split runs ([`Engine::FusedSplit`]) ran on several
    /// threads, and those they ran again sequentially after a conflict.
    pub split_loops: u64,
    /// Of the split loops, the linked chains whose items ran as one.
    pub split_chains: u64,
    /// See `split_loops`.
    pub split_reruns: u64,
}

impl Stats {
    /// Adds another set of counts.
    pub fn add(&mut self, o: &Stats) {
        self.programs += o.programs;
        self.pairs += o.pairs;
        self.errors += o.errors;
        self.div_errors += o.div_errors;
        self.cast_errors += o.cast_errors;
        self.index_errors += o.index_errors;
        self.no_tree += o.no_tree;
        self.unfused_visits += o.unfused_visits;
        self.fused_visits += o.fused_visits;
        self.small_fused_visits += o.small_fused_visits;
        self.fewer_visits += o.fewer_visits;
        self.more_visits += o.more_visits;
        self.split_loops += o.split_loops;
        self.split_chains += o.split_chains;
        self.split_reruns += o.split_reruns;
    }
}

/// What kind of failure a [`Mismatch`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// The program does not compile: a generator bug, or a checker bug.
    Compile,
    /// A fused run differs from the unfused one (tree, globals, or whether
    /// a runtime error is raised).
    Divergence,
    /// Fusing or running panicked.
    Panic,
}

/// A program and tree on which fusion is not sound (or a program that
/// does not compile).
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// What went wrong.
    pub kind: MismatchKind,
    /// The program source.
    pub source: String,
    /// The `fuse` item run.
    pub fuse: String,
    /// The input tree as JSON (empty for compile failures).
    pub tree_json: String,
    /// The cut-offs of the fusion variant that differed.
    pub options: FusionOptions,
    /// The first difference, in words.
    pub difference: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:?} in fuse `{}` with max_group {} max_repeat {}: {}",
            self.kind, self.fuse, self.options.max_group, self.options.max_repeat, self.difference
        )?;
        writeln!(f, "--- program\n{}", self.source)?;
        writeln!(f, "--- tree\n{}", self.tree_json)
    }
}

/// The fusion variants every program is checked under: the default
/// cut-offs and small ones (run by the interpreter with wide participant
/// masks, [`Engine::FusedWide`]).
pub fn variants() -> Vec<FusionOptions> {
    vec![
        FusionOptions::default(),
        FusionOptions {
            max_group: 2,
            max_repeat: 1,
        },
    ]
}

/// Tree-generation knobs used by [`check_program`].
pub fn tree_options(nodes: usize, seed: u64) -> GenOptions {
    GenOptions {
        nodes,
        max_depth: 7,
        max_list: 3,
        seed,
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".into()
    }
}

/// A compiled, fused program ready to be compared on trees.
pub struct Prepared {
    /// The compiled program.
    pub program: Program,
    /// One fused program per [`variants`] entry.
    pub fused: Vec<(FusionOptions, FusedProgram)>,
}

/// Compiles and fuses `src` under every variant.
pub fn prepare(src: &str) -> Result<Prepared, Mismatch> {
    let fail = |kind, difference: String| Mismatch {
        kind,
        source: src.to_string(),
        fuse: String::new(),
        tree_json: String::new(),
        options: FusionOptions::default(),
        difference,
    };
    let program = treefuse::compile_source("p.tf", src)
        .map_err(|d| fail(MismatchKind::Compile, d.render(false)))?;
    let mut fused = Vec::new();
    for o in variants() {
        let fp = catch_unwind(AssertUnwindSafe(|| program.fuse_all(&o))).map_err(|p| {
            let mut m = fail(
                MismatchKind::Panic,
                format!("fusion panicked: {}", panic_message(p)),
            );
            m.options = o.clone();
            m
        })?;
        fused.push((o, fp));
    }
    Ok(Prepared { program, fused })
}

/// The outcome of one run: the tree after it and either the run's
/// counts and globals, or the error message.
type Outcome = (Tree, Result<(RunStats, Vec<Value>), String>);

fn run(p: &Program, fuse: &str, tree: &Tree, args: &[Value], engine: Engine) -> Outcome {
    let mut t = tree.clone();
    let r = p.run_tree_with(fuse, &mut t, args.to_vec(), &Host::new(), engine);
    let r = match r {
        Ok((stats, globals)) => Ok((stats, globals)),
        Err(RunError::Runtime(m)) => Err(m),
        Err(e) => Err(format!("not a runtime error: {e}")),
    };
    (t, r)
}

/// The grain of the split runs: every element of a list of two or more a
/// chunk of its own, so that small random trees split.
const SPLIT_GRAIN: usize = 1;

/// Per-pair counts: (the unfused run's error message, unfused visits,
/// visits per variant, the split run's counts).
pub type PairStats = (Option<String>, u64, Vec<u64>, SplitStats);

/// Runs `fuse` on `tree` unfused and under every fused variant and
/// compares. `Err((variant index, difference, kind))` on the first
/// difference.
pub fn compare(
    prep: &Prepared,
    fuse: &str,
    tree: &Tree,
    args: &[Value],
) -> Result<PairStats, (usize, String, MismatchKind)> {
    let p = &prep.program;
    let (ut, ur) = catch_unwind(AssertUnwindSafe(|| {
        run(p, fuse, tree, args, Engine::Unfused)
    }))
    .map_err(|e| {
        (
            0,
            format!("the unfused run panicked: {}", panic_message(e)),
            MismatchKind::Panic,
        )
    })?;
    if let Err(m) = &ur {
        if m.starts_with("not a runtime error") {
            return Err((0, format!("unfused: {m}"), MismatchKind::Divergence));
        }
    }
    let mut visits = Vec::new();
    let mut first_fused = None;
    for (i, (_, fp)) in prep.fused.iter().enumerate() {
        // The small cut-offs' variant runs with wide participant masks,
        // the representation of fused functions past 128 participants.
        let engine = if i == 1 {
            Engine::FusedWide(fp)
        } else {
            Engine::Fused(fp)
        };
        let (ft, fr) = catch_unwind(AssertUnwindSafe(|| run(p, fuse, tree, args, engine)))
            .map_err(|e| {
                (
                    i,
                    format!("the fused run panicked: {}", panic_message(e)),
                    MismatchKind::Panic,
                )
            })?;
        let div = |d: String| Err((i, d, MismatchKind::Divergence));
        match (&ur, &fr) {
            (Err(_), Err(_)) => visits.push(0),
            (Err(u), Ok(_)) => {
                return div(format!(
                    "the unfused run raised a runtime error but the fused run did not: {u}"
                ))
            }
            (Ok(_), Err(f)) => {
                return div(format!(
                    "the fused run raised a runtime error but the unfused run did not: {f}"
                ))
            }
            (Ok((uv, ug)), Ok((fv, fg))) => {
                if let Some(d) = treefuse_runtime::diff_trees(&p.model, &ut, &ft, 1).first() {
                    return div(format!(
                        "trees differ at {}: unfused {}, fused {}",
                        d.path, d.left, d.right
                    ));
                }
                if let Some(d) = treefuse_runtime::diff_globals(&p.model, ug, fg).first() {
                    return div(format!(
                        "globals differ at {}: unfused {}, fused {}",
                        d.path, d.left, d.right
                    ));
                }
                let _ = uv;
                visits.push(fv.node_visits);
            }
        }
        if i == 0 {
            first_fused = Some((ft, fr));
        }
    }
    let split = match (first_fused, prep.fused.first()) {
        (Some(fused), Some((_, fp))) => compare_split(p, fuse, tree, args, fp, fused)?,
        _ => SplitStats::default(),
    };
    let (err, uv) = match &ur {
        Ok((v, _)) => (None, v.node_visits),
        Err(m) => (Some(m.clone()), 0),
    };
    Ok((err, uv, visits, split))
}

/// Runs the default fused variant `fp` again with its parallel loops
/// split ([`Engine::FusedSplit`], on the current rayon pool) and compares
/// with its sequential run `fused`: the same tree, globals, visits (every
/// count of the run) and error, as the split runs promise.
fn compare_split(
    p: &Program,
    fuse: &str,
    tree: &Tree,
    args: &[Value],
    fp: &FusedProgram,
    (ft, fr): Outcome,
) -> Result<SplitStats, (usize, String, MismatchKind)> {
    let (st, sr) = catch_unwind(AssertUnwindSafe(|| {
        run(p, fuse, tree, args, Engine::FusedSplit(fp, SPLIT_GRAIN))
    }))
    .map_err(|e| {
        (
            0,
            format!("the split run panicked: {}", panic_message(e)),
            MismatchKind::Panic,
        )
    })?;
    let div = |d: String| Err((0, format!("split run: {d}"), MismatchKind::Divergence));
    match (fr, sr) {
        (Err(f), Err(s)) if f == s => Ok(SplitStats::default()),
        (Err(f), Err(s)) => div(format!("the fused run raised `{f}`, the split run `{s}`")),
        (Err(f), Ok(_)) => div(format!("the fused run raised `{f}`, the split run nothing")),
        (Ok(_), Err(s)) => div(format!("the split run raised `{s}`, the fused run nothing")),
        (Ok((fs, fg)), Ok((ss, sg))) => {
            if let Some(d) = treefuse_runtime::diff_trees(&p.model, &ft, &st, 1).first() {
                return div(format!(
                    "trees differ at {}: fused {}, split {}",
                    d.path, d.left, d.right
                ));
            }
            if let Some(d) = treefuse_runtime::diff_globals(&p.model, &fg, &sg).first() {
                return div(format!(
                    "globals differ at {}: fused {}, split {}",
                    d.path, d.left, d.right
                ));
            }
            if ft.allocated() != st.allocated() {
                return div(format!(
                    "{} nodes allocated by the fused run, {} by the split run",
                    ft.allocated(),
                    st.allocated()
                ));
            }
            let split = ss.split;
            let counts = |s: RunStats| RunStats {
                split: SplitStats::default(),
                ..s
            };
            if counts(fs) != counts(ss) {
                return div("the counts (visits, profile, loop iterations) differ".into());
            }
            Ok(split)
        }
    }
}

/// Arguments for the extra parameters of a `fuse` item (random values).
pub fn fuse_args(p: &Program, fuse: &str, seed: u64) -> Vec<Value> {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    match p.model.fuse_named(fuse) {
        Some(f) => f.frame.locals[..f.frame.num_params]
            .iter()
            .map(|(_, t)| treefuse_runtime::gen::random_value(&p.model, t, &mut rng))
            .collect(),
        None => Vec::new(),
    }
}

/// Compiles `src`, fuses it with the default and with small cut-offs,
/// and runs each `fuse` item on `trees` random trees of about `nodes`
/// nodes (seeded from `seed`) unfused and fused, comparing trees, globals
/// and runtime errors.
pub fn check_program(src: &str, trees: usize, nodes: usize, seed: u64) -> Result<Stats, Mismatch> {
    let prep = prepare(src)?;
    let p = &prep.program;
    let mut stats = Stats {
        programs: 1,
        ..Stats::default()
    };
    for f in &p.model.fuses {
        for k in 0..trees {
            let tseed = seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(k as u64);
            // Vary the size: small trees find most bugs fastest.
            let n = 1 + (nodes * (k % 4 + 1)) / 4;
            let Ok(tree) = random_tree(&p.model, f.root_type, &tree_options(n, tseed)) else {
                stats.no_tree += 1;
                continue;
            };
            let args = fuse_args(p, &f.name, tseed);
            match compare(&prep, &f.name, &tree, &args) {
                Ok((err, uv, fv, split)) => {
                    stats.pairs += 1;
                    stats.split_loops += split.split_loops;
                    stats.split_chains += split.split_chains;
                    stats.split_reruns += split.rerun;
                    if let Some(m) = err {
                        stats.errors += 1;
                        if m.contains("by zero") {
                            stats.div_errors += 1;
                        } else if m.contains("cast failed") {
                            stats.cast_errors += 1;
                        } else if m.contains("out of range") {
                            stats.index_errors += 1;
                        }
                    } else {
                        stats.unfused_visits += uv;
                        stats.fused_visits += fv[0];
                        stats.small_fused_visits += fv.get(1).copied().unwrap_or(0);
                        if fv[0] < uv {
                            stats.fewer_visits += 1;
                        } else if fv[0] > uv {
                            stats.more_visits += 1;
                        }
                    }
                }
                Err((i, difference, kind)) => {
                    return Err(Mismatch {
                        kind,
                        source: src.to_string(),
                        fuse: f.name.clone(),
                        tree_json: treefuse_runtime::write_tree(
                            &p.model,
                            &tree,
                            None,
                            Default::default(),
                        ),
                        options: prep.fused[i].0.clone(),
                        difference,
                    })
                }
            }
        }
    }
    Ok(stats)
}

/// Checks a saved reproducer: `src` with the tree in `tree_json` for
/// `fuse`. `Err` with the difference when fusion is unsound on it.
pub fn check_tree(src: &str, fuse: &str, tree_json: &str) -> Result<PairStats, Mismatch> {
    let prep = prepare(src)?;
    let tree = prep
        .program
        .read_tree(fuse, tree_json)
        .map_err(|e| Mismatch {
            kind: MismatchKind::Divergence,
            source: src.to_string(),
            fuse: fuse.to_string(),
            tree_json: tree_json.to_string(),
            options: FusionOptions::default(),
            difference: format!("bad tree: {e}"),
        })?;
    let args = fuse_args(&prep.program, fuse, 0);
    compare(&prep, fuse, &tree, &args).map_err(|(i, difference, kind)| Mismatch {
        kind,
        source: src.to_string(),
        fuse: fuse.to_string(),
        tree_json: tree_json.to_string(),
        options: prep.fused[i].0.clone(),
        difference,
    })
}
