//! Access sets and the conflict test.

use std::collections::BTreeSet;

use treefuse_automata::{intersection_witness, Label, Nfa, Symbol};
use treefuse_sema::{LocalId, NodeVarId};

use crate::labels::Labels;

/// A variable of one traversal activation's frame.
///
/// Frame variables never conflict across traversals (each activation has
/// its own frame; traversal parameters are passed by value), so they are
/// kept as plain sets instead of automata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameVar {
    /// A data local or a parameter.
    Local(LocalId),
    /// A tree alias or a `for` loop variable (its binding).
    Node(NodeVarId),
}

/// Everything one statement (or one call) may read and write.
///
/// Tree paths are words over [`Labels`] relative to the node the statement
/// runs on (`self`): `Element.width` is `self.width`,
/// `TextBox.next.Element.width` is `self.next.width`, `Group.border.*` is
/// the whole record `self.border`. The empty word `ε` is the node itself
/// (its type tag, read by `is` tests, casts and dispatch).
///
/// Global paths are kept in separate automata, as words starting with a
/// global's pseudo-root label (`global:changed`): they are not relative to
/// any node, so [`AccessSet::under`] does not prefix them.
///
/// The automata are [`reduced`](Nfa::reduced) when the set comes out of
/// [`Analysis`](crate::Analysis).
#[derive(Clone, Debug)]
pub struct AccessSet {
    /// Tree paths that may be read (prefix-closed: navigating reads every
    /// child slot on the way).
    pub reads: Nfa,
    /// Tree paths that may be written.
    pub writes: Nfa,
    /// Global paths that may be read.
    pub global_reads: Nfa,
    /// Global paths that may be written.
    pub global_writes: Nfa,
    /// Frame variables read (of the frame the statement runs in).
    pub frame_reads: BTreeSet<FrameVar>,
    /// Frame variables written (assigned, bound by `let`, alias or `for`).
    pub frame_writes: BTreeSet<FrameVar>,
    /// Whether executing it may raise a runtime error (integer division or
    /// remainder, array indexing, a failing `as` cast, a pure function that
    /// may fail, a host function, or, for calls, any of these anywhere in
    /// the reachable traversals).
    pub may_fail: bool,
    /// Whether it contains a `return` of the traversal it is written in
    /// (control effect; `return`s inside called traversals do not count).
    pub returns: bool,
    /// Whether it contains a traversing call (possibly nested in `if` or
    /// `for`).
    pub has_calls: bool,
}

impl Default for AccessSet {
    fn default() -> Self {
        AccessSet::empty()
    }
}

impl AccessSet {
    /// Accesses nothing.
    pub fn empty() -> AccessSet {
        AccessSet {
            reads: Nfa::empty(),
            writes: Nfa::empty(),
            global_reads: Nfa::empty(),
            global_writes: Nfa::empty(),
            frame_reads: BTreeSet::new(),
            frame_writes: BTreeSet::new(),
            may_fail: false,
            returns: false,
            has_calls: false,
        }
    }

    /// Everything either set accesses (automata not reduced).
    pub fn union(&self, other: &AccessSet) -> AccessSet {
        AccessSet {
            reads: self.reads.union(&other.reads),
            writes: self.writes.union(&other.writes),
            global_reads: self.global_reads.union(&other.global_reads),
            global_writes: self.global_writes.union(&other.global_writes),
            frame_reads: self
                .frame_reads
                .union(&other.frame_reads)
                .copied()
                .collect(),
            frame_writes: self
                .frame_writes
                .union(&other.frame_writes)
                .copied()
                .collect(),
            may_fail: self.may_fail || other.may_fail,
            returns: self.returns || other.returns,
            has_calls: self.has_calls || other.has_calls,
        }
    }

    /// Everything any of `parts` accesses, in one pass: automata are
    /// combined without ε-edges (reduced if the parts are), frame sets and
    /// flags by union. Use this to merge the sets of several statements or
    /// calls (a group of calls on one child).
    pub fn union_all(parts: &[&AccessSet]) -> AccessSet {
        union_sets(parts)
    }

    /// The same set with its four automata [`reduced`](Nfa::reduced).
    pub fn reduced(&self) -> AccessSet {
        AccessSet {
            reads: self.reads.reduced(),
            writes: self.writes.reduced(),
            global_reads: self.global_reads.reduced(),
            global_writes: self.global_writes.reduced(),
            ..self.clone()
        }
    }

    /// The same accesses seen from an ancestor: every tree path gets
    /// `prefix` in front (`under(&[c])` turns the accesses of a call on
    /// `self.c`, relative to `c`, into paths relative to `self`). The
    /// prefix itself is read (navigation). Globals and frame variables are
    /// unchanged. The result is reduced.
    pub fn under(&self, prefix: &[Label]) -> AccessSet {
        AccessSet {
            reads: self.reads.reduced().prepend(prefix, true),
            writes: self.writes.reduced().prepend(prefix, false),
            ..self.clone()
        }
    }

    /// [`under`](AccessSet::under) with a regular set of prefixes.
    pub fn under_nfa(&self, prefix: &Nfa) -> AccessSet {
        AccessSet {
            reads: prefix
                .prefix_closure()
                .union(&prefix.concat(&self.reads))
                .reduced(),
            writes: prefix.concat(&self.writes).reduced(),
            ..self.clone()
        }
    }
}

/// A statement's access set, with the access sets of the statements nested
/// in it (the branches of an `if`, the body of a `for`), each relative to
/// the same `self`.
#[derive(Clone, Debug)]
pub struct StmtAccess {
    /// Everything the statement may access, nested statements and
    /// (transitively) every traversing call in it included.
    pub set: AccessSet,
    /// Nested blocks: `[then, else]` for `if`, `[body]` for `for`, none
    /// otherwise.
    pub blocks: Vec<Vec<StmtAccess>>,
    /// For `for x in list { body }`: one iteration of the body, split by
    /// whether an access goes through the loop variable.
    pub per_element: Option<Box<LoopAccess>>,
    /// For a call `x.f()` of a split traversal (`Program::splits`) on a
    /// node variable `x` itself (a loop variable or alias): the statement's set with the call replaced by `x.f$head()`,
    /// then by `x.f$tail()` (each the statement's own accesses plus that
    /// part's summary under the receiver).
    pub split: Option<Box<[AccessSet; 2]>>,
}

/// The accesses of one iteration of a `for x in self.list { body }` loop,
/// split in two, for deciding whether two loops over the same list may be
/// fused into one.
///
/// Everything an iteration does through `x` (directly, through aliases
/// bound below `x`, or in traversals called on `x`) stays inside the
/// subtree of its element, so two iterations on *different* elements can
/// only conflict through `other`. To compare `element` with sets relative
/// to `self`, put it under the list's path ([`AccessSet::under`] with the
/// list's path and label).
#[derive(Clone, Debug)]
pub struct LoopAccess {
    /// Tree paths accessed through the loop variable, relative to the
    /// element node (globals and frame variables are in `other`; the flags
    /// are false).
    pub element: AccessSet,
    /// Everything else an iteration may access (tree paths relative to
    /// `self`, globals, frame variables, the traversals' global accesses and
    /// failures of calls on `x`), plus the loop header's reads of the list
    /// and the binding of `x`; carries the flags.
    pub other: AccessSet,
    /// `other` without the loop header's reads of the list: what the
    /// iterations themselves do besides the element. The header reads the
    /// list once, before every iteration, so it need not commute with them.
    pub iteration: AccessSet,
    /// The loop header's reads (the path to the list and the list itself).
    pub header: AccessSet,
}

/// The order of the two accesses in a conflict, `first` running before
/// `second` in the unfused program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// `first` writes what `second` reads (flow dependence).
    WriteRead,
    /// `first` reads what `second` writes (anti dependence).
    ReadWrite,
    /// Both write the same location (output dependence).
    WriteWrite,
}

impl std::fmt::Display for ConflictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ConflictKind::WriteRead => "write/read",
            ConflictKind::ReadWrite => "read/write",
            ConflictKind::WriteWrite => "write/write",
        })
    }
}

/// Where a conflict happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// On the tree: the witness is a path relative to the common node.
    Tree,
    /// On a global: the witness starts with the global's pseudo-root label.
    Global,
    /// On a variable of the shared frame.
    Frame(FrameVar),
}

/// A reason why two accesses cannot be reordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// Which direction.
    pub kind: ConflictKind,
    /// Tree, global or frame variable.
    pub location: Location,
    /// A shortest conflicting path (empty for frame variables). `*` stands
    /// for any label.
    pub word: Vec<Symbol>,
    /// The path as text ([`Labels::format`]), or `local#N` / `node#N` for a
    /// frame variable.
    pub witness: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} conflict on {}", self.kind, self.witness)
    }
}

/// The pairs of global accesses of `first` (earlier) and `second` that
/// conflict when they intersect, in the order [`conflict`] checks them:
/// write/read, read/write, write/write.
pub fn global_access_pairs<'s>(
    first: &'s AccessSet,
    second: &'s AccessSet,
) -> [(ConflictKind, &'s Nfa, &'s Nfa); 3] {
    [
        (
            ConflictKind::WriteRead,
            &first.global_writes,
            &second.global_reads,
        ),
        (
            ConflictKind::ReadWrite,
            &first.global_reads,
            &second.global_writes,
        ),
        (
            ConflictKind::WriteWrite,
            &first.global_writes,
            &second.global_writes,
        ),
    ]
}

/// The first conflict between `first` and `second`, where `first` runs
/// before `second` in the unfused program and both sets are relative to the
/// same node. Checks, in order, write/read, read/write and write/write, each
/// on the tree, then on globals, then (only if `same_frame`: both belong to
/// the same activation of the same traversal) on frame variables.
///
/// `None` means the two may be swapped as far as memory is concerned
/// (`return` and runtime errors are the caller's business: see
/// [`AccessSet::returns`] and [`AccessSet::may_fail`]).
pub fn conflict(
    first: &AccessSet,
    second: &AccessSet,
    labels: &Labels,
    same_frame: bool,
) -> Option<Conflict> {
    conflict_with(first, second, labels, same_frame, intersection_witness)
}

/// [`conflict`] with `witness` in place of
/// [`intersection_witness`]: it must return what that returns for the same
/// two automata (a caller with a faster emptiness test for automata it
/// knows, say). The automata it gets are fields of `first` and `second`.
pub fn conflict_with<'s>(
    first: &'s AccessSet,
    second: &'s AccessSet,
    labels: &Labels,
    same_frame: bool,
    mut witness: impl FnMut(&'s Nfa, &'s Nfa) -> Option<Vec<Symbol>>,
) -> Option<Conflict> {
    let pairs = [
        (ConflictKind::WriteRead, &first.writes, &second.reads),
        (ConflictKind::ReadWrite, &first.reads, &second.writes),
        (ConflictKind::WriteWrite, &first.writes, &second.writes),
    ];
    let gpairs = global_access_pairs(first, second);
    for (loc, list) in [(Location::Tree, &pairs), (Location::Global, &gpairs)] {
        for &(kind, a, b) in list.iter() {
            if let Some(word) = witness(a, b) {
                let text = labels.format(&word);
                return Some(Conflict {
                    kind,
                    location: loc,
                    word,
                    witness: text,
                });
            }
        }
    }
    if same_frame {
        return frame_conflict(first, second);
    }
    None
}

/// The first conflict between `first` and `second` on variables of the
/// frame they share (write/read, read/write, then write/write), for two
/// accesses of the same activation of the same traversal.
pub fn frame_conflict(first: &AccessSet, second: &AccessSet) -> Option<Conflict> {
    let pairs = [
        (
            ConflictKind::WriteRead,
            &first.frame_writes,
            &second.frame_reads,
        ),
        (
            ConflictKind::ReadWrite,
            &first.frame_reads,
            &second.frame_writes,
        ),
        (
            ConflictKind::WriteWrite,
            &first.frame_writes,
            &second.frame_writes,
        ),
    ];
    for (kind, a, b) in pairs {
        if let Some(&v) = a.intersection(b).next() {
            let witness = match v {
                FrameVar::Local(l) => format!("local#{}", l.0),
                FrameVar::Node(n) => format!("node#{}", n.0),
            };
            return Some(Conflict {
                kind,
                location: Location::Frame(v),
                word: Vec::new(),
                witness,
            });
        }
    }
    None
}

/// [`union_sets`] with every automaton minimized ([`Nfa::minimized`]): for
/// summaries that are copied under many receivers, such as a traversal's
/// summary on a static type (the union over its concrete subtypes).
pub(crate) fn minimal_union(parts: &[&AccessSet]) -> AccessSet {
    let mut u = union_sets(parts);
    for n in [
        &mut u.reads,
        &mut u.writes,
        &mut u.global_reads,
        &mut u.global_writes,
    ] {
        *n = n.minimized();
    }
    u
}

/// The union of reduced access sets, reduced (automata by
/// [`Nfa::union_trimmed`], frame sets and flags by union).
pub(crate) fn union_sets(parts: &[&AccessSet]) -> AccessSet {
    let nfa = |pick: fn(&AccessSet) -> &Nfa| Nfa::union_trimmed(parts.iter().map(|p| pick(p)));
    AccessSet {
        reads: nfa(|s| &s.reads),
        writes: nfa(|s| &s.writes),
        global_reads: nfa(|s| &s.global_reads),
        global_writes: nfa(|s| &s.global_writes),
        frame_reads: parts
            .iter()
            .flat_map(|p| p.frame_reads.iter().copied())
            .collect(),
        frame_writes: parts
            .iter()
            .flat_map(|p| p.frame_writes.iter().copied())
            .collect(),
        may_fail: parts.iter().any(|p| p.may_fail),
        returns: parts.iter().any(|p| p.returns),
        has_calls: parts.iter().any(|p| p.has_calls),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(alphabet: &[Label], max: usize) -> Vec<Vec<Label>> {
        let mut out = vec![Vec::new()];
        let mut layer = vec![Vec::new()];
        for _ in 0..max {
            let mut next = Vec::new();
            for w in &layer {
                for &l in alphabet {
                    let mut v: Vec<Label> = w.clone();
                    v.push(l);
                    next.push(v);
                }
            }
            out.extend(next.iter().cloned());
            layer = next;
        }
        out
    }

    fn samples() -> Vec<Nfa> {
        let (a, b, c) = (Label(0), Label(1), Label(2));
        vec![
            Nfa::empty(),
            Nfa::epsilon(),
            Nfa::word(&[a, b]),
            Nfa::word(&[a]).with_any_suffix(),
            Nfa::label(a).star().concat(&Nfa::label(c)),
            Nfa::word(&[b, c]).prefix_closure(),
            Nfa::label(a).plus().union(&Nfa::word(&[c, c])),
        ]
        .into_iter()
        .map(|n| n.reduced())
        .collect()
    }

    #[test]
    fn fast_union_and_prefix_agree_with_the_regular_operations() {
        let alphabet = [Label(0), Label(1), Label(2), Label(3)];
        let ws = words(&alphabet, 5);
        let s = samples();
        for x in &s {
            for y in &s {
                let fast = Nfa::union_trimmed([x, y]);
                let slow = x.union(y);
                for w in &ws {
                    assert_eq!(fast.accepts(w), slow.accepts(w), "{w:?}");
                }
            }
            for prefix in [vec![], vec![Label(1)], vec![Label(2), Label(0)]] {
                let p = Nfa::word(&prefix);
                let fast = x.prepend(&prefix, false);
                let slow = p.concat(x);
                let fast_r = x.prepend(&prefix, true);
                let slow_r = if x.is_empty() {
                    p.prefix_closure()
                } else {
                    p.prefix_closure().union(&p.concat(x))
                };
                for w in &ws {
                    assert_eq!(fast.accepts(w), slow.accepts(w), "{prefix:?} {w:?}");
                    assert_eq!(fast_r.accepts(w), slow_r.accepts(w), "{prefix:?} {w:?}");
                }
            }
        }
    }
}
