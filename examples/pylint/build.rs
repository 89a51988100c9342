//! Compiles the linter (`lint/`: Python's tree types, one file per rule and
//! the `fuse lint` item) to Rust, as any client of treefuse does.

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let lint = concat!(env!("CARGO_MANIFEST_DIR"), "/lint");
    // The host reads the diagnostics from the globals; no JSON is needed.
    // `source_snippet` comes from `src/host.rs`.
    if let Err(e) = treefuse_codegen::Config::new()
        .without_json()
        .host_module("crate::host")
        .compile(&[lint], &out)
    {
        panic!("treefuse code generation failed:\n{e}");
    }
}
