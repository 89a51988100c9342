//! Execution of the fused IR.
//!
//! A fused function runs on one node with one frame for all its
//! participants ([`Parts`]: each participant's locals and node variables
//! a segment of it) and a bit mask of active participants; each [`Step::Stmt`] runs a participant
//! statement with the ordinary statement executor, and each
//! [`Step::Group`] evaluates the arguments of its live calls and invokes
//! the callee fused function on the child: one node visit per fused
//! function invocation (LANGUAGE.md §5). Merged loops ([`Step::Loop`])
//! and a participant's `while` loop ([`Step::While`]) run their merged
//! calls as fused calls the same way.
//!
//! A run first resolves the fused IR against the checked model into a
//! [`Plan`]: statements by reference, call statements taken apart (guard,
//! arguments), participants' frame sizes, child slots, dispatch tables by
//! concrete type. A fused visit then does no lookups an unfused call does
//! not, and the caller evaluates each live call's arguments straight into
//! the callee participant's segment of the callee's frame (frames come
//! from a pool and are reused in place), so a fused visit costs no more
//! bookkeeping than an unfused call, however many participants it runs.
//! (One frame per participant, as before, made the frame work of a fused
//! run about that of the unfused run; one frame per call made the fused
//! interpreter about 2% faster on minic.)
//!
//! A fused call that is its function's last step, with every participant
//! still running (nothing postponed), is a tail call: nothing of the
//! caller is needed once the callee's arguments are evaluated, so the
//! caller's frame goes back to the pool and [`Interpreter::call_fused`]
//! runs the callee as the next round of its own loop instead of one host
//! frame deeper. A linked list (render's 10^5 pages, each `next` call
//! last) then costs one host frame and one fused frame, not one per
//! element; other calls recurse as before.
//!
//! The mask's type is a parameter ([`Mask`]): a `u128`, copied and tested
//! like any integer, unless the widest fused function has more than 128
//! participants, then a [`WideMask`]; the choice is made once per run
//! ([`Interpreter::run_fused`]).

use crate::rewrite::Site;
use crate::ParticipantFrames;
use crate::{
    abandoned, Failure, Flow, Frame, Interpreter, Owner, RunStats, RuntimeError, VisitProfile,
    POOL_LIMIT, RED_ZONE, STACK_SEGMENT,
};
use treefuse_fusion::{
    target_for, FusedFnId, FusedProgram, LoopStep, Parallelism, ParticipantMask as Mask, Step,
    WhileStep, WideMask,
};

mod parallel;
use treefuse_runtime::{NodeId, Tree, TreeStore};
use treefuse_sema::{BodyId, Fuse, NodeVarId, Program, Stmt, StmtKind, TypeId, Value};
use treefuse_syntax::Span;

/// The fused program resolved against the checked model (see the module
/// docs): one [`FnPlan`] per fused function, by [`FusedFnId`].
struct Plan<'p, M> {
    functions: Vec<FnPlan<'p, M>>,
}

/// A fused function's schedule with its statements resolved.
struct FnPlan<'p, M> {
    steps: Vec<PlanStep<'p, M>>,
    /// The frame layout of each participant, by participant.
    parts: Vec<PartLayout>,
    /// Data locals and node variables of all participants together: the
    /// size of the fused call's one frame.
    locals: usize,
    node_vars: usize,
    /// Slot of [`treefuse_fusion::FusedFunction::typed_child`]: the child whose type, read
    /// when the function starts, decides the groups' type guards.
    typed_child: Option<u32>,
    /// What the workers share when the function walks a linked chain
    /// whose items may run in parallel
    /// ([`treefuse_fusion::FusedFunction::linked_chain`]: its two steps
    /// are the item's and the next node's groups).
    chain: Option<Shares>,
}

/// A [`Step`], resolved. Statements the model lacks (none, for a fused
/// program built from it) are left out, as the executor always skipped
/// them.
enum PlanStep<'p, M> {
    /// A top-level statement of a participant.
    Stmt { participant: usize, stmt: &'p Stmt },
    /// A fused call on a child.
    Group(GroupPlan<'p, M>),
    /// Merged loops over a list of children.
    Loop(LoopPlan<'p, M>),
    /// A participant's `while` loop whose iterations fuse their calls.
    While(WhilePlan<'p, M>),
    /// The whole of a chain function (`FnPlan::chain`) in a run that
    /// splits loops, before its two groups, which it runs itself
    /// (`Interpreter::chain_call`). Only such runs' plans have it, so the
    /// sequential engine pays nothing for chains.
    Chain,
}

/// What a participant's frame needs, read once from its body's
/// [`treefuse_sema::FrameLayout`] rather than at every visit.
#[derive(Clone, Copy)]
struct PartLayout {
    body: BodyId,
    /// Where the participant's data locals (parameters first) start in the
    /// fused call's frame.
    data_offset: u32,
    /// Where its node variables start.
    node_offset: u32,
}

/// A call of a [`GroupPlan`] (or of a merged loop's step): the caller's
/// participant and its call statement taken apart, so that a visit
/// evaluates the guard and the arguments without matching statements.
struct CallPlan<'p> {
    participant: usize,
    /// `None` when the statement is not a (guarded) call: it never takes
    /// part and nothing of it is evaluated.
    call: Option<LiveCall<'p>>,
}

/// A call statement, `f(args)` or `if guard { f(args) }`.
struct LiveCall<'p> {
    guard: Option<&'p treefuse_sema::Expr>,
    /// The arguments and the call's span; `None` for a guarded statement
    /// whose branch is not a call (only its guard is evaluated).
    args: Option<(&'p [treefuse_sema::Expr], Span)>,
}

impl<'p> CallPlan<'p> {
    /// `(participant, its call or guarded call)`, as the fused IR names it.
    fn new(participant: usize, stmt: Option<&'p Stmt>) -> CallPlan<'p> {
        let call_of = |s: &'p Stmt| match &s.kind {
            StmtKind::Call { args, .. } => Some((&args[..], s.span)),
            _ => None,
        };
        let call = stmt.and_then(|s| match &s.kind {
            StmtKind::If {
                cond, then_branch, ..
            } => Some(LiveCall {
                guard: Some(cond),
                args: then_branch.first().and_then(call_of),
            }),
            StmtKind::Call { .. } => Some(LiveCall {
                guard: None,
                args: call_of(s),
            }),
            _ => None,
        });
        CallPlan { participant, call }
    }
}

/// A [`treefuse_fusion::WhileGroup`], resolved.
struct WhilePlan<'p, M> {
    participant: usize,
    /// The `while` statement.
    span: Span,
    cond: &'p treefuse_sema::Expr,
    limit: &'p treefuse_sema::Expr,
    steps: Vec<WhilePlanStep<'p, M>>,
}

/// A [`treefuse_fusion::WhileStep`], resolved.
enum WhilePlanStep<'p, M> {
    /// A statement of the loop body.
    Stmt(&'p Stmt),
    /// Consecutive calls on a child as one fused call (every call takes
    /// part: no guards).
    Call(GroupPlan<'p, M>),
}

/// A [`treefuse_fusion::CallGroup`], resolved.
struct GroupPlan<'p, M> {
    /// Slot of the child field.
    slot: u32,
    /// The calls, in callee participant order.
    calls: Vec<CallPlan<'p>>,
    targets: Dispatch,
    /// Type guards: per concrete type (by index) of the child as it stood
    /// when the function started, the calls that take part (mask over
    /// `calls`); empty when every call takes part for every type.
    admit: Vec<M>,
}

/// A [`treefuse_fusion::LoopGroup`], resolved.
struct LoopPlan<'p, M> {
    /// Slot of the list field.
    slot: u32,
    /// The member loops: (participant, loop variable, loop body).
    members: Vec<(usize, NodeVarId, &'p [Stmt])>,
    steps: Vec<LoopPlanStep<'p, M>>,
    /// [`treefuse_fusion::LoopGroup::rebound`]: (participant, loop
    /// variable) of the members whose variable is bound, before each step,
    /// to the node now standing where the element stood.
    rebound: Vec<(usize, NodeVarId)>,
    /// What the workers of a split run of the loop share, if the fuser
    /// found its iterations independent ([`treefuse_fusion::Parallelism`]).
    parallel: Option<Shares>,
}

/// The globals the workers of a parallel loop update: combined after the
/// loop ([`treefuse_fusion::Parallelism::Parallel`]).
struct Shares {
    /// Updated commutatively, combined by their reduction.
    reduced: Vec<treefuse_sema::GlobalId>,
    /// Written before read by every iteration: the last worker that wrote
    /// one gives its value.
    private: Vec<treefuse_sema::GlobalId>,
}

/// A [`LoopStep`], resolved (members replaced by their participants).
enum LoopPlanStep<'p, M> {
    Stmt {
        participant: usize,
        stmt: &'p Stmt,
    },
    Call {
        /// The calls, in callee participant order.
        calls: Vec<CallPlan<'p>>,
        targets: Dispatch,
        /// Type guards ([`treefuse_fusion::TypeGuard`]): per concrete type
        /// of the element (by index), the calls that take part (mask over
        /// `calls`); empty when every call takes part for every type.
        admit: Vec<M>,
    },
}

/// A dispatch list (`(TypeId, FusedFnId)` pairs) as a table indexed by
/// type: the first entry for a type wins, as in [`target_for`].
struct Dispatch {
    by_type: Vec<Option<FusedFnId>>,
}

impl Dispatch {
    fn new(targets: &[(TypeId, FusedFnId)]) -> Dispatch {
        let len = targets
            .iter()
            .map(|(t, _)| t.index() + 1)
            .max()
            .unwrap_or(0);
        let mut by_type = vec![None; len];
        for &(t, f) in targets.iter().rev() {
            by_type[t.index()] = Some(f);
        }
        Dispatch { by_type }
    }

    #[inline]
    fn get(&self, ty: TypeId) -> Option<FusedFnId> {
        self.by_type.get(ty.index()).copied().flatten()
    }
}

impl<'p, M: Mask> Plan<'p, M> {
    /// The plan of `fused`; `chains`: chain functions start with
    /// [`PlanStep::Chain`] (a run that splits loops).
    fn new(program: &'p Program, fused: &FusedProgram, chains: bool) -> Plan<'p, M> {
        let functions = fused
            .functions
            .iter()
            .enumerate()
            .map(|(fi, function)| {
                let stmt = |p: usize, i: usize| -> Option<&'p Stmt> {
                    let body = function.participants.get(p)?.body;
                    program.bodies[body.index()].body.as_ref()?.get(i)
                };
                let chain = function
                    .linked_chain(FusedFnId(fi as u32), program)
                    .map(|chain| Shares {
                        reduced: chain.reduced,
                        private: Vec::new(),
                    });
                let mut steps: Vec<PlanStep<'p, M>> = function
                    .steps
                    .iter()
                    .filter_map(|step| match step {
                        Step::Stmt {
                            participant,
                            stmt: i,
                        } => Some(PlanStep::Stmt {
                            participant: *participant,
                            stmt: stmt(*participant, *i)?,
                        }),
                        Step::Group(group) => Some(PlanStep::Group(GroupPlan {
                            slot: program.fields[group.field.index()].slot,
                            calls: group
                                .calls
                                .iter()
                                .map(|&(p, i)| CallPlan::new(p, stmt(p, i)))
                                .collect(),
                            targets: Dispatch::new(&group.targets),
                            admit: admit_table(&group.targets, &group.guards),
                        })),
                        Step::While(w) => {
                            let lp = stmt(w.participant, w.stmt)?;
                            let StmtKind::While { cond, limit, body } = &lp.kind else {
                                return None;
                            };
                            let steps = w
                                .steps
                                .iter()
                                .filter_map(|ws| match ws {
                                    WhileStep::Stmt(i) => body.get(*i).map(WhilePlanStep::Stmt),
                                    WhileStep::Call {
                                        field,
                                        calls,
                                        targets,
                                    } => Some(WhilePlanStep::Call(GroupPlan {
                                        slot: program.fields[field.index()].slot,
                                        calls: calls
                                            .iter()
                                            .map(|&i| CallPlan::new(w.participant, body.get(i)))
                                            .collect(),
                                        targets: Dispatch::new(targets),
                                        admit: Vec::new(),
                                    })),
                                })
                                .collect();
                            Some(PlanStep::While(WhilePlan {
                                participant: w.participant,
                                span: lp.span,
                                cond,
                                limit,
                                steps,
                            }))
                        }
                        Step::Loop(group) => {
                            let members: Vec<_> = group
                                .loops
                                .iter()
                                .filter_map(|&(p, i)| match &stmt(p, i)?.kind {
                                    StmtKind::ForChildren { var, body, .. } => {
                                        Some((p, *var, &body[..]))
                                    }
                                    _ => None,
                                })
                                .collect();
                            let steps = group
                                .steps
                                .iter()
                                .filter_map(|step| match step {
                                    LoopStep::Stmt { member, stmt } => {
                                        let &(participant, _, body) = members.get(*member)?;
                                        Some(LoopPlanStep::Stmt {
                                            participant,
                                            stmt: body.get(*stmt)?,
                                        })
                                    }
                                    LoopStep::Call {
                                        calls,
                                        targets,
                                        guards,
                                    } => Some(LoopPlanStep::Call {
                                        calls: calls
                                            .iter()
                                            .map(|&(member, i)| match members.get(member) {
                                                Some(&(p, _, body)) => {
                                                    CallPlan::new(p, body.get(i))
                                                }
                                                None => CallPlan::new(0, None),
                                            })
                                            .collect(),
                                        targets: Dispatch::new(targets),
                                        admit: admit_table(targets, guards),
                                    }),
                                })
                                .collect();
                            let rebound = group
                                .rebound
                                .iter()
                                .filter_map(|&m| members.get(m).map(|&(p, var, _)| (p, var)))
                                .collect();
                            let parallel = match &group.parallel {
                                Parallelism::Parallel { reduced, private } => Some(Shares {
                                    reduced: reduced.clone(),
                                    private: private.clone(),
                                }),
                                Parallelism::Sequential { .. } => None,
                            };
                            Some(PlanStep::Loop(LoopPlan {
                                slot: program.fields[group.field.index()].slot,
                                members,
                                steps,
                                rebound,
                                parallel,
                            }))
                        }
                    })
                    .collect();
                if chains && chain.is_some() {
                    steps.insert(0, PlanStep::Chain);
                }
                let (mut locals, mut node_vars) = (0, 0);
                let parts = function
                    .participants
                    .iter()
                    .map(|part| {
                        let layout = &program.bodies[part.body.index()].frame;
                        let part = PartLayout {
                            body: part.body,
                            data_offset: locals as u32,
                            node_offset: node_vars as u32,
                        };
                        locals += layout.locals.len();
                        node_vars += layout.node_vars.len();
                        part
                    })
                    .collect();
                FnPlan {
                    steps,
                    parts,
                    locals,
                    node_vars,
                    typed_child: function.typed_child.map(|f| program.fields[f.index()].slot),
                    chain,
                }
            })
            .collect();
        Plan { functions }
    }
}

impl<'p> Interpreter<'p> {
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
        // Masks of one integer unless a fused function is wider.
        if <u128 as Mask>::fits(fused.widest()) {
            self.run_fused_with::<u128>(tree, fused, fuse, args)
        } else {
            self.run_fused_with::<WideMask>(tree, fused, fuse, args)
        }
        .map_err(|e| *e)
    }

    /// [`Self::run_fused`] with masks of any width ([`WideMask`]), as
    /// programs with more than 128 participants in a fused function run:
    /// for testing that representation on small programs.
    pub fn run_fused_wide(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        fuse: &Fuse,
        args: Vec<Value>,
    ) -> Result<RunStats, RuntimeError> {
        self.run_fused_with::<WideMask>(tree, fused, fuse, args)
            .map_err(|e| *e)
    }

    /// [`Self::run_fused`] with participant masks of type `M`.
    fn run_fused_with<M: Mask>(
        &mut self,
        tree: &mut Tree,
        fused: &FusedProgram,
        fuse: &Fuse,
        args: Vec<Value>,
    ) -> Result<RunStats, Failure> {
        let mut frame = self.fuse_frame(tree, fuse, args);
        let Some(entry) = fused.entry(&fuse.name) else {
            return Err(self.error(
                &frame,
                fuse.span,
                "the fused program has no entry for this fuse item",
            ));
        };
        self.open_lists.clear();
        self.loop_counts.clear();
        let plan = Plan::<M>::new(self.program, fused, self.grain.is_some());
        let mut stats = RunStats::default();
        let start = self.visits;
        self.profile = VisitProfile::new(self.program, fused.functions.len());
        self.run_fuse_level(
            tree,
            &mut frame,
            &entry.body,
            &fuse.body,
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
                let root = tree.root();
                let span = fuse.calls[chunk.calls[0]].span;
                let Some(target) = target_for(&chunk.targets, tree.type_of(root)) else {
                    return Err(this.error(frame, span, "no fused function for the root's type"));
                };
                let mask = M::first(chunk.calls.len());
                let function = &plan.functions[target.index()];
                let frames = this.callee_frame(function, root, Site::Root, &mut call_args, true);
                this.call_fused(tree, fused, &plan, target, root, mask, frames, Site::Root)
            },
        )?;
        stats.node_visits = self.visits - start;
        stats.profile = std::mem::take(&mut self.profile);
        stats.traversal_loops = self.take_loop_stats();
        stats.split = std::mem::take(&mut self.split_stats);
        Ok(stats)
    }

    /// Runs fused function `id` on `node`, which stands at `site`, with
    /// `frames`, the one frame of all its participants, which the caller
    /// prepared ([`Self::callee_frame`], or [`Self::live_frames`] for
    /// calls on a child): the arguments go straight from the caller's
    /// evaluation into the participants' segments.
    #[allow(clippy::too_many_arguments)]
    fn call_fused<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &'a Plan<'p, M>,
        mut id: FusedFnId,
        mut node: NodeId,
        mut mask: M,
        mut frames: Parts<'a>,
        mut site: Site,
    ) -> Result<(), Failure> {
        // A fused call in tail position (the function's last step, with
        // nothing postponed) runs as the next round of this loop rather
        // than one level deeper: nothing of this call is needed after it
        // (its frames went back to the pool once the callee's arguments
        // were evaluated), so a linked list of 10^5 elements costs one
        // host frame, not 10^5.
        'call: loop {
            // `stacker::maybe_grow`, with the rare growing path out of
            // line: this frame is on the host stack once per level of the
            // tree.
            if stacker::remaining_stack().is_none_or(|left| left < RED_ZONE) {
                return self
                    .call_fused_on_new_stack(tree, fused, plan, id, node, mask, frames, site);
            }
            if tree.abandoned() {
                return Err(abandoned());
            }
            self.count_visit(id);
            let mut run = Active {
                mask,
                postponed: None,
            };
            let function = &plan.functions[id.index()];
            // The type of the typed child as the function starts (0 when
            // no group has type guards: unused).
            let typed = function
                .typed_child
                .map_or(0, |slot| tree.type_of(tree.child(node, slot)).index());
            let last_step = function.steps.len().wrapping_sub(1);
            for (i, step) in function.steps.iter().enumerate() {
                match step {
                    PlanStep::Stmt { participant, stmt } => {
                        let p = *participant;
                        if run.has(p) {
                            if let Flow::Return = self.exec(tree, frames.at(p), stmt)? {
                                run.leave(frames.frame.replaced, p);
                            }
                        }
                    }
                    PlanStep::Chain => {
                        // A linked chain in a run that splits loops (its
                        // only other steps are its two groups, which
                        // `chain_call` runs).
                        match self
                            .chain_call(tree, fused, plan, id, node, run.mask, frames, site)?
                        {
                            Some(call) => {
                                (id, node, mask, frames, site) = call;
                                continue 'call;
                            }
                            None => return Ok(()),
                        }
                    }
                    PlanStep::Loop(group) => {
                        self.fused_loop(tree, fused, plan, group, node, &mut frames, &mut run)?
                    }
                    PlanStep::While(w) => {
                        let p = w.participant;
                        if run.has(p) {
                            if let Flow::Return =
                                self.fused_while(tree, fused, plan, w, node, &mut frames)?
                            {
                                run.leave(frames.frame.replaced, p);
                            }
                        }
                    }
                    PlanStep::Group(group) => {
                        let admitted = group.admit.get(typed).cloned().unwrap_or(M::ALL);
                        if i == last_step && run.postponed.is_none() {
                            match self.fused_group_last(
                                tree,
                                plan,
                                group,
                                node,
                                frames,
                                (run.mask, admitted),
                            )? {
                                Some(next) => {
                                    (id, node, mask, frames, site) = next;
                                    continue 'call;
                                }
                                None => return Ok(()),
                            }
                        }
                        self.fused_group(
                            tree,
                            fused,
                            plan,
                            group,
                            node,
                            &mut frames,
                            (run.mask.clone(), admitted),
                        )?
                    }
                }
            }
            if let Some((p, later)) = run.postponed {
                self.resume(tree, fused, plan, id, &mut frames, p, later, site)?;
            }
            self.recycle_frame(frames.frame);
            return Ok(());
        }
    }

    /// A visit of fused function `id`, counted.
    #[inline(always)]
    fn count_visit(&mut self, id: FusedFnId) {
        self.visits += 1;
        if let Some(count) = self.profile.by_fused.get_mut(id.index()) {
            *count += 1;
        }
    }

    /// [`Self::call_fused`] on a new stack segment.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn call_fused_on_new_stack<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &'a Plan<'p, M>,
        id: FusedFnId,
        node: NodeId,
        mask: M,
        frames: Parts<'a>,
        site: Site,
    ) -> Result<(), Failure> {
        stacker::grow(STACK_SEGMENT, || {
            self.call_fused(tree, fused, plan, id, node, mask, frames, site)
        })
    }

    /// Runs merged loops over the list in `group.slot` of `node`.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fused_loop<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        group: &LoopPlan<'p, M>,
        node: NodeId,
        frames: &mut Parts<'_>,
        run: &mut Active<M>,
    ) -> Result<(), Failure> {
        if let (Some(grain), Some(whole)) = (self.grain(group), tree.as_tree()) {
            if self.split_loop(whole, fused, plan, group, node, frames, run, grain) {
                return Ok(());
            }
        }
        // One open list for all member loops: a call on the element runs
        // on every node now standing where it stood (a loop after one that
        // may replace elements only calls the element, or is rebound to
        // its one-node region; the fuser sees to that).
        let index = self.open_list(tree, node, group.slot);
        self.loop_rounds(tree, fused, plan, group, frames, run, index)
    }

    /// The rounds of a merged loop over the list open at `index` (one per
    /// element), then the list closed.
    #[allow(clippy::too_many_arguments)]
    fn loop_rounds<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        group: &LoopPlan<'p, M>,
        frames: &mut Parts<'_>,
        run: &mut Active<M>,
        index: usize,
    ) -> Result<(), Failure> {
        for (p, var, _) in &group.members {
            self.enter_loop(frames.at(*p), *var, index);
        }
        let listed = Site::Listed(index);
        while let Some(item) = self.advance(index) {
            for (p, var, _) in &group.members {
                *frames.node_var(*p, *var) = item;
            }
            for step in &group.steps {
                if !group.rebound.is_empty() {
                    // The element's region is one node (the fuser's
                    // condition): the node those loops visit in its place.
                    let standing = self.standing(index).unwrap_or(item);
                    for &(p, var) in &group.rebound {
                        *frames.node_var(p, var) = standing;
                    }
                }
                match step {
                    LoopPlanStep::Stmt { participant, stmt } => {
                        let p = *participant;
                        if run.has(p) {
                            if let Flow::Return = self.exec(tree, frames.at(p), stmt)? {
                                run.leave(frames.frame.replaced, p);
                            }
                        }
                    }
                    LoopPlanStep::Call {
                        calls,
                        targets,
                        admit,
                    } => {
                        // Type-guarded calls take part by the type of the
                        // element as the loop found it; the others are not
                        // even evaluated.
                        let admitted = admit
                            .get(tree.type_of(item).index())
                            .cloned()
                            .unwrap_or(M::ALL);
                        if let Some(n) = self.unreplaced_element(index) {
                            // The region is the element alone: its calls'
                            // arguments go straight into the callee's frames.
                            let Some((target, callee, mask)) = self.live_frames(
                                tree,
                                plan,
                                calls,
                                targets,
                                frames,
                                (run.mask.clone(), admitted),
                                n,
                                listed,
                                "no fused function for the element's type",
                            )?
                            else {
                                continue;
                            };
                            self.begin_region_visit(index, n);
                            self.call_fused(tree, fused, plan, target, n, mask, callee, listed)?;
                            self.end_region_visit(index);
                            continue;
                        }
                        self.fused_region_calls(
                            tree,
                            fused,
                            plan,
                            (calls, targets),
                            index,
                            frames,
                            (run.mask.clone(), admitted),
                        )?;
                    }
                }
            }
        }
        for _ in &group.members {
            frames.frame.loops.pop();
        }
        self.close_list(tree);
        Ok(())
    }

    /// The calls of a merged loop step on an element that an earlier
    /// member replaced (its region may be several nodes, or none): the
    /// arguments are evaluated once, then each region node gets a fused
    /// call of its own. Out of line: the common case, an element still
    /// standing alone, goes straight into the callee's frame
    /// ([`Self::fused_loop`]), and keeping this rarer path out of that
    /// loop halves the loop's code (the fused engine runs with about 2.7
    /// times the unfused engine's instruction-cache misses, README).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fused_region_calls<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        (calls, targets): (&[CallPlan<'p>], &Dispatch),
        index: usize,
        frames: &mut Parts<'_>,
        (active, admitted): (M, M),
    ) -> Result<(), Failure> {
        let listed = Site::Listed(index);
        let mut callee_mask = M::NONE;
        let mut callee_args = self.take_args();
        let mut span = Span::default();
        for (k, c) in calls.iter().enumerate() {
            let p = c.participant;
            let mut args = self.take_values();
            if let Some(call) = c.call.as_ref().filter(|_| active.has(p) && admitted.has(k)) {
                if let Some(at) = self.live_call(tree, frames.at(p), call, &mut args)? {
                    span = at;
                    callee_mask.insert(k);
                }
            }
            callee_args.push(args);
        }
        if callee_mask.is_empty() {
            self.recycle_args(callee_args);
            return Ok(());
        }
        let frame0: &Frame = frames.at(0);
        self.on_region(index, |this, n, last| {
            let Some(target) = targets.get(tree.type_of(n)) else {
                return Err(this.error(frame0, span, "no fused function for the element's type"));
            };
            let function = &plan.functions[target.index()];
            let each = this.callee_frame(function, n, listed, &mut callee_args, last);
            this.call_fused(
                tree,
                fused,
                plan,
                target,
                n,
                callee_mask.clone(),
                each,
                listed,
            )
        })?;
        self.recycle_args(callee_args);
        Ok(())
    }

    /// Runs the live calls of `group` on the child in `group.slot` of
    /// `node` as one fused call.
    ///
    /// Inlined into its callers: a fused call on a child is then one host
    /// frame per level of the tree ([`Self::call_fused`]'s), which matters
    /// on deep trees (a linked list of 10^5 elements is 10^5 levels).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fused_group<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        group: &GroupPlan<'p, M>,
        node: NodeId,
        frames: &mut Parts<'_>,
        (active, admitted): (M, M),
    ) -> Result<(), Failure> {
        let Some(child) = tree.child_opt(node, group.slot) else {
            // An empty optional child (§8.7): every call on it does
            // nothing and visits nothing, but the guards of the live
            // calls are still evaluated, as unfused.
            return self.empty_group(tree, &group.calls, frames, (active, admitted));
        };
        let site = Site::Child(node, group.slot);
        let Some((target, callee, mask)) = self.live_frames(
            tree,
            plan,
            &group.calls,
            &group.targets,
            frames,
            (active, admitted),
            child,
            site,
            "no fused function for the child's type",
        )?
        else {
            return Ok(());
        };
        self.call_fused(tree, fused, plan, target, child, mask, callee, site)
    }

    /// [`Self::fused_group`] as the last step of a fused function whose
    /// participants all ran to this point (nothing postponed): prepares
    /// the call and returns it (callee, node, frames, mask and site) for
    /// [`Self::call_fused`] to run in place of its own, `None` if no call
    /// takes part. The caller's frame is recycled as soon as the callee's
    /// is prepared.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    #[inline(always)]
    fn fused_group_last<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        plan: &'a Plan<'p, M>,
        group: &GroupPlan<'p, M>,
        node: NodeId,
        mut frames: Parts<'_>,
        (active, admitted): (M, M),
    ) -> Result<Option<(FusedFnId, NodeId, M, Parts<'a>, Site)>, Failure> {
        let Some(child) = tree.child_opt(node, group.slot) else {
            let result = self.empty_group(tree, &group.calls, &mut frames, (active, admitted));
            self.recycle_frame(frames.frame);
            return result.map(|()| None);
        };
        let site = Site::Child(node, group.slot);
        let live = self.live_frames(
            tree,
            plan,
            &group.calls,
            &group.targets,
            &mut frames,
            (active, admitted),
            child,
            site,
            "no fused function for the child's type",
        );
        self.recycle_frame(frames.frame);
        Ok(live?.map(|(target, callee, mask)| (target, child, mask, callee, site)))
    }

    /// Runs a participant's `while` loop with the calls of each iteration
    /// fused: statements as the unfused run runs them, each run of calls
    /// on a child as one fused call (the participant is active: only its
    /// own `return` or `break` ends the loop).
    #[inline(never)]
    fn fused_while<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        w: &WhilePlan<'p, M>,
        node: NodeId,
        frames: &mut Parts<'_>,
    ) -> Result<Flow, Failure> {
        let p = w.participant;
        let active = M::bit(p);
        self.exec_while(
            tree,
            frames,
            p,
            w.span,
            w.cond,
            w.limit,
            |this, tree, frames| {
                for step in &w.steps {
                    match step {
                        WhilePlanStep::Stmt(s) => match this.exec(tree, frames.at(p), s)? {
                            Flow::Normal => {}
                            flow => return Ok(flow),
                        },
                        WhilePlanStep::Call(group) => this.fused_group(
                            tree,
                            fused,
                            plan,
                            group,
                            node,
                            frames,
                            (active.clone(), M::ALL),
                        )?,
                    }
                }
                Ok(Flow::Normal)
            },
        )
    }

    /// The calls of a group on an empty optional child: each live call's
    /// guard is evaluated (it may fail), in order, and nothing else.
    #[inline(never)]
    fn empty_group<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        calls: &[CallPlan<'p>],
        frames: &mut Parts<'_>,
        (active, admitted): (M, M),
    ) -> Result<(), Failure> {
        for (k, c) in calls.iter().enumerate() {
            let p = c.participant;
            let Some(call) = c.call.as_ref().filter(|_| active.has(p) && admitted.has(k)) else {
                continue;
            };
            if let Some(guard) = call.guard {
                self.eval(tree, frames.at(p), guard)?;
            }
        }
        Ok(())
    }

    /// Prepares a fused call on `node`, which stands at `site`: the callee
    /// by `node`'s type first (evaluating guards and arguments cannot
    /// change the tree's shape), then the guards and arguments of the
    /// `calls` whose participants are `active`, in order, each evaluated
    /// straight into its callee participant's segment of the callee's
    /// frame. `None` if no call takes part; an error (`missing`) if calls
    /// take part but no fused function serves the node's type.
    #[allow(clippy::too_many_arguments)]
    fn live_frames<'a, M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        plan: &'a Plan<'p, M>,
        calls: &[CallPlan<'p>],
        targets: &Dispatch,
        frames: &mut Parts<'_>,
        (active, admitted): (M, M),
        node: NodeId,
        site: Site,
        missing: &str,
    ) -> Result<Option<(FusedFnId, Parts<'a>, M)>, Failure> {
        let target = targets.get(tree.type_of(node));
        let function = target.map(|t| &plan.functions[t.index()]);
        let callee_parts = function.map_or(&[][..], |f| &f.parts[..]);
        let mut callee = self.fused_frame(node, site);
        let mut callee_mask = M::NONE;
        let mut span = Span::default();
        for (k, c) in calls.iter().enumerate() {
            let p = c.participant;
            let Some(call) = c.call.as_ref().filter(|_| active.has(p) && admitted.has(k)) else {
                continue;
            };
            match callee_parts.get(k) {
                Some(part) => {
                    resize_values(&mut callee.data, part.data_offset as usize);
                    if let Some(at) = self.live_call(tree, frames.at(p), call, &mut callee.data)? {
                        span = at;
                        callee_mask.insert(k);
                    }
                }
                None => {
                    // No callee: the arguments are still evaluated, so a
                    // runtime error in them comes first.
                    if let Some(at) = self.call_without_callee(tree, frames.at(p), call)? {
                        span = at;
                        callee_mask.insert(k);
                    }
                }
            }
        }
        match (target, function) {
            (Some(target), Some(function)) if !callee_mask.is_empty() => Ok(Some((
                target,
                Parts::new(callee, function, node),
                callee_mask,
            ))),
            _ => {
                self.recycle_frame(callee);
                if callee_mask.is_empty() {
                    return Ok(None);
                }
                Err(self.error(frames.at(0), span, missing))
            }
        }
    }

    /// [`Self::live_call`] of a call whose node has no fused function to
    /// run it: its guard and arguments are evaluated all the same (an
    /// error in them comes before the missing function's) and thrown
    /// away. Rare, so out of line.
    #[cold]
    #[inline(never)]
    fn call_without_callee<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        call: &LiveCall<'p>,
    ) -> Result<Option<Span>, Failure> {
        let mut scratch = self.take_values();
        let live = self.live_call(tree, frame, call, &mut scratch);
        self.give_values(scratch);
        live
    }

    /// The frame of a call of fused function `function` on `node`, which
    /// stands at `site`, with the arguments in `args` (one list per
    /// participant, empty for those that do not take part): copies while
    /// more region nodes follow, the lists' values themselves for the
    /// `last`.
    fn callee_frame<'a, M>(
        &mut self,
        function: &'a FnPlan<'p, M>,
        node: NodeId,
        site: Site,
        args: &mut [Vec<Value>],
        last: bool,
    ) -> Parts<'a> {
        let mut frame = self.fused_frame(node, site);
        for (part, values) in function.parts.iter().zip(args.iter_mut()) {
            resize_values(&mut frame.data, part.data_offset as usize);
            if last {
                frame.data.append(values);
            } else {
                frame.data.extend(values.iter().cloned());
            }
        }
        Parts::new(frame, function, node)
    }

    /// An empty frame for a fused call on `node` at `site`, recycled when
    /// possible.
    #[inline(always)]
    fn fused_frame(&mut self, node: NodeId, site: Site) -> Box<Frame> {
        match self.frame_pool.pop() {
            Some(mut frame) => {
                frame.self_node = node;
                frame.site = site;
                frame
            }
            None => Box::new(Frame::new(
                Owner::Fuse(0),
                node,
                Vec::new(),
                Vec::new(),
                site,
            )),
        }
    }

    /// Returns a fused call's frame to the pool, emptied but with its
    /// buffers.
    #[inline(always)]
    fn recycle_frame(&mut self, mut frame: Box<Frame>) {
        frame.data.clear();
        frame.nodes.clear();
        frame.loops.clear();
        if self.frame_pool.len() < POOL_LIMIT {
            self.frame_pool.push(frame);
        }
    }

    /// Runs the participants after `p` that its replacement of the node
    /// switched off (`later`, a mask over the function's participants) on
    /// every node now standing at `site`, as one fused call each, with
    /// the arguments they were given (their statements never ran, so their
    /// segments still hold them).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn resume<M: Mask, S: TreeStore>(
        &mut self,
        tree: &mut S,
        fused: &FusedProgram,
        plan: &Plan<'p, M>,
        id: FusedFnId,
        frames: &mut Parts<'_>,
        p: usize,
        later: M,
        site: Site,
    ) -> Result<(), Failure> {
        let function = &fused.functions[id.index()];
        let Some(resume) = function.resume.iter().find(|r| r.participant == p) else {
            return Err(self.error(
                frames.at(p),
                Span::default(),
                "the fused program does not say where postponed traversals resume",
            ));
        };
        let mask = later.shifted_down(p + 1);
        let params: Vec<Vec<Value>> = (p + 1..function.participants.len())
            .map(|j| {
                if !later.has(j) {
                    return Vec::new();
                }
                let n = self.program.methods[function.participants[j].method.index()]
                    .params
                    .len();
                let from = frames.layout[j].data_offset as usize;
                frames.frame.data[from..from + n].to_vec()
            })
            .collect();
        let nodes = match site {
            Site::Root => vec![tree.root()],
            Site::Child(parent, slot) => vec![tree.child(parent, slot)],
            Site::Listed(index) => self.take_replacement(index),
            Site::Nowhere => Vec::new(),
        };
        let mut params = params;
        let last = nodes.len().saturating_sub(1);
        for (i, n) in nodes.into_iter().enumerate() {
            let Some(target) = target_for(&resume.targets, tree.type_of(n)) else {
                return Err(self.error(
                    frames.at(p),
                    Span::default(),
                    "no fused function for the replacement's type",
                ));
            };
            if let Site::Listed(index) = site {
                self.begin_region_visit(index, n);
            }
            let function = &plan.functions[target.index()];
            let callee = self.callee_frame(function, n, site, &mut params, i == last);
            self.call_fused(tree, fused, plan, target, n, mask.clone(), callee, site)?;
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

    /// Evaluates the guard and the arguments of a (possibly guarded) call
    /// of an active participant, the arguments into `out`; returns the
    /// call's span, or `None` (and leaves `out` alone) if its guard is
    /// false.
    #[inline(always)]
    fn live_call<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        call: &LiveCall<'p>,
        out: &mut Vec<Value>,
    ) -> Result<Option<Span>, Failure> {
        if let Some(guard) = call.guard {
            if !self.eval(tree, frame, guard)?.as_bool() {
                return Ok(None);
            }
        }
        let Some((args, span)) = call.args else {
            return Ok(None);
        };
        for a in args {
            out.push(self.eval(tree, frame, a)?);
        }
        Ok(Some(span))
    }
}

/// The frame of a running fused call: the locals and node variables of
/// all its participants in one [`Frame`], each participant's in the
/// segment its [`PartLayout`] gives, so that a fused visit sets up and
/// recycles one frame, as an unfused visit does, however many
/// participants it runs.
/// The frame is boxed (the pool holds boxes): `Parts` moves by value
/// from the call's preparation ([`Interpreter::live_frames`]) into the
/// callee, and a box moves as one pointer.
struct Parts<'a> {
    frame: Box<Frame>,
    layout: &'a [PartLayout],
}

impl<'a> Parts<'a> {
    /// A copy, for a worker of a split loop.
    fn duplicate(&self) -> Parts<'a> {
        Parts {
            frame: self.frame.clone(),
            layout: self.layout,
        }
    }

    /// The frame of a call of `function` on `node` whose arguments are in
    /// `frame.data`: the rest of its locals set to their initial value and
    /// its node variables to `node`.
    fn new<M>(mut frame: Box<Frame>, function: &'a FnPlan<'_, M>, node: NodeId) -> Parts<'a> {
        resize_values(&mut frame.data, function.locals);
        frame.nodes.resize(function.node_vars, node);
        Parts {
            frame,
            layout: &function.parts,
        }
    }

    /// Node variable `var` of participant `p`.
    #[inline(always)]
    fn node_var(&mut self, p: usize, var: NodeVarId) -> &mut NodeId {
        let at = self.layout[p].node_offset as usize + var.index();
        &mut self.frame.nodes[at]
    }
}

impl ParticipantFrames for Parts<'_> {
    /// The frame, set to run participant `p`: its body (for error
    /// messages), its segments, and no replacement yet (a participant
    /// that replaced the node has left the call, see [`Active::leave`]).
    #[inline(always)]
    fn at(&mut self, p: usize) -> &mut Frame {
        let part = &self.layout[p];
        let frame = &mut *self.frame;
        frame.owner = Owner::Body(part.body);
        frame.data_base = part.data_offset;
        frame.node_base = part.node_offset;
        frame.replaced = false;
        frame
    }
}

/// The active participants of a running fused function.
struct Active<M> {
    mask: M,
    /// (replacing participant, participants switched off by it)
    postponed: Option<(usize, M)>,
}

impl<M: Mask> Active<M> {
    /// A copy, for a worker of a split loop.
    fn duplicate(&self) -> Active<M> {
        Active {
            mask: self.mask.clone(),
            postponed: self.postponed.clone(),
        }
    }

    #[inline]
    fn has(&self, p: usize) -> bool {
        self.mask.has(p)
    }

    /// Participant `p` left the fused function (see [`postpone_after`]).
    /// `replaced`: whether it replaced the node.
    fn leave(&mut self, replaced: bool, p: usize) {
        let active = std::mem::replace(&mut self.mask, M::NONE);
        self.mask = postpone_after(replaced, p, active, &mut self.postponed);
    }
}

/// After participant `p` left the fused function (`return` or a
/// replacement): its active bit cleared and, if it replaced the node, the
/// active participants after it switched off too and recorded in
/// `postponed`, to run on the new node at the end ([`Interpreter::resume`]).
fn postpone_after<M: Mask>(
    replaced: bool,
    p: usize,
    mut active: M,
    postponed: &mut Option<(usize, M)>,
) -> M {
    active.remove(p);
    if replaced {
        let later = active.without(&M::first(p + 1));
        if !later.is_empty() {
            active = active.intersect(&M::first(p + 1));
            *postponed = Some((p, later));
        }
    }
    active
}

/// Fills a frame's data locals past the arguments with their initial
/// value (no clone of a template value per slot, as `Vec::resize` does).
#[inline]
fn resize_values(data: &mut Vec<Value>, len: usize) {
    if data.len() < len {
        data.extend(std::iter::repeat_with(|| Value::Int(0)).take(len - data.len()));
    }
}

/// The per-type table of [`LoopPlanStep::Call::admit`] and
/// [`GroupPlan::admit`].
fn admit_table<M: Mask>(
    targets: &[(TypeId, FusedFnId)],
    guards: &[Option<treefuse_fusion::TypeGuard>],
) -> Vec<M> {
    if guards.is_empty() {
        return Vec::new();
    }
    let len = targets
        .iter()
        .map(|(t, _)| t.index() + 1)
        .max()
        .unwrap_or(0);
    let mut table = vec![M::ALL; len];
    for &(t, _) in targets {
        table[t.index()] = treefuse_fusion::admitted(guards, t);
    }
    table
}
