//! Compiles the render tree and AST case studies, the scope-resolution
//! benchmark and the minic middle end to Rust with
//! treefuse-codegen, the way a user's `build.rs` would.

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
    if let Err(e) = treefuse_codegen::Config::new().compile(&files, &out) {
        panic!("treefuse code generation failed:\n{e}");
    }
}
