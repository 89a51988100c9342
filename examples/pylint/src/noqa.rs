//! `# noqa` comments, as ruff reads them: suppressions are the host's
//! business, not the rules'.
//!
//! - `# noqa` at the end of a line suppresses every diagnostic that starts
//!   on that line; `# noqa: E711, F541` only those codes (codes separated by
//!   commas or spaces; `noqa` in any case; the directive may follow other
//!   text of the comment, as in `# type: ignore # noqa`).
//! - `# ruff: noqa` or `# flake8: noqa` on a line of its own exempts the
//!   whole file; `# ruff: noqa: CODES` exempts the file from those codes.
//!
//! Not modelled: ruff moves the `noqa` line of a diagnostic inside a
//! multi-line string or a backslash continuation to the line where the
//! string or statement ends.

use std::collections::HashMap;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::token::Tokens;
use ruff_source_file::LineIndex;
use ruff_text_size::Ranged;

/// What a directive exempts: everything, or the codes it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Exempt {
    All,
    Codes(Vec<String>),
}

impl Exempt {
    fn covers(&self, code: &str) -> bool {
        match self {
            Exempt::All => true,
            Exempt::Codes(codes) => codes.iter().any(|c| c == code),
        }
    }

    fn merge(&mut self, other: Exempt) {
        match (&mut *self, other) {
            (Exempt::All, _) => {}
            (_, Exempt::All) => *self = Exempt::All,
            (Exempt::Codes(mine), Exempt::Codes(theirs)) => mine.extend(theirs),
        }
    }
}

/// The `noqa` directives of one file.
#[derive(Debug, Default)]
pub struct Suppressions {
    file: Option<Exempt>,
    /// By line (from 1).
    lines: HashMap<usize, Exempt>,
}

impl Suppressions {
    /// The directives in the comments of a parsed file; `lines` indexes
    /// the file's lines (asked for only when a comment holds a directive).
    pub fn from_comments<'a>(
        tokens: &Tokens,
        source: &str,
        lines: impl Fn() -> &'a LineIndex,
    ) -> Suppressions {
        let mut found = Suppressions::default();
        for token in tokens.iter().filter(|t| t.kind() == TokenKind::Comment) {
            let text = &source[token.range()];
            if !has_noqa(text) {
                continue;
            }
            if let Some(exempt) = file_directive(text) {
                merge_into(&mut found.file, exempt);
            } else if let Some(exempt) = line_directive(text) {
                let line = lines().line_index(token.start()).get();
                match found.lines.get_mut(&line) {
                    Some(e) => e.merge(exempt),
                    None => {
                        found.lines.insert(line, exempt);
                    }
                }
            }
        }
        found
    }

    /// Whether a diagnostic of `code` starting on `line` is suppressed.
    /// Syntax errors never are.
    pub fn suppresses(&self, line: usize, code: &str) -> bool {
        if code == crate::check::SYNTAX_ERROR {
            return false;
        }
        self.file.as_ref().is_some_and(|e| e.covers(code))
            || self.lines.get(&line).is_some_and(|e| e.covers(code))
    }
}

/// Whether a comment mentions `noqa` in any case (every directive does).
fn has_noqa(comment: &str) -> bool {
    comment
        .as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"noqa"))
}

fn merge_into(slot: &mut Option<Exempt>, exempt: Exempt) {
    match slot {
        Some(e) => e.merge(exempt),
        None => *slot = Some(exempt),
    }
}

/// `# ruff: noqa`, `# flake8: noqa`, `# ruff: noqa: CODES`.
fn file_directive(comment: &str) -> Option<Exempt> {
    let rest = comment.strip_prefix('#')?.trim_start();
    let (tool, rest) = rest.split_once(':')?;
    let tool = tool.trim_end();
    if !(tool.eq_ignore_ascii_case("ruff") || tool.eq_ignore_ascii_case("flake8")) {
        return None;
    }
    let rest = rest.trim_start();
    let after = strip_prefix_ignore_case(rest, "noqa")?;
    match after.trim_start().strip_prefix(':') {
        // flake8 ignores codes after a file-level `noqa`: it exempts nothing.
        Some(codes) if tool.eq_ignore_ascii_case("ruff") => parse_codes(codes).map(Exempt::Codes),
        Some(_) => None,
        None if after.trim().is_empty() => Some(Exempt::All),
        None => None,
    }
}

/// The first `# noqa` or `# noqa: CODES` directive of a comment.
fn line_directive(comment: &str) -> Option<Exempt> {
    let mut from = 0;
    while let Some(hash) = comment[from..].find('#') {
        let rest = comment[from + hash + 1..].trim_start();
        if let Some(after) = strip_prefix_ignore_case(rest, "noqa") {
            return match after.strip_prefix(':') {
                // An invalid list (`# noqa:` alone, `# noqa: E711: why`)
                // makes the directive invalid: ruff warns and ignores it.
                Some(codes) => parse_codes(codes).map(Exempt::Codes),
                None => Some(Exempt::All),
            };
        }
        from += hash + 1;
    }
    None
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// `E711, F541 PLR0911 trailing words` → the codes; `None` when the list
/// is invalid as ruff reads it: no code at all, or a word that starts like
/// a code but goes on (`E711:`).
fn parse_codes(text: &str) -> Option<Vec<String>> {
    let mut codes = Vec::new();
    for word in text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        let letters = word.len()
            - word
                .trim_start_matches(|c: char| c.is_ascii_uppercase())
                .len();
        let digits = word[letters..].len()
            - word[letters..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if letters > 0 && digits > 0 && letters + digits == word.len() {
            codes.push(word.to_string());
        } else if letters > 0 && digits > 0 || codes.is_empty() {
            return None;
        } else {
            // Words after the codes are a comment.
            break;
        }
    }
    (!codes.is_empty()).then_some(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_directives() {
        assert_eq!(line_directive("# noqa"), Some(Exempt::All));
        assert_eq!(line_directive("#NOQA"), Some(Exempt::All));
        assert_eq!(
            line_directive("# noqa: E711, F541"),
            Some(Exempt::Codes(vec!["E711".into(), "F541".into()]))
        );
        assert_eq!(
            line_directive("# type: ignore # noqa:E712 because"),
            Some(Exempt::Codes(vec!["E712".into()]))
        );
        assert_eq!(line_directive("# a comment"), None);
        assert_eq!(
            line_directive("# noqa: E711 some words"),
            Some(Exempt::Codes(vec!["E711".into()]))
        );
        assert_eq!(line_directive("# noqa E711"), Some(Exempt::All));
        // Invalid directives are ignored, as ruff ignores them.
        assert_eq!(line_directive("# noqa:"), None);
        assert_eq!(line_directive("# noqa: C901: too complex"), None);
    }

    #[test]
    fn file_directives() {
        assert_eq!(file_directive("# ruff: noqa"), Some(Exempt::All));
        assert_eq!(file_directive("# flake8: noqa"), Some(Exempt::All));
        assert_eq!(
            file_directive("# ruff: noqa: E741"),
            Some(Exempt::Codes(vec!["E741".into()]))
        );
        assert_eq!(file_directive("# flake8: noqa: E741"), None);
        assert_eq!(file_directive("# noqa"), None);
    }
}
