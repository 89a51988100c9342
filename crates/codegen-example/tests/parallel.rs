//! Differential tests of the parallel entry points (`run_<fuse>_parallel`,
//! `treefuse_codegen::Config::parallel`): on the case studies and on the
//! random programs of `treefuse-progen`, the parallel run leaves the same
//! tree and globals, counts the same visits and raises the same error as
//! the sequential fused run of the same module.
//!
//! The trees here are small, so the runs use a grain of one node (every
//! element of a parallel loop may be a chunk of its own) besides the
//! default; each test checks that loops really did split, so that it does
//! not pass by running everything sequentially.
//!
//! `TREEFUSE_PARALLEL_TREES=N` runs N random trees per random program and
//! `fuse` item (default 6); with the seeds of `TREEFUSE_CODEGEN_SEEDS`
//! (`scripts/codegen-batch`) this is the long run:
//!
//! ```text
//! TREEFUSE_CODEGEN_NAMES=plain TREEFUSE_CODEGEN_SEEDS=47000..47060 TREEFUSE_PARALLEL_TREES=300 \
//!     cargo test --release -p treefuse-codegen-example --test parallel random_programs -- --nocapture
//! ```
//!
//! (2026-12-04: 179,100 pairs, 13,288 loops split, no difference.)

use treefuse_codegen_example as g;
use treefuse_runtime::generated::Parallel;
use treefuse_runtime::rayon;
use treefuse_runtime::{random_tree, GenOptions, Tree as RtTree};

type SequentialFn<'a> = &'a dyn Fn(&RtTree) -> Result<(String, u64), String>;
type ParallelFn<'a> = &'a (dyn Fn(&RtTree, &Parallel) -> Result<(String, u64), String> + Sync);

/// A rayon pool of `n` threads (the tests do not depend on the machine's
/// core count).
fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a thread pool")
}

/// Runs `input` sequentially and in parallel with grains 1 and 3 on two
/// and three threads; panics on a difference. Returns the loops split.
fn agree(what: &str, input: &RtTree, seq: SequentialFn, par: ParallelFn) -> u64 {
    let expected = seq(input);
    let mut split = 0;
    for (threads, grain) in [(2, 1), (3, 1), (2, 3)] {
        let options = Parallel::new(grain);
        let got = pool(threads).install(|| par(input, &options));
        match (&expected, &got) {
            (Ok(a), Ok(b)) => assert!(
                a == b,
                "{what} ({threads} threads, grain {grain}): the parallel run differs:\nsequential {a:?}\nparallel   {b:?}"
            ),
            (Err(a), Err(b)) => assert_eq!(
                a, b,
                "{what} ({threads} threads, grain {grain}): the errors differ"
            ),
            _ => panic!(
                "{what} ({threads} threads, grain {grain}): error behaviour differs: sequential {expected:?} / parallel {got:?}"
            ),
        }
        split += options.split_loops();
    }
    split
}

fn example(path: &str) -> treefuse::Program {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    treefuse::compile_file(&full).unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! case_study {
    ($module:ident, $fuse:literal) => {{
        use g::parallel::$module as m;
        let schema = m::schema();
        let seq = move |t: &RtTree| -> Result<(String, u64), String> {
            m::run_by_name(&m::schema(), $fuse, true, t, &[])
                .expect("the fuse item exists")
                .map_err(|e| e.to_string())
        };
        let par = move |t: &RtTree, p: &Parallel| -> Result<(String, u64), String> {
            m::run_parallel_by_name(&m::schema(), $fuse, t, &[], p)
                .expect("the fuse item exists")
                .map_err(|e| e.to_string())
        };
        let _ = schema;
        (seq, par)
    }};
}

/// Generated inputs of a case study (`treefuse-casegen`) and random trees.
fn case_inputs(
    program: &treefuse::Program,
    fuse: &str,
    generator: &str,
    sizes: &[usize],
) -> Vec<(String, RtTree)> {
    let mut inputs = Vec::new();
    for &size in sizes {
        for seed in 0..3 {
            let json = treefuse_casegen::generate_string(generator, 1, size, seed).unwrap();
            let tree = program.read_tree(fuse, &json).unwrap();
            inputs.push((format!("{generator} {size} seed {seed}"), tree));
        }
    }
    let root = program.model.fuse_named(fuse).unwrap().root_type;
    for seed in 0..10 {
        let options = GenOptions {
            nodes: 200,
            seed,
            ..Default::default()
        };
        let t = random_tree(&program.model, root, &options).unwrap();
        inputs.push((format!("random tree seed {seed}"), t));
    }
    inputs
}

#[test]
fn render_lists() {
    let program = example("examples/render/render_lists.tf");
    let (seq, par) = case_study!(render_lists, "render");
    let mut split = 0;
    for (what, t) in case_inputs(&program, "render", "render-lists", &[1, 4, 20]) {
        split += agree(&format!("render_lists {what}"), &t, &seq, &par);
    }
    assert!(split > 0, "no loop of render_lists ran in parallel");
}

#[test]
fn ast_lists() {
    let program = example("examples/ast/ast_lists.tf");
    let (seq, par) = case_study!(ast_lists, "optimize");
    for (what, t) in case_inputs(&program, "optimize", "ast-lists", &[1, 4, 20]) {
        agree(&format!("ast_lists {what}"), &t, &seq, &par);
    }
}

#[test]
fn minic() {
    let program = example("examples/minic");
    let (seq, par) = case_study!(minic, "optimize");
    let mut split = 0;
    for (what, t) in case_inputs(&program, "optimize", "minic", &[1, 4, 20]) {
        split += agree(&format!("minic {what}"), &t, &seq, &par);
    }
    assert!(split > 0, "no loop of minic ran in parallel");
}

/// A write-first global (`programs/write_first.tf`): items that do not
/// write it, items that fail before writing it, at every position in the
/// chunks; the global after the loop (or at the error) is the sequential
/// run's.
#[test]
fn write_first_global() {
    let program = treefuse::compile_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/programs/write_first.tf"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let (seq, par) = case_study!(write_first, "run");
    let item = |v: i64, d: i64, kids: &str| {
        format!(r#"{{"type": "Item", "v": {v}, "d": {d}, "out": 0, "kids": [{kids}]}}"#)
    };
    let mut split = 0;
    for n in [2, 5, 9] {
        for fail_at in [None, Some(0), Some(1), Some(n / 2), Some(n - 1)] {
            for writers in [0, 1, 2] {
                let items: Vec<String> = (0..n)
                    .map(|i| {
                        // `v % 4 == 0` returns before writing: none, the
                        // even items or all but the first write.
                        let v = match writers {
                            0 => 4 * i as i64,
                            1 => 4 * i as i64 + (i % 2) as i64,
                            _ => 4 * i as i64 + if i == 0 { 0 } else { 1 + (i % 3) as i64 },
                        };
                        let d = if Some(i) == fail_at {
                            0
                        } else {
                            1 + (i % 5) as i64
                        };
                        let kid = item(v + 1, 3, "");
                        item(v, d, &kid)
                    })
                    .collect();
                let json = format!(r#"{{"type": "Root", "items": [{}]}}"#, items.join(", "));
                let tree = program.read_tree("run", &json).unwrap();
                split += agree(
                    &format!("write_first {n} items, failing at {fail_at:?}, writers {writers}"),
                    &tree,
                    &seq,
                    &par,
                );
            }
        }
    }
    assert!(split > 0, "the loop over items never ran in parallel");
}

/// The random programs with parallel entry points (plain names; see
/// `build.rs`), each `fuse` item on random trees.
#[test]
fn random_programs() {
    let trees: u64 = std::env::var("TREEFUSE_PARALLEL_TREES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let (mut pairs, mut split) = (0u64, 0u64);
    for r in g::random::PROGRAMS {
        let Some(run_parallel) = r.run_parallel else {
            continue;
        };
        let program = treefuse::compile_source(&format!("random_{}.tf", r.seed), r.source)
            .unwrap_or_else(|e| panic!("{e}"));
        for fuse in &program.model.fuses {
            for seed in 0..trees {
                let what = format!(
                    "random program {} fuse {} tree seed {seed}",
                    r.seed, fuse.name
                );
                let input = random_tree(
                    &program.model,
                    fuse.root_type,
                    &treefuse_progen::tree_options(40 + (seed as usize % 4) * 40, seed),
                )
                .unwrap();
                let args = treefuse_progen::fuse_args(&program, &fuse.name, seed);
                let seq = |t: &RtTree| {
                    (r.run)(&program.model, &fuse.name, true, t, &args)
                        .expect("the fuse item exists")
                };
                let par = |t: &RtTree, p: &Parallel| {
                    run_parallel(&program.model, &fuse.name, t, &args, p)
                        .expect("the fuse item exists")
                };
                split += agree(&what, &input, &seq, &par);
                pairs += 3;
            }
        }
    }
    eprintln!("{pairs} sequential/parallel pairs, {split} loops split");
    assert!(pairs > 50, "{pairs}");
    assert!(split > 0, "no loop of the random programs ran in parallel");
}

/// A second run on a tree that a first run rewrote (nodes created at the
/// arenas' ends, subtrees moved): its layout is no longer the pre-order of
/// a tree read from JSON, so loops split only where the check proves the
/// guessed ranges, and run sequentially elsewhere; either way the parallel
/// run leaves what the sequential one does.
#[test]
fn second_runs_on_rewritten_trees() {
    macro_rules! twice {
        ($module:ident, $root:literal, $generator:literal, $run:ident, $run_parallel:ident) => {{
            use g::parallel::$module as m;
            let schema = m::schema();
            for seed in 0..3 {
                let json = treefuse_casegen::generate_string($generator, 1, 30, seed).unwrap();
                let mut first = m::read_json(&schema, $root, &json).unwrap();
                let mut globals = m::Globals::default();
                if m::$run(&mut first, &mut globals).is_err() {
                    continue;
                }
                let mut seq = first.clone();
                let mut seq_globals = m::Globals::default();
                let expected = m::$run(&mut seq, &mut seq_globals).map_err(|e| e.to_string());
                for (threads, grain) in [(2, 1), (2, 64)] {
                    let mut par = first.clone();
                    let mut par_globals = m::Globals::default();
                    let options = Parallel::new(grain);
                    let got = pool(threads).install(|| {
                        m::$run_parallel(&mut par, &mut par_globals, &options).map_err(|e| e.to_string())
                    });
                    assert_eq!(expected, got, "{} seed {seed}: errors differ", $generator);
                    assert!(
                        m::write_json(&schema, &seq, &seq_globals)
                            == m::write_json(&schema, &par, &par_globals),
                        "{} seed {seed} ({threads} threads, grain {grain}): the second parallel run differs",
                        $generator
                    );
                }
            }
        }};
    }
    twice!(
        ast_lists,
        "Program",
        "ast-lists",
        run_optimize_fused,
        run_optimize_parallel
    );
    twice!(
        render_lists,
        "Document",
        "render-lists",
        run_render_fused,
        run_render_parallel
    );
    twice!(
        minic,
        "Program",
        "minic",
        run_optimize_fused,
        run_optimize_parallel
    );
}
