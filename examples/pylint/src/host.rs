//! The host functions of `lint/` (`pure fn` declarations without a body,
//! which the generated code calls as `crate::host::NAME`).
//!
//! The tree keeps byte offsets, not text; a rule that quotes code in its
//! message asks for the source between two offsets. The source is the
//! file the current thread is linting, lent by [`with_source`] for the
//! run of the rules.

use std::cell::RefCell;
use std::sync::Arc;

use unicode_width::UnicodeWidthStr;

thread_local! {
    static SOURCE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f` with `source` as the text `source_snippet` reads, and gives
/// the text back afterwards.
pub fn with_source<R>(source: &mut String, f: impl FnOnce() -> R) -> R {
    SOURCE.with(|s| std::mem::swap(&mut *s.borrow_mut(), source));
    let result = f();
    SOURCE.with(|s| std::mem::swap(&mut *s.borrow_mut(), source));
    result
}

/// `pure fn source_snippet(start: i64, end: i64) -> str`: the source from
/// byte `start` to `end`, or `...` when that is wider than 50 columns or
/// spans lines (ruff's rule for code quoted in a message). Offsets that do
/// not delimit text of the file give `...` too.
pub fn source_snippet(start: i64, end: i64) -> Arc<str> {
    SOURCE.with(|s| {
        let source = s.borrow();
        let text = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(start, end)| source.get(start..end));
        match text {
            Some(t) if t.width() <= 50 && !t.contains(['\r', '\n']) => Arc::from(t),
            _ => Arc::from("..."),
        }
    })
}
