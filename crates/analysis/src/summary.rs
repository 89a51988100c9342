//! Call summaries: Grafter's Algorithm 1 over the whole program at once.
//!
//! One automaton ("call graph automaton") holds one state per concrete
//! function, i.e. per (concrete receiver type, traversal) pair. At each
//! function's state the statement automata of its body are attached by
//! ε-edges, and each traversing call adds a path labelled with the
//! receiver's location (`c` for `self.c.f()`, ε for `self.f()`, the list
//! label for `x.f()` in `for x in self.list`) to the state of every
//! function it may dispatch to. Recursion becomes loops, virtual dispatch
//! a choice of edges. The summary of one function is the part of the graph
//! reachable from that function's state, without ε-edges and trimmed.
//!
//! Every summary is minimized ([`Nfa::minimized_at`], one subset
//! construction for all of them, unless that would blow up), and so is
//! every summary on a static type (the union over its concrete subtypes,
//! `access::minimal_union`): a walk's summary is thousands of glued states
//! whose language has a handful of them, and summaries are copied under
//! many receivers.

use treefuse_automata::{Nfa, StateId, Symbol};

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

/// Acceptance and labelled edges of a state's ε-closure.
type Kernel = (bool, Vec<(Symbol, StateId)>);

fn kernel(g: &Nfa, s: StateId, stack: &mut Vec<StateId>, mark: &mut [u32]) -> Kernel {
    let mut accepting = false;
    let mut edges = Vec::new();
    stack.clear();
    stack.push(s);
    mark[s as usize] = s;
    while let Some(p) = stack.pop() {
        accepting |= g.is_accepting(p);
        edges.extend_from_slice(g.transitions(p));
        for &q in g.epsilon_transitions(p) {
            if mark[q as usize] != s {
                mark[q as usize] = s;
                stack.push(q);
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    (accepting, edges)
}

/// The summary of every start state: the minimal automaton of the language
/// of `g` started there (see [`Nfa::minimized`] for why), all built by one
/// subset construction. Should that blow up, the ε-free part of `g`
/// reachable from each start, trimmed, with ε-closures computed once and
/// shared by all summaries.
pub(crate) fn summaries(g: &Nfa, starts: &[StateId]) -> Vec<Nfa> {
    if let Some(minimal) = g.minimized_at(starts) {
        return minimal;
    }
    let n = g.num_states();
    let mut memo: Vec<Option<Kernel>> = vec![None; n];
    let mut mark = vec![u32::MAX; n];
    let mut stack = Vec::new();
    let mut map = vec![u32::MAX; n];
    let mut stamp = vec![usize::MAX; n];
    starts
        .iter()
        .enumerate()
        .map(|(round, &start)| {
            let mut out = Nfa::new();
            let mut queue = vec![start];
            map[start as usize] = out.start();
            stamp[start as usize] = round;
            while let Some(k) = queue.pop() {
                if memo[k as usize].is_none() {
                    memo[k as usize] = Some(kernel(g, k, &mut stack, &mut mark));
                }
                let (accepting, edges) = memo[k as usize].as_ref().expect("just computed");
                let from = map[k as usize];
                out.set_accepting(from, *accepting);
                for &(sym, t) in edges {
                    if stamp[t as usize] != round {
                        stamp[t as usize] = round;
                        map[t as usize] = out.add_state();
                        queue.push(t);
                    }
                    out.add_transition(from, Some(sym), map[t as usize]);
                }
            }
            out.trim()
        })
        .collect()
}
