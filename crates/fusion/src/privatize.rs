//! Globals that the iterations of a parallel loop may each keep to
//! themselves: *write-first* globals.
//!
//! A global that every iteration reads and writes would keep a loop in
//! list order: iteration `i + 1` could read what iteration `i` left. Not
//! so when each iteration writes the global *before* it reads it, on every
//! path: then a read only ever sees what its own iteration wrote, and the
//! iterations do not communicate through it at all. The classic case is a
//! per-element fixpoint flag:
//!
//! ```text
//! impl Func {
//!     traversal settle() {
//!         CHANGED = true;
//!         while CHANGED limit 8 { CHANGED = false; self.body.propagate({}); }
//!     }
//! }
//! ```
//!
//! Such a global is *privatized*: each worker of a parallel loop runs its
//! chunk on a copy, and after the loop the global takes the copy of the
//! last chunk (in list order) that wrote it — the value of the last write,
//! as in the sequential run (generated code records per worker whether it
//! wrote the global; see `treefuse_codegen`).
//!
//! The test here is a must-analysis over the statements of one member
//! loop's body, in order, descending into the traversals it calls: before
//! the first statement that writes the whole global on every path that
//! reaches the next statement, no statement may read it. A write of part
//! of it (`G[k] = v`, `G.f = v`) counts as a read (the rest of the value
//! comes from before). Branches combine path by path; a loop's body may
//! run no times, so a write in it does not count; a `return` ends its path
//! (a callee that returns before writing gives its caller no write). Calls
//! are followed only where the analysis says the callee may touch the
//! global at all; a call that recurses into a body being examined is
//! taken not to read it first (and not to write it), which induction on
//! the height of a run's call tree justifies once no read is found.

use rustc_hash::FxHashMap;
use treefuse_analysis::{AccessSet, Analysis};
use treefuse_automata::{intersection_witness, Nfa};
use treefuse_sema::{
    visit, BodyId, Expr, ExprKind, GlobalId, NodePath, PathStep, PlaceRoot, Program, Stmt, StmtKind,
};

/// Whether, on every path through `body` (one iteration of a member loop),
/// `global` is written whole before anything reads it (see the module
/// docs).
pub(crate) fn write_first(
    program: &Program,
    analysis: &Analysis<'_>,
    global: GlobalId,
    body: &[Stmt],
) -> bool {
    let mut scan = WriteFirst {
        program,
        analysis,
        global,
        prefix: Nfa::label(analysis.labels().global(global)).with_any_suffix(),
        bodies: FxHashMap::default(),
    };
    !scan.block(body).reads
}

/// What running a block does to the global, before it is written.
#[derive(Clone, Copy, Debug)]
struct BlockEffect {
    /// Some path may read the global before writing it.
    reads: bool,
    /// Every path that leaves the block at its end has written the global
    /// (true when none does).
    written_at_end: bool,
    /// Every path that leaves through a `return` has written it (true when
    /// none does).
    written_at_return: bool,
}

impl BlockEffect {
    /// Written on every way out (a callee's effect, seen by its caller).
    fn written_on_exit(self) -> bool {
        self.written_at_end && self.written_at_return
    }
}

struct WriteFirst<'a, 'p> {
    program: &'a Program,
    analysis: &'a Analysis<'p>,
    global: GlobalId,
    /// `global:G·*`: the global's accesses.
    prefix: Nfa,
    /// The effect of each traversal body examined (`None` while it is being
    /// examined: a recursive call).
    bodies: FxHashMap<BodyId, Option<BlockEffect>>,
}

impl WriteFirst<'_, '_> {
    fn block(&mut self, stmts: &[Stmt]) -> BlockEffect {
        let mut effect = BlockEffect {
            reads: false,
            written_at_end: false,
            written_at_return: true,
        };
        for s in stmts {
            if effect.written_at_end {
                // Every later read comes after the write.
                return effect;
            }
            match self.stmt(s) {
                StmtEffect::Reads => {
                    effect.reads = true;
                    return effect;
                }
                StmtEffect::Writes => effect.written_at_end = true,
                StmtEffect::Neither => {}
                StmtEffect::Returns => {
                    effect.written_at_return = false;
                    // Nothing after a `return` runs: the end is not reached.
                    effect.written_at_end = true;
                    return effect;
                }
                StmtEffect::Block(inner) => {
                    if inner.reads {
                        effect.reads = true;
                        return effect;
                    }
                    effect.written_at_return &= inner.written_at_return;
                    effect.written_at_end = inner.written_at_end;
                }
            }
        }
        effect
    }

    fn stmt(&mut self, s: &Stmt) -> StmtEffect {
        match &s.kind {
            StmtKind::Assign { place, .. } => {
                if self.stmt_reads(s) {
                    return StmtEffect::Reads;
                }
                match &place.root {
                    PlaceRoot::Global(g) if *g == self.global => {
                        if place.projections.is_empty() {
                            StmtEffect::Writes
                        } else {
                            StmtEffect::Reads
                        }
                    }
                    _ => StmtEffect::Neither,
                }
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                if self.expr_reads(cond) {
                    return StmtEffect::Reads;
                }
                let (t, e) = (self.block(then_branch), self.block(else_branch));
                StmtEffect::Block(BlockEffect {
                    reads: t.reads || e.reads,
                    written_at_end: t.written_at_end && e.written_at_end,
                    written_at_return: t.written_at_return && e.written_at_return,
                })
            }
            StmtKind::ForChildren { list, body, .. } => {
                if self.path_reads(&list.parent) {
                    return StmtEffect::Reads;
                }
                self.loop_body(body)
            }
            StmtKind::ForArray { array, body, .. } => {
                if self.expr_reads(array) {
                    return StmtEffect::Reads;
                }
                self.loop_body(body)
            }
            StmtKind::ForRange {
                start, end, body, ..
            } => {
                if self.expr_reads(start) || self.expr_reads(end) {
                    return StmtEffect::Reads;
                }
                self.loop_body(body)
            }
            StmtKind::While {
                cond, limit, body, ..
            } => {
                // The condition runs before the first iteration too.
                if self.expr_reads(cond) || self.expr_reads(limit) {
                    return StmtEffect::Reads;
                }
                self.loop_body(body)
            }
            StmtKind::Return(value) => {
                if value.as_ref().is_some_and(|v| self.expr_reads(v)) {
                    StmtEffect::Reads
                } else {
                    StmtEffect::Returns
                }
            }
            StmtKind::Call {
                receiver, method, ..
            } => {
                if self.stmt_reads(s) || self.path_reads(receiver) {
                    return StmtEffect::Reads;
                }
                self.call(receiver, *method)
            }
            // Everything else only reads what its expressions read.
            _ => {
                if self.stmt_reads(s) {
                    StmtEffect::Reads
                } else {
                    StmtEffect::Neither
                }
            }
        }
    }

    /// A loop body, which may run no times (its writes do not count) or
    /// several (a read before its write would see the previous round's).
    fn loop_body(&mut self, body: &[Stmt]) -> StmtEffect {
        let inner = self.block(body);
        StmtEffect::Block(BlockEffect {
            reads: inner.reads,
            written_at_end: false,
            written_at_return: inner.written_at_return,
        })
    }

    /// A call of `method` on `receiver`: every body it may dispatch to must
    /// not read the global before writing it; it counts as a write when
    /// every such body writes it on every way out and the call always
    /// happens on a node with a body.
    fn call(&mut self, receiver: &NodePath, method: treefuse_sema::MethodId) -> StmtEffect {
        let touches = self
            .analysis
            .static_summary(receiver.ty, method)
            .is_some_and(|set: &AccessSet| {
                intersection_witness(&set.global_reads, &self.prefix).is_some()
                    || intersection_witness(&set.global_writes, &self.prefix).is_some()
            });
        if !touches {
            return StmtEffect::Neither;
        }
        let optional = receiver.steps.iter().any(|step| match step {
            PathStep::Child(f) => self.program.fields[f.index()].optional,
            _ => false,
        });
        let mut always_writes = !optional;
        for (ti, t) in self.program.types.iter().enumerate() {
            let ty = treefuse_sema::TypeId(ti as u32);
            if t.is_abstract || !self.program.is_subtype(ty, receiver.ty) {
                continue;
            }
            let Some(body) = self.program.dispatch(ty, method) else {
                always_writes = false;
                continue;
            };
            let effect = match self.bodies.get(&body) {
                Some(Some(known)) => *known,
                Some(None) => {
                    // A recursive call: assumed not to read before it
                    // writes (its writes are not counted). The assumption
                    // is the claim being proven: any read found anywhere
                    // makes the whole answer "reads", and when none is
                    // found, induction on the height of a run's (finite)
                    // call tree proves every call write-first.
                    always_writes = false;
                    continue;
                }
                None => {
                    self.bodies.insert(body, None);
                    let stmts = self.program.bodies[body.index()]
                        .body
                        .as_deref()
                        .unwrap_or(&[]);
                    let effect = self.block(stmts);
                    self.bodies.insert(body, Some(effect));
                    effect
                }
            };
            if effect.reads {
                return StmtEffect::Reads;
            }
            always_writes &= effect.written_on_exit();
        }
        if always_writes {
            StmtEffect::Writes
        } else {
            StmtEffect::Neither
        }
    }

    /// Whether an expression of `s` itself (not of nested statements)
    /// reads the global.
    fn stmt_reads(&self, s: &Stmt) -> bool {
        let mut reads = false;
        visit::walk_stmt_exprs(std::slice::from_ref(s), &mut |e: &Expr| {
            reads |= self.reads_here(e);
        });
        reads
    }

    fn expr_reads(&self, e: &Expr) -> bool {
        let mut reads = false;
        visit::walk_expr(e, &mut |e: &Expr| reads |= self.reads_here(e));
        reads
    }

    fn path_reads(&self, p: &NodePath) -> bool {
        let mut reads = false;
        visit::walk_path(p, &mut |e: &Expr| reads |= self.reads_here(e));
        reads
    }

    /// Whether `e` itself (not its sub-expressions) reads the global: pure
    /// functions read nothing but their arguments, so only a `Global`
    /// expression does.
    fn reads_here(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Global(g) if g == self.global)
    }
}

/// What one statement does to the global.
enum StmtEffect {
    Reads,
    Writes,
    Neither,
    /// A `return`, before any write on its path.
    Returns,
    /// A compound statement's combined paths.
    Block(BlockEffect),
}
