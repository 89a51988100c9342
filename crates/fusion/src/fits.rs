//! Whether a fused program, read back from storage, fits a checked
//! program: [`FusedProgram::check_fits`].
//!
//! The fusion cache of `treefuse run` stores a [`FusedProgram`] and reads
//! it back for a program with the same text. Every id and index of the IR
//! points into that program (types, fields, traversal bodies and their
//! statements, the `fuse` items' statements, other fused functions), and
//! the engines index with them directly. A cache file is data a user can
//! edit, so before a stored program is used every id and index is checked
//! to be in range, and every dispatch target to have as many participants
//! as the calls it is given. This is a range check, not a proof that the
//! schedule is the one the fuser would make: the cache's key and checksum
//! are what make a stored program the fuser's own.

use crate::ir::*;
use treefuse_sema::{FieldId, Fuse, FuseStmt, Program, TypeId};

impl FusedProgram {
    /// `Ok` when every id and index of this fused program is in range for
    /// `program` (see the module documentation), else what is not.
    pub fn check_fits(&self, program: &Program) -> Result<(), String> {
        let c = Fits {
            program,
            fused: self,
        };
        if self.entries.len() != program.fuses.len() {
            return Err(format!(
                "{} entries for {} fuse items",
                self.entries.len(),
                program.fuses.len()
            ));
        }
        for (entry, fuse) in self.entries.iter().zip(&program.fuses) {
            c.entry(entry, fuse)?;
        }
        for (i, f) in self.functions.iter().enumerate() {
            c.function(f).map_err(|e| format!("F{i}: {e}"))?;
        }
        Ok(())
    }
}

struct Fits<'a> {
    program: &'a Program,
    fused: &'a FusedProgram,
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

impl Fits<'_> {
    fn entry(&self, entry: &FusedEntry, fuse: &Fuse) -> Result<(), String> {
        check(entry.fuse == fuse.name, || {
            format!("entry `{}` for fuse item `{}`", entry.fuse, fuse.name)
        })?;
        for chunk in &entry.chunks {
            for &call in &chunk.calls {
                check(call < fuse.calls.len(), || {
                    format!("call {call} of a chunk")
                })?;
            }
            self.targets(&chunk.targets, chunk.calls.len())?;
        }
        self.entry_stmts(&entry.body, &fuse.body, entry.chunks.len())
    }

    fn entry_stmts(
        &self,
        stmts: &[EntryStmt],
        source: &[FuseStmt],
        chunks: usize,
    ) -> Result<(), String> {
        for s in stmts {
            match s {
                EntryStmt::Chunk(i) => check(*i < chunks, || format!("chunk {i}"))?,
                EntryStmt::SetGlobal { stmt, .. } => check(
                    matches!(source.get(*stmt), Some(FuseStmt::SetGlobal { .. })),
                    || format!("entry statement {stmt} is not a global assignment"),
                )?,
                EntryStmt::While { stmt, body, .. } => match source.get(*stmt) {
                    Some(FuseStmt::While { body: inner, .. }) => {
                        self.entry_stmts(body, inner, chunks)?
                    }
                    _ => return Err(format!("entry statement {stmt} is not a `while`")),
                },
                EntryStmt::Break { .. } => {}
            }
        }
        Ok(())
    }

    fn ty(&self, ty: TypeId) -> Result<(), String> {
        check(ty.index() < self.program.types.len(), || {
            format!("type {}", ty.0)
        })
    }

    fn field(&self, field: FieldId) -> Result<(), String> {
        check(field.index() < self.program.fields.len(), || {
            format!("field {}", field.0)
        })
    }

    /// A dispatch list whose callees are each given `calls` calls.
    fn targets(&self, targets: &[(TypeId, FusedFnId)], calls: usize) -> Result<(), String> {
        for &(ty, f) in targets {
            self.ty(ty)?;
            let callee = self
                .fused
                .functions
                .get(f.index())
                .ok_or_else(|| format!("fused function F{}", f.0))?;
            check(callee.participants.len() == calls, || {
                format!(
                    "F{} has {} participants for {calls} calls",
                    f.0,
                    callee.participants.len()
                )
            })?;
        }
        Ok(())
    }

    fn guards(&self, guards: &[Option<TypeGuard>], calls: usize) -> Result<(), String> {
        check(guards.is_empty() || guards.len() == calls, || {
            format!("{} guards for {calls} calls", guards.len())
        })?;
        for g in guards.iter().flatten() {
            g.types.iter().try_for_each(|&t| self.ty(t))?;
        }
        Ok(())
    }

    fn function(&self, f: &FusedFunction) -> Result<(), String> {
        let program = self.program;
        self.ty(f.ty)?;
        for p in &f.participants {
            check(p.method.index() < program.methods.len(), || {
                format!("traversal {}", p.method.0)
            })?;
            check(p.body.index() < program.bodies.len(), || {
                format!("body {}", p.body.0)
            })?;
        }
        // Participant `p`'s top-level statement `i`.
        let stmt = |(p, i): (usize, usize)| -> Result<(), String> {
            let len = f
                .participants
                .get(p)
                .and_then(|part| program.bodies[part.body.index()].body.as_ref())
                .map_or(0, Vec::len);
            check(i < len, || format!("statement {i} of participant {p}"))
        };
        let participant = |p: usize| check(p < f.participants.len(), || format!("participant {p}"));
        for step in &f.steps {
            match step {
                Step::Stmt {
                    participant,
                    stmt: i,
                } => stmt((*participant, *i))?,
                Step::Group(g) => {
                    self.field(g.field)?;
                    g.calls.iter().try_for_each(|&c| stmt(c))?;
                    self.targets(&g.targets, g.calls.len())?;
                    self.guards(&g.guards, g.calls.len())?;
                }
                Step::Loop(g) => {
                    self.field(g.field)?;
                    g.loops.iter().try_for_each(|&c| stmt(c))?;
                    let member = |m: usize| check(m < g.loops.len(), || format!("member loop {m}"));
                    for s in &g.steps {
                        match s {
                            LoopStep::Stmt { member: m, .. } => member(*m)?,
                            LoopStep::Call {
                                calls,
                                targets,
                                guards,
                            } => {
                                calls.iter().try_for_each(|&(m, _)| member(m))?;
                                self.targets(targets, calls.len())?;
                                self.guards(guards, calls.len())?;
                            }
                        }
                    }
                    g.rebound.iter().try_for_each(|&m| member(m))?;
                }
                Step::While(w) => {
                    stmt((w.participant, w.stmt))?;
                    for s in &w.steps {
                        if let WhileStep::Call {
                            field,
                            calls,
                            targets,
                        } = s
                        {
                            self.field(*field)?;
                            self.targets(targets, calls.len())?;
                        }
                    }
                }
            }
        }
        for r in &f.resume {
            participant(r.participant)?;
            self.targets(&r.targets, f.participants.len() - r.participant - 1)?;
        }
        if let Some(field) = f.typed_child {
            self.field(field)?;
        }
        for b in &f.blocked {
            participant(b.first.0)?;
            participant(b.second.0)?;
        }
        for s in &f.split {
            participant(s.call.0)?;
            participant(s.joined.0)?;
            s.types.iter().try_for_each(|&t| self.ty(t))?;
        }
        for &(p, _, _) in &f.graph.vertices {
            participant(p)?;
        }
        for &(a, b, _) in &f.graph.edges {
            check(
                a < f.graph.vertices.len() && b < f.graph.vertices.len(),
                || format!("dependence edge {a} -> {b}"),
            )?;
        }
        Ok(())
    }
}
