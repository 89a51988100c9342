//! The [`Nfa`] type: representation, builder API, constructors and the
//! regular operations.
//!
//! An `Nfa` carries a *trimmed* hint (every state reachable and useful):
//! set by [`Nfa::trim`], [`Nfa::reduced`] and the operations proved to keep
//! it, cleared by every builder method, and not part of equality. [`Nfa::trim`]
//! of a hinted automaton is a copy, and [`Nfa::union_trimmed`], the ε-free
//! union the analysis builds statement and call sets with, writes the
//! union of hinted parts in one pass instead of copying them in and
//! trimming the copy. Both give the same automaton: trimming would drop
//! exactly the parts' start states that no edge enters. [`Nfa::prepend`]
//! puts a path word in front and keeps the hint.
//!
//! [`Nfa::fingerprint`] hashes the structure (equal automata, equal
//! fingerprints) for caches keyed by content.

use crate::label::{Label, Symbol};

/// A state of an [`Nfa`]: a dense index from 0 to `num_states() - 1`.
pub type StateId = u32;

/// A nondeterministic finite automaton over [`Symbol`]s with ε-transitions.
///
/// Representation: one start state, a dense `Vec<bool>` of accepting flags and,
/// per state, a vector of ε-successors and a vector of `(Symbol, successor)`
/// pairs. Keeping ε-edges apart from labelled edges lets the searches close a
/// BFS layer under ε without filtering, and keeps every inner loop free of
/// hashing.
///
/// Every automaton has at least one state (the start state). All operations
/// return new automata and leave their operands untouched; they never
/// minimise implicitly, so call [`Nfa::trim`] or [`Nfa::reduced`] where the
/// size matters.
///
/// `PartialEq` is structural (same states, same edges in the same order), not
/// language equality.
#[derive(Clone, Debug)]
pub struct Nfa {
    pub(crate) start: StateId,
    pub(crate) accepting: Vec<bool>,
    pub(crate) eps: Vec<Vec<StateId>>,
    pub(crate) edges: Vec<Vec<(Symbol, StateId)>>,
    /// Known to be *trimmed*: [`Nfa::trim`] would return an equal automaton
    /// (every state reachable from the start and able to reach an accepting
    /// state). A hint, not part of equality: set only where an operation
    /// proves it (the end of `trim`, the constructors of fixed words, the
    /// operations documented to keep it), cleared by every builder method;
    /// code of this crate that writes the fields directly clears it or keeps
    /// it only with a reason. It lets `trim` return a copy at once and
    /// [`Nfa::union_trimmed`] build its result in one pass.
    pub(crate) trimmed: bool,
}

impl PartialEq for Nfa {
    fn eq(&self, other: &Nfa) -> bool {
        self.start == other.start
            && self.accepting == other.accepting
            && self.eps == other.eps
            && self.edges == other.edges
    }
}

impl Eq for Nfa {}

impl Default for Nfa {
    fn default() -> Self {
        Self::new()
    }
}

impl Nfa {
    // ----------------------------------------------------------------------
    // Builder API
    // ----------------------------------------------------------------------

    /// A fresh automaton with a single, non-accepting start state `0` and no
    /// transitions (so it accepts nothing). Start point of the builder API.
    pub fn new() -> Self {
        Nfa {
            start: 0,
            accepting: vec![false],
            eps: vec![Vec::new()],
            edges: vec![Vec::new()],
            trimmed: false,
        }
    }

    /// Adds a new non-accepting state without transitions and returns it.
    pub fn add_state(&mut self) -> StateId {
        let id = StateId::try_from(self.accepting.len()).expect("more than u32::MAX states");
        self.trimmed = false;
        self.accepting.push(false);
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        id
    }

    /// Adds a transition `from --sym--> to`; `None` is an ε-transition.
    ///
    /// # Panics
    /// If `from` or `to` is not a state of this automaton.
    pub fn add_transition(&mut self, from: StateId, sym: Option<Symbol>, to: StateId) {
        self.check(from);
        self.check(to);
        self.trimmed = false;
        match sym {
            None => self.eps[from as usize].push(to),
            Some(s) => self.edges[from as usize].push((s, to)),
        }
    }

    /// Adds an ε-transition `from --ε--> to`.
    pub fn add_epsilon(&mut self, from: StateId, to: StateId) {
        self.add_transition(from, None, to);
    }

    /// Adds a transition `from --label--> to`.
    pub fn add_label(&mut self, from: StateId, label: Label, to: StateId) {
        self.add_transition(from, Some(Symbol::Label(label)), to);
    }

    /// Adds a wildcard transition `from --*--> to`.
    pub fn add_any(&mut self, from: StateId, to: StateId) {
        self.add_transition(from, Some(Symbol::Any), to);
    }

    /// Marks `state` as accepting (`true`) or not (`false`).
    ///
    /// # Panics
    /// If `state` is not a state of this automaton.
    pub fn set_accepting(&mut self, state: StateId, accepting: bool) {
        self.check(state);
        self.trimmed = false;
        self.accepting[state as usize] = accepting;
    }

    /// Makes `state` the start state.
    ///
    /// # Panics
    /// If `state` is not a state of this automaton.
    pub fn set_start(&mut self, state: StateId) {
        self.check(state);
        self.trimmed = false;
        self.start = state;
    }

    /// Copies all states and transitions of `other` into `self` (renumbered
    /// past the existing states, accepting states stay accepting) and returns
    /// the id that `other`'s start state has in `self`.
    ///
    /// This is how statement automata are attached to call-graph states in
    /// Algorithm 1: `let s = nfa.embed(&stmt); nfa.add_epsilon(fn_state, s);`.
    pub fn embed(&mut self, other: &Nfa) -> StateId {
        let off = self.accepting.len() as StateId;
        StateId::try_from(self.accepting.len() + other.accepting.len())
            .expect("more than u32::MAX states");
        self.trimmed = false;
        self.accepting.extend_from_slice(&other.accepting);
        self.eps.extend(
            other
                .eps
                .iter()
                .map(|v| v.iter().map(|&t| t + off).collect()),
        );
        self.edges.extend(
            other
                .edges
                .iter()
                .map(|v| v.iter().map(|&(s, t)| (s, t + off)).collect()),
        );
        other.start + off
    }

    #[inline]
    fn check(&self, s: StateId) {
        assert!(
            (s as usize) < self.accepting.len(),
            "state {s} out of range (automaton has {} states)",
            self.accepting.len()
        );
    }

    // ----------------------------------------------------------------------
    // Accessors
    // ----------------------------------------------------------------------

    /// The start state.
    pub fn start(&self) -> StateId {
        self.start
    }

    /// Number of states.
    pub fn num_states(&self) -> usize {
        self.accepting.len()
    }

    /// A 64-bit hash of the structure (start, acceptance, every edge in
    /// order): equal automata (`==`) have equal fingerprints. Cheap enough
    /// to tell apart automata before comparing them, for caches keyed by
    /// content.
    pub fn fingerprint(&self) -> u64 {
        // Multiply-rotate mixing (as in FxHash): a few instructions a word.
        let mut h: u64 = 0;
        let mut mix = |x: u64| h = (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        mix(self.start as u64);
        mix(self.accepting.len() as u64);
        for s in 0..self.num_states() {
            mix(self.accepting[s] as u64 | (self.eps[s].len() as u64) << 1);
            for &t in &self.eps[s] {
                mix(t as u64);
            }
            mix(self.edges[s].len() as u64);
            for &(sym, t) in &self.edges[s] {
                mix(match sym {
                    Symbol::Label(l) => l.0 as u64,
                    Symbol::Any => u64::MAX,
                });
                mix(t as u64);
            }
        }
        h
    }

    /// Number of transitions, ε-transitions included.
    pub fn num_transitions(&self) -> usize {
        self.eps.iter().map(Vec::len).sum::<usize>()
            + self.edges.iter().map(Vec::len).sum::<usize>()
    }

    /// Whether `state` is accepting.
    pub fn is_accepting(&self, state: StateId) -> bool {
        self.accepting[state as usize]
    }

    /// All accepting states, in increasing order.
    pub fn accepting_states(&self) -> impl Iterator<Item = StateId> + '_ {
        self.accepting
            .iter()
            .enumerate()
            .filter(|(_, &a)| a)
            .map(|(i, _)| i as StateId)
    }

    /// The ε-successors of `state`.
    pub fn epsilon_transitions(&self, state: StateId) -> &[StateId] {
        &self.eps[state as usize]
    }

    /// The labelled (non-ε) transitions out of `state`.
    pub fn transitions(&self, state: StateId) -> &[(Symbol, StateId)] {
        &self.edges[state as usize]
    }

    // ----------------------------------------------------------------------
    // Constructors
    // ----------------------------------------------------------------------

    /// The automaton accepting no word at all.
    pub fn empty() -> Self {
        Self::new()
    }

    /// The automaton accepting only the empty word ε.
    pub fn epsilon() -> Self {
        let mut n = Self::new();
        n.accepting[0] = true;
        n.trimmed = true; // one accepting state
        n
    }

    /// The automaton accepting exactly the one-label word `label`.
    pub fn label(label: Label) -> Self {
        Self::symbols(&[Symbol::Label(label)])
    }

    /// The automaton accepting every one-label word (`*`).
    pub fn any() -> Self {
        Self::symbols(&[Symbol::Any])
    }

    /// The automaton accepting exactly `word`.
    pub fn word(word: &[Label]) -> Self {
        let mut n = Self::new();
        let mut cur = n.start;
        for &l in word {
            let next = n.add_state();
            n.add_label(cur, l, next);
            cur = next;
        }
        n.accepting[cur as usize] = true;
        n.trimmed = true; // a chain from the start to its accepting end
        n
    }

    /// The automaton accepting the words matching a symbol pattern, e.g.
    /// `[next, content, Any]` accepts `next.content.x` for every label `x`.
    pub fn symbols(word: &[Symbol]) -> Self {
        let mut n = Self::new();
        let mut cur = n.start;
        for &s in word {
            let next = n.add_state();
            n.add_transition(cur, Some(s), next);
            cur = next;
        }
        n.accepting[cur as usize] = true;
        n.trimmed = true; // a chain from the start to its accepting end
        n
    }

    /// The automaton accepting every word (`*` repeated, ε included).
    pub fn universal() -> Self {
        let mut n = Self::epsilon();
        n.add_any(0, 0);
        n.trimmed = true; // one accepting state
        n
    }

    // ----------------------------------------------------------------------
    // Regular operations
    // ----------------------------------------------------------------------

    /// `L(self) ∪ L(other)`.
    pub fn union(&self, other: &Nfa) -> Nfa {
        Self::union_all([self, other])
    }

    /// The union of any number of automata (the empty union is [`Nfa::empty`]).
    ///
    /// Virtual dispatch in access analysis is a union over the overrides.
    pub fn union_all<'a>(parts: impl IntoIterator<Item = &'a Nfa>) -> Nfa {
        let mut n = Self::new();
        for p in parts {
            let s = n.embed(p);
            n.add_epsilon(0, s);
        }
        n
    }

    /// `L(a1) ∪ L(a2) ∪ …` without new ε-edges: a new start state `0` takes
    /// over the edges (labelled and ε) and the acceptance of every part's
    /// start, the parts' states follow in order, and the result is trimmed
    /// (so a part's start state is left out unless an edge enters it). Parts
    /// that accept nothing are skipped; no part accepting anything gives
    /// [`Nfa::empty`]. Meant for ε-free, [`reduced`](Nfa::reduced) parts,
    /// whose union it keeps ε-free, unlike [`Nfa::union_all`].
    ///
    /// When every part is known to be trimmed (it came out of `trim`,
    /// `reduced`, this function or [`Nfa::prepend`], say), the result is
    /// built in one pass without a reachability search; otherwise the parts
    /// are copied in and the copy is trimmed. Both give the same automaton.
    pub fn union_trimmed<'a>(parts: impl IntoIterator<Item = &'a Nfa>) -> Nfa {
        let parts: Vec<&Nfa> = parts
            .into_iter()
            .filter(|p| p.accepting.iter().any(|&a| a))
            .collect();
        if parts.is_empty() {
            return Nfa::empty();
        }
        if parts.iter().all(|p| p.trimmed) {
            Self::union_of_trimmed(&parts)
        } else {
            Self::union_then_trim(&parts)
        }
    }

    /// [`Nfa::union_trimmed`] the straightforward way: copy every part in,
    /// give the new start each part start's edges and acceptance, trim.
    fn union_then_trim(parts: &[&Nfa]) -> Nfa {
        let mut out = Nfa::new();
        for p in parts {
            let s = out.embed(p);
            if p.is_accepting(p.start()) {
                out.set_accepting(0, true);
            }
            let edges: Vec<_> = out.transitions(s).to_vec();
            for (sym, t) in edges {
                out.add_transition(0, Some(sym), t);
            }
            let eps: Vec<_> = out.epsilon_transitions(s).to_vec();
            for t in eps {
                out.add_epsilon(0, t);
            }
        }
        out.trim()
    }

    /// [`Nfa::union_then_trim`] for trimmed parts that accept something,
    /// without the search: in the copy, every state of a part but its start
    /// is still reachable (the first edge of a path to it from the part's
    /// start now also leaves the new start) and still reaches acceptance;
    /// the new start reaches acceptance through any part's; a part's start
    /// stays reachable exactly when some edge of the part enters it. So
    /// trimming drops exactly the part starts that no edge enters, and this
    /// writes the kept states in their order with their edges renumbered.
    fn union_of_trimmed(parts: &[&Nfa]) -> Nfa {
        let entered: Vec<bool> = parts
            .iter()
            .map(|p| {
                p.eps.iter().flatten().any(|&t| t == p.start)
                    || p.edges.iter().flatten().any(|&(_, t)| t == p.start)
            })
            .collect();
        let total = 1 + parts
            .iter()
            .zip(&entered)
            .map(|(p, &e)| p.num_states() - usize::from(!e))
            .sum::<usize>();
        StateId::try_from(total).expect("more than u32::MAX states");
        let mut out = Nfa {
            start: 0,
            accepting: Vec::with_capacity(total),
            eps: Vec::with_capacity(total),
            edges: Vec::with_capacity(total),
            trimmed: true,
        };
        out.accepting.push(false);
        out.eps.push(Vec::new());
        out.edges.push(Vec::new());
        // The new number of state `s` of a part whose states start at `base`
        // (its start, if dropped, has no incoming edges, so `s` is never it).
        let number = |s: StateId, base: u32, start: StateId, keep_start: bool| {
            base + s - u32::from(!keep_start && s > start)
        };
        let mut base = 1u32;
        for (p, &keep_start) in parts.iter().zip(&entered) {
            let start = p.start;
            let at = |s: StateId| number(s, base, start, keep_start);
            out.accepting[0] |= p.accepting[start as usize];
            out.edges[0].extend(p.edges[start as usize].iter().map(|&(sym, t)| (sym, at(t))));
            out.eps[0].extend(p.eps[start as usize].iter().map(|&t| at(t)));
            for s in 0..p.num_states() {
                if s == start as usize && !keep_start {
                    continue;
                }
                out.accepting.push(p.accepting[s]);
                out.eps.push(p.eps[s].iter().map(|&t| at(t)).collect());
                out.edges
                    .push(p.edges[s].iter().map(|&(sym, t)| (sym, at(t))).collect());
            }
            base += p.num_states() as u32 - u32::from(!keep_start);
        }
        out
    }

    /// `word · L(self)`; with `with_prefixes`, every prefix of `word` (ε and
    /// `word` itself included) is accepted too, as a read of a path reads
    /// every prefix of it. No ε-edges are added: a chain of new states,
    /// numbered after `self`'s, leads to `self`'s start (whose incoming
    /// loops it must not disturb, so the whole `word` alone ends in a state
    /// of its own). Trimmed when `self` is known to be trimmed.
    pub fn prepend(&self, word: &[Label], with_prefixes: bool) -> Nfa {
        if !self.accepting.iter().any(|&a| a) {
            return if with_prefixes {
                Nfa::word(word).prefix_closure()
            } else {
                Nfa::empty()
            };
        }
        if word.is_empty() {
            return if with_prefixes {
                Nfa::union_trimmed([self, &Nfa::epsilon()])
            } else {
                self.clone()
            };
        }
        let mut out = self.clone();
        let chain: Vec<StateId> = word.iter().map(|_| out.add_state()).collect();
        let last = word.len() - 1;
        for i in 0..word.len() {
            let to = if i < last { chain[i + 1] } else { self.start };
            out.add_label(chain[i], word[i], to);
            if with_prefixes {
                out.set_accepting(chain[i], true);
            }
        }
        if with_prefixes {
            let end = out.add_state();
            out.set_accepting(end, true);
            out.add_label(chain[last], word[last], end);
        }
        out.set_start(chain[0]);
        // Every new state reaches `self`'s start (or the accepting `end`)
        // and is reached from the new start; `self`'s states keep their
        // paths from its start and to acceptance.
        out.trimmed = self.trimmed;
        out
    }

    /// `L(self) · L(other)`: a word of `self` followed by a word of `other`.
    pub fn concat(&self, other: &Nfa) -> Nfa {
        let mut n = self.clone();
        n.trimmed = false;
        let finals: Vec<StateId> = n.accepting_states().collect();
        let s = n.embed(other);
        for f in finals {
            n.accepting[f as usize] = false;
            n.eps[f as usize].push(s);
        }
        n
    }

    /// `L(self)*`: zero or more words of `self`.
    pub fn star(&self) -> Nfa {
        self.plus().optional()
    }

    /// `L(self)+`: one or more words of `self`.
    pub fn plus(&self) -> Nfa {
        // Looping every accepting state back to the start is sound even when
        // the start state has incoming edges: every segment between two
        // back-edges is an accepting run of `self`.
        let mut n = self.clone();
        n.trimmed = false;
        let start = n.start;
        let finals: Vec<StateId> = n.accepting_states().collect();
        for f in finals {
            n.eps[f as usize].push(start);
        }
        n
    }

    /// `L(self) ∪ {ε}`.
    pub fn optional(&self) -> Nfa {
        // A fresh accepting start state: making the old start accepting would
        // be wrong when some run returns to it.
        let mut n = Self::epsilon();
        let s = n.embed(self);
        n.add_epsilon(0, s);
        n
    }

    /// Every prefix of every word of `self` (ε included when `self` accepts
    /// anything; empty when `self` is empty).
    ///
    /// A read of an access path reads every prefix of it.
    pub fn prefix_closure(&self) -> Nfa {
        let mut n = self.trim();
        if n.is_empty() {
            return n;
        }
        // After trimming, every state lies on an accepting run. (Still
        // trimmed: every state stays reachable and is now accepting.)
        n.accepting.iter_mut().for_each(|a| *a = true);
        n
    }

    /// `L(self) · *^*`: every word that has a word of `self` as a prefix.
    ///
    /// A record or node at the end of an access path covers everything below
    /// it.
    pub fn with_any_suffix(&self) -> Nfa {
        let mut n = self.clone();
        n.trimmed = false;
        let finals: Vec<StateId> = n.accepting_states().collect();
        let sink = n.add_state();
        n.accepting[sink as usize] = true;
        n.add_any(sink, sink);
        for f in finals {
            n.accepting[f as usize] = false;
            n.eps[f as usize].push(sink);
        }
        n
    }

    // ----------------------------------------------------------------------
    // Clean-up
    // ----------------------------------------------------------------------

    /// All successors of state `p`, ε and labelled.
    pub(crate) fn successors(&self, p: usize) -> impl Iterator<Item = StateId> + '_ {
        self.eps[p]
            .iter()
            .copied()
            .chain(self.edges[p].iter().map(|&(_, t)| t))
    }

    /// The ε-closure of every state, as sorted state lists.
    fn epsilon_closures(&self) -> Vec<Vec<StateId>> {
        let n = self.num_states();
        let mut mark = vec![u32::MAX; n];
        let mut stack = Vec::new();
        (0..n)
            .map(|s| {
                let mut out = vec![s as StateId];
                mark[s] = s as u32;
                stack.push(s as StateId);
                while let Some(p) = stack.pop() {
                    for &q in &self.eps[p as usize] {
                        if mark[q as usize] != s as u32 {
                            mark[q as usize] = s as u32;
                            out.push(q);
                            stack.push(q);
                        }
                    }
                }
                out.sort_unstable();
                out
            })
            .collect()
    }

    /// An equivalent automaton without ε-transitions (then trimmed).
    ///
    /// Each state takes over the labelled edges and the acceptance of its
    /// ε-closure; duplicate edges are merged.
    pub fn remove_epsilons(&self) -> Nfa {
        let closures = self.epsilon_closures();
        let mut out = Nfa {
            start: self.start,
            accepting: vec![false; self.num_states()],
            eps: vec![Vec::new(); self.num_states()],
            edges: vec![Vec::new(); self.num_states()],
            trimmed: false,
        };
        for (s, cl) in closures.iter().enumerate() {
            let mut es: Vec<(Symbol, StateId)> = Vec::new();
            for &c in cl {
                out.accepting[s] |= self.accepting[c as usize];
                es.extend_from_slice(&self.edges[c as usize]);
            }
            es.sort_unstable();
            es.dedup();
            out.edges[s] = es;
        }
        out.trim()
    }

    /// Drops every state that is not both reachable from the start and able
    /// to reach an accepting state; the language is unchanged. An automaton
    /// with an empty language becomes [`Nfa::empty`]. States keep their
    /// relative order.
    pub fn trim(&self) -> Nfa {
        if self.trimmed {
            return self.clone();
        }
        let n = self.num_states();
        // Forward reachability.
        let mut fwd = vec![false; n];
        let mut stack = Vec::with_capacity(n);
        stack.push(self.start);
        fwd[self.start as usize] = true;
        let mut reached_edges = 0;
        while let Some(p) = stack.pop() {
            let p = p as usize;
            reached_edges += self.eps[p].len() + self.edges[p].len();
            for q in self.successors(p) {
                if !fwd[q as usize] {
                    fwd[q as usize] = true;
                    stack.push(q);
                }
            }
        }
        // Backward reachability over reachable states only (CSR reverse graph).
        let mut at = vec![0u32; n + 1];
        for p in (0..n).filter(|&p| fwd[p]) {
            for q in self.successors(p) {
                at[q as usize + 1] += 1;
            }
        }
        for i in 0..n {
            at[i + 1] += at[i];
        }
        let mut fill = at.clone();
        let mut preds = vec![0 as StateId; reached_edges];
        for p in (0..n).filter(|&p| fwd[p]) {
            for q in self.successors(p) {
                preds[fill[q as usize] as usize] = p as StateId;
                fill[q as usize] += 1;
            }
        }
        let mut keep = vec![false; n];
        for s in 0..n {
            if fwd[s] && self.accepting[s] {
                keep[s] = true;
                stack.push(s as StateId);
            }
        }
        while let Some(q) = stack.pop() {
            for &p in &preds[at[q as usize] as usize..at[q as usize + 1] as usize] {
                if !keep[p as usize] {
                    keep[p as usize] = true;
                    stack.push(p);
                }
            }
        }
        if !keep[self.start as usize] {
            return Nfa::empty();
        }
        if keep.iter().all(|&k| k) {
            // Nothing to drop: the same states and edges, in the same order.
            let mut same = self.clone();
            same.trimmed = true;
            return same;
        }
        let mut map = vec![u32::MAX; n];
        let mut next = 0;
        for s in 0..n {
            if keep[s] {
                map[s] = next;
                next += 1;
            }
        }
        let mut out = Nfa {
            start: map[self.start as usize],
            accepting: Vec::with_capacity(next as usize),
            eps: Vec::with_capacity(next as usize),
            edges: Vec::with_capacity(next as usize),
            trimmed: true,
        };
        for s in (0..n).filter(|&s| keep[s]) {
            out.accepting.push(self.accepting[s]);
            // Sized up front: `collect` on a filter would grow step by step.
            let mut eps = Vec::with_capacity(self.eps[s].len());
            eps.extend(
                self.eps[s]
                    .iter()
                    .filter(|&&t| keep[t as usize])
                    .map(|&t| map[t as usize]),
            );
            out.eps.push(eps);
            let mut edges = Vec::with_capacity(self.edges[s].len());
            edges.extend(
                self.edges[s]
                    .iter()
                    .filter(|&&(_, t)| keep[t as usize])
                    .map(|&(sym, t)| (sym, map[t as usize])),
            );
            out.edges.push(edges);
        }
        out
    }

    /// [`remove_epsilons`](Nfa::remove_epsilons) followed by
    /// [`trim`](Nfa::trim): usually much smaller than the Thompson-style
    /// results of the regular operations. Worth doing once on an automaton
    /// that will be intersected many times.
    pub fn reduced(&self) -> Nfa {
        self.remove_epsilons()
    }

    // ----------------------------------------------------------------------
    // Membership
    // ----------------------------------------------------------------------

    /// Whether the concrete label word `word` is accepted.
    pub fn accepts(&self, word: &[Label]) -> bool {
        let n = self.num_states();
        let mut in_cur = vec![false; n];
        let mut in_next = vec![false; n];
        let mut cur = Vec::new();
        let mut next = Vec::new();
        self.close_into(self.start, &mut in_cur, &mut cur);
        for &l in word {
            for &p in &cur {
                for &(sym, q) in &self.edges[p as usize] {
                    if sym.matches(l) {
                        self.close_into(q, &mut in_next, &mut next);
                    }
                }
            }
            for &p in &cur {
                in_cur[p as usize] = false;
            }
            cur.clear();
            std::mem::swap(&mut cur, &mut next);
            std::mem::swap(&mut in_cur, &mut in_next);
            if cur.is_empty() {
                return false;
            }
        }
        cur.iter().any(|&p| self.accepting[p as usize])
    }

    /// Adds `s` and its ε-closure to the state set (`mark`, `list`).
    fn close_into(&self, s: StateId, mark: &mut [bool], list: &mut Vec<StateId>) {
        if mark[s as usize] {
            return;
        }
        mark[s as usize] = true;
        let first = list.len();
        list.push(s);
        let mut i = first;
        while i < list.len() {
            let p = list[i];
            i += 1;
            for &q in &self.eps[p as usize] {
                if !mark[q as usize] {
                    mark[q as usize] = true;
                    list.push(q);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Label = Label(0);
    const B: Label = Label(1);
    const C: Label = Label(2);

    #[test]
    fn constructors() {
        assert!(!Nfa::empty().accepts(&[]));
        assert!(Nfa::epsilon().accepts(&[]));
        assert!(!Nfa::epsilon().accepts(&[A]));
        assert!(Nfa::label(A).accepts(&[A]));
        assert!(!Nfa::label(A).accepts(&[B]));
        assert!(!Nfa::label(A).accepts(&[]));
        assert!(Nfa::any().accepts(&[C]));
        assert!(Nfa::any().accepts(&[Label(1000)]));
        assert!(!Nfa::any().accepts(&[A, A]));
        let w = Nfa::word(&[A, B, C]);
        assert!(w.accepts(&[A, B, C]));
        assert!(!w.accepts(&[A, B]));
        assert!(!w.accepts(&[A, B, C, C]));
        assert!(Nfa::word(&[]).accepts(&[]));
        let p = Nfa::symbols(&[Symbol::Label(A), Symbol::Any]);
        assert!(p.accepts(&[A, C]));
        assert!(!p.accepts(&[B, C]));
        assert!(Nfa::universal().accepts(&[]));
        assert!(Nfa::universal().accepts(&[A, Label(77), B]));
    }

    #[test]
    fn builder() {
        let mut n = Nfa::new();
        let s1 = n.add_state();
        let s2 = n.add_state();
        n.add_label(0, A, s1);
        n.add_epsilon(s1, s2);
        n.add_any(s2, s2);
        n.set_accepting(s2, true);
        assert_eq!(n.num_states(), 3);
        assert_eq!(n.num_transitions(), 3);
        assert!(n.accepts(&[A]));
        assert!(n.accepts(&[A, B, C]));
        assert!(!n.accepts(&[B]));
        assert_eq!(n.accepting_states().collect::<Vec<_>>(), vec![s2]);
        assert_eq!(n.epsilon_transitions(s1), &[s2]);
        assert_eq!(n.transitions(0), &[(Symbol::Label(A), s1)]);
        n.set_start(s2);
        assert!(n.accepts(&[]));
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn builder_rejects_bad_state() {
        let mut n = Nfa::new();
        n.add_epsilon(0, 5);
    }

    #[test]
    fn embed_offsets_states() {
        let mut n = Nfa::word(&[A]);
        let s = n.embed(&Nfa::word(&[B, C]));
        assert_eq!(s, 2);
        assert_eq!(n.num_states(), 5);
        n.set_start(s);
        assert!(n.accepts(&[B, C]));
    }

    #[test]
    fn union_concat() {
        let u = Nfa::label(A).union(&Nfa::word(&[B, C]));
        assert!(u.accepts(&[A]));
        assert!(u.accepts(&[B, C]));
        assert!(!u.accepts(&[B]));
        assert!(!Nfa::union_all([]).accepts(&[]));
        let c = Nfa::label(A).concat(&Nfa::label(B).union(&Nfa::epsilon()));
        assert!(c.accepts(&[A]));
        assert!(c.accepts(&[A, B]));
        assert!(!c.accepts(&[B]));
        assert!(Nfa::label(A).concat(&Nfa::empty()).trim().is_empty());
    }

    #[test]
    fn star_plus_optional() {
        let ab = Nfa::word(&[A, B]);
        let s = ab.star();
        assert!(s.accepts(&[]));
        assert!(s.accepts(&[A, B, A, B]));
        assert!(!s.accepts(&[A, B, A]));
        let p = ab.plus();
        assert!(!p.accepts(&[]));
        assert!(p.accepts(&[A, B]));
        assert!(p.accepts(&[A, B, A, B, A, B]));
        let o = ab.optional();
        assert!(o.accepts(&[]));
        assert!(o.accepts(&[A, B]));
        assert!(!o.accepts(&[A, B, A, B]));
        // Star of an automaton whose start state is re-entered.
        let mut loopy = Nfa::new();
        let f = loopy.add_state();
        loopy.add_label(0, A, 0);
        loopy.add_label(0, B, f);
        loopy.set_accepting(f, true);
        let ls = loopy.star();
        assert!(ls.accepts(&[]));
        assert!(!ls.accepts(&[A]));
        assert!(ls.accepts(&[A, A, B, B]));
        assert!(Nfa::empty().star().accepts(&[]));
        assert!(!Nfa::empty().plus().accepts(&[]));
    }

    #[test]
    fn prefix_and_suffix() {
        let w = Nfa::word(&[A, B, C]);
        let p = w.prefix_closure();
        for k in 0..=3 {
            assert!(p.accepts(&[A, B, C][..k]));
        }
        assert!(!p.accepts(&[B]));
        assert!(!p.accepts(&[A, B, C, A]));
        assert!(Nfa::empty().prefix_closure().is_empty());
        let s = Nfa::word(&[A]).with_any_suffix();
        assert!(s.accepts(&[A]));
        assert!(s.accepts(&[A, B, Label(9)]));
        assert!(!s.accepts(&[]));
        assert!(!s.accepts(&[B, A]));
        assert!(Nfa::empty().with_any_suffix().is_empty());
    }

    #[test]
    fn fingerprints_follow_structure() {
        let x = Nfa::label(A).star().concat(&Nfa::word(&[B, C]));
        assert_eq!(x.fingerprint(), x.clone().fingerprint());
        assert_eq!(x.fingerprint(), x.trim().trim().fingerprint());
        let others = [
            Nfa::empty(),
            Nfa::epsilon(),
            Nfa::label(A),
            Nfa::label(B),
            Nfa::any(),
            Nfa::word(&[A, B]),
            Nfa::word(&[B, A]),
            x.reduced(),
        ];
        for (i, p) in others.iter().enumerate() {
            for q in &others[i + 1..] {
                assert_ne!(p.fingerprint(), q.fingerprint(), "{p:?} {q:?}");
            }
        }
    }

    /// `trim` computed in full, ignoring the `trimmed` hint.
    fn trim_in_full(n: &Nfa) -> Nfa {
        let mut m = n.clone();
        m.trimmed = false;
        m.trim()
    }

    /// An automaton from an edge list (`None`: ε, `Some(3)`: wildcard).
    fn from_edges(states: u32, edges: &[(u32, Option<u32>, u32)], accepting: &[u32]) -> Nfa {
        let mut n = Nfa::new();
        for _ in 1..states {
            n.add_state();
        }
        for &(f, sym, t) in edges {
            let sym = sym.map(|l| {
                if l == 3 {
                    Symbol::Any
                } else {
                    Symbol::Label(Label(l))
                }
            });
            n.add_transition(f % states, sym, t % states);
        }
        for &a in accepting {
            n.set_accepting(a % states, true);
        }
        n
    }

    fn raw_nfa() -> impl proptest::strategy::Strategy<Value = Nfa> {
        use proptest::prelude::*;
        (
            1u32..7,
            proptest::collection::vec(
                (0u32..7, proptest::option::weighted(0.8, 0u32..4), 0u32..7),
                0..14,
            ),
            proptest::collection::vec(0u32..7, 0..3),
            0u32..7,
        )
            .prop_map(|(states, edges, accepting, start)| {
                let mut n = from_edges(states, &edges, &accepting);
                n.set_start(start % states);
                n
            })
    }

    /// The automata an access analysis builds from `n`, hints and all.
    fn derived(n: &Nfa) -> Vec<Nfa> {
        let word = [A, B];
        let mut out = vec![
            n.trim(),
            n.reduced(),
            n.prefix_closure(),
            n.with_any_suffix().reduced(),
            n.reduced().prepend(&word, false),
            n.reduced().prepend(&word, true),
            n.reduced().prepend(&[], true),
            n.reduced().prepend(&[C], true),
            n.prepend(&word, true),
            Nfa::intersect(n, &Nfa::universal()),
            Nfa::word(&word),
            Nfa::epsilon(),
            Nfa::universal(),
            Nfa::symbols(&[Symbol::Any, Symbol::Label(C)]),
        ];
        out.push(Nfa::union_trimmed(out.iter()));
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Every automaton marked trimmed is one `trim` leaves unchanged, so
        /// the shortcuts the mark allows give what the full computation
        /// gives.
        #[test]
        fn trimmed_marks_are_true(n in raw_nfa(), m in raw_nfa()) {
            for x in derived(&n).iter().chain(&derived(&m)) {
                if x.trimmed {
                    proptest::prop_assert_eq!(&trim_in_full(x), x);
                }
                proptest::prop_assert_eq!(&x.trim(), &trim_in_full(x));
            }
        }

        /// The one-pass union of trimmed parts is the copy-and-trim union,
        /// state for state and edge for edge.
        #[test]
        fn union_of_trimmed_parts_is_the_trimmed_copy(n in raw_nfa(), m in raw_nfa()) {
            let (dn, dm) = (derived(&n), derived(&m));
            let parts: Vec<&Nfa> = dn.iter().zip(&dm).flat_map(|(x, y)| [x, y]).collect();
            for k in [1, 2, 3, parts.len()] {
                for window in parts.windows(k) {
                    let fast = Nfa::union_trimmed(window.iter().copied());
                    let kept: Vec<&Nfa> = window
                        .iter()
                        .copied()
                        .filter(|p| p.accepting.iter().any(|&a| a))
                        .collect();
                    let slow = if kept.is_empty() { Nfa::empty() } else { Nfa::union_then_trim(&kept) };
                    proptest::prop_assert_eq!(&fast, &slow);
                    let unmarked: Vec<Nfa> = window
                        .iter()
                        .map(|p| { let mut q = (*p).clone(); q.trimmed = false; q })
                        .collect();
                    proptest::prop_assert_eq!(&Nfa::union_trimmed(&unmarked), &slow);
                    for w in [&[][..], &[A], &[B], &[A, B], &[C, A], &[A, B, C], &[B, B, A]] {
                        proptest::prop_assert_eq!(
                            fast.accepts(w),
                            window.iter().any(|p| p.accepts(w)),
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn remove_epsilons_and_trim() {
        let n = Nfa::label(A)
            .union(&Nfa::word(&[B, C]))
            .star()
            .concat(&Nfa::empty().union(&Nfa::label(C)));
        let r = n.remove_epsilons();
        assert!(r.eps.iter().all(Vec::is_empty));
        assert!(r.num_states() <= n.num_states());
        for w in [&[C][..], &[A, C], &[B, C, C], &[A, A, B, C, C]] {
            assert!(n.accepts(w) && r.accepts(w), "{w:?}");
        }
        for w in [&[][..], &[A], &[B], &[C, C, C], &[A, B]] {
            assert!(!n.accepts(w) && !r.accepts(w), "{w:?}");
        }
        // Trim removes unreachable and dead states.
        let mut t = Nfa::word(&[A]);
        let dead = t.add_state();
        t.add_label(0, B, dead);
        let unreachable = t.add_state();
        t.add_label(unreachable, C, 1);
        let tt = t.trim();
        assert_eq!(tt.num_states(), 2);
        assert!(tt.accepts(&[A]));
        assert_eq!(Nfa::word(&[A]).concat(&Nfa::empty()).trim(), Nfa::empty());
    }
}
