//! The error index: one explanation per diagnostic code, with a failing
//! example and its fix, as printed by `treefuse explain-code CODE`.
//!
//! The text lives in the book (`docs/src/errors.md`, one `## \`code\``
//! section per code) and is compiled into the tool, so the two cannot
//! drift apart; adding a code is adding one section there. The book's
//! tests check that every code the parser and checker can emit has a
//! section and that every example does what it claims.

/// The book's error chapter.
pub const ERRORS_MD: &str = include_str!("../../../docs/src/errors.md");

/// One code's section of the error index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The diagnostic code, such as `unknown-field`.
    pub code: &'static str,
    /// The section as written, heading included.
    pub text: &'static str,
}

impl Entry {
    /// The first sentence of the explanation (for listings).
    pub fn summary(&self) -> String {
        let body = self
            .text
            .lines()
            .skip(1)
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        match body
            .find(". ")
            .or_else(|| body.strip_suffix('.').map(|s| s.len()))
        {
            Some(end) => body[..=end].trim().to_string(),
            None => body,
        }
    }

    /// The section as shown in a terminal: Markdown, with the test
    /// annotations of code blocks (`tf,fail=CODE`) reduced to the
    /// language.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in self.text.trim_end().lines() {
            match line.strip_prefix("```") {
                Some(info) if !info.is_empty() => {
                    out.push_str("```");
                    out.push_str(info.split(',').next().unwrap_or(""));
                }
                _ => out.push_str(line),
            }
            out.push('\n');
        }
        out
    }
}

/// Every section of the index, in the order written.
pub fn entries() -> Vec<Entry> {
    let mut starts: Vec<(usize, &'static str)> = Vec::new();
    let mut offset = 0;
    let mut in_code_block = false;
    for line in ERRORS_MD.split_inclusive('\n') {
        if line.starts_with("```") {
            in_code_block = !in_code_block;
        }
        if let Some(code) = line
            .trim_end()
            .strip_prefix("## `")
            .and_then(|rest| rest.strip_suffix('`'))
            .filter(|_| !in_code_block)
        {
            starts.push((offset, code));
        }
        offset += line.len();
    }
    starts
        .iter()
        .enumerate()
        .map(|(i, &(start, code))| {
            let end = starts.get(i + 1).map_or(ERRORS_MD.len(), |&(next, _)| next);
            Entry {
                code,
                text: &ERRORS_MD[start..end],
            }
        })
        .collect()
}

/// The section for `code`, if there is one.
pub fn lookup(code: &str) -> Option<Entry> {
    entries().into_iter().find(|e| e.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_found_in_order_and_rendered_without_annotations() {
        let all = entries();
        assert!(all.len() > 40, "{}", all.len());
        let codes: Vec<&str> = all.iter().map(|e| e.code).collect();
        let mut sorted = codes.clone();
        sorted.sort();
        assert_eq!(codes, sorted, "sections are in alphabetical order");
        let e = lookup("unknown-name").unwrap();
        assert!(e.text.starts_with("## `unknown-name`"));
        assert!(e
            .summary()
            .starts_with("A name in an expression is not a local"));
        let shown = e.render();
        assert!(
            shown.contains("```tf\n") && !shown.contains("fail="),
            "{shown}"
        );
        assert!(lookup("no-such-code").is_none());
    }
}
