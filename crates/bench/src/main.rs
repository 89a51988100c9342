//! `treefuse-bench`: generated unfused vs generated fused traversals on the
//! case studies (render tree, AST), measured the way the Grafter paper
//! measured (CASE_STUDIES.md): wall clock around the pass sequence only,
//! tree construction excluded, node visits from the counted variants.
//!
//! For each input the tree is built once; every iteration clones it
//! (outside the timed region) and runs unfused and fused alternately in the
//! same process; the reported time is the median over the iterations.
//!
//! Usage:
//!   treefuse-bench [--quick] [--out DIR] [--iters N]
//!   treefuse-bench --case render|ast --variant V --sizes A,B,.. [--out DIR]
//!   treefuse-bench --only unfused|fused|build --case render|ast --variant V --size N
//!
//! `--only` runs one engine once on one input (or, with `build`, only builds
//! the tree) and prints nothing else; `cachegrind.sh` uses it.

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

/// Seed of every generated input.
const SEED: u64 = 7;

/// One engine of a generated module.
type RunFn<T, G, E> = fn(&mut T, &mut G) -> Result<(), E>;
/// One counted engine of a generated module.
type CountedFn<T, G, E> = fn(&mut T, &mut G) -> Result<u64, E>;

/// A built input tree with the engines of its module.
struct Prepared<T, G, E> {
    tree: T,
    unfused: RunFn<T, G, E>,
    fused: RunFn<T, G, E>,
    unfused_counted: CountedFn<T, G, E>,
    fused_counted: CountedFn<T, G, E>,
}

/// What the driver needs of a prepared input, whatever its module.
trait Bench {
    /// Clones the tree, runs one engine on the clone, returns the time of
    /// the run alone.
    fn time_once(&self, fused: bool) -> Duration;
    /// Node visits of one engine.
    fn visits(&self, fused: bool) -> u64;
    /// Runs one engine once on the tree itself (for cachegrind).
    fn run_in_place(&mut self, fused: bool);
}

impl<T: Clone, G: Default, E: Display> Bench for Prepared<T, G, E> {
    fn time_once(&self, fused: bool) -> Duration {
        let mut tree = self.tree.clone();
        let mut globals = G::default();
        let f = if fused { self.fused } else { self.unfused };
        let start = Instant::now();
        let r = f(&mut tree, &mut globals);
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

    fn run_in_place(&mut self, fused: bool) {
        let mut globals = G::default();
        let f = if fused { self.fused } else { self.unfused };
        if let Err(e) = f(&mut self.tree, &mut globals) {
            panic!("runtime error: {e}");
        }
        std::hint::black_box(&self.tree);
        std::hint::black_box(&globals);
    }
}

/// One benchmark input.
#[derive(Clone, Copy, Debug)]
struct Case {
    name: &'static str,
    variant: u8,
    size: usize,
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
                tree,
                unfused: render::run_render_unfused,
                fused: render::run_render_fused,
                unfused_counted: render::run_render_unfused_counted,
                fused_counted: render::run_render_fused_counted,
            }))
        }
        "ast" => {
            let schema = ast::schema();
            let tree = ast::read_json(&schema, "Program", &json)?;
            Ok(Box::new(Prepared {
                tree,
                unfused: ast::run_optimize_unfused,
                fused: ast::run_optimize_fused,
                unfused_counted: ast::run_optimize_unfused_counted,
                fused_counted: ast::run_optimize_fused_counted,
            }))
        }
        other => Err(format!("unknown case {other} (render or ast)")),
    }
}

/// The measurements of one input.
struct Row {
    case: Case,
    iters: usize,
    unfused: Duration,
    fused: Duration,
    unfused_visits: u64,
    fused_visits: u64,
}

impl Row {
    fn speedup(&self) -> f64 {
        self.unfused.as_secs_f64() / self.fused.as_secs_f64().max(1e-12)
    }

    fn normalized(&self) -> f64 {
        self.fused.as_secs_f64() / self.unfused.as_secs_f64().max(1e-12)
    }

    fn throughput(&self) -> f64 {
        self.unfused_visits as f64 / self.unfused.as_secs_f64().max(1e-12)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Measures one input: unfused and fused alternately (the order swapped
/// every iteration), at least `min_iters` iterations and until `budget` is
/// spent, at most `max_iters`.
fn measure(
    case: Case,
    min_iters: usize,
    max_iters: usize,
    budget: Duration,
) -> Result<Row, String> {
    let bench = prepare(case)?;
    let unfused_visits = bench.visits(false);
    let fused_visits = bench.visits(true);
    // One warm-up run of each.
    bench.time_once(false);
    bench.time_once(true);
    let mut us = Vec::new();
    let mut fs = Vec::new();
    let start = Instant::now();
    let mut i = 0;
    while i < min_iters || (i < max_iters && start.elapsed() < budget) {
        if i % 2 == 0 {
            us.push(bench.time_once(false));
            fs.push(bench.time_once(true));
        } else {
            fs.push(bench.time_once(true));
            us.push(bench.time_once(false));
        }
        i += 1;
    }
    Ok(Row {
        case,
        iters: i,
        unfused: median(us),
        fused: median(fs),
        unfused_visits,
        fused_visits,
    })
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

fn markdown(rows: &[Row], mode: &str, skipped: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# treefuse-bench results ({mode} mode)\n");
    let _ = writeln!(
        s,
        "Generated unfused vs generated fused code, measured alternately in one process; \
         median over the iterations; tree construction and cloning excluded. \
         Speedup = unfused time / fused time. Throughput = unfused node visits per second.\n"
    );
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let _ = writeln!(
        s,
        "Machine: {cpus} CPUs available to the process (`{} {}`); wall-clock numbers from a \
         shared or loaded machine are noisy: compare the ratios, and see cachegrind.md for \
         repeatable instruction and cache-miss counts. No hand-fused render version yet.\n",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    let _ = writeln!(
        s,
        "| input | iters | unfused | fused | speedup | unfused visits | fused visits | fused/unfused visits | unfused throughput (visits/s) |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2}x | {} | {} | {:.3} | {:.3e} |",
            r.case.label(),
            r.iters,
            fmt_time(r.unfused),
            fmt_time(r.fused),
            r.speedup(),
            r.unfused_visits,
            r.fused_visits,
            r.fused_visits as f64 / r.unfused_visits.max(1) as f64,
            r.throughput(),
        );
    }
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
        "case,variant,size,iters,unfused_ns,fused_ns,speedup,unfused_visits,fused_visits,unfused_visits_per_s\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.4},{},{},{:.0}",
            r.case.name,
            r.case.variant,
            r.case.size,
            r.iters,
            r.unfused.as_nanos(),
            r.fused.as_nanos(),
            r.speedup(),
            r.unfused_visits,
            r.fused_visits,
            r.throughput(),
        );
    }
    s
}

/// A bar plot of fused time normalized to unfused (unfused = 1.0, the
/// dashed line), one bar per input, like the paper's Figures 8 and 10.
fn svg(rows: &[Row]) -> String {
    let bar = 36.0;
    let gap = 14.0;
    let left = 60.0;
    let top = 40.0;
    let height = 260.0;
    let width = left + rows.len() as f64 * (bar + gap) + 40.0;
    let total_h = top + height + 150.0;
    let max = rows
        .iter()
        .map(Row::normalized)
        .fold(1.25_f64, f64::max)
        .ceil()
        .max(1.5);
    let y = |v: f64| top + height - v / max * height;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{total_h:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"20\" font-size=\"14\">Fused runtime normalized to unfused (lower is better)</text>"
    );
    // Axis and ticks.
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{:.1}\" stroke=\"black\"/>",
        top + height
    );
    let mut t = 0.0;
    while t <= max + 1e-9 {
        let _ = writeln!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{left}\" y2=\"{:.1}\" stroke=\"black\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{t:.2}</text>",
            left - 4.0,
            y(t),
            y(t),
            left - 6.0,
            y(t) + 4.0
        );
        t += 0.25;
    }
    for (i, r) in rows.iter().enumerate() {
        let x = left + gap / 2.0 + i as f64 * (bar + gap);
        let v = r.normalized();
        let color = if r.case.name == "render" {
            "#4477aa"
        } else {
            "#cc6677"
        };
        let _ = writeln!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{:.1}\" fill=\"{color}\"><title>{}: {v:.3}</title></rect>",
            y(v),
            top + height - y(v),
            r.case.label()
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"9\">{v:.2}</text>",
            x + bar / 2.0,
            y(v) - 3.0
        );
        let lx = x + bar / 2.0;
        let ly = top + height + 8.0;
        let short = format!(
            "{} {} / {}",
            if r.case.name == "render" {
                "doc"
            } else {
                "prog"
            },
            r.case.variant,
            r.case.size
        );
        let _ = writeln!(
            s,
            "<text x=\"{lx:.1}\" y=\"{ly:.1}\" transform=\"rotate(60 {lx:.1} {ly:.1})\">{short}</text>"
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>",
        y(1.0),
        width - 20.0,
        y(1.0)
    );
    let _ = writeln!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\">blue: render tree (pages); red: AST (functions); dashed: unfused = 1</text>",
        total_h - 10.0
    );
    s.push_str("</svg>\n");
    s
}

fn cases(quick: bool) -> Vec<Case> {
    let mut v = Vec::new();
    let render_sizes: &[usize] = if quick {
        &[1, 10, 100, 1000]
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
            });
        }
    }
    v
}

struct Args {
    quick: bool,
    only: Option<String>,
    case: String,
    variant: u8,
    size: usize,
    out: String,
    iters: usize,
    /// `--sizes A,B,..`: measure only these sizes of `--case`/`--variant`.
    sizes: Vec<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        quick: false,
        only: None,
        case: "render".into(),
        variant: 1,
        size: 1000,
        out: concat!(env!("CARGO_MANIFEST_DIR"), "/results").into(),
        iters: 0,
        sizes: Vec::new(),
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
            "--out" => a.out = value()?,
            "--sizes" => {
                a.sizes = value()?
                    .split(',')
                    .map(|x| x.trim().parse().map_err(|e| format!("--sizes: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--iters" => a.iters = value()?.parse().map_err(|e| format!("--iters: {e}"))?,
            "-h" | "--help" => {
                println!(
                    "treefuse-bench [--quick] [--out DIR] [--iters N] [--case C --variant V --sizes A,B,..]\n\
                     treefuse-bench --only unfused|fused|build --case render|ast --variant V --size N"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("treefuse-bench: {e}");
        std::process::exit(2);
    });
    if let Some(only) = &args.only {
        let case = Case {
            name: if args.case == "ast" { "ast" } else { "render" },
            variant: args.variant,
            size: args.size,
        };
        let mut bench = prepare(case).unwrap_or_else(|e| {
            eprintln!("treefuse-bench: {e}");
            std::process::exit(1);
        });
        match only.as_str() {
            "unfused" => bench.run_in_place(false),
            "fused" => bench.run_in_place(true),
            "build" => {}
            other => {
                eprintln!("treefuse-bench: --only {other}: expected unfused, fused or build");
                std::process::exit(2);
            }
        }
        return;
    }
    let cases = if args.sizes.is_empty() {
        cases(args.quick)
    } else {
        let name = if args.case == "ast" { "ast" } else { "render" };
        args.sizes
            .iter()
            .map(|&size| Case {
                name,
                variant: args.variant,
                size,
            })
            .collect()
    };
    let (min_iters, max_iters, budget) = if args.quick {
        (11, 501, Duration::from_millis(1500))
    } else {
        (7, 1001, Duration::from_secs(3))
    };
    let (min_iters, max_iters) = if args.iters > 0 {
        (args.iters, args.iters)
    } else {
        (min_iters, max_iters)
    };
    let bar = ProgressBar::new(cases.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} [{elapsed}] {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for case in cases {
        bar.set_message(case.label());
        match measure(case, min_iters, max_iters, budget) {
            Ok(r) => rows.push(r),
            Err(e) => {
                bar.println(format!("skipped {}: {e}", case.label()));
                skipped.push(format!("{}: {e}", case.label()));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mode = if args.quick { "quick" } else { "full" };
    let md = markdown(&rows, mode, &skipped);
    println!("{md}");
    let write = |name: &str, text: &str| {
        let path = format!("{}/{name}", args.out);
        if let Err(e) =
            std::fs::create_dir_all(&args.out).and_then(|()| std::fs::write(&path, text))
        {
            eprintln!("treefuse-bench: writing {path}: {e}");
        }
    };
    write("results.md", &md);
    write("results.csv", &csv(&rows));
    write("normalized.svg", &svg(&rows));
    println!(
        "written to {}/results.md, results.csv, normalized.svg",
        args.out
    );
}
