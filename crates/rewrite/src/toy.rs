//! The blog's toy language: AST, parser, printer, seeded random programs,
//! the three rules, and the hand-written passes they are compared with.
//!
//! ```text
//! e ::= (e) | () | true | false | 0 | 1 | ... | id
//!     | e / e | e; e | let id = e in e | if e then e else e
//! ```
//!
//! The rules ([`DeadCodeElimination`], [`ConstantDivision`],
//! [`RedundantLet`]) are written once in open-recursion style. For the
//! benchmark and the property tests the module also has the blog's two
//! hand-written baselines: [`not_fused`] (three separate recursive passes)
//! and [`manually_fused`] (one recursive `match`).

use std::fmt;
use std::rc::Rc;

use crate::rule::{Chain, Cx, Edit, End, Env, Hook, Rule};
use crate::Rewritable;

/// A name: shared and immutable, like the blog's OCaml strings (and like
/// the interned symbols of real compilers), so that copying or dropping a
/// name never copies or frees its text.
pub type Name = Rc<str>;

/// An expression of the toy language. (`Default` is `()`, the placeholder
/// left behind when a rule takes a subtree out of a node.)
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Rewritable)]
pub enum Expr {
    /// `()`
    #[default]
    Unit,
    /// `true` / `false`
    Bool(bool),
    /// An integer literal.
    Num(i64),
    /// A variable.
    Id(Name),
    /// `a / b`
    Div(Box<Expr>, Box<Expr>),
    /// `a; b`
    Seq(Box<Expr>, Box<Expr>),
    /// `let id = value in body`
    Let {
        /// The bound name.
        id: Name,
        /// The bound value.
        value: Box<Expr>,
        /// The body.
        body: Box<Expr>,
    },
    /// `if cond then then else els`
    If {
        /// The condition.
        cond: Box<Expr>,
        /// The `then` branch.
        then: Box<Expr>,
        /// The `else` branch.
        els: Box<Expr>,
    },
}

impl Expr {
    /// `a / b`
    pub fn divide(a: Expr, b: Expr) -> Expr {
        Expr::Div(Box::new(a), Box::new(b))
    }
    /// `a; b`
    pub fn seq(a: Expr, b: Expr) -> Expr {
        Expr::Seq(Box::new(a), Box::new(b))
    }
    /// `let id = value in body`
    pub fn let_(id: &str, value: Expr, body: Expr) -> Expr {
        Expr::Let {
            id: Rc::from(id),
            value: Box::new(value),
            body: Box::new(body),
        }
    }
    /// `if cond then then else els`
    pub fn if_(cond: Expr, then: Expr, els: Expr) -> Expr {
        Expr::If {
            cond: Box::new(cond),
            then: Box::new(then),
            els: Box::new(els),
        }
    }
    /// A variable.
    pub fn id(name: &str) -> Expr {
        Expr::Id(Rc::from(name))
    }

    /// Precedence of the node as printed: 0 sequence, 1 `let`/`if`, 2
    /// division, 3 atom.
    fn prec(&self) -> u8 {
        match self {
            Expr::Seq(..) => 0,
            Expr::Let { .. } | Expr::If { .. } => 1,
            Expr::Div(..) => 2,
            _ => 3,
        }
    }

    fn fmt_in(&self, f: &mut fmt::Formatter<'_>, ctx: u8) -> fmt::Result {
        if self.prec() < ctx {
            f.write_str("(")?;
            self.fmt_in(f, 0)?;
            return f.write_str(")");
        }
        match self {
            Expr::Unit => f.write_str("()"),
            Expr::Bool(b) => write!(f, "{b}"),
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Id(s) => f.write_str(s),
            Expr::Div(a, b) => {
                a.fmt_in(f, 2)?;
                f.write_str(" / ")?;
                b.fmt_in(f, 3)
            }
            Expr::Seq(a, b) => {
                a.fmt_in(f, 2)?;
                f.write_str("; ")?;
                b.fmt_in(f, 0)
            }
            Expr::Let { id, value, body } => {
                write!(f, "let {id} = ")?;
                value.fmt_in(f, 0)?;
                f.write_str(" in ")?;
                body.fmt_in(f, 0)
            }
            Expr::If { cond, then, els } => {
                f.write_str("if ")?;
                cond.fmt_in(f, 0)?;
                f.write_str(" then ")?;
                then.fmt_in(f, 0)?;
                f.write_str(" else ")?;
                els.fmt_in(f, 0)
            }
        }
    }
}

impl fmt::Display for Expr {
    /// Prints in the concrete syntax, with the parentheses needed to parse
    /// back to the same tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in(f, 0)
    }
}

// ---------------------------------------------------------------- parser --

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    LParen,
    RParen,
    Slash,
    Semi,
    Eq,
    Num(i64),
    Word(String),
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'(' => {
                out.push(Tok::LParen);
                i += 1
            }
            b')' => {
                out.push(Tok::RParen);
                i += 1
            }
            b'/' => {
                out.push(Tok::Slash);
                i += 1
            }
            b';' => {
                out.push(Tok::Semi);
                i += 1
            }
            b'=' => {
                out.push(Tok::Eq);
                i += 1
            }
            b'0'..=b'9' | b'-' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let text = &src[start..i];
                let n = text
                    .parse::<i64>()
                    .map_err(|e| format!("bad number {text:?} at byte {start}: {e}"))?;
                out.push(Tok::Num(n));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Word(src[start..i].to_string()));
            }
            _ => return Err(format!("unexpected character {:?} at byte {i}", c as char)),
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

const KEYWORDS: [&str; 7] = ["let", "in", "if", "then", "else", "true", "false"];

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn bump(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn expect(&mut self, t: &Tok) -> Result<(), String> {
        match self.bump() {
            Some(ref u) if u == t => Ok(()),
            other => Err(format!("expected {t:?}, found {other:?}")),
        }
    }
    fn keyword(&mut self, kw: &str) -> Result<(), String> {
        match self.bump() {
            Some(Tok::Word(w)) if w == kw => Ok(()),
            other => Err(format!("expected `{kw}`, found {other:?}")),
        }
    }
    fn is_word(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if w == kw)
    }
    /// seq := binder (';' seq)?
    fn seq(&mut self) -> Result<Expr, String> {
        let a = self.binder()?;
        if self.peek() == Some(&Tok::Semi) {
            self.pos += 1;
            let b = self.seq()?;
            return Ok(Expr::seq(a, b));
        }
        Ok(a)
    }
    /// binder := let id = seq in seq | if seq then seq else seq | div
    fn binder(&mut self) -> Result<Expr, String> {
        if self.is_word("let") {
            self.pos += 1;
            let id = match self.bump() {
                Some(Tok::Word(w)) if !KEYWORDS.contains(&w.as_str()) => w,
                other => return Err(format!("expected a name after `let`, found {other:?}")),
            };
            self.expect(&Tok::Eq)?;
            let value = self.seq()?;
            self.keyword("in")?;
            let body = self.seq()?;
            return Ok(Expr::let_(&id, value, body));
        }
        if self.is_word("if") {
            self.pos += 1;
            let cond = self.seq()?;
            self.keyword("then")?;
            let then = self.seq()?;
            self.keyword("else")?;
            let els = self.seq()?;
            return Ok(Expr::if_(cond, then, els));
        }
        self.div()
    }
    /// div := atom ('/' atom)*
    fn div(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        while self.peek() == Some(&Tok::Slash) {
            self.pos += 1;
            let r = self.atom()?;
            e = Expr::divide(e, r);
        }
        Ok(e)
    }
    fn atom(&mut self) -> Result<Expr, String> {
        match self.bump() {
            Some(Tok::LParen) => {
                if self.peek() == Some(&Tok::RParen) {
                    self.pos += 1;
                    return Ok(Expr::Unit);
                }
                let e = self.seq()?;
                self.expect(&Tok::RParen)?;
                Ok(e)
            }
            Some(Tok::Num(n)) => Ok(Expr::Num(n)),
            Some(Tok::Word(w)) => match w.as_str() {
                "true" => Ok(Expr::Bool(true)),
                "false" => Ok(Expr::Bool(false)),
                "let" | "if" => {
                    // `10 / let x = 2 in x` without parentheses.
                    self.pos -= 1;
                    self.binder()
                }
                kw if KEYWORDS.contains(&kw) => Err(format!("unexpected keyword `{kw}`")),
                _ => Ok(Expr::Id(Rc::from(w))),
            },
            other => Err(format!("expected an expression, found {other:?}")),
        }
    }
}

/// Parses the concrete syntax (see the module docs). `/` is
/// left-associative and binds tighter than `;`; `let` and `if` extend as far
/// right as possible.
///
/// ```
/// use treefuse_rewrite::toy::{parse, Expr};
/// assert_eq!(parse("10 / (let x = 2 in x)").unwrap(),
///            Expr::divide(Expr::Num(10), Expr::let_("x", Expr::Num(2), Expr::id("x"))));
/// ```
pub fn parse(src: &str) -> Result<Expr, String> {
    let mut p = Parser {
        toks: lex(src)?,
        pos: 0,
    };
    let e = p.seq()?;
    match p.peek() {
        None => Ok(e),
        Some(t) => Err(format!("unexpected {t:?} after the expression")),
    }
}

// ----------------------------------------------------------------- rules --

/// `if true then a else b => a`, `if false then a else b => b`, as `wrap`
/// of the branch (which is taken out of `e`).
#[inline(always)]
fn dead_code(e: &mut Expr, wrap: fn(Expr) -> Edit<Expr>) -> Edit<Expr> {
    match e {
        Expr::If { cond, then, els } => match **cond {
            Expr::Bool(true) => wrap(std::mem::take(&mut **then)),
            Expr::Bool(false) => wrap(std::mem::take(&mut **els)),
            _ => Edit::Keep,
        },
        _ => Edit::Keep,
    }
}

/// `n / m => n ÷ m` for literals, `m ≠ 0` (and no overflow).
#[inline(always)]
fn constant_division(e: &mut Expr, wrap: fn(Expr) -> Edit<Expr>) -> Edit<Expr> {
    match e {
        Expr::Div(a, b) => match constant_quotient(a, b) {
            Some(q) => wrap(Expr::Num(q)),
            None => Edit::Keep,
        },
        _ => Edit::Keep,
    }
}

/// `let x = v in x => v`.
#[inline(always)]
fn redundant_let(e: &mut Expr, wrap: fn(Expr) -> Edit<Expr>) -> Edit<Expr> {
    match e {
        Expr::Let { id, value, body } if matches!(&**body, Expr::Id(n) if n == id) => {
            wrap(std::mem::take(&mut **value))
        }
        _ => Edit::Keep,
    }
}

/// Implements [`Rule`] and [`Hook`] for one toy rule: as a prepare hook
/// answering `Restart` (the blog's top-down fused pass, where a replacement
/// goes through the whole pipeline again) when `POST` is false, as a
/// transform hook answering `Revisit` (bottom-up: children first, and a
/// replacement is visited completely again) when it is true.
macro_rules! toy_rule {
    ($name:ident, $body:ident) => {
        impl<X: Env, const POST: bool> Rule<X> for $name<POST> {
            type Handles = (Expr,);
        }
        impl<X: Env, const POST: bool> Hook<Expr, X> for $name<POST> {
            #[inline(always)]
            fn prepare(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
                Ok(if POST {
                    Edit::Keep
                } else {
                    $body(e, Edit::Restart)
                })
            }
            #[inline(always)]
            fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
                Ok(if POST {
                    $body(e, Edit::Revisit)
                } else {
                    Edit::Keep
                })
            }
        }
    };
}

/// Dead-code elimination: `if true then a else b => a`,
/// `if false then a else b => b`. `POST = true` is the bottom-up variant.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadCodeElimination<const POST: bool = false>;
toy_rule!(DeadCodeElimination, dead_code);

/// Constant division folding: `n / m => n ÷ m` for literals, `m ≠ 0` (and no
/// overflow). `POST = true` is the bottom-up variant.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantDivision<const POST: bool = false>;
toy_rule!(ConstantDivision, constant_division);

/// Redundant-let removal: `let x = v in x => v`. `POST = true` is the
/// bottom-up variant.
#[derive(Clone, Copy, Debug, Default)]
pub struct RedundantLet<const POST: bool = false>;
toy_rule!(RedundantLet, redundant_let);

/// The rule list type of [`rules`].
pub type ToyRules = Chain<DeadCodeElimination, Chain<ConstantDivision, Chain<RedundantLet, End>>>;

/// The blog's three rules, in the blog's order, top-down (the blog's fused
/// pass).
pub fn rules() -> (DeadCodeElimination, ConstantDivision, RedundantLet) {
    (DeadCodeElimination, ConstantDivision, RedundantLet)
}

/// The same rules bottom-up: children first, replacements visited again.
pub fn rules_bottom_up() -> (
    DeadCodeElimination<true>,
    ConstantDivision<true>,
    RedundantLet<true>,
) {
    (DeadCodeElimination, ConstantDivision, RedundantLet)
}

// ------------------------------------------------------------- baselines --

fn constant_quotient(a: &Expr, b: &Expr) -> Option<i64> {
    match (a, b) {
        (Expr::Num(n), Expr::Num(m)) => n.checked_div(*m),
        _ => None,
    }
}

/// Rebuilds `e` with every direct child replaced by `f(child)` (the blog's
/// `map`), for the hand-written baselines.
pub fn map_children(e: Expr, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
    let mut g = |mut b: Box<Expr>| {
        *b = f(std::mem::take(&mut *b));
        b
    };
    match e {
        Expr::Div(a, b) => Expr::Div(g(a), g(b)),
        Expr::Seq(a, b) => Expr::Seq(g(a), g(b)),
        Expr::Let { id, value, body } => Expr::Let {
            id,
            value: g(value),
            body: g(body),
        },
        Expr::If { cond, then, els } => Expr::If {
            cond: g(cond),
            then: g(then),
            els: g(els),
        },
        leaf => leaf,
    }
}

/// The blog's `Manually_fused.pass`: one recursive `match` trying the three
/// rewrites in order.
pub fn manually_fused(e: Expr) -> Expr {
    match e {
        Expr::If { cond, then, els } if matches!(*cond, Expr::Bool(_)) => {
            if *cond == Expr::Bool(true) {
                manually_fused(*then)
            } else {
                manually_fused(*els)
            }
        }
        Expr::Div(a, b) if constant_quotient(&a, &b).is_some() => {
            let q = constant_quotient(&a, &b).unwrap_or_default();
            manually_fused(Expr::Num(q))
        }
        Expr::Let { id, value, body } if matches!(&*body, Expr::Id(n) if *n == id) => {
            manually_fused(*value)
        }
        other => map_children(other, &mut manually_fused),
    }
}

/// The blog's `Not_fused.Dead_code_elimination.pass`.
pub fn dce_pass(e: Expr) -> Expr {
    match e {
        Expr::If { cond, then, els } if matches!(*cond, Expr::Bool(_)) => {
            if *cond == Expr::Bool(true) {
                dce_pass(*then)
            } else {
                dce_pass(*els)
            }
        }
        other => map_children(other, &mut dce_pass),
    }
}

/// The blog's `Not_fused.Constant_propagation.pass`.
pub fn fold_pass(e: Expr) -> Expr {
    match e {
        Expr::Div(a, b) if constant_quotient(&a, &b).is_some() => {
            let q = constant_quotient(&a, &b).unwrap_or_default();
            fold_pass(Expr::Num(q))
        }
        other => map_children(other, &mut fold_pass),
    }
}

/// The blog's `Not_fused.Remove_redundant_let.pass`.
pub fn let_pass(e: Expr) -> Expr {
    match e {
        Expr::Let { id, value, body } if matches!(&*body, Expr::Id(n) if *n == id) => {
            let_pass(*value)
        }
        other => map_children(other, &mut let_pass),
    }
}

/// The blog's `Not_fused.pass`: the three passes one after the other.
pub fn not_fused(e: Expr) -> Expr {
    let_pass(fold_pass(dce_pass(e)))
}

// ------------------------------------------------------------- generator --

/// A small, seeded pseudo-random generator (SplitMix64), so the example
/// needs no dependency and a seed always gives the same program.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
}

const NAMES: [&str; 3] = ["x", "y", "z"];

/// Generates random programs biased towards the three rules' patterns, so
/// that every rule fires often (including rewrites that expose new ones).
#[derive(Clone, Debug)]
pub struct Generator {
    rng: SplitMix64,
    max_depth: u32,
    names: [Name; 3],
}

impl Generator {
    /// A generator with the given seed and maximum tree depth.
    pub fn new(seed: u64, max_depth: u32) -> Self {
        Generator {
            rng: SplitMix64::new(seed),
            max_depth,
            names: NAMES.map(Rc::from),
        }
    }

    /// The next random program.
    pub fn next_expr(&mut self) -> Expr {
        self.expr(self.max_depth)
    }

    fn name(&mut self) -> Name {
        self.names[self.rng.below(NAMES.len() as u64) as usize].clone()
    }

    fn leaf(&mut self) -> Expr {
        match self.rng.below(20) {
            0..=1 => Expr::Unit,
            2..=6 => Expr::Bool(self.rng.below(2) == 0),
            7..=15 => Expr::Num(self.rng.below(20) as i64),
            _ => Expr::Id(self.name()),
        }
    }

    fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0..=2 => self.leaf(),
            3..=6 => {
                if self.rng.below(3) == 0 {
                    let n = Expr::Num(self.rng.below(100) as i64);
                    let m = Expr::Num(self.rng.below(10) as i64);
                    Expr::divide(n, m)
                } else {
                    Expr::divide(self.expr(d), self.expr(d))
                }
            }
            7..=8 => Expr::seq(self.expr(d), self.expr(d)),
            9..=13 => {
                let id = self.name();
                let value = self.expr(d);
                let body = if self.rng.below(5) < 2 {
                    Expr::Id(id.clone())
                } else {
                    self.expr(d)
                };
                Expr::Let {
                    id,
                    value: Box::new(value),
                    body: Box::new(body),
                }
            }
            _ => {
                let cond = if self.rng.below(2) == 0 {
                    Expr::Bool(self.rng.below(2) == 0)
                } else {
                    self.expr(d)
                };
                Expr::if_(cond, self.expr(d), self.expr(d))
            }
        }
    }
}

/// The random program for `seed` with at most `max_depth` levels.
pub fn random_expr(seed: u64, max_depth: u32) -> Expr {
    Generator::new(seed, max_depth).next_expr()
}
