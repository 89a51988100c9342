//! Generated code is warning-free and clippy-clean: every example program
//! (`examples/**/*.tf`; an example directory with `.tf` files in a
//! subdirectory is one program), the programs of this crate
//! (`programs/*.tf`, hostile names included), the rewriting cases of the
//! interpreter's tests and a batch of the fusion fuzzer's random
//! programs, each under its generator's names and under hostile names
//! (`treefuse_progen::generate_hostile`), are generated (every other one
//! with the parallel entry points of `Config::parallel`) into
//! one scratch crate whose root says `#![deny(warnings)]` and
//! `#![warn(missing_docs)]`, which is then built and linted with
//! `cargo clippy -- -D warnings` (each through the same `cargo` that runs
//! the test).
//!
//! Ignored in the normal suite (a few minutes: a thousand-line module per
//! program); run it with
//!
//! ```sh
//! cargo test --release -p treefuse-codegen-example --test lint_batch -- --ignored
//! TREEFUSE_LINT_SEEDS=1000..1400 cargo test --release -p treefuse-codegen-example --test lint_batch -- --ignored
//! ```
//!
//! (default seeds `1..201`, so 400 random programs). The normal suite
//! compiles the examples, the programs of `programs/` and the random
//! programs of `build.rs` (plain and hostile) under `#[deny(warnings)]`
//! in this crate itself.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The random programs of the batch: `TREEFUSE_LINT_SEEDS=A..B` or 1..201.
fn seeds() -> std::ops::Range<u64> {
    let Ok(spec) = std::env::var("TREEFUSE_LINT_SEEDS") else {
        return 1..201;
    };
    spec.split_once("..")
        .and_then(|(a, b)| Some(a.trim().parse().ok()?..b.trim().parse().ok()?))
        .unwrap_or_else(|| panic!("TREEFUSE_LINT_SEEDS={spec}: expected A..B, e.g. 1000..1400"))
}

/// The programs of `examples/`: every `.tf` file, except that an example
/// directory with `.tf` files in a subdirectory is one program of several
/// files (`examples/minic`, `examples/rules`), sorted.
fn example_programs(examples: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(examples).expect("examples/") {
        let d = e.expect("a directory entry").path();
        if !d.is_dir() {
            continue;
        }
        let files = tf_files(&d);
        if files.iter().any(|f| f.parent() != Some(d.as_path())) {
            out.push(d);
        } else {
            out.extend(files);
        }
    }
    out.sort();
    out
}

/// Every `.tf` file under `dir`, recursively, sorted.
fn tf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "tf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Runs `cargo ARGS` in `dir`; panics with its output if it fails.
fn cargo(dir: &Path, target: &Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "`cargo {}` in {} failed:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "minutes: builds and lints a crate of ~230 generated modules (see the module docs)"]
fn generated_modules_are_warning_and_clippy_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().expect("the workspace root");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint-batch");
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).expect("create the scratch crate");
    // The same dependency versions as the workspace.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"treefuse-lint-batch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ntreefuse-runtime = {{ path = {:?} }}\n\n[workspace]\n\n[profile.dev]\ndebug = false\n",
            root.join("crates/runtime")
        ),
    )
    .expect("write Cargo.toml");
    let mut files: Vec<PathBuf> = example_programs(&root.join("examples"));
    files.extend(tf_files(&root.join("crates/codegen-example/programs")));
    files.extend(tf_files(&root.join("crates/treefuse/tests/rewriting")));
    // Hostile programs of odd seeds get wide participant masks, as
    // `build.rs` compiles them.
    let mut wide: Vec<PathBuf> = Vec::new();
    let programs = dir.join("programs");
    std::fs::create_dir_all(&programs).expect("create the program directory");
    for seed in seeds() {
        let p = programs.join(format!("random_{seed}.tf"));
        std::fs::write(&p, treefuse_progen::generate(seed)).expect("write a random program");
        files.push(p);
        let p = programs.join(format!("hostile_{seed}.tf"));
        std::fs::write(&p, treefuse_progen::generate_hostile(seed))
            .expect("write a random program");
        if seed % 2 == 1 {
            wide.push(p.clone());
        }
        files.push(p);
    }
    let config = treefuse_codegen::Config::new();
    let mut wide_config = treefuse_codegen::Config::new();
    wide_config.wide_masks();
    // Every other program with the parallel entry points (their support
    // code, `ParallelRun`, `SubtreeView`, `plan_split`, `par_loop`, and the
    // traversals generic over `TreeAccess`).
    let mut parallel_config = treefuse_codegen::Config::new();
    parallel_config.parallel(true);
    let mut lib = String::from(
        "//! Generated modules, linted together.\n#![deny(warnings)]\n#![warn(missing_docs)]\n",
    );
    let mut skipped = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let config = if wide.contains(f) {
            &wide_config
        } else if i % 2 == 0 {
            &parallel_config
        } else {
            &config
        };
        let code = config
            .generate_file(f)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        // Host functions need a host module written for the program
        // (`programs/features.tf` is compiled with one by `build.rs`).
        if code.contains("crate::host::") {
            skipped.push(f.display().to_string());
            continue;
        }
        let module = format!("m{i}");
        std::fs::write(src.join(format!("{module}.rs")), code).expect("write a module");
        let _ = writeln!(
            lib,
            "/// `{}`.\npub mod {module} {{\n    include!(\"{module}.rs\");\n}}",
            f.strip_prefix(&root).unwrap_or(f).display()
        );
    }
    std::fs::write(src.join("lib.rs"), lib).expect("write lib.rs");
    let target = dir.join("target");
    cargo(&dir, &target, &["build", "--quiet"]);
    cargo(
        &dir,
        &target,
        &["clippy", "--quiet", "--", "-D", "warnings"],
    );
    eprintln!(
        "{} modules clean ({} random programs); skipped (host functions): {skipped:?}",
        files.len() - skipped.len(),
        seeds().count()
    );
}
