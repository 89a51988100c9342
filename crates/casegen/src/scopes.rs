//! Programs for the scope-resolution benchmark
//! (`examples/scopes/scopes.tf`): a `Program` whose body is one long
//! top-level `Block` of declarations, expression statements and nested
//! blocks, with about `size` nodes in all.
//!
//! Names come from a pool of [`POOL`] names, so the top-level environment
//! grows to a few thousand entries, as a symbol table of a large module
//! does. Most uses name a declaration that is visible where they stand
//! (the generator keeps the same scopes the pass does); some name any
//! pool name, which may be undeclared there, so both lookups that hit and
//! lookups that miss are measured. Nested blocks are a few levels deep
//! (the tree is wide, not deep: its depth does not grow with `size`), and
//! their statement counts are bounded, so every top-level statement is
//! small and the total lands within 16 nodes above `size`.

use std::io::{self, Write};
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Distinct names a program draws from.
pub(crate) const POOL: usize = 4096;
/// Deepest nesting of blocks below the top level.
const MAX_BLOCK_DEPTH: u32 = 3;
/// Deepest expression (an `Add` tree).
const MAX_EXPR_DEPTH: u32 = 3;

struct Gen<'a> {
    w: &'a mut dyn Write,
    rng: ChaCha8Rng,
    names: Vec<Arc<str>>,
    /// Names visible here, innermost last; `scopes` holds where each open
    /// block's declarations start.
    visible: Vec<Arc<str>>,
    scopes: Vec<usize>,
    /// Nodes written so far.
    nodes: usize,
}

impl Gen<'_> {
    fn used_name(&mut self) -> Arc<str> {
        if !self.visible.is_empty() && self.rng.gen_range(0..10) < 9 {
            let i = self.rng.gen_range(0..self.visible.len());
            self.visible[i].clone()
        } else {
            self.names[self.rng.gen_range(0..POOL)].clone()
        }
    }

    fn expr(&mut self, depth: u32) -> io::Result<()> {
        self.nodes += 1;
        match self.rng.gen_range(0..10) {
            0..=3 if depth > 0 => {
                self.w.write_all(b"{\"type\":\"Add\",\"l\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b",\"r\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b"}")
            }
            0..=2 => {
                let v = self.rng.gen_range(0..100);
                write!(self.w, "{{\"type\":\"Num\",\"v\":{v}}}")
            }
            _ => {
                let name = self.used_name();
                write!(self.w, "{{\"type\":\"Var\",\"name\":\"{name}\"}}")
            }
        }
    }

    /// One statement; a nested block writes at most `budget` nodes.
    fn stmt(&mut self, depth: u32, budget: usize) -> io::Result<()> {
        self.nodes += 1;
        let kind = self.rng.gen_range(0..20);
        if kind < 2 && depth < MAX_BLOCK_DEPTH && budget > 8 {
            self.w.write_all(b"{\"type\":\"Block\",\"stmts\":[")?;
            self.scopes.push(self.visible.len());
            let stop = self.nodes + budget.min(400);
            let count = self.rng.gen_range(1..=12);
            for i in 0..count {
                if self.nodes >= stop {
                    break;
                }
                if i > 0 {
                    self.w.write_all(b",")?;
                }
                let left = stop.saturating_sub(self.nodes);
                self.stmt(depth + 1, left)?;
            }
            let start = self.scopes.pop().unwrap_or(0);
            self.visible.truncate(start);
            return self.w.write_all(b"]}");
        }
        if kind < 10 {
            // A declaration: usually a new name, sometimes shadowing.
            let name = self.names[self.rng.gen_range(0..POOL)].clone();
            write!(self.w, "{{\"type\":\"Decl\",\"name\":\"{name}\",\"init\":")?;
            self.expr(MAX_EXPR_DEPTH)?;
            self.visible.push(name);
            return self.w.write_all(b"}");
        }
        self.w.write_all(b"{\"type\":\"ExprStmt\",\"e\":")?;
        self.expr(MAX_EXPR_DEPTH)?;
        self.w.write_all(b"}")
    }
}

/// Writes a program of about `size >= 2` nodes.
pub(crate) fn generate(w: &mut dyn Write, size: usize, seed: u64) -> io::Result<()> {
    let mut g = Gen {
        w,
        rng: ChaCha8Rng::seed_from_u64(seed),
        names: (0..POOL).map(|i| Arc::from(format!("v{i}"))).collect(),
        visible: Vec::new(),
        scopes: Vec::new(),
        nodes: 2,
    };
    g.w.write_all(b"{\"type\":\"Program\",\"body\":{\"type\":\"Block\",\"stmts\":[")?;
    let mut first = true;
    // A statement outside blocks has at most 1 + 2^(MAX_EXPR_DEPTH + 1) - 1
    // nodes and a block stops within one statement of its budget, so the
    // total overshoots `size` by at most 16 nodes.
    while g.nodes < size {
        if !first {
            g.w.write_all(b",")?;
        }
        first = false;
        let left = size - g.nodes;
        g.stmt(0, left)?;
    }
    g.w.write_all(b"]}}")
}
