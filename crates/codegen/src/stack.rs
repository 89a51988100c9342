//! How generated traversals get enough stack for deep trees (see the crate
//! docs, "Deep trees"): which programs need a per-visit guard, the code
//! that starts a visit, and the support functions.
//!
//! Most programs need no check per visit: a traversal's recursion goes one
//! tree level down per call, so its depth is at most the tree's height,
//! which is at most the number of nodes. The entry point reserves
//! `nodes × STACK_PER_LEVEL` once (on the running stack when it has that
//! much left, else on one lazily committed `stacker` segment) and the
//! visits run unchecked. Two things break the bound, and a program that
//! has either keeps a stack-pointer check in every dispatcher: a cycle of
//! calls on `self` (recursion on one node, as deep as the data says) and
//! statements that create nodes (the tree may grow below a running visit).

use crate::gen::Gen;
use proc_macro2::TokenStream;
use quote::quote;
use treefuse_sema::{PathRoot, Program, Stmt, StmtKind};

/// Whether the recursion of `p`'s traversals can go deeper than its tree
/// has nodes when the run starts: a statement creates nodes, or
/// traversals call each other on `self` in a cycle.
pub(crate) fn needs_stack_guard(p: &Program) -> bool {
    let mut creates = false;
    // calls[m]: the traversals that some body of `m` calls on `self`.
    let mut calls = vec![Vec::new(); p.methods.len()];
    for b in &p.bodies {
        if let Some(stmts) = &b.body {
            scan(stmts, &mut creates, &mut calls[b.method.index()]);
        }
    }
    if creates {
        return true;
    }
    // A self-call cycle: some traversal reaches itself.
    (0..calls.len()).any(|start| {
        let mut seen = vec![false; calls.len()];
        let mut work: Vec<usize> = calls[start].clone();
        while let Some(m) = work.pop() {
            if m == start {
                return true;
            }
            if !std::mem::replace(&mut seen[m], true) {
                work.extend(&calls[m]);
            }
        }
        false
    })
}

fn scan(stmts: &[Stmt], creates: &mut bool, self_calls: &mut Vec<usize>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Replace { .. }
            | StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. } => *creates = true,
            StmtKind::Call {
                receiver, method, ..
            } if receiver.root == PathRoot::SelfNode && receiver.steps.is_empty() => {
                self_calls.push(method.index())
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                scan(then_branch, creates, self_calls);
                scan(else_branch, creates, self_calls);
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. } => scan(body, creates, self_calls),
            _ => {}
        }
    }
}

impl Gen<'_> {
    /// The start of one node visit in dispatcher `again` (a call of the
    /// dispatcher itself with the same arguments): counts the visit and,
    /// in a program that needs it, moves to a new stack segment when the
    /// stack runs low (the cold path calls the dispatcher again, which is
    /// not inlined into itself, so no visit is written out twice).
    pub fn visit_prologue(&self, again: TokenStream) -> TokenStream {
        let count = quote!(if C {
            cx.visits += 1;
        });
        if self.stack_guard {
            quote!(
                if stack_pointer() < cx.stack_low {
                    return with_more_stack(cx, move |cx| #again);
                }
                #count
            )
        } else {
            count
        }
    }
}

/// The run context and the stack support code: with per-visit guards
/// (`guarded`) or with one reservation per run.
pub(crate) fn support(guarded: bool) -> TokenStream {
    let cx = quote!(
        /// The state of one run: the globals and the node-visit counter
        /// (kept only when `COUNT` is true; otherwise every update
        /// compiles away).
    );
    if guarded {
        quote!(
            #cx
            #[derive(Clone, Debug)]
            pub struct Cx<const COUNT: bool> {
                /// The globals.
                pub globals: Globals,
                /// Node visits so far (always 0 unless `COUNT`).
                pub visits: u64,
                /// The address below which a visit moves to a new stack
                /// segment.
                stack_low: usize,
            }

            impl<const COUNT: bool> Cx<COUNT> {
                /// A context with these globals and no visits, for a run on
                /// this thread.
                pub fn new(globals: Globals) -> Self {
                    Cx { globals, visits: 0, stack_low: stack_low() }
                }
            }

            /// Stack that must remain when a node visit starts: room for one
            /// visit's frame and the pure-function calls it makes, with a
            /// wide margin.
            const STACK_RED_ZONE: usize = 1 << 20;
            /// Size of each stack segment added when the stack runs low.
            const STACK_SEGMENT: usize = 16 << 20;

            /// An address near the top of the current stack (the stack grows
            /// down on every platform `stacker` supports).
            #[inline(always)]
            fn stack_pointer() -> usize {
                let marker = 0u8;
                std::ptr::addr_of!(marker) as usize
            }

            /// The address below which the current stack segment has less
            /// than `STACK_RED_ZONE` left (0 where `stacker` cannot tell: no
            /// checks).
            fn stack_low() -> usize {
                match stacker::remaining_stack() {
                    Some(left) => (stack_pointer() - left).saturating_add(STACK_RED_ZONE),
                    None => 0,
                }
            }

            /// Runs `f` on a new `STACK_SEGMENT` added with `stacker`, so
            /// that 10^6-deep trees run.
            #[cold]
            #[inline(never)]
            fn with_more_stack<const C: bool, R>(cx: &mut Cx<C>, f: impl FnOnce(&mut Cx<C>) -> R) -> R {
                let saved = cx.stack_low;
                let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                    cx.stack_low = stack_low();
                    f(cx)
                });
                cx.stack_low = saved;
                r
            }

            /// Runs `f` (the run has per-visit guards; nothing to reserve).
            #[inline(always)]
            fn run_deep<R>(_levels: usize, f: impl FnOnce() -> R) -> R {
                f()
            }
        )
    } else {
        quote!(
            #cx
            #[derive(Clone, Debug)]
            pub struct Cx<const COUNT: bool> {
                /// The globals.
                pub globals: Globals,
                /// Node visits so far (always 0 unless `COUNT`).
                pub visits: u64,
            }

            impl<const COUNT: bool> Cx<COUNT> {
                /// A context with these globals and no visits.
                pub fn new(globals: Globals) -> Self {
                    Cx { globals, visits: 0 }
                }
            }

            /// Stack a run keeps beyond what its tree levels take: the
            /// entry point's own frames, pure functions, host code.
            const STACK_RESERVE: usize = 1 << 20;
            /// An upper bound of the stack that one tree level of traversal
            /// code takes (a dispatcher and a body or fused function, with a
            /// wide margin; unoptimised code has larger frames).
            const STACK_PER_LEVEL: usize = if cfg!(debug_assertions) { 4 << 10 } else { 2 << 10 };
            /// The largest segment a run reserves (address space, committed
            /// only where touched): 10^6 levels fit in every build.
            const STACK_MAX: usize = 16 << 30;

            /// Runs `f`, whose recursion goes at most `levels` tree levels
            /// deep, with enough stack: on this one when it has that much
            /// left, else on one `stacker` segment reserved for the whole run
            /// (the operating system commits its pages only when the
            /// recursion reaches them). Visits then need no checks.
            #[inline]
            fn run_deep<R>(levels: usize, f: impl FnOnce() -> R) -> R {
                let need = levels
                    .saturating_mul(STACK_PER_LEVEL)
                    .saturating_add(STACK_RESERVE)
                    .min(STACK_MAX);
                match stacker::remaining_stack() {
                    Some(left) if left >= need => f(),
                    _ => stacker::grow(need, f),
                }
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::needs_stack_guard;

    fn guard(source: &str) -> bool {
        let p = treefuse_sema::compile(source).unwrap_or_else(|d| panic!("{d:?}"));
        needs_stack_guard(&p)
    }

    fn example(path: &str) -> String {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
        std::fs::read_to_string(format!("{root}{path}")).unwrap()
    }

    #[test]
    fn traversals_that_only_go_down_need_no_guard() {
        assert!(!guard(&example("figure2/figure2.tf")));
        assert!(!guard(&example("render/render.tf")));
    }

    #[test]
    fn creating_nodes_needs_a_guard() {
        assert!(guard(&example("rewriting/splice.tf")));
        // Desugaring `x++` into `x = x + 1` builds new nodes.
        assert!(guard(&example("ast/ast.tf")));
    }

    #[test]
    fn a_cycle_of_calls_on_self_needs_a_guard() {
        let cycle = "
            abstract tree N { n: i64 = 0; traversal f(k: i64) {} }
            tree Leaf : N {
                traversal f(k: i64) {
                    if k > 0 { self.n = self.n + 1; self.f(k - 1); }
                }
            }
            fuse run(root: N) { root.f(10); }
        ";
        assert!(guard(cycle));
        // A call on `self` that does not come back is no cycle.
        let chain = "
            abstract tree N { n: i64 = 0; traversal f() {} traversal g() {} }
            tree Leaf : N {
                traversal f() { self.g(); }
                traversal g() { self.n = 1; }
            }
            fuse run(root: N) { root.f(); }
        ";
        assert!(!guard(chain));
    }

    #[test]
    fn only_guarded_programs_check_the_stack_per_visit() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
        let figure2 = crate::emit_file(format!("{root}figure2/figure2.tf")).unwrap();
        assert!(figure2.contains("run_deep(") && figure2.contains("t.node_count()"));
        assert!(!figure2.contains("stack_pointer()"));
        let splice = crate::emit_file(format!("{root}rewriting/splice.tf")).unwrap();
        assert!(splice.contains("if stack_pointer() < cx.stack_low"));
    }
}
