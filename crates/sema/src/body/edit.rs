//! Tree edits: building subtrees with `new`, moving subtrees, and the
//! rules that keep a slot's contents well-typed and a moved subtree in one
//! place.

use super::*;

impl BodyChecker<'_> {
    pub(super) fn slot_type_error(&mut self, span: Span, found: TypeId, expected: TypeId) {
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

    /// `none` given to a slot that is not an optional child (§8.7).
    pub(super) fn none_not_optional(&mut self, span: Span, what: &str) {
        self.report(
            Diagnostic::error(
                "none-not-optional",
                span,
                format!("{what} cannot be left empty with `none`: it is not an optional child"),
            )
            .with_note("declare the child optional (`child c: T?`) to let it hold no node"),
        );
    }

    /// `PATH is none` where `PATH` does not end in an optional child.
    pub(super) fn is_none_error(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "is-none-not-optional",
                span,
                "`is none` tests an optional child, and this is not one",
            )
            .with_note("only a child declared `child c: T?` can be empty; other children always hold a node"),
        );
    }

    pub(super) fn move_error(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "move-not-descendant",
                span,
                "only a descendant of the slot being replaced can be moved into it",
            )
            .with_note("moving any other subtree would make it reachable twice; copy it with `copy(..)` instead"),
        );
    }

    /// Inside `for x in L`, a write of the slot holding `L`, or of any slot
    /// above it, would change the list being iterated.
    pub(super) fn check_for_list_write(&mut self, slot: &ChildSlot, span: Span) -> Option<()> {
        for (_, list) in self.for_children.clone() {
            let (lroot, mut lsteps) = self.expand(&list.parent);
            lsteps.push(Step::Child(list.field));
            let (sroot, mut ssteps) = self.expand(&slot.parent);
            ssteps.push(Step::Child(slot.field));
            if lroot == sroot && ssteps.len() <= lsteps.len() && maybe_nested(&lsteps, &ssteps) {
                self.error(
                    "for-list-write",
                    span,
                    "this replaces or edits the list of children (or a node above it) that the enclosing `for` iterates over",
                );
                return None;
            }
        }
        Some(())
    }

    /// Whether an enclosing `for` may iterate over the list `list`.
    pub(super) fn same_list_open(&self, list: &ChildSlot) -> bool {
        let (root, mut steps) = self.expand(&list.parent);
        steps.push(Step::Child(list.field));
        self.for_children.iter().any(|(_, open)| {
            let (r, mut s) = self.expand(&open.parent);
            s.push(Step::Child(open.field));
            r == root && s.len() == steps.len() && maybe_nested(&s, &steps)
        })
    }

    pub(super) fn is_strict_descendant(&self, source: &NodePath, slot: &ChildSlot) -> bool {
        self.is_descendant(source, &Dest::Slot(slot.clone()), false)
    }

    /// Whether `source` surely lies below the subtree(s) at `dest` (or is
    /// one of them, when `or_self`).
    pub(super) fn is_descendant(&self, source: &NodePath, dest: &Dest, or_self: bool) -> bool {
        let (sroot, ssteps) = self.expand(source);
        let (proot, psteps) = match dest {
            Dest::Receiver => {
                // Every path of a traversal starts at `self` or at a node
                // below it; only `self` itself is not strictly below.
                let is_self = sroot == PathRoot::SelfNode && ssteps.is_empty();
                return or_self || !is_self;
            }
            Dest::Nothing => return false,
            Dest::Slot(slot) => {
                let (r, mut p) = self.expand(&slot.parent);
                p.push(Step::Child(slot.field));
                (r, p)
            }
            Dest::Elem(slot, key) => {
                let (r, mut p) = self.expand(&slot.parent);
                p.push(Step::Elem(slot.field, key.clone()));
                (r, p)
            }
            Dest::ListOf(slot) => {
                // Any element of the list (the whole old list is replaced).
                let (r, p) = self.expand(&slot.parent);
                let n = p.len();
                let below = sroot == r
                    && ssteps.len() > n
                    && surely_prefix(&ssteps, &p)
                    && matches!(&ssteps[n], Step::Elem(f, _) if *f == slot.field);
                return below && (or_self || ssteps.len() > n + 1);
            }
        };
        let deeper = ssteps.len() > psteps.len() || (or_self && ssteps.len() == psteps.len());
        sroot == proot && deeper && surely_prefix(&ssteps, &psteps)
    }

    pub(super) fn check_overlap(&mut self, moved: &[(NodePath, Option<FieldId>)]) -> Option<()> {
        let expanded: Vec<(PathRoot, Vec<Step>, Span)> = moved
            .iter()
            .map(|(p, list)| {
                let (r, mut f) = self.expand(p);
                f.extend(list.iter().map(|l| Step::Child(*l)));
                (r, f, p.span)
            })
            .collect();
        for (i, a) in expanded.iter().enumerate() {
            for b in &expanded[i + 1..] {
                if a.0 == b.0 && maybe_nested(&a.1, &b.1) {
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

    pub(super) fn new_tree(
        &mut self,
        ty: &ast::Ident,
        inits: &[(ast::Ident, ast::Expr)],
        dest: &Dest,
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
            let optional = self.program.fields[field_ids[pos].index()].optional;
            let init = match kind {
                // `c: none` leaves an optional child empty (§8.7).
                FieldKind::Child(_) if optional && is_none_word(e) => Some(NewField::Empty),
                FieldKind::Child(_) if is_none_word(e) && self.lookup("none").is_none() => {
                    self.none_not_optional(e.span, &format!("the child `{}`", name.name));
                    None
                }
                FieldKind::Data(dt) => self
                    .expr(e, Some(&dt))
                    .filter(|x| self.expect_type(x, &dt))
                    .map(NewField::Data),
                FieldKind::Child(ct) => self.child_init(e, ct, dest),
                FieldKind::List(ct) => match &e.kind {
                    ast::ExprKind::Array(items) => {
                        let mut out = Vec::new();
                        for item in items {
                            match self.child_init(item, ct, dest) {
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
                            if !self.list_below(&src, dest) {
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
                        kind: ExprKind::Const(
                            self.program
                                .field_default(t, *f)
                                .cloned()
                                .unwrap_or(Value::Int(0)),
                        ),
                        ty: dt.clone(),
                        span,
                    })),
                    // An optional child not written starts empty (§8.7).
                    FieldKind::Child(_) if field.optional => fields.push(NewField::Empty),
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

    pub(super) fn child_init(
        &mut self,
        e: &ast::Expr,
        child_ty: TypeId,
        dest: &Dest,
    ) -> Option<NewField> {
        if is_none_word(e) && self.lookup("none").is_none() {
            self.none_not_optional(e.span, "an element of a list of children");
            return None;
        }
        if let Some(source) = self.copy_source(e) {
            let source = source?;
            if !self.program.is_subtype(source.ty, child_ty) {
                self.slot_type_error(e.span, source.ty, child_ty);
                return None;
            }
            return Some(NewField::Copy(source));
        }
        if let ast::ExprKind::New(ty, inits) = &strip_parens(e).kind {
            let tree = self.new_tree(ty, inits, dest, e.span)?;
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
                if !self.is_descendant(&src, dest, true) {
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
}
