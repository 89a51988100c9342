//! The Game of Life neighbour count under tree folding, with the seed's
//! re-recording: the loop body is `count = 0` and 8 consecutive
//! `if cell_k { count = count + 1 }`. Each round folds the trace tree with
//! `examples/treefold/treefold.tf` (fused, checked against the unfused
//! run), which inlines one `if` and prunes the rest of the secondary
//! trace; the pruned path is then recorded again at the next side exit.
//! It prints the tree size after recording and after folding, round by
//! round, until every `if` is inlined.
//!
//! `cargo run -p treefuse --example treefold_life [NEIGHBOURS] [SEED]`
//! (defaults 8 and 0).

use serde_json::Value;
use treefuse::{compile_file, Engine, FusionOptions, Host, Program};
use treefuse_casegen::treefold as tf;

/// Folds `tree` with both engines; returns the fused output (with its
/// globals) and the node visits unfused and fused.
fn fold(
    program: &Program,
    fused: &treefuse::FusedProgram,
    tree: &Value,
) -> Result<(Value, u64, u64), String> {
    let text = tree.to_string();
    let mut outputs = Vec::new();
    let mut visits = Vec::new();
    for engine in [Engine::Unfused, Engine::Fused(fused)] {
        let mut t = program
            .read_tree("fold", &text)
            .map_err(|e| e.to_string())?;
        let (stats, globals) = program
            .run_tree_with("fold", &mut t, Vec::new(), &Host::new(), engine)
            .map_err(|e| e.to_string())?;
        let out =
            treefuse_runtime::write_tree(&program.model, &t, Some(&globals), Default::default());
        outputs.push(serde_json::from_str::<Value>(&out).map_err(|e| e.to_string())?);
        visits.push(stats.node_visits);
    }
    if outputs[0] != outputs[1] {
        return Err("the fused run left a different tree than the unfused run".into());
    }
    let folded = outputs.pop().unwrap_or_default();
    Ok((folded, visits[0], visits[1]))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let neighbours: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/treefold/treefold.tf"
    );
    let program = compile_file(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let fused = program.fuse_all(&FusionOptions::default());
    let body = tf::life_body(neighbours, seed);
    let tree = match tf::life_tree(neighbours, seed) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("treefold_life: {e}");
            std::process::exit(1);
        }
    };
    // Per round: conditional moves emitted, node visits unfused and fused.
    let mut runs: Vec<(i64, u64, u64)> = Vec::new();
    let result = tf::record_and_fold(&body, tree, neighbours + 1, |t| {
        let (folded, unfused_visits, fused_visits) =
            fold(&program, &fused, &t).map_err(tf::TreeError)?;
        let cmovs = folded["globals"]["cmovs"].as_i64().unwrap_or(0);
        runs.push((cmovs, unfused_visits, fused_visits));
        Ok::<Value, tf::TreeError>(folded)
    });
    let (rounds, last) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("treefold_life: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "{:>5} {:>20} {:>18} {:>6} {:>8} {:>6} {:>15}",
        "round",
        "recorded traces/ins",
        "folded traces/ins",
        "cmovs",
        "unfused",
        "fused",
        "next side exit"
    );
    for (i, (r, (cmovs, unfused, fused))) in rounds.iter().zip(&runs).enumerate() {
        let next = match r.next_exit {
            Some(pc) => format!("pc {pc}"),
            None => "none".to_string(),
        };
        println!(
            "{:>5} {:>20} {:>18} {cmovs:>6} {unfused:>8} {fused:>6} {next:>15}",
            i + 1,
            format!("{} / {}", r.recorded.traces, r.recorded.instructions),
            format!("{} / {}", r.folded.traces, r.folded.instructions),
        );
    }
    let size = tf::tree_size(&last).unwrap_or_default();
    println!(
        "after {} rounds: {} trace(s), {} guard(s) left on the primary trace, {} instructions",
        rounds.len(),
        size.traces,
        size.primary_guards,
        size.instructions
    );
}
