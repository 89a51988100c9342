//! Random programs of the C-like language of `examples/minic/` (a
//! directory program: `types.tf` and one file per pass).
//!
//! A program has `size` functions `f0 .. f{size-1}`, each with 0 to 3
//! integer parameters, returning `Int`. A body is what a test suite of a
//! small C compiler looks like, with every pattern the passes rewrite
//! present in realistic proportions: nested blocks and scopes, typed and
//! inferred `let`s, assignments and the sugar forms (`+=`, `++`, `--`,
//! `for`, `do-while`), `if`s on conditions that are sometimes constant,
//! loops, calls to any function (forward calls included), foldable
//! arithmetic, multiplications by powers of two, `print`s, effect-free
//! expression statements, and now and then statements after a `return`.
//!
//! Variables are tracked per scope, so generated programs resolve and type
//! check except for a small, deliberate share of mistakes (an unknown
//! name, `!` on an integer). Depths are bounded (statements 4 levels,
//! expressions 4), so the writer may recurse; the function list is a JSON
//! array, not a nested chain. About 100 nodes per function.

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Deepest statement nesting (blocks, ifs, loops).
const MAX_STMT_DEPTH: u32 = 4;
/// Deepest expression nesting.
const MAX_EXPR_DEPTH: u32 = 4;

const ARITH: [&str; 10] = [
    "Add", "Sub", "Mul", "Div", "Mod", "Shl", "Shr", "BitAnd", "BitOr", "BitXor",
];
const COMPARE: [&str; 6] = ["Lt", "Le", "Gt", "Ge", "Eq", "Ne"];

struct Gen<'a> {
    w: &'a mut dyn Write,
    rng: ChaCha8Rng,
    /// The number of parameters of every function.
    arities: Vec<usize>,
    /// The variables in scope, innermost scope last: (name, is an int).
    scopes: Vec<Vec<(String, bool)>>,
    /// The next fresh variable number in the current function.
    fresh: usize,
}

impl Gen<'_> {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    /// A variable in scope of the wanted kind, if any.
    fn var(&mut self, int: bool) -> Option<String> {
        let all: Vec<&String> = self
            .scopes
            .iter()
            .flatten()
            .filter(|(_, i)| *i == int)
            .map(|(n, _)| n)
            .collect();
        if all.is_empty() {
            None
        } else {
            Some(all[self.rng.gen_range(0..all.len())].clone())
        }
    }

    fn declare(&mut self, int: bool) -> String {
        let name = format!("v{}", self.fresh);
        self.fresh += 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.clone(), int));
        }
        name
    }

    fn int_lit(&mut self, v: i64) -> io::Result<()> {
        write!(self.w, "{{\"type\":\"IntLit\",\"v\":{v}}}")
    }

    fn small(&mut self) -> i64 {
        self.rng.gen_range(0..20)
    }

    fn arith(
        &mut self,
        op: &str,
        depth: u32,
        right: impl FnOnce(&mut Self) -> io::Result<()>,
    ) -> io::Result<()> {
        write!(self.w, "{{\"type\":\"Arith\",\"op\":\"{op}\",\"l\":")?;
        self.int_expr(depth - 1)?;
        self.w.write_all(b",\"r\":")?;
        right(self)?;
        self.w.write_all(b"}")
    }

    /// An integer expression.
    fn int_expr(&mut self, depth: u32) -> io::Result<()> {
        let roll = if depth == 0 {
            self.rng.gen_range(0..10)
        } else {
            self.rng.gen_range(0..24)
        };
        match roll {
            0..=3 => {
                let v = self.small();
                self.int_lit(v)
            }
            4..=9 => match self.var(true) {
                Some(n) => write!(self.w, "{{\"type\":\"Var\",\"name\":\"{n}\"}}"),
                None => {
                    let v = self.small();
                    self.int_lit(v)
                }
            },
            10 | 11 => {
                // Foldable: two literals.
                let op = ["Add", "Sub", "Mul", "BitAnd", "BitOr"][self.rng.gen_range(0..5)];
                let (a, b) = (self.small(), self.small());
                write!(self.w, "{{\"type\":\"Arith\",\"op\":\"{op}\",\"l\":")?;
                self.int_lit(a)?;
                self.w.write_all(b",\"r\":")?;
                self.int_lit(b)?;
                self.w.write_all(b"}")
            }
            12..=14 => {
                // Multiplication by a power of two (sometimes on the left).
                let k = 1i64 << self.rng.gen_range(1..6);
                if self.chance(0.7) {
                    self.arith("Mul", depth, |g| g.int_lit(k))
                } else {
                    write!(self.w, "{{\"type\":\"Arith\",\"op\":\"Mul\",\"l\":")?;
                    self.int_lit(k)?;
                    self.w.write_all(b",\"r\":")?;
                    self.int_expr(depth - 1)?;
                    self.w.write_all(b"}")
                }
            }
            15 => {
                // An identity for simplify: x + 0, x * 1.
                let (op, k) = if self.chance(0.5) {
                    ("Add", 0)
                } else {
                    ("Mul", 1)
                };
                self.arith(op, depth, |g| g.int_lit(k))
            }
            16..=19 => {
                let op = ARITH[self.rng.gen_range(0..ARITH.len())];
                // Division and shifts mostly by literals that are defined.
                if matches!(op, "Div" | "Mod" | "Shl" | "Shr") {
                    let k = self.rng.gen_range(1..8);
                    self.arith(op, depth, |g| g.int_lit(k))
                } else {
                    self.arith(op, depth, |g| g.int_expr(depth - 1))
                }
            }
            20 | 21 => self.call(depth),
            22 => {
                self.w.write_all(b"{\"type\":\"Neg\",\"e\":")?;
                self.int_expr(depth - 1)?;
                self.w.write_all(b"}")
            }
            _ => {
                self.w.write_all(b"{\"type\":\"Cond\",\"c\":")?;
                self.bool_expr(depth - 1)?;
                self.w.write_all(b",\"a\":")?;
                self.int_expr(depth - 1)?;
                self.w.write_all(b",\"b\":")?;
                self.int_expr(depth - 1)?;
                self.w.write_all(b"}")
            }
        }
    }

    fn call(&mut self, depth: u32) -> io::Result<()> {
        let f = self.rng.gen_range(0..self.arities.len());
        let arity = self.arities[f];
        write!(self.w, "{{\"type\":\"Call\",\"name\":\"f{f}\",\"args\":[")?;
        for i in 0..arity {
            if i > 0 {
                self.w.write_all(b",")?;
            }
            self.int_expr(depth.saturating_sub(2))?;
        }
        self.w.write_all(b"]}")
    }

    /// A boolean expression: mostly comparisons, some of them on constants.
    fn bool_expr(&mut self, depth: u32) -> io::Result<()> {
        let roll = if depth == 0 {
            self.rng.gen_range(0..3)
        } else {
            self.rng.gen_range(0..12)
        };
        match roll {
            0 => {
                let b = self.chance(0.5);
                write!(self.w, "{{\"type\":\"BoolLit\",\"v\":{b}}}")
            }
            1 | 2 => match self.var(false) {
                Some(n) => write!(self.w, "{{\"type\":\"Var\",\"name\":\"{n}\"}}"),
                None => write!(self.w, "{{\"type\":\"BoolLit\",\"v\":true}}"),
            },
            3..=8 => {
                let op = COMPARE[self.rng.gen_range(0..COMPARE.len())];
                write!(self.w, "{{\"type\":\"Compare\",\"op\":\"{op}\",\"l\":")?;
                self.int_expr(depth - 1)?;
                self.w.write_all(b",\"r\":")?;
                self.int_expr(depth - 1)?;
                self.w.write_all(b"}")
            }
            9 | 10 => {
                let op = if self.chance(0.5) { "And" } else { "Or" };
                write!(self.w, "{{\"type\":\"Logical\",\"op\":\"{op}\",\"l\":")?;
                self.bool_expr(depth - 1)?;
                self.w.write_all(b",\"r\":")?;
                self.bool_expr(depth - 1)?;
                self.w.write_all(b"}")
            }
            _ => {
                self.w.write_all(b"{\"type\":\"Not\",\"e\":")?;
                self.bool_expr(depth - 1)?;
                self.w.write_all(b"}")
            }
        }
    }

    /// A condition: a third of them constant or foldable.
    fn condition(&mut self) -> io::Result<()> {
        match self.rng.gen_range(0..9) {
            0 => {
                let b = self.chance(0.5);
                write!(self.w, "{{\"type\":\"BoolLit\",\"v\":{b}}}")
            }
            1 | 2 => {
                let op = COMPARE[self.rng.gen_range(0..COMPARE.len())];
                let (a, b) = (self.small(), self.small());
                write!(self.w, "{{\"type\":\"Compare\",\"op\":\"{op}\",\"l\":")?;
                self.int_lit(a)?;
                self.w.write_all(b",\"r\":")?;
                self.int_lit(b)?;
                self.w.write_all(b"}")
            }
            _ => self.bool_expr(2),
        }
    }

    fn block(&mut self, statements: usize, depth: u32) -> io::Result<()> {
        self.scopes.push(Vec::new());
        self.w.write_all(b"{\"type\":\"Block\",\"stmts\":[")?;
        for i in 0..statements {
            if i > 0 {
                self.w.write_all(b",")?;
            }
            self.stmt(depth)?;
        }
        self.w.write_all(b"]}")?;
        self.scopes.pop();
        Ok(())
    }

    fn let_stmt(&mut self) -> io::Result<()> {
        let int = self.chance(0.85);
        let name = format!("v{}", self.fresh);
        self.fresh += 1;
        let decl = match (int, self.rng.gen_range(0..3)) {
            (_, 0) => "",
            (true, _) => ",\"decl\":\"Int\"",
            (false, _) => ",\"decl\":\"Bool\"",
        };
        write!(
            self.w,
            "{{\"type\":\"Let\",\"name\":\"{name}\"{decl},\"init\":"
        )?;
        if int {
            self.int_expr(MAX_EXPR_DEPTH)?;
        } else {
            self.bool_expr(2)?;
        }
        self.w.write_all(b"}")?;
        // In scope only after its initializer, which cannot see it.
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, int));
        }
        Ok(())
    }

    fn assign_to(&mut self) -> Option<String> {
        if self.chance(0.01) {
            // A mistake: an undeclared name.
            return Some("undeclared".to_string());
        }
        self.var(true)
    }

    fn stmt(&mut self, depth: u32) -> io::Result<()> {
        let nested = depth > 0;
        let roll = self.rng.gen_range(0..if nested { 32 } else { 20 });
        match roll {
            0..=6 => self.let_stmt(),
            7..=9 => match self.assign_to() {
                Some(n) => {
                    write!(self.w, "{{\"type\":\"Assign\",\"name\":\"{n}\",\"value\":")?;
                    self.int_expr(MAX_EXPR_DEPTH)?;
                    self.w.write_all(b"}")
                }
                None => self.let_stmt(),
            },
            10 | 11 => match self.var(true) {
                Some(n) => {
                    let op = ["Add", "Sub", "Mul", "BitOr"][self.rng.gen_range(0..4)];
                    write!(
                        self.w,
                        "{{\"type\":\"CompoundAssign\",\"name\":\"{n}\",\"op\":\"{op}\",\"value\":"
                    )?;
                    self.int_expr(2)?;
                    self.w.write_all(b"}")
                }
                None => self.let_stmt(),
            },
            12 => match self.var(true) {
                Some(n) => {
                    let ty = if self.chance(0.6) { "Incr" } else { "Decr" };
                    write!(self.w, "{{\"type\":\"{ty}\",\"name\":\"{n}\"}}")
                }
                None => self.let_stmt(),
            },
            13 | 14 => {
                self.w.write_all(b"{\"type\":\"Print\",\"e\":")?;
                self.int_expr(2)?;
                self.w.write_all(b"}")
            }
            15 => {
                self.w.write_all(b"{\"type\":\"ExprStmt\",\"e\":")?;
                if self.chance(0.6) {
                    self.call(2)?;
                } else {
                    self.int_expr(2)?;
                }
                self.w.write_all(b"}")
            }
            16 => self.w.write_all(b"{\"type\":\"Nop\"}"),
            17..=19 => {
                if self.chance(0.02) {
                    // A mistake: `!` on an integer.
                    let name = self.declare(false);
                    write!(
                        self.w,
                        "{{\"type\":\"Let\",\"name\":\"{name}\",\"init\":{{\"type\":\"Not\",\"e\":"
                    )?;
                    self.int_expr(1)?;
                    return self.w.write_all(b"}}");
                }
                self.let_stmt()
            }
            // Nested statements (depth > 0 only).
            20..=24 => {
                self.w.write_all(b"{\"type\":\"If\",\"cond\":")?;
                self.condition()?;
                self.w.write_all(b",\"then_b\":")?;
                let n = self.rng.gen_range(1..4);
                self.block(n, depth - 1)?;
                self.w.write_all(b",\"else_b\":")?;
                let n = if self.chance(0.5) {
                    0
                } else {
                    self.rng.gen_range(1..3)
                };
                self.block(n, depth - 1)?;
                self.w.write_all(b"}")
            }
            25 | 26 => {
                // A counting loop.
                self.scopes.push(Vec::new());
                let i = self.declare(true);
                let bound = self.rng.gen_range(1..10);
                write!(
                    self.w,
                    "{{\"type\":\"For\",\"init\":{{\"type\":\"Let\",\"name\":\"{i}\",\"init\":{{\"type\":\"IntLit\",\"v\":0}}}},\"cond\":{{\"type\":\"Compare\",\"op\":\"Lt\",\"l\":{{\"type\":\"Var\",\"name\":\"{i}\"}},\"r\":{{\"type\":\"IntLit\",\"v\":{bound}}}}},\"step\":{{\"type\":\"Incr\",\"name\":\"{i}\"}},\"body\":"
                )?;
                let n = self.rng.gen_range(1..4);
                self.block(n, depth - 1)?;
                self.w.write_all(b"}")?;
                self.scopes.pop();
                Ok(())
            }
            27 => {
                self.w.write_all(b"{\"type\":\"While\",\"cond\":")?;
                if self.chance(0.2) {
                    self.w.write_all(b"{\"type\":\"BoolLit\",\"v\":false}")?;
                } else {
                    self.bool_expr(2)?;
                }
                self.w.write_all(b",\"body\":")?;
                let n = self.rng.gen_range(1..3);
                self.block(n, depth - 1)?;
                self.w.write_all(b"}")
            }
            28 => {
                self.w.write_all(b"{\"type\":\"DoWhile\",\"body\":")?;
                let n = self.rng.gen_range(1..3);
                self.block(n, depth - 1)?;
                self.w.write_all(b",\"cond\":")?;
                self.bool_expr(2)?;
                self.w.write_all(b"}")
            }
            29 | 30 => {
                let n = self.rng.gen_range(1..4);
                self.block(n, depth - 1)
            }
            _ => {
                // An early return inside a conditional.
                self.w.write_all(b"{\"type\":\"If\",\"cond\":")?;
                self.bool_expr(2)?;
                self.w.write_all(
                    b",\"then_b\":{\"type\":\"Block\",\"stmts\":[{\"type\":\"Return\",\"value\":",
                )?;
                self.int_expr(2)?;
                self.w
                    .write_all(b"}]},\"else_b\":{\"type\":\"Block\",\"stmts\":[]}}")
            }
        }
    }

    fn function(&mut self, index: usize) -> io::Result<()> {
        let arity = self.arities[index];
        self.fresh = 0;
        self.scopes.push(Vec::new());
        write!(
            self.w,
            "{{\"type\":\"Func\",\"name\":\"f{index}\",\"ret\":\"Int\",\"params\":["
        )?;
        for p in 0..arity {
            if p > 0 {
                self.w.write_all(b",")?;
            }
            let name = self.declare(true);
            write!(
                self.w,
                "{{\"type\":\"Param\",\"name\":\"{name}\",\"ty\":\"Int\"}}"
            )?;
        }
        self.w.write_all(b"],\"body\":")?;
        // The body: statements, a return, sometimes dead code after it.
        self.scopes.push(Vec::new());
        self.w.write_all(b"{\"type\":\"Block\",\"stmts\":[")?;
        let n = self.rng.gen_range(4..12);
        for _ in 0..n {
            self.stmt(MAX_STMT_DEPTH - 1)?;
            self.w.write_all(b",")?;
        }
        self.w.write_all(b"{\"type\":\"Return\",\"value\":")?;
        self.int_expr(3)?;
        self.w.write_all(b"}")?;
        if self.chance(0.25) {
            for _ in 0..self.rng.gen_range(1..3) {
                self.w.write_all(b",")?;
                self.stmt(1)?;
            }
        }
        self.w.write_all(b"]}}")?;
        self.scopes.pop();
        self.scopes.pop();
        Ok(())
    }
}

pub(crate) fn generate(w: &mut dyn Write, size: usize, seed: u64) -> io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let arities = (0..size).map(|_| rng.gen_range(0..4)).collect();
    let mut g = Gen {
        w,
        rng,
        arities,
        scopes: Vec::new(),
        fresh: 0,
    };
    g.w.write_all(b"{\"type\":\"Program\",\"funcs\":[")?;
    for f in 0..size {
        if f > 0 {
            g.w.write_all(b",")?;
        }
        g.function(f)?;
    }
    g.w.write_all(b"]}")
}
