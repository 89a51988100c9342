//! Checking of bodies: traversals, pure functions, `fuse` items and
//! constant expressions.
//!
//! One checker serves all four, parameterized by [`BodyKind`], because they
//! share expressions and differ only in what they may touch: a traversal
//! sees `self`, its descendants and globals; a pure function only its own
//! locals; a `fuse` item its parameters and globals; a constant only
//! earlier globals. Every rule violation gets its own diagnostic code.

use crate::items::{resolve_data_type, Names};
use crate::model::*;
use crate::ops::{BinaryOp, Builtin, UnaryOp};
use crate::value::Value;
use treefuse_syntax::ast;
use treefuse_syntax::{Diagnostic, Span};

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
        }
    }

    /// Installs a frame whose first `num_params` locals are parameters.
    pub(crate) fn set_frame(&mut self, frame: FrameLayout) {
        for (i, (name, _)) in frame.locals.iter().enumerate().take(frame.num_params) {
            self.scopes[0].push((name.clone(), Binding::Local(LocalId(i as u32))));
        }
        self.frame = frame;
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
    /// as (root, child fields).
    fn expand(&self, p: &NodePath) -> (PathRoot, Vec<FieldId>) {
        let mut fields: Vec<FieldId> = p.fields().collect();
        let mut root = p.root;
        while let PathRoot::Var(v) = root {
            match &self.frame.node_vars[v.index()].origin {
                Some(origin) => {
                    let mut f: Vec<FieldId> = origin.fields().collect();
                    f.extend(fields);
                    fields = f;
                    root = origin.root;
                }
                None => break,
            }
        }
        (root, fields)
    }

    // ----- statements --------------------------------------------------

    pub(crate) fn block(&mut self, b: &ast::Block) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut out);
        }
        self.scopes.pop();
        out
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let span = s.span;
        let kind = match &s.kind {
            ast::StmtKind::Call {
                receiver,
                method,
                args,
            } => self.call_stmt(receiver, method, args, span),
            ast::StmtKind::Let { name, ty, init } => self.let_stmt(name, ty.as_ref(), init),
            ast::StmtKind::Assign { target, value } => self.assign_stmt(target, value),
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond_span = cond.span;
                let cond = self
                    .expr(cond, Some(&DataType::Bool))
                    .filter(|c| self.expect_type(c, &DataType::Bool));
                let then_branch = self.block(then_block);
                let else_branch = else_block
                    .as_ref()
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                // With a bad condition the program has errors and its model
                // is discarded; keep the branches anyway so that their
                // `return`s still count (no spurious `missing-return`).
                Some(StmtKind::If {
                    cond: cond.unwrap_or_else(|| error_placeholder(cond_span)),
                    then_branch,
                    else_branch,
                })
            }
            ast::StmtKind::For { var, iter, body } => self.for_stmt(var, iter, body),
            ast::StmtKind::Return(value) => self.return_stmt(value.as_ref(), span),
        };
        if let Some(kind) = kind {
            out.push(Stmt { kind, span });
        }
    }

    fn call_stmt(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtKind> {
        match self.kind {
            BodyKind::Traversal { .. } => {}
            BodyKind::Pure { .. } => {
                self.error(
                    "pure-fn-effect",
                    span,
                    "a pure function cannot call a traversal",
                );
                return None;
            }
            _ => {
                self.error(
                    "fuse-body",
                    span,
                    "traversals can only be called from traversals and `fuse` items",
                );
                return None;
            }
        }
        let recv = match self.resolve(receiver)? {
            Resolved::Node(p) => p,
            Resolved::List(_) => {
                self.report(
                    Diagnostic::error(
                        "call-receiver",
                        receiver.span,
                        "a traversal can only be called on a tree node, not on a list of children",
                    )
                    .with_note(format!(
                        "call it on each element: `for x in {} {{ x.{}(..); }}`",
                        span_text_hint(receiver),
                        method.name
                    )),
                );
                return None;
            }
            Resolved::Data(_) => {
                self.error(
                    "call-receiver",
                    receiver.span,
                    "a traversal can only be called on a tree node",
                );
                return None;
            }
        };
        let receiver_ok = match recv.root {
            PathRoot::SelfNode => {
                recv.steps.is_empty() || matches!(recv.steps[..], [PathStep::Child(_)])
            }
            PathRoot::Var(v) => {
                if self.frame.node_vars[v.index()].origin.is_some() {
                    self.report(
                        Diagnostic::error(
                            "alias-call-receiver",
                            receiver.span,
                            "a tree alias cannot be the receiver of a traversing call",
                        )
                        .with_note("call the traversal on `self`, on a child `self.c`, or on a `for` loop variable"),
                    );
                    return None;
                }
                recv.steps.is_empty()
            }
        };
        if !receiver_ok {
            self.report(
                Diagnostic::error(
                    "call-receiver",
                    receiver.span,
                    "traversing calls are allowed only on `self`, a child of `self` (`self.c`), or a `for` loop variable",
                )
                .with_note("to visit deeper nodes, call a traversal on the child that forwards the call"),
            );
            return None;
        }
        if let Some((var, _)) = self.for_children.last() {
            if recv.root != PathRoot::Var(*var) || !recv.steps.is_empty() {
                let name = self.frame.node_vars[var.index()].name.clone();
                self.error(
                    "for-body-call",
                    receiver.span,
                    format!("inside a `for` over children, traversals can only be called on the loop variable `{name}`"),
                );
                return None;
            }
        }
        let Some(m) = self.program.method_named(recv.ty, &method.name) else {
            let mut d = Diagnostic::error(
                "unknown-traversal",
                method.span,
                format!(
                    "no traversal `{}` on type `{}`",
                    method.name,
                    self.program.type_name(recv.ty)
                ),
            );
            if self.program.methods.iter().any(|m| m.name == method.name) {
                d = d.with_note("a traversal of that name exists on another type, but not on this receiver's static type");
            }
            self.report(d);
            return None;
        };
        let params = self.program.methods[m.index()].params.clone();
        let args = self.call_args(&method.name, args, &params, without_semicolon(span))?;
        Some(StmtKind::Call {
            receiver: recv,
            method: m,
            args,
        })
    }

    fn call_args(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        params: &[DataType],
        span: Span,
    ) -> Option<Vec<Expr>> {
        if args.len() != params.len() {
            self.error(
                "call-args",
                span,
                format!(
                    "`{name}` takes {} argument(s) but {} were given",
                    params.len(),
                    args.len()
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (a, p) in args.iter().zip(params) {
            match self.expr(a, Some(p)) {
                Some(e) if self.expect_type(&e, p) => out.push(e),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn let_stmt(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::TypeExpr>,
        init: &ast::Expr,
    ) -> Option<StmtKind> {
        let checked = self.let_binding(name, ty, init);
        if checked.is_none() {
            self.bind(&name.name, Binding::Poisoned);
        }
        checked
    }

    /// Checks `let name [: ty] = init;` and binds `name` on success.
    fn let_binding(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::TypeExpr>,
        init: &ast::Expr,
    ) -> Option<StmtKind> {
        let annotated_tree = match ty {
            Some(ast::TypeExpr::Named(n)) => self.names.types.get(&n.name).copied(),
            _ => None,
        };
        // A data annotation guides the typing of the value, as in
        // `let a: [i64] = [];`.
        let declared = match ty {
            Some(t) if annotated_tree.is_none() => {
                Some(resolve_data_type(self.names, self.diags, t, "a local")?)
            }
            _ => None,
        };
        let resolved = self.resolve_expecting(init, declared.as_ref())?;
        match resolved {
            Resolved::Node(path) => {
                if !matches!(self.kind, BodyKind::Traversal { .. }) {
                    self.error(
                        "pure-fn-tree",
                        init.span,
                        "only traversals can refer to tree nodes",
                    );
                    return None;
                }
                if path.fields().next().is_none() {
                    self.report(
                        Diagnostic::error(
                            "alias-not-descendant",
                            init.span,
                            "a tree alias must name a descendant (a path of child fields such as `self.content`)",
                        ),
                    );
                    return None;
                }
                let mut var_ty = path.ty;
                if let Some(t) = ty {
                    match annotated_tree {
                        Some(a) if self.program.is_subtype(path.ty, a) => var_ty = a,
                        Some(a) => {
                            self.error(
                                "type-mismatch",
                                t.span(),
                                format!(
                                    "the alias is annotated `{}` but the path has type `{}`",
                                    self.program.type_name(a),
                                    self.program.type_name(path.ty)
                                ),
                            );
                            return None;
                        }
                        None => {
                            self.error(
                                "type-mismatch",
                                t.span(),
                                "a tree path cannot be bound to a data local",
                            );
                            return None;
                        }
                    }
                }
                let (root, fields) = self.expand(&path);
                let origin = NodePath {
                    root,
                    steps: fields.into_iter().map(PathStep::Child).collect(),
                    ty: path.ty,
                    span: path.span,
                };
                let var = self.new_node_var(&name.name, var_ty, Some(origin));
                self.bind(&name.name, Binding::Alias(var));
                Some(StmtKind::Alias { var, path })
            }
            Resolved::List(_) => {
                self.list_misuse(init.span);
                None
            }
            Resolved::Data(value) => {
                if let (Some(t), Some(_)) = (ty, annotated_tree) {
                    self.error(
                        "type-mismatch",
                        t.span(),
                        "a data value cannot be bound to a tree alias",
                    );
                    return None;
                }
                if let Some(d) = &declared {
                    if !self.expect_type(&value, d) {
                        return None;
                    }
                }
                let local = self.new_local(&name.name, value.ty.clone());
                self.bind(&name.name, Binding::Local(local));
                Some(StmtKind::Let { local, value })
            }
        }
    }

    fn list_misuse(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "list-access",
                span,
                "a list of children can only be iterated with `for`, moved whole into a `new` node, or given as `[..]` in `new`",
            ),
        );
    }

    fn assign_stmt(&mut self, target: &ast::Expr, value: &ast::Expr) -> Option<StmtKind> {
        match self.target(target)? {
            Target::Place(place, ty) => {
                let v = self.expr(value, Some(&ty))?;
                if !self.expect_type(&v, &ty) {
                    return None;
                }
                Some(StmtKind::Assign { place, value: v })
            }
            Target::Slot(slot) => {
                if !matches!(self.kind, BodyKind::Traversal { .. }) {
                    self.error(
                        "pure-fn-tree",
                        target.span,
                        "only traversals can change the tree",
                    );
                    return None;
                }
                self.check_for_list_write(&slot, target.span)?;
                let FieldKind::Child(child_ty) = self.program.fields[slot.field.index()].kind
                else {
                    return None;
                };
                if let ast::ExprKind::New(ty, inits) = &strip_parens(value).kind {
                    let tree = self.new_tree(ty, inits, &slot, value.span)?;
                    if !self.program.is_subtype(tree.ty, child_ty) {
                        self.slot_type_error(value.span, tree.ty, child_ty);
                        return None;
                    }
                    let mut moved = Vec::new();
                    collect_moves(&tree, &mut |p| moved.push(p));
                    self.check_overlap(&moved)?;
                    return Some(StmtKind::Replace { slot, tree });
                }
                match self.resolve(value)? {
                    Resolved::Node(source) => {
                        if !self.is_strict_descendant(&source, &slot) {
                            self.move_error(value.span);
                            return None;
                        }
                        if !self.program.is_subtype(source.ty, child_ty) {
                            self.slot_type_error(value.span, source.ty, child_ty);
                            return None;
                        }
                        Some(StmtKind::Move { slot, source })
                    }
                    _ => {
                        self.error(
                            "slot-assign",
                            value.span,
                            "a child slot can only be given a `new` subtree or a descendant subtree of that slot",
                        );
                        None
                    }
                }
            }
        }
    }

    fn slot_type_error(&mut self, span: Span, found: TypeId, expected: TypeId) {
        self.error(
            "type-mismatch",
            span,
            format!(
                "expected a subtree of type `{}`, found `{}`",
                self.program.type_name(expected),
                self.program.type_name(found)
            ),
        );
    }

    fn move_error(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "move-not-descendant",
                span,
                "only a descendant of the slot being replaced can be moved into it",
            )
            .with_note("moving any other subtree would make it reachable twice; build a copy with `new` instead"),
        );
    }

    /// Inside `for x in L`, a write of the slot holding `L`, or of any slot
    /// above it, would change the list being iterated.
    fn check_for_list_write(&mut self, slot: &ChildSlot, span: Span) -> Option<()> {
        for (_, list) in self.for_children.clone() {
            let (lroot, mut lfields) = self.expand(&list.parent);
            lfields.push(list.field);
            let (sroot, mut sfields) = self.expand(&slot.parent);
            sfields.push(slot.field);
            if lroot == sroot && lfields.starts_with(&sfields) {
                self.error(
                    "for-list-write",
                    span,
                    "this replaces the list of children (or a node above it) that the enclosing `for` iterates over",
                );
                return None;
            }
        }
        Some(())
    }

    fn is_strict_descendant(&self, source: &NodePath, slot: &ChildSlot) -> bool {
        self.is_descendant(source, slot, false)
    }

    /// Whether `source` lies below the subtree in `slot` (or is that
    /// subtree, when `or_self`).
    fn is_descendant(&self, source: &NodePath, slot: &ChildSlot, or_self: bool) -> bool {
        let (sroot, sfields) = self.expand(source);
        let (proot, mut pfields) = self.expand(&slot.parent);
        pfields.push(slot.field);
        let deeper = sfields.len() > pfields.len() || (or_self && sfields.len() == pfields.len());
        sroot == proot && deeper && sfields.starts_with(&pfields)
    }

    fn check_overlap(&mut self, moved: &[(NodePath, Option<FieldId>)]) -> Option<()> {
        let expanded: Vec<(PathRoot, Vec<FieldId>, Span)> = moved
            .iter()
            .map(|(p, list)| {
                let (r, mut f) = self.expand(p);
                f.extend(list.iter().copied());
                (r, f, p.span)
            })
            .collect();
        for (i, a) in expanded.iter().enumerate() {
            for b in &expanded[i + 1..] {
                if a.0 == b.0 && (a.1.starts_with(&b.1) || b.1.starts_with(&a.1)) {
                    self.report(
                        Diagnostic::error(
                            "move-overlap",
                            b.2,
                            "this subtree is moved twice (it overlaps another moved subtree)",
                        )
                        .with_label(a.2, "also moved here"),
                    );
                    return None;
                }
            }
        }
        Some(())
    }

    fn new_tree(
        &mut self,
        ty: &ast::Ident,
        inits: &[(ast::Ident, ast::Expr)],
        slot: &ChildSlot,
        span: Span,
    ) -> Option<NewTree> {
        let Some(&t) = self.names.types.get(&ty.name) else {
            self.error(
                "unknown-type",
                ty.span,
                format!("unknown tree type `{}`", ty.name),
            );
            return None;
        };
        if self.program.types[t.index()].is_abstract {
            self.error(
                "new-abstract",
                ty.span,
                format!("`{}` is abstract and cannot be instantiated", ty.name),
            );
            return None;
        }
        let field_ids = self.program.types[t.index()].fields.clone();
        let mut given: Vec<Option<NewField>> = vec![None; field_ids.len()];
        let mut ok = true;
        for (name, e) in inits {
            let Some(pos) = field_ids
                .iter()
                .position(|f| self.program.fields[f.index()].name == name.name)
            else {
                self.error(
                    "unknown-field",
                    name.span,
                    format!("type `{}` has no field `{}`", ty.name, name.name),
                );
                ok = false;
                continue;
            };
            if given[pos].is_some() {
                self.error(
                    "duplicate-init",
                    name.span,
                    format!("the field `{}` is initialized twice", name.name),
                );
                ok = false;
                continue;
            }
            let kind = self.program.fields[field_ids[pos].index()].kind.clone();
            let init = match kind {
                FieldKind::Data(dt) => self
                    .expr(e, Some(&dt))
                    .filter(|x| self.expect_type(x, &dt))
                    .map(NewField::Data),
                FieldKind::Child(ct) => self.child_init(e, ct, slot),
                FieldKind::List(ct) => match &e.kind {
                    ast::ExprKind::Array(items) => {
                        let mut out = Vec::new();
                        for item in items {
                            match self.child_init(item, ct, slot) {
                                Some(x) => out.push(x),
                                None => ok = false,
                            }
                        }
                        Some(NewField::List(out))
                    }
                    _ => match self.resolve(e)? {
                        Resolved::List(src) => {
                            let list_ty = match self.program.fields[src.field.index()].kind {
                                FieldKind::List(lt) => lt,
                                _ => ct,
                            };
                            let (sroot, mut sfields) = self.expand(&src.parent);
                            sfields.push(src.field);
                            let (proot, mut pfields) = self.expand(&slot.parent);
                            pfields.push(slot.field);
                            if !(sroot == proot
                                && sfields.len() > pfields.len()
                                && sfields.starts_with(&pfields))
                            {
                                self.move_error(e.span);
                                None
                            } else if !self.program.is_subtype(list_ty, ct) {
                                self.slot_type_error(e.span, list_ty, ct);
                                None
                            } else {
                                Some(NewField::MoveList(src))
                            }
                        }
                        _ => {
                            self.error(
                                "child-init",
                                e.span,
                                "a list child is initialized with `[..]` of `new` nodes or moved subtrees, or with a moved list",
                            );
                            None
                        }
                    },
                },
            };
            match init {
                Some(x) => given[pos] = Some(x),
                None => ok = false,
            }
        }
        let mut missing = Vec::new();
        let mut fields = Vec::new();
        for (pos, f) in field_ids.iter().enumerate() {
            let field = &self.program.fields[f.index()];
            match given[pos].take() {
                Some(x) => fields.push(x),
                None => match &field.kind {
                    FieldKind::Data(dt) => fields.push(NewField::Data(Expr {
                        kind: ExprKind::Const(field.default.clone().unwrap_or(Value::Int(0))),
                        ty: dt.clone(),
                        span,
                    })),
                    _ => missing.push(field.name.clone()),
                },
            }
        }
        if !missing.is_empty() && ok {
            self.error(
                "missing-child-init",
                span,
                format!(
                    "every child of a new node must be initialized; missing: {}",
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        }
        ok.then_some(NewTree {
            ty: t,
            fields,
            span,
        })
    }

    fn child_init(
        &mut self,
        e: &ast::Expr,
        child_ty: TypeId,
        slot: &ChildSlot,
    ) -> Option<NewField> {
        if let ast::ExprKind::New(ty, inits) = &strip_parens(e).kind {
            let tree = self.new_tree(ty, inits, slot, e.span)?;
            if !self.program.is_subtype(tree.ty, child_ty) {
                self.slot_type_error(e.span, tree.ty, child_ty);
                return None;
            }
            return Some(NewField::New(Box::new(tree)));
        }
        match self.resolve(e)? {
            Resolved::Node(src) => {
                // Inside `new`, the slot's old subtree itself may move down
                // into the new node (wrapping it): it is dropped from the
                // slot in the same step, so it stays reachable once.
                if !self.is_descendant(&src, slot, true) {
                    self.move_error(e.span);
                    return None;
                }
                if !self.program.is_subtype(src.ty, child_ty) {
                    self.slot_type_error(e.span, src.ty, child_ty);
                    return None;
                }
                Some(NewField::Move(src))
            }
            _ => {
                self.error(
                    "child-init",
                    e.span,
                    "a child is initialized with `new` or by moving a descendant of the replaced slot",
                );
                None
            }
        }
    }

    fn for_stmt(
        &mut self,
        var: &ast::Ident,
        iter: &ast::ForIter,
        body: &ast::Block,
    ) -> Option<StmtKind> {
        match iter {
            ast::ForIter::Range(a, b) => {
                let start = self
                    .expr(a, Some(&DataType::Int))
                    .filter(|x| self.expect_type(x, &DataType::Int));
                let end = self
                    .expr(b, Some(&DataType::Int))
                    .filter(|x| self.expect_type(x, &DataType::Int));
                self.scopes.push(Vec::new());
                let local = self.new_local(&var.name, DataType::Int);
                self.bind(&var.name, Binding::Local(local));
                let body = self.block(body);
                self.scopes.pop();
                Some(StmtKind::ForRange {
                    var: local,
                    start: start?,
                    end: end?,
                    body,
                })
            }
            ast::ForIter::Expr(e) => match self.resolve(e) {
                None => {
                    self.poisoned_body(var, body);
                    None
                }
                Some(Resolved::List(list)) => {
                    let FieldKind::List(elem) = self.program.fields[list.field.index()].kind else {
                        return None;
                    };
                    self.scopes.push(Vec::new());
                    let v = self.new_node_var(&var.name, elem, None);
                    self.bind(&var.name, Binding::LoopVar(v));
                    self.for_children.push((v, list.clone()));
                    let body = self.block(body);
                    self.for_children.pop();
                    self.scopes.pop();
                    Some(StmtKind::ForChildren { var: v, list, body })
                }
                Some(Resolved::Data(array)) => {
                    let DataType::Array(elem) = array.ty.clone() else {
                        self.error(
                            "for-iter",
                            e.span,
                            format!(
                                "`for` iterates over a list of children, an array or a range `a..b`, not `{}`",
                                self.type_name(&array.ty)
                            ),
                        );
                        self.poisoned_body(var, body);
                        return None;
                    };
                    self.scopes.push(Vec::new());
                    let local = self.new_local(&var.name, *elem);
                    self.bind(&var.name, Binding::Local(local));
                    let body = self.block(body);
                    self.scopes.pop();
                    Some(StmtKind::ForArray {
                        var: local,
                        array,
                        body,
                    })
                }
                Some(Resolved::Node(_)) => {
                    self.error(
                        "for-iter",
                        e.span,
                        "`for` iterates over a list child (`child xs: [T]`), not a single node",
                    );
                    self.poisoned_body(var, body);
                    None
                }
            },
        }
    }

    /// Checks the body of a `for` whose iteration failed to check, for its
    /// own errors, with the loop variable [`Binding::Poisoned`].
    fn poisoned_body(&mut self, var: &ast::Ident, body: &ast::Block) {
        self.scopes.push(Vec::new());
        self.bind(&var.name, Binding::Poisoned);
        self.block(body);
        self.scopes.pop();
    }

    fn return_stmt(&mut self, value: Option<&ast::Expr>, span: Span) -> Option<StmtKind> {
        match (&self.kind.clone(), value) {
            (BodyKind::Traversal { .. }, None) => Some(StmtKind::Return(None)),
            (BodyKind::Traversal { .. }, Some(v)) => {
                self.error(
                    "return-value",
                    v.span,
                    "a traversal returns nothing; write `return;`",
                );
                None
            }
            // A `return` whose value is wrong is still a `return` (the
            // program has errors and its model is discarded): it must not
            // also cause a `missing-return`.
            (BodyKind::Pure { ret }, Some(v)) => {
                let e = self
                    .expr(v, Some(ret))
                    .filter(|e| self.expect_type(e, ret))
                    .unwrap_or_else(|| error_placeholder(v.span));
                Some(StmtKind::Return(Some(e)))
            }
            (BodyKind::Pure { ret }, None) => {
                let ret = self.type_name(ret);
                self.error(
                    "return-value",
                    span,
                    format!("a pure function must return a value of type `{ret}`"),
                );
                Some(StmtKind::Return(Some(error_placeholder(span))))
            }
            _ => {
                self.error("fuse-body", span, "`return` is not allowed here");
                None
            }
        }
    }

    /// Checks the body of a `fuse` item: calls on the root, in order.
    pub(crate) fn fuse_calls(
        &mut self,
        body: &ast::Block,
        root: &str,
        root_ty: TypeId,
    ) -> Vec<FuseCall> {
        self.fuse_root = Some(root.to_string());
        let mut calls = Vec::new();
        for s in &body.stmts {
            let ast::StmtKind::Call {
                receiver,
                method,
                args,
            } = &s.kind
            else {
                self.error(
                    "fuse-body",
                    s.span,
                    "a fuse item may only contain traversal calls on its root, such as `root.f();`",
                );
                continue;
            };
            if !matches!(&receiver.kind, ast::ExprKind::Name(n) if n.name == root) {
                self.error(
                    "fuse-body",
                    receiver.span,
                    format!("calls in a fuse item must be on its root `{root}`"),
                );
                continue;
            }
            let Some(m) = self.program.method_named(root_ty, &method.name) else {
                self.error(
                    "unknown-traversal",
                    method.span,
                    format!(
                        "no traversal `{}` on type `{}`",
                        method.name,
                        self.program.type_name(root_ty)
                    ),
                );
                continue;
            };
            let params = self.program.methods[m.index()].params.clone();
            if let Some(args) =
                self.call_args(&method.name, args, &params, without_semicolon(s.span))
            {
                calls.push(FuseCall {
                    method: m,
                    args,
                    span: s.span,
                });
            }
        }
        calls
    }

    // ----- places ------------------------------------------------------

    fn target(&mut self, e: &ast::Expr) -> Option<Target> {
        match &e.kind {
            ast::ExprKind::Paren(inner) => self.target(inner),
            ast::ExprKind::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Local(l)) => {
                    let ty = self.frame.locals[l.index()].1.clone();
                    Some(Target::Place(
                        Place {
                            root: PlaceRoot::Local(l),
                            projections: Vec::new(),
                        },
                        ty,
                    ))
                }
                Some(Binding::Poisoned) => None,
                Some(Binding::Alias(_) | Binding::LoopVar(_)) => {
                    self.error(
                        "assign-node-var",
                        e.span,
                        format!("`{}` names a tree node and cannot be reassigned; assign to one of its fields", n.name),
                    );
                    None
                }
                None => match self.names.globals.get(&n.name) {
                    Some(&g) => {
                        if !matches!(self.kind, BodyKind::Traversal { .. }) {
                            self.error(
                                "pure-fn-effect",
                                e.span,
                                "only traversals can write globals",
                            );
                            return None;
                        }
                        let ty = self.program.globals[g.index()].ty.clone();
                        Some(Target::Place(
                            Place {
                                root: PlaceRoot::Global(g),
                                projections: Vec::new(),
                            },
                            ty,
                        ))
                    }
                    None => {
                        self.error("unknown-name", n.span, format!("unknown name `{}`", n.name));
                        None
                    }
                },
            },
            ast::ExprKind::SelfRef => {
                self.error(
                    "assign-self",
                    e.span,
                    "`self` cannot be replaced; its parent owns the slot",
                );
                None
            }
            ast::ExprKind::Field(base, name) => {
                if let Some(Resolved::Node(p)) = self.try_resolve_node(base) {
                    let Some(f) = self.program.field_named(p.ty, &name.name) else {
                        self.unknown_field(p.ty, name);
                        return None;
                    };
                    return match self.program.fields[f.index()].kind.clone() {
                        FieldKind::Data(dt) => Some(Target::Place(
                            Place {
                                root: PlaceRoot::Field(p, f),
                                projections: Vec::new(),
                            },
                            dt,
                        )),
                        FieldKind::Child(_) => Some(Target::Slot(ChildSlot {
                            parent: p,
                            field: f,
                        })),
                        FieldKind::List(_) => {
                            self.error(
                                "list-assign",
                                e.span,
                                "a list of children cannot be assigned; replace its parent with `new` instead",
                            );
                            None
                        }
                    };
                }
                let Target::Place(mut place, ty) = self.target(base)? else {
                    self.error("assign-target", e.span, "cannot assign to this");
                    return None;
                };
                let (i, fty) = self.record_member(&ty, name, "")?;
                place.projections.push(Projection::Member(i));
                Some(Target::Place(place, fty))
            }
            ast::ExprKind::Index(base, index) => {
                let Target::Place(mut place, ty) = self.target(base)? else {
                    self.error("assign-target", e.span, "cannot index a tree node");
                    return None;
                };
                let DataType::Array(elem) = ty else {
                    self.error(
                        "type-mismatch",
                        base.span,
                        format!("cannot index a value of type `{}`", self.type_name(&ty)),
                    );
                    return None;
                };
                let i = self.expr(index, Some(&DataType::Int))?;
                if !self.expect_type(&i, &DataType::Int) {
                    return None;
                }
                place.projections.push(Projection::Index(i));
                Some(Target::Place(place, *elem))
            }
            _ => {
                self.error(
                    "assign-target",
                    e.span,
                    "cannot assign to this expression; assign to a local, a global, a field or an array element",
                );
                None
            }
        }
    }

    /// Resolves `e` if it denotes a node, without reporting anything when
    /// it does not.
    fn try_resolve_node(&mut self, e: &ast::Expr) -> Option<Resolved> {
        let denotes_node = match &e.kind {
            ast::ExprKind::SelfRef | ast::ExprKind::As(..) => true,
            ast::ExprKind::Name(n) => matches!(
                self.lookup(&n.name),
                Some(Binding::Alias(_) | Binding::LoopVar(_))
            ),
            ast::ExprKind::Paren(inner) => return self.try_resolve_node(inner),
            ast::ExprKind::Field(base, name) => match self.try_resolve_node(base) {
                Some(Resolved::Node(p)) => {
                    self.program.field_named(p.ty, &name.name).is_some_and(|f| {
                        matches!(self.program.fields[f.index()].kind, FieldKind::Child(_))
                    })
                }
                _ => false,
            },
            _ => false,
        };
        if denotes_node {
            self.resolve(e)
        } else {
            None
        }
    }

    /// The index and type of member `name` of a record type; reports
    /// `unknown-field` (describing a non-record as `{what}`T``).
    fn record_member(
        &mut self,
        ty: &DataType,
        name: &ast::Ident,
        what: &str,
    ) -> Option<(u32, DataType)> {
        let DataType::Record(r) = ty else {
            let msg = format!(
                "{what}`{}` has no field `{}`",
                self.type_name(ty),
                name.name
            );
            self.error("unknown-field", name.span, msg);
            return None;
        };
        let rec = &self.program.records[r.index()];
        let Some(i) = rec.fields.iter().position(|f| f.name == name.name) else {
            let msg = format!("record `{}` has no field `{}`", rec.name, name.name);
            self.error("unknown-field", name.span, msg);
            return None;
        };
        Some((i as u32, rec.fields[i].ty.clone()))
    }

    fn unknown_field(&mut self, ty: TypeId, name: &ast::Ident) {
        let mut d = Diagnostic::error(
            "unknown-field",
            name.span,
            format!(
                "type `{}` has no field `{}`",
                self.program.type_name(ty),
                name.name
            ),
        );
        let subtype_with_field = (0..self.program.types.len() as u32).map(TypeId).find(|&t| {
            t != ty
                && self.program.is_subtype(t, ty)
                && self.program.field_named(t, &name.name).is_some()
        });
        if let Some(sub) = subtype_with_field {
            let sub = self.program.type_name(sub);
            d = d.with_note(format!(
                "a subtype such as `{sub}` has it; cast first: `(path as {sub})`"
            ));
        }
        self.report(d);
    }

    // ----- expressions -------------------------------------------------

    fn resolve(&mut self, e: &ast::Expr) -> Option<Resolved> {
        self.resolve_expecting(e, None)
    }

    /// [`Self::resolve`]; a data expression is checked with `expected`
    /// guiding the typing of `[]`, as in [`Self::expr`].
    fn resolve_expecting(
        &mut self,
        e: &ast::Expr,
        expected: Option<&DataType>,
    ) -> Option<Resolved> {
        match &e.kind {
            ast::ExprKind::Paren(inner) => self.resolve_expecting(inner, expected),
            ast::ExprKind::SelfRef => match self.kind {
                BodyKind::Traversal { self_ty } => Some(Resolved::Node(NodePath {
                    root: PathRoot::SelfNode,
                    steps: Vec::new(),
                    ty: self_ty,
                    span: e.span,
                })),
                _ => {
                    self.error(
                        "pure-fn-tree",
                        e.span,
                        "`self` is only available in traversals",
                    );
                    None
                }
            },
            ast::ExprKind::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Local(l)) => Some(Resolved::Data(Expr {
                    kind: ExprKind::Local(l),
                    ty: self.frame.locals[l.index()].1.clone(),
                    span: e.span,
                })),
                Some(Binding::Poisoned) => None,
                Some(Binding::Alias(v) | Binding::LoopVar(v)) => Some(Resolved::Node(NodePath {
                    root: PathRoot::Var(v),
                    steps: Vec::new(),
                    ty: self.frame.node_vars[v.index()].ty,
                    span: e.span,
                })),
                None => {
                    match self.names.globals.get(&n.name) {
                        Some(&g) => {
                            if matches!(self.kind, BodyKind::Pure { .. }) {
                                self.error(
                                "pure-fn-global",
                                e.span,
                                format!("a pure function reads only its arguments; pass `{}` as a parameter", n.name),
                            );
                                return None;
                            }
                            Some(Resolved::Data(Expr {
                                kind: ExprKind::Global(g),
                                ty: self.program.globals[g.index()].ty.clone(),
                                span: e.span,
                            }))
                        }
                        None if self.fuse_root.as_deref() == Some(n.name.as_str()) => {
                            self.report(
                                Diagnostic::error(
                                    "node-as-value",
                                    e.span,
                                    format!("`{}` is the root node; arguments of the calls in a fuse item are data", n.name),
                                )
                                .with_note("pass a constant, a global or an extra parameter of the fuse item"),
                            );
                            None
                        }
                        None => {
                            let mut d = Diagnostic::error(
                                "unknown-name",
                                n.span,
                                format!("unknown name `{}`", n.name),
                            );
                            if matches!(self.kind, BodyKind::Const) {
                                d = d.with_note("constant expressions may only use literals and earlier globals");
                            }
                            self.report(d);
                            None
                        }
                    }
                }
            },
            ast::ExprKind::Field(base, name) => match self.resolve(base)? {
                Resolved::Node(p) => {
                    let Some(f) = self.program.field_named(p.ty, &name.name) else {
                        self.unknown_field(p.ty, name);
                        return None;
                    };
                    let field = &self.program.fields[f.index()];
                    Some(match field.kind.clone() {
                        FieldKind::Child(t) => {
                            let mut steps = p.steps;
                            steps.push(PathStep::Child(f));
                            Resolved::Node(NodePath {
                                root: p.root,
                                steps,
                                ty: t,
                                span: e.span,
                            })
                        }
                        FieldKind::List(_) => Resolved::List(ChildSlot {
                            parent: p,
                            field: f,
                        }),
                        FieldKind::Data(dt) => Resolved::Data(Expr {
                            kind: ExprKind::Field(p, f),
                            ty: dt,
                            span: e.span,
                        }),
                    })
                }
                Resolved::List(_) => {
                    self.list_misuse(base.span);
                    None
                }
                Resolved::Data(inner) => {
                    let (i, ty) = self.record_member(&inner.ty, name, "a value of type ")?;
                    Some(Resolved::Data(Expr {
                        kind: ExprKind::Member(Box::new(inner), i),
                        ty,
                        span: e.span,
                    }))
                }
            },
            ast::ExprKind::As(inner, ty) => {
                let Resolved::Node(p) = self.resolve(inner)? else {
                    self.error(
                        "cast-type",
                        inner.span,
                        "only tree nodes can be cast with `as`",
                    );
                    return None;
                };
                let Some(&t) = self.names.types.get(&ty.name) else {
                    self.error(
                        "unknown-type",
                        ty.span,
                        format!("unknown tree type `{}`", ty.name),
                    );
                    return None;
                };
                if !self.program.is_subtype(t, p.ty) && !self.program.is_subtype(p.ty, t) {
                    self.error(
                        "cast-type",
                        ty.span,
                        format!(
                            "cannot cast `{}` to `{}`: neither type is a subtype of the other",
                            self.program.type_name(p.ty),
                            ty.name
                        ),
                    );
                    return None;
                }
                let mut steps = p.steps;
                steps.push(PathStep::Cast(t));
                Some(Resolved::Node(NodePath {
                    root: p.root,
                    steps,
                    ty: t,
                    span: e.span,
                }))
            }
            _ => self.expr(e, expected).map(Resolved::Data),
        }
    }

    /// Checks a data expression. `expected` only guides the typing of `[]`.
    pub(crate) fn expr(&mut self, e: &ast::Expr, expected: Option<&DataType>) -> Option<Expr> {
        if let ast::ExprKind::Array(items) = &e.kind {
            if items.is_empty() {
                if let Some(t @ DataType::Array(_)) = expected {
                    return Some(Expr {
                        kind: ExprKind::Array(Vec::new()),
                        ty: t.clone(),
                        span: e.span,
                    });
                }
            }
        }
        match &e.kind {
            ast::ExprKind::Paren(_)
            | ast::ExprKind::SelfRef
            | ast::ExprKind::Name(_)
            | ast::ExprKind::Field(..)
            | ast::ExprKind::As(..) => match self.resolve_expecting(e, expected)? {
                Resolved::Data(x) => Some(x),
                Resolved::Node(_) => {
                    self.report(
                        Diagnostic::error(
                            "node-as-value",
                            e.span,
                            "a tree node is not a data value",
                        )
                        .with_note("read one of its data fields, or test its type with `is`"),
                    );
                    None
                }
                Resolved::List(_) => {
                    self.list_misuse(e.span);
                    None
                }
            },
            _ => self.data_expr(e, expected),
        }
    }

    fn data_expr(&mut self, e: &ast::Expr, expected: Option<&DataType>) -> Option<Expr> {
        let span = e.span;
        let mk = |kind: ExprKind, ty: DataType| Some(Expr { kind, ty, span });
        match &e.kind {
            ast::ExprKind::Int(v) => mk(ExprKind::Const(Value::Int(*v)), DataType::Int),
            ast::ExprKind::Float(v) => mk(ExprKind::Const(Value::Float(*v)), DataType::Float),
            ast::ExprKind::Bool(v) => mk(ExprKind::Const(Value::Bool(*v)), DataType::Bool),
            ast::ExprKind::Str(s) => mk(
                ExprKind::Const(Value::Str(s.as_str().into())),
                DataType::Str,
            ),
            ast::ExprKind::Index(base, index) => {
                let b = self.expr(base, None)?;
                let i = self.expr(index, Some(&DataType::Int))?;
                let DataType::Array(elem) = b.ty.clone() else {
                    self.error(
                        "type-mismatch",
                        base.span,
                        format!("cannot index a value of type `{}`", self.type_name(&b.ty)),
                    );
                    return None;
                };
                if !self.expect_type(&i, &DataType::Int) {
                    return None;
                }
                mk(ExprKind::Index(Box::new(b), Box::new(i)), *elem)
            }
            ast::ExprKind::Call(name, args) => self.call_expr(name, args, span),
            ast::ExprKind::Unary(op, inner) => {
                let x = self.expr(inner, expected)?;
                let (rop, ty) = match (op, &x.ty) {
                    (ast::UnaryOp::Neg, DataType::Int) => (UnaryOp::NegInt, DataType::Int),
                    (ast::UnaryOp::Neg, DataType::Float) => (UnaryOp::NegFloat, DataType::Float),
                    (ast::UnaryOp::Not, DataType::Bool) => (UnaryOp::Not, DataType::Bool),
                    _ => {
                        let sym = if *op == ast::UnaryOp::Neg { "-" } else { "!" };
                        self.error(
                            "type-mismatch",
                            span,
                            format!(
                                "cannot apply `{sym}` to a value of type `{}`",
                                self.type_name(&x.ty)
                            ),
                        );
                        return None;
                    }
                };
                mk(ExprKind::Unary(rop, Box::new(x)), ty)
            }
            ast::ExprKind::Binary(op, a, b) => self.binary_expr(*op, a, b, span),
            ast::ExprKind::Array(items) => {
                let elem_expected = match expected {
                    Some(DataType::Array(t)) => Some((**t).clone()),
                    _ => None,
                };
                if items.is_empty() {
                    self.error("array-type", span, "cannot infer the element type of `[]`; annotate the local, e.g. `let a: [i64] = [];`");
                    return None;
                }
                let mut out = Vec::new();
                for it in items {
                    out.push(self.expr(it, elem_expected.as_ref())?);
                }
                let t = out[0].ty.clone();
                for x in &out[1..] {
                    if !self.expect_type(x, &t) {
                        return None;
                    }
                }
                mk(ExprKind::Array(out), DataType::Array(Box::new(t)))
            }
            ast::ExprKind::Record(name, inits) => {
                let Some(&r) = self.names.records.get(&name.name) else {
                    let msg = if self.names.types.contains_key(&name.name) {
                        format!("`{}` is a tree type; build nodes with `new {} {{ .. }}` as the value of a child slot", name.name, name.name)
                    } else {
                        format!("unknown record `{}`", name.name)
                    };
                    self.error("unknown-type", name.span, msg);
                    return None;
                };
                let fields = self.program.records[r.index()].fields.clone();
                let mut vals: Vec<Option<Expr>> = vec![None; fields.len()];
                for (n, x) in inits {
                    let Some(i) = fields.iter().position(|f| f.name == n.name) else {
                        self.error(
                            "record-init",
                            n.span,
                            format!("record `{}` has no field `{}`", name.name, n.name),
                        );
                        return None;
                    };
                    if vals[i].is_some() {
                        self.error(
                            "record-init",
                            n.span,
                            format!("the field `{}` is given twice", n.name),
                        );
                        return None;
                    }
                    let v = self.expr(x, Some(&fields[i].ty))?;
                    if !self.expect_type(&v, &fields[i].ty) {
                        return None;
                    }
                    vals[i] = Some(v);
                }
                let missing: Vec<String> = fields
                    .iter()
                    .zip(&vals)
                    .filter(|(_, v)| v.is_none())
                    .map(|(f, _)| format!("`{}`", f.name))
                    .collect();
                if !missing.is_empty() {
                    self.error(
                        "record-init",
                        span,
                        format!(
                            "a record value names every field; missing: {}",
                            missing.join(", ")
                        ),
                    );
                    return None;
                }
                mk(
                    ExprKind::Record(r, vals.into_iter().flatten().collect()),
                    DataType::Record(r),
                )
            }
            ast::ExprKind::New(..) => {
                self.error(
                    "new-position",
                    span,
                    "`new` builds a subtree and may only be assigned to a child slot (or initialize a child in another `new`)",
                );
                None
            }
            ast::ExprKind::Is(inner, ty) => {
                let Resolved::Node(p) = self.resolve(inner)? else {
                    self.error("is-type", inner.span, "`is` tests the type of a tree node");
                    return None;
                };
                let Some(&t) = self.names.types.get(&ty.name) else {
                    self.error(
                        "unknown-type",
                        ty.span,
                        format!("unknown tree type `{}`", ty.name),
                    );
                    return None;
                };
                mk(ExprKind::Is(p, t), DataType::Bool)
            }
            ast::ExprKind::If(c, a, b) => {
                let c = self.expr(c, Some(&DataType::Bool))?;
                if !self.expect_type(&c, &DataType::Bool) {
                    return None;
                }
                let a = self.expr(a, expected)?;
                let b = self.expr(b, Some(&a.ty))?;
                if !self.expect_type(&b, &a.ty) {
                    return None;
                }
                let ty = a.ty.clone();
                mk(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)), ty)
            }
            ast::ExprKind::Error => None,
            ast::ExprKind::Paren(_)
            | ast::ExprKind::SelfRef
            | ast::ExprKind::Name(_)
            | ast::ExprKind::Field(..)
            | ast::ExprKind::As(..) => self.expr(e, expected),
        }
    }

    fn binary_expr(
        &mut self,
        op: ast::BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        use ast::BinaryOp as A;
        let x = self.expr(a, None)?;
        let y = self.expr(b, Some(&x.ty))?;
        let bad = |this: &mut Self, x: &Expr, y: &Expr| {
            let mut d = Diagnostic::error(
                "type-mismatch",
                span,
                format!(
                    "`{}` cannot be applied to `{}` and `{}`",
                    op.as_str(),
                    this.type_name(&x.ty),
                    this.type_name(&y.ty)
                ),
            );
            if matches!(
                (&x.ty, &y.ty),
                (DataType::Int, DataType::Float) | (DataType::Float, DataType::Int)
            ) {
                d = d.with_note("mixing `i64` and `f64` needs an explicit conversion: `to_f64(x)` or `to_i64(x)`");
            }
            this.report(d);
        };
        let (rop, ty) = match (op, &x.ty, &y.ty) {
            (A::And, DataType::Bool, DataType::Bool) => (BinaryOp::And, DataType::Bool),
            (A::Or, DataType::Bool, DataType::Bool) => (BinaryOp::Or, DataType::Bool),
            (A::Eq, l, r) if l == r => (BinaryOp::Eq, DataType::Bool),
            (A::Ne, l, r) if l == r => (BinaryOp::Ne, DataType::Bool),
            (_, DataType::Int, DataType::Int) => match op {
                A::Add => (BinaryOp::AddInt, DataType::Int),
                A::Sub => (BinaryOp::SubInt, DataType::Int),
                A::Mul => (BinaryOp::MulInt, DataType::Int),
                A::Div => (BinaryOp::DivInt, DataType::Int),
                A::Rem => (BinaryOp::RemInt, DataType::Int),
                A::Lt => (BinaryOp::LtInt, DataType::Bool),
                A::Le => (BinaryOp::LeInt, DataType::Bool),
                A::Gt => (BinaryOp::GtInt, DataType::Bool),
                A::Ge => (BinaryOp::GeInt, DataType::Bool),
                _ => {
                    bad(self, &x, &y);
                    return None;
                }
            },
            (_, DataType::Float, DataType::Float) => match op {
                A::Add => (BinaryOp::AddFloat, DataType::Float),
                A::Sub => (BinaryOp::SubFloat, DataType::Float),
                A::Mul => (BinaryOp::MulFloat, DataType::Float),
                A::Div => (BinaryOp::DivFloat, DataType::Float),
                A::Rem => (BinaryOp::RemFloat, DataType::Float),
                A::Lt => (BinaryOp::LtFloat, DataType::Bool),
                A::Le => (BinaryOp::LeFloat, DataType::Bool),
                A::Gt => (BinaryOp::GtFloat, DataType::Bool),
                A::Ge => (BinaryOp::GeFloat, DataType::Bool),
                _ => {
                    bad(self, &x, &y);
                    return None;
                }
            },
            _ => {
                bad(self, &x, &y);
                return None;
            }
        };
        Some(Expr {
            kind: ExprKind::Binary(rop, Box::new(x), Box::new(y)),
            ty,
            span,
        })
    }

    fn call_expr(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> Option<Expr> {
        if let Some(&f) = self.names.pure_fns.get(&name.name) {
            let params = self.program.pure_fns[f.index()].params.clone();
            let ret = self.program.pure_fns[f.index()].ret.clone();
            let args = self.call_args(&name.name, args, &params, span)?;
            return Some(Expr {
                kind: ExprKind::Call(f, args),
                ty: ret,
                span,
            });
        }
        let mut checked = Vec::new();
        for a in args {
            checked.push(self.expr(a, None)?);
        }
        let tys: Vec<&DataType> = checked.iter().map(|a| &a.ty).collect();
        use DataType::*;
        let resolved = match (name.name.as_str(), tys.as_slice()) {
            ("to_f64", [Int]) => Some((Builtin::ToF64, Float)),
            ("to_i64", [Float]) => Some((Builtin::ToI64, Int)),
            ("abs", [Int]) => Some((Builtin::AbsInt, Int)),
            ("abs", [Float]) => Some((Builtin::AbsFloat, Float)),
            ("min", [Int, Int]) => Some((Builtin::MinInt, Int)),
            ("min", [Float, Float]) => Some((Builtin::MinFloat, Float)),
            ("max", [Int, Int]) => Some((Builtin::MaxInt, Int)),
            ("max", [Float, Float]) => Some((Builtin::MaxFloat, Float)),
            ("sqrt", [Float]) => Some((Builtin::Sqrt, Float)),
            ("floor", [Float]) => Some((Builtin::Floor, Float)),
            ("ceil", [Float]) => Some((Builtin::Ceil, Float)),
            ("len", [Str]) => Some((Builtin::LenStr, Int)),
            ("len", [Array(_)]) => Some((Builtin::LenArray, Int)),
            _ => None,
        };
        match resolved {
            Some((b, ty)) => Some(Expr {
                kind: ExprKind::Builtin(b, checked),
                ty,
                span,
            }),
            None => {
                const BUILTINS: [&str; 9] = [
                    "to_f64", "to_i64", "abs", "min", "max", "sqrt", "floor", "ceil", "len",
                ];
                if BUILTINS.contains(&name.name.as_str()) {
                    let given = tys
                        .iter()
                        .map(|t| self.type_name(t))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.error(
                        "call-args",
                        span,
                        format!(
                            "the built-in `{}` cannot be applied to ({given})",
                            name.name
                        ),
                    );
                } else {
                    self.error(
                        "unknown-function",
                        name.span,
                        format!("unknown function `{}`", name.name),
                    );
                }
                None
            }
        }
    }
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
            NewField::New(t) => collect_moves(t, f),
            NewField::List(items) => items.iter().for_each(|i| field(i, f)),
            NewField::Data(_) => {}
        }
    }
    tree.fields.iter().for_each(|nf| field(nf, f));
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
        if let ExprKind::Call(f, _) = e.kind {
            out.push((f, e.span));
        }
    });
}

/// The pure functions called in `e`, with the calls' spans.
pub(crate) fn called_pure_fns_expr(e: &Expr, out: &mut Vec<(PureFnId, Span)>) {
    crate::visit::walk_expr(e, &mut |x| {
        if let ExprKind::Call(f, _) = x.kind {
            out.push((f, x.span));
        }
    });
}
