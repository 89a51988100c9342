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
//! [`ChunkView`] of the tree (the tree before the loop, read-only, with
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
//! Loops inside a chunk run sequentially in the chunk's worker; calls on
//! distinct children ([`treefuse_fusion::IndependentCalls`]) are not split
//! by the interpreter.

use super::{Active, LoopPlan, Parts, Plan, Shares};
use crate::Interpreter;
use rayon::prelude::*;
use treefuse_fusion::{FusedProgram, ParticipantMask as Mask, Reduction};
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
