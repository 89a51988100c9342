//! Call summaries: Grafter's Algorithm 1 over the whole program at once.
//!
//! One automaton ("call graph automaton") holds one state per concrete
//! function, i.e. per (concrete receiver type, traversal) pair. At each
//! function's state the statement automata of its body are attached by
//! ε-edges, and each traversing call adds a path labelled with the
//! receiver's location (`c` for `self.c.f()`, ε for `self.f()`, the list
//! label for `x.f()` in `for x in self.list`) to the state of every
//! function it may dispatch to. Recursion becomes loops, virtual dispatch
//! a choice of edges. The summary of one function is the graph with that
//! function's state as start state, reduced.

use treefuse_automata::{Nfa, StateId};

use crate::stmt::CallSite;

/// One concrete function's contribution: its own accesses (already
/// unioned over its statements) and its call sites with their targets.
pub(crate) struct Node<'a> {
    pub own: &'a Nfa,
    pub calls: Vec<(&'a CallSite, Vec<usize>)>,
}

/// Builds the call-graph automaton; returns it and the state of each node.
pub(crate) fn call_graph(nodes: &[Node<'_>]) -> (Nfa, Vec<StateId>) {
    let mut g = Nfa::new();
    let states: Vec<StateId> = nodes.iter().map(|_| g.add_state()).collect();
    for (i, node) in nodes.iter().enumerate() {
        let s = states[i];
        let own = g.embed(node.own);
        g.add_epsilon(s, own);
        for (site, targets) in &node.calls {
            if targets.is_empty() {
                continue;
            }
            // The receiver's path, as a non-accepting chain ending in
            // ε-edges to the callees.
            let entry = g.embed(&site.receiver);
            let off = entry - site.receiver.start();
            g.add_epsilon(s, entry);
            for a in site.receiver.accepting_states() {
                g.set_accepting(a + off, false);
                for &t in targets {
                    g.add_epsilon(a + off, states[t]);
                }
            }
        }
    }
    (g, states)
}

/// The reduced automaton of the graph started at `state`.
pub(crate) fn summary_at(graph: &Nfa, state: StateId) -> Nfa {
    let mut g = graph.clone();
    g.set_start(state);
    g.reduced()
}
