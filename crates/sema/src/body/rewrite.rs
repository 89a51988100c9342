//! Rewriting in place (LANGUAGE.md §7.1–7.3): `self = SUBTREE;`, thickets
//! (`self = [..]`, `self = self.list;`, `..PATH` spreads), `copy(PATH)`,
//! indexed list paths, `len(list)`, `in_list()` and the list edits
//! `L[i] = S;`, `L.push(S);`, `L = [..];`.
//!
//! The rules mirror those of ordinary slot edits (`edit.rs`): a moved
//! subtree must lie below the place it goes to, so that it stays reachable
//! once, and moved subtrees may not overlap. Where a subtree goes is a
//! [`Dest`]. The typing rule of `self = ...` needs every slot of the
//! program and every `fuse` root, so it runs once the whole program is
//! checked ([`check_replacement_types`]).

use super::*;

/// Where a subtree is put, for the rule that moved subtrees come from
/// below it.
#[derive(Clone, Debug)]
pub(crate) enum Dest {
    /// A single child slot.
    Slot(ChildSlot),
    /// The receiver's own place (`self = ...`).
    Receiver,
    /// One element of a list child (`L[i] = ...`).
    Elem(ChildSlot, IndexKey),
    /// The whole list child (`L = [..]`): any of its old elements.
    ListOf(ChildSlot),
    /// Nothing is replaced (`L.push(..)`): nothing may move.
    Nothing,
}

impl BodyChecker<'_> {
    /// `Some` if `e` is `copy(PATH)`: the path (`None` inside when it is
    /// not a tree path; already reported).
    pub(super) fn copy_source(&mut self, e: &ast::Expr) -> Option<Option<NodePath>> {
        let ast::ExprKind::Call(name, args) = &strip_parens(e).kind else {
            return None;
        };
        if name.name != "copy" || self.names.pure_fns.contains_key("copy") {
            return None;
        }
        if args.len() != 1 {
            self.error(
                "call-args",
                e.span,
                format!("`copy` takes 1 argument but {} were given", args.len()),
            );
            return Some(None);
        }
        Some(match self.resolve(&args[0]) {
            Some(Resolved::Node(p)) => Some(p),
            Some(_) => {
                self.error(
                    "copy-arg",
                    args[0].span,
                    "`copy` copies a subtree: its argument is a tree path such as `self.body` or `self.stmts[0]`",
                );
                None
            }
            None => None,
        })
    }

    /// Whether the list child `src` lies surely below `dest` (a moved list).
    pub(super) fn list_below(&self, src: &ChildSlot, dest: &Dest) -> bool {
        // A list child of a node below (or at) the destination's subtree
        // roots, as a path to its owner.
        let owner = &src.parent;
        match dest {
            Dest::Receiver => true,
            Dest::Nothing => false,
            // `L = [.., ..L, ..]`: the old elements move into the new list.
            Dest::ListOf(slot)
                if slot.field == src.field && {
                    let (a, x) = self.expand(&slot.parent);
                    let (b, y) = self.expand(owner);
                    a == b && x.len() == y.len() && surely_prefix(&x, &y)
                } =>
            {
                true
            }
            _ => self.is_descendant(owner, dest, true),
        }
    }

    /// Checks a subtree given where one node goes: `new`, `copy(PATH)` or
    /// a moved path below `dest` (`self` itself when `allow_self`).
    /// Returns it with its static type.
    pub(super) fn subtree(
        &mut self,
        e: &ast::Expr,
        dest: &Dest,
        allow_self: bool,
    ) -> Option<(Subtree, TypeId)> {
        if is_none_word(e) && self.lookup("none").is_none() {
            let what = match dest {
                Dest::Receiver => "the receiver",
                _ => "an element of a list of children",
            };
            self.none_not_optional(e.span, what);
            return None;
        }
        if let Some(source) = self.copy_source(e) {
            let source = source?;
            let ty = source.ty;
            return Some((Subtree::Copy(source), ty));
        }
        if let ast::ExprKind::New(ty, inits) = &strip_parens(e).kind {
            let tree = self.new_tree(ty, inits, dest, e.span)?;
            let mut moved = Vec::new();
            collect_moves(&tree, &mut |p| moved.push(p));
            self.check_overlap(&moved)?;
            let t = tree.ty;
            return Some((Subtree::New(tree), t));
        }
        match self.resolve(e)? {
            Resolved::Node(source) => {
                let is_self = source.root == PathRoot::SelfNode && source.fields().next().is_none();
                if !(self.is_descendant(&source, dest, false) || allow_self && is_self) {
                    self.move_error(e.span);
                    return None;
                }
                let ty = source.ty;
                Some((Subtree::Move(source), ty))
            }
            Resolved::List(_) => {
                self.error(
                    "slot-assign",
                    e.span,
                    "a list of children stands where one node goes; spread it into a list value with `[..PATH]`",
                );
                None
            }
            Resolved::Data(_) => {
                self.error(
                    "slot-assign",
                    e.span,
                    "a subtree is `new T {..}`, `copy(PATH)` or a moved descendant, not a data value",
                );
                None
            }
        }
    }

    /// The elements of a list value of children (`[a, ..PATH, b]`) or a
    /// list child moved whole (`PATH`), each element checked against
    /// `elem_ty` when given.
    pub(super) fn list_items(
        &mut self,
        e: &ast::Expr,
        dest: &Dest,
        allow_self: bool,
        elem_ty: Option<TypeId>,
    ) -> Option<Vec<ListItem>> {
        let single;
        let elems: &[ast::Expr] = match &strip_parens(e).kind {
            ast::ExprKind::Array(items) => items,
            _ => {
                single = [ast::Expr {
                    kind: ast::ExprKind::Spread(Box::new(e.clone())),
                    span: e.span,
                }];
                &single
            }
        };
        let mut out = Vec::new();
        let mut ok = true;
        let mut moved: Vec<(NodePath, Option<FieldId>)> = Vec::new();
        let mut self_at: Option<Span> = None;
        let mut spread_at: Option<Span> = None;
        for item in elems {
            if let ast::ExprKind::Spread(inner) = &item.kind {
                match self.resolve(inner) {
                    Some(Resolved::List(src)) => {
                        let FieldKind::List(lt) = self.program.fields[src.field.index()].kind
                        else {
                            ok = false;
                            continue;
                        };
                        if !self.list_below(&src, dest) {
                            self.move_error(inner.span);
                            ok = false;
                            continue;
                        }
                        if let Some(want) = elem_ty {
                            if !self.program.is_subtype(lt, want) {
                                self.slot_type_error(inner.span, lt, want);
                                ok = false;
                                continue;
                            }
                        }
                        spread_at.get_or_insert(item.span);
                        moved.push((src.parent.clone(), Some(src.field)));
                        out.push(ListItem::Spread(src));
                    }
                    Some(_) => {
                        self.error(
                            "spread-arg",
                            inner.span,
                            "`..` spreads a list of children (a list child such as `self.stmts`)",
                        );
                        ok = false;
                    }
                    None => ok = false,
                }
                continue;
            }
            match self.subtree(item, dest, allow_self) {
                Some((t, ty)) => {
                    if let Subtree::Move(p) = &t {
                        if p.root == PathRoot::SelfNode && p.fields().next().is_none() {
                            self_at.get_or_insert(item.span);
                        } else {
                            moved.push((p.clone(), None));
                        }
                    }
                    if let Subtree::New(tree) = &t {
                        collect_moves(tree, &mut |p| moved.push(p));
                    }
                    if let Some(want) = elem_ty {
                        if !self.program.is_subtype(ty, want) {
                            self.slot_type_error(item.span, ty, want);
                            ok = false;
                            continue;
                        }
                    }
                    out.push(ListItem::One(t));
                }
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if let (Some(s), Some(sp)) = (self_at, spread_at) {
            self.report(
                Diagnostic::error(
                    "thicket-self-spread",
                    sp,
                    "a list value cannot both spread a list below `self` and contain `self`",
                )
                .with_label(s, "`self` is kept here, with that list inside it")
                .with_note("the spread elements would stand in two places; spread a `copy` of the elements instead, or drop `self`"),
            );
            return None;
        }
        if let Some(s) = self_at {
            // Moving anything out from below a `self` that stays would make
            // it reachable twice.
            if let Some((p, _)) = moved.first() {
                self.report(
                    Diagnostic::error(
                        "move-overlap",
                        p.span,
                        "this subtree is moved out of `self`, which the same list value keeps",
                    )
                    .with_label(s, "`self` is kept here"),
                );
                return None;
            }
        }
        self.check_overlap(&moved)?;
        Some(out)
    }

    /// `self = VALUE;`
    pub(super) fn replace_self_stmt(
        &mut self,
        target: &ast::Expr,
        value: &ast::Expr,
    ) -> Option<StmtKind> {
        if !matches!(self.kind, BodyKind::Traversal { .. }) {
            self.error(
                "pure-fn-tree",
                target.span,
                "`self` is only available in traversals",
            );
            return None;
        }
        if is_none_word(value) && self.lookup("none").is_none() {
            self.none_not_optional(value.span, "the receiver");
            return None;
        }
        let thicket = match &strip_parens(value).kind {
            ast::ExprKind::Array(_) => true,
            ast::ExprKind::New(..) => false,
            ast::ExprKind::Call(name, _) if name.name == "copy" => false,
            _ => matches!(self.try_resolve_list(value), Some(true)),
        };
        if thicket {
            let items = self.list_items(value, &Dest::Receiver, true, None)?;
            return Some(StmtKind::SpliceSelf { items });
        }
        if !self.denotes_tree(value)
            && !matches!(
                &strip_parens(value).kind,
                ast::ExprKind::New(..) | ast::ExprKind::Call(..)
            )
        {
            // A data value: say what `self` can be given.
            let _ = self.expr(value, None)?;
            self.report(
                Diagnostic::error(
                    "assign-self",
                    value.span,
                    "`self` can only be replaced by a subtree: `new T {..}`, `copy(PATH)`, a descendant path, or a list value of those",
                ),
            );
            return None;
        }
        let (with, _) = self.subtree(value, &Dest::Receiver, false)?;
        Some(StmtKind::ReplaceSelf { with })
    }

    /// `Some(true)` if `e` denotes a list child, `Some(false)` if another
    /// tree path, `None` if not a tree path; reports nothing.
    pub(super) fn try_resolve_list(&mut self, e: &ast::Expr) -> Option<bool> {
        if !self.denotes_tree(e) {
            return None;
        }
        let mut scratch = Vec::new();
        std::mem::swap(self.diags, &mut scratch);
        let r = self.resolve(e);
        std::mem::swap(self.diags, &mut scratch);
        match r {
            Some(Resolved::List(_)) => Some(true),
            Some(_) => Some(false),
            None => None,
        }
    }

    /// Whether `e` syntactically denotes a tree path (a node or a list of
    /// children), without reporting anything.
    pub(super) fn denotes_tree(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::SelfRef | ast::ExprKind::As(..) => true,
            ast::ExprKind::Name(n) => matches!(
                self.lookup(&n.name),
                Some(Binding::Alias(_) | Binding::LoopVar(_))
            ),
            ast::ExprKind::Paren(inner) => self.denotes_tree(inner),
            ast::ExprKind::Field(base, _) | ast::ExprKind::Index(base, _) => {
                self.denotes_tree(base)
            }
            _ => false,
        }
    }

    /// The list child of `self` that the edit statements name (`self.L`),
    /// or a reported error.
    fn owned_list(&mut self, e: &ast::Expr) -> Option<ChildSlot> {
        let slot = match self.resolve(e)? {
            Resolved::List(slot) => slot,
            _ => {
                self.error(
                    "list-edit-target",
                    e.span,
                    "only a list of children can be edited this way",
                );
                return None;
            }
        };
        if !matches!(self.kind, BodyKind::Traversal { .. }) {
            if self.in_pure_fn() {
                self.pure_fn_node_write(e.span, "edit a list of children");
            }
            return None;
        }
        if slot.parent.root != PathRoot::SelfNode || !slot.parent.steps.is_empty() {
            self.report(
                Diagnostic::error(
                    "list-edit-target",
                    e.span,
                    "a list is edited only by the node that owns it, written `self.LIST`",
                )
                .with_note("call a traversal on the owner that makes the edit"),
            );
            return None;
        }
        self.check_for_list_write(&slot, e.span)?;
        Some(slot)
    }

    fn list_elem_type(&self, slot: &ChildSlot) -> TypeId {
        match self.program.fields[slot.field.index()].kind {
            FieldKind::List(t) | FieldKind::Child(t) => t,
            FieldKind::Data(_) => slot.parent.ty,
        }
    }

    /// A subtree that goes into the list `slot`, checked against its
    /// element type.
    fn list_element(
        &mut self,
        slot: &ChildSlot,
        value: &ast::Expr,
        dest: &Dest,
    ) -> Option<Subtree> {
        let (with, ty) = self.subtree(value, dest, false)?;
        let want = self.list_elem_type(slot);
        if !self.program.is_subtype(ty, want) {
            self.slot_type_error(value.span, ty, want);
            return None;
        }
        Some(with)
    }

    /// `self.L[i] = SUBTREE;`
    pub(super) fn list_set_stmt(
        &mut self,
        list: &ast::Expr,
        index: &ast::Expr,
        value: &ast::Expr,
    ) -> Option<StmtKind> {
        let slot = self.owned_list(list)?;
        let i = self
            .expr(index, Some(&DataType::Int))
            .filter(|i| self.expect_type(i, &DataType::Int))?;
        let key = IndexKey::of(&i, true);
        let with = self.list_element(&slot, value, &Dest::Elem(slot.clone(), key))?;
        Some(StmtKind::EditList {
            list: slot,
            edit: ListEdit::Set(i, with),
        })
    }

    /// `self.L = [..];` or `self.L = PATH;`
    pub(super) fn list_assign_stmt(
        &mut self,
        list: &ast::Expr,
        value: &ast::Expr,
    ) -> Option<StmtKind> {
        let slot = self.owned_list(list)?;
        let want = self.list_elem_type(&slot);
        let items = self.list_items(value, &Dest::ListOf(slot.clone()), false, Some(want))?;
        Some(StmtKind::EditList {
            list: slot,
            edit: ListEdit::Assign(items),
        })
    }

    /// `self.L.push(SUBTREE);`
    pub(super) fn push_stmt(
        &mut self,
        list: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtKind> {
        let slot = self.owned_list(list)?;
        let [value] = args else {
            self.error(
                "call-args",
                without_semicolon(span),
                format!("`push` takes 1 argument but {} were given", args.len()),
            );
            return None;
        };
        let with = self.list_element(&slot, value, &Dest::Nothing)?;
        Some(StmtKind::EditList {
            list: slot,
            edit: ListEdit::Push(with),
        })
    }

    /// `self.L.insert(i, SUBTREE);` (LANGUAGE §8.5): as `push`, the
    /// subtree is `new` or `copy(..)` (nothing is replaced, so nothing may
    /// move in).
    pub(super) fn insert_stmt(
        &mut self,
        list: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtKind> {
        let slot = self.owned_list(list)?;
        let [index, value] = args else {
            self.error(
                "call-args",
                without_semicolon(span),
                format!(
                    "`insert` takes 2 arguments (an index and a subtree) but {} were given",
                    args.len()
                ),
            );
            return None;
        };
        let i = self
            .expr(index, Some(&DataType::Int))
            .filter(|i| self.expect_type(i, &DataType::Int))?;
        let with = self.list_element(&slot, value, &Dest::Nothing)?;
        Some(StmtKind::EditList {
            list: slot,
            edit: ListEdit::Insert(i, with),
        })
    }

    /// `self.L.remove(i);` (LANGUAGE §8.5): the element's subtree is
    /// dropped.
    pub(super) fn remove_stmt(
        &mut self,
        list: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtKind> {
        let slot = self.owned_list(list)?;
        let [index] = args else {
            self.error(
                "call-args",
                without_semicolon(span),
                format!(
                    "`remove` takes 1 argument (an index) but {} were given",
                    args.len()
                ),
            );
            return None;
        };
        let i = self
            .expr(index, Some(&DataType::Int))
            .filter(|i| self.expect_type(i, &DataType::Int))?;
        Some(StmtKind::EditList {
            list: slot,
            edit: ListEdit::Remove(i),
        })
    }

    /// `slot = copy(PATH);`
    pub(super) fn copy_to_stmt(
        &mut self,
        slot: ChildSlot,
        value: &ast::Expr,
    ) -> Option<Option<StmtKind>> {
        let source = self.copy_source(value)?;
        let Some(source) = source else {
            return Some(None);
        };
        let want = self.list_elem_type(&slot);
        if !self.program.is_subtype(source.ty, want) {
            self.slot_type_error(value.span, source.ty, want);
            return Some(None);
        }
        Some(Some(StmtKind::CopyTo { slot, source }))
    }

    /// `self.L[i]`: a path to an element of a list child.
    pub(super) fn resolve_elem(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> Option<Resolved> {
        let slot = match self.resolve(base)? {
            Resolved::List(slot) => slot,
            // Callers check that `base` is a list first.
            Resolved::Node(_) | Resolved::Data(_) => return None,
        };
        let i = self
            .expr(index, Some(&DataType::Int))
            .filter(|i| self.expect_type(i, &DataType::Int))?;
        let ty = self.list_elem_type(&slot);
        let mut steps = slot.parent.steps;
        steps.push(PathStep::Elem(slot.field, IndexExpr(Box::new(i))));
        Some(Resolved::Node(NodePath {
            root: slot.parent.root,
            steps,
            ty,
            span,
        }))
    }

    /// `len(L)` of a list child, `in_list()`; `None` if `name(args)` is
    /// neither.
    pub(super) fn rewrite_builtin(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Expr>> {
        match name.name.as_str() {
            "len" if args.len() == 1 && matches!(self.try_resolve_list(&args[0]), Some(true)) => {
                let Some(Resolved::List(slot)) = self.resolve(&args[0]) else {
                    return Some(None);
                };
                Some(Some(Expr {
                    kind: ExprKind::ListLen(slot),
                    ty: DataType::Int,
                    span,
                }))
            }
            "in_list" if !self.names.pure_fns.contains_key("in_list") => {
                if !matches!(self.kind, BodyKind::Traversal { .. }) {
                    self.error(
                        "in-list-position",
                        span,
                        "`in_list()` asks where the receiver stands; it is only available in traversals",
                    );
                    return Some(None);
                }
                if !args.is_empty() {
                    self.error(
                        "call-args",
                        span,
                        format!("`in_list` takes no arguments but {} were given", args.len()),
                    );
                    return Some(None);
                }
                Some(Some(Expr {
                    kind: ExprKind::InList,
                    ty: DataType::Bool,
                    span,
                }))
            }
            "copy" if !self.names.pure_fns.contains_key("copy") && self.in_pure_fn() => {
                self.pure_fn_node_build(span, "copy");
                Some(None)
            }
            "copy" if !self.names.pure_fns.contains_key("copy") => {
                self.report(
                    Diagnostic::error(
                        "copy-position",
                        span,
                        "`copy(PATH)` is a subtree: it can stand only where a subtree goes",
                    )
                    .with_note("e.g. `self.c = copy(self.d);`, in a `new` initializer, in a list value, or in `self = copy(..);`"),
                );
                Some(None)
            }
            _ => None,
        }
    }
}

/// The typing rule of `self = ...` (LANGUAGE.md §7.1): for every child
/// slot, list child and `fuse` root that can hold the receiver, the
/// replacement must be a subtype of the slot's declared type; for a
/// thicket, every element against every list child that can hold it.
pub(crate) fn check_replacement_types(program: &Program, diags: &mut Vec<Diagnostic>) {
    for body in &program.bodies {
        let owner = body.owner;
        let Some(stmts) = &body.body else { continue };
        let mut found: Vec<(Span, TypeId, bool)> = Vec::new();
        crate::visit::for_each_stmt(stmts, &mut |s| match &s.kind {
            StmtKind::ReplaceSelf { with } => found.push(subtree_type(with)),
            StmtKind::SpliceSelf { items } => {
                for item in items {
                    match item {
                        ListItem::One(Subtree::Move(p))
                            if p.root == PathRoot::SelfNode && p.fields().next().is_none() => {}
                        ListItem::One(t) => {
                            let (span, ty, _) = subtree_type(t);
                            found.push((span, ty, true));
                        }
                        ListItem::Spread(slot) => {
                            if let FieldKind::List(t) = program.fields[slot.field.index()].kind {
                                found.push((slot.parent.span.to(slot.parent.span), t, true));
                            }
                        }
                    }
                }
            }
            _ => {}
        });
        for (span, ty, in_list) in found {
            if let Some(d) = replacement_violation(program, owner, ty, in_list, span) {
                diags.push(d);
            }
        }
    }
}

fn subtree_type(t: &Subtree) -> (Span, TypeId, bool) {
    match t {
        Subtree::New(n) => (n.span, n.ty, false),
        Subtree::Move(p) | Subtree::Copy(p) => (p.span, p.ty, false),
    }
}

/// `T : Base : Root`, the chain of a type's bases.
fn type_chain(program: &Program, mut t: TypeId) -> String {
    let mut names = vec![program.type_name(t).to_string()];
    while let Some(b) = program.types[t.index()].base {
        names.push(program.type_name(b).to_string());
        t = b;
    }
    names.join(" : ")
}

/// Whether a slot declared with type `declared` can hold a node of type
/// `owner` or of one of its subtypes.
fn can_hold(program: &Program, declared: TypeId, owner: TypeId) -> bool {
    program.is_subtype(owner, declared)
        || program.types[owner.index()]
            .concrete_subtypes
            .iter()
            .any(|&s| program.is_subtype(s, declared))
}

/// The first slot a replacement of type `ty` could break, as a diagnostic.
fn replacement_violation(
    program: &Program,
    owner: TypeId,
    ty: TypeId,
    in_list: bool,
    span: Span,
) -> Option<Diagnostic> {
    let describe = |slot: String, declared: TypeId, decl: Span| {
        let what = if in_list {
            "a thicket element"
        } else {
            "the replacement"
        };
        Diagnostic::error(
            "replace-self-type",
            span,
            format!(
                "{what} `{}` cannot stand in {slot}, which can hold this receiver `{}`",
                program.type_name(ty),
                program.type_name(owner),
            ),
        )
        .with_label(decl, "declared here")
        .with_note(format!(
            "`{}` is not a subtype of `{}`: {} ; receiver {}",
            program.type_name(ty),
            program.type_name(declared),
            type_chain(program, ty),
            type_chain(program, owner)
        ))
    };
    for field in &program.fields {
        let (declared, is_list) = match field.kind {
            FieldKind::Child(t) => (t, false),
            FieldKind::List(t) => (t, true),
            FieldKind::Data(_) => continue,
        };
        if in_list && !is_list {
            continue;
        }
        if can_hold(program, declared, owner) && !program.is_subtype(ty, declared) {
            let slot = format!(
                "the {} `{}.{}: {}{}{}`",
                if is_list { "list child" } else { "child slot" },
                program.type_name(field.owner),
                field.name,
                if is_list { "[" } else { "" },
                program.type_name(declared),
                if is_list { "]" } else { "" },
            );
            return Some(describe(slot, declared, field.span));
        }
    }
    if in_list {
        return None;
    }
    for fuse in &program.fuses {
        if can_hold(program, fuse.root_type, owner) && !program.is_subtype(ty, fuse.root_type) {
            let slot = format!(
                "the root of `fuse {}` (`{}: {}`)",
                fuse.name,
                fuse.root_name,
                program.type_name(fuse.root_type)
            );
            return Some(describe(slot, fuse.root_type, fuse.span));
        }
    }
    None
}
