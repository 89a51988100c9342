//! Compiles the render tree and AST case studies, the scope-resolution
//! benchmark and the minic middle end (and minic with its fixpoint over
//! the whole program, as it was written before) to Rust with
//! treefuse-codegen, the way a user's `build.rs` would; and for
//! `parallel-bench` the case studies (both ports) and minic with and
//! without parallel entry points.

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let files: Vec<String> = [
        "render/render.tf",
        "ast/ast.tf",
        "scopes/scopes.tf",
        // A directory program (one file per pass): `minic.rs`.
        "minic",
    ]
    .iter()
    .map(|f| format!("{root}/{f}"))
    .collect();
    let global_fixpoint = minic_with_global_fixpoint(&format!("{root}/minic"), &out);
    let files: Vec<String> = files.into_iter().chain([global_fixpoint]).collect();
    if let Err(e) = treefuse_codegen::Config::new().compile(&files, &out) {
        panic!("treefuse code generation failed:\n{e}");
    }
    // `parallel-bench`: the case studies and minic without parallel entry
    // points (the sequential baseline; the faithful ports and minic are
    // above) and with them (`OUT_DIR/parallel/`).
    let lists: Vec<String> = ["render/render_lists.tf", "ast/ast_lists.tf"]
        .iter()
        .map(|f| format!("{root}/{f}"))
        .collect();
    if let Err(e) = treefuse_codegen::Config::new().compile(&lists, &out) {
        panic!("treefuse code generation failed:\n{e}");
    }
    let par_dir = format!("{out}/parallel");
    std::fs::create_dir_all(&par_dir).expect("create OUT_DIR/parallel");
    // The faithful ports too: their lists are linked chains, whose items
    // the parallel entry points run in parallel.
    let par_files: Vec<String> = lists
        .into_iter()
        .chain(
            ["render/render.tf", "ast/ast.tf", "minic"]
                .iter()
                .map(|f| format!("{root}/{f}")),
        )
        .collect();
    if let Err(e) = treefuse_codegen::Config::new()
        .parallel(true)
        .compile(&par_files, &par_dir)
    {
        panic!("treefuse code generation failed:\n{e}");
    }
}

/// `examples/minic` as it was before its fixpoint moved into `Func`
/// (LANGUAGE §8.6): the `fuse` item loops `while CHANGED limit 8 {
/// root.propagate(); root.fold(); }` over the whole program. Written to
/// `OUT_DIR/minic_global_fixpoint/` (so generated as
/// `minic_global_fixpoint.rs`) by two textual edits that fail the build
/// if the example no longer has the text they replace. `minic-bench`
/// runs both versions' fused code on the same tree.
fn minic_with_global_fixpoint(example: &str, out: &str) -> String {
    let dir = std::path::Path::new(out).join("minic_global_fixpoint");
    std::fs::create_dir_all(dir.join("passes")).expect("create the program directory");
    let edits: [(&str, &str, &str); 2] = [
        (
            "types.tf",
            "    root.settle();                 // propagate and fold, to a fixpoint per function\n",
            "    CHANGED = true;\n    while CHANGED limit 8 {\n        CHANGED = false;\n        root.propagate();\n        root.fold();\n    }\n",
        ),
        (
            "passes/10_propagate.tf",
            "impl Program { traversal settle() walk; }\n",
            "impl Program { traversal propagate() walk; }\nimpl Func { traversal propagate() { self.body.propagate({}); } }\n",
        ),
    ];
    let mut files = vec!["types.tf".to_string()];
    for entry in std::fs::read_dir(format!("{example}/passes")).expect("read examples/minic/passes")
    {
        let name = entry.expect("list examples/minic/passes").file_name();
        files.push(format!("passes/{}", name.to_string_lossy()));
    }
    for file in files {
        let path = format!("{example}/{file}");
        println!("cargo:rerun-if-changed={path}");
        let mut text = std::fs::read_to_string(&path).expect("read a file of examples/minic");
        for (target, from, to) in edits {
            if target == file {
                assert!(text.contains(from), "{path} no longer contains {from:?}");
                text = text.replacen(from, to, 1);
            }
        }
        if file == "passes/10_propagate.tf" {
            // `Func.settle` goes: nothing calls it any more.
            let start = text
                .find("impl Func {\n    traversal settle()")
                .expect("Func.settle");
            let end = start + text[start..].find("\n}\n").expect("end of Func.settle") + 3;
            text.replace_range(start..end, "");
        }
        // Rewritten only when it changed: `compile` reruns this script
        // when a file of the directory is newer than its last run.
        let path = dir.join(&file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(path, text).expect("write the program");
        }
    }
    dir.to_string_lossy().into_owned()
}
