//! Field labels, their interner, and transition symbols.

use std::collections::HashMap;
use std::fmt;

/// An interned field label (a child or data field name).
///
/// Labels are plain `u32` indices so that automata stay compact and
/// comparisons in the inner loops of the product search are a single integer
/// compare. Names live in a [`LabelInterner`]; a label that was never
/// interned still works everywhere and prints as `#N`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Label(pub u32);

impl Label {
    /// The label's index as a `usize`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Two-way map between field names and [`Label`]s.
///
/// Labels are handed out densely from 0 in interning order.
#[derive(Clone, Default, Debug)]
pub struct LabelInterner {
    names: Vec<String>,
    ids: HashMap<String, Label>,
}

impl LabelInterner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the label for `name`, interning it if it is new.
    pub fn intern(&mut self, name: &str) -> Label {
        if let Some(&l) = self.ids.get(name) {
            return l;
        }
        let l = Label(u32::try_from(self.names.len()).expect("more than u32::MAX labels"));
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), l);
        l
    }

    /// The label of `name`, if it has been interned.
    pub fn get(&self, name: &str) -> Option<Label> {
        self.ids.get(name).copied()
    }

    /// The name of `label`, if it was interned here.
    pub fn name(&self, label: Label) -> Option<&str> {
        self.names.get(label.index()).map(String::as_str)
    }

    /// Number of interned labels.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no label has been interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All interned labels with their names, in label order.
    pub fn iter(&self) -> impl Iterator<Item = (Label, &str)> + '_ {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (Label(i as u32), n.as_str()))
    }

    /// A printable name for `sym`: the interned name, `#N` for an unknown
    /// label, `*` for [`Symbol::Any`].
    pub fn symbol_name(&self, sym: Symbol) -> String {
        match sym {
            Symbol::Any => "*".to_owned(),
            Symbol::Label(l) => match self.name(l) {
                Some(n) => n.to_owned(),
                None => l.to_string(),
            },
        }
    }
}

/// A transition symbol: one specific label, or the wildcard.
///
/// The alphabet is open (new field names can appear in any program), so the
/// wildcard is not "a union of all known labels" but a symbol of its own that
/// matches every label, including ones never interned. This keeps automata for
/// "everything below this node" at one state with one self-loop.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Symbol {
    /// Exactly this label.
    Label(Label),
    /// Any label at all.
    Any,
}

impl Symbol {
    /// Whether this symbol matches the concrete label `l`.
    #[inline]
    pub fn matches(self, l: Label) -> bool {
        match self {
            Symbol::Any => true,
            Symbol::Label(m) => m == l,
        }
    }

    /// The symbol matching exactly the labels both `self` and `other` match,
    /// or `None` if no label matches both.
    ///
    /// `Label(a) ∧ Label(a) = Label(a)`, `Label(a) ∧ Any = Label(a)`,
    /// `Any ∧ Any = Any`, `Label(a) ∧ Label(b) = None` for `a ≠ b`.
    #[inline]
    pub fn meet(self, other: Symbol) -> Option<Symbol> {
        match (self, other) {
            (Symbol::Any, s) | (s, Symbol::Any) => Some(s),
            (Symbol::Label(a), Symbol::Label(b)) => (a == b).then_some(self),
        }
    }
}

impl From<Label> for Symbol {
    fn from(l: Label) -> Self {
        Symbol::Label(l)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::Any => f.write_str("*"),
            Symbol::Label(l) => l.fmt(f),
        }
    }
}

/// Formats a word of symbols as a dotted access path, e.g. `next.content.*`.
///
/// The empty word prints as `ε`.
pub fn format_word(word: &[Symbol], labels: &LabelInterner) -> String {
    if word.is_empty() {
        return "ε".to_owned();
    }
    let mut out = String::new();
    for (i, &s) in word.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(&labels.symbol_name(s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_round_trips() {
        let mut i = LabelInterner::new();
        assert!(i.is_empty());
        let a = i.intern("next");
        let b = i.intern("content");
        assert_eq!(i.intern("next"), a);
        assert_ne!(a, b);
        assert_eq!(i.get("content"), Some(b));
        assert_eq!(i.get("nope"), None);
        assert_eq!(i.name(a), Some("next"));
        assert_eq!(i.name(Label(99)), None);
        assert_eq!(i.len(), 2);
        let all: Vec<_> = i.iter().collect();
        assert_eq!(all, vec![(a, "next"), (b, "content")]);
    }

    #[test]
    fn meet_and_matches() {
        let a = Symbol::Label(Label(1));
        let b = Symbol::Label(Label(2));
        assert_eq!(a.meet(a), Some(a));
        assert_eq!(a.meet(b), None);
        assert_eq!(a.meet(Symbol::Any), Some(a));
        assert_eq!(Symbol::Any.meet(b), Some(b));
        assert_eq!(Symbol::Any.meet(Symbol::Any), Some(Symbol::Any));
        assert!(Symbol::Any.matches(Label(7)));
        assert!(a.matches(Label(1)));
        assert!(!a.matches(Label(2)));
    }

    #[test]
    fn format_words() {
        let mut i = LabelInterner::new();
        let next = i.intern("next");
        let content = i.intern("content");
        let w = [Symbol::from(next), Symbol::from(content), Symbol::Any];
        assert_eq!(format_word(&w, &i), "next.content.*");
        assert_eq!(format_word(&[], &i), "ε");
        assert_eq!(format_word(&[Symbol::Label(Label(42))], &i), "#42");
    }
}
