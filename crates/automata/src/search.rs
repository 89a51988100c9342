//! Emptiness, shortest witnesses and intersection.
//!
//! All searches share one breadth-first search, [`shortest_word`], over an
//! implicit graph (a single automaton, or the product of two built on the
//! fly). The BFS runs in *layers by word length*: a layer is first closed
//! under ε-moves, and only then are its labelled successors collected into the
//! next layer. So the first accepting node discovered is reached by a word of
//! minimum length, with ε-moves costing nothing, and the witness read off the
//! parent pointers is a shortest accepted word.
//!
//! Visited nodes are kept in a dense array (a hash map only for very large
//! products). The array is kept per thread between searches, and after a
//! search only the entries it set are cleared: most searches stop after a
//! few nodes of a large product, so allocating and zeroing the whole array
//! each time would cost more than the search.

use std::collections::HashMap;

use crate::label::Symbol;
use crate::nfa::{Nfa, StateId};

/// Node of an implicit search graph, encoded as `u64` (a state, or a pair of
/// states `p * |B| + q`).
type Node = u64;

/// A graph the BFS can walk: start node, acceptance and successors.
trait SearchGraph {
    /// Number of nodes (an upper bound on the index space).
    fn size(&self) -> u64;
    fn start(&self) -> Node;
    fn accepting(&self, n: Node) -> bool;
    /// Appends the ε-successors of `n` to `out`.
    fn eps_successors(&self, n: Node, out: &mut Vec<Node>);
    /// Appends the labelled successors of `n` to `out`.
    fn sym_successors(&self, n: Node, out: &mut Vec<(Symbol, Node)>);
}

impl SearchGraph for Nfa {
    fn size(&self) -> u64 {
        self.num_states() as u64
    }
    fn start(&self) -> Node {
        self.start as Node
    }
    fn accepting(&self, n: Node) -> bool {
        self.accepting[n as usize]
    }
    fn eps_successors(&self, n: Node, out: &mut Vec<Node>) {
        out.extend(self.eps[n as usize].iter().map(|&t| t as Node));
    }
    fn sym_successors(&self, n: Node, out: &mut Vec<(Symbol, Node)>) {
        out.extend(self.edges[n as usize].iter().map(|&(s, t)| (s, t as Node)));
    }
}

/// The product of two automata, explored lazily.
///
/// An ε-move moves one side and leaves the other in place; a labelled move
/// moves both sides on symbols whose [`Symbol::meet`] is non-empty.
struct Product<'a> {
    a: &'a Nfa,
    b: &'a Nfa,
    nb: u64,
}

impl Product<'_> {
    #[inline]
    fn split(&self, n: Node) -> (usize, usize) {
        ((n / self.nb) as usize, (n % self.nb) as usize)
    }
    #[inline]
    fn join(&self, p: StateId, q: StateId) -> Node {
        p as u64 * self.nb + q as u64
    }
}

impl SearchGraph for Product<'_> {
    fn size(&self) -> u64 {
        self.a.num_states() as u64 * self.nb
    }
    fn start(&self) -> Node {
        self.join(self.a.start, self.b.start)
    }
    fn accepting(&self, n: Node) -> bool {
        let (p, q) = self.split(n);
        self.a.accepting[p] && self.b.accepting[q]
    }
    fn eps_successors(&self, n: Node, out: &mut Vec<Node>) {
        let (p, q) = self.split(n);
        for &p2 in &self.a.eps[p] {
            out.push(self.join(p2, q as StateId));
        }
        for &q2 in &self.b.eps[q] {
            out.push(self.join(p as StateId, q2));
        }
    }
    fn sym_successors(&self, n: Node, out: &mut Vec<(Symbol, Node)>) {
        let (p, q) = self.split(n);
        let eb = &self.b.edges[q];
        if eb.is_empty() {
            return;
        }
        for &(sa, p2) in &self.a.edges[p] {
            for &(sb, q2) in eb {
                if let Some(s) = sa.meet(sb) {
                    out.push((s, self.join(p2, q2)));
                }
            }
        }
    }
}

/// Node → search-tree index. Dense when the index space is small enough (the
/// common case: tens to hundreds of states per side), hashed otherwise.
enum VisitMap {
    Dense(Vec<u32>),
    Sparse(HashMap<Node, u32>),
}

/// Largest index space searched with a dense visit array (16 MiB of `u32`).
const DENSE_LIMIT: u64 = 1 << 22;

impl VisitMap {
    fn new(size: u64) -> Self {
        if size <= DENSE_LIMIT {
            // Stores `id + 1`, so that 0 means unvisited and the array comes
            // from a zeroed allocation.
            VisitMap::Dense(vec![0; size as usize])
        } else {
            VisitMap::Sparse(HashMap::new())
        }
    }
    #[inline]
    fn get(&self, n: Node) -> Option<u32> {
        match self {
            VisitMap::Dense(v) => v[n as usize].checked_sub(1),
            VisitMap::Sparse(m) => m.get(&n).copied(),
        }
    }
    #[inline]
    fn insert(&mut self, n: Node, id: u32) {
        match self {
            VisitMap::Dense(v) => v[n as usize] = id + 1,
            VisitMap::Sparse(m) => {
                m.insert(n, id);
            }
        }
    }
}

/// One discovered node: the node, its BFS parent (index) and the symbol of
/// the edge from the parent (`None` for ε or for the root).
struct Discovered {
    node: Node,
    parent: u32,
    sym: Option<Symbol>,
}

/// Largest dense visit array kept between searches (4 MiB of `u32`).
const KEPT_LIMIT: u64 = 1 << 20;

thread_local! {
    /// An all-zero dense visit array reused by [`shortest_word`]: a
    /// conflict test usually explores a handful of nodes of a product of
    /// hundreds of states per side, so allocating and zeroing the whole
    /// index space per search cost more than the search (the fuser runs
    /// thousands of them). After a search only the entries it set are
    /// cleared.
    static KEPT: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Layered BFS for a shortest accepted word of `g` (see the module docs).
fn shortest_word<G: SearchGraph>(g: &G) -> Option<Vec<Symbol>> {
    let size = g.size();
    if size > KEPT_LIMIT {
        return shortest_word_with(g, &mut VisitMap::new(size), &mut Vec::new());
    }
    let mut dense = KEPT.with(|k| std::mem::take(&mut *k.borrow_mut()));
    if dense.len() < size as usize {
        dense.resize(size as usize, 0);
    }
    let mut visit = VisitMap::Dense(dense);
    let mut found = Vec::new();
    let word = shortest_word_with(g, &mut visit, &mut found);
    if let VisitMap::Dense(mut dense) = visit {
        for d in &found {
            dense[d.node as usize] = 0;
        }
        KEPT.with(|k| *k.borrow_mut() = dense);
    }
    word
}

/// [`shortest_word`] with an empty visit map and an empty list of
/// discovered nodes, which it leaves holding every node it visited.
fn shortest_word_with<G: SearchGraph>(
    g: &G,
    visit: &mut VisitMap,
    found: &mut Vec<Discovered>,
) -> Option<Vec<Symbol>> {
    let mut layer: Vec<u32> = Vec::new();
    let mut eps_buf: Vec<Node> = Vec::new();
    let mut sym_buf: Vec<(Symbol, Node)> = Vec::new();
    let mut next: Vec<u32> = Vec::new();

    let start = g.start();
    found.push(Discovered {
        node: start,
        parent: u32::MAX,
        sym: None,
    });
    visit.insert(start, 0);
    if g.accepting(start) {
        return Some(Vec::new());
    }
    layer.push(0);

    loop {
        // Close the layer under ε: nodes added here have the same distance.
        let mut i = 0;
        while i < layer.len() {
            let id = layer[i];
            i += 1;
            eps_buf.clear();
            g.eps_successors(found[id as usize].node, &mut eps_buf);
            for &m in &eps_buf {
                if visit.get(m).is_none() {
                    let mid = found.len() as u32;
                    found.push(Discovered {
                        node: m,
                        parent: id,
                        sym: None,
                    });
                    visit.insert(m, mid);
                    if g.accepting(m) {
                        return Some(read_word(found, mid));
                    }
                    layer.push(mid);
                }
            }
        }
        // Labelled successors form the next layer. The current layer is
        // already ε-closed, so a node first seen here is at distance + 1.
        next.clear();
        for &id in &layer {
            sym_buf.clear();
            g.sym_successors(found[id as usize].node, &mut sym_buf);
            for &(s, m) in &sym_buf {
                if visit.get(m).is_none() {
                    let mid = found.len() as u32;
                    found.push(Discovered {
                        node: m,
                        parent: id,
                        sym: Some(s),
                    });
                    visit.insert(m, mid);
                    if g.accepting(m) {
                        return Some(read_word(found, mid));
                    }
                    next.push(mid);
                }
            }
        }
        std::mem::swap(&mut layer, &mut next);
        if layer.is_empty() {
            return None;
        }
    }
}

/// The word spelled by the parent chain ending at `id`.
fn read_word(found: &[Discovered], mut id: u32) -> Vec<Symbol> {
    let mut word = Vec::new();
    while id != u32::MAX {
        let d = &found[id as usize];
        if let Some(s) = d.sym {
            word.push(s);
        }
        id = d.parent;
    }
    word.reverse();
    word
}

impl Nfa {
    /// Whether the automaton accepts no word at all.
    pub fn is_empty(&self) -> bool {
        // Plain reachability: cheaper than the witness search.
        let mut seen = vec![false; self.num_states()];
        let mut stack = vec![self.start];
        seen[self.start as usize] = true;
        while let Some(p) = stack.pop() {
            if self.accepting[p as usize] {
                return false;
            }
            for q in self.successors(p as usize) {
                if !seen[q as usize] {
                    seen[q as usize] = true;
                    stack.push(q);
                }
            }
        }
        true
    }

    /// A shortest accepted word, or `None` if the language is empty.
    ///
    /// Wildcard edges appear as [`Symbol::Any`] in the word: every
    /// instantiation of them with concrete labels is accepted. Among words of
    /// equal length the result is deterministic (it follows transition
    /// insertion order) but otherwise unspecified.
    pub fn shortest_witness(&self) -> Option<Vec<Symbol>> {
        shortest_word(self)
    }

    /// The product automaton: accepts exactly the words both `a` and `b`
    /// accept. Only reachable product states are built, and the result is
    /// trimmed.
    ///
    /// Edges combine by [`Symbol::meet`] (`Label × Label` when equal,
    /// `Label × Any → Label`, `Any × Any → Any`); an ε-edge on either side
    /// moves that side alone.
    ///
    /// To only test for a common word, [`intersection_witness`] is faster.
    pub fn intersect(a: &Nfa, b: &Nfa) -> Nfa {
        let g = Product {
            a,
            b,
            nb: b.num_states() as u64,
        };
        let mut visit = VisitMap::new(g.size());
        let mut nodes: Vec<Node> = vec![g.start()];
        visit.insert(g.start(), 0);
        let mut out = Nfa::new();
        out.accepting[0] = g.accepting(g.start());
        let mut eps_buf = Vec::new();
        let mut sym_buf = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            let from = i as StateId;
            i += 1;
            let mut intern = |m: Node, out: &mut Nfa| match visit.get(m) {
                Some(id) => id,
                None => {
                    let id = out.add_state();
                    out.accepting[id as usize] = g.accepting(m);
                    visit.insert(m, id);
                    nodes.push(m);
                    id
                }
            };
            eps_buf.clear();
            g.eps_successors(n, &mut eps_buf);
            for &m in &eps_buf {
                let to = intern(m, &mut out);
                out.eps[from as usize].push(to);
            }
            sym_buf.clear();
            g.sym_successors(n, &mut sym_buf);
            for &(s, m) in &sym_buf {
                let to = intern(m, &mut out);
                out.edges[from as usize].push((s, to));
            }
        }
        out.trim()
    }
}

/// A shortest word accepted by both `a` and `b`, or `None` if their languages
/// are disjoint.
///
/// This is the fast path for conflict detection: it searches the product on
/// the fly and stops at the first accepting pair, never materialising the
/// product automaton. The witness is the conflicting access path used to
/// explain a blocked fusion (format it with [`format_word`](crate::format_word)).
pub fn intersection_witness(a: &Nfa, b: &Nfa) -> Option<Vec<Symbol>> {
    shortest_word(&Product {
        a,
        b,
        nb: b.num_states() as u64,
    })
}

/// Whether `a` and `b` share no word: `intersection_witness(a, b).is_none()`.
pub fn intersect_is_empty(a: &Nfa, b: &Nfa) -> bool {
    intersection_witness(a, b).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;

    const A: Label = Label(0);
    const B: Label = Label(1);
    const C: Label = Label(2);

    fn lab(l: Label) -> Symbol {
        Symbol::Label(l)
    }

    #[test]
    fn emptiness() {
        assert!(Nfa::empty().is_empty());
        assert!(!Nfa::epsilon().is_empty());
        assert!(!Nfa::label(A).is_empty());
        assert!(Nfa::label(A).concat(&Nfa::empty()).is_empty());
        assert!(!Nfa::empty().star().is_empty());
    }

    #[test]
    fn shortest_witnesses() {
        assert_eq!(Nfa::empty().shortest_witness(), None);
        assert_eq!(Nfa::epsilon().shortest_witness(), Some(vec![]));
        let n = Nfa::word(&[A, B, C]).union(&Nfa::word(&[C, A]));
        assert_eq!(n.shortest_witness(), Some(vec![lab(C), lab(A)]));
        // ε-edges cost nothing: a long ε chain before a short word still wins.
        let mut chain = Nfa::new();
        let mut cur = 0;
        for _ in 0..10 {
            let s = chain.add_state();
            chain.add_epsilon(cur, s);
            cur = s;
        }
        let end = chain.add_state();
        chain.add_label(cur, A, end);
        chain.set_accepting(end, true);
        let two = chain.add_state();
        let three = chain.add_state();
        chain.add_label(0, B, two);
        chain.add_label(two, B, three);
        chain.set_accepting(three, true);
        assert_eq!(chain.shortest_witness(), Some(vec![lab(A)]));
        let w = Nfa::symbols(&[lab(A), Symbol::Any]).shortest_witness();
        assert_eq!(w, Some(vec![lab(A), Symbol::Any]));
    }

    #[test]
    fn intersection_basics() {
        let x = Nfa::word(&[A, B]).with_any_suffix();
        let y = Nfa::symbols(&[Symbol::Any, lab(B), lab(C)]);
        let w = intersection_witness(&x, &y).unwrap();
        assert_eq!(w, vec![lab(A), lab(B), lab(C)]);
        let p = Nfa::intersect(&x, &y);
        assert!(p.accepts(&[A, B, C]));
        assert!(!p.accepts(&[A, B]));
        assert_eq!(p.shortest_witness(), Some(w));
        assert!(intersect_is_empty(&Nfa::label(A), &Nfa::label(B)));
        assert!(Nfa::intersect(&Nfa::label(A), &Nfa::label(B)).is_empty());
        // Any × Any stays Any.
        let u = Nfa::universal();
        assert_eq!(
            intersection_witness(&u, &Nfa::any()),
            Some(vec![Symbol::Any])
        );
        assert_eq!(intersection_witness(&u, &u), Some(vec![]));
    }

    #[test]
    fn intersection_with_epsilons_on_both_sides() {
        let x = Nfa::label(A).star().concat(&Nfa::label(B));
        let y = Nfa::epsilon()
            .concat(&Nfa::word(&[A, A]))
            .concat(&Nfa::any().optional());
        assert_eq!(
            intersection_witness(&x, &y),
            Some(vec![lab(A), lab(A), lab(B)])
        );
        assert!(Nfa::intersect(&x, &y).accepts(&[A, A, B]));
    }

    #[test]
    fn recursion_loop_conflict() {
        // A list traversal: self.next* . width written; another reads
        // next.next.width.
        let next = Label(10);
        let width = Label(11);
        let writes = Nfa::label(next).star().concat(&Nfa::label(width));
        let reads = Nfa::word(&[next, next, width]).prefix_closure();
        assert_eq!(
            intersection_witness(&writes, &reads),
            Some(vec![lab(next), lab(next), lab(width)])
        );
    }

    #[test]
    fn sparse_visit_map_path() {
        // Big enough to exceed DENSE_LIMIT in the product (2100 × 2100).
        let big: Vec<Label> = (0..2100).map(|i| Label(i % 3)).collect();
        let a = Nfa::word(&big);
        let b = Nfa::word(&big);
        assert!(a.num_states() as u64 * b.num_states() as u64 > DENSE_LIMIT);
        let w = intersection_witness(&a, &b).unwrap();
        assert_eq!(w.len(), 2100);
    }
}
