//! Merged loops on several threads (`treefuse run --threads N`,
//! [`Interpreter::split_loops`]).
//!
//! A merged loop the fuser found independent
//! ([`treefuse_fusion::Parallelism::Parallel`]: each iteration changes
//! only its element's subtree, and the globals it changes are reduced or
//! private) may run its iterations in any order. The outermost such loop
//! of a run splits its list into chunks of consecutive elements
//! ([`LoopSplit`]) and runs each chunk, in list order, on a worker of the
//! current rayon pool: a copy of the interpreter with the globals as they
//! are before the loop and a copy of the fused call's frame, on a
//! [`ChunkView`](treefuse_runtime::ChunkView) of the tree (the tree before the loop, read-only, with
//! the nodes the chunk changes copied into the view and the nodes it
//! creates numbered from the tree's end).
//!
//! The fuser's proof holds for trees; an interpreter run may have made
//! the tree a graph by then (a node listed twice, a child shared by two
//! elements, an alias kept by an earlier pass). The views check what the
//! proof assumes as the chunks run: a chunk that reads a node another
//! chunk owns, or changes a node no chunk owns, is abandoned. If any chunk
//! was abandoned or failed, nothing of the split run is kept and the loop
//! runs again sequentially, on the tree and globals no worker changed: so
//! a runtime error is always the sequential run's error, raised by the
//! sequential run, with the tree and globals as that run leaves them.
//! Otherwise the chunks' changes go into the tree in list order (created
//! nodes get the ids the sequential run gives them) and the globals
//! combine: reduced ones by their [`Reduction`] (each worker started from
//! the value before the loop), private ones from the last chunk that
//! assigned them. Visits, the visit profile and the `while` loop counts
//! add up.
//!
//! A linked chain ([`treefuse_fusion::FusedFunction::linked_chain`]: a
//! fused function calling its `content` child, then its `next` child,
//! which runs the same function on the next node, the two calls
//! independent and passing the function's parameters only) runs its items
//! as such a loop: in a run that splits, the chain function's plan
//! starts with a chain step ([`Interpreter::chain_call`]; a run that does
//! not split has no such step, so the sequential engine pays nothing for
//! chains), and on the whole tree ([`Interpreter::run_chain`]) the run follows `next`
//! while the node's type runs the function, splits the `content` children
//! as a list's elements (no element's walk may reach a chain node: the
//! links were read before the items ran), runs each chunk's nodes' item
//! calls on a worker with the first node's arguments, then the last
//! node's call on `next`. A chain that does not split runs node by node
//! in order, as `call_fused` would, without trying again.
//!
//! Loops inside a chunk run sequentially in the chunk's worker; other
//! calls on distinct children ([`treefuse_fusion::IndependentCalls`]) run
//! in order.

use super::{Active, GroupPlan, LoopPlan, Parts, Plan, PlanStep, Shares};
use crate::rewrite::Site;
use crate::Failure;
use crate::Interpreter;
use rayon::prelude::*;
use treefuse_fusion::{FusedFnId, FusedProgram, ParticipantMask as Mask, Reduction};
use treefuse_runtime::{ChunkChanges, LoopSplit, NodeId, NodeList, SlotRef, Tree, TreeStore};
use treefuse_sema::Value;

impl<'p> Interpreter<'p> {
    /// The grain to split `group` with: `Some` if this run splits loops
    /// and the fuser found the group's iterations independent.
    #[inline]
    pub(super) fn grain<M>(&self, group: &LoopPlan<'p, M>) -> Option<usize> {
        self.grain.filter(|_| group.parallel.is_some())
    }

    /// Runs merged loop `group` over the list of `node` split into
    /// chunks on the pool's threads (see the module docs). `false` when
    /// the loop did not run that way and must run sequentially: the list
    /// is too short to split, or a chunk was abandoned or failed (then
    /// nothing changed).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_loop<M: Mask>(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        group: &LoopPlan<'p, M>,
        node: NodeId,
        frames: &mut Parts<'_>,
        run: &mut Active<M>,
        grain: usize,
    ) -> bool {
        let Some(shares) = &group.parallel else {
            return false;
        };
        // The workers start from the lists as the program sees them.
        self.sync_all_open_lists(tree);
        let items = match tree.slot(node, group.slot) {
            SlotRef::List(items) => items.clone(),
            _ => return false,
        };
        let Some(split) = LoopSplit::plan(tree, &items, grain) else {
            return false;
        };
        let base: &Tree = tree;
        let this: &Interpreter<'p> = self;
        let frames_now: &Parts<'_> = frames;
        let run_now: &Active<M> = run;
        let outcomes: Vec<Option<(Interpreter<'p>, ChunkChanges)>> = (0..split.chunks())
            .into_par_iter()
            .map(|k| {
                let mut worker = this.fork(shares);
                let mut view = split.view(base, this.program, k);
                let mut parts = frames_now.duplicate();
                let mut active = run_now.duplicate();
                let elements: NodeList = items[split.elements(k)].iter().copied().collect();
                let index = worker.open_list_with(node, group.slot, elements);
                let ran = worker.loop_rounds(
                    &mut view,
                    fused,
                    plan,
                    group,
                    &mut parts,
                    &mut active,
                    index,
                );
                // The fuser keeps `return` and `self = ..` out of a
                // parallel loop's bodies, so no participant can have left.
                let kept = ran.is_ok() && !view.abandoned() && active.mask == run_now.mask;
                kept.then(|| (worker, view.into_changes()))
            })
            .collect();
        self.keep(tree, outcomes, shares)
    }

    /// Takes in what the chunks of a split loop did, in list order: their
    /// changes into the tree and their workers' counts and globals
    /// ([`Self::absorb`]); `false`, with nothing changed, if a chunk was
    /// abandoned or failed (`None`), and the loop must run again.
    fn keep(
        &mut self,
        tree: &mut Tree,
        outcomes: Vec<Option<(Interpreter<'p>, ChunkChanges)>>,
        shares: &Shares,
    ) -> bool {
        if outcomes.iter().any(Option::is_none) {
            self.split_stats.rerun += 1;
            return false;
        }
        self.split_stats.split_loops += 1;
        self.split_stats.chunks += outcomes.len() as u64;
        let before = self.globals.clone();
        for (worker, changes) in outcomes.into_iter().flatten() {
            changes.apply(tree);
            self.absorb(worker, &before, shares);
        }
        true
    }

    /// The call of chain function `id` (`FnPlan::chain`) on `node`, whose
    /// visit `call_fused` counted, in a run that splits loops
    /// ([`PlanStep::Chain`]): the chain's items ([`Self::run_chain`] on
    /// the whole tree, in order on a chunk's view), then the last node's
    /// call on `next` as the function's last step, returned for
    /// `call_fused` to run in place of its own (`None` when no call takes
    /// part).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    #[inline(never)]
    pub(super) fn chain_call<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &'a Plan<'p, M>,
        id: FusedFnId,
        node: NodeId,
        mask: M,
        frames: Parts<'a>,
        site: Site,
    ) -> Result<Option<(FusedFnId, NodeId, M, Parts<'a>, Site)>, Failure> {
        let ran = match (&plan.functions[id.index()].chain, tree.as_tree()) {
            (Some(shares), Some(whole)) => {
                self.run_chain(whole, fused, plan, id, shares, node, mask, frames, site)?
            }
            _ => self.chain_in_order(tree, fused, plan, id, node, mask, frames)?,
        };
        let Some((last, last_frames, last_mask)) = ran else {
            return Ok(None);
        };
        let next = chain_groups(plan, id).1;
        let admitted = next.admit.first().cloned().unwrap_or(M::ALL);
        self.fused_group_last(tree, plan, next, last, last_frames, (last_mask, admitted))
    }

    /// Runs the linked chain of chain function `id` (`FnPlan::chain`)
    /// that starts at `node`, which the run calls with `mask` and
    /// `frames` from `site`, up to the call on its last node's `next`
    /// child, and returns that node with the frames and mask its call
    /// runs with (`None` when a call on `next` in the chain took no part,
    /// so the run of the chain ends there). The items' calls run as a
    /// split loop when [`Self::split_chain`] can, else in chain order
    /// ([`Self::chain_in_order`]); either way the result is the
    /// sequential run's.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub(super) fn run_chain<'a, M: Mask>(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        plan: &'a Plan<'p, M>,
        id: FusedFnId,
        shares: &Shares,
        node: NodeId,
        mask: M,
        mut frames: Parts<'a>,
        site: Site,
    ) -> Result<Option<(NodeId, Parts<'a>, M)>, Failure> {
        if let Some((last, before_last)) = self.grain.and_then(|grain| {
            self.split_chain(
                tree, fused, plan, id, shares, node, &mask, &frames, site, grain,
            )
        }) {
            // Every node of the chain runs with the first one's arguments
            // (`linked_chain`): the last one's call is the first one's,
            // moved down the chain.
            let next_slot = chain_groups(plan, id).1.slot;
            retarget(&mut frames, last, Site::Child(before_last, next_slot));
            return Ok(Some((last, frames, mask)));
        }
        self.chain_in_order(tree, fused, plan, id, node, mask, frames)
    }

    /// The chain of [`Self::run_chain`] node by node, as `call_fused` runs
    /// it (each node's item call, then the call on `next`, which runs
    /// this function on the next node), but in a loop that does not try to
    /// split the rest of the chain again.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn chain_in_order<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &'a Plan<'p, M>,
        id: FusedFnId,
        mut node: NodeId,
        mut mask: M,
        mut frames: Parts<'a>,
    ) -> Result<Option<(NodeId, Parts<'a>, M)>, Failure> {
        let (item, next) = chain_groups(plan, id);
        let all = |g: &GroupPlan<'p, M>| g.admit.first().cloned().unwrap_or(M::ALL);
        loop {
            self.fused_group(
                tree,
                fused,
                plan,
                item,
                node,
                &mut frames,
                (mask.clone(), all(item)),
            )?;
            let following = tree.child(node, next.slot);
            if next.targets.get(tree.type_of(following)) != Some(id) {
                return Ok(Some((node, frames, mask)));
            }
            let site = Site::Child(node, next.slot);
            let live = self.live_frames(
                tree,
                plan,
                &next.calls,
                &next.targets,
                &mut frames,
                (mask.clone(), all(next)),
                following,
                site,
                "no fused function for the child's type",
            );
            self.recycle_frame(frames.frame);
            let Some((_, callee, callee_mask)) = live? else {
                return Ok(None);
            };
            (node, frames, mask) = (following, callee, callee_mask);
            self.count_visit(id);
        }
    }

    /// Runs the items of the linked chain of chain function `id` that
    /// starts at `node` as a split loop: follows `next` while the node's
    /// type runs this function, splits the items (each node's item child)
    /// into chunks ([`LoopSplit`]) and runs each chunk's nodes' item calls
    /// on a worker, each with the first node's arguments (`frames`:
    /// `linked_chain` makes every node's the same). Returns the chain's
    /// last node and the one before it, after the chunks' changes went
    /// into the tree; `None`, with nothing changed, when the chain is too
    /// short to split, an item's walk reaches a chain node (a graph: an
    /// item could change the links the chain was read from), or a chunk
    /// was abandoned or failed.
    #[allow(clippy::too_many_arguments)]
    fn split_chain<M: Mask>(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        id: FusedFnId,
        shares: &Shares,
        node: NodeId,
        mask: &M,
        frames: &Parts<'_>,
        site: Site,
        grain: usize,
    ) -> Option<(NodeId, NodeId)> {
        let (item, next) = chain_groups(plan, id);
        self.sync_all_open_lists(tree);
        let mut chain = vec![node];
        let mut at = node;
        loop {
            let following = tree.child(at, next.slot);
            if next.targets.get(tree.type_of(following)) != Some(id) {
                break;
            }
            if chain.len() > tree.allocated() {
                // A cycle of links: the sequential run never ends either.
                return None;
            }
            chain.push(following);
            at = following;
        }
        let items: Vec<NodeId> = chain.iter().map(|&c| tree.child(c, item.slot)).collect();
        let split = LoopSplit::plan(tree, &items, grain)?;
        if chain.iter().any(|&c| split.owns(c)) {
            return None;
        }
        let admitted = item.admit.first().cloned().unwrap_or(M::ALL);
        let base: &Tree = tree;
        let this: &Interpreter<'p> = self;
        let outcomes: Vec<Option<(Interpreter<'p>, ChunkChanges)>> = (0..split.chunks())
            .into_par_iter()
            .map(|k| {
                let mut worker = this.fork(shares);
                let mut view = split.view(base, this.program, k);
                for i in split.elements(k) {
                    let c = chain[i];
                    let from = match i.checked_sub(1) {
                        Some(before) => Site::Child(chain[before], next.slot),
                        None => site,
                    };
                    let mut parts = frames.duplicate();
                    retarget(&mut parts, c, from);
                    if i > 0 {
                        // The first node's visit is the call's own.
                        worker.count_visit(id);
                    }
                    let ran = worker.fused_group(
                        &mut view,
                        fused,
                        plan,
                        item,
                        c,
                        &mut parts,
                        (mask.clone(), admitted.clone()),
                    );
                    worker.recycle_frame(parts.frame);
                    if ran.is_err() || view.abandoned() {
                        return None;
                    }
                }
                Some((worker, view.into_changes()))
            })
            .collect();
        if !self.keep(tree, outcomes, shares) {
            return None;
        }
        self.split_stats.split_chains += 1;
        let n = chain.len();
        Some((chain[n - 1], chain[n - 2]))
    }

    /// A worker for one chunk of a split loop: the program, host and
    /// globals of this interpreter, the open loops (a chunk's frames refer
    /// to the outer ones), empty pools and counts.
    fn fork(&self, shares: &Shares) -> Interpreter<'p> {
        let mut worker = Interpreter::new(self.program, self.host);
        worker.globals.clone_from(&self.globals);
        worker.profile.by_body = vec![0; self.profile.by_body.len()];
        worker.profile.by_fused = vec![0; self.profile.by_fused.len()];
        worker.open_lists.clone_from(&self.open_lists);
        worker.fuse_rounds = self.fuse_rounds;
        if !shares.private.is_empty() {
            worker.written = Some(vec![false; self.globals.len()]);
        }
        worker
    }

    /// Takes in the counts and globals of a chunk's worker, the chunks in
    /// list order; `before` holds the globals before the loop.
    fn absorb(&mut self, worker: Interpreter<'p>, before: &[Value], shares: &Shares) {
        self.visits += worker.visits;
        self.split_stats.chunk_visits += worker.visits;
        for (mine, theirs) in [
            (&mut self.profile.by_body, &worker.profile.by_body),
            (&mut self.profile.by_fused, &worker.profile.by_fused),
        ] {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
        for (span, (entered, iterations)) in &worker.loop_counts {
            let counts = self.loop_counts.entry(*span).or_default();
            counts.0 += entered;
            counts.1 += iterations;
        }
        for &g in &shares.reduced {
            let i = g.index();
            let reduction = self.reductions.get(i).copied().unwrap_or(Reduction::Last);
            let combined = combine(reduction, &self.globals[i], &worker.globals[i], &before[i]);
            if let Some(v) = combined {
                self.globals[i] = v;
            }
        }
        if let Some(written) = &worker.written {
            for &g in &shares.private {
                if written[g.index()] {
                    self.globals[g.index()] = worker.globals[g.index()].clone();
                }
            }
        }
    }
}

/// The value of a reduced global after a chunk whose worker, starting
/// from `before`, left `theirs`, the earlier chunks having left `mine`;
/// `None` to keep `mine`.
fn combine(reduction: Reduction, mine: &Value, theirs: &Value, before: &Value) -> Option<Value> {
    Some(match (reduction, mine, theirs, before) {
        (Reduction::Sum, Value::Int(m), Value::Int(t), Value::Int(b)) => {
            // `+` and `-` on `i64` wrap (LANGUAGE.md), so the changes add
            // up in any order.
            Value::Int(m.wrapping_add(t.wrapping_sub(*b)))
        }
        (Reduction::Or, Value::Bool(m), Value::Bool(t), _) => Value::Bool(*m || *t),
        (Reduction::And, Value::Bool(m), Value::Bool(t), _) => Value::Bool(*m && *t),
        (Reduction::Min, Value::Int(m), Value::Int(t), _) => Value::Int(*m.min(t)),
        (Reduction::Max, Value::Int(m), Value::Int(t), _) => Value::Int(*m.max(t)),
        // A flag set to one constant, or any other write: the last chunk
        // that changed it.
        (_, _, t, b) if t != b => t.clone(),
        _ => return None,
    })
}

/// The item's and the next node's groups of chain function `id` (after
/// its [`PlanStep::Chain`]).
fn chain_groups<'a, 'p, M>(
    plan: &'a Plan<'p, M>,
    id: FusedFnId,
) -> (&'a GroupPlan<'p, M>, &'a GroupPlan<'p, M>) {
    match plan.functions[id.index()].steps.as_slice() {
        [PlanStep::Chain, PlanStep::Group(item), PlanStep::Group(next)] => (item, next),
        _ => unreachable!("a chain function's steps are its chain step and two groups"),
    }
}

/// Makes `frames`, a chain function's frames on one node of the chain,
/// the frames of its call on `node`, reached from `site`: the arguments
/// stay (every node of a chain runs with the same), the node variables
/// all start at the node, as a fresh frame's do.
fn retarget(frames: &mut Parts<'_>, node: NodeId, site: Site) {
    frames.frame.self_node = node;
    frames.frame.site = site;
    frames.frame.nodes.fill(node);
}
