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
/// and three threads, the splits guessed from every element or (the
/// second and third runs) from a sample from two or five elements on;
/// panics on a difference. Returns the loops split.
fn agree(what: &str, input: &RtTree, seq: SequentialFn, par: ParallelFn) -> u64 {
    let expected = seq(input);
    let mut split = 0;
    for (threads, grain, sampled) in [(2, 1, usize::MAX), (3, 1, 2), (2, 3, 5)] {
        let options = Parallel::new(grain).sampled_from(sampled);
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
        CHAINS_SPLIT.with(|c| c.set(c.get() + options.split_chains()));
    }
    split
}

thread_local! {
    /// Chains split by [`agree`]'s runs on this test's thread (part of
    /// the loops it returns).
    static CHAINS_SPLIT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
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
        // One large tree: lists from `Parallel::DEFAULT_SAMPLED_FROM`
        // elements on have their plan guessed from a sample.
        let seeds = if size >= Parallel::DEFAULT_SAMPLED_FROM {
            0..1
        } else {
            0..3
        };
        for seed in seeds {
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

/// The faithful ports keep the C++ sources' linked lists: pages and
/// functions hang off chains of `Inner { content, next }` nodes, and the
/// fused function on an inner node calls `content` and `next`, which the
/// fuser finds independent. The parallel entry points run the chain's
/// items in parallel (`plan_chain`).
#[test]
fn render_chain() {
    let program = example("examples/render/render.tf");
    let (seq, par) = case_study!(render, "render");
    let mut split = 0;
    for (what, t) in case_inputs(&program, "render", "render", &[1, 4, 20, 600]) {
        split += agree(&format!("render {what}"), &t, &seq, &par);
    }
    assert!(split > 0, "no chain of render ran in parallel");
}

#[test]
fn ast_chain() {
    let program = example("examples/ast/ast.tf");
    let (seq, par) = case_study!(ast, "optimize");
    let mut split = 0;
    for (what, t) in case_inputs(&program, "optimize", "ast", &[1, 4, 20, 600]) {
        split += agree(&format!("ast {what}"), &t, &seq, &par);
    }
    assert!(split > 0, "no chain of ast ran in parallel");
}

/// Lists and chains from `Parallel::DEFAULT_SAMPLED_FROM` elements on
/// split on a plan guessed from a sample of their elements: 600 pages of
/// render, 600 functions of the AST program and of minic, with the
/// default options but for the grain, split into chunks and agree.
#[test]
fn long_lists_split_on_a_sampled_guess() {
    fn check(program: &str, fuse: &str, generator: &str, seq: SequentialFn, par: ParallelFn) {
        let program = example(program);
        let json = treefuse_casegen::generate_string(generator, 1, 600, 0).unwrap();
        let tree = program.read_tree(fuse, &json).unwrap();
        let options = Parallel::new(256);
        assert_eq!(
            seq(&tree),
            pool(2).install(|| par(&tree, &options)),
            "{generator}"
        );
        assert!(
            options.split_loops() > 0 && options.chunks() > 2 * options.split_loops(),
            "{generator}: no loop split on a sampled guess ({} loops, {} chunks)",
            options.split_loops(),
            options.chunks()
        );
    }
    let (seq, par) = case_study!(render, "render");
    check("examples/render/render.tf", "render", "render", &seq, &par);
    let (seq, par) = case_study!(ast, "optimize");
    check("examples/ast/ast.tf", "optimize", "ast", &seq, &par);
    let (seq, par) = case_study!(minic, "optimize");
    check("examples/minic", "optimize", "minic", &seq, &par);
}

#[test]
fn minic() {
    let program = example("examples/minic");
    let (seq, par) = case_study!(minic, "optimize");
    let mut split = 0;
    for (what, t) in case_inputs(&program, "optimize", "minic", &[1, 4, 20, 600]) {
        split += agree(&format!("minic {what}"), &t, &seq, &par);
    }
    assert!(split > 0, "no loop of minic ran in parallel");
}

/// minic's loop over functions that desugars (creating nodes in every
/// function) splits, and so does the next loop over the functions: the
/// run keeps the first loop's plan, grown by the nodes its chunks created
/// (each function's nodes are then two ranges of ids); the first loop's
/// chunks left every function closed and nothing changes the tree between
/// the loops, so the plan needs no new scan.
#[test]
fn minic_splits_again_after_a_loop_that_created_nodes() {
    let program = example("examples/minic");
    let (seq, par) = case_study!(minic, "optimize");
    for seed in 0..3 {
        let json = treefuse_casegen::generate_string("minic", 1, 40, seed).unwrap();
        let tree = program.read_tree("optimize", &json).unwrap();
        let expected = seq(&tree);
        for (threads, grain) in [(2, 1), (2, 500), (3, 64)] {
            let options = Parallel::new(grain);
            let got = pool(threads).install(|| par(&tree, &options));
            assert_eq!(
                expected, got,
                "minic seed {seed}, {threads} threads, grain {grain}"
            );
            assert_eq!(
                options.split_loops(),
                2,
                "minic seed {seed}, grain {grain}: both loops over the functions split"
            );
            assert_eq!(
                options.kept_proofs(),
                1,
                "minic seed {seed}, grain {grain}: the second loop splits on the first's plan, still proven"
            );
        }
    }
}

/// A parallel run keeps the plan of a loop that split for the next loop
/// over the same elements, still proven when nothing changed the tree in
/// between: then the second loop splits without scanning the tree again
/// (`Parallel::kept_proofs`). `programs/kept_plan.tf` with `MIX` set copies
/// item 0's leaf into item 2 between the loops (the copy lands after every
/// node of the kept plan): the run must forget the proof and check again,
/// or item 2's worker would be handed a node of no chunk to write.
#[test]
fn a_kept_plan_is_checked_again_after_the_tree_changed() {
    use g::parallel::kept_plan as m;
    let leaf = |w: i64| format!(r#"{{"type": "_Leaf", "w": {w}}}"#);
    let items: Vec<String> = (0..6)
        .map(|i| format!(r#"{{"type": "Item", "v": {i}, "kid": {}}}"#, leaf(10 * i)))
        .collect();
    let json = format!(r#"{{"type": "Root", "items": [{}]}}"#, items.join(", "));
    let schema = m::schema();
    let tree = m::read_json(&schema, "Root", &json).unwrap();
    for mix in [false, true] {
        let mut expected = tree.clone();
        let mut globals = m::Globals {
            mix,
            ..m::Globals::default()
        };
        m::run_run_fused(&mut expected, &mut globals).unwrap();
        for threads in [1, 2] {
            let mut got = tree.clone();
            let mut par_globals = m::Globals {
                mix,
                ..m::Globals::default()
            };
            let options = Parallel::new(1);
            pool(threads)
                .install(|| m::run_run_parallel(&mut got, &mut par_globals, &options))
                .unwrap();
            let what = format!("MIX = {mix}, {threads} threads");
            assert!(got == expected, "{what}: the trees differ");
            assert_eq!(options.split_loops(), if mix { 1 } else { 2 }, "{what}");
            assert_eq!(options.kept_proofs(), if mix { 0 } else { 1 }, "{what}");
        }
    }
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
    let (mut pairs, mut split, mut chains) = (0u64, 0u64, 0u64);
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
                let before = CHAINS_SPLIT.with(std::cell::Cell::get);
                split += agree(&what, &input, &seq, &par);
                chains += CHAINS_SPLIT.with(std::cell::Cell::get) - before;
                pairs += 3;
            }
        }
    }
    eprintln!("{pairs} sequential/parallel pairs, {split} loops split ({chains} of them chains)");
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

/// Runs `optimize` of `ast_lists` on clones of `tree` sequentially and in
/// parallel (two threads, each grain of `grains`) and checks that the
/// parallel runs leave the very same `Tree` (arenas compared node for
/// node: same ids, same garbage) and globals and return the same result.
/// Returns the loops split per grain.
fn ast_lists_agree(what: &str, tree: &g::parallel::ast_lists::Tree, grains: &[usize]) -> Vec<u64> {
    use g::parallel::ast_lists as m;
    let mut seq = tree.clone();
    let mut seq_globals = m::Globals::default();
    let expected = m::run_optimize_fused(&mut seq, &mut seq_globals).map_err(|e| e.to_string());
    grains
        .iter()
        .map(|&grain| {
            let mut par = tree.clone();
            let mut par_globals = m::Globals::default();
            let options = Parallel::new(grain);
            let got = pool(2).install(|| {
                m::run_optimize_parallel(&mut par, &mut par_globals, &options)
                    .map_err(|e| e.to_string())
            });
            assert_eq!(expected, got, "{what} (grain {grain}): results differ");
            assert!(seq == par, "{what} (grain {grain}): the trees differ");
            assert!(
                seq_globals == par_globals,
                "{what} (grain {grain}): the globals differ"
            );
            options.split_loops()
        })
        .collect()
}

/// A tree read from JSON (pre-order) splits; the same tree with one node
/// made reachable from two functions (through the arenas, which the typed
/// API leaves public), or with a deep reference pointing into another
/// function, or with the functions listed out of order, does not, and
/// every variant gives the sequential run's tree, node ids included. The
/// check is made afresh by every run: a tree changed after a parallel run
/// split it is checked again (nothing of the first run's proof is kept).
#[test]
fn trees_changed_after_reading_are_checked_again() {
    use g::parallel::ast_lists as m;
    let schema = m::schema();
    let json = treefuse_casegen::generate_string("ast-lists", 1, 12, 3).unwrap();
    let read = m::read_json(&schema, "Program", &json).unwrap();
    let root = read.root.ast_node().unwrap();
    let functions: Vec<m::ASTNodeId> = read.get::<m::Program>(root).unwrap().functions.to_vec();
    assert!(functions.len() >= 4);
    let body = |t: &m::Tree, f: m::ASTNodeId| t.get::<m::Function>(f).unwrap().body;
    let stmts = |t: &m::Tree, b: m::ASTNodeId| t.get::<m::Block>(b).unwrap().stmts.to_vec();

    // As read: it splits.
    let split = ast_lists_agree("as read", &read, &[1, 64]);
    assert!(split[0] > 0, "the tree as read did not split: {split:?}");

    // A statement of the first function also listed in the third one's
    // body: reachable from two elements.
    let mut shared = read.clone();
    let (b0, b2) = (body(&shared, functions[0]), body(&shared, functions[2]));
    let mut list = stmts(&shared, b2);
    list.push(stmts(&shared, b0)[0]);
    shared.ast_node[b2.0 as usize].functions_or_stmts = list.into();
    let split = ast_lists_agree("a statement shared by two functions", &shared, &[1, 64]);
    assert_eq!(split[0], 0, "a tree with a shared statement split");

    // The last function's body replaced by the second one's: the last
    // element's own block is garbage, its root points back.
    let mut back = read.clone();
    let last = *functions.last().unwrap();
    let b1 = body(&back, functions[1]);
    back.ast_node[last.0 as usize].body_or_stmt_etc = b1;
    let split = ast_lists_agree("a function pointing back", &back, &[1, 64]);
    assert_eq!(
        split[0], 0,
        "a tree with a body shared by two functions split"
    );

    // Two functions swapped in the list, or one listed twice.
    for (what, order) in [
        ("swapped", {
            let mut o = functions.clone();
            o.swap(1, 2);
            o
        }),
        ("listed twice", {
            let mut o = functions.clone();
            o[2] = o[1];
            o
        }),
    ] {
        let mut t = read.clone();
        t.ast_node[root.0 as usize].functions_or_stmts = order.into();
        let split = ast_lists_agree(what, &t, &[1, 64]);
        assert_eq!(split[0], 0, "{what}: split");
    }

    // A first parallel run splits and rewrites the tree (nodes created at
    // the arena's end); then a statement is shared as above. The second
    // parallel run must find it again.
    let mut first = read.clone();
    let mut globals = m::Globals::default();
    let options = Parallel::new(1);
    pool(2)
        .install(|| m::run_optimize_parallel(&mut first, &mut globals, &options))
        .unwrap();
    assert!(options.split_loops() > 0);
    let (b0, b3) = (body(&first, functions[0]), body(&first, functions[3]));
    let mut list = stmts(&first, b3);
    list.insert(0, stmts(&first, b0)[0]);
    first.ast_node[b3.0 as usize].functions_or_stmts = list.into();
    let split = ast_lists_agree("shared after a parallel run", &first, &[1]);
    assert_eq!(
        split[0], 0,
        "the rewritten tree with a shared statement split"
    );
}

/// Trees built bottom-up with `Tree::add` (children before parents, so an
/// element's root comes after its nodes) run sequentially and agree.
#[test]
fn trees_built_bottom_up_run_sequentially() {
    use g::parallel::ast_lists as m;
    let mut t = m::Tree::default();
    let mut functions = Vec::new();
    for f in 0..6i64 {
        let mut stmts = Vec::new();
        for s in 0..4i64 {
            let var = t.add(m::VarRefExpr { var_id: s }).unwrap();
            let l = t.add(m::ConstantExpr { value: f }).unwrap();
            let r = t.add(m::ConstantExpr { value: s }).unwrap();
            let sum = t
                .add(m::BinaryExpr {
                    lhs: l,
                    rhs: r,
                    operator: 0,
                })
                .unwrap();
            let assign = t
                .add(m::AssignStmt {
                    id: var,
                    is_mutable: false,
                    assigned_expr: sum,
                })
                .unwrap();
            stmts.push(t.add(m::Stmt { stmt: assign }).unwrap());
            let inc_var = t.add(m::VarRefExpr { var_id: s }).unwrap();
            let inc = t.add(m::IncrStmt { id: inc_var }).unwrap();
            stmts.push(t.add(m::Stmt { stmt: inc }).unwrap());
        }
        let body = t
            .add(m::Block {
                stmts: stmts.into(),
            })
            .unwrap();
        functions.push(
            t.add(m::Function {
                function_name: format!("f{f}").into(),
                body,
            })
            .unwrap(),
        );
    }
    let root = t
        .add(m::Program {
            functions: functions.into(),
        })
        .unwrap();
    t.root = m::NodeRef::ASTNode(root);
    let split = ast_lists_agree("built bottom-up", &t, &[1, 8]);
    assert_eq!(split, vec![0, 0], "a tree built bottom-up split");
}

/// `programs/chain.tf` with `n` items (`n >= 1`) as JSON, read in
/// pre-order: item `i` fails (division by zero) when `i` is in `fail_at`;
/// every third item has an item of its own in `kids`, every fourth a
/// `side` chain of its own.
fn chain_json(n: usize, fail_at: &[usize]) -> String {
    let item = |i: usize| {
        let side = if i % 4 == 1 {
            format!(
                r#"{{"type": "End", "item": {{"type": "Item", "v": {i}, "d": 2, "out": 0, "kid": {{"type": "Leaf", "w": 0}}, "kids": []}}}}"#
            )
        } else {
            "null".to_string()
        };
        let d = if fail_at.contains(&i) { 0 } else { 1 + (i % 4) };
        let kids = if i % 3 == 0 {
            format!(
                r#"{{"type": "Item", "v": {}, "d": 1, "out": 0, "kid": {{"type": "Leaf", "w": 1}}, "kids": []}}"#,
                i * 7
            )
        } else {
            String::new()
        };
        format!(
            r#"{{"type": "Item", "v": {}, "d": {d}, "out": 0, "kid": {{"type": "Leaf", "w": {i}}}, "kids": [{kids}], "side": {side}}}"#,
            i * 11 % 50
        )
    };
    let mut link = format!(r#"{{"type": "End", "item": {}}}"#, item(n - 1));
    for i in (0..n - 1).rev() {
        link = format!(
            r#"{{"type": "Inner", "item": {}, "next": {link}}}"#,
            item(i)
        );
    }
    format!(r#"{{"type": "Root", "list": {link}}}"#)
}

/// Runs a tree of `programs/chain.tf` sequentially and in parallel with
/// each `(threads, grain)` of `runs`: the same result, visits, globals and
/// (when the run succeeds) tree, node ids included. Returns the chains
/// that ran split.
fn chain_agree(what: &str, tree: &g::parallel::chain::Tree, runs: &[(usize, usize)]) -> u64 {
    use g::parallel::chain as m;
    let mut seq = tree.clone();
    let mut seq_globals = m::Globals::default();
    let expected = m::run_run_fused_counted(&mut seq, &mut seq_globals).map_err(|e| e.to_string());
    let mut chains = 0;
    for &(threads, grain) in runs {
        let mut par = tree.clone();
        let mut par_globals = m::Globals::default();
        let options = Parallel::new(grain);
        let got = pool(threads).install(|| {
            m::run_run_parallel_counted(&mut par, &mut par_globals, &options)
                .map_err(|e| e.to_string())
        });
        let how = format!("{what} ({threads} threads, grain {grain})");
        assert_eq!(expected, got, "{how}: results differ");
        assert!(seq_globals == par_globals, "{how}: the globals differ");
        if expected.is_ok() {
            assert!(seq == par, "{how}: the trees differ");
        }
        assert_eq!(options.split_chains(), options.split_loops(), "{how}");
        chains += options.split_chains();
    }
    chains
}

/// A chain's items run in parallel, and the run agrees with the
/// sequential one: counters and flags reduced, created nodes numbered as
/// the sequential run numbers them, the visits of the chain's nodes
/// counted, and the first failing item's error (at the start, middle or
/// end of the chain, in one chunk or two).
#[test]
fn chains_split_and_agree() {
    use g::parallel::chain as m;
    let schema = m::schema();
    for n in [1, 2, 3, 8, 25] {
        let fails: Vec<Vec<usize>> = vec![
            vec![],
            vec![0],
            vec![n / 2],
            vec![n - 1],
            vec![1, n.saturating_sub(2)],
        ];
        for fail_at in fails {
            let tree = m::read_json(&schema, "Root", &chain_json(n, &fail_at)).unwrap();
            let what = format!("{n} items, failing at {fail_at:?}");
            // Grain 1 splits every chain of two inner nodes or more (the
            // `End` node's item runs after the chain's).
            let chains = chain_agree(&what, &tree, &[(2, 1), (3, 1)]);
            assert_eq!(chains, if n >= 3 { 2 } else { 0 }, "{what}");
            chain_agree(&what, &tree, &[(2, 5)]);
            assert_eq!(chain_agree(&what, &tree, &[(2, 1000)]), 0, "{what}");
        }
    }
}

/// Chains that are not trees (made so through the arenas, which the typed
/// API leaves public) do not split, and still agree: an item shared by
/// two chain nodes, a leaf shared by two items, an item both a chain
/// node's and another item's child, a chain that skips a node (whose
/// item lies between two others' ids).
#[test]
fn chains_that_are_not_trees_run_sequentially() {
    use g::parallel::chain as m;
    let schema = m::schema();
    let read = m::read_json(&schema, "Root", &chain_json(8, &[])).unwrap();
    let m::NodeRef::Root(root) = read.root else {
        panic!("the root is a `Root`")
    };
    let mut links = vec![read.get::<m::Root>(root).unwrap().list];
    while let Some(inner) = read.get::<m::Inner>(*links.last().unwrap()) {
        links.push(inner.next);
    }
    assert_eq!(links.len(), 8);
    let item = |t: &m::Tree, l: m::LinkId| t.link[l.0 as usize].item;
    let splits = chain_agree("as read", &read, &[(2, 1)]);
    assert_eq!(splits, 1, "the chain as read did not split");

    let mut shared_item = read.clone();
    shared_item.link[links[2].0 as usize].item = item(&read, links[1]);
    let mut shared_leaf = read.clone();
    let leaf = shared_leaf.item[item(&read, links[5]).0 as usize].kid;
    shared_leaf.item[item(&read, links[1]).0 as usize].kid = leaf;
    let mut item_twice = read.clone();
    item_twice.item[item(&read, links[3]).0 as usize].kids = vec![item(&read, links[4])].into();
    let mut skipping = read.clone();
    skipping.link[links[1].0 as usize].next = links[3];
    for (what, tree) in [
        ("an item shared by two chain nodes", &shared_item),
        ("a leaf shared by two items", &shared_leaf),
        ("an item listed in another item's kids", &item_twice),
        ("a chain skipping a node", &skipping),
    ] {
        let splits = chain_agree(what, tree, &[(2, 1), (3, 1)]);
        assert_eq!(splits, 0, "{what}: the chain split");
    }
    // An item whose `side` is a node of the chain itself, the next one or
    // one further on: in the same chunk (grains of 2 and 3 items) or in
    // another (grain 1).
    for (from, to) in [(1, 2), (2, 5), (6, 6)] {
        let mut side = read.clone();
        side.item[item(&read, links[from]).0 as usize].side = Some(links[to]);
        let what = format!("item {from}'s side chain is chain node {to}");
        let splits = chain_agree(&what, &side, &[(2, 1), (2, 12), (2, 18)]);
        assert_eq!(splits, 0, "{what}: the chain split");
    }
}
