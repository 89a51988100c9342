//! AST programs 1, 2 and 3 (ASTBuilder.h of the reference).
//!
//! JSON shape: see `examples/ast/ast.tf` (linked statement and function
//! lists) and `examples/ast/ast_lists.tf` (list children: `Program.functions`
//! is `[Function]`, a function's and a branch's statements are a `Block` of
//! `Stmt` slots, each holding one statement).

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::out::{self, Chain, Out};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Linked,
    Lists,
}

/// `ExprOperator::ADD`.
const ADD: i64 = 0;

const FUNCS: Chain = Chain {
    inner: "FunctionListInner",
    end: "FunctionListEnd",
    content: "content",
    next: "next",
};
const STMTS: Chain = Chain {
    inner: "StmtListInner",
    end: "StmtListEnd",
    content: "stmt",
    next: "next",
};

struct Gen<'a> {
    w: &'a mut dyn Write,
    rng: ChaCha8Rng,
    shape: Shape,
}

impl Out for Gen<'_> {
    fn out(&mut self) -> &mut dyn Write {
        self.w
    }
}

fn var_ref(id: i64) -> String {
    format!("{{\"type\":\"VarRefExpr\",\"var_id\":{id}}}")
}

fn constant(value: i64) -> String {
    format!("{{\"type\":\"ConstantExpr\",\"value\":{value}}}")
}

/// `createAddExpr` applied left-deep: `(((v0 + v1) + v2) + ...)`.
fn sum(ids: &[i64]) -> String {
    let mut s = var_ref(ids[0]);
    for &id in &ids[1..] {
        s = format!(
            "{{\"type\":\"BinaryExpr\",\"operator\":{ADD},\"lhs\":{s},\"rhs\":{}}}",
            var_ref(id)
        );
    }
    s
}

impl Gen<'_> {
    /// C++ `rand() % n`.
    fn below(&mut self, n: i64) -> i64 {
        self.rng.gen_range(0..n)
    }

    /// The macro `X` = `rand() % 5`.
    fn x(&mut self) -> i64 {
        self.below(5)
    }

    fn raw(&mut self, s: &str) -> io::Result<()> {
        self.w.write_all(s.as_bytes())
    }

    /// A statement sequence of `count >= 1` statements: a StmtListInner/End
    /// chain, or a `Block` of `Stmt` slots.
    fn stmt_seq(
        &mut self,
        count: usize,
        item: impl FnMut(&mut Self, usize) -> io::Result<()>,
    ) -> io::Result<()> {
        match self.shape {
            Shape::Linked => out::linked(self, &STMTS, count, item),
            Shape::Lists => {
                self.raw("{\"type\":\"Block\",\"stmts\":")?;
                out::array(self, count, Some(("Stmt", "stmt")), item)?;
                self.raw("}")
            }
        }
    }

    fn function(
        &mut self,
        name: &str,
        count: usize,
        item: impl FnMut(&mut Self, usize) -> io::Result<()>,
    ) -> io::Result<()> {
        let key = match self.shape {
            Shape::Linked => "stmt_list",
            Shape::Lists => "body",
        };
        write!(
            self.w,
            "{{\"type\":\"Function\",\"function_name\":{},\"{key}\":",
            out::string(name)
        )?;
        self.stmt_seq(count, item)?;
        self.raw("}")
    }

    fn program(
        &mut self,
        functions: usize,
        item: impl FnMut(&mut Self, usize) -> io::Result<()>,
    ) -> io::Result<()> {
        self.raw("{\"type\":\"Program\",\"functions\":")?;
        match self.shape {
            Shape::Linked => out::linked(self, &FUNCS, functions, item)?,
            Shape::Lists => out::array(self, functions, None, item)?,
        }
        self.raw("}")
    }

    fn assign(&mut self, id: i64, expr: &str) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"AssignStmt\",\"id\":{},\"assigned_expr\":{expr}}}",
            var_ref(id)
        )
    }

    fn incr(&mut self, id: i64) -> io::Result<()> {
        write!(self.w, "{{\"type\":\"IncrStmt\",\"id\":{}}}", var_ref(id))
    }

    /// `MEM[X] = MEM[X]`.
    fn assign_var_x(&mut self) -> io::Result<()> {
        let id = self.x();
        let rhs = self.x();
        self.assign(id, &var_ref(rhs))
    }

    /// `MEM[X] = (((X + X) + X) + X) + X`.
    fn assign_sum_x(&mut self) -> io::Result<()> {
        let id = self.x();
        let ids: Vec<i64> = (0..5).map(|_| self.x()).collect();
        self.assign(id, &sum(&ids))
    }

    /// Item `j` of `createListOfStmt(n, add_if)`, which has n + 2 items.
    fn list_item(&mut self, n: usize, add_if: bool, j: usize) -> io::Result<()> {
        if j == 0 {
            self.assign_var_x()
        } else if j <= n || !add_if {
            self.assign_sum_x()
        } else {
            self.if_stmt(5)
        }
    }

    /// `createIf(sz)`: `if (X + X)` with two `createListOfStmt(sz)` branches.
    fn if_stmt(&mut self, sz: usize) -> io::Result<()> {
        let a = self.x();
        let b = self.x();
        write!(
            self.w,
            "{{\"type\":\"IfStmt\",\"condition\":{},\"then_part\":",
            sum(&[a, b])
        )?;
        self.stmt_seq(sz + 2, |g, j| g.list_item(sz, false, j))?;
        self.raw(",\"else_part\":")?;
        self.stmt_seq(sz + 2, |g, j| g.list_item(sz, false, j))?;
        self.raw("}")
    }

    /// `createFunction(i)` (the paper's version: `MEM[0] = 10`).
    fn function1(&mut self, i: usize) -> io::Result<()> {
        self.function(&format!("F{i}"), 9, |g, k| match k {
            0 => g.assign(0, &constant(10)),
            1 => g.incr(0),
            _ => g.list_item(5, true, k - 2),
        })
    }

    /// One random statement of `createLargeFunction`.
    fn stmt_prog2(&mut self) -> io::Result<()> {
        const SZ: i64 = 20;
        match self.below(4) {
            0 => {
                let lhs = self.below(SZ);
                let rhs = self.below(SZ);
                self.assign(lhs, &var_ref(rhs))
            }
            1 => {
                let lhs = self.below(SZ);
                let c = self.below(1000);
                self.assign(lhs, &constant(c))
            }
            2 => {
                let id = self.below(SZ);
                self.incr(id)
            }
            _ => self.if_stmt(1),
        }
    }

    /// One random statement of `createLongLiveRangeFunc`.
    fn stmt_prog3(&mut self, used: &mut OrderedSet) -> io::Result<()> {
        const SZ2: i64 = 1_000_000_000;
        match self.below(4) {
            0 => {
                let lhs = self.below(SZ2);
                used.insert(lhs);
                let k = self.below(used.len() as i64) as usize;
                let rhs = used.nth(k);
                self.assign(lhs, &var_ref(rhs))
            }
            1 => {
                let lhs = self.below(SZ2);
                let c = self.below(1000);
                self.assign(lhs, &constant(c))?;
                used.insert(lhs);
                Ok(())
            }
            2 => {
                let id = self.below(SZ2);
                self.incr(id)
            }
            _ => self.if_stmt(1),
        }
    }

    /// A function of `n` random statements followed by `MEM[0]++` twice.
    fn random_function(&mut self, name: &str, n: usize, long_live_ranges: bool) -> io::Result<()> {
        let mut used = OrderedSet::default();
        self.function(name, n + 2, |g, k| {
            if k >= n {
                g.incr(0)
            } else if long_live_ranges {
                g.stmt_prog3(&mut used)
            } else {
                g.stmt_prog2()
            }
        })
    }
}

pub(crate) fn generate(
    w: &mut dyn Write,
    shape: Shape,
    variant: u8,
    size: usize,
    seed: u64,
) -> io::Result<()> {
    let mut g = Gen {
        w,
        rng: ChaCha8Rng::seed_from_u64(seed),
        shape,
    };
    match variant {
        // createProgram1(F): F copies of the function (the C++ builder makes
        // at least 2; here F = 1 gives a single FunctionListEnd).
        1 => g.program(size, |g, i| g.function1(i)),
        // createLargeFunctionProg(F): one function of F random statements.
        2 => g.program(1, |g, _| g.random_function("largeFunction", size, false)),
        // createLongLiveRangeProg(F, 200): F functions of 200 statements,
        // the last one of F + 1.
        3 => g.program(size, |g, i| {
            let n = if i + 1 == size { size + 1 } else { 200 };
            g.random_function("largeFunction", n, true)
        }),
        _ => unreachable!("variant checked by the caller"),
    }
}

/// A sorted set of variable ids with `nth` (the C++ code advances a
/// `std::set` iterator), kept as sorted blocks so that both operations stay
/// cheap for large functions.
#[derive(Default)]
struct OrderedSet {
    blocks: Vec<Vec<i64>>,
    len: usize,
}

impl OrderedSet {
    const MAX_BLOCK: usize = 512;

    fn len(&self) -> usize {
        self.len
    }

    fn insert(&mut self, v: i64) -> bool {
        if self.blocks.is_empty() {
            self.blocks.push(vec![v]);
            self.len = 1;
            return true;
        }
        // The first block whose last element is >= v, or the last block.
        let b = self
            .blocks
            .partition_point(|blk| *blk.last().expect("blocks are never empty") < v)
            .min(self.blocks.len() - 1);
        let blk = &mut self.blocks[b];
        match blk.binary_search(&v) {
            Ok(_) => false,
            Err(pos) => {
                blk.insert(pos, v);
                self.len += 1;
                if blk.len() > Self::MAX_BLOCK {
                    let tail = blk.split_off(blk.len() / 2);
                    self.blocks.insert(b + 1, tail);
                }
                true
            }
        }
    }

    fn nth(&self, mut k: usize) -> i64 {
        for blk in &self.blocks {
            if k < blk.len() {
                return blk[k];
            }
            k -= blk.len();
        }
        panic!("nth({k}) out of range for a set of {}", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::OrderedSet;
    use std::collections::BTreeSet;

    #[test]
    fn ordered_set_matches_btreeset() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut ours = OrderedSet::default();
        let mut reference = BTreeSet::new();
        for _ in 0..5000 {
            let v = rng.gen_range(0..3000);
            assert_eq!(ours.insert(v), reference.insert(v));
            assert_eq!(ours.len(), reference.len());
            let k = rng.gen_range(0..reference.len());
            assert_eq!(ours.nth(k), *reference.iter().nth(k).unwrap());
        }
    }
}
