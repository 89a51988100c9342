//! Places and paths: the left-hand side of assignments, and the
//! resolution of an expression to a node path, a list of children or data.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn target(&mut self, e: &ast::Expr) -> Option<Target> {
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
                    "assign-target",
                    e.span,
                    "cannot assign to a part of `self` this way; assign to one of its fields",
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
                                "a list of children has no fields; assign to one of its elements' fields (`self.stmts[i].x = ..`)",
                            );
                            None
                        }
                    };
                }
                let Target::Place(mut place, ty) = self.target(base)? else {
                    self.error("assign-target", e.span, "cannot assign to this");
                    return None;
                };
                self.no_projection_after_key(&place, e.span)?;
                let (i, fty) = self.record_member(&ty, name, "")?;
                place.projections.push(Projection::Member(i));
                Some(Target::Place(place, fty))
            }
            ast::ExprKind::Index(base, index) => {
                let Target::Place(mut place, ty) = self.target(base)? else {
                    self.error("assign-target", e.span, "cannot index a tree node");
                    return None;
                };
                self.no_projection_after_key(&place, e.span)?;
                if let DataType::Map(key_ty, value_ty) = ty {
                    let k = self.expr(index, Some(&key_ty))?;
                    if !self.expect_type(&k, &key_ty) {
                        return None;
                    }
                    place.projections.push(Projection::Key(k));
                    return Some(Target::Place(place, *value_ty));
                }
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

    /// `m[k] = v;` writes a whole entry; `m[k].f = v;` or `m[k][i] = v;`
    /// would need the entry to exist, so they are rejected.
    fn no_projection_after_key(&mut self, place: &Place, span: Span) -> Option<()> {
        if let Some(Projection::Key(_)) = place.projections.last() {
            self.report(
                Diagnostic::error(
                    "map-entry-assign",
                    span,
                    "a map entry is assigned whole: `m[k] = v;`",
                )
                .with_note("read the entry, change it, and assign it back: `let e = m[k]; e.f = 1; m[k] = e;`"),
            );
            return None;
        }
        Some(())
    }

    /// Resolves `e` if it denotes a node, without reporting anything when
    /// it does not.
    pub(super) fn try_resolve_node(&mut self, e: &ast::Expr) -> Option<Resolved> {
        let denotes_node = match &e.kind {
            ast::ExprKind::SelfRef | ast::ExprKind::As(..) => true,
            ast::ExprKind::Name(n) => matches!(
                self.lookup(&n.name),
                Some(Binding::Alias(_) | Binding::LoopVar(_))
            ),
            ast::ExprKind::Paren(inner) => return self.try_resolve_node(inner),
            ast::ExprKind::Index(base, _) => self.try_resolve_list(base) == Some(true),
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
    pub(super) fn record_member(
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

    pub(super) fn unknown_field(&mut self, ty: TypeId, name: &ast::Ident) {
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

    pub(super) fn resolve(&mut self, e: &ast::Expr) -> Option<Resolved> {
        self.resolve_expecting(e, None)
    }

    /// [`Self::resolve`]; a data expression is checked with `expected`
    /// guiding the typing of `[]`, as in [`Self::expr`].
    pub(super) fn resolve_expecting(
        &mut self,
        e: &ast::Expr,
        expected: Option<&DataType>,
    ) -> Option<Resolved> {
        match &e.kind {
            ast::ExprKind::Paren(inner) => self.resolve_expecting(inner, expected),
            ast::ExprKind::Index(base, index) if self.try_resolve_list(base) == Some(true) => {
                self.resolve_elem(base, index, e.span)
            }
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
}
