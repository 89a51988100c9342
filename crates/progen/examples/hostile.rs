//! Prints a random program of the generator under hostile names
//! (`treefuse_progen::generate_hostile`), or with `--plain` under its own:
//! `cargo run -p treefuse-progen --example hostile -- 7 > h7.tf`, then
//! `treefuse emit h7.tf` to see the Rust names the generator chose.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plain = args.iter().any(|a| a == "--plain");
    let seed = args
        .iter()
        .find(|a| *a != "--plain")
        .map(|s| s.parse::<u64>());
    match seed {
        Some(Ok(seed)) if plain => print!("{}", treefuse_progen::generate(seed)),
        Some(Ok(seed)) => print!("{}", treefuse_progen::generate_hostile(seed)),
        _ => {
            eprintln!("usage: hostile SEED [--plain]   (SEED: a number)");
            std::process::exit(2);
        }
    }
}
