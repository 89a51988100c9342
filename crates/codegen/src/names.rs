//! Rust identifiers for names of the traversal language.

use proc_macro2::{Ident, Span};
use std::collections::HashSet;

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

/// An identifier from text known to be a valid Rust identifier.
pub fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// `TextBox` → `text_box`, `IfStmt` → `if_stmt`, `AST` → `ast`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A name that is not a Rust keyword (a trailing `_` is added if it is).
pub fn safe(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// Hands out distinct identifiers within one namespace.
#[derive(Clone, Debug, Default)]
pub struct Names {
    taken: HashSet<String>,
    /// Names taken in every namespace of this kind, shared rather than
    /// copied: a program of many passes has thousands of frames, each of
    /// which would otherwise copy hundreds of names.
    shared: Option<&'static HashSet<String>>,
}

impl Names {
    /// A namespace for the locals of one generated function: the names the
    /// generated code itself uses inside functions are taken
    /// (`crate::gen::reserved_locals`).
    pub fn for_locals() -> Names {
        static LOCALS: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
        Names {
            taken: HashSet::new(),
            shared: Some(
                LOCALS.get_or_init(|| crate::gen::reserved_locals().into_iter().collect()),
            ),
        }
    }

    /// Takes `names` in this namespace.
    pub fn reserve<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        self.taken.extend(names.into_iter().map(str::to_string));
    }

    fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(name) || self.shared.is_some_and(|s| s.contains(name))
    }

    /// A namespace in which `reserved` are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Names {
        Names {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
            shared: None,
        }
    }

    /// `base` (made safe), or `base_2`, `base_3`, ... if taken (trailing
    /// underscores of `base` dropped before the suffix).
    pub fn fresh(&mut self, base: &str) -> Ident {
        let base = safe(base);
        // `use_` (a keyword made safe) goes on as `use_2`: `use__2` would
        // trip the `non_snake_case` lint.
        let stem = base.trim_end_matches('_');
        let mut name = base.clone();
        let mut k = 2;
        while self.is_taken(&name) {
            name = format!("{stem}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        ident(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert_eq!(snake("TextBox"), "text_box");
        assert_eq!(snake("IfStmt"), "if_stmt");
        assert_eq!(snake("AST"), "ast");
        assert_eq!(snake("ASTNode"), "ast_node");
        assert_eq!(snake("Page2List"), "page2_list");
        assert_eq!(snake("End"), "end");
    }

    #[test]
    fn fresh_names() {
        let mut n = Names::with_reserved(&["t"]);
        assert_eq!(n.fresh("t").to_string(), "t_2");
        assert_eq!(n.fresh("type").to_string(), "type_");
        assert_eq!(n.fresh("x").to_string(), "x");
        assert_eq!(n.fresh("x").to_string(), "x_2");
        assert_eq!(n.fresh("use").to_string(), "use_");
        assert_eq!(n.fresh("use").to_string(), "use_2");
    }
}
