//! Short textual renderings of access automata for reports.

use std::collections::{BTreeSet, VecDeque};

use treefuse_automata::{Nfa, Symbol};

use crate::labels::Labels;

/// How many words [`format_access`] lists at most.
pub const MAX_WORDS: usize = 6;

/// A short description of the paths an access automaton accepts: up to
/// [`MAX_WORDS`] of its shortest words, `ε` for the node itself, a final
/// `**` for "this path and everything below it", and `…` when there are
/// more words (always the case when a call summary loops). Words that are
/// a proper prefix of another listed word are left out (read sets are
/// prefix-closed and listing every prefix would drown the interesting
/// paths), and so are words below a listed `p.**`. An empty set prints as
/// `∅`.
/// See the crate example for a rendered summary.
pub fn format_access(nfa: &Nfa, labels: &Labels) -> String {
    render(nfa, &|w| labels.format(w))
}

/// [`format_access`] with bare field names ([`Labels::format_short`]):
/// `{next.width, …}` rather than `{TextBox.next.Element.width, …}`.
pub fn format_access_short(nfa: &Nfa, labels: &Labels) -> String {
    render(nfa, &|w| labels.format_short(w))
}

fn render(nfa: &Nfa, fmt: &dyn Fn(&[Symbol]) -> String) -> String {
    let n = nfa.reduced();
    if n.is_empty() {
        return "∅".to_owned();
    }
    // States from which every word is accepted: accepting, with a `*` edge
    // to such a state (a `*` self-loop to start with).
    let mut universal = vec![false; n.num_states()];
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..n.num_states() as u32 {
            if !universal[s as usize]
                && n.is_accepting(s)
                && n.transitions(s)
                    .iter()
                    .any(|&(sym, t)| sym == Symbol::Any && (t == s || universal[t as usize]))
            {
                universal[s as usize] = true;
                changed = true;
            }
        }
    }
    let sink = |s: u32| universal[s as usize];
    let mut found: Vec<(Vec<Symbol>, bool)> = Vec::new();
    let mut seen: BTreeSet<(Vec<Symbol>, bool)> = BTreeSet::new();
    let mut queue: VecDeque<(u32, Vec<Symbol>)> = VecDeque::from([(n.start(), Vec::new())]);
    let mut more = false;
    let mut pops = 0;
    while let Some((s, word)) = queue.pop_front() {
        pops += 1;
        if pops > 4000 || word.len() > 12 {
            more = true;
            break;
        }
        if sink(s) {
            let key = (word.clone(), true);
            if seen.insert(key.clone()) {
                found.push(key);
            }
            // Other edges out of a sink only add words already covered.
            continue;
        }
        if n.is_accepting(s) {
            let key = (word.clone(), false);
            if seen.insert(key.clone()) {
                found.push(key);
            }
        }
        if found.len() > 4 * MAX_WORDS {
            more = true;
            break;
        }
        for &(sym, t) in n.transitions(s) {
            let mut w = word.clone();
            w.push(sym);
            queue.push_back((t, w));
        }
    }
    let is_prefix = |a: &[Symbol], b: &[Symbol]| a.len() < b.len() && b.starts_with(a);
    let shown: Vec<String> = found
        .iter()
        .filter(|(w, all)| *all || !found.iter().any(|(v, _)| is_prefix(w, v)))
        // Leave out what a listed `p.**` already covers.
        .filter(|(w, _)| {
            !found
                .iter()
                .any(|(v, all)| *all && v.len() < w.len() && w.starts_with(v))
        })
        .map(|(w, all)| {
            let base = fmt(w);
            match (all, w.is_empty()) {
                (true, true) => "**".to_owned(),
                (true, false) => format!("{base}.**"),
                (false, _) => base,
            }
        })
        .collect();
    let mut out: Vec<String> = shown.iter().take(MAX_WORDS).cloned().collect();
    if more || shown.len() > MAX_WORDS {
        out.push("…".to_owned());
    }
    format!("{{{}}}", out.join(", "))
}
