//! Compiles the example programs to Rust with treefuse-codegen, the way a
//! user's `build.rs` would.

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
    ]
    .iter()
    .map(|f| format!("{root}/{f}"))
    .collect();
    if let Err(e) = treefuse_codegen::Config::new().compile(&files, &out) {
        panic!("treefuse code generation failed:\n{e}");
    }
}
