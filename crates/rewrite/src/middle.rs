//! A compiler middle end over a three-family AST: the crate's flagship
//! example.
//!
//! `Program` holds `Function`s, which hold `Vec<Stmt>` bodies; `Stmt` (7
//! variants) holds `Expr`s (10 variants) and nested statement lists. Six
//! everyday rules:
//!
//! | rule | node types | what it does |
//! |------|-----------|--------------|
//! | [`ConstantFolding`] | `Expr` | `2 + 3 => 5`, `-(4) => -4`, `!true => false`, `1 << 70` is an error |
//! | [`AlgebraicSimplification`] | `Expr` | `x + 0`, `x - 0`, `x * 1`, `x << 0 => x`; `v * 0 => 0` for a variable or literal `v` |
//! | [`DoubleNegation`] | `Expr` | `--x => x`, `!!x => x` |
//! | [`StrengthReduction`] | `Expr` | `x * 2^k => x << k` |
//! | [`DeadBranchElimination`] | `Stmt` | `if (true) A else B` => `A` spliced into the enclosing list, `while (false) ..` removed, nested `{ .. }` blocks flattened |
//! | [`UnreachableCode`] | `Function`, `Stmt` | statements after a `return` in a list removed |
//!
//! All are post-order (`transform`) hooks, so one fused traversal applies
//! all six everywhere. The rules share a context ([`MiddleStats`]: what was
//! folded and removed) and an error type ([`MiddleError`]) through the
//! environment [`Middle`].
//!
//! For comparison the module also has the same six rewrites written by
//! hand: [`hand_fused`], one recursive pass per node type that applies all
//! six (what one would write to avoid six traversals), and [`separate`],
//! six passes one after the other. Both use the same rewrite functions
//! ([`fold`], [`simplify`], ...) as the rules, so the benchmark
//! (`examples/middle_end.rs`) compares only the traversals.
//! [`generate`] builds seeded random programs full of opportunities for
//! every rule.

use crate::node::Node;
use crate::rule::{Cx, Edit, Env, Hook, Rule};
use crate::toy::SplitMix64;
use crate::Rewritable;

/// A variable or function, by number.
pub type Sym = u32;

/// A whole program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Rewritable)]
#[rewrite(family(Program, Function, Stmt, Expr))]
pub struct Program {
    /// The functions.
    pub functions: Vec<Function>,
}

/// A function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Rewritable)]
#[rewrite(family(Program, Function, Stmt, Expr))]
pub struct Function {
    /// Its name.
    pub name: Sym,
    /// Its parameters.
    pub params: Vec<Sym>,
    /// Its body.
    pub body: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq, Rewritable)]
#[rewrite(family(Program, Function, Stmt, Expr))]
pub enum Stmt {
    /// `let v = e;`
    Let(Sym, Expr),
    /// `v = e;`
    Assign(Sym, Expr),
    /// `e;`
    Eval(Expr),
    /// `if (c) { .. } else { .. }`
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `while (c) { .. }`
    While(Expr, Vec<Stmt>),
    /// `{ .. }`
    Block(Vec<Stmt>),
    /// `return e;` / `return;`
    Return(Option<Expr>),
}

impl Default for Stmt {
    /// An empty block: the placeholder left where a rule takes a statement
    /// out.
    fn default() -> Self {
        Stmt::Block(Vec::new())
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq, Rewritable)]
#[rewrite(family(Program, Function, Stmt, Expr))]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// A boolean literal.
    Bool(bool),
    /// A variable.
    Var(Sym),
    /// `-e`
    Neg(Box<Expr>),
    /// `!e`
    Not(Box<Expr>),
    /// `a + b`
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`
    Sub(Box<Expr>, Box<Expr>),
    /// `a * b`
    Mul(Box<Expr>, Box<Expr>),
    /// `a << b`
    Shl(Box<Expr>, Box<Expr>),
    /// `f(args..)`
    Call(Sym, Vec<Expr>),
}

impl Default for Expr {
    /// `0`: the placeholder left where a rule takes an expression out.
    fn default() -> Self {
        Expr::Int(0)
    }
}

#[allow(clippy::should_implement_trait)] // constructors, named after the operators
impl Expr {
    fn bin(op: fn(Box<Expr>, Box<Expr>) -> Expr, a: Expr, b: Expr) -> Expr {
        op(Box::new(a), Box::new(b))
    }
    /// `a + b`
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::bin(Expr::Add, a, b)
    }
    /// `a - b`
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::bin(Expr::Sub, a, b)
    }
    /// `a * b`
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::bin(Expr::Mul, a, b)
    }
    /// `a << b`
    pub fn shl(a: Expr, b: Expr) -> Expr {
        Expr::bin(Expr::Shl, a, b)
    }
    /// `-a`
    pub fn neg(a: Expr) -> Expr {
        Expr::Neg(Box::new(a))
    }
    /// `!a`
    pub fn not(a: Expr) -> Expr {
        Expr::Not(Box::new(a))
    }
}

// ------------------------------------------------------ context, errors --

/// What the middle end did (the user context of its rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MiddleStats {
    /// Constant expressions folded.
    pub folded: u64,
    /// Statements removed as unreachable.
    pub unreachable: u64,
}

/// An error found while rewriting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MiddleError {
    /// `a << b` with constant `b` outside `0..64`.
    ShiftOutOfRange(i64),
}

/// The environment of the middle end's rules.
#[derive(Clone, Copy, Debug)]
pub struct Middle;

impl Env for Middle {
    type Ctx = MiddleStats;
    type Error = MiddleError;
}

// ------------------------------------------------ the rewrites, shared --

/// Constant folding of `e`'s own operator (children already folded):
/// `Some(value)` when it folds.
#[inline(always)]
pub fn fold(e: &Expr) -> Result<Option<Expr>, MiddleError> {
    use Expr::*;
    Ok(Some(match e {
        Neg(a) => match **a {
            Int(x) => Int(x.wrapping_neg()),
            _ => return Ok(None),
        },
        Not(a) => match **a {
            Bool(x) => Bool(!x),
            _ => return Ok(None),
        },
        Add(a, b) | Sub(a, b) | Mul(a, b) | Shl(a, b) => match (&**a, &**b) {
            (Int(x), Int(y)) => Int(match e {
                Add(..) => x.wrapping_add(*y),
                Sub(..) => x.wrapping_sub(*y),
                Mul(..) => x.wrapping_mul(*y),
                _ => match u32::try_from(*y) {
                    Ok(s) if s < 64 => x.wrapping_shl(s),
                    _ => return Err(MiddleError::ShiftOutOfRange(*y)),
                },
            }),
            _ => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// Algebraic identities on `e`'s own operator: `Some(replacement)`.
#[inline(always)]
pub fn simplify(e: &mut Expr) -> Option<Expr> {
    use Expr::*;
    let leaf = |x: &Expr| matches!(x, Int(_) | Var(_) | Bool(_));
    match e {
        Add(a, b) => match (&**a, &**b) {
            (_, Int(0)) => Some(std::mem::take(&mut **a)),
            (Int(0), _) => Some(std::mem::take(&mut **b)),
            _ => None,
        },
        Sub(a, b) | Shl(a, b) if **b == Int(0) => Some(std::mem::take(&mut **a)),
        Mul(a, b) => match (&**a, &**b) {
            (x, Int(0)) | (Int(0), x) if leaf(x) => Some(Int(0)),
            (_, Int(1)) => Some(std::mem::take(&mut **a)),
            (Int(1), _) => Some(std::mem::take(&mut **b)),
            _ => None,
        },
        _ => None,
    }
}

/// `--x => x`, `!!x => x`.
#[inline(always)]
pub fn double_negation(e: &mut Expr) -> Option<Expr> {
    match e {
        Expr::Neg(a) => match &mut **a {
            Expr::Neg(x) => Some(std::mem::take(&mut **x)),
            _ => None,
        },
        Expr::Not(a) => match &mut **a {
            Expr::Not(x) => Some(std::mem::take(&mut **x)),
            _ => None,
        },
        _ => None,
    }
}

/// `k` when `c = 2^k` with `k >= 1`.
fn log2_exact(c: i64) -> Option<i64> {
    (c > 1 && c.count_ones() == 1).then(|| i64::from(c.trailing_zeros()))
}

/// `x * 2^k => x << k` (either operand).
#[inline(always)]
pub fn strength_reduce(e: &mut Expr) -> Option<Expr> {
    match e {
        Expr::Mul(a, b) => {
            if let Expr::Int(c) = **b {
                if let Some(k) = log2_exact(c) {
                    return Some(Expr::shl(std::mem::take(&mut **a), Expr::Int(k)));
                }
            }
            if let Expr::Int(c) = **a {
                if let Some(k) = log2_exact(c) {
                    return Some(Expr::shl(std::mem::take(&mut **b), Expr::Int(k)));
                }
            }
            None
        }
        _ => None,
    }
}

/// The constant truth value of a condition, if it has one.
fn constant_condition(c: &Expr) -> Option<bool> {
    match c {
        Expr::Bool(b) => Some(*b),
        Expr::Int(n) => Some(*n != 0),
        _ => None,
    }
}

/// What dead-branch elimination does with a statement.
pub enum BranchEdit {
    /// Nothing.
    Keep,
    /// Remove it (`while (false)`).
    Remove,
    /// Replace it by these statements (the taken branch, a block's body).
    Splice(Vec<Stmt>),
}

/// Dead-branch elimination and block flattening for a statement in a list.
#[inline(always)]
pub fn dead_branch(s: &mut Stmt) -> BranchEdit {
    match s {
        Stmt::If(c, then, els) => match constant_condition(c) {
            Some(true) => BranchEdit::Splice(std::mem::take(then)),
            Some(false) => BranchEdit::Splice(std::mem::take(els)),
            None => BranchEdit::Keep,
        },
        Stmt::While(c, _) if constant_condition(c) == Some(false) => BranchEdit::Remove,
        Stmt::Block(body) => BranchEdit::Splice(std::mem::take(body)),
        _ => BranchEdit::Keep,
    }
}

/// Removes the statements after the first `return` of `list`; how many.
#[inline(always)]
pub fn cut_after_return(list: &mut Vec<Stmt>) -> u64 {
    match list.iter().position(|s| matches!(s, Stmt::Return(_))) {
        Some(i) if i + 1 < list.len() => {
            let n = (list.len() - i - 1) as u64;
            list.truncate(i + 1);
            n
        }
        _ => 0,
    }
}

/// [`cut_after_return`] on every statement list directly inside `s`.
#[inline(always)]
pub fn cut_inside(s: &mut Stmt) -> u64 {
    match s {
        Stmt::If(_, a, b) => cut_after_return(a) + cut_after_return(b),
        Stmt::While(_, a) | Stmt::Block(a) => cut_after_return(a),
        _ => 0,
    }
}

// --------------------------------------------------------------- rules --

/// Constant folding (counts in [`MiddleStats::folded`]; a constant shift
/// out of range is a [`MiddleError`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantFolding;

impl Rule<Middle> for ConstantFolding {
    type Handles = (Expr,);
}

impl Hook<Expr, Middle> for ConstantFolding {
    #[inline(always)]
    fn transform(&self, e: &mut Expr, cx: &mut Cx<'_, Middle>) -> Result<Edit<Expr>, MiddleError> {
        Ok(match fold(e)? {
            Some(v) => {
                cx.ctx().folded += 1;
                Edit::Replace(v)
            }
            None => Edit::Keep,
        })
    }
}

/// Edit for an optional replacement.
#[inline(always)]
fn replace_with(r: Option<Expr>) -> Edit<Expr> {
    match r {
        Some(v) => Edit::Replace(v),
        None => Edit::Keep,
    }
}

/// Implements a rule with one `Expr` transform hook that answers
/// `Replace` with what `$f` returns, in any environment.
macro_rules! expr_rule {
    ($(#[$doc:meta])* $name:ident, $f:path) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl<X: Env> Rule<X> for $name {
            type Handles = (Expr,);
        }
        impl<X: Env> Hook<Expr, X> for $name {
            #[inline(always)]
            fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
                Ok(replace_with($f(e)))
            }
        }
    };
}

expr_rule!(
    /// Algebraic simplification ([`simplify`]).
    AlgebraicSimplification,
    simplify
);
expr_rule!(
    /// Double negation ([`double_negation`]).
    DoubleNegation,
    double_negation
);
expr_rule!(
    /// Strength reduction ([`strength_reduce`]).
    StrengthReduction,
    strength_reduce
);

/// Dead-branch elimination and block flattening ([`dead_branch`]): splices
/// and removals in the enclosing statement list.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadBranchElimination;

impl<X: Env> Rule<X> for DeadBranchElimination {
    type Handles = (Stmt,);
}

impl<X: Env> Hook<Stmt, X> for DeadBranchElimination {
    #[inline(always)]
    fn transform(&self, s: &mut Stmt, cx: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        Ok(match dead_branch(s) {
            BranchEdit::Keep => Edit::Keep,
            BranchEdit::Remove => Edit::Remove,
            BranchEdit::Splice(v) if cx.in_list() => Edit::Splice(v),
            // Not in a list (cannot happen in this AST): keep it as a block.
            BranchEdit::Splice(v) => Edit::Replace(Stmt::Block(v)),
        })
    }
}

/// Unreachable-code removal ([`cut_after_return`]) in function bodies and
/// nested statement lists; counts in [`MiddleStats::unreachable`]. Must run
/// after [`DeadBranchElimination`] (checked by the pass manager), which may
/// splice a `return` into a list.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnreachableCode;

impl Rule<Middle> for UnreachableCode {
    type Handles = (Function, Stmt);
    fn runs_after(&self) -> &'static [&'static str] {
        &["DeadBranchElimination"]
    }
}

impl Hook<Function, Middle> for UnreachableCode {
    #[inline(always)]
    fn transform(
        &self,
        f: &mut Function,
        cx: &mut Cx<'_, Middle>,
    ) -> Result<Edit<Function>, MiddleError> {
        Ok(changed(cut_after_return(&mut f.body), cx))
    }
}

impl Hook<Stmt, Middle> for UnreachableCode {
    #[inline(always)]
    fn transform(&self, s: &mut Stmt, cx: &mut Cx<'_, Middle>) -> Result<Edit<Stmt>, MiddleError> {
        Ok(changed(cut_inside(s), cx))
    }
}

#[inline(always)]
fn changed<N>(removed: u64, cx: &mut Cx<'_, Middle>) -> Edit<N> {
    if removed == 0 {
        Edit::Keep
    } else {
        cx.ctx().unreachable += removed;
        Edit::Changed
    }
}

/// The six rules, in pipeline order.
pub type MiddleRules = (
    ConstantFolding,
    AlgebraicSimplification,
    DoubleNegation,
    StrengthReduction,
    DeadBranchElimination,
    UnreachableCode,
);

/// The six rules, in pipeline order.
pub fn rules() -> MiddleRules {
    (
        ConstantFolding,
        AlgebraicSimplification,
        DoubleNegation,
        StrengthReduction,
        DeadBranchElimination,
        UnreachableCode,
    )
}

// ------------------------------------------------- hand-written passes --

/// The expression rules in pipeline order on one node whose children are
/// done.
#[inline(always)]
fn all_expr_rules(e: &mut Expr, ctx: &mut MiddleStats) -> Result<(), MiddleError> {
    if let Some(v) = fold(e)? {
        ctx.folded += 1;
        *e = v;
    }
    if let Some(v) = simplify(e) {
        *e = v;
    }
    if let Some(v) = double_negation(e) {
        *e = v;
    }
    if let Some(v) = strength_reduce(e) {
        *e = v;
    }
    Ok(())
}

/// Walks `e` children first, calling `f` on every expression: the
/// expression part of every hand-written pass (a plain recursive `match`;
/// `f` inlines).
#[inline(always)]
fn expr_post(
    e: &mut Expr,
    f: &mut impl FnMut(&mut Expr) -> Result<(), MiddleError>,
) -> Result<(), MiddleError> {
    fn walk(
        e: &mut Expr,
        f: &mut impl FnMut(&mut Expr) -> Result<(), MiddleError>,
    ) -> Result<(), MiddleError> {
        match e {
            Expr::Neg(a) | Expr::Not(a) => walk(a, f)?,
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Shl(a, b) => {
                walk(a, f)?;
                walk(b, f)?;
            }
            Expr::Call(_, args) => {
                for a in args {
                    walk(a, f)?;
                }
            }
            Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) => {}
        }
        f(e)
    }
    walk(e, f)
}

fn hand_expr(e: &mut Expr, ctx: &mut MiddleStats) -> Result<(), MiddleError> {
    expr_post(e, &mut |e| all_expr_rules(e, ctx))
}

/// The expression and the statement lists directly inside a statement (in
/// child order): the hand-written passes' view of its children.
#[inline(always)]
fn parts(s: &mut Stmt) -> (Option<&mut Expr>, [Option<&mut Vec<Stmt>>; 2]) {
    match s {
        Stmt::Let(_, e) | Stmt::Assign(_, e) | Stmt::Eval(e) | Stmt::Return(Some(e)) => {
            (Some(e), [None, None])
        }
        Stmt::If(c, a, b) => (Some(c), [Some(a), Some(b)]),
        Stmt::While(c, a) => (Some(c), [Some(a), None]),
        Stmt::Block(a) => (None, [Some(a), None]),
        Stmt::Return(None) => (None, [None, None]),
    }
}

fn hand_stmts(list: &mut Vec<Stmt>, ctx: &mut MiddleStats) -> Result<(), MiddleError> {
    let mut edits: Vec<(usize, BranchEdit)> = Vec::new();
    for (i, s) in list.iter_mut().enumerate() {
        let (e, lists) = parts(s);
        if let Some(e) = e {
            hand_expr(e, ctx)?;
        }
        for l in lists.into_iter().flatten() {
            hand_stmts(l, ctx)?;
        }
        match dead_branch(s) {
            BranchEdit::Keep => ctx.unreachable += cut_inside(s),
            edit => edits.push((i, edit)),
        }
    }
    if !edits.is_empty() {
        splice_edits(list, edits);
    }
    Ok(())
}

/// Applies removals and splices to a statement list in one pass.
fn splice_edits(list: &mut Vec<Stmt>, edits: Vec<(usize, BranchEdit)>) {
    let old = std::mem::take(list);
    let mut out = Vec::with_capacity(old.len());
    let mut edits = edits.into_iter().peekable();
    for (i, s) in old.into_iter().enumerate() {
        match edits.peek() {
            Some((j, _)) if *j == i => {
                if let Some((_, BranchEdit::Splice(v))) = edits.next() {
                    out.extend(v);
                }
            }
            _ => out.push(s),
        }
    }
    *list = out;
}

/// The six rewrites in one hand-written traversal: what the library's fused
/// mode computes (same order, same results, same statistics).
pub fn hand_fused(p: &mut Program, ctx: &mut MiddleStats) -> Result<(), MiddleError> {
    for f in &mut p.functions {
        hand_stmts(&mut f.body, ctx)?;
        ctx.unreachable += cut_after_return(&mut f.body);
    }
    Ok(())
}

/// Applies `f` to every expression of the program, children first: the
/// traversal of each hand-written expression pass.
fn each_expr_post(
    p: &mut Program,
    f: &mut impl FnMut(&mut Expr) -> Result<(), MiddleError>,
) -> Result<(), MiddleError> {
    fn stmts(
        list: &mut [Stmt],
        f: &mut impl FnMut(&mut Expr) -> Result<(), MiddleError>,
    ) -> Result<(), MiddleError> {
        for s in list {
            let (e, lists) = parts(s);
            if let Some(e) = e {
                expr_post(e, f)?;
            }
            for l in lists.into_iter().flatten() {
                stmts(l, f)?;
            }
        }
        Ok(())
    }
    for func in &mut p.functions {
        stmts(&mut func.body, f)?;
    }
    Ok(())
}

/// The dead-branch pass: statement lists children first, then each
/// element's edit.
fn dead_branch_pass(p: &mut Program) {
    fn stmts(list: &mut Vec<Stmt>) {
        let mut edits = Vec::new();
        for (i, s) in list.iter_mut().enumerate() {
            for l in parts(s).1.into_iter().flatten() {
                stmts(l);
            }
            match dead_branch(s) {
                BranchEdit::Keep => {}
                edit => edits.push((i, edit)),
            }
        }
        if !edits.is_empty() {
            splice_edits(list, edits);
        }
    }
    for f in &mut p.functions {
        stmts(&mut f.body);
    }
}

/// The unreachable-code pass.
fn unreachable_pass(p: &mut Program, ctx: &mut MiddleStats) {
    fn stmts(list: &mut [Stmt], ctx: &mut MiddleStats) {
        for s in list {
            for l in parts(s).1.into_iter().flatten() {
                stmts(l, ctx);
            }
            ctx.unreachable += cut_inside(s);
        }
    }
    for f in &mut p.functions {
        stmts(&mut f.body, ctx);
        ctx.unreachable += cut_after_return(&mut f.body);
    }
}

/// The six rewrites as six hand-written passes, one after the other: what
/// the library's one-by-one mode computes.
pub fn separate(p: &mut Program, ctx: &mut MiddleStats) -> Result<(), MiddleError> {
    each_expr_post(p, &mut |e| {
        if let Some(v) = fold(e)? {
            ctx.folded += 1;
            *e = v;
        }
        Ok(())
    })?;
    let replace = |f: fn(&mut Expr) -> Option<Expr>| {
        move |e: &mut Expr| {
            if let Some(v) = f(e) {
                *e = v;
            }
            Ok(())
        }
    };
    each_expr_post(p, &mut replace(simplify))?;
    each_expr_post(p, &mut replace(double_negation))?;
    each_expr_post(p, &mut replace(strength_reduce))?;
    dead_branch_pass(p);
    unreachable_pass(p, ctx);
    Ok(())
}

// ----------------------------------------------------------- generator --

/// Seeded random programs biased towards every rule's patterns.
#[derive(Clone, Debug)]
pub struct Generator {
    rng: SplitMix64,
    /// Maximum expression depth.
    pub expr_depth: u32,
    /// Maximum statement nesting.
    pub stmt_depth: u32,
}

impl Generator {
    /// A generator with the given seed and default depths (expressions 6,
    /// statements 3).
    pub fn new(seed: u64) -> Self {
        Generator {
            rng: SplitMix64::new(seed),
            expr_depth: 6,
            stmt_depth: 3,
        }
    }

    fn pick(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    fn leaf(&mut self) -> Expr {
        match self.pick(10) {
            0..=3 => Expr::Int(self.pick(9) as i64 - 2),
            4 => Expr::Bool(self.pick(2) == 0),
            _ => Expr::Var(self.pick(8) as Sym),
        }
    }

    /// A random expression of at most `depth` levels.
    pub fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.pick(24) {
            0..=3 => self.leaf(),
            4..=6 => Expr::add(self.expr(d), self.expr(d)),
            7 => Expr::add(self.expr(d), Expr::Int(0)),
            8 => Expr::sub(self.expr(d), self.expr(d)),
            9..=10 => Expr::mul(self.expr(d), self.expr(d)),
            11 => {
                let c = [0, 1, 2, 4, 8, 3][self.pick(6) as usize];
                Expr::mul(self.expr(d), Expr::Int(c))
            }
            12 => Expr::mul(Expr::Int(1 << self.pick(4)), self.expr(d)),
            13 => Expr::shl(self.expr(d), Expr::Int(self.pick(8) as i64)),
            14..=15 => Expr::neg(self.expr(d)),
            16 => Expr::neg(Expr::neg(self.expr(d))),
            17 => Expr::not(self.expr(d)),
            18 => Expr::not(Expr::not(self.expr(d))),
            19..=20 => {
                let n = self.pick(3);
                Expr::Call(self.pick(4) as Sym, (0..n).map(|_| self.expr(d)).collect())
            }
            _ => Expr::mul(
                Expr::Int(self.pick(5) as i64),
                Expr::Int(self.pick(5) as i64),
            ),
        }
    }

    fn cond(&mut self) -> Expr {
        match self.pick(4) {
            0 => Expr::Bool(self.pick(2) == 0),
            1 => Expr::not(Expr::Bool(self.pick(2) == 0)),
            _ => self.expr(2),
        }
    }

    /// A random statement list of about `len` statements nested at most
    /// `depth` deep.
    pub fn stmts(&mut self, len: u64, depth: u32) -> Vec<Stmt> {
        let n = 1 + self.pick(len.max(1) * 2);
        (0..n).map(|_| self.stmt(depth)).collect()
    }

    /// A random statement.
    pub fn stmt(&mut self, depth: u32) -> Stmt {
        let ed = self.expr_depth;
        let nested = depth > 0;
        match self.pick(if nested { 20 } else { 10 }) {
            0..=2 => Stmt::Let(self.pick(8) as Sym, self.expr(ed)),
            3..=5 => Stmt::Assign(self.pick(8) as Sym, self.expr(ed)),
            6 => Stmt::Eval(self.expr(ed)),
            7..=8 => Stmt::Return(if self.pick(3) == 0 {
                None
            } else {
                Some(self.expr(ed))
            }),
            9 => Stmt::Eval(Expr::Call(0, vec![self.expr(ed)])),
            10..=13 => {
                let c = self.cond();
                let a = self.stmts(2, depth - 1);
                let b = if self.pick(2) == 0 {
                    self.stmts(2, depth - 1)
                } else {
                    Vec::new()
                };
                Stmt::If(c, a, b)
            }
            14..=15 => {
                let c = self.cond();
                Stmt::While(c, self.stmts(2, depth - 1))
            }
            _ => Stmt::Block(self.stmts(2, depth - 1)),
        }
    }

    /// A random function.
    pub fn function(&mut self, name: Sym) -> Function {
        let sd = self.stmt_depth;
        Function {
            name,
            params: (0..self.pick(4) as Sym).collect(),
            body: self.stmts(4, sd),
        }
    }

    /// A program of random functions with at least `min_nodes` nodes in all
    /// (counting every node type).
    pub fn program(&mut self, min_nodes: usize) -> Program {
        let mut p = Program::default();
        let mut nodes = 1;
        while nodes < min_nodes {
            let f = self.function(p.functions.len() as Sym);
            nodes += crate::node_count(&f);
            p.functions.push(f);
        }
        p
    }
}

/// The random program for `seed` with at least `min_nodes` nodes.
pub fn generate(seed: u64, min_nodes: usize) -> Program {
    Generator::new(seed).program(min_nodes)
}

/// Kinds of the node types of the family, for reports.
pub fn family() -> [&'static str; 4] {
    [
        Program::TYPE_NAME,
        Function::TYPE_NAME,
        Stmt::TYPE_NAME,
        Expr::TYPE_NAME,
    ]
}
