//! Globals whose accesses commute.
//!
//! Two kinds of global make order between statements irrelevant:
//!
//! - *Idempotent* globals: every write in the program sets the global to
//!   the same constant (`font_error = true;`, the usual shape of an error
//!   flag). A run ends with that constant if any write ran and with the
//!   initial value otherwise, whatever the order of the writes, so
//!   write/write conflicts on them are not dependences; read/write and
//!   write/read conflicts still are. The same holds for one *pair* of
//!   statements when both only ever set the global to one and the same
//!   constant, even if other statements set it to other values (a change
//!   flag that passes set to `true` and a fixpoint loop resets to
//!   `false`): the analysis tells writes of constants apart by value
//!   (`treefuse_analysis::Labels::write_values`), and
//!   `ConflictTest::same_constant` drops the write/write conflict of such
//!   a pair. Any statement between them that reads the global keeps its
//!   own edges to both, so the pair never crosses a read.
//! - *Commutative counters*: every access to the global in every traversal
//!   is an update `g = g + e`, `g = g - e` (wrapping `i64`), `g = g || e`,
//!   `g = g && e`, `g = min(g, e)` or `g = max(g, e)` (one class of
//!   operator per global; `e` does not read `g`, and for `||` and `&&`,
//!   whose right side is evaluated only for some values of `g`, `e` cannot
//!   fail). No traversal statement's behaviour then depends on the
//!   counter's value, and its final value folds the same multiset of
//!   operands with a commutative, associative operator in any order, so no
//!   conflict on a counter is a dependence between traversal statements.
//!   (Arguments and conditions of `fuse` items may read counters: those
//!   run between fused calls on the root and see the value of the unfused
//!   run.)
//!
//! A fused run executes the same statement instances as the unfused one,
//! so dropping these conflicts keeps every tree, global and runtime error.
//! This is what lets passes that log into the same flag or count into the
//! same error counter fuse.
//!
//! `ConflictTest` is also where conflict tests are made cheap: answers are
//! memoized by the pair of access sets (the same statements meet in the
//! fused functions of many sequences); each distinct automaton is indexed
//! once (by content: many sets are equal copies); a quick test on how the
//! sets' words may begin (`SetOpening::may_conflict`) and then
//! [`IndexedNfa::intersects`](treefuse_automata::IndexedNfa::intersects)
//! refute most pairs; and the witness search, whose answer the reports
//! print, runs once per pair of automaton contents that do meet.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use treefuse_analysis::{
    conflict_with, frame_conflict, global_access_pairs, AccessSet, Analysis, Conflict,
    ConflictKind, Location,
};
use treefuse_automata::{intersection_witness, IndexedNfa, Label, Nfa, Symbol};
use treefuse_sema::ops::{BinaryOp, Builtin};
use treefuse_sema::visit::{walk_expr, walk_stmt_exprs};
use treefuse_sema::*;

/// Conflict testing with the conflicts on commuting globals left out.
pub(crate) struct ConflictTest<'a, 'p> {
    analysis: &'a Analysis<'p>,
    /// Every global with its prefix automaton (`global:g·*`) and what
    /// commutes on it.
    globals: Vec<(GlobalId, Nfa, Commutes)>,
    /// The index in `globals` of each global's label.
    global_of_label: FxHashMap<Label, usize>,
    /// Answers of [`Self::conflict_of`], by the addresses of the two sets
    /// (owned by the analysis, which outlives this test, so an address
    /// names one set for as long as the memo exists) and `same_frame`.
    memo: RefCell<HashMap<(usize, usize, bool), Option<Conflict>>>,
    /// The automata of those sets indexed for the emptiness test, by
    /// address (same argument as `memo`).
    indexed: RefCell<HashMap<usize, Rc<IndexedNfa>>>,
    /// The same indexes by content (fingerprint, then `==`): many sets the
    /// analysis owns are equal copies, indexed once.
    by_content: RefCell<IndexesByContent>,
    /// Witnesses of intersections by the two indexes' addresses (kept
    /// alive in `by_content`), so by the automata's contents.
    witnesses: RefCell<WitnessMemo>,
    /// How the words of each set's automata may begin, by the set's
    /// address (same argument as `memo`): the quick test that answers most
    /// pairs ([`SetOpening::may_conflict`]).
    openings: RefCell<FxHashMap<usize, Rc<SetOpening>>>,
}

/// The [`Opening`]s of an access set's four automata, and whether it
/// touches the frame: enough to rule out a conflict between two sets whose
/// accesses cannot begin alike, before any automaton is searched.
#[derive(Debug)]
pub(crate) struct SetOpening {
    reads: Opening,
    writes: Opening,
    global_reads: Opening,
    global_writes: Opening,
    frame_writes: bool,
}

/// The pairs `(u, v)`, `u < v`, of access sets (by index) that
/// [`SetOpening::may_conflict`] does not rule out, plus every pair within
/// one participant (`participant[u] == participant[v]`: frame conflicts
/// and `return`s order those), in ascending order. Found through an index
/// from the labels the accesses may begin with to the sets, so that the
/// cost follows the pairs that share a label rather than all pairs: in a
/// walk fusing R passes that each write their own globals, O(R) instead
/// of O(R²).
pub(crate) fn candidate_pairs(
    openings: &[&SetOpening],
    participant: &[usize],
) -> Vec<(usize, usize)> {
    let n = openings.len();
    // The pairs found, as a bit matrix (row `u`, column `v > u`): the
    // label lists name a pair once per shared label, and reading the rows
    // in order yields each pair once, ascending, without sorting.
    let words = n.div_ceil(64);
    let mut found = vec![0u64; n * words];
    let mut push = |a: usize, b: usize| {
        if a != b {
            let (u, v) = (a.min(b), a.max(b));
            found[u * words + v / 64] |= 1 << (v % 64);
        }
    };
    let mut by_participant: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, &p) in participant.iter().enumerate() {
        by_participant.entry(p).or_default().push(k);
    }
    for list in by_participant.values() {
        for (i, &a) in list.iter().enumerate() {
            for &b in &list[i + 1..] {
                push(a, b);
            }
        }
    }
    // One space at a time: tree accesses meet only tree accesses, global
    // ones only global ones.
    type Side = fn(&SetOpening) -> (&Opening, &Opening);
    let spaces: [Side; 2] = [
        |o| (&o.reads, &o.writes),
        |o| (&o.global_reads, &o.global_writes),
    ];
    for space in spaces {
        let mut writers: HashMap<Label, Vec<usize>> = HashMap::new();
        let mut readers: HashMap<Label, Vec<usize>> = HashMap::new();
        // The pairs `Opening::may_meet` does not rule out beyond a shared
        // first label: a wildcard first symbol meets any first symbol, and
        // the empty word only the empty word. (Global reads accept the empty
        // word, so treating it as a wildcard would pair every statement
        // that reads a global with every one that writes one.)
        let mut any_writers = Vec::new(); // writes may begin with any label
        let mut any_readers = Vec::new(); // reads may begin with any label
        let mut first_writers = Vec::new(); // writes have a first symbol
        let mut first_accesses = Vec::new(); // reads or writes have one
        let mut empty_writers = Vec::new(); // writes accept the empty word
        let mut empty_accesses = Vec::new(); // reads or writes accept it
        for (k, o) in openings.iter().enumerate() {
            let (reads, writes) = space(o);
            for &l in &writes.labels {
                writers.entry(l).or_default().push(k);
            }
            for &l in &reads.labels {
                readers.entry(l).or_default().push(k);
            }
            if writes.any {
                any_writers.push(k);
            }
            if reads.any {
                any_readers.push(k);
            }
            if writes.has_first_symbol() {
                first_writers.push(k);
            }
            if writes.has_first_symbol() || reads.has_first_symbol() {
                first_accesses.push(k);
            }
            if writes.empty_word {
                empty_writers.push(k);
            }
            if writes.empty_word || reads.empty_word {
                empty_accesses.push(k);
            }
        }
        for list in writers.values() {
            for (i, &a) in list.iter().enumerate() {
                for &b in &list[i + 1..] {
                    push(a, b);
                }
            }
        }
        for (l, list) in &writers {
            for &b in readers.get(l).into_iter().flatten() {
                for &a in list {
                    push(a, b);
                }
            }
        }
        for (wide, others) in [
            (&any_writers, &first_accesses),
            (&any_readers, &first_writers),
            (&empty_writers, &empty_accesses),
        ] {
            for &a in wide {
                for &b in others {
                    push(a, b);
                }
            }
        }
    }
    let mut pairs = Vec::new();
    for u in 0..n {
        for (w, &bits) in found[u * words..(u + 1) * words].iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                pairs.push((u, w * 64 + bits.trailing_zeros() as usize));
                bits &= bits - 1;
            }
        }
    }
    pairs
}

impl SetOpening {
    fn of(set: &AccessSet) -> SetOpening {
        SetOpening {
            reads: Opening::of(&set.reads),
            writes: Opening::of(&set.writes),
            global_reads: Opening::of(&set.global_reads),
            global_writes: Opening::of(&set.global_writes),
            frame_writes: !set.frame_writes.is_empty(),
        }
    }

    /// Whether [`ConflictTest::conflict_of`] may find a conflict between
    /// the sets (`false` proves it finds none): every pair of automata it
    /// intersects (as `treefuse_analysis::conflict_with` pairs them), and
    /// within one frame a write of a frame variable on either side.
    pub(crate) fn may_conflict(&self, later: &SetOpening, same_frame: bool) -> bool {
        (same_frame && (self.frame_writes || later.frame_writes))
            || self.writes.may_meet(&later.reads)
            || self.reads.may_meet(&later.writes)
            || self.writes.may_meet(&later.writes)
            || self.global_writes.may_meet(&later.global_reads)
            || self.global_reads.may_meet(&later.global_writes)
            || self.global_writes.may_meet(&later.global_writes)
    }
}

/// How the words of an automaton may begin: whether it accepts the empty
/// word, and the first symbols of its other words (an over-approximation
/// on automata that are not trimmed). Two automata whose words cannot
/// begin alike share no word: the test that rules out most pairs of a
/// program of many passes, where each pass writes its own globals and
/// most statements write nothing in the tree, at the cost of one lookup.
#[derive(Clone, Debug, Default)]
struct Opening {
    empty_word: bool,
    any: bool,
    labels: Vec<Label>,
}

impl Opening {
    /// Whether some word of at least one symbol may be accepted.
    fn has_first_symbol(&self) -> bool {
        self.any || !self.labels.is_empty()
    }

    fn of(n: &Nfa) -> Opening {
        let mut opening = Opening::default();
        let mut seen = vec![n.start()];
        let mut i = 0;
        while i < seen.len() {
            let p = seen[i];
            i += 1;
            opening.empty_word |= n.is_accepting(p);
            for &(sym, _) in n.transitions(p) {
                match sym {
                    Symbol::Any => opening.any = true,
                    Symbol::Label(l) => opening.labels.push(l),
                }
            }
            for &q in n.epsilon_transitions(p) {
                if !seen.contains(&q) {
                    seen.push(q);
                }
            }
        }
        opening.labels.sort_unstable();
        opening.labels.dedup();
        opening
    }

    /// Whether some word may begin alike in both (so the automata may
    /// share a word).
    fn may_meet(&self, other: &Opening) -> bool {
        if self.empty_word && other.empty_word {
            return true;
        }
        if (self.any && other.has_first_symbol()) || (other.any && self.has_first_symbol()) {
            return true;
        }
        let (mut i, mut j) = (0, 0);
        while i < self.labels.len() && j < other.labels.len() {
            match self.labels[i].cmp(&other.labels[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

/// Indexed automata by a fingerprint of their contents (see
/// `ConflictTest::by_content`).
type IndexesByContent = HashMap<u64, Vec<(Nfa, Rc<IndexedNfa>)>>;

/// Intersection witnesses by the two indexes' addresses.
type WitnessMemo = HashMap<(usize, usize), Option<Vec<Symbol>>>;

/// Which conflicts on a global are not dependences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commutes {
    /// Every conflict is a dependence.
    Nothing,
    /// Write/write conflicts are not (an idempotent global).
    Writes,
    /// No conflict is (a commutative counter).
    Everything,
}

impl<'a, 'p> ConflictTest<'a, 'p> {
    pub(crate) fn new(program: &Program, analysis: &'a Analysis<'p>) -> ConflictTest<'a, 'p> {
        let idempotent = idempotent_globals(program);
        let counters = commutative_counters(program);
        let globals = (0..program.globals.len())
            .map(|i| GlobalId(i as u32))
            .map(|g| {
                let commutes = if counters.contains(&g) {
                    Commutes::Everything
                } else if idempotent.contains(&g) {
                    Commutes::Writes
                } else {
                    Commutes::Nothing
                };
                let prefix = Nfa::label(analysis.labels().global(g)).with_any_suffix();
                (g, prefix, commutes)
            })
            .collect();
        let global_of_label = (0..program.globals.len())
            .map(|i| (analysis.labels().global(GlobalId(i as u32)), i))
            .collect();
        ConflictTest {
            analysis,
            globals,
            global_of_label,
            memo: RefCell::default(),
            indexed: RefCell::default(),
            by_content: RefCell::default(),
            witnesses: RefCell::default(),
            openings: RefCell::default(),
        }
    }

    /// [`Self::conflict`] for two sets the analysis owns, remembered: the
    /// same pairs of statements meet again in the fused functions of every
    /// traversal sequence their bodies take part in.
    pub(crate) fn conflict_of(
        &self,
        first: &'a AccessSet,
        second: &'a AccessSet,
        same_frame: bool,
    ) -> Option<Conflict> {
        let key = (
            first as *const AccessSet as usize,
            second as *const AccessSet as usize,
            same_frame,
        );
        // The quick test first: it answers most pairs, faster than the memo.
        if !self
            .opening(first)
            .may_conflict(&self.opening(second), same_frame)
        {
            return None;
        }
        if let Some(known) = self.memo.borrow().get(&key) {
            return known.clone();
        }
        let answer = self.conflict_by(first, second, same_frame, &[], |a, b| self.witness_of(a, b));
        self.memo.borrow_mut().insert(key, answer.clone());
        answer
    }

    /// `intersection_witness(a, b)` for automata the analysis owns: most
    /// pairs share no word, which the indexed test shows much faster than
    /// the witness search; only pairs that do meet are searched, and each
    /// pair of distinct contents once.
    fn witness_of(&self, a: &'a Nfa, b: &'a Nfa) -> Option<Vec<Symbol>> {
        let (ia, ib) = (self.indexed(a), self.indexed(b));
        let key = (Rc::as_ptr(&ia) as usize, Rc::as_ptr(&ib) as usize);
        if let Some(known) = self.witnesses.borrow().get(&key) {
            return known.clone();
        }
        // The witness search is deterministic: equal automata, equal word.
        let word = if ia.intersects(&ib) {
            intersection_witness(a, b)
        } else {
            None
        };
        self.witnesses.borrow_mut().insert(key, word.clone());
        word
    }

    /// How the accesses of `set`, owned by the analysis, may begin.
    pub(crate) fn opening(&self, set: &'a AccessSet) -> Rc<SetOpening> {
        self.openings
            .borrow_mut()
            .entry(set as *const AccessSet as usize)
            .or_insert_with(|| Rc::new(SetOpening::of(set)))
            .clone()
    }

    /// The index of `n`, shared by every automaton equal to it.
    fn indexed(&self, n: &'a Nfa) -> Rc<IndexedNfa> {
        let address = n as *const Nfa as usize;
        if let Some(known) = self.indexed.borrow().get(&address) {
            return known.clone();
        }
        let mut by_content = self.by_content.borrow_mut();
        let same = by_content.entry(n.fingerprint()).or_default();
        let index = match same.iter().find(|(m, _)| m == n) {
            Some((_, index)) => index.clone(),
            None => {
                let index = Rc::new(IndexedNfa::new(n));
                same.push((n.clone(), index.clone()));
                index
            }
        };
        self.indexed.borrow_mut().insert(address, index.clone());
        index
    }

    fn commutes(&self, kind: ConflictKind, word: &[Symbol]) -> bool {
        let Some(Symbol::Label(l)) = word.first() else {
            return false;
        };
        let Some(g) = self.analysis.labels().global_of(*l) else {
            return false;
        };
        match self.globals.get(g.index()).map(|x| x.2) {
            Some(Commutes::Everything) => true,
            Some(Commutes::Writes) => kind == ConflictKind::WriteWrite,
            // Writes told apart by value: decided per pair of sets in
            // `conflict_by`.
            _ => {
                kind == ConflictKind::WriteWrite && self.analysis.labels().write_values(g).is_some()
            }
        }
    }

    /// Whether the writes `a` and `b` of global `g` (whose writes are told
    /// apart by value) both only ever set it to one and the same constant:
    /// then their order cannot matter (the global ends with that constant
    /// whichever runs last), as for an idempotent global, but decided for
    /// this pair of statements rather than for the whole program.
    fn same_constant(&self, g: GlobalId, a: &Nfa, b: &Nfa) -> bool {
        let labels = self.analysis.labels();
        let Some(values) = labels.write_values(g) else {
            return false;
        };
        let root = labels.global(g);
        let constants_of = |n: &Nfa| -> Option<Vec<Label>> {
            if n.accepts(&[root, values.other]) {
                return None;
            }
            Some(
                values
                    .constants
                    .iter()
                    .map(|(_, l)| *l)
                    .filter(|l| n.accepts(&[root, *l]))
                    .collect(),
            )
        };
        match (constants_of(a), constants_of(b)) {
            (Some(x), Some(y)) => x.len() == 1 && x == y,
            _ => false,
        }
    }

    /// The first dependence between `first` and `second` (see
    /// `treefuse_analysis::conflict`), conflicts on commuting globals
    /// excepted.
    pub(crate) fn conflict(
        &self,
        first: &AccessSet,
        second: &AccessSet,
        same_frame: bool,
    ) -> Option<Conflict> {
        self.conflict_by(first, second, same_frame, &[], intersection_witness)
    }

    /// [`Self::conflict`] with the accesses of the globals in `exempt`
    /// left out (globals a parallel loop's workers keep to themselves).
    pub(crate) fn conflict_except(
        &self,
        first: &AccessSet,
        second: &AccessSet,
        same_frame: bool,
        exempt: &[GlobalId],
    ) -> Option<Conflict> {
        self.conflict_by(first, second, same_frame, exempt, intersection_witness)
    }

    /// The global a conflict's word begins with, if it is on a global.
    pub(crate) fn conflict_global(&self, c: &Conflict) -> Option<GlobalId> {
        if c.location != Location::Global {
            return None;
        }
        match c.word.first() {
            Some(Symbol::Label(l)) => self.analysis.labels().global_of(*l),
            _ => None,
        }
    }

    /// The globals (in id order) that accesses in both `a` and `b` may
    /// touch: a global access begins with the global's label, so only
    /// globals whose label both automata may begin with (or either may
    /// begin with any label) can be in both. A walk of a program of R
    /// passes meets pairs of statements R times each; testing every global
    /// against each would make the fuser quadratic in the passes.
    fn globals_in_both(
        &self,
        a: &Nfa,
        b: &Nfa,
    ) -> impl Iterator<Item = &(GlobalId, Nfa, Commutes)> + '_ {
        let (oa, ob) = (Opening::of(a), Opening::of(b));
        let mut ids: Vec<usize> = if oa.any || ob.any {
            let may_begin = |o: &Opening, l: Label| o.any || o.labels.binary_search(&l).is_ok();
            (0..self.globals.len())
                .filter(|&i| {
                    let l = self.analysis.labels().global(self.globals[i].0);
                    may_begin(&oa, l) && may_begin(&ob, l)
                })
                .collect()
        } else {
            oa.labels
                .iter()
                .filter(|l| ob.labels.binary_search(l).is_ok())
                .filter_map(|l| self.global_of_label.get(l).copied())
                .collect()
        };
        ids.sort_unstable();
        ids.into_iter().map(|i| &self.globals[i])
    }

    /// [`Self::conflict`] with `witness` for the intersections of the two
    /// sets' automata (see `treefuse_analysis::conflict_with`).
    fn conflict_by<'s>(
        &self,
        first: &'s AccessSet,
        second: &'s AccessSet,
        same_frame: bool,
        exempt: &[GlobalId],
        witness: impl FnMut(&'s Nfa, &'s Nfa) -> Option<Vec<Symbol>>,
    ) -> Option<Conflict> {
        let c = conflict_with(first, second, self.analysis.labels(), same_frame, witness)?;
        let exempted = self
            .conflict_global(&c)
            .is_some_and(|g| exempt.contains(&g));
        if c.location != Location::Global || !(exempted || self.commutes(c.kind, &c.word)) {
            return Some(c);
        }
        // The analysis checks tree accesses first, so there is no tree
        // conflict. Check the globals one by one, leaving out what commutes.
        for (kind, a, b) in global_access_pairs(first, second) {
            for (g, prefix, commutes) in self.globals_in_both(a, b) {
                if exempt.contains(g) {
                    continue;
                }
                match commutes {
                    Commutes::Everything => continue,
                    Commutes::Writes if kind == ConflictKind::WriteWrite => continue,
                    _ => {}
                }
                let mine = Nfa::intersect(a, prefix);
                if let Some(word) = intersection_witness(&mine, b) {
                    if kind == ConflictKind::WriteWrite && self.same_constant(*g, a, b) {
                        continue;
                    }
                    let witness = self.analysis.labels().format(&word);
                    return Some(Conflict {
                        kind,
                        location: Location::Global,
                        word,
                        witness,
                    });
                }
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

/// How the copies of a global that the workers of a parallel loop update
/// (`Parallelism::Parallel::reduced`) combine into the value the
/// sequential run leaves, each worker having started from the value before
/// the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// A counter updated by `+` and `-` (wrapping `i64`): the value before
    /// plus each worker's change.
    Sum,
    /// `||`: true if any copy is.
    Or,
    /// `&&`: true if every copy is.
    And,
    /// `min`: the least copy.
    Min,
    /// `max`: the greatest copy.
    Max,
    /// Writes of one constant (an idempotent flag, or writes the conflict
    /// test let commute because they store the same value): the last copy
    /// in list order that differs from the value before, else that value.
    Last,
}

/// The [`Reduction`] of every global of `program`, by index: the class of
/// its updates if it is a commutative counter, else [`Reduction::Last`]
/// (the only other globals a parallel loop may update are written
/// constants).
pub fn reductions(program: &Program) -> Vec<Reduction> {
    let counters = commutative_counters(program);
    let mut class: Vec<Option<UpdateClass>> = vec![None; program.globals.len()];
    for b in &program.bodies {
        let Some(stmts) = &b.body else { continue };
        walk_assignments(stmts, &mut |place: &Place, value: &Expr| {
            if let PlaceRoot::Global(g) = place.root {
                if counters.contains(&g) {
                    class[g.index()] = update_class(program, g, value);
                }
            }
        });
    }
    class
        .into_iter()
        .map(|c| match c {
            Some(UpdateClass::Sum) => Reduction::Sum,
            Some(UpdateClass::Or) => Reduction::Or,
            Some(UpdateClass::And) => Reduction::And,
            Some(UpdateClass::Min) => Reduction::Min,
            Some(UpdateClass::Max) => Reduction::Max,
            None => Reduction::Last,
        })
        .collect()
}

/// Calls `f` on every assignment of data in `stmts` (nested ones
/// included). Exhaustive on purpose: a new statement form must say here
/// whether it assigns data.
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
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => walk_assignments(body, f),
            // Tree edits of §7 assign no globals (their data initializers
            // are expressions, not assignments).
            StmtKind::Call { .. }
            | StmtKind::Let { .. }
            | StmtKind::Alias { .. }
            | StmtKind::Replace { .. }
            | StmtKind::Move { .. }
            | StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. }
            | StmtKind::Clear { .. }
            | StmtKind::Return(_)
            | StmtKind::Break => {}
        }
    }
}

/// The operator classes of commutative updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UpdateClass {
    /// `+` and `-` on `i64` (wrapping: one commutative group).
    Sum,
    /// `||`
    Or,
    /// `&&`
    And,
    /// `min` on `i64`
    Min,
    /// `max` on `i64`
    Max,
}

/// If `value` is a commutative update of global `g` (`g + e`, `e + g`,
/// `g - e`, `g || e`, `e || g`, `g && e`, `e && g`, `min(g, e)`,
/// `max(e, g)`, ...), its class, provided `e` does not read `g` (and, for
/// `||` and `&&` with `g` first, cannot fail).
fn update_class(program: &Program, g: GlobalId, value: &Expr) -> Option<UpdateClass> {
    let is_g = |e: &Expr| matches!(e.kind, ExprKind::Global(x) if x == g);
    let reads_g = |e: &Expr| {
        let mut found = false;
        walk_expr(e, &mut |x| {
            found |= matches!(x.kind, ExprKind::Global(y) if y == g)
        });
        found
    };
    // (class, the other operand, whether it is evaluated only for some
    // values of `g`)
    let (class, other, conditional) = match &value.kind {
        ExprKind::Binary(op, a, b) => {
            let class = match op {
                BinaryOp::AddInt | BinaryOp::SubInt => UpdateClass::Sum,
                BinaryOp::Or => UpdateClass::Or,
                BinaryOp::And => UpdateClass::And,
                _ => return None,
            };
            let commutative = *op != BinaryOp::SubInt;
            if is_g(a) {
                (
                    class,
                    &**b,
                    matches!(class, UpdateClass::Or | UpdateClass::And),
                )
            } else if is_g(b) && commutative {
                (class, &**a, false)
            } else {
                return None;
            }
        }
        ExprKind::Builtin(f @ (Builtin::MinInt | Builtin::MaxInt), args) if args.len() == 2 => {
            let class = if *f == Builtin::MinInt {
                UpdateClass::Min
            } else {
                UpdateClass::Max
            };
            if is_g(&args[0]) {
                (class, &args[1], false)
            } else if is_g(&args[1]) {
                (class, &args[0], false)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    if reads_g(other) || (conditional && !cannot_fail(program, other)) {
        return None;
    }
    Some(class)
}

/// Whether evaluating `e` can never raise a runtime error (conservative:
/// any form not known to be safe counts as possibly failing).
fn cannot_fail(program: &Program, e: &Expr) -> bool {
    let mut safe = true;
    walk_expr(e, &mut |x| {
        safe &= match &x.kind {
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Member(..)
            | ExprKind::Array(_)
            | ExprKind::Record(..)
            | ExprKind::If(..)
            | ExprKind::Unary(..) => true,
            // Reading through an empty optional child fails (§8.7); `is`
            // and `is none` take an empty last step.
            ExprKind::Field(p, _) => {
                p.steps.iter().all(|s| matches!(s, PathStep::Child(_)))
                    && !program.path_has_optional(p)
            }
            ExprKind::Is(p, _) | ExprKind::IsNone(p) => {
                let n = p.steps.len().saturating_sub(1);
                p.steps.iter().all(|s| matches!(s, PathStep::Child(_)))
                    && p.steps[..n]
                        .iter()
                        .all(|s| !matches!(s, PathStep::Child(f) if program.is_optional(*f)))
            }
            ExprKind::Binary(op, ..) => !op.can_fail(),
            ExprKind::Builtin(f, _) => !f.can_fail(),
            _ => false,
        };
    });
    safe
}

/// Globals that every traversal accesses only through commutative updates
/// of one class (see the module documentation).
fn commutative_counters(program: &Program) -> BTreeSet<GlobalId> {
    let n = program.globals.len();
    let mut class: Vec<Option<UpdateClass>> = vec![None; n];
    let mut bad = vec![false; n];
    let mut updates = vec![0usize; n];
    let mut reads = vec![0usize; n];
    for b in &program.bodies {
        let Some(stmts) = &b.body else { continue };
        walk_assignments(stmts, &mut |place: &Place, value: &Expr| {
            let PlaceRoot::Global(g) = place.root else {
                return;
            };
            let i = g.index();
            match (
                place.projections.is_empty(),
                update_class(program, g, value),
            ) {
                (true, Some(c)) if class[i].is_none_or(|k| k == c) => {
                    class[i] = Some(c);
                    updates[i] += 1;
                }
                _ => bad[i] = true,
            }
        });
        walk_stmt_exprs(stmts, &mut |e: &Expr| {
            if let ExprKind::Global(g) = e.kind {
                reads[g.index()] += 1;
            }
        });
    }
    // Each update reads its global exactly once; any other read is a
    // statement whose behaviour depends on the counter.
    (0..n)
        .filter(|&i| !bad[i] && updates[i] > 0 && reads[i] == updates[i])
        .map(|i| GlobalId(i as u32))
        .collect()
}
