//! Globals whose writes commute.
//!
//! A global that every write in the program sets to the same constant
//! (`font_error = true;`, the usual shape of an error flag) ends a run
//! holding that constant if any write ran and its initial value otherwise,
//! whatever the order of the writes. Since a fused run executes the same
//! statement instances as the unfused one, write/write conflicts on such a
//! global are not dependences; read/write and write/read conflicts still
//! are. Dropping those output dependences is what lets passes that log into
//! the same flag fuse.

use std::collections::BTreeSet;
use treefuse_analysis::{frame_conflict, AccessSet, Analysis, Conflict, ConflictKind, Location};
use treefuse_automata::{intersection_witness, Nfa, Symbol};
use treefuse_sema::*;

/// Conflict testing with write/write conflicts on idempotent globals
/// ignored.
pub(crate) struct ConflictTest<'a, 'p> {
    analysis: &'a Analysis<'p>,
    /// Write-prefix automata (`g.*`) of the globals that are *not*
    /// idempotent; `None` when every global is.
    others: Vec<(GlobalId, Nfa)>,
    idempotent: BTreeSet<GlobalId>,
}

impl<'a, 'p> ConflictTest<'a, 'p> {
    pub(crate) fn new(program: &Program, analysis: &'a Analysis<'p>) -> ConflictTest<'a, 'p> {
        let idempotent = idempotent_globals(program);
        let others = (0..program.globals.len())
            .map(|i| GlobalId(i as u32))
            .filter(|g| !idempotent.contains(g))
            .map(|g| (g, Nfa::label(analysis.labels().global(g)).with_any_suffix()))
            .collect();
        ConflictTest {
            analysis,
            others,
            idempotent,
        }
    }

    /// The first dependence between `first` and `second` (see
    /// `treefuse_analysis::conflict`), idempotent writes excepted.
    pub(crate) fn conflict(
        &self,
        first: &AccessSet,
        second: &AccessSet,
        same_frame: bool,
    ) -> Option<Conflict> {
        let c = self.analysis.conflict(first, second, same_frame)?;
        let on_idempotent = c.kind == ConflictKind::WriteWrite
            && c.location == Location::Global
            && matches!(c.word.first(), Some(Symbol::Label(l))
                if self.analysis.labels().global_of(*l).is_some_and(|g| self.idempotent.contains(&g)));
        if !on_idempotent {
            return Some(c);
        }
        // Tree conflicts and global read/write conflicts were ruled out
        // before the analysis reported this one; what remains to check is
        // write/write on the other globals and the frame.
        for (_, prefix) in &self.others {
            let mine = Nfa::intersect(&first.global_writes, prefix);
            if let Some(word) = intersection_witness(&mine, &second.global_writes) {
                let witness = self.analysis.labels().format(&word);
                return Some(Conflict {
                    kind: ConflictKind::WriteWrite,
                    location: Location::Global,
                    word,
                    witness,
                });
            }
        }
        if same_frame {
            return frame_conflict(first, second);
        }
        None
    }
}

/// Globals written only by plain assignments of one and the same constant.
fn idempotent_globals(program: &Program) -> BTreeSet<GlobalId> {
    let mut value: Vec<Option<Value>> = vec![None; program.globals.len()];
    let mut mixed = vec![false; program.globals.len()];
    let mut note = |stmts: &[Stmt]| {
        walk_assignments(stmts, &mut |place: &Place, e: &Expr| {
            let PlaceRoot::Global(g) = place.root else {
                return;
            };
            let i = g.index();
            match (&e.kind, place.projections.is_empty()) {
                (ExprKind::Const(v), true) => match &value[i] {
                    None => value[i] = Some(v.clone()),
                    Some(prev) if prev.same_as(v) => {}
                    Some(_) => mixed[i] = true,
                },
                _ => mixed[i] = true,
            }
        });
    };
    for b in &program.bodies {
        if let Some(stmts) = &b.body {
            note(stmts);
        }
    }
    (0..program.globals.len())
        .filter(|&i| value[i].is_some() && !mixed[i])
        .map(|i| GlobalId(i as u32))
        .collect()
}

fn walk_assignments(stmts: &[Stmt], f: &mut impl FnMut(&Place, &Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { place, value } => f(place, value),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                walk_assignments(then_branch, f);
                walk_assignments(else_branch, f);
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. } => walk_assignments(body, f),
            _ => {}
        }
    }
}
