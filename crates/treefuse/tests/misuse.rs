//! Ordinary misuse of the command-line tool gets a clear message and an
//! exit code, never a panic: closed output pipes, empty and malformed
//! JSON, repeated `--arg`, `gen` sizes it cannot reach, and runtime
//! errors on both sides of `check-equiv`.

use std::io::Read;
use std::process::{Command, Output, Stdio};

fn repo() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
}

fn treefuse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treefuse"))
        .args(args)
        .current_dir(repo())
        .env(
            "TREEFUSE_CACHE_DIR",
            std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
        )
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_file(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("treefuse-misuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs the tool with its standard output read for `keep` bytes and then
/// closed, as `treefuse ... | head -c KEEP` does.
fn with_closed_pipe(args: &[&str], keep: usize) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_treefuse"))
        .args(args)
        .current_dir(repo())
        .env(
            "TREEFUSE_CACHE_DIR",
            std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0u8; keep];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_output_pipe_ends_quietly_with_status_0() {
    for args in [
        &["demo"][..],
        &["gen-example", "render", "--size", "20000"][..],
        &["emit", "examples/render/render.tf"][..],
        &[
            "gen",
            "examples/ast/ast_lists.tf",
            "--root",
            "Program",
            "--nodes",
            "100000",
        ][..],
    ] {
        let o = with_closed_pipe(args, 10);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} should end quietly: {err}");
    }
}

fn run_figure2_on(json: &str) -> Output {
    let tree = temp_file("tree.json", json);
    treefuse(&[
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        &tree,
    ])
}

#[test]
fn malformed_json_is_one_message_with_a_1_based_position_and_the_path() {
    let o = run_figure2_on("{\"type\": \"Group\",\n \"width\": }");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "invalid input tree: at $.width: malformed JSON at line 2, column 11: unexpected closing bracket\n"
    );
    let o = run_figure2_on("{\"type\": \"End\"} {");
    assert_eq!(
        text(&o.stderr),
        "invalid input tree: at $: malformed JSON at line 1, column 17: unexpected content after the document\n"
    );
    let o = run_figure2_on("{\"type\": \"Group\", \"content\": {\"type\": \"End\" \"x\": 1}}");
    assert_eq!(
        text(&o.stderr),
        "invalid input tree: at $.content.type: malformed JSON at line 1, column 45: missing `,` between values\n"
    );
}

#[test]
fn an_empty_tree_file_says_so() {
    for empty in ["", "  \n\t\n"] {
        let o = run_figure2_on(empty);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            text(&o.stderr),
            "invalid input tree: at $: the input is empty: expected a JSON object for the root node\n"
        );
    }
}

#[test]
fn a_repeated_arg_is_a_usage_error() {
    let program = temp_file(
        "args.tf",
        "tree Leaf { n: i64; traversal add(k: i64) { self.n = self.n + k; } }\n\
         fuse go(root: Leaf, k: i64) { root.add(k); }\n",
    );
    let tree = temp_file("leaf.json", r#"{"type": "Leaf", "n": 1}"#);
    let o = treefuse(&[
        "run", &program, "--fuse", "go", "--tree", &tree, "--arg", "k=1", "--arg", "k=2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "--arg k=... is given twice; give each parameter once\n"
    );
    let o = treefuse(&[
        "run", &program, "--fuse", "go", "--tree", &tree, "--arg", "k=2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains(r#""n":3"#));
}

/// The number of nodes (objects with a `"type"`) in a JSON tree.
fn nodes_in(json: &str) -> usize {
    json.matches("\"type\":").count()
}

#[test]
fn gen_reaches_the_requested_size_within_ten_percent() {
    for (file, root) in [
        ("examples/ast/ast_lists.tf", "Program"),
        ("examples/toylang/toylang.tf", "Program"),
        ("examples/figure2/figure2.tf", "Element"),
    ] {
        for seed in 0..40 {
            let seed = seed.to_string();
            let o = treefuse(&[
                "gen", file, "--root", root, "--nodes", "200", "--seed", &seed,
            ]);
            assert_eq!(o.status.code(), Some(0));
            let n = nodes_in(&text(&o.stdout));
            assert!((180..=220).contains(&n), "{file} seed {seed}: {n} nodes");
            assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
        }
    }
    // A tight depth limit is met by wider trees.
    let o = treefuse(&[
        "gen",
        "examples/toylang/toylang.tf",
        "--root",
        "Program",
        "--nodes",
        "20000",
        "--max-depth",
        "10",
    ]);
    let n = nodes_in(&text(&o.stdout));
    assert!((18_000..=22_000).contains(&n), "{n} nodes");
}

#[test]
fn gen_says_why_it_cannot_reach_the_size() {
    // Figure 2's elements have at most two children: 14 levels hold at
    // most 2^15 - 1 nodes, and the generator finds that full tree.
    let o = treefuse(&[
        "gen",
        "examples/figure2/figure2.tf",
        "--root",
        "Element",
        "--nodes",
        "100000",
        "--max-depth",
        "14",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(nodes_in(&text(&o.stdout)), 32_767);
    assert_eq!(
        text(&o.stderr),
        "treefuse gen: warning: the tree has 32767 nodes, not about 100000: no larger tree was \
         found within --max-depth 14 and --max-list 4 (raise them, or the schema allows no larger \
         trees below `Element`)\n"
    );
}

#[test]
fn gen_does_not_leave_a_root_list_empty() {
    let program = temp_file(
        "list.tf",
        "abstract tree Stmt {}\ntree Nop : Stmt {}\ntree Block : Stmt { child body: [Stmt]; }\n\
         tree Prog { child items: [Stmt]; }\n",
    );
    for seed in 0..50 {
        let seed = seed.to_string();
        let o = treefuse(&[
            "gen", &program, "--root", "Prog", "--nodes", "3", "--seed", &seed,
        ]);
        let json = text(&o.stdout);
        assert!(nodes_in(&json) >= 2, "seed {seed}: {json}");
    }
}

#[test]
fn check_equiv_says_when_both_runs_failed() {
    let program = temp_file(
        "fail.tf",
        "tree Leaf { n: i64; traversal f() { self.n = 10 / self.n; } }\n\
         fuse go(root: Leaf) { root.f(); root.f(); }\n",
    );
    let zero = temp_file("zero.json", r#"{"type": "Leaf", "n": 0}"#);
    // The only tree fails in both engines: nothing was compared but the
    // error, which is not a passing check.
    let o = treefuse(&["check-equiv", &program, "--fuse", "go", "--tree", &zero]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "nothing checked: both runs failed with a runtime error on every one of the 1 tree(s)"
        ),
        "{err}"
    );
    assert!(err.contains("by zero"), "{err}");
    // Some random trees fail and some run: it passes and says how many.
    let o = treefuse(&["check-equiv", &program, "--fuse", "go", "--random", "40"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("ran without error"), "{out}");
    assert!(
        out.contains("both runs failed with the same runtime error on"),
        "{out}"
    );
}
