//! `interp-bench`: the interpreter as `treefuse run` uses it, phase by
//! phase, on a bundled case study: JSON read, the unfused and the fused
//! run, and JSON write, with throughput and the fused/unfused ratio
//! measured side by side in one process.
//!
//! ```text
//! cargo run --release -p treefuse-bench --bin interp-bench -- [CASE] [SIZE] [ROUNDS]
//! cargo run --release -p treefuse-bench --bin interp-bench -- --only PHASE CASE SIZE [ROUNDS]
//! ```
//!
//! CASE is `render` (document 1 of examples/render, SIZE pages) or
//! `minic` (examples/minic, SIZE functions); the defaults are `render
//! 10000 3`. The tree is generated as `treefuse gen-example` would, written
//! to a temporary file and read back from it. Each round reads the tree
//! twice (one copy per engine), runs the unfused and then the fused
//! engine, and writes both results; the end prints medians, MB/s of
//! reading and writing, and the speedup of the fused run, and checks that
//! both engines left the same output. `--only read|write|run|run-unfused`
//! repeats one phase, `run` with the fused engine and `run-unfused` with
//! the unfused one (for `valgrind --tool=cachegrind` or `callgrind`, which
//! then count the instructions and cache misses of just that phase).
//! The CLI allocates with mimalloc; run with `--features mimalloc` to
//! measure what it does.
//!
//! Memory is the whole process's peak, so it is measured on the CLI
//! itself (README: "The interpreter's memory").

use std::time::Instant;
use treefuse::{Engine, Host};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Where the output goes: counted and hashed, not kept (keeping 100 MB of
/// output would time the allocator, not the writer).
#[derive(Default)]
struct HashingSink {
    hasher: std::collections::hash_map::DefaultHasher,
    len: usize,
}

impl std::io::Write for HashingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use std::hash::Hasher;
        self.hasher.write(buf);
        self.len += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl HashingSink {
    fn digest(&self) -> (u64, usize) {
        use std::hash::Hasher;
        (self.hasher.finish(), self.len)
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("interp-bench: {message}");
    std::process::exit(2);
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut only = None;
    if let Some(i) = args.iter().position(|a| a == "--only") {
        if i + 1 >= args.len() {
            fail("--only needs read, write, run or run-unfused");
        }
        only = Some(args.remove(i + 1));
        args.remove(i);
    }
    let case = args.first().cloned().unwrap_or_else(|| "render".into());
    let size: usize = args
        .get(1)
        .map(|s| s.parse().unwrap_or_else(|_| fail("SIZE must be a number")))
        .unwrap_or(10_000);
    let rounds: usize = args
        .get(2)
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| fail("ROUNDS must be a number"))
        })
        .unwrap_or(3)
        .max(1);
    let (program_path, fuse, gen_name) = match case.as_str() {
        "render" => ("examples/render/render.tf", "render", "render"),
        "minic" => ("examples/minic", "optimize", "minic"),
        other => fail(format!("unknown case `{other}` (render or minic)")),
    };
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let program =
        treefuse::compile_file(format!("{root}{program_path}")).unwrap_or_else(|e| fail(e));
    let json = treefuse_casegen::generate_string(gen_name, 1, size, 0).unwrap_or_else(|e| fail(e));
    let path = std::env::temp_dir().join(format!(
        "interp-bench-{}-{case}-{size}.json",
        std::process::id()
    ));
    std::fs::write(&path, &json).unwrap_or_else(|e| fail(e));
    let mb = json.len() as f64 / 1e6;
    drop(json);
    let read = || {
        let file = std::fs::File::open(&path).unwrap_or_else(|e| fail(e));
        program
            .read_tree_from(fuse, file)
            .unwrap_or_else(|e| fail(e))
    };
    let fused = program.fuse_all(&Default::default());
    let host = Host::new();

    if let Some(phase) = only {
        let mut tree = read();
        for _ in 0..rounds {
            match phase.as_str() {
                "read" => tree = read(),
                "write" => {
                    let mut sink = std::io::sink();
                    treefuse_runtime::write_tree_to(
                        &program.model,
                        &tree,
                        None,
                        Default::default(),
                        &mut sink,
                    )
                    .unwrap_or_else(|e| fail(e));
                }
                "run" | "run-unfused" => {
                    let mut t = read();
                    let engine = if phase == "run" {
                        Engine::Fused(&fused)
                    } else {
                        Engine::Unfused
                    };
                    program
                        .run_tree_with(fuse, &mut t, Vec::new(), &host, engine)
                        .unwrap_or_else(|e| fail(e));
                }
                other => fail(format!(
                    "--only {other}: expected read, write, run or run-unfused"
                )),
            }
        }
        let _ = std::fs::remove_file(&path);
        return;
    }

    let (mut reads, mut writes, mut unfused_runs, mut fused_runs) =
        (vec![], vec![], vec![], vec![]);
    let mut same = true;
    for round in 0..rounds {
        let clock = Instant::now();
        let mut unfused_tree = read();
        reads.push(clock.elapsed().as_secs_f64());
        let mut fused_tree = read();
        let nodes = unfused_tree.allocated();

        let clock = Instant::now();
        let (u_stats, u_globals) = program
            .run_tree_with(fuse, &mut unfused_tree, Vec::new(), &host, Engine::Unfused)
            .unwrap_or_else(|e| fail(e));
        unfused_runs.push(clock.elapsed().as_secs_f64());
        let clock = Instant::now();
        let (f_stats, f_globals) = program
            .run_tree_with(
                fuse,
                &mut fused_tree,
                Vec::new(),
                &host,
                Engine::Fused(&fused),
            )
            .unwrap_or_else(|e| fail(e));
        fused_runs.push(clock.elapsed().as_secs_f64());

        let write = |tree: &treefuse_runtime::Tree, globals: &[treefuse_sema::Value]| {
            let mut out = HashingSink::default();
            treefuse_runtime::write_tree_to(
                &program.model,
                tree,
                Some(treefuse_runtime::SelectedGlobals::all(globals)),
                Default::default(),
                &mut out,
            )
            .unwrap_or_else(|e| fail(e));
            out
        };
        let clock = Instant::now();
        let unfused_out = write(&unfused_tree, &u_globals);
        writes.push(clock.elapsed().as_secs_f64());
        let fused_out = write(&fused_tree, &f_globals);
        same &= unfused_out.digest() == fused_out.digest();
        let out_mb = unfused_out.len as f64 / 1e6;
        println!(
            "round {round}: read {:.3} s, unfused {:.3} s ({} visits), fused {:.3} s ({} visits), write {:.3} s ({out_mb:.1} MB)",
            reads[round], unfused_runs[round], u_stats.node_visits, fused_runs[round], f_stats.node_visits, writes[round]
        );
        if round + 1 == rounds {
            let (r, w) = (median(reads.clone()), median(writes.clone()));
            let (u, f) = (median(unfused_runs.clone()), median(fused_runs.clone()));
            println!("{case} {size}: {nodes} nodes, {mb:.1} MB of JSON in, {out_mb:.1} MB out");
            println!("read  {r:.3} s  {:.0} MB/s", mb / r);
            println!("write {w:.3} s  {:.0} MB/s", out_mb / w);
            println!(
                "run   unfused {u:.3} s, fused {f:.3} s: fused {:.2}x faster ({:.1} / {:.1} ns per visit)",
                u / f,
                u * 1e9 / u_stats.node_visits as f64,
                f * 1e9 / f_stats.node_visits as f64,
            );
            println!("same output from both engines: {same}");
        }
    }
    let _ = std::fs::remove_file(&path);
    if !same {
        std::process::exit(1);
    }
}
