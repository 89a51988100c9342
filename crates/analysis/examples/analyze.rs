//! Prints the call summaries of every traversal of a program, the
//! conflicts between the calls of every `fuse` item (each pair, in order),
//! and the time the analysis took:
//! `cargo run -p treefuse-analysis --example analyze FILE [--quiet]`.

use std::time::Instant;

use treefuse_analysis::Analysis;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: analyze FILE.tf [--quiet]");
    let quiet = std::env::args().any(|a| a == "--quiet");
    let src = std::fs::read_to_string(&path).expect("readable file");
    let program = match treefuse_sema::compile(&src) {
        Ok(p) => p,
        Err(d) => {
            eprintln!("{d:#?}");
            std::process::exit(1);
        }
    };
    let t = Instant::now();
    let a = Analysis::new(&program);
    let took = t.elapsed();
    if !quiet {
        for (ty, m, _) in a.functions() {
            let s = a.summary(ty, m).expect("summary of an analysed function");
            println!(
                "{}.{}: {}",
                program.type_name(ty),
                program.methods[m.index()].name,
                a.describe(s)
            );
        }
    }
    for fuse in &program.fuses {
        let calls = a.fuse_accesses(fuse);
        println!("fuse {}:", fuse.name);
        for i in 0..calls.len() {
            for j in i + 1..calls.len() {
                let name = |k: usize| &program.methods[fuse.calls[k].method.index()].name;
                match a.conflict(&calls[i], &calls[j], false) {
                    Some(c) => println!("  {} -> {}: {c}", name(i), name(j)),
                    None => println!("  {} -> {}: independent", name(i), name(j)),
                }
            }
        }
    }
    let states: usize = a
        .functions()
        .filter_map(|(ty, m, _)| a.summary(ty, m))
        .map(|s| s.reads.num_states() + s.writes.num_states())
        .sum();
    println!(
        "{} functions, {} summary states, analysed in {:.1} ms",
        a.functions().count(),
        states,
        took.as_secs_f64() * 1e3
    );
}
