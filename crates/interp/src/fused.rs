//! Execution of the fused IR.
//!
//! A fused function runs on one node with one frame per participant and a
//! bit mask of active participants; each [`Step::Stmt`] runs a participant
//! statement with the ordinary statement executor, and each
//! [`Step::Group`] evaluates the arguments of its live calls and invokes
//! the callee fused function on the child: one node visit per fused
//! function invocation (LANGUAGE.md §5).

use crate::rewrite::Site;
use crate::{
    Flow, Frame, Interpreter, RunStats, RuntimeError, POOL_LIMIT, RED_ZONE, STACK_SEGMENT,
};
use treefuse_fusion::{target_for, FusedFnId, FusedFunction, FusedProgram, LoopStep, Step};
use treefuse_runtime::{NodeId, Tree};
use treefuse_sema::{Fuse, StmtKind, Value};
use treefuse_syntax::Span;

impl Interpreter<'_> {
    /// Runs `fuse` with the fused schedule from `fused`. `visits_per_call`
    /// of the result has one entry per fused call on the root (a chunk of
    /// the item's calls run together).
    pub fn run_fused(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        fuse: &Fuse,
        args: Vec<Value>,
    ) -> Result<RunStats, RuntimeError> {
        let mut frame = self.fuse_frame(tree, fuse, args);
        let Some(entry) = fused.entry(&fuse.name) else {
            return Err(self.error(
                &frame,
                fuse.span,
                "the fused program has no entry for this fuse item",
            ));
        };
        self.open_lists.clear();
        let mut stats = RunStats::default();
        let start = self.visits;
        self.run_fuse_level(
            tree,
            &mut frame,
            &entry.body,
            &mut stats,
            &mut |this, tree, frame, c| {
                let chunk = &entry.chunks[c];
                let mut call_args = Vec::with_capacity(chunk.calls.len());
                for &c in &chunk.calls {
                    let call = &fuse.calls[c];
                    let values = call
                        .args
                        .iter()
                        .map(|a| this.eval(tree, frame, a))
                        .collect::<Result<Vec<_>, _>>()?;
                    call_args.push(values);
                }
                let root = tree.root;
                let span = fuse.calls[chunk.calls[0]].span;
                let Some(target) = target_for(&chunk.targets, tree.type_of(root)) else {
                    return Err(this.error(frame, span, "no fused function for the root's type"));
                };
                let mask = if chunk.calls.len() >= 64 {
                    u64::MAX
                } else {
                    (1u64 << chunk.calls.len()) - 1
                };
                let function = &fused.functions[target.index()];
                let frames = this.callee_frames(function, root, Site::Root, &mut call_args, true);
                this.call_fused(tree, fused, target, root, mask, frames, Site::Root)
            },
        )?;
        stats.node_visits = self.visits - start;
        Ok(stats)
    }

    /// Runs fused function `id` on `node`, which stands at `site`, with
    /// `frames`, one per participant, which the caller prepared
    /// ([`Self::callee_frames`], or directly for calls on a child): the
    /// arguments go straight from the caller's evaluation into the
    /// participants' frames.
    #[allow(clippy::too_many_arguments)]
    fn call_fused(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        id: FusedFnId,
        node: NodeId,
        mask: u64,
        mut frames: Vec<Frame>,
        site: Site,
    ) -> Result<(), RuntimeError> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.visits += 1;
            let program = self.program;
            let function = &fused.functions[id.index()];
            let mut active = mask;
            // (replacing participant, participants switched off by it)
            let mut postponed: Option<(usize, u64)> = None;
            for step in &function.steps {
                match step {
                    Step::Stmt { participant, stmt } => {
                        if active & (1 << participant) == 0 {
                            continue;
                        }
                        let body =
                            &program.bodies[function.participants[*participant].body.index()];
                        let Some(s) = body.body.as_ref().and_then(|b| b.get(*stmt)) else {
                            continue;
                        };
                        if let Flow::Return = self.exec(tree, &mut frames[*participant], s)? {
                            active = postpone_after(
                                &frames[*participant],
                                *participant,
                                active,
                                &mut postponed,
                            );
                        }
                    }
                    Step::Loop(group) => {
                        let slot = program.fields[group.field.index()].slot;
                        // The member loops' statements: (participant, var, body).
                        let mut members = self.members_pool.pop().unwrap_or_default();
                        members.extend(group.loops.iter().filter_map(|&(p, stmt)| {
                            match program.bodies[function.participants[p].body.index()]
                                .body
                                .as_ref()
                                .and_then(|b| b.get(stmt))
                                .map(|s| &s.kind)
                            {
                                Some(StmtKind::ForChildren { var, body, .. }) => {
                                    Some((p, *var, &body[..]))
                                }
                                _ => None,
                            }
                        }));
                        // One open list for all member loops: a call on the
                        // element runs on every node now standing where it
                        // stood (only the last member loop may replace
                        // elements; the fuser sees to that).
                        let index = self.open_list(tree, node, slot);
                        for (p, var, _) in &members {
                            frames[*p].loops.push((*var, index));
                        }
                        while let Some(item) = self.advance(index) {
                            for (p, var, _) in &members {
                                frames[*p].nodes[var.index()] = item;
                            }
                            for step in &group.steps {
                                match step {
                                    LoopStep::Stmt { member, stmt } => {
                                        let (p, _, body) = members[*member];
                                        if active & (1 << p) == 0 {
                                            continue;
                                        }
                                        if let Flow::Return =
                                            self.exec(tree, &mut frames[p], &body[*stmt])?
                                        {
                                            active = postpone_after(
                                                &frames[p],
                                                p,
                                                active,
                                                &mut postponed,
                                            );
                                        }
                                    }
                                    LoopStep::Call { calls, targets } => {
                                        let mut callee_mask = 0u64;
                                        let mut callee_args = self.take_args();
                                        let mut span = Span::default();
                                        for (k, &(member, stmt)) in calls.iter().enumerate() {
                                            let (p, _, body) = members[member];
                                            let live = active & (1 << p) != 0;
                                            match self.live_call(
                                                tree,
                                                &mut frames[p],
                                                &body[stmt],
                                                live,
                                            )? {
                                                Some((args, at)) => {
                                                    span = at;
                                                    callee_args.push(args);
                                                    callee_mask |= 1 << k;
                                                }
                                                None => callee_args.push(Vec::new()),
                                            }
                                        }
                                        if callee_mask == 0 {
                                            self.recycle_args(callee_args);
                                            continue;
                                        }
                                        let frame0 = &frames[0];
                                        let listed = Site::Listed(index);
                                        self.on_region(index, |this, n, last| {
                                            let Some(target) = target_for(targets, tree.type_of(n))
                                            else {
                                                return Err(this.error(
                                                    frame0,
                                                    span,
                                                    "no fused function for the element's type",
                                                ));
                                            };
                                            let callee = &fused.functions[target.index()];
                                            let each = this.callee_frames(
                                                callee,
                                                n,
                                                listed,
                                                &mut callee_args,
                                                last,
                                            );
                                            this.call_fused(
                                                tree,
                                                fused,
                                                target,
                                                n,
                                                callee_mask,
                                                each,
                                                listed,
                                            )
                                        })?;
                                        self.recycle_args(callee_args);
                                    }
                                }
                            }
                        }
                        for (p, _, _) in &members {
                            frames[*p].loops.pop();
                        }
                        members.clear();
                        if self.members_pool.len() < POOL_LIMIT {
                            self.members_pool.push(members);
                        }
                        self.close_list(tree);
                    }
                    Step::Group(group) => {
                        // The child and the callee first (evaluating guards
                        // and arguments cannot change a child slot), so each
                        // live call's arguments land in the callee's frame.
                        let child_slot = program.fields[group.field.index()].slot;
                        let child = tree.child(node, child_slot);
                        let target = target_for(&group.targets, tree.type_of(child));
                        let callee_parts = target
                            .map_or(&[][..], |t| &fused.functions[t.index()].participants[..]);
                        let child_site = Site::Child(node, child_slot);
                        let mut callee = self.frame_pool.pop().unwrap_or_default();
                        let mut callee_mask = 0u64;
                        let mut span = Span::default();
                        for (k, &(p, stmt)) in group.calls.iter().enumerate() {
                            let live = active & (1 << p) != 0;
                            let s = program.bodies[function.participants[p].body.index()]
                                .body
                                .as_ref()
                                .and_then(|b| b.get(stmt));
                            let data = match s {
                                Some(s) => match self.live_call(tree, &mut frames[p], s, live)? {
                                    Some((args, at)) => {
                                        span = at;
                                        callee_mask |= 1 << k;
                                        args
                                    }
                                    None => Vec::new(),
                                },
                                None => Vec::new(),
                            };
                            match callee_parts.get(k) {
                                Some(part) => {
                                    callee.push(self.body_frame(part.body, child, data, child_site))
                                }
                                None => self.give_values(data),
                            }
                        }
                        let target = match target {
                            Some(target) if callee_mask != 0 => target,
                            _ => {
                                self.recycle_frames(callee);
                                if callee_mask == 0 {
                                    continue;
                                }
                                return Err(self.error(
                                    &frames[0],
                                    span,
                                    "no fused function for the child's type",
                                ));
                            }
                        };
                        self.call_fused(
                            tree,
                            fused,
                            target,
                            child,
                            callee_mask,
                            callee,
                            child_site,
                        )?;
                    }
                }
            }
            if let Some((p, later)) = postponed {
                self.resume(tree, fused, id, &frames, p, later, site)?;
            }
            self.recycle_frames(frames);
            Ok(())
        })
    }

    /// The frames of fused function `function`'s participants on `node`,
    /// which stands at `site`, with the arguments in `args` (one list per
    /// participant, empty for those that do not take part): copies while
    /// more region nodes follow, the lists themselves for the `last`.
    fn callee_frames(
        &mut self,
        function: &FusedFunction,
        node: NodeId,
        site: Site,
        args: &mut [Vec<Value>],
        last: bool,
    ) -> Vec<Frame> {
        let mut frames = self.frame_pool.pop().unwrap_or_default();
        for (p, values) in function.participants.iter().zip(args.iter_mut()) {
            let data = self.region_args(values, last);
            frames.push(self.body_frame(p.body, node, data, site));
        }
        frames
    }

    /// Returns the frames of a fused call and their buffers to the pools.
    fn recycle_frames(&mut self, mut frames: Vec<Frame>) {
        for frame in frames.drain(..) {
            self.recycle(frame);
        }
        if self.frame_pool.len() < POOL_LIMIT {
            self.frame_pool.push(frames);
        }
    }

    /// Runs the participants after `p` that its replacement of the node
    /// switched off (`later`, a mask over the function's participants) on
    /// every node now standing at `site`, as one fused call each, with
    /// the arguments they were given (their statements never ran, so their
    /// frames still hold them).
    #[allow(clippy::too_many_arguments)]
    fn resume(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        id: FusedFnId,
        frames: &[Frame],
        p: usize,
        later: u64,
        site: Site,
    ) -> Result<(), RuntimeError> {
        let function = &fused.functions[id.index()];
        let Some(resume) = function.resume.iter().find(|r| r.participant == p) else {
            return Err(self.error(
                &frames[p],
                Span::default(),
                "the fused program does not say where postponed traversals resume",
            ));
        };
        let mask = later >> (p + 1);
        let params: Vec<Vec<Value>> = (p + 1..function.participants.len())
            .map(|j| {
                if later & (1 << j) == 0 {
                    return Vec::new();
                }
                let n = self.program.methods[function.participants[j].method.index()]
                    .params
                    .len();
                frames[j].data[..n].to_vec()
            })
            .collect();
        let nodes = match site {
            Site::Root => vec![tree.root],
            Site::Child(parent, slot) => vec![tree.child(parent, slot)],
            Site::Listed(index) => self.take_replacement(index),
            Site::Nowhere => Vec::new(),
        };
        let mut params = params;
        let last = nodes.len().saturating_sub(1);
        for (i, n) in nodes.into_iter().enumerate() {
            let Some(target) = target_for(&resume.targets, tree.type_of(n)) else {
                return Err(self.error(
                    &frames[p],
                    Span::default(),
                    "no fused function for the replacement's type",
                ));
            };
            if let Site::Listed(index) = site {
                self.begin_region_visit(index, n);
            }
            let callee = &fused.functions[target.index()];
            let frames = self.callee_frames(callee, n, site, &mut params, i == last);
            self.call_fused(tree, fused, target, n, mask, frames, site)?;
            if let Site::Listed(index) = site {
                self.end_region_visit(index);
            }
        }
        Ok(())
    }

    /// An empty list of per-participant arguments, recycled when possible.
    fn take_args(&mut self) -> Vec<Vec<Value>> {
        self.args_pool.pop().unwrap_or_default()
    }

    /// Returns an emptied list of per-participant arguments to the pool.
    fn recycle_args(&mut self, mut args: Vec<Vec<Value>>) {
        for values in args.drain(..) {
            self.give_values(values);
        }
        if self.args_pool.len() < POOL_LIMIT {
            self.args_pool.push(args);
        }
    }

    /// The argument values of a (possibly guarded) call statement whose
    /// participant is `live`, or `None` if it does not take part.
    fn live_call(
        &mut self,
        tree: &mut Tree,
        frame: &mut Frame,
        s: &treefuse_sema::Stmt,
        live: bool,
    ) -> Result<Option<(Vec<Value>, Span)>, RuntimeError> {
        if !live {
            return Ok(None);
        }
        let call = match &s.kind {
            StmtKind::If {
                cond, then_branch, ..
            } => {
                if self.eval(tree, frame, cond)?.as_bool() {
                    then_branch.first()
                } else {
                    None
                }
            }
            _ => Some(s),
        };
        match call.map(|c| (&c.kind, c.span)) {
            Some((StmtKind::Call { args, .. }, span)) => {
                let values = self.eval_args(tree, frame, args)?;
                Ok(Some((values, span)))
            }
            _ => Ok(None),
        }
    }
}

/// After participant `p` left the fused function (`return` or a
/// replacement): its active bit cleared and, if it replaced the node, the
/// active participants after it switched off too and recorded in
/// `postponed`, to run on the new node at the end ([`Interpreter::resume`]).
fn postpone_after(
    frame: &Frame,
    p: usize,
    active: u64,
    postponed: &mut Option<(usize, u64)>,
) -> u64 {
    let mut active = active & !(1 << p);
    if frame.replaced {
        let later = if p + 1 >= 64 {
            0
        } else {
            active & !((1u64 << (p + 1)) - 1)
        };
        if later != 0 {
            *postponed = Some((p, later));
            active &= !later;
        }
    }
    active
}
