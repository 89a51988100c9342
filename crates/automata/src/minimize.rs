//! [`Nfa::minimized`]: the smallest deterministic automaton of a language,
//! for automata that are built once and intersected or copied many times.
//!
//! Call summaries are the part of the program's call graph a call can
//! reach, with every reached function's statement automata glued in: on a
//! linter of R rules over T node types, a rule's walk reaches all T
//! functions, and its summary has thousands of states — which the union
//! over a static type's concrete subtypes multiplies again. Their
//! languages are simple (every path through the child fields, then a few
//! data fields), and their minimal DFAs have a handful of states: one per
//! "kind of node the path may be at". Minimizing once where a summary is
//! made keeps every later union, prefix, copy and product small.
//!
//! # The open alphabet
//!
//! Labels are an open set and [`Symbol::Any`] matches every label, so the
//! subset construction partitions the alphabet per automaton into the
//! labels its edges name plus one class, *other*, for every label it does
//! not name. A deterministic state has a successor on each named label and
//! one on *other*; the result is written back as an [`Nfa`] with an `Any`
//! edge to the *other* successor and a labelled edge wherever a label's
//! successor differs from it. That keeps the language: a label's successor
//! set always contains the `Any` successors, so its language contains the
//! *other* successor's, and following both edges accepts exactly the
//! label's language.
//!
//! Minimization is Moore's partition refinement on those transition
//! functions. States are numbered breadth-first from the start, with
//! labelled edges in label order, so equal languages give equal automata.
//! [`Nfa::minimized_at`] minimizes one automaton from many starts at once
//! (the summaries of every function of one call-graph automaton), sharing
//! the subset construction and the refinement.
//!
//! Before the subset construction, states with the same future are merged
//! (the quotient by the coarsest bisimulation, cheap partition refinement
//! on the nondeterministic automaton): a glued summary holds many copies of
//! the same few shapes, and each deterministic state is a set of states
//! whose edges the construction gathers, so merging the copies first makes
//! every set smaller. On the fuzzer's slowest program (965 lines, 38 fused
//! functions) this took the access analysis from 25.7 s to 30 ms: a
//! 5,223-state union of summaries has 36 states up to bisimulation.
//!
//! Subset construction can blow up exponentially in theory; when the
//! deterministic automaton would be larger than a bound proportional to
//! the input, in states or in edges gathered, [`Nfa::minimized`] returns
//! the input [reduced](Nfa::reduced) instead (the same language, just not
//! minimal) and [`Nfa::minimized_at`] returns `None`.

use rustc_hash::FxHashMap as HashMap;

use crate::label::{Label, Symbol};
use crate::nfa::{Nfa, StateId};

/// One state of the subset construction: its acceptance, its successor on
/// labels it does not name (`None`: no word continues), and its successors
/// on the labels it names where those differ from `other`.
struct DetState {
    accepting: bool,
    other: Option<u32>,
    named: Vec<(Label, Option<u32>)>,
}

/// An edge of the subset construction packed into one integer: the
/// symbol's index in the automaton's own alphabet (its labels in label
/// order, then [`Symbol::Any`]) in the high half, the target state in the
/// low half. Sorting packed edges sorts by symbol, then target, as sorting
/// `(Symbol, StateId)` pairs would, at the cost of sorting integers — the
/// construction's inner loop is that sort.
type PackedEdge = u64;

/// The automaton's alphabet: its distinct labels in label order; a label's
/// position is its symbol index, and `Any` is one past the last.
struct Alphabet {
    labels: Vec<Label>,
}

impl Alphabet {
    fn of(nfa: &Nfa) -> Self {
        let mut labels: Vec<Label> = (0..nfa.num_states() as StateId)
            .flat_map(|p| nfa.transitions(p))
            .filter_map(|&(sym, _)| match sym {
                Symbol::Label(l) => Some(l),
                Symbol::Any => None,
            })
            .collect();
        labels.sort_unstable();
        labels.dedup();
        Self { labels }
    }

    fn any(&self) -> u64 {
        self.labels.len() as u64
    }

    fn pack(&self, sym: Symbol, target: StateId) -> PackedEdge {
        let index = match sym {
            Symbol::Label(l) => self
                .labels
                .binary_search(&l)
                .expect("a label of the automaton") as u64,
            Symbol::Any => self.any(),
        };
        (index << 32) | u64::from(target)
    }
}

fn symbol_index(edge: PackedEdge) -> u64 {
    edge >> 32
}

fn target(edge: PackedEdge) -> StateId {
    edge as StateId
}

/// Acceptance and (packed, sorted) labelled edges of a state's ε-closure.
type Kernel = (bool, Vec<PackedEdge>);

/// The subset construction from each of `starts` at once (sets shared
/// between them are built once), and the deterministic state of each
/// start; `None` when it grows past `limit` states, or when the edges it
/// gathers (its work: a deterministic state costs the edges of its
/// members' closures) grow past `work_limit`. The second bound matters on
/// automata glued from many functions, whose deterministic states are
/// sets of thousands of states: there a construction stays under the
/// state bound while each state costs a hundred thousand edges.
///
/// A deterministic state is the set of states its words reach *before*
/// ε-closure; each state's closure is computed once (its kernel), and a
/// set's edges are the union of its members' kernels. Two sets with the
/// same closure may become two deterministic states; minimization merges
/// them.
fn determinize(
    nfa: &Nfa,
    starts: &[StateId],
    limit: usize,
    work_limit: usize,
) -> Option<(Vec<DetState>, Vec<u32>)> {
    let n = nfa.num_states();
    let alphabet = Alphabet::of(nfa);
    let mut kernels: Vec<Option<Kernel>> = vec![None; n];
    let mut mark = vec![u32::MAX; n];
    let mut stack = Vec::new();
    let mut kernel_of = |s: StateId, kernels: &mut Vec<Option<Kernel>>| {
        if kernels[s as usize].is_some() {
            return;
        }
        let mut accepting = false;
        let mut edges = Vec::new();
        stack.clear();
        stack.push(s);
        mark[s as usize] = s;
        while let Some(p) = stack.pop() {
            accepting |= nfa.is_accepting(p);
            edges.extend(
                nfa.transitions(p)
                    .iter()
                    .map(|&(sym, q)| alphabet.pack(sym, q)),
            );
            for &q in nfa.epsilon_transitions(p) {
                if mark[q as usize] != s {
                    mark[q as usize] = s;
                    stack.push(q);
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        kernels[s as usize] = Some((accepting, edges));
    };
    let mut ids: HashMap<Vec<StateId>, u32> = HashMap::default();
    let mut sets: Vec<Vec<StateId>> = Vec::new();
    let mut intern = |set: Vec<StateId>, sets: &mut Vec<Vec<StateId>>| -> Option<u32> {
        if set.is_empty() {
            return None;
        }
        if let Some(&id) = ids.get(&set) {
            return Some(id);
        }
        let id = sets.len() as u32;
        ids.insert(set.clone(), id);
        sets.push(set);
        Some(id)
    };
    let start_ids: Vec<u32> = starts
        .iter()
        .map(|&s| intern(vec![s], &mut sets).expect("not empty"))
        .collect();
    let mut out: Vec<DetState> = Vec::new();
    let mut edges: Vec<PackedEdge> = Vec::new();
    let mut work = 0usize;
    while out.len() < sets.len() {
        if sets.len() > limit {
            return None;
        }
        let members = std::mem::take(&mut sets[out.len()]);
        edges.clear();
        let mut accepting = false;
        for &p in &members {
            kernel_of(p, &mut kernels);
            let (acc, es) = kernels[p as usize].as_ref().expect("just computed");
            accepting |= acc;
            edges.extend_from_slice(es);
        }
        work += edges.len();
        if work > work_limit {
            return None;
        }
        if members.len() > 1 {
            edges.sort_unstable();
            edges.dedup();
        }
        // `Any` has the largest symbol index: the wildcard edges are the tail.
        let first_any = edges.partition_point(|&e| symbol_index(e) < alphabet.any());
        let any_targets: Vec<StateId> = edges[first_any..].iter().map(|&e| target(e)).collect();
        let other = intern(any_targets.clone(), &mut sets);
        let mut named = Vec::new();
        let mut i = 0;
        while i < first_any {
            let index = symbol_index(edges[i]);
            let from = i;
            while i < first_any && symbol_index(edges[i]) == index {
                i += 1;
            }
            let own = edges[from..i].iter().map(|&e| target(e));
            if own.clone().all(|q| any_targets.binary_search(&q).is_ok()) {
                // The wildcard already leads to all of them.
                continue;
            }
            let mut targets: Vec<StateId> = any_targets.iter().copied().chain(own).collect();
            targets.sort_unstable();
            targets.dedup();
            named.push((alphabet.labels[index as usize], intern(targets, &mut sets)));
        }
        sets[out.len()] = members;
        out.push(DetState {
            accepting,
            other,
            named,
        });
    }
    Some((out, start_ids))
}

/// Moore's refinement: the class of every state of `det` in the coarsest
/// partition that respects acceptance and every transition, and the
/// number of classes.
fn coarsest_partition(det: &[DetState]) -> (Vec<u32>, usize) {
    let accepting = det.iter().map(|d| u32::from(d.accepting)).collect();
    refine_partition(accepting, |s, class| {
        let of = |t: Option<u32>| t.map(|t| class[t as usize]);
        let other = of(det[s].other);
        let named: Vec<(Label, Option<u32>)> = det[s]
            .named
            .iter()
            .map(|&(l, t)| (l, of(t)))
            .filter(|&(_, t)| t != other)
            .collect();
        (other, named)
    })
}

/// Partition refinement to a fixpoint: starting from `class` (a class
/// number per state), splits classes until every two states of a class
/// have the same `signature` (computed from the current classes), and
/// returns the final classes, numbered in state order of first
/// appearance, and their number.
fn refine_partition<K: std::hash::Hash + Eq>(
    mut class: Vec<u32>,
    mut signature: impl FnMut(usize, &[u32]) -> K,
) -> (Vec<u32>, usize) {
    let mut count = 0;
    loop {
        let mut ids: HashMap<(u32, K), u32> = HashMap::default();
        let next: Vec<u32> = (0..class.len())
            .map(|s| {
                let key = (class[s], signature(s, &class));
                let fresh = ids.len() as u32;
                *ids.entry(key).or_insert(fresh)
            })
            .collect();
        let classes = ids.len();
        class = next;
        if classes == count {
            return (class, count);
        }
        count = classes;
    }
}

/// The minimal automaton of the class `start` of the quotient of `det` by
/// `class`: its reachable classes numbered breadth-first (labelled edges
/// by label, then `other`), so equal languages give equal automata.
fn quotient_from(det: &[DetState], class: &[u32], rep: &[usize], live: &[bool], start: u32) -> Nfa {
    if !live[start as usize] {
        return Nfa::empty();
    }
    // The class's transitions, from a representative, without edges to
    // classes of the empty language and with labelled edges that go where
    // `other` goes dropped.
    let target = |t: Option<u32>| t.map(|t| class[t as usize]).filter(|&c| live[c as usize]);
    let successors = |c: u32| -> (Vec<(Label, u32)>, Option<u32>) {
        let d = &det[rep[c as usize]];
        let other = target(d.other);
        let mut named: Vec<(Label, u32)> = d
            .named
            .iter()
            .filter_map(|&(l, t)| {
                let t = target(t);
                (t != other).then_some((l, t?))
            })
            .collect();
        named.sort_unstable();
        (named, other)
    };
    let mut number: HashMap<u32, StateId> = HashMap::default();
    number.insert(start, 0);
    let mut queue = vec![start];
    let mut out = Nfa {
        start: 0,
        accepting: Vec::new(),
        eps: Vec::new(),
        edges: Vec::new(),
        trimmed: true,
    };
    let mut head = 0;
    while head < queue.len() {
        let c = queue[head];
        head += 1;
        let (named, other) = successors(c);
        let mut edges: Vec<(Symbol, StateId)> = Vec::with_capacity(named.len() + 1);
        let targets = named
            .iter()
            .map(|&(l, t)| (Symbol::Label(l), t))
            .chain(other.map(|o| (Symbol::Any, o)));
        for (sym, t) in targets {
            let next = number.len() as StateId;
            let id = *number.entry(t).or_insert_with(|| {
                queue.push(t);
                next
            });
            edges.push((sym, id));
        }
        out.accepting.push(det[rep[c as usize]].accepting);
        out.eps.push(Vec::new());
        out.edges.push(edges);
    }
    out
}

/// Edges a subset construction may gather whatever the automaton's size
/// (a million: a few milliseconds).
const WORK_FLOOR: usize = 1 << 20;

/// Edges a subset construction may gather per state and transition of its
/// input beyond [`WORK_FLOOR`]. A construction that gathers more is almost
/// always one that fails the state bound too, only seconds later, so giving
/// up early loses little (on the fuzzer's programs, the reports came out
/// the same with and without this bound).
const WORK_PER_ITEM: usize = 64;

/// The minimal automata of the languages of `nfa` started at each of
/// `starts`, built by one subset construction and one refinement shared by
/// all of them (an automaton glued from many functions, where most starts
/// reach the same parts, costs about as much as one start). The subset
/// construction runs on `nfa`'s [bisimulation quotient](bisimulation_quotient);
/// `None` when it would exceed `4 × states + 64` states or gather more
/// than [`WORK_FLOOR`] + [`WORK_PER_ITEM`] × (states + transitions) edges,
/// counted on the quotient.
pub(crate) fn minimized_from(nfa: &Nfa, starts: &[StateId]) -> Option<Vec<Nfa>> {
    let quotient = bisimulation_quotient(nfa);
    let (nfa, starts) = match &quotient {
        Some((smaller, class)) => (smaller, starts.iter().map(|&s| class[s as usize]).collect()),
        None => (nfa, starts.to_vec()),
    };
    let starts = &starts[..];
    let limit = 4 * nfa.num_states() + 64;
    let work_limit = WORK_FLOOR + WORK_PER_ITEM * (nfa.num_states() + nfa.num_transitions());
    let (det, start_ids) = determinize(nfa, starts, limit, work_limit)?;
    let (class, count) = coarsest_partition(&det);
    let mut rep = vec![usize::MAX; count];
    for (s, &c) in class.iter().enumerate() {
        if rep[c as usize] == usize::MAX {
            rep[c as usize] = s;
        }
    }
    // Classes whose language is not empty (an input that is not trimmed
    // has states from which nothing is accepted).
    let mut live: Vec<bool> = rep.iter().map(|&s| det[s].accepting).collect();
    loop {
        let mut changed = false;
        for c in 0..count {
            let d = &det[rep[c]];
            if !live[c]
                && d.named
                    .iter()
                    .map(|&(_, t)| t)
                    .chain([d.other])
                    .flatten()
                    .any(|t| live[class[t as usize] as usize])
            {
                live[c] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Some(
        start_ids
            .iter()
            .map(|&s| quotient_from(&det, &class, &rep, &live, class[s as usize]))
            .collect(),
    )
}

/// The quotient of `nfa` by its coarsest forward bisimulation, ε-edges
/// counted as a symbol of their own: states with the same acceptance whose
/// edges lead, symbol by symbol, to the same classes are merged. Merged
/// states accept the same words, so the quotient has the language of
/// `nfa`; it is computed by Moore-style refinement, each round hashing
/// every state's signature (acceptance, class, the set of (symbol, target
/// class) pairs).
///
/// Automata glued from many functions hold many copies of the same few
/// shapes (each call site embeds its callee's statements), and the subset
/// construction's cost grows with the states a deterministic state
/// gathers; merging the copies first shrinks every such set.
///
/// Returns the quotient and the class (quotient state) of every state, or
/// `None` when no two states merge.
fn bisimulation_quotient(nfa: &Nfa) -> Option<(Nfa, Vec<StateId>)> {
    let n = nfa.num_states();
    // An edge's symbol as a number: ε, then `Any`, then labels.
    let code = |sym: Option<Symbol>| -> u64 {
        match sym {
            None => 0,
            Some(Symbol::Any) => 1,
            Some(Symbol::Label(l)) => u64::from(l.0) + 2,
        }
    };
    let edges_of = |p: usize| {
        nfa.epsilon_transitions(p as StateId)
            .iter()
            .map(|&q| (0u64, q))
            .chain(
                nfa.transitions(p as StateId)
                    .iter()
                    .map(move |&(sym, q)| (code(Some(sym)), q)),
            )
    };
    let accepting = (0..n)
        .map(|p| u32::from(nfa.is_accepting(p as StateId)))
        .collect();
    let (class, count) = refine_partition(accepting, |p, class| {
        let mut signature: Vec<(u64, u32)> =
            edges_of(p).map(|(c, q)| (c, class[q as usize])).collect();
        signature.sort_unstable();
        signature.dedup();
        signature
    });
    if count == n {
        return None;
    }
    let mut out = Nfa {
        start: class[nfa.start() as usize],
        accepting: vec![false; count],
        eps: vec![Vec::new(); count],
        edges: vec![Vec::new(); count],
        trimmed: false,
    };
    let mut done = vec![false; count];
    for p in 0..n {
        let c = class[p] as usize;
        if std::mem::replace(&mut done[c], true) {
            continue;
        }
        out.accepting[c] = nfa.is_accepting(p as StateId);
        let mut eps: Vec<StateId> = nfa
            .epsilon_transitions(p as StateId)
            .iter()
            .map(|&q| class[q as usize])
            .collect();
        eps.sort_unstable();
        eps.dedup();
        let mut edges: Vec<(Symbol, StateId)> = nfa
            .transitions(p as StateId)
            .iter()
            .map(|&(sym, q)| (sym, class[q as usize]))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        out.eps[c] = eps;
        out.edges[c] = edges;
    }
    Some((out, class))
}

impl Nfa {
    /// The minimal deterministic automaton of the same language, as an
    /// [`Nfa`] (see the module docs for how the open alphabet is kept): at
    /// most one labelled edge per label and one `Any` edge per state, no
    /// ε-edges, every state useful, states numbered breadth-first from the
    /// start, labelled edges sorted by label and the `Any` edge last.
    ///
    /// When determinization would be too large (more than `4 × states + 64`
    /// states, or more than `2^20 + 64 × (states + transitions)` edges
    /// gathered, both counted on the automaton with bisimilar states
    /// merged), that automaton is returned [reduced](Nfa::reduced) instead.
    ///
    /// ```
    /// use treefuse_automata::{LabelInterner, Nfa};
    /// let mut names = LabelInterner::new();
    /// let (a, b) = (names.intern("a"), names.intern("b"));
    /// // a* | a*.b | (a|b)*.b, built redundantly
    /// let x = Nfa::label(a).star();
    /// let y = Nfa::label(a).star().concat(&Nfa::label(b));
    /// let z = Nfa::label(a).union(&Nfa::label(b)).star().concat(&Nfa::label(b));
    /// let u = Nfa::union_all([&x, &y, &z]);
    /// let m = u.minimized();
    /// assert!(m.num_states() <= 3);
    /// for w in [&[][..], &[a, a], &[a, b], &[b, b], &[b, a, b]] {
    ///     assert_eq!(u.accepts(w), m.accepts(w));
    /// }
    /// assert!(!m.accepts(&[b, a]));
    /// ```
    pub fn minimized(&self) -> Nfa {
        let trimmed = self.trim();
        if trimmed.num_states() == 1 && trimmed.num_transitions() == 0 {
            // `empty` or `epsilon`: already minimal.
            return trimmed;
        }
        match minimized_from(&trimmed, &[trimmed.start()]) {
            Some(mut one) => one.pop().expect("one start, one automaton"),
            None => match bisimulation_quotient(&trimmed) {
                Some((smaller, _)) => smaller.reduced(),
                None => trimmed.reduced(),
            },
        }
    }

    /// The minimized automaton of the language of `self` started at each of
    /// `starts` (what [`Nfa::minimized`] gives for a copy whose start is
    /// moved there), sharing the subset construction and the refinement
    /// between starts: for an automaton glued from many functions, where
    /// most starts reach the same parts, all of them cost about as much as
    /// one. `None` when determinization would be too large (the bounds of
    /// [`Nfa::minimized`]).
    pub fn minimized_at(&self, starts: &[StateId]) -> Option<Vec<Nfa>> {
        minimized_from(self, starts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::LabelInterner;

    fn words(labels: &[Label], max_len: usize) -> Vec<Vec<Label>> {
        let mut all = vec![vec![]];
        let mut layer = vec![vec![]];
        for _ in 0..max_len {
            let mut next = Vec::new();
            for w in &layer {
                for &l in labels {
                    let mut v: Vec<Label> = w.clone();
                    v.push(l);
                    next.push(v);
                }
            }
            all.extend(next.iter().cloned());
            layer = next;
        }
        all
    }

    #[test]
    fn same_language_with_wildcards_and_unknown_labels() {
        let mut names = LabelInterner::new();
        let a = names.intern("a");
        let b = names.intern("b");
        let c = names.intern("c");
        let unknown = names.intern("never_in_an_edge");
        let cases = [
            Nfa::label(a).with_any_suffix().prefix_closure(),
            Nfa::any().concat(&Nfa::label(b)).union(&Nfa::word(&[a, a])),
            Nfa::label(a)
                .union(&Nfa::label(b))
                .star()
                .concat(&Nfa::label(c)),
            Nfa::any()
                .star()
                .concat(&Nfa::label(a))
                .union(&Nfa::label(c).star()),
            Nfa::empty(),
            Nfa::epsilon(),
            Nfa::universal(),
        ];
        for nfa in &cases {
            let m = nfa.minimized();
            for w in words(&[a, b, c, unknown], 4) {
                assert_eq!(nfa.accepts(&w), m.accepts(&w), "{w:?} on\n{nfa}\n{m}");
            }
            assert_eq!(m, m.minimized(), "minimizing twice changes nothing");
        }
    }

    #[test]
    fn shared_starts_give_each_start_its_minimal_automaton() {
        let mut names = LabelInterner::new();
        let a = names.intern("a");
        let b = names.intern("b");
        let parts = [
            Nfa::label(a).star().concat(&Nfa::label(b)),
            Nfa::any().concat(&Nfa::label(b)).union(&Nfa::word(&[a, a])),
            Nfa::empty(),
            Nfa::label(a).star().concat(&Nfa::label(b)),
        ];
        // One automaton holding every part, plus a state reaching them all.
        let mut g = Nfa::new();
        let starts: Vec<StateId> = parts.iter().map(|p| g.embed(p)).collect();
        for &s in &starts {
            g.add_epsilon(g.start(), s);
        }
        let mut all = starts.clone();
        all.push(g.start());
        let at = g.minimized_at(&all).expect("small");
        for (i, p) in parts.iter().enumerate() {
            assert_eq!(at[i], p.minimized(), "part {i}");
        }
        assert_eq!(at[4], Nfa::union_all(parts.iter()).minimized());
        assert_eq!(at[2], Nfa::empty());
    }

    #[test]
    fn bisimilar_copies_merge_before_the_subset_construction() {
        let mut names = LabelInterner::new();
        let (kids, v, w) = (names.intern("kids"), names.intern("v"), names.intern("w"));
        // A call graph glued from copies: every "call site" embeds its own
        // copy of the same callee and links to it by an ε-edge.
        let callee = Nfa::label(kids)
            .star()
            .concat(&Nfa::label(v).union(&Nfa::label(w)));
        let mut g = Nfa::new();
        for _ in 0..40 {
            let s = g.embed(&callee);
            g.add_epsilon(g.start(), s);
        }
        let (quotient, class) = bisimulation_quotient(&g).expect("copies merge");
        assert!(
            quotient.num_states() < 10,
            "{} states",
            quotient.num_states()
        );
        assert_eq!(class.len(), g.num_states());
        for word in words(&[kids, v, w], 4) {
            assert_eq!(g.accepts(&word), quotient.accepts(&word), "{word:?}");
        }
        assert_eq!(g.minimized(), callee.minimized());
        // Nothing to merge: `None`.
        assert!(bisimulation_quotient(&Nfa::word(&[kids, v])).is_none());
    }

    #[test]
    fn a_blow_up_falls_back_to_the_same_language() {
        let mut names = LabelInterner::new();
        let (a, b) = (names.intern("a"), names.intern("b"));
        // (a|b)*.a.(a|b)^12: 14 states, a minimal automaton of 2^13 states.
        let either = Nfa::label(a).union(&Nfa::label(b));
        let mut nfa = either.star().concat(&Nfa::label(a));
        for _ in 0..12 {
            nfa = nfa.concat(&either);
        }
        let m = nfa.minimized();
        assert!(
            m.num_states() < 100,
            "not determinized: {} states",
            m.num_states()
        );
        for word in words(&[a, b], 14).iter().filter(|w| w.len() >= 12) {
            assert_eq!(nfa.accepts(word), m.accepts(word), "{word:?}");
        }
    }

    #[test]
    fn redundant_copies_collapse() {
        let mut names = LabelInterner::new();
        let kids = names.intern("kids");
        let v = names.intern("v");
        // A walk summary glued from 50 copies of the same function.
        let one = Nfa::label(kids).star().concat(&Nfa::label(v));
        let copies: Vec<Nfa> = (0..50).map(|_| one.clone()).collect();
        let u = Nfa::union_all(copies.iter());
        assert_eq!(u.minimized().num_states(), 2);
    }
}
