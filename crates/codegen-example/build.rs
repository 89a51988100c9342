//! Compiles the example programs to Rust with treefuse-codegen, the way a
//! user's `build.rs` would, plus a batch of random programs from the
//! soundness fuzzer's generator for the differential tests.

use std::fmt::Write as _;

/// Seeds of the random programs compiled into `random` (the CI batch).
const RANDOM_SEEDS: std::ops::Range<u64> = 1..17;

/// Which names the random programs are compiled under.
#[derive(Clone, Copy)]
enum Names {
    /// The generator's own (`treefuse_progen::generate`).
    Plain,
    /// Hostile ones (`treefuse_progen::generate_hostile`).
    Hostile,
    /// Both: every seed twice.
    Both,
}

impl Names {
    /// `false` for plain names, `true` for hostile ones.
    fn kinds(self) -> &'static [bool] {
        match self {
            Names::Plain => &[false],
            Names::Hostile => &[true],
            Names::Both => &[false, true],
        }
    }
}

/// The seeds to compile and under which names: `RANDOM_SEEDS` under both,
/// or `TREEFUSE_CODEGEN_SEEDS=A..B` (and `TREEFUSE_CODEGEN_NAMES=plain`,
/// `hostile` or `both`, the default) for a longer differential run of the
/// code generator outside CI, e.g. `TREEFUSE_CODEGEN_SEEDS=100..300 cargo
/// test --release -p treefuse-codegen-example random_programs` (compile
/// time grows with the batch: every program is a module of this crate).
fn random_seeds() -> (std::ops::Range<u64>, Names) {
    println!("cargo:rerun-if-env-changed=TREEFUSE_CODEGEN_SEEDS");
    println!("cargo:rerun-if-env-changed=TREEFUSE_CODEGEN_NAMES");
    let names = match std::env::var("TREEFUSE_CODEGEN_NAMES").as_deref() {
        Err(_) | Ok("both") => Names::Both,
        Ok("plain") => Names::Plain,
        Ok("hostile") => Names::Hostile,
        Ok(other) => panic!("TREEFUSE_CODEGEN_NAMES={other}: expected plain, hostile or both"),
    };
    let Ok(spec) = std::env::var("TREEFUSE_CODEGEN_SEEDS") else {
        return (RANDOM_SEEDS, names);
    };
    let parsed = spec
        .split_once("..")
        .and_then(|(a, b)| Some(a.trim().parse().ok()?..b.trim().parse().ok()?));
    match parsed {
        Some(r) => (r, names),
        None => panic!("TREEFUSE_CODEGEN_SEEDS={spec}: expected A..B, e.g. 100..300"),
    }
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let files: Vec<String> = [
        "figure2/figure2.tf",
        "render/render.tf",
        "render/render_lists.tf",
        "ast/ast.tf",
        "ast/ast_lists.tf",
        "toylang/toylang.tf",
        "toylang/toylang_rewrite.tf",
        "rewriting/splice.tf",
        "treefold/treefold.tf",
        "rewriting/cleanup.tf",
        // A directory program: the tree types and one file per pass.
        "minic",
        "fusion-rules/regions.tf",
        "arrays/appends.tf",
        "passes/passes.tf",
        // A directory is one program (its `.tf` files in path order).
        "rules",
    ]
    .iter()
    .map(|f| format!("{root}/{f}"))
    .collect();
    let config = treefuse_codegen::Config::new();
    if let Err(e) = config.compile(&files, &out) {
        panic!("treefuse code generation failed:\n{e}");
    }
    // Without the JSON layer.
    let plain = format!("{out}/figure2_plain.tf");
    std::fs::copy(&files[0], &plain).expect("copy figure2.tf");
    if let Err(e) = treefuse_codegen::Config::new()
        .without_json()
        .compile(&[&plain], &out)
    {
        panic!("treefuse code generation failed:\n{e}");
    }
    // Host functions come from `crate::host`.
    let features = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/features.tf");
    if let Err(e) = treefuse_codegen::Config::new()
        .host_module("crate::host")
        .compile(&[features], &out)
    {
        panic!("treefuse code generation failed:\n{e}");
    }
    // The data-construct cases (maps, enums, bits, strings), and names
    // that collide with the generated code's own.
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/data.tf");
    let names = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/names.tf");
    let type_names = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/type_names.tf");
    let grow = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/grow.tf");
    let cold = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/cold.tf");
    let moves = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/moves.tf");
    let arrays = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/arrays.tf");
    let loops = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/loops.tf");
    let optional = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/optional.tf");
    let wide = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/wide.tf");
    let widest = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/widest.tf");
    let type_c = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/type_c.tf");
    let traversal_t = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/traversal_t.tf");
    let python_names = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/python_names.tf");
    if let Err(e) = config.compile(
        &[
            data,
            names,
            type_names,
            grow,
            cold,
            moves,
            loops,
            arrays,
            optional,
            wide,
            widest,
            type_c,
            traversal_t,
            python_names,
        ],
        &out,
    ) {
        panic!("treefuse code generation failed:\n{e}");
    }
    // The case studies with parallel entry points (`run_*_parallel`),
    // in a directory of their own (the module names are the same).
    let par_dir = format!("{out}/parallel");
    std::fs::create_dir_all(&par_dir).expect("create OUT_DIR/parallel");
    let mut par_files: Vec<String> = [
        "ast/ast_lists.tf",
        "render/render_lists.tf",
        "ast/ast.tf",
        "render/render.tf",
        "minic",
    ]
    .iter()
    .map(|f| format!("{root}/{f}"))
    .collect();
    for program in ["write_first.tf", "kept_plan.tf", "type_c.tf", "chain.tf"] {
        par_files.push(format!("{}/programs/{program}", env!("CARGO_MANIFEST_DIR")));
    }
    if let Err(e) = treefuse_codegen::Config::new()
        .parallel(true)
        .compile(&par_files, &par_dir)
    {
        panic!("treefuse code generation failed:\n{e}");
    }
    // The hand-computed rewriting cases of the interpreter's tests
    // (`crates/treefuse/tests/rewriting/NAME.tf`), one module each.
    rewriting_cases(&config, &out);
    // Random programs: written as .tf files, compiled like the examples,
    // each under its generator's names and under hostile names.
    let mut list = String::new();
    let mut table = String::new();
    let (seeds, names) = random_seeds();
    // Hostile programs of odd seeds get wide participant masks (the
    // representation of fused functions past 128 participants).
    let mut wide_config = treefuse_codegen::Config::new();
    wide_config.wide_masks();
    // Plain-named ones get parallel entry points too (their sequential
    // ones then run the traversals generic over `TreeAccess`).
    let mut par_config = treefuse_codegen::Config::new();
    par_config.parallel(true);
    for seed in seeds {
        for &hostile in names.kinds() {
            let module = if hostile {
                format!("hostile_{seed}")
            } else {
                format!("random_{seed}")
            };
            let path = format!("{out}/{module}.tf");
            // With every construct, rewriting in place included. Plain
            // names with an odd seed: traversals keep to the commutative
            // counter among the globals, so that loops often run in
            // parallel (`tests/parallel.rs`).
            let source = if hostile {
                treefuse_progen::generate_hostile(seed)
            } else {
                let knobs = treefuse_progen::GenConfig {
                    private_globals: seed % 2 == 1,
                    ..Default::default()
                };
                treefuse_progen::generate_with(seed, &knobs)
            };
            std::fs::write(&path, source).expect("write a random program");
            let config = if hostile && seed % 2 == 1 {
                &wide_config
            } else if hostile {
                &config
            } else {
                &par_config
            };
            if let Err(e) = config.compile(&[&path], &out) {
                panic!("treefuse code generation failed on {module}:\n{e}");
            }
            module_with_runner(&mut list, &module);
            let run_parallel = if hostile {
                "None".to_string()
            } else {
                let _ = writeln!(
                    list,
                    "fn run_parallel_{module}(s: &treefuse_runtime::sema::Program, n: &str, t: &treefuse_runtime::Tree, a: &[treefuse_runtime::sema::Value], p: &treefuse_runtime::generated::Parallel) -> Option<Result<(String, u64), String>> {{ {module}::run_parallel_by_name(s, n, t, a, p).map(|r| r.map_err(|e| e.to_string())) }}"
                );
                format!("Some(run_parallel_{module})")
            };
            let _ = writeln!(
                table,
                "    Random {{ seed: {seed}, hostile: {hostile}, source: {module}::SOURCE, run: run_{module}, run_parallel: {run_parallel} }},"
            );
        }
    }
    let _ = writeln!(
        list,
        "/// Every random program.\npub const PROGRAMS: &[Random] = &[\n{table}];"
    );
    std::fs::write(format!("{out}/random_programs.rs"), list)
        .expect("write the random program list");
}

/// Compiles every `crates/treefuse/tests/rewriting/NAME.tf` into module
/// `rewriting_NAME` and writes the table `rewriting_cases.rs` of them
/// (name, source, generated engines).
fn rewriting_cases(config: &treefuse_codegen::Config, out: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../treefuse/tests/rewriting");
    println!("cargo:rerun-if-changed={dir}");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the rewriting cases")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let stem = p.file_stem()?.to_str()?.to_string();
            (p.extension()? == "tf").then_some(stem)
        })
        .collect();
    names.sort();
    let mut list = String::new();
    let mut table = String::new();
    for name in &names {
        let module = format!("rewriting_{name}");
        let path = format!("{out}/{module}.tf");
        std::fs::copy(format!("{dir}/{name}.tf"), &path).expect("copy a rewriting case");
        if let Err(e) = config.compile(&[&path], out) {
            panic!("treefuse code generation failed on rewriting case {name}:\n{e}");
        }
        module_with_runner(&mut list, &module);
        let _ = writeln!(
            table,
            "    Case {{ name: \"{name}\", source: {module}::SOURCE, run: run_{module} }},"
        );
    }
    let _ = writeln!(
        list,
        "/// Every rewriting case.\npub const CASES: &[Case] = &[\n{table}];"
    );
    std::fs::write(format!("{out}/rewriting_cases.rs"), list).expect("write the case list");
}

/// Adds to `list` the module `module` (the generated `OUT_DIR/module.rs`,
/// under `deny(warnings)`) and `run_module`, its entry points by name.
fn module_with_runner(list: &mut String, module: &str) {
    let _ = writeln!(
        list,
        "#[deny(warnings)] #[allow(missing_docs)] pub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
    );
    let _ = writeln!(
        list,
        "fn run_{module}(s: &treefuse_runtime::sema::Program, n: &str, f: bool, t: &treefuse_runtime::Tree, a: &[treefuse_runtime::sema::Value]) -> Option<Result<(String, u64), String>> {{ {module}::run_by_name(s, n, f, t, a).map(|r| r.map_err(|e| e.to_string())) }}"
    );
}
