//! The command-line interface: exit codes, output shapes, error messages.

use std::process::{Command, Output};

fn treefuse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treefuse"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env(
            "TREEFUSE_CACHE_DIR",
            std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
        )
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("treefuse-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn check_is_silent_on_a_valid_program() {
    let o = treefuse(&["check", "examples/figure2/figure2.tf"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
}

#[test]
fn check_reports_diagnostics_with_position_and_exits_1() {
    let path = temp_file(
        "bad.tf",
        "tree A {\n  x: i64;\n  traversal f() { self.y = 1; }\n}\n",
    );
    let o = treefuse(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("error[unknown-field]"), "{err}");
    assert!(err.contains("bad.tf:3:"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn unreadable_or_binary_files_exit_2() {
    let o = treefuse(&["check", "no/such/file.tf"]);
    assert_eq!(o.status.code(), Some(2));
    let path = temp_file("bin.tf", "");
    std::fs::write(&path, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let o = treefuse(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn run_writes_the_tree_with_globals_and_stats() {
    let out = std::env::temp_dir().join(format!("treefuse-cli-out-{}.json", std::process::id()));
    let o = run_figure2_layout(&["--out", out.to_str().unwrap(), "--stats"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let last = err.lines().last().unwrap();
    let stats: serde_json::Value = serde_json::from_str(last).unwrap();
    // `run` fuses by default: one fused traversal of the six nodes.
    assert_eq!(stats["engine"], "fused");
    assert_eq!(stats["node_visits"], 6);
    assert_eq!(stats["visits_per_call"], serde_json::json!([6]));
    let tree: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(tree["type"], "Group");
    assert_eq!(tree["width"], 23);
    assert_eq!(tree["globals"]["CHAR_WIDTH"], 8);
    // The unfused engine gives the same output.
    let unfused_out = out.with_extension("unfused.json");
    let o = run_figure2_layout(&[
        "--engine",
        "unfused",
        "--stats",
        "--out",
        unfused_out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stats: serde_json::Value =
        serde_json::from_str(stderr(&o).lines().last().unwrap()).unwrap();
    assert_eq!(stats["engine"], "unfused");
    assert_eq!(stats["visits_per_call"], serde_json::json!([6, 6]));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&unfused_out).unwrap()
    );
    // The output can be fed back in.
    let o = treefuse(&[
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `treefuse run` of figure 2's `layout` on its bundled tree, with `extra`
/// arguments.
fn run_figure2_layout(extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        "examples/figure2/doc.json",
    ];
    args.extend_from_slice(extra);
    treefuse(&args)
}

#[test]
fn run_profile_shows_where_the_visits_went() {
    let run = |engine: &str| {
        let o = run_figure2_layout(&["--engine", engine, "--profile", "--stats"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stderr(&o)
    };
    let fused = run("fused");
    let (profile, stats) = fused.trim_end().rsplit_once('\n').unwrap();
    assert!(stats.starts_with(r#"{"engine":"fused""#), "{fused}");
    assert_eq!(
        profile,
        "visit profile: 6 visits (fused; F<n> as in `treefuse fuse`)\n      \
         visits   share  ran\n           \
         3   50.0%  F0 TextBox[compute_width, compute_height]\n           \
         2   33.3%  F2 End[compute_width, compute_height]\n           \
         1   16.7%  F1 Group[compute_width, compute_height]"
    );
    let unfused = run("unfused");
    assert!(
        unfused.starts_with("visit profile: 12 visits (unfused)\n"),
        "{unfused}"
    );
    // `End` has no body of its own: its visits run the one on `Element`.
    assert!(
        unfused.contains(
            "           2   16.7%  Element.compute_width (examples/figure2/figure2.tf:14:15)\n"
        ),
        "{unfused}"
    );
}

#[test]
fn bad_trees_exit_2_with_the_json_path() {
    let tree = temp_file(
        "bad.json",
        r#"{"type":"Group","content":{"type":"End"},"next":{"type":"End","width":"wide"}}"#,
    );
    let o = treefuse(&[
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        tree.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("$.next.width"), "{}", stderr(&o));
    let o = treefuse(&[
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "nope",
        "--tree",
        tree.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no fuse item `nope`"), "{}", stderr(&o));
}

#[test]
fn runtime_errors_exit_3_with_the_message_last() {
    let program = temp_file(
        "div.tf",
        "tree N { d: i64; r: i64; traversal go() { self.r = 1 / self.d; } }\nfuse f(root: N) { root.go(); }\n",
    );
    let tree = temp_file("div.json", r#"{"type":"N"}"#);
    let o = treefuse(&[
        "run",
        program.to_str().unwrap(),
        "--fuse",
        "f",
        "--tree",
        tree.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stdout.is_empty(), "no output tree after a runtime error");
    let err = stderr(&o);
    let last = err.lines().last().unwrap();
    assert!(
        last.contains("division") && last.contains("N.go") && last.contains("div.tf:1:"),
        "{err}"
    );
}

#[test]
fn gen_is_deterministic_and_readable_back() {
    let a = treefuse(&[
        "gen",
        "examples/figure2/figure2.tf",
        "--root",
        "Element",
        "--nodes",
        "50",
        "--seed",
        "7",
    ]);
    let b = treefuse(&[
        "gen",
        "examples/figure2/figure2.tf",
        "--root",
        "Element",
        "--nodes",
        "50",
        "--seed",
        "7",
    ]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let path = temp_file("gen.json", &String::from_utf8(a.stdout).unwrap());
    let o = treefuse(&[
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        path.to_str().unwrap(),
        "--stats",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `check-equiv` on trees where both engines always fail checked nothing
/// but the error: it says so and fails.
#[test]
fn check_equiv_fails_when_every_tree_fails() {
    let dir = std::env::temp_dir().join(format!("treefuse-equiv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("div.tf");
    std::fs::write(
        &file,
        "global S: i64 = 0;\ntree N { v: i64; traversal f() { S = S + 1 / 0; } traversal g() {} }\nfuse go(root: N) { root.f(); root.g(); }\n",
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let o = treefuse(&["check-equiv", &file, "--fuse", "go", "--random", "3"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("nothing checked") && err.contains("every one of the 3 tree(s)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fuse_reports_and_check_equiv_agrees() {
    let o = treefuse(&["fuse", "examples/figure2/figure2.tf"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("fused call on `next`"), "{text}");
    let o = treefuse(&["fuse", "examples/figure2/figure2.tf", "--timings"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("timings: read and check ")
            && err.contains(" ms, access analysis ")
            && err.contains(" ms, fusion ")
            && err.contains(" ms, report "),
        "{err}"
    );
    let o = treefuse(&["fuse", "examples/figure2/figure2.tf", "--report", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["entries"][0]["fuse"], "layout");
    let o = treefuse(&[
        "check-equiv",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--random",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("5 ran without error"), "{text}");
    let o = treefuse(&[
        "explain",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--dot",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("digraph"));
    let o = treefuse(&["fuse", "examples/figure2/figure2.tf", "--max-group", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn emit_writes_a_rust_module() {
    let out = std::env::temp_dir().join(format!("treefuse-cli-emit-{}.rs", std::process::id()));
    let o = treefuse(&[
        "emit",
        "examples/figure2/figure2.tf",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(
        code.starts_with("// Generated by treefuse-codegen"),
        "{}",
        &code[..80.min(code.len())]
    );
    let bad = temp_file("bad_emit.tf", "tree A { traversal f() { self.nope(); } }");
    let o = treefuse(&["emit", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn demo_runs_the_bundled_example() {
    let o = treefuse(&["demo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("node visits unfused: 12"), "{out}");
    assert!(out.contains("6 node visits instead of 12"), "{out}");
    assert!(out.contains("$.width"), "{out}");
}

#[test]
fn fuse_report_wraps_long_lines_on_request() {
    let minic = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/minic");
    let plain = treefuse(&["fuse", minic]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let plain = String::from_utf8_lossy(&plain.stdout).to_string();
    assert!(
        plain.lines().any(|l| l.chars().count() > 200),
        "piped output is not wrapped"
    );
    let wrapped = treefuse(&["fuse", minic, "--width", "80"]);
    let wrapped = String::from_utf8_lossy(&wrapped.stdout).to_string();
    for line in wrapped.lines() {
        assert!(
            line.chars().count() <= 80 || !line.trim().contains(' '),
            "{line}"
        );
    }
    // Nothing is lost: the words are the same.
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(words(&plain), words(&wrapped));
}

/// Runs the tool with its fusion cache in `cache` (`None`: no cache
/// variable at all, and no `HOME` or `XDG_CACHE_HOME` either).
fn treefuse_cached(cache: Option<&std::path::Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_treefuse"));
    c.args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("TREEFUSE_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME");
    if let Some(dir) = cache {
        c.env("TREEFUSE_CACHE_DIR", dir);
    }
    c.output().expect("the binary runs")
}

/// The `--stats` line of a run.
fn stats_of(o: &Output) -> serde_json::Value {
    let err = stderr(o);
    let last = err.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {err}"))
}

fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("treefuse-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn run_reads_the_fusion_cache_on_an_unchanged_program() {
    let dir = fresh_dir("cache");
    let cache = Some(dir.as_path());
    let run = |program: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            program,
            "--fuse",
            "layout",
            "--tree",
            "examples/figure2/doc.json",
            "--stats",
        ];
        args.extend_from_slice(extra);
        let o = treefuse_cached(cache, &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let stats = stats_of(&o);
        (o.stdout, stats)
    };
    let figure2 = "examples/figure2/figure2.tf";
    let (cold, stats) = run(figure2, &[]);
    assert_eq!(stats["fusion_cache"], "miss", "{stats}");
    assert!(stats["fusion_seconds"].as_f64().is_some(), "{stats}");
    assert_eq!(stats["fusion_cache_note"], serde_json::Value::Null);
    let (warm, stats) = run(figure2, &[]);
    assert_eq!(stats["fusion_cache"], "hit", "{stats}");
    assert_eq!(cold, warm);
    // `cache dir` names the directory; it holds one entry.
    let o = treefuse_cached(cache, &["cache", "dir"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        dir.to_str().unwrap()
    );
    let entries = || std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(entries(), 1);
    // Not consulted: --no-cache, the unfused engine.
    for extra in [&["--no-cache"][..], &["--engine", "unfused"]] {
        let (out, stats) = run(figure2, extra);
        assert_eq!(stats["fusion_cache"], "off", "{extra:?}: {stats}");
        assert_eq!(out, cold);
    }
    assert_eq!(entries(), 1);
    // Other cut-offs, another program text: misses, then hits.
    let (_, stats) = run(figure2, &["--max-group", "1"]);
    assert_eq!(stats["fusion_cache"], "miss", "{stats}");
    let (_, stats) = run(figure2, &["--max-group", "1"]);
    assert_eq!(stats["fusion_cache"], "hit", "{stats}");
    let text = include_str!("../../../examples/figure2/figure2.tf");
    let edited = temp_file("figure2_edited.tf", &format!("// edited\n{text}"));
    let (out, stats) = run(edited.to_str().unwrap(), &[]);
    assert_eq!(stats["fusion_cache"], "miss", "{stats}");
    assert_eq!(out, cold);
    assert_eq!(entries(), 3);
    // A corrupt entry is ignored (said under --stats) and written anew.
    for entry in std::fs::read_dir(&dir).unwrap() {
        std::fs::write(entry.unwrap().path(), b"not an entry").unwrap();
    }
    let (out, stats) = run(figure2, &[]);
    assert_eq!(stats["fusion_cache"], "miss", "{stats}");
    assert!(
        stats["fusion_cache_note"]
            .as_str()
            .is_some_and(|n| n.contains("ignored the cache entry")),
        "{stats}"
    );
    assert_eq!(out, cold);
    assert_eq!(run(figure2, &[]).1["fusion_cache"], "hit");
    // `cache clear` removes the entries and nothing else.
    std::fs::write(dir.join("README"), "mine").unwrap();
    let o = treefuse_cached(cache, &["cache", "clear"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.starts_with("removed 3 fusion cache entries ("),
        "{said}"
    );
    assert_eq!(entries(), 1);
    assert_eq!(run(figure2, &[]).1["fusion_cache"], "miss");
}

#[test]
fn an_unusable_cache_never_fails_a_run() {
    let dir = fresh_dir("cache-blocked");
    std::fs::create_dir_all(&dir).unwrap();
    // A file where the cache directory should be.
    let blocked = dir.join("file");
    std::fs::write(&blocked, "").unwrap();
    let args = [
        "run",
        "examples/figure2/figure2.tf",
        "--fuse",
        "layout",
        "--tree",
        "examples/figure2/doc.json",
        "--stats",
    ];
    let o = treefuse_cached(Some(&blocked.join("cache")), &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stats = stats_of(&o);
    assert_eq!(stats["fusion_cache"], "miss", "{stats}");
    assert!(
        stats["fusion_cache_note"]
            .as_str()
            .is_some_and(|n| n.starts_with("not cached")),
        "{stats}"
    );
    // Nowhere to put it at all: off, and `cache dir` says why.
    let o = treefuse_cached(None, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stats_of(&o)["fusion_cache"], "off");
    let o = treefuse_cached(None, &["cache", "dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("TREEFUSE_CACHE_DIR"), "{}", stderr(&o));
}

#[test]
fn the_cache_falls_back_to_xdg_cache_home_then_home() {
    let dir = fresh_dir("cache-xdg");
    let o = Command::new(env!("CARGO_BIN_EXE_treefuse"))
        .args(["cache", "dir"])
        .env_remove("TREEFUSE_CACHE_DIR")
        .env("XDG_CACHE_HOME", &dir)
        .env("HOME", "/nonexistent-home")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        dir.join("treefuse").to_str().unwrap()
    );
    // A relative XDG_CACHE_HOME is ignored, as the XDG specification asks.
    let o = Command::new(env!("CARGO_BIN_EXE_treefuse"))
        .args(["cache", "dir"])
        .env_remove("TREEFUSE_CACHE_DIR")
        .env("XDG_CACHE_HOME", "relative")
        .env("HOME", "/nonexistent-home")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "/nonexistent-home/.cache/treefuse"
    );
}

/// A directory program: reports from the cache are those of a fresh
/// fusion (`fuse`, `explain`), and `check-equiv` reads the cache too.
#[test]
fn reports_from_the_cache_equal_fresh_ones() {
    let dir = fresh_dir("cache-reports");
    let cache = Some(dir.as_path());
    let minic = "examples/minic";
    let fresh = treefuse_cached(cache, &["fuse", minic, "--report", "json", "--no-cache"]);
    assert!(fresh.status.success(), "{}", stderr(&fresh));
    assert!(!dir.exists(), "--no-cache writes nothing");
    let cold = treefuse_cached(cache, &["fuse", minic, "--report", "json"]);
    assert!(
        stderr(&cold).contains("analysis and fusion:"),
        "{}",
        stderr(&cold)
    );
    let warm = treefuse_cached(cache, &["fuse", minic, "--report", "json"]);
    assert!(
        stderr(&warm).contains("read from the cache"),
        "{}",
        stderr(&warm)
    );
    assert_eq!(fresh.stdout, cold.stdout);
    assert_eq!(fresh.stdout, warm.stdout);
    // --timings measures fusion: it never reads the cache.
    let timed = treefuse_cached(cache, &["fuse", minic, "--report", "json", "--timings"]);
    assert!(
        stderr(&timed).contains("timings: read and check"),
        "{}",
        stderr(&timed)
    );
    assert_eq!(timed.stdout, fresh.stdout);
    let dot = |extra: &[&str]| {
        let mut args = vec!["explain", minic, "--fuse", "optimize"];
        args.extend_from_slice(extra);
        let o = treefuse_cached(cache, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    assert_eq!(dot(&["--no-cache"]), dot(&[]));
    // `emit` writes the code `Config` writes from a build.rs, from the
    // cache (the entry `fuse` wrote) as when fusing anew.
    let emit = |extra: &[&str]| {
        let mut args = vec!["emit", minic];
        args.extend_from_slice(extra);
        let o = treefuse_cached(cache, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8(o.stdout).expect("UTF-8 code")
    };
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let built = treefuse_codegen::Config::new()
        .generate_file(std::path::Path::new(&format!("{root}/{minic}")))
        .expect("minic generates");
    let cached = emit(&[]);
    assert_eq!(cached, emit(&["--no-cache"]));
    assert_eq!(
        cached.lines().skip(1).collect::<Vec<_>>(),
        built.lines().skip(1).collect::<Vec<_>>(),
        "the same module as Config::generate_file, but for the header's path"
    );
    // check-equiv writes the entry that a run then reads.
    let figure2 = "examples/figure2/figure2.tf";
    let equiv = treefuse_cached(
        cache,
        &["check-equiv", figure2, "--fuse", "layout", "--random", "2"],
    );
    assert!(equiv.status.success(), "{}", stderr(&equiv));
    let run = treefuse_cached(
        cache,
        &[
            "run",
            figure2,
            "--fuse",
            "layout",
            "--tree",
            "examples/figure2/doc.json",
            "--stats",
        ],
    );
    assert_eq!(stats_of(&run)["fusion_cache"], "hit");
}
