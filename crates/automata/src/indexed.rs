//! [`IndexedNfa`]: an automaton laid out for fast intersection emptiness.
//!
//! [`intersection_witness`](crate::intersection_witness) pairs every
//! labelled edge of one state with every labelled edge of the other, since
//! edges are kept in insertion order (which fixes the witness it returns).
//! Most conflict tests of the fuser find no common word, and proving that
//! explores the whole reachable product; on large access automata (states
//! with dozens of call edges on each side) nearly all of those pairs fail to
//! meet. An [`IndexedNfa`] keeps each state's labelled edges sorted by label,
//! with its wildcard edges apart, so the product's successors of a state pair
//! are found by joining two sorted lists: the cost is the number of edge
//! pairs that *do* meet, plus a binary search per label of the smaller side.
//! Building the index sorts a state's edge list only if it is not in label
//! order already.
//!
//! The search also skips every pair of states from which no two accepted
//! words can end with symbols that meet (each state knows the labels, and
//! whether a wildcard, that can end a word accepted from it): a write set
//! that ends in `ty` fields and a read set that never reads one part at
//! the first such pair instead of walking the whole tree shape they share.
//!
//! It answers emptiness only. The fuser asks [`IndexedNfa::intersects`]
//! first and runs the witness search only when the answer is yes, so
//! witnesses, and every report built from them, stay exactly what the search
//! alone returns.

use std::collections::HashSet;

use crate::label::Symbol;
use crate::nfa::{Nfa, StateId};

/// An [`Nfa`] with its edges in compressed per-state lists: ε-successors,
/// labelled edges in label order (sorted by `(label, target)` without
/// duplicates unless already in label order), and the targets of wildcard
/// edges. Built once per automaton, then intersected
/// with others many times.
#[derive(Clone, Debug)]
pub struct IndexedNfa {
    start: StateId,
    accepting: Vec<bool>,
    /// `eps[eps_at[s]..eps_at[s + 1]]` are the ε-successors of `s`.
    eps_at: Vec<u32>,
    eps: Vec<StateId>,
    /// `labelled[labelled_at[s]..labelled_at[s + 1]]`: `(label, target)`,
    /// in label order (a list that was not is sorted and freed of
    /// duplicates).
    labelled_at: Vec<u32>,
    labelled: Vec<(u32, StateId)>,
    /// `any[any_at[s]..any_at[s + 1]]`: targets of wildcard edges.
    any_at: Vec<u32>,
    any: Vec<StateId>,
    /// Per state, the labels that can end an accepted word read from it:
    /// bit `l` of `last[s * words..(s + 1) * words]` for label `l`.
    last: Vec<u64>,
    /// Words of `last` per state.
    words: usize,
    /// Per state, whether a wildcard can end an accepted word read from it.
    last_any: Vec<bool>,
    /// Per state, whether ε-moves alone reach an accepting state.
    ends: Vec<bool>,
}

/// Product spaces up to this many state pairs keep visited pairs in a
/// bitset (8 MiB); larger ones in a hash set.
const BITSET_LIMIT: u64 = 1 << 26;

impl IndexedNfa {
    /// Indexes `nfa` (same language, same states).
    pub fn new(nfa: &Nfa) -> IndexedNfa {
        let n = nfa.num_states();
        let mut out = IndexedNfa {
            start: nfa.start,
            accepting: nfa.accepting.clone(),
            eps_at: Vec::with_capacity(n + 1),
            eps: Vec::with_capacity(nfa.eps.iter().map(Vec::len).sum()),
            labelled_at: Vec::with_capacity(n + 1),
            labelled: Vec::with_capacity(nfa.edges.iter().map(Vec::len).sum()),
            any_at: Vec::with_capacity(n + 1),
            any: Vec::new(),
            last: Vec::new(),
            words: 0,
            last_any: Vec::new(),
            ends: Vec::new(),
        };
        for s in 0..n {
            out.eps_at.push(offset(out.eps.len()));
            out.eps.extend_from_slice(&nfa.eps[s]);
            out.labelled_at.push(offset(out.labelled.len()));
            out.any_at.push(offset(out.any.len()));
            let from = out.labelled.len();
            // The search needs each state's edges grouped by label, in
            // label order; the order of targets within a label does not
            // matter, nor do duplicates (a pair is visited once). Lists
            // that come out of `reduced` or a summary (and the unions of
            // such) are in label order already: sort only the others.
            let mut in_label_order = true;
            let mut previous = 0;
            for &(sym, t) in &nfa.edges[s] {
                match sym {
                    Symbol::Label(l) => {
                        in_label_order &= previous <= l.0;
                        previous = l.0;
                        out.labelled.push((l.0, t));
                    }
                    Symbol::Any => out.any.push(t),
                }
            }
            if !in_label_order {
                let mine = &mut out.labelled[from..];
                mine.sort_unstable();
                let kept = dedup_sorted(mine);
                out.labelled.truncate(from + kept);
            }
        }
        out.eps_at.push(offset(out.eps.len()));
        out.labelled_at.push(offset(out.labelled.len()));
        out.any_at.push(offset(out.any.len()));
        out.last_symbols();
        out
    }

    /// Fills `last` and `last_any`: the symbols of edges into states from
    /// which an accepting state is reachable by ε-moves alone, collected
    /// backwards over every edge (a fixpoint on a worklist).
    fn last_symbols(&mut self) {
        let n = self.accepting.len();
        let max_label = self.labelled.iter().map(|&(l, _)| l as usize + 1).max();
        let words = max_label.unwrap_or(0).div_ceil(64);
        // Predecessors over every kind of edge, ε-predecessors apart
        // (CSR lists).
        let mut pred_at = vec![0u32; n + 1];
        let mut eps_pred_at = vec![0u32; n + 1];
        for &t in &self.eps {
            pred_at[t as usize + 1] += 1;
            eps_pred_at[t as usize + 1] += 1;
        }
        for &(_, t) in &self.labelled {
            pred_at[t as usize + 1] += 1;
        }
        for &t in &self.any {
            pred_at[t as usize + 1] += 1;
        }
        for i in 0..n {
            pred_at[i + 1] += pred_at[i];
            eps_pred_at[i + 1] += eps_pred_at[i];
        }
        let mut fill = pred_at.clone();
        let mut eps_fill = eps_pred_at.clone();
        let mut preds = vec![0 as StateId; pred_at[n] as usize];
        let mut eps_preds = vec![0 as StateId; eps_pred_at[n] as usize];
        for s in 0..n as StateId {
            let mut add = |t: StateId| {
                preds[fill[t as usize] as usize] = s;
                fill[t as usize] += 1;
            };
            for &t in self.eps_of(s) {
                add(t);
                eps_preds[eps_fill[t as usize] as usize] = s;
                eps_fill[t as usize] += 1;
            }
            for &(_, t) in self.labelled_of(s) {
                add(t);
            }
            for &t in self.any_of(s) {
                add(t);
            }
        }
        // States that accept after ε-moves only.
        let mut ends = self.accepting.clone();
        let mut work: Vec<StateId> = (0..n as StateId).filter(|&s| ends[s as usize]).collect();
        while let Some(t) = work.pop() {
            let t = t as usize;
            for &s in &eps_preds[eps_pred_at[t] as usize..eps_pred_at[t + 1] as usize] {
                if !ends[s as usize] {
                    ends[s as usize] = true;
                    work.push(s);
                }
            }
        }
        let mut last = vec![0u64; n * words];
        let mut last_any = vec![false; n];
        for s in 0..n {
            let (lo, hi) = (
                self.labelled_at[s] as usize,
                self.labelled_at[s + 1] as usize,
            );
            for &(l, t) in &self.labelled[lo..hi] {
                if ends[t as usize] {
                    last[s * words + l as usize / 64] |= 1 << (l % 64);
                }
            }
            let (lo, hi) = (self.any_at[s] as usize, self.any_at[s + 1] as usize);
            last_any[s] = self.any[lo..hi].iter().any(|&t| ends[t as usize]);
        }
        // What a successor can end with, its predecessors can too.
        let mut queued = vec![true; n];
        work.clear();
        // Successors mostly have larger numbers: start from the last state.
        work.extend(0..n as StateId);
        while let Some(t) = work.pop() {
            let t = t as usize;
            queued[t] = false;
            for &s in &preds[pred_at[t] as usize..pred_at[t + 1] as usize] {
                let s = s as usize;
                if s == t {
                    continue;
                }
                let mut changed = last_any[t] && !last_any[s];
                last_any[s] |= last_any[t];
                for w in 0..words {
                    let (x, y) = (last[t * words + w], last[s * words + w]);
                    if x & !y != 0 {
                        last[s * words + w] = x | y;
                        changed = true;
                    }
                }
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push(s as StateId);
                }
            }
        }
        self.words = words;
        self.last = last;
        self.last_any = last_any;
        self.ends = ends;
    }

    fn last_of(&self, s: StateId) -> &[u64] {
        let s = s as usize;
        &self.last[s * self.words..(s + 1) * self.words]
    }

    /// Whether the pair `(p, q)` of states of `a` and `b` may lead to a
    /// pair of accepting states: both reach one by ε-moves, or words read
    /// from `p` and from `q` can end with symbols that meet (necessary for
    /// a common nonempty word to acceptance).
    fn may_accept_together(a: &IndexedNfa, p: StateId, b: &IndexedNfa, q: StateId) -> bool {
        if a.ends[p as usize] && b.ends[q as usize] {
            return true;
        }
        let (la, lb) = (a.last_of(p), b.last_of(q));
        let nonempty = |l: &[u64]| l.iter().any(|&w| w != 0);
        let (aa, ab) = (a.last_any[p as usize], b.last_any[q as usize]);
        (aa && (ab || nonempty(lb)))
            || (ab && nonempty(la))
            || la.iter().zip(lb).any(|(x, y)| x & y != 0)
    }

    fn eps_of(&self, s: StateId) -> &[StateId] {
        let s = s as usize;
        &self.eps[self.eps_at[s] as usize..self.eps_at[s + 1] as usize]
    }

    fn labelled_of(&self, s: StateId) -> &[(u32, StateId)] {
        let s = s as usize;
        &self.labelled[self.labelled_at[s] as usize..self.labelled_at[s + 1] as usize]
    }

    fn any_of(&self, s: StateId) -> &[StateId] {
        let s = s as usize;
        &self.any[self.any_at[s] as usize..self.any_at[s + 1] as usize]
    }

    /// Whether some word is accepted by both `self` and `other`:
    /// `intersection_witness(a, b).is_some()` for the automata these were
    /// built from, found by a depth-first search of the product that stops
    /// at the first pair of accepting states.
    pub fn intersects(&self, other: &IndexedNfa) -> bool {
        let mut search = Search {
            a: self,
            b: other,
            nb: other.accepting.len() as u64,
            seen: Seen::new(self.accepting.len() as u64 * other.accepting.len() as u64),
            stack: Vec::new(),
        };
        if search.reach(self.start, other.start) {
            return true;
        }
        while let Some((p, q)) = search.stack.pop() {
            if search.successors(p, q) {
                return true;
            }
        }
        false
    }
}

/// A position in an edge list as `u32`.
fn offset(len: usize) -> u32 {
    u32::try_from(len).expect("more than u32::MAX edges")
}

/// Removes adjacent duplicates from the sorted `v` in place and returns how
/// many distinct elements lead it.
fn dedup_sorted<T: PartialEq + Copy>(v: &mut [T]) -> usize {
    let mut kept = 0;
    for i in 0..v.len() {
        if kept == 0 || v[kept - 1] != v[i] {
            v[kept] = v[i];
            kept += 1;
        }
    }
    kept
}

/// Visited state pairs.
enum Seen {
    Bits(Vec<u64>),
    Hashed(HashSet<u64>),
}

impl Seen {
    fn new(size: u64) -> Seen {
        if size <= BITSET_LIMIT {
            Seen::Bits(vec![0; size.div_ceil(64) as usize])
        } else {
            Seen::Hashed(HashSet::new())
        }
    }

    /// Marks `n` visited; whether it was not before.
    #[inline]
    fn insert(&mut self, n: u64) -> bool {
        match self {
            Seen::Bits(bits) => {
                let (word, bit) = ((n / 64) as usize, 1u64 << (n % 64));
                let fresh = bits[word] & bit == 0;
                bits[word] |= bit;
                fresh
            }
            Seen::Hashed(set) => set.insert(n),
        }
    }
}

struct Search<'x> {
    a: &'x IndexedNfa,
    b: &'x IndexedNfa,
    nb: u64,
    seen: Seen,
    stack: Vec<(StateId, StateId)>,
}

impl Search<'_> {
    /// Reaches the pair `(p, q)`: whether both accept; otherwise, if it is
    /// new and words from it can still end alike, it is queued.
    #[inline]
    fn reach(&mut self, p: StateId, q: StateId) -> bool {
        if self.seen.insert(p as u64 * self.nb + q as u64) {
            if self.a.accepting[p as usize] && self.b.accepting[q as usize] {
                return true;
            }
            // A pair whose words cannot end alike leads to no accepting
            // pair: not worth exploring.
            if IndexedNfa::may_accept_together(self.a, p, self.b, q) {
                self.stack.push((p, q));
            }
        }
        false
    }

    /// Reaches every successor of `(p, q)` in the product; whether one of
    /// them accepts.
    fn successors(&mut self, p: StateId, q: StateId) -> bool {
        let (a, b) = (self.a, self.b);
        for &p2 in a.eps_of(p) {
            if self.reach(p2, q) {
                return true;
            }
        }
        for &q2 in b.eps_of(q) {
            if self.reach(p, q2) {
                return true;
            }
        }
        let (la, lb) = (a.labelled_of(p), b.labelled_of(q));
        let (wa, wb) = (a.any_of(p), b.any_of(q));
        // A wildcard meets every symbol.
        for &p2 in wa {
            for q2 in lb.iter().map(|&(_, t)| t).chain(wb.iter().copied()) {
                if self.reach(p2, q2) {
                    return true;
                }
            }
        }
        for &q2 in wb {
            for &(_, p2) in la {
                if self.reach(p2, q2) {
                    return true;
                }
            }
        }
        // Equal labels: walk the label runs of the shorter list and find
        // each in the longer one (both sorted).
        let swapped = la.len() > lb.len();
        let (short, long) = if swapped { (lb, la) } else { (la, lb) };
        let mut rest = long;
        let mut i = 0;
        while i < short.len() && !rest.is_empty() {
            let label = short[i].0;
            let run = short[i..].partition_point(|&(l, _)| l == label);
            rest = &rest[rest.partition_point(|&(l, _)| l < label)..];
            let other = rest.partition_point(|&(l, _)| l == label);
            for &(_, s2) in &short[i..i + run] {
                for &(_, l2) in &rest[..other] {
                    let (p2, q2) = if swapped { (l2, s2) } else { (s2, l2) };
                    if self.reach(p2, q2) {
                        return true;
                    }
                }
            }
            rest = &rest[other..];
            i += run;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;
    use crate::search::intersection_witness;

    const A: Label = Label(0);
    const B: Label = Label(1);
    const C: Label = Label(2);

    fn agree(x: &Nfa, y: &Nfa) {
        let expected = intersection_witness(x, y).is_some();
        let (ix, iy) = (IndexedNfa::new(x), IndexedNfa::new(y));
        assert_eq!(ix.intersects(&iy), expected, "{x:?} {y:?}");
        assert_eq!(iy.intersects(&ix), expected, "{y:?} {x:?}");
    }

    #[test]
    fn agrees_with_the_witness_search_on_small_cases() {
        let samples = [
            Nfa::empty(),
            Nfa::epsilon(),
            Nfa::label(A),
            Nfa::any(),
            Nfa::universal(),
            Nfa::word(&[A, B]).with_any_suffix(),
            Nfa::symbols(&[Symbol::Any, Symbol::Label(B), Symbol::Label(C)]),
            Nfa::label(A).star().concat(&Nfa::label(B)),
            Nfa::word(&[A, A, B]).prefix_closure(),
            Nfa::label(C).plus().union(&Nfa::word(&[B, A])),
        ];
        for x in &samples {
            for y in &samples {
                agree(x, y);
                agree(&x.reduced(), y);
                agree(&x.reduced(), &y.reduced());
            }
        }
    }

    #[test]
    fn duplicate_edges_and_runs_of_one_label() {
        let mut x = Nfa::new();
        let (s1, s2, s3) = (x.add_state(), x.add_state(), x.add_state());
        for t in [s1, s2, s1, s3] {
            x.add_label(0, B, t);
        }
        x.add_label(0, A, s1);
        x.add_label(s3, C, s3);
        x.set_accepting(s3, true);
        let y = Nfa::word(&[B, C, C]);
        agree(&x, &y);
        agree(&x, &Nfa::word(&[B, A]));
        let idx = IndexedNfa::new(&x);
        assert_eq!(idx.labelled_of(0), &[(0, s1), (1, s1), (1, s2), (1, s3)]);
    }

    /// Labels far apart, so `last` takes several words per state; random
    /// automata (a fixed-seed generator) with ε-edges, wildcards, unsorted
    /// and duplicate edges.
    #[test]
    fn agrees_with_the_witness_search_on_labels_beyond_one_word() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as u32
        };
        let labels = [0, 63, 64, 130, 200];
        let automata: Vec<Nfa> = (0..60)
            .map(|_| {
                let mut x = Nfa::new();
                let states = 1 + next(6);
                for _ in 1..states {
                    x.add_state();
                }
                for _ in 0..next(12) {
                    let (f, t) = (next(states as u64), next(states as u64));
                    match next(7) {
                        0 => x.add_epsilon(f, t),
                        1 => x.add_any(f, t),
                        _ => x.add_label(f, Label(labels[next(5) as usize]), t),
                    }
                }
                for _ in 0..1 + next(2) {
                    x.set_accepting(next(states as u64), true);
                }
                x
            })
            .collect();
        for x in &automata {
            for y in &automata {
                agree(x, y);
            }
            agree(x, &x.reduced());
        }
    }

    #[test]
    fn large_products_use_a_hash_set() {
        let big: Vec<Label> = (0..9000).map(|i| Label(i % 3)).collect();
        let x = Nfa::word(&big);
        assert!(x.num_states() as u64 * x.num_states() as u64 > BITSET_LIMIT);
        agree(&x, &x);
        let mut other = big.clone();
        other[8999] = Label(7);
        agree(&x, &Nfa::word(&other));
    }
}
