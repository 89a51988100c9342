//! Default walks (LANGUAGE.md §8.1): `walk;` and `walk(args);`.
//!
//! A walk is expanded here, while the body is checked, into exactly the
//! statements a user would have written by hand: `self.c.f(args);` for a
//! single child and `for x in self.L { x.f(args); }` for a list child, in
//! slot order. Everything downstream (analysis, fusion, both interpreters,
//! the code generator) therefore sees ordinary calls and treats a walk as
//! the spelled-out recursion it stands for. Which children a walk visits
//! depends on the receiver's concrete type, so the item checker checks a
//! body that contains `walk` once per group of concrete types with the
//! same walk ([`WalkPlan`]), each copy dispatched to by its group.

use super::*;

impl BodyChecker<'_> {
    /// Checks `walk;` (`args` is `None`) or `walk(args);` and appends its
    /// expansion to `out`.
    pub(super) fn walk_stmt(
        &mut self,
        args: Option<&[ast::Expr]>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let BodyKind::Traversal { self_ty } = self.kind else {
            self.report(
                Diagnostic::error(
                    "walk-outside-traversal",
                    span,
                    "`walk` runs a traversal's default walk; it is allowed only in traversal bodies",
                )
                .with_note("to call a traversal named `walk`, give it a receiver: `root.walk();`"),
            );
            return;
        };
        if let Some((var, _)) = self.for_children.last() {
            let name = self.frame.node_vars[var.index()].name.clone();
            self.report(
                Diagnostic::error(
                    "for-body-call",
                    span,
                    format!("inside a `for` over children, traversals can only be called on the loop variable `{name}`; `walk` calls them on the children of `self`"),
                )
                .with_note("write `walk;` before or after the loop"),
            );
            return;
        }
        let Some(plan) = self.walk.clone() else {
            return;
        };
        let call_span = without_semicolon(span);
        // The arguments every child call gets: the parameters as they are
        // now, or the given values, each evaluated once, before the first
        // child is visited, into a local of its own.
        let values: Vec<Expr> = match args {
            None => plan
                .params
                .iter()
                .enumerate()
                .map(|(i, ty)| Expr {
                    kind: ExprKind::Local(LocalId(i as u32)),
                    ty: ty.clone(),
                    span: call_span,
                })
                .collect(),
            Some(args) => {
                let Some(checked) = self.call_args("walk", args, &plan.params, call_span) else {
                    return;
                };
                checked
                    .into_iter()
                    .enumerate()
                    .map(|(i, value)| {
                        let local = self.new_local(&format!("walk_arg{i}"), value.ty.clone());
                        let read = Expr {
                            kind: ExprKind::Local(local),
                            ty: value.ty.clone(),
                            span: value.span,
                        };
                        out.push(Stmt {
                            kind: StmtKind::Let { local, value },
                            span,
                        });
                        read
                    })
                    .collect()
            }
        };
        let self_path = NodePath {
            root: PathRoot::SelfNode,
            steps: Vec::new(),
            ty: self_ty,
            span: call_span,
        };
        for &(field, method) in &plan.children {
            let kind = match self.program.fields[field.index()].kind {
                FieldKind::Child(child) => StmtKind::Call {
                    receiver: NodePath {
                        root: PathRoot::SelfNode,
                        steps: vec![PathStep::Child(field)],
                        ty: child,
                        span: call_span,
                    },
                    method,
                    args: values.clone(),
                },
                FieldKind::List(elem) => {
                    let var = self.new_node_var("walk_item", elem, None);
                    StmtKind::ForChildren {
                        var,
                        list: ChildSlot {
                            parent: self_path.clone(),
                            field,
                        },
                        body: vec![Stmt {
                            kind: StmtKind::Call {
                                receiver: NodePath {
                                    root: PathRoot::Var(var),
                                    steps: Vec::new(),
                                    ty: elem,
                                    span: call_span,
                                },
                                method,
                                args: values.clone(),
                            },
                            span,
                        }],
                    }
                }
                FieldKind::Data(_) => continue,
            };
            out.push(Stmt { kind, span });
        }
    }
}

/// Whether a block of the syntax tree contains a `walk` statement.
pub(crate) fn contains_walk(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        ast::StmtKind::Walk(_) => true,
        ast::StmtKind::If {
            then_block,
            else_block,
            ..
        } => {
            contains_walk(&then_block.stmts)
                || else_block.as_ref().is_some_and(|b| contains_walk(&b.stmts))
        }
        ast::StmtKind::For { body, .. } | ast::StmtKind::While { body, .. } => {
            contains_walk(&body.stmts)
        }
        _ => false,
    })
}

/// The spans of the `walk` statements of a block, in order.
pub(crate) fn walk_spans(stmts: &[ast::Stmt], out: &mut Vec<Span>) {
    for s in stmts {
        match &s.kind {
            ast::StmtKind::Walk(_) => out.push(s.span),
            ast::StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                walk_spans(&then_block.stmts, out);
                if let Some(b) = else_block {
                    walk_spans(&b.stmts, out);
                }
            }
            ast::StmtKind::For { body, .. } | ast::StmtKind::While { body, .. } => {
                walk_spans(&body.stmts, out)
            }
            _ => {}
        }
    }
}
