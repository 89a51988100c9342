//! From ruff's syntax tree to the generated tree of `lint/python.tf`.
//!
//! The tree types mirror `ruff_python_ast` node for node, so this is a
//! plain structural copy: every node of the parsed module becomes one node
//! of the generated `Tree` (children first, as `Tree::add` wants), with
//! its start offset. Two places flatten ruff's nesting where Python's
//! grammar has no node of its own: a parameter with its default is one
//! `Parameter`, and a class's argument list is its `bases` and `keywords`.
//!
//! The copy recurses as deep as the syntax tree; the caller runs it on a
//! thread with a large stack (see `main.rs`), as the parser itself needs.

use rustc_hash::FxBuildHasher;
use std::collections::HashSet;
use std::sync::Arc;

use ruff_python_ast as ast;
use ruff_text_size::Ranged;

use crate::lint::{self, BuildError, NodeId, NodeRef, Tree};

/// The generated tree of a parsed module.
///
/// `capacity` is how many nodes to make room for at once (the parser's
/// token count is a good bound); the arena grows past it if needed.
pub fn lower_module(
    module: &ast::ModModule,
    source: &str,
    capacity: usize,
) -> Result<Tree, BuildError> {
    let mut lower = Lower {
        tree: Tree::default(),
        source,
        strings: Strings::default(),
    };
    // A module has fewer nodes than tokens (commas, brackets, colons and
    // newlines are tokens but not nodes). Reserving that many spares the
    // arena its regrowth, each of which copies every node so far.
    lower.tree.node.reserve(capacity);
    let body = lower.stmts(&module.body)?;
    let root = lower.tree.add(lint::Module {
        start: start(module),
        body,
    })?;
    lower.tree.root = NodeRef::Node(root);
    Ok(lower.tree)
}

/// The byte offset where a node's range begins.
fn start(node: &impl Ranged) -> i64 {
    i64::from(node.start().to_u32())
}

/// The byte offset where a node's range ends.
fn end(node: &impl Ranged) -> i64 {
    i64::from(node.end().to_u32())
}

struct Lower<'s> {
    tree: Tree,
    /// The module's source text (a number literal keeps its spelling).
    source: &'s str,
    strings: Strings,
}

/// Every string the tree holds, once: equal names share one `Arc`, so the
/// rules' maps keyed by name compare keys by pointer (and the tree holds
/// each name once).
#[derive(Default)]
struct Strings(HashSet<Arc<str>, FxBuildHasher>);

impl Strings {
    /// `s` as the tree holds it.
    fn text(&mut self, s: &str) -> Arc<str> {
        if let Some(t) = self.0.get(s) {
            return Arc::clone(t);
        }
        let t: Arc<str> = Arc::from(s);
        self.0.insert(Arc::clone(&t));
        t
    }

    /// An optional identifier as `python.tf` keeps it: empty when absent.
    fn opt_ident(&mut self, id: Option<&ast::Identifier>) -> Arc<str> {
        self.text(id.map_or("", |i| i.as_str()))
    }
}

type Built = Result<NodeId, BuildError>;
type BuiltList = Result<Arc<[NodeId]>, BuildError>;

/// Collecting built nodes into a list child.
trait CollectList: Iterator<Item = Built> + Sized {
    /// The nodes as a list child, or the first error. An empty list is
    /// `Arc::default()`, which shares one static allocation (most lists
    /// of a module, decorators, keywords, type parameters, are empty).
    fn list(self) -> BuiltList {
        let items = self.collect::<Result<Vec<NodeId>, BuildError>>()?;
        Ok(if items.is_empty() {
            Arc::default()
        } else {
            Arc::from(items)
        })
    }
}

impl<I: Iterator<Item = Built>> CollectList for I {}

impl Lower<'_> {
    fn stmts(&mut self, body: &[ast::Stmt]) -> BuiltList {
        body.iter().map(|s| self.stmt(s)).list()
    }

    fn exprs<'a>(&mut self, exprs: impl IntoIterator<Item = &'a ast::Expr>) -> BuiltList {
        exprs.into_iter().map(|e| self.expr(e)).list()
    }

    fn opt_expr(&mut self, e: Option<&ast::Expr>) -> Result<Option<NodeId>, BuildError> {
        e.map(|e| self.expr(e)).transpose()
    }

    fn decorators(&mut self, list: &[ast::Decorator]) -> BuiltList {
        list.iter()
            .map(|d| {
                let expression = self.expr(&d.expression)?;
                self.tree.add(lint::Decorator {
                    start: start(d),
                    expression,
                })
            })
            .list()
    }

    fn type_params(&mut self, params: Option<&ast::TypeParams>) -> BuiltList {
        let Some(params) = params else {
            return Ok(Arc::default());
        };
        params
            .type_params
            .iter()
            .map(|p| match p {
                ast::TypeParam::TypeVar(v) => {
                    let bound = self.opt_expr(v.bound.as_deref())?;
                    let default = self.opt_expr(v.default.as_deref())?;
                    self.tree.add(lint::TypeVar {
                        start: start(v),
                        name: self.strings.text(v.name.as_str()),
                        bound,
                        default,
                    })
                }
                ast::TypeParam::TypeVarTuple(v) => {
                    let default = self.opt_expr(v.default.as_deref())?;
                    self.tree.add(lint::TypeVarTuple {
                        start: start(v),
                        name: self.strings.text(v.name.as_str()),
                        default,
                    })
                }
                ast::TypeParam::ParamSpec(v) => {
                    let default = self.opt_expr(v.default.as_deref())?;
                    self.tree.add(lint::ParamSpec {
                        start: start(v),
                        name: self.strings.text(v.name.as_str()),
                        default,
                    })
                }
            })
            .list()
    }

    fn parameter(&mut self, p: &ast::Parameter, default: Option<&ast::Expr>) -> Built {
        let annotation = self.opt_expr(p.annotation.as_deref())?;
        let default = self.opt_expr(default)?;
        self.tree.add(lint::Parameter {
            start: start(p),
            name: self.strings.text(p.name.as_str()),
            name_start: start(&p.name),
            annotation,
            default,
        })
    }

    fn parameters_with_defaults(&mut self, list: &[ast::ParameterWithDefault]) -> BuiltList {
        list.iter()
            .map(|p| self.parameter(&p.parameter, p.default.as_deref()))
            .list()
    }

    fn parameters(&mut self, p: &ast::Parameters) -> Built {
        let posonlyargs = self.parameters_with_defaults(&p.posonlyargs)?;
        let args = self.parameters_with_defaults(&p.args)?;
        let vararg = p
            .vararg
            .as_deref()
            .map(|v| self.parameter(v, None))
            .transpose()?;
        let kwonlyargs = self.parameters_with_defaults(&p.kwonlyargs)?;
        let kwarg = p
            .kwarg
            .as_deref()
            .map(|v| self.parameter(v, None))
            .transpose()?;
        self.tree.add(lint::Parameters {
            start: start(p),
            posonlyargs,
            args,
            vararg,
            kwonlyargs,
            kwarg,
        })
    }

    fn keywords(&mut self, list: &[ast::Keyword]) -> BuiltList {
        list.iter()
            .map(|k| {
                let value = self.expr(&k.value)?;
                self.tree.add(lint::Keyword {
                    start: start(k),
                    arg: self.strings.opt_ident(k.arg.as_ref()),
                    value,
                })
            })
            .list()
    }

    fn aliases(&mut self, list: &[ast::Alias]) -> BuiltList {
        list.iter()
            .map(|a| {
                self.tree.add(lint::Alias {
                    start: start(a),
                    name: self.strings.text(a.name.as_str()),
                    asname: self.strings.opt_ident(a.asname.as_ref()),
                })
            })
            .list()
    }

    fn identifiers(&mut self, list: &[ast::Identifier]) -> BuiltList {
        list.iter()
            .map(|i| {
                self.tree.add(lint::Identifier {
                    start: start(i),
                    id: self.strings.text(i.as_str()),
                })
            })
            .list()
    }

    fn comprehensions(&mut self, list: &[ast::Comprehension]) -> BuiltList {
        list.iter()
            .map(|c| {
                let target = self.expr(&c.target)?;
                let iter = self.expr(&c.iter)?;
                let ifs = self.exprs(&c.ifs)?;
                self.tree.add(lint::Comprehension {
                    start: start(c),
                    is_async: c.is_async,
                    target,
                    iter,
                    ifs,
                })
            })
            .list()
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Built {
        use ast::Stmt as S;
        let at = start(stmt);
        match stmt {
            S::FunctionDef(f) => {
                let decorators = self.decorators(&f.decorator_list)?;
                let type_params = self.type_params(f.type_params.as_deref())?;
                let parameters = self.parameters(&f.parameters)?;
                let returns = self.opt_expr(f.returns.as_deref())?;
                let body = self.stmts(&f.body)?;
                self.tree.add(lint::FunctionDef {
                    start: at,
                    is_async: f.is_async,
                    name: self.strings.text(f.name.as_str()),
                    name_start: start(&f.name),
                    decorators,
                    type_params,
                    parameters,
                    returns,
                    body,
                })
            }
            S::ClassDef(c) => {
                let decorators = self.decorators(&c.decorator_list)?;
                let type_params = self.type_params(c.type_params.as_deref())?;
                let (bases, keywords) = match c.arguments.as_deref() {
                    Some(a) => (self.exprs(a.args.iter())?, self.keywords(&a.keywords)?),
                    None => (Arc::default(), Arc::default()),
                };
                let body = self.stmts(&c.body)?;
                self.tree.add(lint::ClassDef {
                    start: at,
                    name: self.strings.text(c.name.as_str()),
                    name_start: start(&c.name),
                    decorators,
                    type_params,
                    bases,
                    keywords,
                    body,
                })
            }
            S::Return(r) => {
                let value = self.opt_expr(r.value.as_deref())?;
                self.tree.add(lint::Return { start: at, value })
            }
            S::Delete(d) => {
                let targets = self.exprs(&d.targets)?;
                self.tree.add(lint::Delete { start: at, targets })
            }
            S::TypeAlias(t) => {
                let name = self.expr(&t.name)?;
                let type_params = self.type_params(t.type_params.as_deref())?;
                let value = self.expr(&t.value)?;
                self.tree.add(lint::TypeAlias {
                    start: at,
                    name,
                    type_params,
                    value,
                })
            }
            S::Assign(a) => {
                let targets = self.exprs(&a.targets)?;
                let value = self.expr(&a.value)?;
                self.tree.add(lint::Assign {
                    start: at,
                    targets,
                    value,
                })
            }
            S::AugAssign(a) => {
                let target = self.expr(&a.target)?;
                let value = self.expr(&a.value)?;
                self.tree.add(lint::AugAssign {
                    start: at,
                    target,
                    op: operator(a.op),
                    value,
                })
            }
            S::AnnAssign(a) => {
                let target = self.expr(&a.target)?;
                let annotation = self.expr(&a.annotation)?;
                let value = self.opt_expr(a.value.as_deref())?;
                self.tree.add(lint::AnnAssign {
                    start: at,
                    target,
                    annotation,
                    value,
                    simple: a.simple,
                })
            }
            S::For(f) => {
                let target = self.expr(&f.target)?;
                let iter = self.expr(&f.iter)?;
                let body = self.stmts(&f.body)?;
                let orelse = self.stmts(&f.orelse)?;
                self.tree.add(lint::For {
                    start: at,
                    is_async: f.is_async,
                    target,
                    iter,
                    body,
                    orelse,
                })
            }
            S::While(w) => {
                let test = self.expr(&w.test)?;
                let body = self.stmts(&w.body)?;
                let orelse = self.stmts(&w.orelse)?;
                self.tree.add(lint::While {
                    start: at,
                    test,
                    body,
                    orelse,
                })
            }
            S::If(i) => {
                let test = self.expr(&i.test)?;
                let body = self.stmts(&i.body)?;
                let clauses = i
                    .elif_else_clauses
                    .iter()
                    .map(|c| {
                        let test = self.opt_expr(c.test.as_ref())?;
                        let body = self.stmts(&c.body)?;
                        self.tree.add(lint::ElifElse {
                            start: start(c),
                            test,
                            body,
                        })
                    })
                    .list()?;
                self.tree.add(lint::If {
                    start: at,
                    test,
                    body,
                    clauses,
                })
            }
            S::With(w) => {
                let items = w
                    .items
                    .iter()
                    .map(|item| {
                        let context_expr = self.expr(&item.context_expr)?;
                        let optional_vars = self.opt_expr(item.optional_vars.as_deref())?;
                        self.tree.add(lint::WithItem {
                            start: start(item),
                            context_expr,
                            optional_vars,
                        })
                    })
                    .list()?;
                let body = self.stmts(&w.body)?;
                self.tree.add(lint::With {
                    start: at,
                    is_async: w.is_async,
                    items,
                    body,
                })
            }
            S::Match(m) => {
                let subject = self.expr(&m.subject)?;
                let cases = m
                    .cases
                    .iter()
                    .map(|c| {
                        let pattern = self.pattern(&c.pattern)?;
                        let guard = self.opt_expr(c.guard.as_deref())?;
                        let body = self.stmts(&c.body)?;
                        self.tree.add(lint::MatchCase {
                            start: start(c),
                            pattern,
                            guard,
                            body,
                        })
                    })
                    .list()?;
                self.tree.add(lint::Match {
                    start: at,
                    subject,
                    cases,
                })
            }
            S::Raise(r) => {
                let exc = self.opt_expr(r.exc.as_deref())?;
                let cause = self.opt_expr(r.cause.as_deref())?;
                self.tree.add(lint::Raise {
                    start: at,
                    exc,
                    cause,
                })
            }
            S::Try(t) => {
                let body = self.stmts(&t.body)?;
                let handlers = t
                    .handlers
                    .iter()
                    .map(|h| {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        let exc_type = self.opt_expr(h.type_.as_deref())?;
                        let body = self.stmts(&h.body)?;
                        self.tree.add(lint::ExceptHandler {
                            start: start(h),
                            exc_type,
                            name: self.strings.opt_ident(h.name.as_ref()),
                            name_start: h.name.as_ref().map_or(0, start),
                            body,
                        })
                    })
                    .list()?;
                let orelse = self.stmts(&t.orelse)?;
                let finalbody = self.stmts(&t.finalbody)?;
                self.tree.add(lint::Try {
                    start: at,
                    is_star: t.is_star,
                    body,
                    handlers,
                    orelse,
                    finalbody,
                })
            }
            S::Assert(a) => {
                let test = self.expr(&a.test)?;
                let msg = self.opt_expr(a.msg.as_deref())?;
                self.tree.add(lint::Assert {
                    start: at,
                    test,
                    msg,
                })
            }
            S::Import(i) => {
                let names = self.aliases(&i.names)?;
                self.tree.add(lint::Import { start: at, names })
            }
            S::ImportFrom(i) => {
                let names = self.aliases(&i.names)?;
                self.tree.add(lint::ImportFrom {
                    start: at,
                    module: self.strings.opt_ident(i.module.as_ref()),
                    level: i64::from(i.level),
                    names,
                })
            }
            S::Global(g) => {
                let names = self.identifiers(&g.names)?;
                self.tree.add(lint::Global { start: at, names })
            }
            S::Nonlocal(n) => {
                let names = self.identifiers(&n.names)?;
                self.tree.add(lint::Nonlocal { start: at, names })
            }
            S::Expr(e) => {
                let value = self.expr(&e.value)?;
                self.tree.add(lint::ExprStmt { start: at, value })
            }
            S::Pass(_) => self.tree.add(lint::Pass { start: at }),
            S::Break(_) => self.tree.add(lint::Break { start: at }),
            S::Continue(_) => self.tree.add(lint::Continue { start: at }),
            // IPython escapes (`!ls`) exist only in notebooks, which this
            // linter does not read; the parser never makes one for a `.py`
            // file. Kept as a statement that does nothing.
            S::IpyEscapeCommand(_) => self.tree.add(lint::Pass { start: at }),
        }
    }

    fn expr(&mut self, expr: &ast::Expr) -> Built {
        use ast::Expr as E;
        let at = start(expr);
        let end = end(expr);
        match expr {
            E::BoolOp(b) => {
                let values = self.exprs(&b.values)?;
                let op = match b.op {
                    ast::BoolOp::And => lint::BoolOperator::And,
                    ast::BoolOp::Or => lint::BoolOperator::Or,
                };
                self.tree.add(lint::BoolOp {
                    start: at,
                    end,
                    op,
                    values,
                })
            }
            E::Named(n) => {
                let target = self.expr(&n.target)?;
                let value = self.expr(&n.value)?;
                self.tree.add(lint::Named {
                    start: at,
                    end,
                    target,
                    value,
                })
            }
            E::BinOp(b) => {
                let left = self.expr(&b.left)?;
                let right = self.expr(&b.right)?;
                self.tree.add(lint::BinOp {
                    start: at,
                    end,
                    left,
                    op: operator(b.op),
                    right,
                })
            }
            E::UnaryOp(u) => {
                let operand = self.expr(&u.operand)?;
                let op = match u.op {
                    ast::UnaryOp::Invert => lint::UnaryOperator::Invert,
                    ast::UnaryOp::Not => lint::UnaryOperator::Not,
                    ast::UnaryOp::UAdd => lint::UnaryOperator::UAdd,
                    ast::UnaryOp::USub => lint::UnaryOperator::USub,
                };
                self.tree.add(lint::UnaryOp {
                    start: at,
                    end,
                    op,
                    operand,
                })
            }
            E::Lambda(l) => {
                let parameters = l
                    .parameters
                    .as_deref()
                    .map(|p| self.parameters(p))
                    .transpose()?;
                let body = self.expr(&l.body)?;
                self.tree.add(lint::Lambda {
                    start: at,
                    end,
                    parameters,
                    body,
                })
            }
            E::If(i) => {
                let test = self.expr(&i.test)?;
                let body = self.expr(&i.body)?;
                let orelse = self.expr(&i.orelse)?;
                self.tree.add(lint::IfExp {
                    start: at,
                    end,
                    test,
                    body,
                    orelse,
                })
            }
            E::Dict(d) => {
                let items = d
                    .items
                    .iter()
                    .map(|item| {
                        let key = self.opt_expr(item.key.as_ref())?;
                        let value = self.expr(&item.value)?;
                        // A `**mapping` item has no key: its range is the value's.
                        let at = item.key.as_ref().map_or_else(|| start(&item.value), start);
                        self.tree.add(lint::DictItem {
                            start: at,
                            key,
                            value,
                        })
                    })
                    .list()?;
                self.tree.add(lint::Dict {
                    start: at,
                    end,
                    items,
                })
            }
            E::Set(s) => {
                let elts = self.exprs(&s.elts)?;
                self.tree.add(lint::Set {
                    start: at,
                    end,
                    elts,
                })
            }
            E::ListComp(c) => {
                let elt = self.expr(&c.elt)?;
                let generators = self.comprehensions(&c.generators)?;
                self.tree.add(lint::ListComp {
                    start: at,
                    end,
                    elt,
                    generators,
                })
            }
            E::SetComp(c) => {
                let elt = self.expr(&c.elt)?;
                let generators = self.comprehensions(&c.generators)?;
                self.tree.add(lint::SetComp {
                    start: at,
                    end,
                    elt,
                    generators,
                })
            }
            E::DictComp(c) => {
                let key = self.opt_expr(c.key.as_deref())?;
                let value = self.expr(&c.value)?;
                let generators = self.comprehensions(&c.generators)?;
                self.tree.add(lint::DictComp {
                    start: at,
                    end,
                    key,
                    value,
                    generators,
                })
            }
            E::Generator(g) => {
                let elt = self.expr(&g.elt)?;
                let generators = self.comprehensions(&g.generators)?;
                self.tree.add(lint::Generator {
                    start: at,
                    end,
                    elt,
                    generators,
                    parenthesized: g.parenthesized,
                })
            }
            E::Await(a) => {
                let value = self.expr(&a.value)?;
                self.tree.add(lint::Await {
                    start: at,
                    end,
                    value,
                })
            }
            E::Yield(y) => {
                let value = self.opt_expr(y.value.as_deref())?;
                self.tree.add(lint::Yield {
                    start: at,
                    end,
                    value,
                })
            }
            E::YieldFrom(y) => {
                let value = self.expr(&y.value)?;
                self.tree.add(lint::YieldFrom {
                    start: at,
                    end,
                    value,
                })
            }
            E::Compare(c) => {
                let left = self.expr(&c.left)?;
                let comparators = self.exprs(c.comparators.iter())?;
                let ops = c.ops.iter().map(|&op| cmp_operator(op)).collect();
                self.tree.add(lint::Compare {
                    start: at,
                    end,
                    left,
                    ops,
                    comparators,
                })
            }
            E::Call(c) => {
                let func = self.expr(&c.func)?;
                let args = self.exprs(c.arguments.args.iter())?;
                let keywords = self.keywords(&c.arguments.keywords)?;
                self.tree.add(lint::Call {
                    start: at,
                    end,
                    func,
                    args,
                    keywords,
                })
            }
            E::FString(f) => {
                let parts = f
                    .value
                    .as_slice()
                    .iter()
                    .map(|part| match part {
                        ast::FStringPart::Literal(l) => self.tree.add(lint::LiteralPart {
                            start: start(l),
                            value: self.strings.text(&l.value),
                        }),
                        ast::FStringPart::FString(f) => {
                            let elements = self.elements(&f.elements)?;
                            self.tree.add(lint::InterpolatedPart {
                                start: start(f),
                                elements,
                            })
                        }
                    })
                    .list()?;
                self.tree.add(lint::FString {
                    start: at,
                    end,
                    parts,
                })
            }
            E::TString(t) => {
                let parts = t
                    .value
                    .as_slice()
                    .iter()
                    .map(|t| {
                        let elements = self.elements(&t.elements)?;
                        self.tree.add(lint::InterpolatedPart {
                            start: start(t),
                            elements,
                        })
                    })
                    .list()?;
                self.tree.add(lint::TString {
                    start: at,
                    end,
                    parts,
                })
            }
            E::StringLiteral(s) => self.tree.add(lint::StringLiteral {
                start: at,
                end,
                value: self.strings.text(s.value.to_str()),
                implicit_concatenated: s.value.is_implicit_concatenated(),
            }),
            E::BytesLiteral(b) => self.tree.add(lint::BytesLiteral {
                start: at,
                end,
                implicit_concatenated: b.value.is_implicit_concatenated(),
            }),
            E::NumberLiteral(n) => {
                let kind = match n.value {
                    ast::Number::Int(_) => lint::NumberKind::Int,
                    ast::Number::Float(_) => lint::NumberKind::Float,
                    ast::Number::Complex { .. } => lint::NumberKind::Complex,
                };
                self.tree.add(lint::NumberLiteral {
                    start: at,
                    end,
                    kind,
                    text: self.strings.text(&self.source[n.range()]),
                })
            }
            E::BooleanLiteral(b) => self.tree.add(lint::BooleanLiteral {
                start: at,
                end,
                value: b.value,
            }),
            E::NoneLiteral(_) => self.tree.add(lint::NoneLiteral { start: at, end }),
            E::EllipsisLiteral(_) => self.tree.add(lint::EllipsisLiteral { start: at, end }),
            E::Attribute(a) => {
                let value = self.expr(&a.value)?;
                self.tree.add(lint::Attribute {
                    start: at,
                    end,
                    value,
                    attr: self.strings.text(a.attr.as_str()),
                    ctx: context(a.ctx),
                })
            }
            E::Subscript(s) => {
                let value = self.expr(&s.value)?;
                let slice = self.expr(&s.slice)?;
                self.tree.add(lint::Subscript {
                    start: at,
                    end,
                    value,
                    slice,
                    ctx: context(s.ctx),
                })
            }
            E::Starred(s) => {
                let value = self.expr(&s.value)?;
                self.tree.add(lint::Starred {
                    start: at,
                    end,
                    value,
                    ctx: context(s.ctx),
                })
            }
            E::Name(n) => self.tree.add(lint::Name {
                start: at,
                end,
                id: self.strings.text(n.id.as_str()),
                ctx: context(n.ctx),
            }),
            E::List(l) => {
                let elts = self.exprs(&l.elts)?;
                self.tree.add(lint::List {
                    start: at,
                    end,
                    elts,
                    ctx: context(l.ctx),
                })
            }
            E::Tuple(t) => {
                let elts = self.exprs(&t.elts)?;
                self.tree.add(lint::Tuple {
                    start: at,
                    end,
                    elts,
                    ctx: context(t.ctx),
                    parenthesized: t.parenthesized,
                })
            }
            E::Slice(s) => {
                let lower = self.opt_expr(s.lower.as_deref())?;
                let upper = self.opt_expr(s.upper.as_deref())?;
                let step = self.opt_expr(s.step.as_deref())?;
                self.tree.add(lint::Slice {
                    start: at,
                    end,
                    lower,
                    upper,
                    step,
                })
            }
            // Only in notebooks (see `stmt`): an expression that is nothing.
            E::IpyEscapeCommand(_) => self.tree.add(lint::EllipsisLiteral { start: at, end }),
        }
    }

    fn elements(&mut self, elements: &ast::InterpolatedStringElements) -> BuiltList {
        elements
            .iter()
            .map(|element| match element {
                ast::InterpolatedStringElement::Literal(l) => self.tree.add(lint::LiteralElement {
                    start: start(l),
                    value: self.strings.text(&l.value),
                }),
                ast::InterpolatedStringElement::Interpolation(i) => {
                    let expression = self.expr(&i.expression)?;
                    let format_spec = match i.format_spec.as_deref() {
                        Some(spec) => self.elements(&spec.elements)?,
                        None => Arc::default(),
                    };
                    let conversion = match i.conversion {
                        ast::ConversionFlag::None => "",
                        ast::ConversionFlag::Str => "s",
                        ast::ConversionFlag::Ascii => "a",
                        ast::ConversionFlag::Repr => "r",
                    };
                    self.tree.add(lint::Interpolation {
                        start: start(i),
                        expression,
                        debug: i.debug_text.is_some(),
                        conversion: self.strings.text(conversion),
                        has_format_spec: i.format_spec.is_some(),
                        format_spec,
                    })
                }
            })
            .list()
    }

    fn patterns(&mut self, list: &[ast::Pattern]) -> BuiltList {
        list.iter().map(|p| self.pattern(p)).list()
    }

    fn pattern(&mut self, pattern: &ast::Pattern) -> Built {
        use ast::Pattern as P;
        let at = start(pattern);
        match pattern {
            P::MatchValue(v) => {
                let value = self.expr(&v.value)?;
                self.tree.add(lint::MatchValue { start: at, value })
            }
            P::MatchSingleton(s) => {
                let value = match s.value {
                    ast::Singleton::None => lint::Singleton::None,
                    ast::Singleton::True => lint::Singleton::True,
                    ast::Singleton::False => lint::Singleton::False,
                };
                self.tree.add(lint::MatchSingleton { start: at, value })
            }
            P::MatchSequence(s) => {
                let patterns = self.patterns(&s.patterns)?;
                self.tree.add(lint::MatchSequence {
                    start: at,
                    patterns,
                })
            }
            P::MatchMapping(m) => {
                let keys = self.exprs(&m.keys)?;
                let patterns = self.patterns(&m.patterns)?;
                self.tree.add(lint::MatchMapping {
                    start: at,
                    keys,
                    patterns,
                    rest: self.strings.opt_ident(m.rest.as_ref()),
                    rest_start: m.rest.as_ref().map_or(0, start),
                })
            }
            P::MatchClass(c) => {
                let cls = self.expr(&c.cls)?;
                let patterns = self.patterns(&c.arguments.patterns)?;
                let keywords = c
                    .arguments
                    .keywords
                    .iter()
                    .map(|k| {
                        let pattern = self.pattern(&k.pattern)?;
                        self.tree.add(lint::PatternKeyword {
                            start: start(k),
                            attr: self.strings.text(k.attr.as_str()),
                            pattern,
                        })
                    })
                    .list()?;
                self.tree.add(lint::MatchClass {
                    start: at,
                    cls,
                    patterns,
                    keywords,
                })
            }
            P::MatchStar(s) => self.tree.add(lint::MatchStar {
                start: at,
                name: self.strings.opt_ident(s.name.as_ref()),
                name_start: s.name.as_ref().map_or(0, start),
            }),
            P::MatchAs(a) => {
                let inner = a.pattern.as_deref().map(|p| self.pattern(p)).transpose()?;
                self.tree.add(lint::MatchAs {
                    start: at,
                    pattern: inner,
                    name: self.strings.opt_ident(a.name.as_ref()),
                    name_start: a.name.as_ref().map_or(0, start),
                })
            }
            P::MatchOr(o) => {
                let patterns = self.patterns(&o.patterns)?;
                self.tree.add(lint::MatchOr {
                    start: at,
                    patterns,
                })
            }
        }
    }
}

fn operator(op: ast::Operator) -> lint::Operator {
    use ast::Operator as O;
    match op {
        O::Add => lint::Operator::Add,
        O::Sub => lint::Operator::Sub,
        O::Mult => lint::Operator::Mult,
        O::MatMult => lint::Operator::MatMult,
        O::Div => lint::Operator::Div,
        O::Mod => lint::Operator::Mod,
        O::Pow => lint::Operator::Pow,
        O::LShift => lint::Operator::LShift,
        O::RShift => lint::Operator::RShift,
        O::BitOr => lint::Operator::BitOr,
        O::BitXor => lint::Operator::BitXor,
        O::BitAnd => lint::Operator::BitAnd,
        O::FloorDiv => lint::Operator::FloorDiv,
    }
}

fn cmp_operator(op: ast::CmpOp) -> lint::CmpOperator {
    use ast::CmpOp as C;
    match op {
        C::Eq => lint::CmpOperator::Eq,
        C::NotEq => lint::CmpOperator::NotEq,
        C::Lt => lint::CmpOperator::Lt,
        C::LtE => lint::CmpOperator::LtE,
        C::Gt => lint::CmpOperator::Gt,
        C::GtE => lint::CmpOperator::GtE,
        C::Is => lint::CmpOperator::Is,
        C::IsNot => lint::CmpOperator::IsNot,
        C::In => lint::CmpOperator::In,
        C::NotIn => lint::CmpOperator::NotIn,
    }
}

fn context(ctx: ast::ExprContext) -> lint::ExprContext {
    match ctx {
        ast::ExprContext::Load => lint::ExprContext::Load,
        ast::ExprContext::Store => lint::ExprContext::Store,
        ast::ExprContext::Del => lint::ExprContext::Del,
        ast::ExprContext::Invalid => lint::ExprContext::Invalid,
    }
}
