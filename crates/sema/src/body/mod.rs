//! Checking of bodies: traversals, pure functions, `fuse` items and
//! constant expressions.
//!
//! One checker serves all four, parameterized by [`BodyKind`], because they
//! share expressions and differ only in what they may touch: a traversal
//! sees `self`, its descendants and globals; a pure function only its own
//! locals; a `fuse` item its parameters and globals; a constant only
//! earlier globals. Every rule violation gets its own diagnostic code.
//!
//! This module holds the checker's state (scopes, the frame being laid
//! out, what kind of body it is); the checks live in submodules by what
//! they check: [`stmt`] statements, [`path`] places and tree paths,
//! [`edit`] subtree construction and moves, [`expr`] data expressions.

use crate::model::*;
use crate::names::{resolve_data_type, Names};
use crate::ops::{BinaryOp, Builtin, UnaryOp};
use crate::value::Value;
pub(crate) use rewrite::check_replacement_types;
use rewrite::Dest;
use treefuse_syntax::ast;
use treefuse_syntax::{Diagnostic, Span};
pub(crate) use walk::{contains_walk, walk_spans};

mod edit;
mod expr;
mod path;
mod pattern;
mod rewrite;
mod stmt;
mod walk;

/// What kind of body is being checked.
#[derive(Clone, Debug)]
pub(crate) enum BodyKind {
    /// A traversal on `self_ty`.
    Traversal { self_ty: TypeId },
    /// A pure function returning `ret`.
    Pure { ret: DataType },
    /// The call list of a `fuse` item.
    Fuse,
    /// A global initializer or field default.
    Const,
}

#[derive(Clone, Copy, Debug)]
enum Binding {
    Local(LocalId),
    Alias(NodeVarId),
    LoopVar(NodeVarId),
    /// A name whose `let` or `for` failed to check: uses of it report
    /// nothing more (the error is already reported), instead of a
    /// follow-up `unknown-name`.
    Poisoned,
}

/// An expression resolved far enough to know whether it denotes a node, a
/// list of children, or data.
enum Resolved {
    Node(NodePath),
    List(ChildSlot),
    Data(Expr),
}

/// The left-hand side of an assignment.
enum Target {
    Place(Place, DataType),
    Slot(ChildSlot),
}

pub(crate) struct BodyChecker<'a> {
    program: &'a Program,
    names: &'a Names,
    kind: BodyKind,
    diags: &'a mut Vec<Diagnostic>,
    frame: FrameLayout,
    scopes: Vec<Vec<(String, Binding)>>,
    /// The loop variable and list of the innermost `for` over children.
    for_children: Vec<(NodeVarId, ChildSlot)>,
    /// In a `fuse` item, the name of its root parameter.
    fuse_root: Option<String>,
    /// Whether a `break;` here ends a `while` loop: inside a `while` body
    /// and not in a `for` nested in it (§8.6).
    in_while: bool,
    /// Inside a `for` nested in a `while` body (a `break` there is an
    /// error that says why).
    for_in_while: bool,
    /// In a traversal body, what its `walk` statements expand to.
    walk: Option<WalkPlan>,
}

/// What `walk;` expands to in one traversal body for the concrete types it
/// is checked for (LANGUAGE.md §8.1): the traversal's parameter types and,
/// in slot order, the child fields whose declared type has the traversal.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WalkPlan {
    /// The parameter types of the traversal whose body this is.
    pub params: Vec<DataType>,
    /// Per visited child field: the field and the traversal called on it
    /// (the one its declared type sees under the same name).
    pub children: Vec<(FieldId, MethodId)>,
}

impl<'a> BodyChecker<'a> {
    pub(crate) fn new(
        program: &'a Program,
        names: &'a Names,
        kind: BodyKind,
        diags: &'a mut Vec<Diagnostic>,
    ) -> BodyChecker<'a> {
        BodyChecker {
            program,
            names,
            kind,
            diags,
            frame: FrameLayout::default(),
            scopes: vec![Vec::new()],
            for_children: Vec::new(),
            fuse_root: None,
            in_while: false,
            for_in_while: false,
            walk: None,
        }
    }

    /// Sets what `walk` statements of the body expand to.
    pub(crate) fn set_walk(&mut self, plan: WalkPlan) {
        self.walk = Some(plan);
    }

    /// Installs a frame whose first `num_params` locals are parameters.
    pub(crate) fn set_frame(&mut self, frame: FrameLayout) {
        for (i, (name, _)) in frame.locals.iter().enumerate().take(frame.num_params) {
            self.scopes[0].push((name.clone(), Binding::Local(LocalId(i as u32))));
        }
        self.frame = frame;
    }

    /// Binds the first `n` node variables of the frame, a pure function's
    /// tree-node parameters (LANGUAGE §8.8). They are node variables
    /// without an origin, as loop variables are: paths start at them.
    pub(crate) fn bind_node_params(&mut self, n: usize) {
        for i in 0..n.min(self.frame.node_vars.len()) {
            let name = self.frame.node_vars[i].name.clone();
            self.scopes[0].push((name, Binding::LoopVar(NodeVarId(i as u32))));
        }
    }

    /// Whether this is a pure function's body.
    fn in_pure_fn(&self) -> bool {
        matches!(self.kind, BodyKind::Pure { .. })
    }

    pub(crate) fn into_frame(self) -> FrameLayout {
        self.frame
    }

    pub(crate) fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, span, msg));
    }

    fn type_name(&self, t: &DataType) -> String {
        self.program.data_type_name(t)
    }

    /// Reports a mismatch unless `e` has type `ty`.
    pub(crate) fn expect_type(&mut self, e: &Expr, ty: &DataType) -> bool {
        if e.ty == *ty {
            return true;
        }
        let mut d = Diagnostic::error(
            "type-mismatch",
            e.span,
            format!(
                "expected `{}`, found `{}`",
                self.type_name(ty),
                self.type_name(&e.ty)
            ),
        );
        if matches!((ty, &e.ty), (DataType::Float, DataType::Int)) {
            d = d.with_note("convert with `to_f64(...)`");
        } else if matches!((ty, &e.ty), (DataType::Int, DataType::Float)) {
            d = d.with_note("convert with `to_i64(...)` (truncates)");
        }
        self.diags.push(d);
        false
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, b)| *b))
    }

    fn new_local(&mut self, name: &str, ty: DataType) -> LocalId {
        let id = LocalId(self.frame.locals.len() as u32);
        self.frame.locals.push((name.to_string(), ty));
        id
    }

    fn bind(&mut self, name: &str, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), b));
        }
    }

    fn new_node_var(&mut self, name: &str, ty: TypeId, origin: Option<NodePath>) -> NodeVarId {
        let id = NodeVarId(self.frame.node_vars.len() as u32);
        self.frame.node_vars.push(NodeVar {
            name: name.to_string(),
            ty,
            origin,
        });
        id
    }

    /// The path with alias roots replaced by the paths they were bound to,
    /// as (root, child and element steps; casts left out). Index
    /// expressions that come from an alias's binding are marked unknown
    /// (the variable they read may have changed since).
    fn expand(&self, p: &NodePath) -> (PathRoot, Vec<Step>) {
        let own = |steps: &[PathStep], fresh: bool| -> Vec<Step> {
            steps
                .iter()
                .filter_map(|s| match s {
                    PathStep::Child(f) => Some(Step::Child(*f)),
                    PathStep::Elem(f, i) => Some(Step::Elem(*f, IndexKey::of(&i.0, fresh))),
                    PathStep::Cast(_) => None,
                })
                .collect()
        };
        let mut steps = own(&p.steps, true);
        let mut root = p.root;
        while let PathRoot::Var(v) = root {
            match &self.frame.node_vars[v.index()].origin {
                Some(origin) => {
                    let mut f = own(&origin.steps, false);
                    f.extend(steps);
                    steps = f;
                    root = origin.root;
                }
                None => break,
            }
        }
        (root, steps)
    }

    /// The steps of `p` with alias roots replaced by the steps they were
    /// bound with, casts left out (the origin of a new alias).
    fn expanded_steps(&self, p: &NodePath) -> Vec<PathStep> {
        let mut steps: Vec<PathStep> = p
            .steps
            .iter()
            .filter(|s| !matches!(s, PathStep::Cast(_)))
            .cloned()
            .collect();
        let mut root = p.root;
        while let PathRoot::Var(v) = root {
            match &self.frame.node_vars[v.index()].origin {
                Some(origin) => {
                    let mut f = origin.steps.clone();
                    f.extend(steps);
                    steps = f;
                    root = origin.root;
                }
                None => break,
            }
        }
        steps
    }
}

/// A step of an expanded path: a child field, or an element of a list
/// child with what is known about its index.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Child(FieldId),
    Elem(FieldId, IndexKey),
}

/// What the checker knows about a list index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IndexKey {
    /// An integer constant.
    Const(i64),
    /// A local read in the same statement (it has one value there).
    Local(LocalId),
    /// Anything else.
    Unknown,
}

impl IndexKey {
    fn of(e: &Expr, fresh: bool) -> IndexKey {
        match &e.kind {
            ExprKind::Const(Value::Int(i)) => IndexKey::Const(*i),
            ExprKind::Local(l) if fresh => IndexKey::Local(*l),
            _ => IndexKey::Unknown,
        }
    }
}

impl Step {
    fn field(&self) -> FieldId {
        match self {
            Step::Child(f) | Step::Elem(f, _) => *f,
        }
    }

    /// Whether both steps surely reach the same node.
    fn surely_same(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Child(a), Step::Child(b)) => a == b,
            (Step::Elem(a, i), Step::Elem(b, j)) => a == b && *i != IndexKey::Unknown && i == j,
            _ => false,
        }
    }

    /// Whether both steps may reach the same node.
    fn maybe_same(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Elem(a, IndexKey::Const(i)), Step::Elem(b, IndexKey::Const(j))) => {
                a == b && i == j
            }
            _ => self.field() == other.field(),
        }
    }
}

/// Whether `prefix` is surely a prefix of `path`.
fn surely_prefix(path: &[Step], prefix: &[Step]) -> bool {
    path.len() >= prefix.len() && prefix.iter().zip(path).all(|(a, b)| a.surely_same(b))
}

/// Whether one of the paths may be a prefix of the other.
fn maybe_nested(a: &[Step], b: &[Step]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.maybe_same(y))
}

/// Stands for an expression that failed to check, where keeping the
/// enclosing statement avoids follow-up errors. Only ever part of a model
/// that is discarded because of the errors already reported.
fn error_placeholder(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Const(Value::Bool(false)),
        ty: DataType::Bool,
        span,
    }
}

/// A short rendering of a path such as `self.stmts` for hints.
fn span_text_hint(e: &ast::Expr) -> String {
    match &e.kind {
        ast::ExprKind::SelfRef => "self".to_string(),
        ast::ExprKind::Name(n) => n.name.clone(),
        ast::ExprKind::Field(base, name) => format!("{}.{}", span_text_hint(base), name.name),
        ast::ExprKind::Paren(inner) => span_text_hint(inner),
        _ => "...".to_string(),
    }
}

/// The span of a call statement without its final `;` (the parser ends
/// every call statement with one), to point at the call itself.
fn without_semicolon(span: Span) -> Span {
    Span {
        start: span.start,
        end: span.end.saturating_sub(1).max(span.start),
    }
}

/// Whether `e` is the word `none` (parentheses allowed): an empty optional
/// child where a child slot is given a value (§8.7).
fn is_none_word(e: &ast::Expr) -> bool {
    matches!(&strip_parens(e).kind, ast::ExprKind::Name(n) if n.name == "none")
}

/// `e` without the parentheses around it.
fn strip_parens(mut e: &ast::Expr) -> &ast::Expr {
    while let ast::ExprKind::Paren(inner) = &e.kind {
        e = inner;
    }
    e
}

/// Collects the subtrees moved by a `new` tree: (path, list field if a
/// whole list moves).
fn collect_moves(tree: &NewTree, f: &mut impl FnMut((NodePath, Option<FieldId>))) {
    fn field(nf: &NewField, f: &mut impl FnMut((NodePath, Option<FieldId>))) {
        match nf {
            NewField::Move(p) => f((p.clone(), None)),
            NewField::MoveList(slot) => f((slot.parent.clone(), Some(slot.field))),
            NewField::Copy(_) => {}
            NewField::New(t) => collect_moves(t, f),
            NewField::List(items) => items.iter().for_each(|i| field(i, f)),
            NewField::Data(_) | NewField::Empty => {}
        }
    }
    tree.fields.iter().for_each(|nf| field(nf, f));
}

/// Whether `stmts` contain a traversing call (at any depth).
fn contains_call(stmts: &[Stmt]) -> bool {
    crate::visit::any_stmt(stmts, &|s| matches!(s.kind, StmtKind::Call { .. }))
}

/// Whether every path through `stmts` ends in `return`.
pub(crate) fn always_returns(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => always_returns(then_branch) && always_returns(else_branch),
        _ => false,
    })
}

/// The pure functions called anywhere in `stmts`, with the calls' spans.
pub(crate) fn called_pure_fns(stmts: &[Stmt], out: &mut Vec<(PureFnId, Span)>) {
    crate::visit::walk_stmt_exprs(stmts, &mut |e| {
        if let ExprKind::Call(f, _) | ExprKind::NodeCall(f, _) = e.kind {
            out.push((f, e.span));
        }
    });
}

/// The pure functions called in `e`, with the calls' spans.
pub(crate) fn called_pure_fns_expr(e: &Expr, out: &mut Vec<(PureFnId, Span)>) {
    crate::visit::walk_expr(e, &mut |x| {
        if let ExprKind::Call(f, _) | ExprKind::NodeCall(f, _) = x.kind {
            out.push((f, x.span));
        }
    });
}
