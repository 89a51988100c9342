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
//! Subset construction can blow up exponentially in theory; when the
//! deterministic automaton would be larger than a bound proportional to
//! the input, [`Nfa::minimized`] returns the input
//! [reduced](Nfa::reduced) instead (the same language, just not minimal)
//! and [`Nfa::minimized_at`] returns `None`.

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

/// Acceptance and labelled edges of a state's ε-closure.
type Kernel = (bool, Vec<(Symbol, StateId)>);

/// The subset construction from each of `starts` at once (sets shared
/// between them are built once), and the deterministic state of each
/// start; `None` when it grows past `limit` states.
///
/// A deterministic state is the set of states its words reach *before*
/// ε-closure; each state's closure is computed once (its kernel), and a
/// set's edges are the union of its members' kernels. Two sets with the
/// same closure may become two deterministic states; minimization merges
/// them.
fn determinize(nfa: &Nfa, starts: &[StateId], limit: usize) -> Option<(Vec<DetState>, Vec<u32>)> {
    let n = nfa.num_states();
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
            edges.extend_from_slice(nfa.transitions(p));
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
    let mut edges: Vec<(Symbol, StateId)> = Vec::new();
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
        if members.len() > 1 {
            edges.sort_unstable();
            edges.dedup();
        }
        // `Label` sorts before `Any`: the wildcard edges are the tail.
        let first_any = edges.partition_point(|(sym, _)| matches!(sym, Symbol::Label(_)));
        let any_targets: Vec<StateId> = edges[first_any..].iter().map(|&(_, q)| q).collect();
        let other = intern(any_targets.clone(), &mut sets);
        let mut named = Vec::new();
        let mut i = 0;
        while i < first_any {
            let Symbol::Label(label) = edges[i].0 else {
                unreachable!("labelled edges come first")
            };
            let from = i;
            while i < first_any && edges[i].0 == Symbol::Label(label) {
                i += 1;
            }
            let own = edges[from..i].iter().map(|&(_, q)| q);
            if own.clone().all(|q| any_targets.binary_search(&q).is_ok()) {
                // The wildcard already leads to all of them.
                continue;
            }
            let mut targets: Vec<StateId> = any_targets.iter().copied().chain(own).collect();
            targets.sort_unstable();
            targets.dedup();
            named.push((label, intern(targets, &mut sets)));
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
/// partition that respects acceptance and every transition, numbered in
/// breadth-first order from the start, and the number of classes.
fn coarsest_partition(det: &[DetState]) -> (Vec<u32>, usize) {
    let mut class: Vec<u32> = det.iter().map(|d| u32::from(d.accepting)).collect();
    let mut count = 0;
    loop {
        type Signature = (u32, Option<u32>, Vec<(Label, Option<u32>)>);
        let mut ids: HashMap<Signature, u32> = HashMap::default();
        let of = |t: Option<u32>, class: &[u32]| t.map(|t| class[t as usize]);
        let next: Vec<u32> = det
            .iter()
            .enumerate()
            .map(|(s, d)| {
                let other = of(d.other, &class);
                let named: Vec<(Label, Option<u32>)> = d
                    .named
                    .iter()
                    .map(|&(l, t)| (l, of(t, &class)))
                    .filter(|&(_, t)| t != other)
                    .collect();
                let key = (class[s], other, named);
                let fresh = ids.len() as u32;
                *ids.entry(key).or_insert(fresh)
            })
            .collect();
        let classes = ids.len();
        class = next;
        if classes == count {
            break;
        }
        count = classes;
    }
    (class, count)
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

/// The minimal automata of the languages of `nfa` started at each of
/// `starts`, built by one subset construction and one refinement shared by
/// all of them (an automaton glued from many functions, where most starts
/// reach the same parts, costs about as much as one start); `None` when
/// determinization would exceed `4 × states + 64` states.
pub(crate) fn minimized_from(nfa: &Nfa, starts: &[StateId]) -> Option<Vec<Nfa>> {
    let limit = 4 * nfa.num_states() + 64;
    let (det, start_ids) = determinize(nfa, starts, limit)?;
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

impl Nfa {
    /// The minimal deterministic automaton of the same language, as an
    /// [`Nfa`] (see the module docs for how the open alphabet is kept): at
    /// most one labelled edge per label and one `Any` edge per state, no
    /// ε-edges, every state useful, states numbered breadth-first from the
    /// start, labelled edges sorted by label and the `Any` edge last.
    ///
    /// When determinization would exceed `4 × states + 64` states, the
    /// automaton is returned [reduced](Nfa::reduced) instead.
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
            None => trimmed.reduced(),
        }
    }

    /// The minimized automaton of the language of `self` started at each of
    /// `starts` (what [`Nfa::minimized`] gives for a copy whose start is
    /// moved there), sharing the subset construction and the refinement
    /// between starts: for an automaton glued from many functions, where
    /// most starts reach the same parts, all of them cost about as much as
    /// one. `None` when determinization would exceed `4 × states + 64`
    /// states.
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
