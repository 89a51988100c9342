//! Benchmarks for the conflict test the fuser runs most: intersection
//! emptiness (with witness) on access automata of about a hundred states.
//!
//! The automata are shaped like Algorithm 1's output: one state per
//! traversal function, labelled call edges between them (child fields, ε for
//! calls on `self`, recursion as back edges), and short statement automata
//! (access paths, some covering a whole subtree with `*`) attached by ε.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use treefuse_automata::{intersection_witness, Label, Nfa, Symbol};

const CHILD_FIELDS: u32 = 8;

/// A call-graph-shaped access automaton. Statements touch data fields in
/// `fields`; `any_suffix` lets some of them cover whole subtrees.
///
/// `graph_seed` fixes the call graph (two traversals of the same program
/// share it, which makes the product search explore many state pairs);
/// `stmt_seed` fixes the statements.
fn access_automaton(
    graph_seed: u64,
    stmt_seed: u64,
    functions: usize,
    fields: std::ops::Range<u32>,
    any_suffix: bool,
) -> Nfa {
    let mut rng = ChaCha8Rng::seed_from_u64(graph_seed);
    let mut srng = ChaCha8Rng::seed_from_u64(stmt_seed);
    let mut n = Nfa::new();
    let fstates: Vec<u32> = (0..functions).map(|_| n.add_state()).collect();
    // The traversing call itself: start --child--> the first function(s).
    for _ in 0..2 {
        let f = fstates[rng.gen_range(0..functions)];
        n.add_label(0, Label(rng.gen_range(0..CHILD_FIELDS)), f);
    }
    for &f in &fstates {
        // Calls: on children (loops when they hit an earlier function), and
        // sometimes on `self` (ε).
        for _ in 0..2 {
            let g = fstates[rng.gen_range(0..functions)];
            n.add_label(f, Label(rng.gen_range(0..CHILD_FIELDS)), g);
        }
        if rng.gen_bool(0.2) {
            let g = fstates[rng.gen_range(0..functions)];
            n.add_epsilon(f, g);
        }
        // Statements: paths of 0-2 child fields then a data field.
        for _ in 0..3 {
            let mut path: Vec<Symbol> = (0..srng.gen_range(0..=2))
                .map(|_| Symbol::Label(Label(srng.gen_range(0..CHILD_FIELDS))))
                .collect();
            path.push(Symbol::Label(Label(srng.gen_range(fields.clone()))));
            let mut stmt = Nfa::symbols(&path);
            if any_suffix && srng.gen_bool(0.2) {
                stmt = stmt.with_any_suffix();
            }
            let s = n.embed(&stmt);
            n.add_epsilon(f, s);
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    // Disjoint data fields, no wildcards: the search must exhaust the
    // reachable product to prove emptiness (the expensive, common case of a
    // legal fusion).
    let w_disjoint = access_automaton(1, 1, 12, 8..14, false);
    let r_disjoint = access_automaton(1, 2, 12, 14..20, false);
    // Overlapping fields and subtree wildcards: a conflict, found early.
    // Reads are prefix-closed (a read of a path reads every prefix), as in
    // the fuser. The first seed giving a conflict is taken.
    let w_conflict = access_automaton(3, 3, 12, 8..20, true);
    let r_conflict = (4..)
        .map(|seed| access_automaton(3, seed, 12, 8..20, true).prefix_closure())
        .find(|r| intersection_witness(&w_conflict, r).is_some())
        .unwrap();
    assert!(intersection_witness(&w_disjoint, &r_disjoint).is_none());
    assert!(intersection_witness(&w_conflict, &r_conflict).is_some());

    let cases = [
        ("disjoint", &w_disjoint, &r_disjoint),
        ("conflict", &w_conflict, &r_conflict),
    ];
    let mut group = c.benchmark_group("intersection");
    for (name, a, b) in cases {
        let (ra, rb) = (a.reduced(), b.reduced());
        eprintln!(
            "{name}: {}x{} states raw, {}x{} reduced",
            a.num_states(),
            b.num_states(),
            ra.num_states(),
            rb.num_states()
        );
        group.bench_with_input(
            BenchmarkId::new("witness_raw", name),
            &(a, b),
            |bch, (a, b)| bch.iter(|| intersection_witness(black_box(a), black_box(b))),
        );
        group.bench_with_input(
            BenchmarkId::new("witness_reduced", name),
            &(&ra, &rb),
            |bch, (a, b)| bch.iter(|| intersection_witness(black_box(a), black_box(b))),
        );
        group.bench_with_input(
            BenchmarkId::new("materialized_product", name),
            &(a, b),
            |bch, (a, b)| bch.iter(|| Nfa::intersect(black_box(a), black_box(b)).is_empty()),
        );
    }
    group.bench_function("reduce_100_states", |bch| {
        bch.iter(|| black_box(&w_conflict).reduced())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
