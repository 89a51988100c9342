//! Which merged loops may run their iterations in parallel
//! (`treefuse_fusion::Parallelism`): independent iterations are found
//! parallel, with the globals they update commutatively, and every kind of
//! cross-iteration dependence keeps a loop sequential with the dependence
//! named in the report.

use treefuse::FusionOptions;
use treefuse_fusion::{FusedProgram, Parallelism, Step};

/// The program's tree types and traversals, fused by `fuse go(root: N) {
/// root.a(); root.b(); }` (the traversals are written into `body`).
fn fused(body: &str) -> (treefuse::Program, FusedProgram) {
    let src = format!(
        "global COUNT: i64 = 0;
global SEEN: bool = false;
global SCRATCH: i64 = 0;
global LOG: [i64] = [];
tree N {{
    v: i64;
    total: i64;
    child kids: [N];
{body}
}}
fuse go(root: N) {{ root.a(); root.b(); }}
"
    );
    let program = treefuse::compile_source("parallel.tf", &src)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.render(false)));
    let fused = program.fuse_all(&FusionOptions::default());
    (program, fused)
}

/// How the merged loop of the root's fused function (`a` and `b` on `N`)
/// may run.
fn root_loop(body: &str) -> Parallelism {
    let (program, fused) = fused(body);
    let root = &fused.functions[fused.entries[0].chunks[0].targets[0].1.index()];
    let loops: Vec<&Parallelism> = root
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Loop(l) => Some(&l.parallel),
            _ => None,
        })
        .collect();
    assert_eq!(
        loops.len(),
        1,
        "one merged loop:\n{}",
        report(&program, &fused)
    );
    loops[0].clone()
}

fn report(program: &treefuse::Program, fused: &FusedProgram) -> String {
    treefuse_fusion::report::text_report(&program.model, fused, &program.sources)
}

/// The globals the root loop's workers reduce and those they keep private
/// (write-first), by name.
fn worker_globals(program_body: &str) -> (Vec<String>, Vec<String>) {
    let (program, _) = fused(program_body);
    let names = |gs: &[treefuse_sema::GlobalId]| -> Vec<String> {
        gs.iter()
            .map(|g| program.model.globals[g.index()].name.clone())
            .collect()
    };
    match root_loop(program_body) {
        Parallelism::Parallel { reduced, private } => (names(&reduced), names(&private)),
        Parallelism::Sequential { reason } => panic!("sequential: {reason}"),
    }
}

fn reduced(program_body: &str) -> Vec<String> {
    worker_globals(program_body).0
}

fn private(program_body: &str) -> Vec<String> {
    worker_globals(program_body).1
}

fn sequential_because(body: &str) -> String {
    match root_loop(body) {
        Parallelism::Sequential { reason } => reason,
        p => panic!("expected a sequential loop, got {p:?}"),
    }
}

#[test]
fn independent_iterations_are_parallel() {
    // Each iteration writes only its own element's subtree and reads the
    // receiver's data, which no iteration writes.
    let body = "
    traversal a() { for c in self.kids { c.v = c.v + self.v; c.a(); } }
    traversal b() { for c in self.kids { let d = c.v * 2; c.total = d; c.b(); } }";
    assert_eq!(reduced(body), Vec::<String>::new());
}

#[test]
fn counters_and_flags_are_reduced() {
    let body = "
    traversal a() { for c in self.kids { COUNT = COUNT + c.v; c.a(); } }
    traversal b() { for c in self.kids { if c.v < 0 { SEEN = true; } c.b(); } }";
    assert_eq!(reduced(body), vec!["COUNT".to_string(), "SEEN".to_string()]);
}

#[test]
fn a_global_each_iteration_writes_before_reading_is_private() {
    // The element's traversal writes SCRATCH first, then reads it: an
    // iteration never sees another's value.
    let body = "
    traversal a() { for c in self.kids { c.a(); } SCRATCH = 0; while SCRATCH < self.v limit 3 { SCRATCH = SCRATCH + 1; } }
    traversal b() { for c in self.kids { c.b(); } }";
    assert_eq!(
        private(body),
        vec!["SCRATCH".to_string()],
        "after the recursion"
    );
    let body = "
    traversal a() { SCRATCH = self.v; if SCRATCH > 2 { self.total = SCRATCH; } for c in self.kids { c.a(); } }
    traversal b() { for c in self.kids { c.b(); } }";
    assert_eq!(private(body), vec!["SCRATCH".to_string()]);
    // Written on both branches of an `if` before the read.
    let body = "
    traversal a() { if self.v > 0 { SCRATCH = 1; } else { SCRATCH = 2; } self.total = SCRATCH; for c in self.kids { c.a(); } }
    traversal b() { for c in self.kids { c.b(); } }";
    assert_eq!(private(body), vec!["SCRATCH".to_string()]);
}

#[test]
fn a_global_read_before_it_is_written_keeps_the_loop_in_order() {
    for (body, what) in [
        (
            "traversal a() { self.total = SCRATCH; SCRATCH = self.v; for c in self.kids { c.a(); } }",
            "read first",
        ),
        (
            "traversal a() { if self.v > 0 { SCRATCH = 1; } self.total = SCRATCH; for c in self.kids { c.a(); } }",
            "written on one branch only",
        ),
        (
            "traversal a() { for c in self.kids { c.w(); } }
    traversal w() { for k in self.kids { SCRATCH = k.v; } self.total = SCRATCH; }",
            "written in a loop that may not run",
        ),
        (
            "traversal a() { for c in self.kids { c.a(); } self.total = SCRATCH; SCRATCH = 1; }",
            "read after the recursion, before the write",
        ),
        (
            "traversal a() { if self.v > 0 { return; } SCRATCH = 1; for c in self.kids { c.a(); } }
    traversal c() { self.a(); self.total = SCRATCH; }",
            "a callee that may return before writing",
        ),
    ] {
        let body = format!("{body}\n    traversal b() {{ for c in self.kids {{ c.b(); }} }}");
        let reason = match root_loop(&body) {
            Parallelism::Sequential { reason } => reason,
            Parallelism::Parallel { private, .. } => {
                assert!(private.is_empty(), "{what}: {private:?}");
                continue;
            }
        };
        assert!(reason.contains("SCRATCH"), "{what}: {reason}");
    }
}

#[test]
fn an_ordered_append_is_sequential() {
    let reason = sequential_because(
        "
    traversal a() { for c in self.kids { LOG = append(LOG, c.v); c.a(); } }
    traversal b() { for c in self.kids { c.b(); } }",
    );
    assert!(
        reason.starts_with("two iterations of loop p0#0 on different elements do not commute")
            && reason.contains("global:LOG"),
        "{reason}"
    );
}

#[test]
fn a_shared_local_is_sequential() {
    let reason = sequential_because(
        "
    traversal a() { let n = 0; for c in self.kids { n = n + c.v; c.a(); } self.total = n; }
    traversal b() { for c in self.kids { c.b(); } }",
    );
    assert!(reason.contains("local `n`"), "{reason}");
}

#[test]
fn a_write_of_the_receiver_read_by_other_iterations_is_sequential() {
    let reason = sequential_because(
        "
    traversal a() { for c in self.kids { c.a(); } }
    traversal b() { for c in self.kids { self.total = self.total + c.v; c.b(); } }",
    );
    assert!(
        reason.starts_with("two iterations of loop p1#0") && reason.contains("N.total"),
        "{reason}"
    );
}

#[test]
fn a_replacing_call_is_sequential() {
    let reason = sequential_because(
        "
    traversal a() { for c in self.kids { c.a(); } if self.v == 7 { self = new N { v: 0, total: 0, kids: [] }; } }
    traversal b() { for c in self.kids { c.b(); } }",
    );
    assert!(
        reason.ends_with("calls a traversal that may replace the element, which edits the list while the loop runs"),
        "{reason}"
    );
}

/// A `return` in the loop body ends the traversal: the later elements
/// never run, so each iteration depends on the ones before it (random
/// program 62266 was found parallel and its generated code did not
/// compile). `self = ..` in the body ends it too.
#[test]
fn an_iteration_that_may_end_the_traversal_is_sequential() {
    let reason = sequential_because(
        "
    traversal a() { for c in self.kids { if c.v > 3 { return; } c.a(); } }
    traversal b() { for c in self.kids { c.b(); } }",
    );
    assert!(
        reason.starts_with("an iteration of loop p0#0 may end the traversal"),
        "{reason}"
    );
    // (The loops do not merge: `b`'s replacement conflicts with `a`.)
    let (program, fused) = fused(
        "
    traversal a() { for c in self.kids { c.a(); } }
    traversal b() { for c in self.kids { c.b(); if c.v == 7 { self = new N { v: 0, total: 0, kids: [] }; } } }",
    );
    let text = report(&program, &fused);
    assert!(
        text.contains("in list order: an iteration of loop p1#0 may end the traversal"),
        "{text}"
    );
    // A `return` after the loop does not matter to it.
    assert!(matches!(
        root_loop(
            "
    traversal a() { for c in self.kids { c.a(); } if self.v > 3 { return; } }
    traversal b() { for c in self.kids { c.b(); } }"
        ),
        Parallelism::Parallel { .. }
    ));
}

/// The text, JSON and DOT reports say how every merged loop may run.
#[test]
fn reports_say_how_each_loop_may_run() {
    let (program, fused) = fused(
        "
    traversal a() { for c in self.kids { COUNT = COUNT + 1; c.a(); } }
    traversal b() { for c in self.kids { LOG = append(LOG, c.v); c.b(); } }",
    );
    let text = report(&program, &fused);
    assert!(
        text.contains("iterations: in list order: two iterations of loop p1#0 on different elements do not commute"),
        "{text}"
    );
    let json = treefuse_fusion::report::json_report(&program.model, &fused, &program.sources);
    let runs: Vec<&str> = json["functions"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["steps"].as_array().into_iter().flatten())
        .filter_map(|s| s["loop"]["parallel"]["runs"].as_str())
        .collect();
    assert!(runs.contains(&"sequential"), "{json}");
    let dot = treefuse_fusion::report::dot(&program.model, &fused, &program.sources);
    assert!(dot.contains("iterations: in list order"), "{dot}");
}

/// The runs of fused calls on distinct children of the fused functions of
/// `go` on `Node`, as (children, parallelism).
fn child_runs(traversals: &str) -> Vec<(Vec<String>, Parallelism)> {
    let src = format!(
        "global COUNT: i64 = 0;
global LOG: [i64] = [];
abstract tree T {{ v: i64; }}
tree Leaf : T {{}}
tree Node : T {{
    child l: T;
    child r: T;
}}
{traversals}
fuse go(root: T) {{ root.a(); root.b(); }}
"
    );
    let program = treefuse::compile_source("children.tf", &src)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.render(false)));
    let fused = program.fuse_all(&FusionOptions::default());
    fused
        .functions
        .iter()
        .flat_map(|f| {
            f.independent_calls.iter().map(|run| {
                let fields = run
                    .steps
                    .iter()
                    .filter_map(|&k| match &f.steps[k] {
                        Step::Group(g) => Some(program.model.fields[g.field.index()].name.clone()),
                        _ => None,
                    })
                    .collect();
                (fields, run.parallel.clone())
            })
        })
        .collect()
}

#[test]
fn calls_on_distinct_children_that_commute_are_parallel() {
    let runs = child_runs(
        "impl T { traversal a() { COUNT = COUNT + 1; } traversal b() { self.v = self.v + 1; } }
impl Node {
    traversal a() { self.l.a(); self.r.a(); COUNT = COUNT + 1; }
    traversal b() { self.l.b(); self.r.b(); }
}",
    );
    assert_eq!(runs.len(), 1, "{runs:?}");
    let (fields, parallel) = &runs[0];
    assert_eq!(fields, &["l", "r"]);
    assert!(
        matches!(parallel, Parallelism::Parallel { reduced, .. } if reduced.len() == 1),
        "{parallel:?}"
    );
}

#[test]
fn a_call_reading_what_another_child_call_writes_is_ordered() {
    let runs = child_runs(
        "impl T { traversal a() { self.v = self.v + 1; } traversal b() { self.v = 0; } traversal c(x: i64) { self.v = x; } }
impl Node {
    traversal a() { self.l.a(); self.r.a(); }
    traversal b() { self.l.b(); self.r.c(self.l.v); }
}",
    );
    let sequential: Vec<&String> = runs
        .iter()
        .filter_map(|(_, p)| match p {
            Parallelism::Sequential { reason } => Some(reason),
            _ => None,
        })
        .collect();
    assert!(
        sequential.iter().any(|r| r.contains("on `self.l`")
            && r.contains("on `self.r`")
            && r.contains("do not commute")),
        "{runs:?}"
    );
}
