//! Linked chains: a fused function that calls an *item* child and then
//! the *next* node of a chain, which runs this very function again
//! (`Inner { content, next }`, the linked lists of the case studies'
//! faithful ports), with calls the fuser found independent. The engines
//! that run in parallel (the generated parallel entry points and the
//! interpreter's `--threads`) follow such a chain and run its items as
//! the elements of a parallel loop; [`FusedFunction::linked_chain`] is the
//! one test of that shape both use, so that they split the same chains.

use crate::ir::{FusedFnId, FusedFunction, Parallelism, Step};
use treefuse_sema::{ExprKind, FieldId, FieldKind, GlobalId, Program, StmtKind};

/// A fused function that walks a linked chain ([`FusedFunction::linked_chain`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedChain {
    /// The child whose call is each chain node's item (the function's
    /// first step).
    pub item: FieldId,
    /// The child that links to the next node of the chain (the second
    /// step).
    pub next: FieldId,
    /// The globals the items' calls update commutatively: each worker
    /// updates its own copy, combined after the items ran.
    pub reduced: Vec<GlobalId>,
}

impl FusedFunction {
    /// Whether this function (`id` in its program) walks a chain whose
    /// items may run in parallel: its steps are two fused calls on
    /// distinct, non-optional child fields that the fuser found
    /// independent ([`FusedFunction::independent_calls`], with no private
    /// globals), without type guards, replacement or resumption, the
    /// first on the *item* child, the second on the *next* child, which
    /// runs this very function again on this function's type. Both calls
    /// pass nothing but the function's parameters, the second exactly its
    /// parameters in order and for every participant, so that every node
    /// of the chain runs with the same arguments and the same participants
    /// and an item's call reads nothing of the tree but the item's
    /// subtree (and the chain node it hangs off).
    ///
    /// An engine may then follow `next` while the node's type runs this
    /// function, run the items' calls in any order (each on its own
    /// subtree, in a tree) and the last node's call on `next` after them:
    /// the result is the sequential run's, provided the input is a tree
    /// (no item reaches a chain node or another item's nodes), which the
    /// engine must check.
    pub fn linked_chain(&self, id: FusedFnId, program: &Program) -> Option<LinkedChain> {
        let [Step::Group(item), Step::Group(next)] = self.steps.as_slice() else {
            return None;
        };
        let reduced = self
            .independent_calls
            .iter()
            .find_map(|run| match &run.parallel {
                Parallelism::Parallel { reduced, private }
                    if run.steps == [0, 1] && private.is_empty() =>
                {
                    Some(reduced.clone())
                }
                _ => None,
            })?;
        if !self.resume.is_empty() || self.typed_child.is_some() {
            return None;
        }
        let plain_child = |g: &crate::ir::CallGroup| {
            matches!(program.fields[g.field.index()].kind, FieldKind::Child(_))
                && !program.is_optional(g.field)
                && g.guards.iter().all(Option::is_none)
        };
        let recursive = next.targets.iter().any(|&(t, f)| t == self.ty && f == id);
        if !plain_child(item) || !plain_child(next) || !recursive || item.field == next.field {
            return None;
        }
        let np = self.participants.len();
        // Each call of the group passes parameters only; `exact`: every
        // participant calls, passing its own parameters in order.
        let params_only = |g: &crate::ir::CallGroup, exact: bool| {
            (!exact || g.calls.len() == np)
                && g.calls.iter().enumerate().all(|(k, &(p, s))| {
                    let Some(participant) = self.participants.get(p) else {
                        return false;
                    };
                    let body = &program.bodies[participant.body.index()];
                    let num_params = body.frame.num_params;
                    let Some(StmtKind::Call { args, .. }) =
                        body.body.as_deref().and_then(|b| b.get(s)).map(|s| &s.kind)
                    else {
                        return false;
                    };
                    (!exact || (p == k && args.len() == num_params))
                        && args.iter().enumerate().all(|(j, a)| match a.kind {
                            ExprKind::Local(l) => {
                                l.index() < num_params && (!exact || l.index() == j)
                            }
                            _ => false,
                        })
                })
        };
        (params_only(item, false) && params_only(next, true)).then_some(LinkedChain {
            item: item.field,
            next: next.field,
            reduced,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{fuse_program, FusedFnId, FusionOptions};

    /// The chains the fused program of `source` walks: the type name of
    /// each chain function, sorted.
    fn chains(source: &str) -> Vec<String> {
        let program = treefuse_sema::compile(source).expect("the test program checks");
        let analysis = treefuse_analysis::Analysis::new(&program);
        let fused = fuse_program(&program, &analysis, &FusionOptions::default());
        let mut out: Vec<String> = fused
            .functions
            .iter()
            .enumerate()
            .filter(|(i, f)| f.linked_chain(FusedFnId(*i as u32), &program).is_some())
            .map(|(_, f)| program.types[f.ty.index()].name.clone())
            .collect();
        out.sort();
        out
    }

    /// A chain of `Inner` nodes over `Item`s, whose `walk` makes
    /// `item_call` and then `next_call`.
    fn source(item_call: &str, next_call: &str) -> String {
        format!(
            "
            global SEEN: i64 = 0;
            tree List {{ traversal walk(d: i64) {{}} traversal mark(d: i64) {{}} }}
            tree Inner : List {{
                child item: Item;
                child next: List;
                traversal walk(d: i64) {{ {item_call} {next_call} }}
                traversal mark(d: i64) {{ self.item.mark(d); self.next.mark(d); }}
            }}
            tree End : List {{ }}
            tree Item {{
                v: i64;
                traversal walk(d: i64) {{ self.v = self.v + d; SEEN = SEEN + 1; }}
                traversal mark(d: i64) {{ self.v = self.v * 2; }}
            }}
            tree Root {{ child list: List; traversal go() {{ self.list.walk(3); self.list.mark(1); }} }}
            fuse run(r: Root) {{ r.go(); }}
            "
        )
    }

    #[test]
    fn a_linked_list_of_items_is_a_chain() {
        let chains = chains(&source("self.item.walk(d);", "self.next.walk(d);"));
        assert_eq!(chains, ["Inner"], "the counter is reduced: still a chain");
    }

    #[test]
    fn a_next_call_with_other_arguments_is_not() {
        // Every node of a chain must run with the first one's arguments.
        assert!(chains(&source("self.item.walk(d);", "self.next.walk(d + 1);")).is_empty());
        assert!(chains(&source("self.item.walk(d + 1);", "self.next.walk(d);")).is_empty());
    }

    #[test]
    fn dependent_calls_are_not() {
        // The chain's end doubles the counter the items add to: the
        // calls do not commute, so the items cannot run apart.
        let src = source("self.item.walk(d);", "self.next.walk(d);").replace(
            "tree End : List { }",
            "tree End : List { traversal walk(d: i64) { SEEN = SEEN * 2; } }",
        );
        assert!(chains(&src).is_empty(), "{src}");
    }
}
