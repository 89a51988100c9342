//! Small helpers for writing JSON text iteratively.

use std::io::{self, Write};

/// A linked-list shape of the faithful ports: `Inner{content, next}` nodes
/// ending in an `End{content}` node.
pub(crate) struct Chain {
    pub inner: &'static str,
    pub end: &'static str,
    pub content: &'static str,
    pub next: &'static str,
}

/// Anything that owns the output writer.
pub(crate) trait Out {
    fn out(&mut self) -> &mut dyn Write;
}

/// Writes `n` closing braces without recursion.
pub(crate) fn close_braces(w: &mut dyn Write, mut n: usize) -> io::Result<()> {
    const BRACES: [u8; 4096] = [b'}'; 4096];
    while n > 0 {
        let k = n.min(BRACES.len());
        w.write_all(&BRACES[..k])?;
        n -= k;
    }
    Ok(())
}

/// Writes a linked chain of `count >= 1` items: `count - 1` inner nodes and
/// one end node, each holding one item written by `item`. Nesting is as deep
/// as the chain is long, but the writing is a loop.
pub(crate) fn linked<G: Out>(
    g: &mut G,
    c: &Chain,
    count: usize,
    mut item: impl FnMut(&mut G, usize) -> io::Result<()>,
) -> io::Result<()> {
    assert!(count >= 1, "a linked chain holds at least one item");
    for i in 0..count {
        let last = i + 1 == count;
        let ty = if last { c.end } else { c.inner };
        write!(g.out(), "{{\"type\":\"{ty}\",\"{}\":", c.content)?;
        item(g, i)?;
        if !last {
            write!(g.out(), ",\"{}\":", c.next)?;
        }
    }
    close_braces(g.out(), count)
}

/// Writes a JSON array of `count` items; with `wrap = Some((type, key))`
/// every item is wrapped in a node `{"type": type, key: item}`.
pub(crate) fn array<G: Out>(
    g: &mut G,
    count: usize,
    wrap: Option<(&str, &str)>,
    mut item: impl FnMut(&mut G, usize) -> io::Result<()>,
) -> io::Result<()> {
    g.out().write_all(b"[")?;
    for i in 0..count {
        if i > 0 {
            g.out().write_all(b",")?;
        }
        if let Some((ty, key)) = wrap {
            write!(g.out(), "{{\"type\":\"{ty}\",\"{key}\":")?;
        }
        item(g, i)?;
        if wrap.is_some() {
            g.out().write_all(b"}")?;
        }
    }
    g.out().write_all(b"]")
}

/// A JSON string literal.
pub(crate) fn string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}
