//! Prints the generated module of a `.tf` file: `cargo run -p treefuse-codegen --example emit -- FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: emit FILE.tf");
        std::process::exit(2);
    };
    match treefuse_codegen::emit_file(&path) {
        Ok(code) => print!("{code}"),
        Err(e) => {
            eprint!("{e}");
            std::process::exit(1);
        }
    }
}
