//! Statements: calls, `let`, assignments, `for`, `return`, and the call
//! list of `fuse` items.

use super::*;

impl BodyChecker<'_> {
    pub(crate) fn block(&mut self, b: &ast::Block) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut out);
        }
        self.scopes.pop();
        out
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
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
            ast::StmtKind::For { var, iter, body } => {
                // A `break` in a `for` body would be ambiguous (Rust ends
                // the `for`, §8.6 speaks of `while` loops only).
                let saved = (self.in_while, self.for_in_while);
                self.for_in_while |= self.in_while;
                self.in_while = false;
                let checked = self.for_stmt(var, iter, body);
                (self.in_while, self.for_in_while) = saved;
                checked
            }
            ast::StmtKind::Walk(args) => {
                self.walk_stmt(args.as_deref(), span, out);
                None
            }
            ast::StmtKind::Return(value) => self.return_stmt(value.as_ref(), span),
            ast::StmtKind::While { cond, limit, body } => {
                self.while_stmt(cond, limit.as_ref(), body, span)
            }
            ast::StmtKind::Break => self.break_stmt(span),
        };
        if let Some(kind) = kind {
            out.push(Stmt { kind, span });
        }
    }

    pub(super) fn call_stmt(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtKind> {
        if let Some(reported) = self.array_method(receiver, method, args) {
            return reported;
        }
        let list_edit = matches!(method.name.as_str(), "push" | "insert" | "remove");
        match self.kind {
            BodyKind::Traversal { .. } => {}
            BodyKind::Pure { .. } => {
                if list_edit && self.try_resolve_list(receiver) == Some(true) {
                    self.pure_fn_node_write(span, "edit a list of children");
                    return None;
                }
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
        if list_edit && self.try_resolve_list(receiver) == Some(true) {
            return match method.name.as_str() {
                "push" => self.push_stmt(receiver, args, span),
                "insert" => self.insert_stmt(receiver, args, span),
                _ => self.remove_stmt(receiver, args, span),
            };
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

    pub(super) fn call_args(
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

    pub(super) fn let_stmt(
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
    pub(super) fn let_binding(
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
                // (In a pure function, a path starts at a node parameter.)
                if !matches!(
                    self.kind,
                    BodyKind::Traversal { .. } | BodyKind::Pure { .. }
                ) {
                    self.error(
                        "pure-fn-tree",
                        init.span,
                        "only traversals can refer to tree nodes",
                    );
                    return None;
                }
                // A cast of a loop variable names a node too (§8.4):
                // `let l = (s as Let);`.
                let cast = path.steps.iter().any(|s| matches!(s, PathStep::Cast(_)));
                let var_cast = cast && matches!(path.root, PathRoot::Var(_));
                if path.fields().next().is_none() && !var_cast {
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
                let (root, _) = self.expand(&path);
                let origin = NodePath {
                    root,
                    steps: self.expanded_steps(&path),
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

    pub(super) fn list_misuse(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "list-access",
                span,
                "a list of children can only be iterated with `for`, indexed (`L[i]`), measured (`len(L)`), moved whole or spread (`..L`) into a list value",
            ),
        );
    }

    pub(super) fn assign_stmt(
        &mut self,
        target: &ast::Expr,
        value: &ast::Expr,
    ) -> Option<StmtKind> {
        let bare = strip_parens(target);
        if matches!(bare.kind, ast::ExprKind::SelfRef) {
            return self.replace_self_stmt(target, value);
        }
        if let ast::ExprKind::Index(base, index) = &bare.kind {
            if self.try_resolve_list(base) == Some(true) {
                return self.list_set_stmt(base, index, value);
            }
        }
        if self.try_resolve_list(bare) == Some(true) {
            return self.list_assign_stmt(bare, value);
        }
        match self.target(target)? {
            Target::Place(place, _)
                if self.in_pure_fn() && matches!(place.root, PlaceRoot::Field(..)) =>
            {
                self.pure_fn_node_write(target.span, "write a field of a tree node");
                None
            }
            Target::Place(place, ty) => {
                let v = self.expr(value, Some(&ty))?;
                if !self.expect_type(&v, &ty) {
                    return None;
                }
                Some(StmtKind::Assign { place, value: v })
            }
            Target::Slot(slot) => {
                if !matches!(self.kind, BodyKind::Traversal { .. }) {
                    self.pure_fn_node_write(target.span, "replace or move a subtree");
                    return None;
                }
                self.check_for_list_write(&slot, target.span)?;
                let FieldKind::Child(child_ty) = self.program.fields[slot.field.index()].kind
                else {
                    return None;
                };
                // `self.c = none;` empties an optional child (§8.7).
                if is_none_word(value) {
                    if self.program.is_optional(slot.field) {
                        return Some(StmtKind::Clear { slot });
                    }
                    if self.lookup("none").is_none() {
                        let name = self.program.fields[slot.field.index()].name.clone();
                        self.none_not_optional(value.span, &format!("the child `{name}`"));
                        return None;
                    }
                }
                if let Some(copied) = self.copy_to_stmt(slot.clone(), value) {
                    return copied;
                }
                if let ast::ExprKind::New(ty, inits) = &strip_parens(value).kind {
                    let tree = self.new_tree(ty, inits, &Dest::Slot(slot.clone()), value.span)?;
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

    pub(super) fn for_stmt(
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
                    let nested_same = self.same_list_open(&list);
                    self.for_children.push((v, list.clone()));
                    let body_span = body.span;
                    let body = self.block(body);
                    self.for_children.pop();
                    self.scopes.pop();
                    if nested_same && contains_call(&body) {
                        self.report(
                            Diagnostic::error(
                                "for-nested-list",
                                body_span,
                                "a `for` nested in a `for` over the same list cannot call traversals on its elements",
                            )
                            .with_note("a call may replace its element while the outer loop is editing the same list; make the calls in the outer loop"),
                        );
                        return None;
                    }
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
    pub(super) fn poisoned_body(&mut self, var: &ast::Ident, body: &ast::Block) {
        self.scopes.push(Vec::new());
        self.bind(&var.name, Binding::Poisoned);
        self.block(body);
        self.scopes.pop();
    }

    pub(super) fn return_stmt(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
    ) -> Option<StmtKind> {
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

    /// `while COND limit N { .. }` in a traversal (LANGUAGE §8.6).
    fn while_stmt(
        &mut self,
        cond: &ast::Expr,
        limit: Option<&ast::Expr>,
        body: &ast::Block,
        span: Span,
    ) -> Option<StmtKind> {
        let head = Span {
            start: span.start,
            end: cond.span.end,
        };
        if !matches!(self.kind, BodyKind::Traversal { .. }) {
            self.report(
                Diagnostic::error(
                    "pure-fn-while",
                    head,
                    "`while` loops are allowed only in traversals and `fuse` items",
                )
                .with_note("a pure function loops with `for` over an array or a range `a..b`"),
            );
            return None;
        }
        let cond = self
            .expr(cond, Some(&DataType::Bool))
            .filter(|c| self.expect_type(c, &DataType::Bool));
        let limit = self.while_limit(limit, head);
        let saved = (self.in_while, self.for_in_while);
        (self.in_while, self.for_in_while) = (true, false);
        let body = self.block(body);
        (self.in_while, self.for_in_while) = saved;
        Some(StmtKind::While {
            cond: cond?,
            limit: limit?,
            body,
        })
    }

    /// The iteration limit of a `while`: an `i64` expression, required.
    fn while_limit(&mut self, limit: Option<&ast::Expr>, head: Span) -> Option<Expr> {
        match limit {
            Some(n) => self
                .expr(n, Some(&DataType::Int))
                .filter(|n| self.expect_type(n, &DataType::Int)),
            None => {
                self.report(
                    Diagnostic::error("while-limit", head, "a `while` loop needs an iteration limit")
                        .with_note("write `while COND limit N { ... }`; N is an `i64` expression, evaluated once before the first iteration"),
                );
                None
            }
        }
    }

    /// `break;`: only inside a `while` body (§8.6).
    fn break_stmt(&mut self, span: Span) -> Option<StmtKind> {
        if self.in_while {
            return Some(StmtKind::Break);
        }
        let mut d = Diagnostic::error(
            "break-outside-while",
            span,
            "`break;` is allowed only inside a `while` loop",
        );
        if self.for_in_while {
            d = d.with_note("`break` ends a `while` loop, and cannot leave a `for` loop nested in one; end the `for` early with a condition on its body, or loop with `while`");
        }
        self.report(d);
        None
    }

    /// Checks the body of a `fuse` item: calls on the root, global
    /// assignments and `while` loops (LANGUAGE §7.7). Returns every call in
    /// written order and the statement tree indexing them.
    pub(crate) fn fuse_body(
        &mut self,
        body: &ast::Block,
        root: &str,
        root_ty: TypeId,
    ) -> (Vec<FuseCall>, Vec<FuseStmt>) {
        self.fuse_root = Some(root.to_string());
        let mut calls = Vec::new();
        let stmts = self.fuse_stmts(body, root, root_ty, &mut calls);
        (calls, stmts)
    }

    fn fuse_stmts(
        &mut self,
        body: &ast::Block,
        root: &str,
        root_ty: TypeId,
        calls: &mut Vec<FuseCall>,
    ) -> Vec<FuseStmt> {
        let mut out = Vec::new();
        for s in &body.stmts {
            match &s.kind {
                ast::StmtKind::Call {
                    receiver,
                    method,
                    args,
                } => {
                    if let Some(call) = self.fuse_call(receiver, method, args, s.span, root, root_ty)
                    {
                        out.push(FuseStmt::Call(calls.len()));
                        calls.push(call);
                    }
                }
                ast::StmtKind::Assign { target, value } => {
                    if let Some(stmt) = self.fuse_set_global(target, value, s.span) {
                        out.push(stmt);
                    }
                }
                ast::StmtKind::While { cond, limit, body } => {
                    let head = Span {
                        start: s.span.start,
                        end: cond.span.end,
                    };
                    let cond = self
                        .expr(cond, Some(&DataType::Bool))
                        .filter(|c| self.expect_type(c, &DataType::Bool));
                    let limit = self.while_limit(limit.as_ref(), head);
                    let in_while = std::mem::replace(&mut self.in_while, true);
                    let body = self.fuse_stmts(body, root, root_ty, calls);
                    self.in_while = in_while;
                    if let (Some(cond), Some(limit)) = (cond, limit) {
                        out.push(FuseStmt::While {
                            cond,
                            limit,
                            body,
                            span: s.span,
                        });
                    }
                }
                ast::StmtKind::Break => {
                    if self.break_stmt(s.span).is_some() {
                        out.push(FuseStmt::Break { span: s.span });
                    }
                }
                ast::StmtKind::Walk(args) => self.walk_stmt(args.as_deref(), s.span, &mut Vec::new()),
                _ => self.error(
                    "fuse-body",
                    s.span,
                    "a fuse item may only contain traversal calls on its root (`root.f();`), global assignments (`g = e;`), `while` loops and `break;`",
                ),
            }
        }
        out
    }

    fn fuse_call(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        root: &str,
        root_ty: TypeId,
    ) -> Option<FuseCall> {
        if !matches!(&receiver.kind, ast::ExprKind::Name(n) if n.name == root) {
            self.error(
                "fuse-body",
                receiver.span,
                format!("calls in a fuse item must be on its root `{root}`"),
            );
            return None;
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
            return None;
        };
        let params = self.program.methods[m.index()].params.clone();
        let args = self.call_args(&method.name, args, &params, without_semicolon(span))?;
        Some(FuseCall {
            method: m,
            args,
            span,
        })
    }

    /// `g = e;` in a fuse item: only whole globals may be assigned.
    fn fuse_set_global(
        &mut self,
        target: &ast::Expr,
        value: &ast::Expr,
        span: Span,
    ) -> Option<FuseStmt> {
        let global = match &strip_parens(target).kind {
            ast::ExprKind::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Local(_)) => {
                    self.error(
                        "fuse-assign",
                        target.span,
                        format!("`{}` is a parameter of the fuse item; a fuse item assigns globals only", n.name),
                    );
                    return None;
                }
                Some(_) => {
                    self.error(
                        "fuse-assign",
                        target.span,
                        "a fuse item assigns globals only",
                    );
                    return None;
                }
                None => match self.names.globals.get(&n.name) {
                    Some(&g) => g,
                    None => {
                        self.error("unknown-name", n.span, format!("unknown name `{}`", n.name));
                        return None;
                    }
                },
            },
            _ => {
                self.error(
                    "fuse-assign",
                    target.span,
                    "a fuse item assigns whole globals only (`g = e;`)",
                );
                return None;
            }
        };
        let ty = self.program.globals[global.index()].ty.clone();
        let value = self.expr(value, Some(&ty))?;
        if !self.expect_type(&value, &ty) {
            return None;
        }
        Some(FuseStmt::SetGlobal {
            global,
            value,
            span,
        })
    }
}

impl BodyChecker<'_> {
    /// `x.push(e);` (or `insert`, `remove`, `append`) on a data array: an
    /// array is a value, changed by assigning it a new one (LANGUAGE §8.5).
    /// `Some(None)` once reported; `None` if the receiver is not an array.
    fn array_method(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
    ) -> Option<Option<StmtKind>> {
        let name = method.name.as_str();
        if !matches!(name, "push" | "insert" | "remove" | "append") {
            return None;
        }
        // Resolve quietly: if it is not an array, the usual checks report.
        let mut scratch = Vec::new();
        std::mem::swap(self.diags, &mut scratch);
        let r = self.resolve(receiver);
        std::mem::swap(self.diags, &mut scratch);
        let Some(Resolved::Data(e)) = r else {
            return None;
        };
        if !matches!(e.ty, DataType::Array(_)) {
            return None;
        }
        let x = span_text_hint(receiver);
        let fix = match (name, args.len()) {
            ("push" | "append", _) => format!("{x} = append({x}, e);"),
            ("insert", _) => format!("{x} = insert_at({x}, i, e);"),
            _ => format!("{x} = remove_at({x}, i);"),
        };
        self.report(
            Diagnostic::error(
                "array-method",
                receiver.span.to(method.span),
                format!("an array is a value and has no method `{name}`; write `{fix}`"),
            )
            .with_note("`append`, `concat`, `slice`, `insert_at` and `remove_at` return a new array; assigning it back (`x = append(x, e);`) takes amortized O(1)"),
        );
        Some(None)
    }
}
