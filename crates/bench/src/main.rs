//! `treefuse-bench`: generated unfused vs generated fused traversals on the
//! case studies (render tree, AST), measured the way the Grafter paper
//! measured (CASE_STUDIES.md): wall clock around the pass sequence only,
//! tree construction excluded, node visits from the counted variants,
//! instructions and simulated cache misses from cachegrind. The render tree
//! and the AST also run a hand-fused Rust version (`hand_render.rs`,
//! `hand_ast.rs`) on the same tree layout, the bar generated fusion is
//! measured against.
//!
//! For each input the tree is built once; every iteration clones it
//! (outside the timed region) and runs the engines one after the other, in
//! an order that rotates every iteration; the reported time is the median
//! over the iterations. Under `--cachegrind` (the default in full mode) the
//! binary runs itself under valgrind once per engine, like one timed
//! iteration: build the tree, run the engine once on a copy (the warm-up),
//! copy the tree again and run the engine on the fresh copy. The cache
//! simulator (callgrind's, the same model as cachegrind's) runs throughout,
//! and events are collected only inside that last run (`measured_run`), so
//! the counts are one warm run's alone: no one-time costs (first touches of
//! code and of a stack segment, lazily initialised statics) and no noise
//! from subtracting two whole-process counts (building the tree varies by
//! a few hundred LL misses from process to process).
//!
//! `--arena-headroom` gives every copy of the tree room for half as many
//! nodes again, so the nodes a run creates do not make AST runs
//! reallocate and copy the 9 MB arena inside the timer
//! (`results/astfast`); where the fused AST time still
//! goes and what bounds it is in `results/astbound`, and how the hand-fused
//! AST version was found (each statement list walked once, the reaching
//! constants in a small map) in `results/handast`.
//!
//! Results go to `results.md` (a Markdown table), `results.csv` and one
//! SVG figure per case and variant (`render1.svg`, `ast1.svg`, ...): bars
//! of fused time, hand-fused time, visits, instructions and LL misses,
//! each normalized to unfused, like the paper's Figures 8 and 10. See
//! `--help` for the options.

use std::fmt::{Display, Write as _};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod render {
    include!(concat!(env!("OUT_DIR"), "/render.rs"));
}

#[allow(dead_code, unused_imports, missing_docs, clippy::all, clippy::pedantic)]
mod ast {
    include!(concat!(env!("OUT_DIR"), "/ast.rs"));
}

mod hand_ast;
mod hand_render;

/// Seed of every generated input.
const SEED: u64 = 7;

/// One engine of a generated module.
type RunFn<T, G, E> = fn(&mut T, &mut G) -> Result<(), E>;
/// One counted engine of a generated module.
type CountedFn<T, G, E> = fn(&mut T, &mut G) -> Result<u64, E>;
/// A hand-written engine (its own error type, shown as text).
type HandFn<T, G> = fn(&mut T, &mut G) -> Result<(), String>;

/// Which code runs the passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// Generated code, the passes one after the other.
    Unfused,
    /// Generated code from the fused IR.
    Fused,
    /// Hand-fused Rust (`hand_render.rs`, `hand_ast.rs`).
    Hand,
}

impl Engine {
    fn parse(s: &str) -> Option<Engine> {
        match s {
            "unfused" => Some(Engine::Unfused),
            "fused" => Some(Engine::Fused),
            "hand" => Some(Engine::Hand),
            _ => None,
        }
    }
}

/// A built input tree with the engines of its module.
struct Prepared<T, G, E> {
    tree: T,
    unfused: RunFn<T, G, E>,
    fused: RunFn<T, G, E>,
    hand: Option<HandFn<T, G>>,
    unfused_counted: CountedFn<T, G, E>,
    fused_counted: CountedFn<T, G, E>,
    /// Bytes per node of the tree's arenas (`Tree::node_bytes` over
    /// `Tree::node_count`).
    bytes_per_node: f64,
    /// Gives a copied tree's arenas room for the nodes a run creates
    /// (`--arena-headroom`), so the run does not grow them.
    reserve: Option<fn(&mut T)>,
}

/// What the driver needs of a prepared input, whatever its module.
trait Bench {
    /// Whether this input has a hand-fused engine.
    fn has_hand(&self) -> bool;
    /// Clones the tree, runs one engine on the clone, returns the time of
    /// the run alone.
    fn time_once(&self, engine: Engine) -> Duration;
    /// Node visits of the unfused (`false`) or fused (`true`) engine.
    fn visits(&self, fused: bool) -> u64;
    /// Runs one engine once on the tree itself (for cachegrind).
    fn run_in_place(&mut self, engine: Engine);
    /// Replaces the tree by a fresh copy of it (as a timed iteration
    /// runs on one).
    fn recopy(&mut self);
    /// Bytes per node of the input tree's arenas.
    fn bytes_per_node(&self) -> f64;
}

impl<T: Clone + Default, G: Default, E: Display> Prepared<T, G, E> {
    fn run(&self, engine: Engine, tree: &mut T, globals: &mut G) -> Result<(), String> {
        match engine {
            Engine::Unfused => (self.unfused)(tree, globals).map_err(|e| e.to_string()),
            Engine::Fused => (self.fused)(tree, globals).map_err(|e| e.to_string()),
            Engine::Hand => match self.hand {
                Some(hand) => hand(tree, globals),
                None => Err("this input has no hand-fused version".into()),
            },
        }
    }
}

impl<T: Clone + Default, G: Default, E: Display> Bench for Prepared<T, G, E> {
    fn has_hand(&self) -> bool {
        self.hand.is_some()
    }

    fn time_once(&self, engine: Engine) -> Duration {
        let mut tree = self.tree.clone();
        if let Some(reserve) = self.reserve {
            reserve(&mut tree);
        }
        let mut globals = G::default();
        let start = Instant::now();
        let r = self.run(engine, &mut tree, &mut globals);
        let elapsed = start.elapsed();
        if let Err(e) = r {
            panic!("runtime error: {e}");
        }
        std::hint::black_box(&tree);
        std::hint::black_box(&globals);
        elapsed
    }

    fn visits(&self, fused: bool) -> u64 {
        let mut tree = self.tree.clone();
        let mut globals = G::default();
        let f = if fused {
            self.fused_counted
        } else {
            self.unfused_counted
        };
        f(&mut tree, &mut globals).unwrap_or_else(|e| panic!("runtime error: {e}"))
    }

    fn run_in_place(&mut self, engine: Engine) {
        let mut tree = std::mem::take(&mut self.tree);
        let mut globals = G::default();
        if let Err(e) = self.run(engine, &mut tree, &mut globals) {
            panic!("runtime error: {e}");
        }
        std::hint::black_box(&tree);
        std::hint::black_box(&globals);
        self.tree = tree;
    }

    fn recopy(&mut self) {
        self.tree = self.tree.clone();
        if let Some(reserve) = self.reserve {
            reserve(&mut self.tree);
        }
    }

    fn bytes_per_node(&self) -> f64 {
        self.bytes_per_node
    }
}

/// One benchmark input.
#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    variant: u8,
    size: usize,
    /// `--arena-headroom`: every copy of the tree gets room for half as
    /// many nodes again before a run, so the nodes a run creates do not
    /// grow (reallocate and copy) the arena inside the timed region.
    headroom: bool,
}

impl Case {
    fn unit(&self) -> &'static str {
        if self.name == "render" {
            "pages"
        } else {
            "functions"
        }
    }

    fn label(&self) -> String {
        let what = if self.name == "render" {
            "render doc"
        } else {
            "AST prog"
        };
        format!("{what} {} / {} {}", self.variant, self.size, self.unit())
    }
}

/// Generates the input of `case` and builds the generated module's tree.
fn prepare(case: Case) -> Result<Box<dyn Bench>, String> {
    let json = treefuse_casegen::generate_string(case.name, case.variant, case.size, SEED)
        .map_err(|e| format!("generating {}: {e:?}", case.label()))?;
    match case.name {
        "render" => {
            let schema = render::schema();
            let tree = render::read_json(&schema, "Document", &json)?;
            Ok(Box::new(Prepared {
                bytes_per_node: ratio(tree.node_bytes() as f64, tree.node_count() as f64),
                tree,
                unfused: render::run_render_unfused,
                fused: render::run_render_fused,
                hand: Some(|t, g| hand_render::run(t, g).map_err(|e| e.to_string())),
                unfused_counted: render::run_render_unfused_counted,
                fused_counted: render::run_render_fused_counted,
                reserve: None,
            }))
        }
        "ast" => {
            let schema = ast::schema();
            let tree = ast::read_json(&schema, "Program", &json)?;
            Ok(Box::new(Prepared {
                bytes_per_node: ratio(tree.node_bytes() as f64, tree.node_count() as f64),
                tree,
                unfused: ast::run_optimize_unfused,
                fused: ast::run_optimize_fused,
                hand: Some(|t, g| hand_ast::run(t, g).map_err(|e| e.to_string())),
                unfused_counted: ast::run_optimize_unfused_counted,
                fused_counted: ast::run_optimize_fused_counted,
                reserve: case
                    .headroom
                    .then_some(|t: &mut ast::Tree| t.ast_node.reserve(t.ast_node.len() / 2)),
            }))
        }
        other => Err(format!("unknown case {other} (render or ast)")),
    }
}

/// Instructions and simulated cache misses of one engine on one input, from
/// cachegrind: one warm run of the engine alone (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
struct CacheCounts {
    instructions: i64,
    ll_misses: i64,
    d1_misses: i64,
}

/// Cachegrind counts of the engines of one input.
#[derive(Clone, Copy, Debug)]
struct CacheRow {
    unfused: CacheCounts,
    fused: CacheCounts,
    hand: Option<CacheCounts>,
}

/// The measurements of one input.
struct Row {
    case: Case,
    iters: usize,
    unfused: Duration,
    fused: Duration,
    hand: Option<Duration>,
    unfused_visits: u64,
    fused_visits: u64,
    /// Bytes per node of the input tree's arenas.
    bytes_per_node: f64,
    cache: Option<CacheRow>,
}

/// `a / b` as a float (0 when `b` is 0).
fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

impl Row {
    fn speedup(&self) -> f64 {
        ratio(self.unfused.as_secs_f64(), self.fused.as_secs_f64())
    }

    /// Unfused time over hand-fused time.
    fn hand_speedup(&self) -> Option<f64> {
        self.hand
            .map(|h| ratio(self.unfused.as_secs_f64(), h.as_secs_f64()))
    }

    /// Generated fused time over hand-fused time (1.10 = 10% slower).
    fn fused_over_hand(&self) -> Option<f64> {
        self.hand
            .map(|h| ratio(self.fused.as_secs_f64(), h.as_secs_f64()))
    }

    fn throughput(&self) -> f64 {
        ratio(self.unfused_visits as f64, self.unfused.as_secs_f64())
    }

    fn visit_ratio(&self) -> f64 {
        ratio(self.fused_visits as f64, self.unfused_visits as f64)
    }

    /// The bars of this row in the figures, each normalized to unfused:
    /// fused time, hand-fused time, fused visits, fused instructions,
    /// fused LL misses.
    fn normalized(&self) -> [Option<f64>; 5] {
        let u = self.unfused.as_secs_f64();
        let cache = |f: fn(&CacheCounts) -> i64| {
            self.cache
                .map(|c| ratio(f(&c.fused) as f64, f(&c.unfused) as f64))
        };
        [
            Some(ratio(self.fused.as_secs_f64(), u)),
            self.hand.map(|h| ratio(h.as_secs_f64(), u)),
            Some(self.visit_ratio()),
            cache(|c| c.instructions),
            cache(|c| c.ll_misses),
        ]
    }
}

/// The series of the figures, in `Row::normalized` order.
const SERIES: [(&str, &str); 5] = [
    ("fused runtime", "#4477aa"),
    ("hand-fused runtime", "#228833"),
    ("node visits", "#ccbb44"),
    ("instructions", "#ee6677"),
    ("LL misses", "#aa3377"),
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Measures one input: the engines run alternately (the order rotating
/// every iteration), at least `min_iters` iterations and until `budget` is
/// spent, at most `max_iters`.
fn measure(
    bench: &dyn Bench,
    case: Case,
    min_iters: usize,
    max_iters: usize,
    budget: Duration,
) -> Row {
    let unfused_visits = bench.visits(false);
    let fused_visits = bench.visits(true);
    let mut engines = vec![Engine::Unfused, Engine::Fused];
    if bench.has_hand() {
        engines.push(Engine::Hand);
    }
    // One warm-up run of each.
    for &e in &engines {
        bench.time_once(e);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); engines.len()];
    let start = Instant::now();
    let mut i = 0;
    while i < min_iters || (i < max_iters && start.elapsed() < budget) {
        for k in 0..engines.len() {
            let e = (i + k) % engines.len();
            times[e].push(bench.time_once(engines[e]));
        }
        i += 1;
    }
    let mut medians = times.into_iter().map(median);
    let unfused = medians.next().unwrap_or_default();
    let fused = medians.next().unwrap_or_default();
    Row {
        case,
        iters: i,
        unfused,
        fused,
        hand: medians.next(),
        unfused_visits,
        fused_visits,
        bytes_per_node: bench.bytes_per_node(),
        cache: None,
    }
}

/// The simulated caches: 32 KiB 8-way L1s and an 8 MiB 16-way LL, fixed
/// so that results do not depend on the host (valgrind otherwise copies
/// the host's LL, which on some VMs is hundreds of MiB).
const CACHES: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

/// Runs this binary with `--only what` under valgrind and returns the
/// counts of its measured run.
fn cachegrind_run(case: Case, what: &str) -> Result<CacheCounts, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this binary: {e}"))?;
    let out = std::env::temp_dir().join(format!(
        "treefuse-bench-cg-{}-{}-{}-{}-{what}.out",
        std::process::id(),
        case.name,
        case.variant,
        case.size
    ));
    let status = std::process::Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--cache-sim=yes",
            "--collect-atstart=no",
        ])
        .arg("--toggle-collect=*measured_run*")
        .args(CACHES)
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(["--only", what, "--case", case.name])
        .args(["--variant", &case.variant.to_string()])
        .args(["--size", &case.size.to_string()])
        .args(case.headroom.then_some("--arena-headroom"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("running valgrind: {e} (is valgrind installed?)"))?;
    if !status.success() {
        return Err(format!("valgrind --only {what} failed ({status})"));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("reading {}: {e}", out.display()));
    let _ = std::fs::remove_file(&out);
    parse_cachegrind(&text?).ok_or_else(|| format!("no summary in {}", out.display()))
}

/// Reads the `events:` and `summary:` lines of a callgrind (or cachegrind)
/// output file.
fn parse_cachegrind(text: &str) -> Option<CacheCounts> {
    let events: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))?
        .split_whitespace()
        .collect();
    let values: Vec<i64> = text
        .lines()
        .find_map(|l| l.strip_prefix("summary:"))?
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    let get = |name: &str| {
        events
            .iter()
            .position(|e| *e == name)
            .and_then(|i| values.get(i).copied())
            .unwrap_or(0)
    };
    Some(CacheCounts {
        instructions: get("Ir"),
        ll_misses: get("ILmr") + get("DLmr") + get("DLmw"),
        d1_misses: get("D1mr") + get("D1mw"),
    })
}

/// Cache-simulator counts of one warm run of every engine of `case`.
fn cachegrind_case(case: Case, hand: bool) -> Result<CacheRow, String> {
    let engine = |what: &str| cachegrind_run(case, what);
    Ok(CacheRow {
        unfused: engine("unfused")?,
        fused: engine("fused")?,
        hand: if hand { Some(engine("hand")?) } else { None },
    })
}

/// The run whose events the cache simulator collects (`--toggle-collect`
/// names it).
#[inline(never)]
fn measured_run(bench: &mut dyn Bench, engine: Engine) {
    bench.run_in_place(engine);
}

fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn fmt_opt(v: Option<f64>, digits: usize, suffix: &str) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}{suffix}"))
}

/// The Grafter paper's published results for the same case studies (its
/// C++ implementation, hardware counters, the authors' machine), printed
/// beside ours for reference; they were not measured here.
const GRAFTER_REFERENCE: &str = "
Reference (not measured here): the Grafter paper's published results for its C++ \
implementation of the same case studies (PLDI 2019, Section 5; hardware counters on the \
authors' machine, so only the ratios compare):

| case | node visits (fused / unfused) | cache misses (fused / unfused) | speedup | instructions (fused / unfused) |
|---|---:|---:|---:|---:|
| render tree (Grafter) | 0.40 (60% fewer) | 0.20 (80% fewer) | 1.2x at 1 page, 1.6x at 1,000 pages and more | 1.00 (no overhead) |
| AST (Grafter) | 0.76 (24% fewer) | 0.25 (75% fewer L2 misses) | 1.25x to 2.5x, by size | 1.04 to 1.15 |
| render tree (TreeFuser, single-type encoding) | 0.60 (40% fewer) | – | none | 1.30 to 1.40 |
";

fn markdown(rows: &[Row], mode: &str, skipped: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# treefuse-bench results ({mode} mode)\n");
    let _ = writeln!(
        s,
        "Generated unfused vs generated fused code vs hand-fused Rust on the same tree \
         layout (`crates/bench/src/hand_render.rs` for the render tree, \
         `crates/bench/src/hand_ast.rs` for the AST), measured alternately in one process; \
         median over the iterations; tree construction and cloning excluded. Speedup = \
         unfused time / fused time; hand speedup = unfused time / hand-fused time; \
         fused/hand = fused time / hand-fused time. Throughput = unfused node visits per \
         second. Bytes/node = size of the tree's arena nodes over their number (the \
         node structs and the tables of cold fields; heap data of strings and lists not counted). Instructions and LL misses are cachegrind counts of the engine alone \
         (fused / unfused; simulated 32 KiB L1s, 8 MiB LL).\n"
    );
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(
        s,
        "Machine: {cpus} CPUs available to the process (`{} {}`); wall-clock numbers from a \
         shared or loaded machine are noisy: compare the ratios, measured side by side.\n",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    if rows.iter().any(|r| r.case.headroom) {
        let _ = writeln!(
            s,
            "With `--arena-headroom`: every copy of the tree had room for half as many \
             nodes again before its run, so the runs did not grow the arenas (without it, \
             the first node an AST run creates reallocates and copies the whole arena, in \
             both engines).\n"
        );
    }
    let _ = writeln!(
        s,
        "| input | iters | unfused | fused | speedup | hand-fused | hand speedup | fused/hand | unfused visits | fused visits | visits | instructions | LL misses | bytes/node | unfused throughput (visits/s) |"
    );
    let _ = writeln!(
        s,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let [_, _, _, instr, ll] = r.normalized();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2}x | {} | {} | {} | {} | {} | {:.3} | {} | {} | {:.1} | {:.3e} |",
            r.case.label(),
            r.iters,
            fmt_time(r.unfused),
            fmt_time(r.fused),
            r.speedup(),
            r.hand.map_or_else(|| "–".to_string(), fmt_time),
            fmt_opt(r.hand_speedup(), 2, "x"),
            fmt_opt(r.fused_over_hand(), 2, ""),
            r.unfused_visits,
            r.fused_visits,
            r.visit_ratio(),
            fmt_opt(instr, 3, ""),
            fmt_opt(ll, 3, ""),
            r.bytes_per_node,
            r.throughput(),
        );
    }
    if rows.iter().any(|r| r.cache.is_some()) {
        let _ = writeln!(s, "\nCache-simulator counts (one warm run of the engine alone, as in a timed iteration):\n");
        let _ = writeln!(
            s,
            "| input | unfused I refs | fused I refs | hand I refs | unfused LL misses | fused LL misses | hand LL misses | unfused D1 misses | fused D1 misses |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for r in rows {
            if let Some(c) = &r.cache {
                let hand =
                    |f: fn(&CacheCounts) -> i64| c.hand.map_or("–".into(), |h| f(&h).to_string());
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.case.label(),
                    c.unfused.instructions,
                    c.fused.instructions,
                    hand(|h| h.instructions),
                    c.unfused.ll_misses,
                    c.fused.ll_misses,
                    hand(|h| h.ll_misses),
                    c.unfused.d1_misses,
                    c.fused.d1_misses,
                );
            }
        }
    }
    if mode == "full" {
        let _ = writeln!(
            s,
            "\nNot run: render document 3 at 1 page (it needs at least 5) and at 1,000 pages and \
             more (it grows super-polynomially, like the reference builder: 1,000 pages ran out \
             of 23 GiB); AST program 3 at 100,000 functions (over 6 minutes to generate, build \
             and run once here). Cachegrind: render up to 10,000 pages, AST up to 1,000 \
             functions by default (`--cachegrind-max-pages`, `--cachegrind-max-functions`)."
        );
    }
    s.push_str(GRAFTER_REFERENCE);
    if !skipped.is_empty() {
        let _ = writeln!(s, "\nSkipped:\n");
        for k in skipped {
            let _ = writeln!(s, "- {k}");
        }
    }
    s
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "case,variant,size,iters,unfused_ns,fused_ns,hand_ns,speedup,unfused_visits,fused_visits,unfused_visits_per_s,unfused_ir,fused_ir,hand_ir,unfused_ll,fused_ll,hand_ll,bytes_per_node\n",
    );
    let opt = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
    for r in rows {
        let c = r.cache;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{:.4},{},{},{:.0},{},{},{},{},{},{},{:.1}",
            r.case.name,
            r.case.variant,
            r.case.size,
            r.iters,
            r.unfused.as_nanos(),
            r.fused.as_nanos(),
            r.hand.map_or(String::new(), |h| h.as_nanos().to_string()),
            r.speedup(),
            r.unfused_visits,
            r.fused_visits,
            r.throughput(),
            opt(c.map(|c| c.unfused.instructions)),
            opt(c.map(|c| c.fused.instructions)),
            opt(c.and_then(|c| c.hand.map(|h| h.instructions))),
            opt(c.map(|c| c.unfused.ll_misses)),
            opt(c.map(|c| c.fused.ll_misses)),
            opt(c.and_then(|c| c.hand.map(|h| h.ll_misses))),
            r.bytes_per_node,
        );
    }
    s
}

/// A grouped bar chart like the paper's Figures 8 (render tree) and 10
/// (AST): one group per input size, one bar per measure, each normalized
/// to unfused (the dashed line at 1.0); lower is better.
fn figure(title: &str, rows: &[&Row]) -> String {
    let series: Vec<usize> = (0..SERIES.len())
        .filter(|&k| rows.iter().any(|r| r.normalized()[k].is_some()))
        .collect();
    let bar = 14.0;
    let group_gap = 22.0;
    let left = 56.0;
    let top = 46.0;
    let height = 240.0;
    let group_w = series.len() as f64 * bar + group_gap;
    let width = (left + rows.len() as f64 * group_w + 30.0).max(420.0);
    let total_h = top + height + 60.0 + 18.0 * series.len() as f64;
    let max = rows
        .iter()
        .flat_map(|r| r.normalized())
        .flatten()
        .fold(1.25_f64, f64::max)
        .min(4.0);
    let max = (max * 4.0).ceil() / 4.0;
    let y = |v: f64| top + height - v.min(max) / max * height;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{total_h:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"18\" font-size=\"14\">{title}</text>\n<text x=\"{left}\" y=\"34\">normalized to unfused (dashed line = 1.0; lower is better)</text>"
    );
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{:.1}\" stroke=\"black\"/>",
        top + height
    );
    let mut t = 0.0;
    while t <= max + 1e-9 {
        let _ = writeln!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#dddddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{t:.2}</text>",
            left,
            y(t),
            width - 20.0,
            y(t),
            left - 6.0,
            y(t) + 4.0
        );
        t += 0.25;
    }
    for (i, r) in rows.iter().enumerate() {
        let x0 = left + group_gap / 2.0 + i as f64 * group_w;
        let values = r.normalized();
        for (j, &k) in series.iter().enumerate() {
            let Some(v) = values[k] else { continue };
            let x = x0 + j as f64 * bar;
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{} {}: {v:.3}</title></rect>",
                y(v),
                bar - 1.0,
                top + height - y(v),
                SERIES[k].1,
                r.case.label(),
                SERIES[k].0
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x0 + series.len() as f64 * bar / 2.0,
            top + height + 16.0,
            r.case.size
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\" stroke-dasharray=\"5 3\"/>",
        y(1.0),
        width - 20.0,
        y(1.0)
    );
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        left + (width - left) / 2.0,
        top + height + 34.0,
        rows.first().map_or("size", |r| r.case.unit())
    );
    for (j, &k) in series.iter().enumerate() {
        let ly = top + height + 52.0 + j as f64 * 18.0;
        let _ = writeln!(
            s,
            "<rect x=\"{left}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            ly - 10.0,
            SERIES[k].1,
            left + 18.0,
            ly,
            SERIES[k].0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// One figure per (case, variant) present in `rows`: file name and SVG.
fn figures(rows: &[Row]) -> Vec<(String, String)> {
    let mut keys: Vec<(&str, u8)> = rows.iter().map(|r| (r.case.name, r.case.variant)).collect();
    keys.dedup();
    keys.into_iter()
        .map(|(name, variant)| {
            let group: Vec<&Row> = rows
                .iter()
                .filter(|r| r.case.name == name && r.case.variant == variant)
                .collect();
            let title = if name == "render" {
                format!("Render tree, document {variant} (cf. Grafter Figure 8)")
            } else {
                format!("AST, program {variant} (cf. Grafter Figure 10)")
            };
            (format!("{name}{variant}.svg"), figure(&title, &group))
        })
        .collect()
}

fn cases(quick: bool, headroom: bool) -> Vec<Case> {
    let mut v = Vec::new();
    let render_sizes: &[usize] = if quick {
        &[1, 10, 100, 1000, 10_000]
    } else {
        &[1, 10, 100, 1000, 10_000, 100_000]
    };
    let ast_sizes: &[usize] = if quick {
        &[10, 100, 1000]
    } else {
        &[10, 100, 1000, 10_000, 100_000]
    };
    let variants: &[u8] = if quick { &[1] } else { &[1, 3] };
    for &variant in variants {
        for &size in render_sizes {
            // Document 3 needs size >= 5 and grows much faster than document
            // 1: at 1,000 pages it ran out of memory (23 GiB) on the
            // development box, so the full run stops at 100 pages.
            if variant == 3 && !(5..=100).contains(&size) {
                continue;
            }
            v.push(Case {
                name: "render",
                variant,
                size,
                headroom,
            });
        }
    }
    for &variant in variants {
        for &size in ast_sizes {
            // Program 3 at 100,000 functions took over 6 minutes just to
            // generate, build and run once on the 2-core development box:
            // left out of the full run.
            if variant == 3 && size > 10_000 {
                continue;
            }
            v.push(Case {
                name: "ast",
                variant,
                size,
                headroom,
            });
        }
    }
    v
}

const USAGE: &str = "\
treefuse-bench: generated unfused vs generated fused (vs hand-fused) traversals

Usage:
  treefuse-bench [--quick] [--out DIR] [--iters N] [--cachegrind | --no-cachegrind]
  treefuse-bench --case render|ast --variant V --sizes A,B,.. [options above]
  treefuse-bench --only unfused|fused|hand|build --case render|ast --variant V --size N

Options:
  --quick             render document 1 up to 10,000 pages and AST program 1 up to
                      1,000 functions, short time budget, no cachegrind (under a
                      minute)
  --out DIR           where results.md, results.csv and the figures go
                      (default crates/bench/results; quick mode writes to DIR/quick)
  --iters N           exactly N iterations per input
  --cachegrind        also count instructions and LL misses of every engine under
                      valgrind's cachegrind (default in full mode)
  --no-cachegrind     do not run cachegrind
  --cachegrind-max-pages N
                      render inputs of at most N pages under cachegrind (default 10000)
  --cachegrind-max-functions N
                      AST inputs of at most N functions under cachegrind (default
                      1000; program 1 at 1,000 functions is 230,000 nodes)
  --arena-headroom    give every copy of the tree room for half as many nodes
                      again before it is run (AST: passes create nodes, and
                      growing the full arena copies it inside the timed run,
                      in both engines alike)
  --only ENGINE       run one engine on one input and print nothing (for
                      profilers): a warm-up run on a copy of the tree, then
                      the measured run (`measured_run`) on a fresh copy;
                      `build` only builds the tree
";

struct Args {
    quick: bool,
    only: Option<String>,
    case: String,
    variant: u8,
    size: usize,
    out: Option<String>,
    iters: usize,
    /// `--sizes A,B,..`: measure only these sizes of `--case`/`--variant`.
    sizes: Vec<usize>,
    cachegrind: Option<bool>,
    cachegrind_max_pages: usize,
    cachegrind_max_functions: usize,
    arena_headroom: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        quick: false,
        only: None,
        case: "render".into(),
        variant: 1,
        size: 1000,
        out: None,
        iters: 0,
        sizes: Vec::new(),
        cachegrind: None,
        cachegrind_max_pages: 10_000,
        cachegrind_max_functions: 1_000,
        arena_headroom: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => a.quick = true,
            "--only" => a.only = Some(value()?),
            "--case" => a.case = value()?,
            "--variant" => a.variant = value()?.parse().map_err(|e| format!("--variant: {e}"))?,
            "--size" => a.size = value()?.parse().map_err(|e| format!("--size: {e}"))?,
            "--out" => a.out = Some(value()?),
            "--sizes" => {
                a.sizes = value()?
                    .split(',')
                    .map(|x| x.trim().parse().map_err(|e| format!("--sizes: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--iters" => a.iters = value()?.parse().map_err(|e| format!("--iters: {e}"))?,
            "--cachegrind" => a.cachegrind = Some(true),
            "--arena-headroom" => a.arena_headroom = true,
            "--no-cachegrind" => a.cachegrind = Some(false),
            "--cachegrind-max-pages" => {
                a.cachegrind_max_pages = value()?
                    .parse()
                    .map_err(|e| format!("--cachegrind-max-pages: {e}"))?
            }
            "--cachegrind-max-functions" => {
                a.cachegrind_max_functions = value()?
                    .parse()
                    .map_err(|e| format!("--cachegrind-max-functions: {e}"))?
            }
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other} (see --help)")),
        }
    }
    if !matches!(a.case.as_str(), "render" | "ast") {
        return Err(format!("--case {}: expected render or ast", a.case));
    }
    Ok(a)
}

fn case_name(s: &str) -> &'static str {
    if s == "ast" {
        "ast"
    } else {
        "render"
    }
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("treefuse-bench: {e}");
        std::process::exit(2);
    });
    if let Some(only) = &args.only {
        let case = Case {
            name: case_name(&args.case),
            variant: args.variant,
            size: args.size,
            headroom: args.arena_headroom,
        };
        let engine = if only == "build" {
            None
        } else {
            Some(Engine::parse(only).unwrap_or_else(|| {
                eprintln!("treefuse-bench: --only {only}: expected unfused, fused, hand or build");
                std::process::exit(2);
            }))
        };
        let mut bench = prepare(case).unwrap_or_else(|e| {
            eprintln!("treefuse-bench: {e}");
            std::process::exit(1);
        });
        if let Some(engine) = engine {
            // As in a timed iteration: a warm-up run on a copy, then the
            // measured run on a fresh copy.
            bench.time_once(engine);
            bench.recopy();
            measured_run(bench.as_mut(), engine);
        }
        return;
    }
    let cases = if args.sizes.is_empty() {
        cases(args.quick, args.arena_headroom)
    } else {
        args.sizes
            .iter()
            .map(|&size| Case {
                name: case_name(&args.case),
                variant: args.variant,
                size,
                headroom: args.arena_headroom,
            })
            .collect()
    };
    let (min_iters, max_iters, budget) = if args.quick {
        (11, 1001, Duration::from_secs(2))
    } else {
        (7, 1001, Duration::from_secs(3))
    };
    let (min_iters, max_iters) = if args.iters > 0 {
        (args.iters, args.iters)
    } else {
        (min_iters, max_iters)
    };
    let use_cachegrind = args.cachegrind.unwrap_or(!args.quick);
    let bar = ProgressBar::new(cases.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} [{elapsed}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for case in cases {
        bar.set_message(format!("{}: building", case.label()));
        let bench = match prepare(case) {
            Ok(b) => b,
            Err(e) => {
                bar.println(format!("skipped {}: {e}", case.label()));
                skipped.push(format!("{}: {e}", case.label()));
                bar.inc(1);
                continue;
            }
        };
        bar.set_message(format!("{}: timing", case.label()));
        let mut row = measure(bench.as_ref(), case, min_iters, max_iters, budget);
        let has_hand = bench.has_hand();
        drop(bench);
        let cachegrind_max = if case.name == "render" {
            args.cachegrind_max_pages
        } else {
            args.cachegrind_max_functions
        };
        if use_cachegrind && case.size <= cachegrind_max {
            bar.set_message(format!("{}: cachegrind", case.label()));
            match cachegrind_case(case, has_hand) {
                Ok(c) => row.cache = Some(c),
                Err(e) => {
                    bar.println(format!("cachegrind skipped for {}: {e}", case.label()));
                    skipped.push(format!("cachegrind of {}: {e}", case.label()));
                }
            }
        }
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mode = if args.quick { "quick" } else { "full" };
    let md = markdown(&rows, mode, &skipped);
    println!("{md}");
    let out = args.out.clone().unwrap_or_else(|| {
        let base = concat!(env!("CARGO_MANIFEST_DIR"), "/results");
        if args.quick {
            format!("{base}/quick")
        } else {
            base.to_string()
        }
    });
    let write = |name: &str, text: &str| {
        let path = format!("{out}/{name}");
        if let Err(e) = std::fs::create_dir_all(&out).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("treefuse-bench: writing {path}: {e}");
        }
    };
    write("results.md", &md);
    write("results.csv", &csv(&rows));
    let mut names = vec!["results.md".to_string(), "results.csv".to_string()];
    for (name, svg) in figures(&rows) {
        write(&name, &svg);
        names.push(name);
    }
    println!("written to {out}/: {}", names.join(", "));
}
