//! Random programs of the toy language (`examples/toylang/toylang.tf`).
//!
//! A program is a `Sequence` chain of `size` random expressions
//! (`e1; (e2; (...; en))`), each of bounded depth, biased towards the
//! patterns the three passes rewrite: `if true/false then .. else ..`,
//! `n / m` on literals, and `let x = e in x`.

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::out::{self, Out};

/// The deepest a single top-level expression goes.
const MAX_DEPTH: u32 = 6;
const NAMES: [&str; 3] = ["x", "y", "z"];

struct Gen<'a> {
    w: &'a mut dyn Write,
    rng: ChaCha8Rng,
}

impl Out for Gen<'_> {
    fn out(&mut self) -> &mut dyn Write {
        self.w
    }
}

impl Gen<'_> {
    fn name(&mut self) -> &'static str {
        NAMES[self.rng.gen_range(0..NAMES.len())]
    }

    fn number(&mut self) -> i64 {
        // 0 included: `n / 0` must stay unfolded.
        self.rng.gen_range(0..50)
    }

    fn leaf(&mut self) -> io::Result<()> {
        match self.rng.gen_range(0..4) {
            0 => write!(self.w, "{{\"type\":\"Unit\"}}"),
            1 => {
                let b = self.rng.gen_bool(0.5);
                write!(self.w, "{{\"type\":\"Boolean\",\"value\":{b}}}")
            }
            2 => {
                let n = self.number();
                write!(self.w, "{{\"type\":\"Number\",\"value\":{n}}}")
            }
            _ => {
                let x = self.name();
                write!(self.w, "{{\"type\":\"Id\",\"name\":\"{x}\"}}")
            }
        }
    }

    /// A random expression of depth at most `depth` (recursion is bounded
    /// by [`MAX_DEPTH`]).
    fn expr(&mut self, depth: u32) -> io::Result<()> {
        if depth == 0 {
            return self.leaf();
        }
        match self.rng.gen_range(0..9) {
            0 | 1 => self.leaf(),
            2 | 3 => {
                // Divide: half of them on two literals.
                self.w.write_all(b"{\"type\":\"Divide\",\"left\":")?;
                if self.rng.gen_bool(0.5) {
                    let (n, m) = (self.number(), self.number());
                    write!(
                        self.w,
                        "{{\"type\":\"Number\",\"value\":{n}}},\"right\":{{\"type\":\"Number\",\"value\":{m}}}"
                    )?;
                } else {
                    self.expr(depth - 1)?;
                    self.w.write_all(b",\"right\":")?;
                    self.expr(depth - 1)?;
                }
                self.w.write_all(b"}")
            }
            4 | 5 => {
                // If: mostly on a literal condition.
                self.w.write_all(b"{\"type\":\"If\",\"conditional\":")?;
                if self.rng.gen_bool(0.7) {
                    let b = self.rng.gen_bool(0.5);
                    write!(self.w, "{{\"type\":\"Boolean\",\"value\":{b}}}")?;
                } else {
                    self.expr(depth - 1)?;
                }
                self.w.write_all(b",\"consequence\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b",\"alternative\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b"}")
            }
            6 | 7 => {
                // Let: half of them redundant (`let x = e in x`).
                let x = self.name();
                write!(self.w, "{{\"type\":\"Let\",\"id\":\"{x}\",\"value\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b",\"body\":")?;
                if self.rng.gen_bool(0.5) {
                    write!(self.w, "{{\"type\":\"Id\",\"name\":\"{x}\"}}")?;
                } else {
                    self.expr(depth - 1)?;
                }
                self.w.write_all(b"}")
            }
            _ => {
                self.w.write_all(b"{\"type\":\"Sequence\",\"first\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b",\"second\":")?;
                self.expr(depth - 1)?;
                self.w.write_all(b"}")
            }
        }
    }
}

pub(crate) fn generate(w: &mut dyn Write, size: usize, seed: u64) -> io::Result<()> {
    let mut g = Gen {
        w,
        rng: ChaCha8Rng::seed_from_u64(seed),
    };
    g.w.write_all(b"{\"type\":\"Program\",\"body\":")?;
    // e1; (e2; (...; en)) written as a loop: n - 1 Sequence nodes.
    for _ in 0..size - 1 {
        g.w.write_all(b"{\"type\":\"Sequence\",\"first\":")?;
        g.expr(MAX_DEPTH)?;
        g.w.write_all(b",\"second\":")?;
    }
    g.expr(MAX_DEPTH)?;
    out::close_braces(g.out(), size - 1)?;
    g.w.write_all(b"}")
}
