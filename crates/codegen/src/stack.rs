//! The code that gives generated traversals enough stack for deep trees
//! (see the crate docs, "Deep trees"): the start of a visit or a body in
//! a program that checks, and the support functions (`run_deep`, `Cx`'s
//! stack bound). Which programs check, and where, is decided before any
//! code is generated ([`crate::stack_plan`]).

use crate::gen::Gen;
use crate::stack_plan::StackScheme;
use proc_macro2::TokenStream;
use quote::quote;
use treefuse_sema::{Stmt, StmtKind, TypeId};

impl Gen<'_> {
    /// The start of one node visit in dispatcher `again` (a call of the
    /// dispatcher itself with the same arguments): counts the visit and,
    /// in a program that needs it, moves to a new stack segment when the
    /// stack runs low (the cold path calls the dispatcher again, which is
    /// not inlined into itself, so no visit is written out twice).
    pub fn visit_prologue(&self, again: TokenStream) -> TokenStream {
        let c = &self.count_param;
        let count = quote!(if #c {
            cx.visits += 1;
        });
        if self.stack == StackScheme::EveryVisit {
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

    /// The start of a dispatcher's arm for these concrete types: under
    /// [`StackScheme::Created`], when one of them may be a created node
    /// and the arm's function calls further (`calls`), a check that runs
    /// the dispatcher again (`again`) on a new segment when less than the
    /// run's bound is left (the visit, counted already, is counted there).
    pub fn arm_stack_check(
        &self,
        types: &[TypeId],
        calls: bool,
        again: &TokenStream,
    ) -> TokenStream {
        match &self.stack {
            StackScheme::Created(checked) if calls && types.iter().any(|t| checked[t.index()]) => {
                let c = &self.count_param;
                quote!(
                    if stack_pointer() < cx.stack_low {
                        if #c {
                            cx.visits -= 1;
                        }
                        return with_more_stack(cx, move |cx| #again);
                    }
                )
            }
            _ => TokenStream::new(),
        }
    }

    /// Falls back to [`StackScheme::Reserve`] when no dispatch arm of a
    /// checked type runs a function that calls further.
    pub fn drop_unused_checks(&mut self) {
        let StackScheme::Created(checked) = &self.stack else {
            return;
        };
        let runs = |t: usize| -> bool {
            self.p.types[t]
                .vtable
                .iter()
                .flatten()
                .any(|b| self.body_calls(*b))
                || self.fused.functions.iter().enumerate().any(|(fi, f)| {
                    f.ty.index() == t && self.fused_calls(treefuse_fusion::FusedFnId(fi as u32))
                })
        };
        if !(0..checked.len()).any(|t| checked[t] && runs(t)) {
            self.stack = StackScheme::Reserve;
        }
    }

    /// Whether body `b` calls a traversal anywhere.
    pub fn body_calls(&self, b: treefuse_sema::BodyId) -> bool {
        self.p.bodies[b.index()]
            .body
            .as_deref()
            .is_some_and(stmts_call)
    }

    /// Whether fused function `f` calls further: a merged call or loop, a
    /// call left as a statement, or participants resumed on a replacement.
    pub fn fused_calls(&self, f: treefuse_fusion::FusedFnId) -> bool {
        let f = &self.fused.functions[f.index()];
        !f.resume.is_empty()
            || f.steps.iter().any(|s| match s {
                treefuse_fusion::Step::Stmt { participant, stmt } => self.p.bodies
                    [f.participants[*participant].body.index()]
                .body
                .as_deref()
                .and_then(|b| b.get(*stmt))
                .is_some_and(|s| stmts_call(std::slice::from_ref(s))),
                _ => true,
            })
    }
}

/// Whether any of `stmts` (nested ones included) calls a traversal.
fn stmts_call(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Call { .. } => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => stmts_call(then_branch) || stmts_call(else_branch),
        StmtKind::ForChildren { body, .. }
        | StmtKind::ForArray { body, .. }
        | StmtKind::ForRange { body, .. }
        | StmtKind::While { body, .. } => stmts_call(body),
        _ => false,
    })
}

/// The run context and the stack support code: with checks in the
/// visits of created nodes (`bounded`, [`StackScheme::Created`]), with
/// per-visit guards (`guarded`) or with one reservation per run.
/// `written` is the number of globals that parallel loops keep private
/// (`Gen::written_flag`): the context then has one flag for each.
pub(crate) fn support(
    guarded: bool,
    bounded: bool,
    count: &proc_macro2::Ident,
    written: usize,
) -> TokenStream {
    let cx = quote!(
        /// The state of one run: the globals and the node-visit counter
        /// (kept only when `COUNT` is true; otherwise every update
        /// compiles away).
    );
    let (written_field, written_init) = if written == 0 {
        (TokenStream::new(), TokenStream::new())
    } else {
        let n_written = proc_macro2::Literal::usize_unsuffixed(written);
        (
            quote!(
                /// Per global that a parallel loop's workers keep to
                /// themselves, whether this run has assigned it (read
                /// after a worker's chunk: the last writer's copy stays).
                pub written: [bool; #n_written],
            ),
            quote!(written: [false; #n_written],),
        )
    };
    let reserve = quote!(
        /// Stack a run keeps beyond what its tree levels take: the
        /// entry point's own frames, pure functions, host code.
        const STACK_RESERVE: usize = 1 << 20;
        /// An upper bound of the stack that one tree level of traversal
        /// code takes (a dispatcher and a body or fused function, with a
        /// wide margin; unoptimised code has larger frames).
        const STACK_PER_LEVEL: usize = if cfg!(debug_assertions) {
            4 << 10
        } else {
            2 << 10
        };
        /// The largest segment a run reserves (address space, committed
        /// only where touched): 10^6 levels fit in every build.
        const STACK_MAX: usize = 16 << 30;

        /// The stack that `levels` tree levels and the reserve take.
        #[inline]
        fn stack_for(levels: usize) -> usize {
            levels
                .saturating_mul(STACK_PER_LEVEL)
                .saturating_add(STACK_RESERVE)
                .min(STACK_MAX)
        }

        /// Runs `f`, whose recursion goes at most `levels` tree levels
        /// deep, with enough stack: on this one when it has that much
        /// left, else on the thread's reusable segment (the operating
        /// system commits its pages only when the recursion reaches them).
        #[inline]
        fn run_deep<R>(levels: usize, f: impl FnOnce() -> R) -> R {
            ::treefuse_runtime::stack::run_with_stack(stack_for(levels), f)
        }
    );
    let pointer = quote!(
        /// An address near the top of the current stack (the stack grows
        /// down on every platform the runtime supports).
        #[inline(always)]
        fn stack_pointer() -> usize {
            let marker = 0u8;
            std::ptr::addr_of!(marker) as usize
        }

        /// The address below which the current stack segment has less
        /// than `need` left (0 where that cannot be told: no checks).
        fn stack_low(need: usize) -> usize {
            match ::treefuse_runtime::stack::remaining() {
                Some(left) => (stack_pointer() - left).saturating_add(need),
                None => 0,
            }
        }
    );
    if bounded {
        return quote!(
            #cx
            #[derive(Clone, Debug)]
            pub struct Cx<const #count: bool> {
                /// The globals.
                pub globals: Globals,
                /// Node visits so far (always 0 unless `COUNT`).
                pub visits: u64,
                #written_field
                /// The address below which the visit of a created node
                /// moves to a new stack segment (0: no checks).
                stack_low: usize,
                /// The stack that must be left when such a visit starts:
                /// room for the run's original nodes, one level each.
                stack_need: usize,
            }

            impl<const #count: bool> Cx<#count> {
                /// A context with these globals and no visits.
                pub fn new(globals: Globals) -> Self {
                    Cx { globals, visits: 0, #written_init stack_low: 0, stack_need: 0 }
                }

                /// Sets the bound for a run on a tree of `levels` nodes,
                /// on the current stack segment.
                fn set_stack_bound(&mut self, levels: usize) {
                    // Half the reserve below what `run_deep` reserved, so
                    // that a run starts above the bound.
                    self.stack_need = stack_for(levels) - STACK_RESERVE / 2;
                    self.stack_low = stack_low(self.stack_need);
                }
            }

            #reserve

            #pointer

            /// Runs `f` on a new segment of twice
            /// the run's bound and the reserve (at most `STACK_MAX` and the
            /// reserve): the next move comes only after the bound's worth
            /// of created nodes' levels, so a run reserves address space in
            /// proportion to its depth.
            #[cold]
            #[inline(never)]
            fn with_more_stack<const #count: bool, R>(cx: &mut Cx<#count>, f: impl FnOnce(&mut Cx<#count>) -> R) -> R {
                let saved = cx.stack_low;
                let need = cx.stack_need;
                let segment = need.saturating_mul(2).min(STACK_MAX).saturating_add(STACK_RESERVE);
                let r = ::treefuse_runtime::stack::grow(segment, || {
                    cx.stack_low = stack_low(need);
                    f(cx)
                });
                cx.stack_low = saved;
                r
            }
        );
    }
    if guarded {
        quote!(
            #cx
            #[derive(Clone, Debug)]
            pub struct Cx<const #count: bool> {
                /// The globals.
                pub globals: Globals,
                /// Node visits so far (always 0 unless `COUNT`).
                pub visits: u64,
                #written_field
                /// The address below which a visit moves to a new stack
                /// segment.
                stack_low: usize,
            }

            impl<const #count: bool> Cx<#count> {
                /// A context with these globals and no visits, for a run on
                /// this thread.
                pub fn new(globals: Globals) -> Self {
                    Cx { globals, visits: 0, #written_init stack_low: stack_low(STACK_RED_ZONE) }
                }
            }

            /// Stack that must remain when a node visit starts: room for one
            /// visit's frame and the pure-function calls it makes, with a
            /// wide margin.
            const STACK_RED_ZONE: usize = 1 << 20;
            /// Size of each stack segment added when the stack runs low.
            const STACK_SEGMENT: usize = 16 << 20;

            #pointer

            /// Runs `f` on a new segment of `STACK_SEGMENT` bytes, so
            /// that 10^6-deep trees run.
            #[cold]
            #[inline(never)]
            fn with_more_stack<const #count: bool, R>(cx: &mut Cx<#count>, f: impl FnOnce(&mut Cx<#count>) -> R) -> R {
                let saved = cx.stack_low;
                let r = ::treefuse_runtime::stack::grow(STACK_SEGMENT, || {
                    cx.stack_low = stack_low(STACK_RED_ZONE);
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
            pub struct Cx<const #count: bool> {
                /// The globals.
                pub globals: Globals,
                /// Node visits so far (always 0 unless `COUNT`).
                pub visits: u64,
                #written_field
            }

            impl<const #count: bool> Cx<#count> {
                /// A context with these globals and no visits.
                pub fn new(globals: Globals) -> Self {
                    Cx { globals, visits: 0, #written_init }
                }
            }

            #reserve
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::stack_plan::{needs_stack_guard, stack_scheme, StackScheme};
    use treefuse_sema::Program;

    fn compile(source: &str) -> Program {
        treefuse_sema::compile(source).unwrap_or_else(|d| panic!("{d:?}"))
    }

    fn guard(source: &str) -> bool {
        needs_stack_guard(&compile(source))
    }

    fn example(path: &str) -> String {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
        std::fs::read_to_string(format!("{root}{path}")).unwrap()
    }

    /// The concrete types whose visits check the stack, by name.
    fn checked(source: &str) -> Vec<String> {
        let p = compile(source);
        match stack_scheme(&p) {
            StackScheme::Created(c) => p
                .types
                .iter()
                .zip(c)
                .filter(|(_, c)| *c)
                .map(|(t, _)| t.name.clone())
                .collect(),
            other => panic!("expected checks in created nodes' visits, got {other:?}"),
        }
    }

    #[test]
    fn traversals_that_only_go_down_need_no_guard() {
        assert!(!guard(&example("figure2/figure2.tf")));
        assert!(!guard(&example("render/render.tf")));
        // Only leaves are created: a created leaf ends a chain of visits.
        assert!(!guard(&example("rewriting/splice.tf")));
    }

    #[test]
    fn created_nodes_with_children_check_the_stack_in_their_visits() {
        // Desugaring `x++` into `x = x + 1` builds an assignment with a
        // binary expression; constant folding and empty branches build
        // constants and one-statement lists.
        assert_eq!(
            checked(&example("ast/ast.tf")),
            ["StmtListEnd", "BinaryExpr", "AssignStmt"]
        );
        // A deep copy can create every type below the copied one.
        let copy = "
            abstract tree N { traversal f() {} }
            tree Leaf : N {}
            tree Pair : N { child a: N; child b: N; traversal f() { self.b = copy(self.a); self.a.f(); } }
            tree Top { child n: N; traversal f() { self.n.f(); } }
            fuse run(root: Top) { root.f(); }
        ";
        assert_eq!(checked(copy), ["Pair"]);
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
        assert_eq!(stack_scheme(&compile(cycle)), StackScheme::EveryVisit);
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
    fn only_created_nodes_visits_check_the_stack() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
        let figure2 = crate::emit_file(format!("{root}figure2/figure2.tf")).unwrap();
        assert!(figure2.contains("run_deep(") && figure2.contains("t.node_count()"));
        assert!(!figure2.contains("stack_pointer()"));
        let ast = crate::emit_file(format!("{root}ast/ast.tf")).unwrap();
        assert!(ast.contains("cx.set_stack_bound(t.node_count());"));
        // Only the dispatch arms of the checked types check.
        let mut checks = 0;
        for (at, _) in ast.match_indices("if stack_pointer() < cx.stack_low") {
            let arm = ast[..at]
                .lines()
                .rev()
                .find(|l| l.contains("=> {"))
                .unwrap_or("");
            assert!(
                ["StmtListEnd", "BinaryExpr", "AssignStmt"]
                    .iter()
                    .any(|k| arm.contains(&format!("Kind::{k}"))),
                "a check outside the created types' arms: {arm}"
            );
            checks += 1;
        }
        assert!(checks > 0);
    }
}
