//! Human-readable output: a plain-text listing ([`std::fmt::Display`]) and
//! Graphviz DOT ([`Nfa::to_dot`]).

use std::fmt::{self, Write as _};

use crate::label::{LabelInterner, Symbol};
use crate::nfa::Nfa;

/// Plain listing without label names (labels print as `#N`, the wildcard as
/// `*`, ε as `ε`):
///
/// ```text
/// start 0
/// accept 2
/// 0 -#3-> 1
/// 1 -ε-> 2
/// ```
impl fmt::Display for Nfa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_listing(f, &|s: Symbol| s.to_string())
    }
}

impl Nfa {
    fn write_listing(
        &self,
        f: &mut dyn fmt::Write,
        name: &dyn Fn(Symbol) -> String,
    ) -> fmt::Result {
        writeln!(f, "start {}", self.start)?;
        write!(f, "accept")?;
        for s in self.accepting_states() {
            write!(f, " {s}")?;
        }
        writeln!(f)?;
        for p in 0..self.num_states() {
            for &q in &self.eps[p] {
                writeln!(f, "{p} -ε-> {q}")?;
            }
            for &(s, q) in &self.edges[p] {
                writeln!(f, "{p} -{}-> {q}", name(s))?;
            }
        }
        Ok(())
    }

    /// The plain listing of [`Display`](fmt::Display), with label names taken
    /// from `labels`.
    pub fn to_text(&self, labels: &LabelInterner) -> String {
        let mut out = String::new();
        self.write_listing(&mut out, &|s| labels.symbol_name(s))
            .expect("writing to a String cannot fail");
        out
    }

    /// Graphviz DOT for the automaton, with label names from `labels`.
    ///
    /// Accepting states are double circles; an arrow from an invisible node
    /// marks the start state; ε-edges are dashed.
    pub fn to_dot(&self, labels: &LabelInterner) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "digraph nfa {{");
        let _ = writeln!(out, "  rankdir=LR;");
        let _ = writeln!(out, "  node [shape=circle];");
        let _ = writeln!(out, "  __start [shape=point, style=invis];");
        for s in 0..self.num_states() {
            if self.accepting[s] {
                let _ = writeln!(out, "  {s} [shape=doublecircle];");
            }
        }
        let _ = writeln!(out, "  __start -> {};", self.start);
        for p in 0..self.num_states() {
            for &q in &self.eps[p] {
                let _ = writeln!(out, "  {p} -> {q} [label=\"ε\", style=dashed];");
            }
            for &(s, q) in &self.edges[p] {
                let _ = writeln!(
                    out,
                    "  {p} -> {q} [label=\"{}\"];",
                    escape(&labels.symbol_name(s))
                );
            }
        }
        let _ = writeln!(out, "}}");
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;

    #[test]
    fn listing_and_dot() {
        let mut names = LabelInterner::new();
        let next = names.intern("next");
        let q = names.intern("we\"ird");
        let n = Nfa::label(next).concat(&Nfa::any().star());
        let text = n.to_string();
        assert!(text.starts_with("start 0\n"), "{text}");
        assert!(text.contains("-#0->"), "{text}");
        assert!(text.contains("-*->"), "{text}");
        assert!(text.contains("-ε->"), "{text}");
        assert!(n.to_text(&names).contains("-next->"));
        let dot = Nfa::label(q).union(&Nfa::label(Label(7))).to_dot(&names);
        assert!(dot.starts_with("digraph nfa {"), "{dot}");
        assert!(dot.contains("label=\"we\\\"ird\""), "{dot}");
        assert!(dot.contains("label=\"#7\""), "{dot}");
        assert!(dot.contains("doublecircle"), "{dot}");
        assert!(dot.contains("__start -> 0;"), "{dot}");
        assert!(dot.trim_end().ends_with('}'));
    }
}
