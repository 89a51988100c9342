//! `treefuse run --threads`: the interpreter's split loops
//! ([`Engine::FusedSplit`]) leave every tree, global, count and error as
//! the sequential fused run does — on the case studies, on trees a pass
//! could not have built (a node reachable from two elements), on runtime
//! errors raised in any chunk, and with globals reduced and kept private.
//! (Random programs: `treefuse-progen`'s check runs a split variant of
//! every program, in CI's `fusion_soundness` and in `fuzz-fusion`.)

use std::path::PathBuf;
use treefuse::{Engine, FusionOptions, Host, Program, RunStats, SplitStats, Tree};
use treefuse_runtime::{Slot, SlotRef};

fn example(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel)
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of two threads")
}

/// What a run left: the tree as JSON with its globals, its counts (the
/// split loops' apart), the nodes allocated, or the error.
type Outcome = Result<(String, RunStats, usize), String>;

fn run(program: &Program, fuse: &str, tree: &Tree, engine: Engine<'_>) -> (Outcome, SplitStats) {
    let mut t = tree.clone();
    match program.run_tree_with(fuse, &mut t, Vec::new(), &Host::new(), engine) {
        Ok((stats, globals)) => {
            let json = treefuse_runtime::write_tree(
                &program.model,
                &t,
                Some(&globals),
                Default::default(),
            );
            let split = stats.split;
            let stats = RunStats {
                split: SplitStats::default(),
                ..stats
            };
            (Ok((json, stats, t.allocated())), split)
        }
        // The tree after an error is the sequential run's too.
        Err(e) => {
            let json = treefuse_runtime::write_tree(&program.model, &t, None, Default::default());
            (Err(format!("{e}\n{json}")), SplitStats::default())
        }
    }
}

/// Runs `fuse` on `tree` fused, then split with `grain` on two threads;
/// asserts they agree and returns what the split run did.
fn agree(program: &Program, fuse: &str, tree: &Tree, grain: usize) -> SplitStats {
    let fused = program.fuse_all(&FusionOptions::default());
    let (sequential, _) = run(program, fuse, tree, Engine::Fused(&fused));
    let (split, stats) =
        pool().install(|| run(program, fuse, tree, Engine::FusedSplit(&fused, grain)));
    assert!(
        sequential == split,
        "{}: the split run differs\n{sequential:?}\n{split:?}",
        program.file_name
    );
    stats
}

fn case(rel: &str, gen: &str, size: usize, fuse: &str) -> (Program, Tree) {
    let program = treefuse::compile_file(example(rel)).expect("the example checks");
    let json = treefuse_casegen::generate_string(gen, 1, size, 7).expect("a generated input");
    let tree = program.read_tree(fuse, &json).expect("a tree");
    (program, tree)
}

#[test]
fn case_studies_split_as_they_run() {
    for (rel, gen, size, fuse) in [
        ("minic", "minic", 40, "optimize"),
        ("ast/ast_lists.tf", "ast-lists", 60, "optimize"),
        ("render/render_lists.tf", "render-lists", 60, "render"),
    ] {
        let (program, tree) = case(rel, gen, size, fuse);
        for grain in [1, 50, 1000] {
            let split = agree(&program, fuse, &tree, grain);
            assert_eq!(split.rerun, 0, "{rel}: nothing to run again on a tree");
            if grain == 1 {
                assert!(split.split_loops > 0, "{rel}: no loop split");
                assert!(split.chunk_visits > 0);
            }
        }
    }
}

#[test]
fn linked_chains_split_as_they_run() {
    // The faithful ports keep their lists as chains of `Inner { content,
    // next }`: their items run as the elements of a split loop.
    for (rel, gen, size, fuse) in [
        ("ast/ast.tf", "ast", 60, "optimize"),
        ("render/render.tf", "render", 60, "render"),
    ] {
        let (program, tree) = case(rel, gen, size, fuse);
        for grain in [1, 50, 1000, 1 << 20] {
            let split = agree(&program, fuse, &tree, grain);
            assert_eq!(split.rerun, 0, "{rel}: nothing to run again on a tree");
            assert_eq!(split.split_chains, split.split_loops, "{rel}: {split:?}");
            if grain == 1 {
                assert!(split.split_chains > 0, "{rel}: no chain split");
                assert!(split.chunk_visits > 0);
            }
            if grain == 1 << 20 {
                assert_eq!(split, SplitStats::default(), "{rel}: too short to split");
            }
        }
    }
}

/// The nodes of the chain of `Inner { content, next }` hanging off the
/// root's `functions` (the AST port): each inner node, in order.
fn chain_of(tree: &Tree) -> Vec<treefuse_runtime::NodeId> {
    let mut out = Vec::new();
    let mut at = tree.child(tree.root, 0);
    while tree.slot_count(at) == 2 {
        out.push(at);
        at = tree.child(at, 1);
    }
    out
}

#[test]
fn a_chain_that_is_not_a_tree_runs_in_order() {
    let (program, tree) = case("ast/ast.tf", "ast", 12, "optimize");
    let chain = chain_of(&tree);
    assert!(chain.len() >= 4, "a chain of functions");
    // One function's body shared by two chain nodes in different chunks:
    // the later chunk meets a node the earlier owns and the chain runs
    // again in order.
    let mut shared = tree.clone();
    let first = shared.child(chain[0], 0);
    shared.set_slot(chain[chain.len() - 1], 0, Slot::Child(first));
    let split = agree(&program, "optimize", &shared, 1);
    assert!(split.rerun >= 1, "{split:?}");
    assert_eq!(split.split_chains, 0, "{split:?}");
    // An item reaching a chain node (a function's body replaced by a later
    // link of the chain): the items' walk owns a chain node, so the chain
    // is not split at all.
    let mut linked = tree.clone();
    linked.set_slot(chain[0], 0, Slot::Child(chain[2]));
    let split = agree(&program, "optimize", &linked, 1);
    assert_eq!(split.split_chains, 0, "{split:?}");
}

#[test]
fn a_short_list_stays_on_one_thread() {
    let (program, tree) = case("minic", "minic", 3, "optimize");
    let split = agree(&program, "optimize", &tree, 1 << 20);
    assert_eq!(split, SplitStats::default());
}

const COUNTERS: &str = "
global TOTAL: i64 = 0;
global BIGGEST: i64 = -1000;
global ANY_ODD: bool = false;
global ALL_SMALL: bool = true;
global SEEN: bool = false;
global LAST: i64 = 0;
tree Leaf {
    v: i64;
    traversal bump(d: i64) {
        self.v = self.v * 2 + 100 / (self.v - d);
        TOTAL = TOTAL + self.v;
        BIGGEST = max(BIGGEST, self.v);
        let odd = self.v % 2 == 1;
        ANY_ODD = ANY_ODD || odd;
        ALL_SMALL = ALL_SMALL && self.v < 1000;
        SEEN = true;
        LAST = self.v;
        LAST = LAST + 1;
    }
}
tree Item {
    child kid: Leaf;
    child extra: [Leaf];
    traversal bump(d: i64) {
        self.kid.bump(d);
        self.extra = [new Leaf { v: self.kid.v }, copy(self.kid)];
    }
}
tree Root {
    child items: [Item];
    d: i64;
    traversal bump() { for it in self.items { it.bump(self.d); } }
    traversal again() { for it in self.items { it.bump(self.d + 1); } }
}
fuse go(root: Root) { root.bump(); root.again(); }
";

fn counters(values: &[i64], d: i64) -> (Program, Tree) {
    let program = treefuse::compile_source("counters.tf", COUNTERS).expect("checks");
    let items: Vec<String> = values
        .iter()
        .map(|v| format!(r#"{{"type":"Item","kid":{{"type":"Leaf","v":{v}}},"extra":[]}}"#))
        .collect();
    let json = format!(r#"{{"type":"Root","d":{d},"items":[{}]}}"#, items.join(","));
    let tree = program.read_tree("go", &json).expect("a tree");
    (program, tree)
}

#[test]
fn globals_combine_as_the_sequential_run_leaves_them() {
    let (program, tree) = counters(&[3, 8, -4, 11, 6, 1, 20, -9], 2);
    let fused = program.fuse_all(&FusionOptions::default());
    let parallel = fused.functions.iter().flat_map(|f| &f.steps).any(|s| {
        matches!(s, treefuse_fusion::Step::Loop(g)
            if matches!(&g.parallel, treefuse_fusion::Parallelism::Parallel { reduced, private }
                if reduced.len() >= 4 && !private.is_empty()))
    });
    assert!(parallel, "both loops reduce and keep private globals");
    let split = agree(&program, "go", &tree, 1);
    assert!(split.split_loops >= 1, "{split:?}");
    assert_eq!(split.rerun, 0);
}

#[test]
fn an_error_in_any_chunk_is_the_sequential_runs() {
    // `100 / (v - d)` divides by zero where `v == d`: in the first, a
    // middle and the last element, and in two chunks (the first one's
    // error is the one raised).
    for values in [
        vec![2, 5, 7, 9],
        vec![5, 7, 2, 9, 4],
        vec![5, 7, 9, 4, 2],
        vec![5, 2, 7, 2, 9],
    ] {
        let (program, tree) = counters(&values, 2);
        let fused = program.fuse_all(&FusionOptions::default());
        let (sequential, _) = run(&program, "go", &tree, Engine::Fused(&fused));
        assert!(
            matches!(&sequential, Err(e) if e.contains("by zero")),
            "{values:?}"
        );
        // The same error, and the tree as the sequential run leaves it
        // (a failed run reports no counts, so `agree` sees only those).
        agree(&program, "go", &tree, 1);
    }
}

/// The list of the root's items.
fn items(tree: &Tree) -> Vec<treefuse_runtime::NodeId> {
    match tree.slot(tree.root, 0) {
        SlotRef::List(items) => items.to_vec(),
        _ => panic!("the root's items"),
    }
}

#[test]
fn a_node_of_two_elements_makes_the_loop_run_again() {
    // No pass can make a node reachable from two elements (moves take
    // descendants only), but the typed API can: the chunks would then
    // both change it. The second chunk meets a node the first owns, and
    // the loop runs again sequentially.
    let (program, mut tree) = counters(&[3, 8, 4, 11], 2);
    let list = items(&tree);
    let first_kid = tree.child(list[0], 0);
    tree.set_slot(list[3], 0, Slot::Child(first_kid));
    let split = agree(&program, "go", &tree, 1);
    assert!(split.rerun >= 1, "{split:?}");
    // Listed twice: the same.
    let (program, mut tree) = counters(&[3, 8, 4, 11], 2);
    let list = items(&tree);
    let twice: Vec<_> = list.iter().chain(&list[..1]).copied().collect();
    tree.set_slot(tree.root, 0, Slot::List(twice.into()));
    let split = agree(&program, "go", &tree, 1);
    assert!(split.rerun >= 1, "{split:?}");
}

#[test]
fn the_cli_runs_threads() {
    let exe = env!("CARGO_BIN_EXE_treefuse");
    let minic = example("minic");
    let tree = example("minic/program.json");
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(exe)
            .arg("run")
            .arg(&minic)
            .args(["--fuse", "optimize", "--tree"])
            .arg(&tree)
            .args(extra)
            .output()
            .expect("treefuse runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (sequential, _) = run(&[]);
    let (split, stats) = run(&["--threads", "2", "--grain", "1", "--stats"]);
    assert_eq!(sequential, split);
    assert!(stats.contains("\"split_loops\":"), "{stats}");
    let out = std::process::Command::new(exe)
        .arg("run")
        .arg(&minic)
        .args([
            "--fuse",
            "optimize",
            "--engine",
            "unfused",
            "--threads",
            "2",
            "--tree",
        ])
        .arg(&tree)
        .output()
        .expect("treefuse runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--engine fused"));
}
