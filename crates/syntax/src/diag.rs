//! Diagnostics: errors with source spans, rendered with a caret under the
//! offending text.
//!
//! Every stage (parser, checker, tree reader for `.tf`-related errors)
//! reports [`Diagnostic`]s; only the edges of the tool render them. Each
//! diagnostic carries a `code` that names the rule it enforces, so a user
//! can look the rule up and a test can assert on it.

use crate::sources::SourceMap;
use crate::span::{LineIndex, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use codespan_reporting::term::termcolor::{Ansi, NoColor};

/// A secondary source location with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
}

/// An error in a program, attached to the span that causes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The name of the rule that was broken, such as `unknown-type`.
    pub code: &'static str,
    /// One-line description of the problem.
    pub message: String,
    /// The offending source text.
    pub span: Span,
    /// Optional text under the caret of the primary span.
    pub span_label: String,
    /// Other places that explain the problem.
    pub labels: Vec<Label>,
    /// Free-form notes and hints printed after the snippet.
    pub notes: Vec<String>,
    /// A warning does not reject the program (an unreachable `match`
    /// arm); everything else is an error.
    pub is_warning: bool,
}

impl Diagnostic {
    /// An error for rule `code` at `span`.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span,
            span_label: String::new(),
            labels: Vec::new(),
            notes: Vec::new(),
            is_warning: false,
        }
    }

    /// A warning for rule `code` at `span`: reported, but the program is
    /// accepted.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            is_warning: true,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the text shown under the primary caret.
    pub fn with_span_label(mut self, text: impl Into<String>) -> Diagnostic {
        self.span_label = text.into();
        self
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: text.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, text: impl Into<String>) -> Diagnostic {
        self.notes.push(text.into());
        self
    }

    /// The 1-based line and column of the primary span's start.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        LineIndex::new(source).line_col(source, self.span.start as usize)
    }
}

/// Renders diagnostics as text, `file:line:col` headers and caret snippets,
/// as rustc does. `color` selects ANSI escapes.
pub fn render(diagnostics: &[Diagnostic], file_name: &str, source: &str, color: bool) -> String {
    render_map(diagnostics, &SourceMap::single(file_name, source), color)
}

/// Renders diagnostics of a program of one or several files (spans are
/// offsets into [`SourceMap::text`]), each with `file:line:col` and a caret
/// snippet of its file.
pub fn render_map(diagnostics: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let mut files = SimpleFiles::new();
    for (name, text) in sources.file_texts() {
        files.add(name, text);
    }
    let config = term::Config::default();
    let mut out = Vec::new();
    for d in diagnostics {
        let (file, range) = sources.split(d.span);
        let mut labels = vec![cs::Label::primary(file, range).with_message(d.span_label.clone())];
        labels.extend(d.labels.iter().map(|l| {
            let (file, range) = sources.split(l.span);
            cs::Label::secondary(file, range).with_message(l.message.clone())
        }));
        let diag = if d.is_warning {
            cs::Diagnostic::warning()
        } else {
            cs::Diagnostic::error()
        };
        let diag = diag
            .with_code(d.code)
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(d.notes.clone());
        // Writing into a Vec cannot fail; a rendering error would only come
        // from a bad span, which `SourceMap::split` rules out.
        let result = if color {
            term::emit(&mut Ansi::new(&mut out), &config, &files, &diag)
        } else {
            term::emit(&mut NoColor::new(&mut out), &config, &files, &diag)
        };
        if result.is_err() {
            let at = sources.locate(d.span.start as usize);
            out.extend_from_slice(
                format!(
                    "error[{}]: {}\n --> {}:{}:{}\n",
                    d.code, d.message, at.file, at.line, at.col
                )
                .as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
