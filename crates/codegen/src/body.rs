//! Expressions, node paths and statements.

use crate::forward_record::Event;
use crate::gen::*;
use crate::names::ident;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use treefuse_sema::ops::{BinaryOp, Builtin, UnaryOp};
use treefuse_sema::*;
use treefuse_syntax::Span;

impl Gen<'_> {
    /// The node a path reaches, as an expression of the hierarchy's id type.
    pub fn path(&self, p: &NodePath, fr: &Frame) -> TokenStream {
        let (node, child) = self.path_to(p, fr);
        if let Some(f) = child {
            self.fwd_event(Event::Use(f));
        }
        node
    }

    /// [`Self::path`], and the receiver's child field whose hoisted local
    /// the path is, if it is one: the caller reports how it uses it
    /// (`forward.rs`).
    fn path_to(&self, p: &NodePath, fr: &Frame) -> (TokenStream, Option<FieldId>) {
        let mut cur = match p.root {
            PathRoot::SelfNode => quote!(this),
            PathRoot::Var(v) => {
                let n = &fr.nodes[v.index()];
                quote!(#n)
            }
        };
        // `cur` is the local of this hoisted child.
        let mut child = None;
        for (i, step) in p.steps.iter().enumerate() {
            cur = match step {
                // Through an optional child: an error if it is empty (§8.7).
                PathStep::Child(f) if self.p.is_optional(*f) => {
                    let name = &self.field[f.index()];
                    if let Some(c) = child.take() {
                        self.fwd_event(Event::Read(c, name.to_string()));
                    }
                    let fname = &self.p.fields[f.index()].name;
                    let at = self.at(&fr.context, p.span);
                    quote!(opt_child(t[#cur].#name, #fname, #at)?)
                }
                PathStep::Child(f) => match self.self_child(p.root, i, *f) {
                    Some(local) => {
                        child = Some(*f);
                        quote!(#local)
                    }
                    None => {
                        let name = &self.field[f.index()];
                        if let Some(c) = child.take() {
                            self.fwd_event(Event::Read(c, name.to_string()));
                        }
                        quote!(t[#cur].#name)
                    }
                },
                PathStep::Cast(ty) if self.cast_known(p, i, *ty, fr) => cur,
                PathStep::Cast(ty) => {
                    if let Some(c) = child.take() {
                        self.fwd_event(Event::Use(c));
                    }
                    let at = self.at(&fr.context, p.span);
                    let f = &self.cast_fn[ty.index()];
                    quote!(#f(t, #cur, #at)?)
                }
                PathStep::Elem(f, i) => {
                    if let Some(c) = child.take() {
                        self.fwd_event(Event::Use(c));
                    }
                    let at = self.at(&fr.context, p.span);
                    let iv = self.expr(&i.0, fr).ts;
                    let elem = self.list_view(*f, fr, &View::Elem(at));
                    quote!({
                        let p = #cur;
                        let k = #iv;
                        #elem
                    })
                }
            };
        }
        (cur, child)
    }

    /// `t[NODE].NAME`, the slot `f` of the node path `p` reaches; the
    /// value of a fused call where it replaces the read (`forward.rs`).
    fn slot_read(&self, p: &NodePath, f: FieldId, fr: &Frame) -> TokenStream {
        let (node, child) = self.path_to(p, fr);
        let name = &self.field[f.index()];
        if let Some(ret) = child.and_then(|c| self.fwd_read(c, name)) {
            return quote!(#ret);
        }
        if self.self_node.get() && is_self(p) {
            return quote!(this_node.#name);
        }
        quote!(t[#node].#name)
    }

    /// Whether statement `s` reaches the tree only through data fields of
    /// the receiver: no call, no other node, no child slot or list, no
    /// type test. A run of such statements in a fused function holds the
    /// receiver's node once (`Gen::self_node`).
    pub(crate) fn self_data_only(&self, s: &Stmt) -> bool {
        let all = |ss: &[Stmt]| ss.iter().all(|s| self.self_data_only(s));
        match &s.kind {
            StmtKind::Let { value, .. } => self.self_data_expr(value),
            StmtKind::Assign { place, value } => {
                let root = match &place.root {
                    PlaceRoot::Local(_) | PlaceRoot::Global(_) => true,
                    // `x = append(x, ..)` on a field changes it through
                    // `t[..]` (`update_array`).
                    PlaceRoot::Field(p, f) => {
                        is_self(p)
                            && !self.cold[f.index()]
                            && !matches!(&value.kind, ExprKind::Builtin(b, _) if b.updates_array())
                    }
                };
                root && place.projections.iter().all(|pr| match pr {
                    Projection::Member(_) => true,
                    Projection::Index(e) | Projection::Key(e) => self.self_data_expr(e),
                }) && self.self_data_expr(value)
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => self.self_data_expr(cond) && all(then_branch) && all(else_branch),
            StmtKind::Return(value) => value.as_ref().is_none_or(|e| self.self_data_expr(e)),
            StmtKind::Break => true,
            _ => false,
        }
    }

    /// [`Self::self_data_only`] of an expression.
    fn self_data_expr(&self, e: &Expr) -> bool {
        let all = |es: &[Expr]| es.iter().all(|e| self.self_data_expr(e));
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Global(_) => true,
            ExprKind::Field(p, f) => is_self(p) && !self.cold[f.index()],
            ExprKind::Member(x, _) | ExprKind::Unary(_, x) => self.self_data_expr(x),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                self.self_data_expr(a) && self.self_data_expr(b)
            }
            ExprKind::Builtin(_, args)
            | ExprKind::Call(_, args)
            | ExprKind::Array(args)
            | ExprKind::Record(_, args) => all(args),
            ExprKind::If(a, b, c) => [a, b, c].iter().all(|x| self.self_data_expr(x)),
            ExprKind::Match(x, arms) => {
                self.self_data_expr(x) && arms.iter().all(|arm| self.self_data_expr(&arm.body))
            }
            ExprKind::NodeCall(..)
            | ExprKind::Is(..)
            | ExprKind::IsNone(_)
            | ExprKind::ListLen(_)
            | ExprKind::InList => false,
        }
    }

    /// The node a path reaches as an `Option` of the hierarchy's id type,
    /// `None` if its last step is an empty optional child (§8.7), for the
    /// forms that take an empty one: calls, `is T` and `is none`. Steps
    /// before the last fail on an empty optional child as in
    /// [`Self::path`].
    pub fn path_opt(&self, p: &NodePath, fr: &Frame) -> TokenStream {
        let Some(f) = self.p.ends_in_optional(p) else {
            let n = self.path(p, fr);
            return quote!(Some(#n));
        };
        let parent = NodePath {
            steps: p.steps[..p.steps.len() - 1].to_vec(),
            ..p.clone()
        };
        self.slot_read(&parent, f, fr)
    }

    /// The local holding child field `f` of the receiver, if step `i` of a
    /// path from `root` reads it and the fused function being generated
    /// reads it once at its start (marked used).
    fn self_child(&self, root: PathRoot, i: usize, f: FieldId) -> Option<Ident> {
        if i != 0 || root != PathRoot::SelfNode {
            return None;
        }
        self.hoisted_child(f, false)
    }

    /// Whether the cast at step `i` of `p` cannot fail: a known fact says
    /// the node before it is of a subtype of `ty`.
    fn cast_known(&self, p: &NodePath, i: usize, ty: TypeId, fr: &Frame) -> bool {
        let prefix = &p.steps[..i];
        fr.facts
            .borrow()
            .iter()
            .any(|f| f.root == p.root && f.steps == prefix && self.p.is_subtype(f.ty, ty))
    }

    /// Generates `then` knowing that `cond` holds: the `is` tests among its
    /// `&&` conjuncts become facts for the duration (see [`Fact`]).
    pub fn knowing<R>(&self, cond: &Expr, fr: &Frame, then: impl FnOnce() -> R) -> R {
        fn collect(e: &Expr, out: &mut Vec<Fact>) {
            match &e.kind {
                ExprKind::Binary(BinaryOp::And, a, b) => {
                    collect(a, out);
                    collect(b, out);
                }
                ExprKind::Is(p, ty) if !p.steps.iter().any(|s| matches!(s, PathStep::Elem(..))) => {
                    out.push(Fact {
                        root: p.root,
                        steps: p.steps.clone(),
                        ty: *ty,
                    })
                }
                _ => {}
            }
        }
        let mark = fr.facts.borrow().len();
        collect(cond, &mut fr.facts.borrow_mut());
        let r = then();
        fr.facts.borrow_mut().truncate(mark);
        r
    }

    /// A read of the list in field `field` of node `p` (a local). While a
    /// loop over that list is open, the list as the program sees it is
    /// the open list's (the tree's slot is written when the loop ends), so
    /// the read asks it when `p` is the loop's owner: O(1) for a length
    /// or an element.
    pub fn list_view(&self, field: FieldId, fr: &Frame, view: &View) -> TokenStream {
        let name = &self.field[field.index()];
        let mut out = match view {
            View::Len => quote!(t[p].#name.len()),
            View::Elem(at) => quote!(list_elem(&t[p].#name, k, #at)?),
            View::All => quote!(t[p].#name.clone()),
        };
        for o in fr.open.borrow().iter().filter(|o| o.field == field) {
            let (open, owner) = (&o.open, &o.owner);
            let from_open = match view {
                View::Len => quote!(#open.len()),
                View::Elem(at) => quote!(#open.elem(k, #at)?),
                View::All => quote!(#open.current()),
            };
            out = quote!(if p == #owner { #from_open } else { #out });
        }
        out
    }

    /// Writes every open loop's list into the tree (before a deep copy,
    /// which may reach any of them).
    fn sync_all(&self, fr: &Frame) -> TokenStream {
        if !fr.open.borrow().is_empty() {
            self.fwd_event(Event::Mutates);
        }
        fr.open
            .borrow()
            .iter()
            .map(|o| {
                let (open, owner) = (&o.open, &o.owner);
                let name = &self.field[o.field.index()];
                quote!(if let Some(list) = #open.sync() {
                    t[#owner].#name = list;
                })
            })
            .collect()
    }

    /// A block binding `p` to the owner of list `slot` and then reading
    /// the list (see [`Self::list_view`]).
    fn with_list(&self, slot: &ChildSlot, fr: &Frame, view: &View) -> TokenStream {
        let p = self.path(&slot.parent, fr);
        let read = self.list_view(slot.field, fr, view);
        quote!({
            let p = #p;
            #read
        })
    }

    /// The open loop a node variable iterates, if any.
    pub fn open_loop_of(&self, var: NodeVarId, fr: &Frame) -> Option<OpenLoop> {
        fr.open
            .borrow()
            .iter()
            .rev()
            .find(|o| o.var == var)
            .cloned()
    }

    /// Leaves the traversal (or a fused participant) as `return` does,
    /// with `value` as the replacement of the receiver if given: open
    /// loops are closed first, so their lists are written into the tree.
    pub fn leave(&self, fr: &Frame, ret: &Ret, value: Option<TokenStream>) -> TokenStream {
        let closes = |from: usize| -> TokenStream {
            fr.open
                .borrow()
                .get(from..)
                .unwrap_or(&[])
                .iter()
                .rev()
                .map(|o| {
                    let (open, owner) = (&o.open, &o.owner);
                    let name = &self.field[o.field.index()];
                    quote!(if let Some(list) = #open.close() {
                        t[#owner].#name = list;
                    })
                })
                .collect()
        };
        // Lists written back, a replacement: the tree changes.
        let (from, replaces) = match ret {
            Ret::Pure { .. } => (usize::MAX, false),
            Ret::Traversal { replaces } => (0, *replaces),
            Ret::Fused { depth, .. } => (*depth, false),
        };
        if fr.open.borrow().len() > from || value.is_some() || replaces {
            self.fwd_event(Event::Mutates);
        }
        match ret {
            Ret::Pure { fallible: true } => quote!(return Ok(());),
            Ret::Pure { fallible: false } => quote!(return;),
            Ret::Traversal { replaces } => {
                let closes = closes(0);
                let v = match (value, replaces) {
                    (Some(v), _) => v,
                    (None, true) => quote!(Replaced::Kept),
                    (None, false) => quote!(()),
                };
                quote!(#closes return Ok(#v);)
            }
            Ret::Fused {
                label,
                flag,
                depth,
                postpone,
            } => {
                let closes = closes(*depth);
                let set = value.map(|v| quote!(replaced = #v; #postpone));
                let clear = flag.as_ref().map(|f| quote!(#f = false;));
                quote!(#closes #set #clear break #label;)
            }
        }
    }

    /// The `site` argument of a call whose callee needs it.
    pub fn site_arg(&self, needed: bool, site: TokenStream) -> TokenStream {
        if needed {
            self.fwd_event(Event::Mutates);
            quote!(, #site)
        } else {
            quote!()
        }
    }

    /// `Site::Child(..)` for the child slot `field` of `this`.
    pub fn child_site(&self, field: FieldId) -> TokenStream {
        let name = &self.p.fields[field.index()].name;
        quote!(Site::Child(t[this].kind.name(), #name))
    }

    /// The node a subtree denotes: built, moved or copied.
    fn subtree(&self, with: &Subtree, fr: &Frame) -> TokenStream {
        match with {
            Subtree::New(t) => self.build(t, fr),
            Subtree::Move(p) => self.path(p, fr),
            Subtree::Copy(p) => self.copy(p, fr),
        }
    }

    /// `copy(PATH)`: a deep copy of the subtree at the path.
    fn copy(&self, p: &NodePath, fr: &Frame) -> TokenStream {
        let src = self.path(p, fr);
        let syncs = self.sync_all(fr);
        let f = &self.copy_fn[self.hier_of[p.ty.index()]];
        quote!({
            let x = #src;
            #syncs
            #f(t, x)
        })
    }

    /// The nodes of a list value, as a `Vec` (items in order).
    fn list_value(&self, items: &[ListItem], fr: &Frame) -> TokenStream {
        let mut out = TokenStream::new();
        for item in items {
            out.extend(match item {
                ListItem::One(with) => {
                    let x = self.subtree(with, fr);
                    quote!(xs.push(#x);)
                }
                ListItem::Spread(slot) => {
                    let items = self.with_list(slot, fr, &View::All);
                    quote!(xs.extend(#items.iter().copied());)
                }
            });
        }
        quote!({
            let mut xs = Vec::new();
            #out
            xs
        })
    }

    /// Whether the receiver's replacement of type `ty` can stand where a
    /// node of the receiver's hierarchy stands. (It always can, except in
    /// traversals of types that no slot or root can hold, which never run.)
    fn same_hierarchy(&self, ty: TypeId, fr_owner: Option<TypeId>) -> bool {
        fr_owner.is_none_or(|o| self.hier_of[o.index()] == self.hier_of[ty.index()])
    }

    /// The statements of LANGUAGE.md §7.1–7.3: replacing the receiver,
    /// thickets, list edits, copies into a slot.
    fn rewrite_stmt(&self, s: &Stmt, fr: &Frame, ret: &Ret) -> TokenStream {
        let at = self.at(&fr.context, s.span);
        match &s.kind {
            StmtKind::ReplaceSelf { with } => {
                let ty = match with {
                    Subtree::New(t) => t.ty,
                    Subtree::Move(p) | Subtree::Copy(p) => p.ty,
                };
                if !self.same_hierarchy(ty, fr.owner) {
                    return quote!(return Err(#at.error("the receiver stands nowhere".to_string()));
                    );
                }
                let x = self.subtree(with, fr);
                let leave = self.leave(fr, ret, Some(quote!(Replaced::One(x))));
                quote!({
                    let x = #x;
                    #leave
                })
            }
            StmtKind::SpliceSelf { items } => {
                let fits = items.iter().all(|i| match i {
                    ListItem::One(Subtree::New(t)) => self.same_hierarchy(t.ty, fr.owner),
                    ListItem::One(Subtree::Move(p) | Subtree::Copy(p)) => {
                        self.same_hierarchy(p.ty, fr.owner)
                    }
                    ListItem::Spread(slot) => match &self.p.fields[slot.field.index()].kind {
                        FieldKind::List(t) => self.same_hierarchy(*t, fr.owner),
                        _ => false,
                    },
                });
                if !fits {
                    return quote!(return Err(#at.error("the receiver stands nowhere".to_string()));
                    );
                }
                let xs = self.list_value(items, fr);
                let leave = self.leave(fr, ret, Some(quote!(Replaced::Many(xs))));
                quote!({
                    if !matches!(site, Site::Listed) {
                        return Err(thicket_error(site, #at));
                    }
                    let xs = #xs;
                    #leave
                })
            }
            StmtKind::EditList { list, edit } => {
                // (Not inside a loop over the same list: the checker sees
                // to that, so the tree's slot is the list.)
                let name = &self.field[list.field.index()];
                let edit = match edit {
                    ListEdit::Set(i, with) => {
                        let iv = self.expr(i, fr).ts;
                        let x = self.subtree(with, fr);
                        quote!(
                            let k = #iv;
                            list_elem(&t[p].#name, k, #at)?;
                            let x = #x;
                            let mut xs = t[p].#name.to_vec();
                            xs[k as usize] = x;
                            t[p].#name = Arc::from(xs);
                        )
                    }
                    ListEdit::Push(with) => {
                        let x = self.subtree(with, fr);
                        quote!(
                            let x = #x;
                            let xs: Arc<[_]> = t[p].#name.iter().copied().chain([x]).collect();
                            t[p].#name = xs;
                        )
                    }
                    ListEdit::Insert(i, with) => {
                        // The index first, checked, then the subtree.
                        let iv = self.expr(i, fr).ts;
                        let x = self.subtree(with, fr);
                        quote!(
                            let k = list_insert_position(t[p].#name.len(), #iv, #at)?;
                            let x = #x;
                            let mut xs = t[p].#name.to_vec();
                            xs.insert(k, x);
                            t[p].#name = Arc::from(xs);
                        )
                    }
                    ListEdit::Remove(i) => {
                        let iv = self.expr(i, fr).ts;
                        quote!(
                            let k = #iv;
                            list_elem(&t[p].#name, k, #at)?;
                            let mut xs = t[p].#name.to_vec();
                            xs.remove(k as usize);
                            t[p].#name = Arc::from(xs);
                        )
                    }
                    ListEdit::Assign(items) => {
                        let xs = self.list_value(items, fr);
                        quote!(
                            let xs = #xs;
                            t[p].#name = Arc::from(xs);
                        )
                    }
                };
                let p = self.path(&list.parent, fr);
                quote!({
                    let p = #p;
                    #edit
                })
            }
            StmtKind::CopyTo { slot, source } => {
                let x = self.copy(source, fr);
                self.set_slot(slot, x, fr)
            }
            _ => TokenStream::new(),
        }
    }

    /// A call on a loop variable whose loop is open: the traversal runs on
    /// every node now standing where the element stood, each of which may
    /// replace itself. Arguments that are not `Copy` must be mutable
    /// locals: the region's last node takes them (`OpenList::region_arg`),
    /// earlier ones get copies.
    pub fn region_call(
        &self,
        open: &proc_macro2::Ident,
        call: impl Fn(Vec<TokenStream>) -> TokenStream,
        args: &[(TokenStream, bool)],
        replaces: bool,
    ) -> TokenStream {
        self.fwd_event(Event::Mutates);
        let vals: Vec<TokenStream> = args
            .iter()
            .map(|(a, copy)| {
                if *copy {
                    a.clone()
                } else {
                    quote!(#open.region_arg(k, &mut #a))
                }
            })
            .collect();
        let c = call(vals);
        let visit = if replaces {
            quote!(let r = #c?;)
        } else {
            quote!(#c?; let r = Replaced::Kept;)
        };
        quote!(
            #open.take_region();
            let mut k = 0;
            while let Some(n) = #open.region_node(k) {
                k += 1;
                #visit
                #open.put(n, r);
            }
        )
    }

    /// `K::A | K::B` for the concrete subtypes of `ty`, or `None` if it has
    /// none.
    pub fn kind_pattern(&self, ty: TypeId) -> Option<TokenStream> {
        let h = self.hier(ty);
        let kind = &h.kind;
        let subs: Vec<_> = self.p.types[ty.index()]
            .concrete_subtypes
            .iter()
            .map(|t| {
                let v = &self.variant[t.index()];
                quote!(#kind::#v)
            })
            .collect();
        if subs.is_empty() {
            None
        } else {
            Some(quote!(#(#subs)|*))
        }
    }

    /// A place expression for a data read without copying, if `e` is one.
    fn place(&self, e: &Expr, fr: &Frame) -> Option<TokenStream> {
        match &e.kind {
            ExprKind::Local(l) => {
                let n = &fr.locals[l.index()];
                Some(quote!(#n))
            }
            ExprKind::Global(g) => {
                let n = &self.global[g.index()];
                Some(quote!(cx.globals.#n))
            }
            ExprKind::Field(p, f) => Some(self.slot_read(p, *f, fr)),
            ExprKind::Member(x, i) => {
                let inner = match &x.kind {
                    // A member of a map's value: read where the value is,
                    // not from a copy of the whole value.
                    ExprKind::Builtin(Builtin::MapIndex, args)
                        if self.quietly(|| self.place(&args[0], fr).is_some()) =>
                    {
                        let m = self.as_ref_arg(&args[0], fr);
                        let k = self.as_ref_arg(&args[1], fr);
                        let at = self.at(&fr.context, x.span);
                        // (`.member` dereferences the `&V`.)
                        quote!(map_ref(#m, #k, #at)?)
                    }
                    _ => self.place(x, fr)?,
                };
                let DataType::Record(r) = &x.ty else {
                    return None;
                };
                let name = &self.rec_fields[r.index()][*i as usize];
                Some(quote!(#inner.#name))
            }
            _ => None,
        }
    }

    /// Whether the value of `e` is the expression's own: a temporary (not
    /// a place) or a local at its last use.
    fn owns(&self, e: &Expr, fr: &Frame) -> bool {
        self.quietly(|| self.place(e, fr).is_none()) || self.moves_out(e, fr)
    }

    /// A borrowed view of `e` (`&place` or `&value`), for `==`, `len` and
    /// indexing.
    fn by_ref(&self, e: &Expr, fr: &Frame) -> E {
        match self.place(e, fr) {
            Some(p) => E::atom(p),
            None => self.expr(e, fr),
        }
    }

    /// Whether `e` is a whole local held by reference (see `Frame::borrowed`).
    fn is_lent_local(&self, e: &Expr, fr: &Frame) -> bool {
        matches!(e.kind, ExprKind::Local(l) if fr.borrowed.borrow().contains(&l.index()))
    }

    /// `e` as a `&T` argument: the reference itself for a lent local,
    /// else `&place` or `&value`.
    fn as_ref_arg(&self, e: &Expr, fr: &Frame) -> TokenStream {
        let a = self.by_ref(e, fr);
        if self.is_lent_local(e, fr) {
            a.ts
        } else {
            let a = a.at(UNARY);
            quote!(&#a)
        }
    }

    /// String `e` as a `&str` operand of a comparison: a constant as the
    /// literal itself (no `Arc` made), anything else borrowed (`&*x`,
    /// `&**x` for a lent local).
    fn str_operand(&self, e: &Expr, fr: &Frame) -> TokenStream {
        if let Some(s) = str_const(e) {
            return quote!(#s);
        }
        let x = self.by_ref(e, fr);
        if self.is_lent_local(e, fr) {
            let ts = x.ts;
            quote!(&**#ts)
        } else {
            let x = x.at(UNARY);
            quote!(&*#x)
        }
    }

    /// Records that the code copies lent parameter `e` out of its
    /// reference (see `Gen::settle_lending`).
    fn note_copied(&self, e: &Expr, fr: &Frame, cost: Copied) {
        if !self.is_lent_local(e, fr) {
            return;
        }
        if let (ExprKind::Local(l), Some(lender)) = (&e.kind, fr.lender) {
            let mut copied = self.lent_copied.borrow_mut();
            let key = (lender, l.index());
            let now = match copied.get(&key) {
                // A second place that copies it.
                Some(_) => Copied::Often,
                None => cost,
            };
            copied.insert(key, now);
        }
    }

    /// Whether argument `i` of a call with these lent flags is lent.
    pub fn is_lent(lent: &[bool], i: usize) -> bool {
        lent.get(i).copied().unwrap_or(false)
    }

    /// A lent argument that is a whole local: the reference to pass
    /// (`&x`, or a lent `x` itself), which stays valid through the call
    /// (the callee cannot reach the caller's locals). `None` for other
    /// expressions: the caller holds their value and lends that.
    pub fn lend_local(&self, a: &Expr, fr: &Frame) -> Option<TokenStream> {
        matches!(a.kind, ExprKind::Local(_)).then(|| self.as_ref_arg(a, fr))
    }

    /// Keeps the arguments of one call from moving a local that a lent
    /// argument of the same call borrows (`f(&x, x)` would not compile):
    /// those reads copy instead.
    pub fn keep_lent_locals(&self, args: &[Expr], lent: &[bool], fr: &Frame) {
        let borrowed: std::collections::HashSet<LocalId> = args
            .iter()
            .enumerate()
            .filter(|(i, _)| Self::is_lent(lent, *i))
            .filter_map(|(_, a)| local_root(a))
            .collect();
        if borrowed.is_empty() {
            return;
        }
        for a in args {
            visit::walk_expr(a, &mut |x| {
                if matches!(x.kind, ExprKind::Local(l) if borrowed.contains(&l)) {
                    fr.moves.borrow_mut().remove(&(x as *const Expr));
                }
            });
        }
    }

    /// Whether `e` reads a whole local whose value it may take: a last use
    /// (see [`crate::moves`]) of a local held by value.
    fn moves_out(&self, e: &Expr, fr: &Frame) -> bool {
        matches!(e.kind, ExprKind::Local(_))
            && !self.is_lent_local(e, fr)
            && fr.moves.borrow().contains(&(e as *const Expr))
    }

    /// An owned value of `e`.
    pub fn expr(&self, e: &Expr, fr: &Frame) -> E {
        if let Some(p) = self.place(e, fr) {
            return if is_copy(&e.ty) {
                E::atom(p)
            } else if self.is_lent_local(e, fr) {
                let cost = if fr.loop_depth.get() > 0 {
                    Copied::Often
                } else {
                    Copied::Once
                };
                self.note_copied(e, fr, cost);
                if matches!(e.ty, DataType::Array(_)) {
                    // A lent array parameter (`&[T]`): copy it out.
                    E::atom(quote!(#p.to_vec()))
                } else {
                    E::atom(quote!(#p.clone()))
                }
            } else if self.moves_out(e, fr) {
                E::atom(p)
            } else {
                E::atom(quote!(#p.clone()))
            };
        }
        let ctx = &fr.context;
        match &e.kind {
            ExprKind::Const(v) => self.constant(v, &e.ty),
            ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Field(..) => unreachable!(),
            ExprKind::ListLen(slot) => {
                let len = self.with_list(slot, fr, &View::Len);
                // A block, parenthesized: it may stand at the end of a `for`
                // or `if` head.
                E::atom(quote!((#len as i64)))
            }
            ExprKind::InList => {
                self.fwd_event(Event::Mutates);
                E::atom(quote!(matches!(site, Site::Listed)))
            }
            ExprKind::Member(x, i) => {
                let inner = self.expr(x, fr).at(ATOM);
                let DataType::Record(r) = &x.ty else {
                    return E::atom(inner);
                };
                let name = &self.rec_fields[r.index()][*i as usize];
                E::atom(quote!(#inner.#name))
            }
            ExprKind::Index(a, i) => {
                let a = self.as_ref_arg(a, fr);
                let i = self.expr(i, fr).ts;
                let at = self.at(ctx, e.span);
                E::atom(quote!(checked_index(#a, #i, #at)?))
            }
            ExprKind::Unary(op, x) => {
                let x = self.expr(x, fr);
                match op {
                    UnaryOp::NegInt => {
                        let x = x.at(ATOM);
                        E::atom(quote!(#x.wrapping_neg()))
                    }
                    UnaryOp::NegFloat => {
                        let x = x.at(UNARY);
                        E {
                            ts: quote!(-#x),
                            prec: UNARY,
                        }
                    }
                    UnaryOp::Not | UnaryOp::NotInt => {
                        let x = x.at(UNARY);
                        E {
                            ts: quote!(!#x),
                            prec: UNARY,
                        }
                    }
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e, fr),
            ExprKind::Builtin(f, args) => self.builtin(*f, args, &e.ty, e.span, fr),
            ExprKind::Call(f, args) => {
                let pf = &self.p.pure_fns[f.index()];
                self.keep_lent_locals(args, &self.pure_lent[f.index()], fr);
                let args: Vec<_> = args
                    .iter()
                    .zip(&self.pure_lent[f.index()])
                    .map(|(a, &lent)| {
                        if lent {
                            self.as_ref_arg(a, fr)
                        } else {
                            self.expr(a, fr).ts
                        }
                    })
                    .collect();
                let name = &self.pure[f.index()];
                match &pf.body {
                    PureBody::Host => {
                        let host: TokenStream = self
                            .opts
                            .host_module
                            .as_deref()
                            .unwrap_or("crate::host")
                            .parse()
                            .unwrap_or_else(|_| quote!(crate::host));
                        let fname = ident(&pf.name);
                        E::atom(quote!(#host::#fname(#(#args),*)))
                    }
                    _ if self.pure_fallible[f.index()] => E::atom(quote!(#name(#(#args),*)?)),
                    _ => E::atom(quote!(#name(#(#args),*))),
                }
            }
            ExprKind::NodeCall(f, args) => self.node_call(*f, args, fr),
            ExprKind::Array(items) => {
                E::atom(vec_literal(items.iter().map(|a| self.expr(a, fr).ts)))
            }
            ExprKind::Record(r, items) => {
                let name = &self.rec[r.index()];
                let items = items.iter().map(|a| self.expr(a, fr).ts);
                E::atom(quote!(#name::new(#(#items),*)))
            }
            // `is T` on an optional child: false when it is empty (§8.7).
            ExprKind::Is(p, ty) if self.p.ends_in_optional(p).is_some() => {
                let path = self.path_opt(p, fr);
                match self.kind_pattern(*ty) {
                    Some(pat) => E::atom(quote!(matches!(#path.map(|n| t[n].kind), Some(#pat)))),
                    None => E::atom(quote!({
                        let _ = #path;
                        false
                    })),
                }
            }
            ExprKind::IsNone(p) => {
                let path = self.path_opt(p, fr);
                E::atom(quote!(#path.is_none()))
            }
            ExprKind::Is(p, ty) => match self.kind_pattern(*ty) {
                Some(pat) => {
                    let (path, child) = self.path_to(p, fr);
                    if let Some(c) = child {
                        self.fwd_event(Event::Read(c, "kind".to_string()));
                    }
                    E::atom(quote!(matches!(t[#path].kind, #pat)))
                }
                None if p.has_cast() => {
                    let path = self.path(p, fr);
                    E::atom(quote!({
                        let _ = #path;
                        false
                    }))
                }
                None => {
                    // Not emitted, but its hoisted children count as read.
                    self.quietly(|| self.path(p, fr));
                    E::atom(quote!(false))
                }
            },
            ExprKind::If(cond, a, b) => {
                let c = self.expr(cond, fr).ts;
                let a = self.knowing(cond, fr, || self.expr(a, fr)).ts;
                let b = self.expr(b, fr).ts;
                E {
                    ts: quote!(if #c { #a } else { #b }),
                    prec: LOW,
                }
            }
            ExprKind::Match(x, arms) => self.match_expr(x, arms, fr),
        }
    }

    /// A `match` as a Rust `match`: the checker left only reachable arms
    /// that cover every value, so Rust sees an exhaustive match with no
    /// unreachable pattern (strings are matched as `&str`).
    fn match_expr(&self, x: &Expr, arms: &[MatchArm], fr: &Frame) -> E {
        let scrutinee = if x.ty == DataType::Str {
            let s = self.by_ref(x, fr).at(UNARY);
            if self.is_lent_local(x, fr) {
                quote!(&**#s)
            } else {
                quote!(&*#s)
            }
        } else {
            self.expr(x, fr).ts
        };
        let arms = arms.iter().map(|arm| {
            let body = self.expr(&arm.body, fr).ts;
            if arm.patterns.is_empty() {
                return quote!(_ => #body,);
            }
            let pats = arm.patterns.iter().map(|p| match p {
                Value::Int(i) => {
                    let l = proc_macro2::Literal::i64_suffixed(*i);
                    quote!(#l)
                }
                Value::Str(s) => {
                    let s: &str = s;
                    quote!(#s)
                }
                _ => self.constant(p, &x.ty).ts,
            });
            quote!(#(#pats)|* => #body,)
        });
        E {
            ts: quote!(match #scrutinee { #(#arms)* }),
            prec: LOW,
        }
    }

    fn binary(&self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr, fr: &Frame) -> E {
        if op == BinaryOp::And {
            // The right operand runs only when the left one holds.
            let x = self.expr(a, fr).at(AND);
            let y = self.knowing(a, fr, || self.expr(b, fr)).at(AND + 1);
            return E {
                ts: quote!(#x && #y),
                prec: AND,
            };
        }
        use BinaryOp::*;
        let method = |m: &str| {
            let x = self.expr(a, fr).at(ATOM);
            let y = self.expr(b, fr).ts;
            let m = format_ident!("{m}");
            E::atom(quote!(#x.#m(#y)))
        };
        // A lent local is a reference: compare what it refers to.
        let by_ref_deref = |e: &Expr| {
            let x = self.by_ref(e, fr);
            if self.is_lent_local(e, fr) {
                let ts = x.ts;
                E {
                    ts: quote!(*#ts),
                    prec: UNARY,
                }
            } else {
                x
            }
        };
        let infix = |sym: TokenStream, prec: u8, by_ref: bool| {
            // A string compared with a string constant: both as `&str`, so
            // that the constant is not made into an `Arc<str>` (an
            // allocation) on every comparison.
            // (The empty string is left as it was: clippy reads `"" < x`
            // as a test for emptiness and asks for `is_empty`.)
            let nonempty = |e: &Expr| str_const(e).is_some_and(|s| !s.is_empty());
            if by_ref
                && (str_const(a).is_some() != str_const(b).is_some())
                && (nonempty(a) || nonempty(b))
            {
                let (x, y) = (self.str_operand(a, fr), self.str_operand(b, fr));
                return E {
                    ts: quote!(#x #sym #y),
                    prec,
                };
            }
            let (x, y) = if by_ref {
                (by_ref_deref(a), by_ref_deref(b))
            } else {
                (self.expr(a, fr), self.expr(b, fr))
            };
            let x = if prec == CMP && x.prec == CAST {
                let t = &x.ts;
                quote!((#t))
            } else if prec == CMP {
                x.at(prec + 1)
            } else {
                x.at(prec)
            };
            let y = y.at(prec + 1);
            E {
                ts: quote!(#x #sym #y),
                prec,
            }
        };
        match op {
            AddInt => method("wrapping_add"),
            SubInt => method("wrapping_sub"),
            MulInt => method("wrapping_mul"),
            DivInt | RemInt => {
                let x = self.expr(a, fr).ts;
                let y = self.expr(b, fr).ts;
                let at = self.at(&fr.context, e.span);
                let f = if op == DivInt {
                    quote!(div_int)
                } else {
                    quote!(rem_int)
                };
                E::atom(quote!(#f(#x, #y, #at)?))
            }
            ShlInt | ShrInt => {
                let x = self.expr(a, fr).ts;
                let y = self.expr(b, fr).ts;
                let at = self.at(&fr.context, e.span);
                let left = op == ShlInt;
                E::atom(quote!(shift_int(#x, #y, #left, #at)?))
            }
            BitAndInt | BitXorInt | BitOrInt => {
                // Operands that are operations themselves get parentheses,
                // so that clippy's `precedence` lint has nothing to say.
                let x = self.expr(a, fr).at(UNARY);
                let y = self.expr(b, fr).at(UNARY);
                let (sym, prec) = match op {
                    BitAndInt => (quote!(&), BIT_AND),
                    BitXorInt => (quote!(^), BIT_XOR),
                    _ => (quote!(|), BIT_OR),
                };
                E {
                    ts: quote!(#x #sym #y),
                    prec,
                }
            }
            ConcatStr => {
                // `concat_str` takes `&str`: a constant as a literal, the
                // rest by reference (deref coercion).
                let arg = |e: &Expr| match str_const(e) {
                    Some(s) => quote!(#s),
                    None => self.as_ref_arg(e, fr),
                };
                let (x, y) = (arg(a), arg(b));
                E::atom(quote!(concat_str(#x, #y)))
            }
            LtStr => infix(quote!(<), CMP, true),
            LeStr => infix(quote!(<=), CMP, true),
            GtStr => infix(quote!(>), CMP, true),
            GeStr => infix(quote!(>=), CMP, true),
            AddFloat => infix(quote!(+), ADD, false),
            SubFloat => infix(quote!(-), ADD, false),
            MulFloat => infix(quote!(*), MUL, false),
            DivFloat => infix(quote!(/), MUL, false),
            RemFloat => infix(quote!(%), MUL, false),
            LtInt | LtFloat => infix(quote!(<), CMP, false),
            LeInt | LeFloat => infix(quote!(<=), CMP, false),
            GtInt | GtFloat => infix(quote!(>), CMP, false),
            GeInt | GeFloat => infix(quote!(>=), CMP, false),
            // A string against the empty string: `is_empty` (what clippy
            // asks for instead of `== ""`).
            Eq | Ne if (str_const(a) == Some("")) != (str_const(b) == Some("")) => {
                let other = if str_const(a) == Some("") { b } else { a };
                let x = self.by_ref(other, fr).at(ATOM);
                if op == Eq {
                    E::atom(quote!(#x.is_empty()))
                } else {
                    E {
                        ts: quote!(!#x.is_empty()),
                        prec: UNARY,
                    }
                }
            }
            Eq => infix(quote!(==), CMP, true),
            Ne => infix(quote!(!=), CMP, true),
            And => infix(quote!(&&), AND, false),
            Or => infix(quote!(||), OR, false),
        }
    }

    fn builtin(&self, f: Builtin, args: &[Expr], result: &DataType, span: Span, fr: &Frame) -> E {
        let arg = |i: usize| self.expr(&args[i], fr);
        let m1 = |m: &str| {
            let x = arg(0).at(ATOM);
            let m = format_ident!("{m}");
            E::atom(quote!(#x.#m()))
        };
        let m2 = |m: &str| {
            let x = arg(0).at(ATOM);
            let y = arg(1).ts;
            let m = format_ident!("{m}");
            E::atom(quote!(#x.#m(#y)))
        };
        match f {
            Builtin::ToF64 => {
                let x = arg(0).at(UNARY);
                E {
                    ts: quote!(#x as f64),
                    prec: CAST,
                }
            }
            Builtin::ToI64 => {
                let x = arg(0).at(UNARY);
                E {
                    ts: quote!(#x as i64),
                    prec: CAST,
                }
            }
            Builtin::AbsInt => m1("wrapping_abs"),
            Builtin::AbsFloat => m1("abs"),
            // `min` of a `max` (or the reverse) with constant bounds may
            // be constant (`max(6, min(-1, x))`), which clippy rejects
            // (`min_max`, deny by default): nested, the outer one is
            // called through a runtime helper that computes the same.
            f @ (Builtin::MinInt | Builtin::MinFloat | Builtin::MaxInt | Builtin::MaxFloat)
                if args.iter().any(is_min_max) =>
            {
                let helper = match f {
                    Builtin::MinInt => quote!(min_i64),
                    Builtin::MaxInt => quote!(max_i64),
                    Builtin::MinFloat => quote!(min_f64),
                    _ => quote!(max_f64),
                };
                let (x, y) = (arg(0).ts, arg(1).ts);
                E::atom(quote!(#helper(#x, #y)))
            }
            Builtin::MinInt | Builtin::MinFloat => m2("min"),
            Builtin::MaxInt | Builtin::MaxFloat => m2("max"),
            Builtin::Sqrt => m1("sqrt"),
            Builtin::Floor => m1("floor"),
            Builtin::Ceil => m1("ceil"),
            Builtin::ToStrInt | Builtin::ToStrBool | Builtin::ToStrFloat => {
                let x = arg(0).at(ATOM);
                E::atom(quote!(Arc::<str>::from(#x.to_string())))
            }
            Builtin::Substr => {
                let s = self.as_ref_arg(&args[0], fr);
                let (from, to) = (arg(1).ts, arg(2).ts);
                let at = self.at(&fr.context, span);
                E::atom(quote!(substr_checked(#s, #from, #to, #at)?))
            }
            Builtin::MapFrom => {
                let ty = self.data_type(result);
                if args.is_empty() {
                    return E::atom(quote!(<#ty>::new()));
                }
                let pairs = args.chunks(2).map(|kv| {
                    let (k, v) = (self.expr(&kv[0], fr).ts, self.expr(&kv[1], fr).ts);
                    quote!((#k, #v))
                });
                E::atom(quote!(<#ty>::from_iter([#(#pairs),*])))
            }
            Builtin::MapIndex => {
                let m = self.as_ref_arg(&args[0], fr);
                let k = self.as_ref_arg(&args[1], fr);
                let at = self.at(&fr.context, span);
                E::atom(quote!(map_index(#m, #k, #at)?))
            }
            Builtin::MapGetOr => {
                let m = self.as_ref_arg(&args[0], fr);
                let k = self.as_ref_arg(&args[1], fr);
                let d = arg(2).ts;
                E::atom(quote!(map_get_or(#m, #k, #d)))
            }
            Builtin::MapContains => {
                let m = self.by_ref(&args[0], fr).at(ATOM);
                let k = self.as_ref_arg(&args[1], fr);
                E::atom(quote!(#m.contains_key(#k)))
            }
            // A map the expression owns (a temporary, or a local at its last
            // use) is updated in place: `ValueMap` copies only what it shares.
            Builtin::MapInsert if self.owns(&args[0], fr) => {
                let (m, k, v) = (arg(0).ts, arg(1).ts, arg(2).ts);
                E::atom(quote!({
                    let k = #k;
                    let v = #v;
                    let mut m = #m;
                    m.insert(k, v);
                    m
                }))
            }
            Builtin::MapInsert => {
                // A lent map would have been updated in place had it been
                // the callee's own: count it as copied (`settle_lending`).
                self.note_copied(&args[0], fr, Copied::Often);
                let m = self.by_ref(&args[0], fr).at(ATOM);
                let (k, v) = (arg(1).ts, arg(2).ts);
                E::atom(quote!(#m.update(#k, #v)))
            }
            Builtin::MapRemove if self.owns(&args[0], fr) => {
                let (m, k) = (arg(0).ts, arg(1).ts);
                E::atom(quote!({
                    let k = #k;
                    let mut m = #m;
                    map_remove(&mut m, &k);
                    m
                }))
            }
            Builtin::MapRemove => {
                self.note_copied(&args[0], fr, Copied::Often);
                let m = self.by_ref(&args[0], fr).at(ATOM);
                let k = self.as_ref_arg(&args[1], fr);
                E::atom(quote!(#m.without(#k)))
            }
            Builtin::MapKeys => {
                let m = self.by_ref(&args[0], fr).at(ATOM);
                E::atom(quote!(#m.keys().cloned().collect::<Vec<_>>()))
            }
            Builtin::MapValues => {
                let m = self.by_ref(&args[0], fr).at(ATOM);
                E::atom(quote!(#m.values().cloned().collect::<Vec<_>>()))
            }
            // Array built-ins (LANGUAGE §8.5) on a value of their own (the
            // first argument is copied unless the expression owns it),
            // arguments evaluated in order. `x = append(x, e);` and its
            // kin on a variable update it in place instead
            // (`Gen::update_array`).
            Builtin::ArrayAppend => {
                let (a, e) = (arg(0).ts, arg(1).ts);
                E::atom(quote!({
                    let mut xs = #a;
                    let v = #e;
                    xs.push(v);
                    xs
                }))
            }
            Builtin::ArrayConcat => {
                let ty = self.data_type(result);
                let el = match result {
                    DataType::Array(el) => self.data_type(el),
                    _ => quote!(_),
                };
                let a = arg(0).ts;
                let b = self.as_ref_arg(&args[1], fr);
                E::atom(quote!({
                    let mut xs: #ty = #a;
                    let ys: &[#el] = #b;
                    xs.extend_from_slice(ys);
                    xs
                }))
            }
            Builtin::ArraySlice => {
                let a = self.as_ref_arg(&args[0], fr);
                let (i, j) = (arg(1).ts, arg(2).ts);
                let at = self.at(&fr.context, span);
                E::atom(quote!(array_slice(#a, #i, #j, #at)?))
            }
            Builtin::ArrayInsertAt => {
                let (a, i, e) = (arg(0).ts, arg(1).ts, arg(2).ts);
                let at = self.at(&fr.context, span);
                E::atom(quote!({
                    let mut xs = #a;
                    let k = #i;
                    let v = #e;
                    array_insert_at(&mut xs, k, v, #at)?;
                    xs
                }))
            }
            Builtin::ArrayRemoveAt => {
                let (a, i) = (arg(0).ts, arg(1).ts);
                let at = self.at(&fr.context, span);
                E::atom(quote!({
                    let mut xs = #a;
                    let k = #i;
                    array_remove_at(&mut xs, k, #at)?;
                    xs
                }))
            }
            Builtin::LenStr | Builtin::LenArray | Builtin::LenMap => {
                let x = self.by_ref(&args[0], fr).at(ATOM);
                E {
                    ts: quote!(#x.len() as i64),
                    prec: CAST,
                }
            }
        }
    }

    // ------------------------------------------------------------ statements

    /// A block of statements; statements after one that always returns are
    /// left out (they cannot run).
    pub fn block(&self, ss: &[Stmt], fr: &Frame, ret: &Ret) -> TokenStream {
        let mut out = TokenStream::new();
        for s in ss {
            if !keeps_facts(s) {
                fr.facts.borrow_mut().clear();
            }
            out.extend(self.stmt(s, fr, ret, false));
            if diverges(s) {
                break;
            }
        }
        out
    }

    /// Whether an expression is cheap and reads no tree or context state,
    /// so it may be written inline next to `t` and `cx` arguments.
    fn simple(e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Const(_) | ExprKind::Local(_))
    }

    /// One statement. `top` marks a top-level statement of a participant
    /// whose locals were declared up front.
    pub fn stmt(&self, s: &Stmt, fr: &Frame, ret: &Ret, top: bool) -> TokenStream {
        if self.needs_sync(s, fr) {
            // A pure function reading nodes (LANGUAGE §8.8) reads lists
            // from the tree: write the open loops' lists into it first
            // (nothing the statement's own expressions do changes them).
            let sync = self.sync_all(fr);
            let code = self.stmt_unsynced(s, fr, ret, top);
            return quote!(#sync #code);
        }
        self.stmt_unsynced(s, fr, ret, top)
    }

    fn stmt_unsynced(&self, s: &Stmt, fr: &Frame, ret: &Ret, top: bool) -> TokenStream {
        let is_loop = matches!(
            s.kind,
            StmtKind::ForChildren { .. }
                | StmtKind::ForArray { .. }
                | StmtKind::ForRange { .. }
                | StmtKind::While { .. }
        );
        if is_loop {
            fr.loop_depth.set(fr.loop_depth.get() + 1);
        }
        let code = self.stmt_code(s, fr, ret, top);
        if is_loop {
            fr.loop_depth.set(fr.loop_depth.get() - 1);
        }
        code
    }

    fn stmt_code(&self, s: &Stmt, fr: &Frame, ret: &Ret, top: bool) -> TokenStream {
        let ctx = &fr.context;
        // An `if` whose branches are forwarding units of their own.
        let pieces = self.fwd_take_pieces();
        match &s.kind {
            StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. } => self.rewrite_stmt(s, fr, ret),
            StmtKind::Clear { slot } => {
                let field = &self.field[slot.field.index()];
                let p = self.path(&slot.parent, fr);
                if slot.parent.steps.is_empty() {
                    if slot.parent.root == PathRoot::SelfNode {
                        self.fwd_event(Event::Slot(slot.field));
                    }
                    quote!(t[#p].#field = None;)
                } else {
                    quote!({
                        let n = #p;
                        t[n].#field = None;
                    })
                }
            }
            StmtKind::Call {
                receiver,
                method,
                args,
            } => {
                let f = &self.method_fn[method.index()];
                let replaces = self.rw.method_replaces[method.index()];
                let needs_site = self.rw.method_site[method.index()];
                let mut pre = TokenStream::new();
                let open = match (receiver.root, receiver.steps.is_empty()) {
                    (PathRoot::Var(v), true) => self.open_loop_of(v, fr),
                    _ => None,
                };
                // A call on an optional child runs only when it is full,
                // its arguments evaluated only then (§8.7).
                let optional = self.p.ends_in_optional(receiver).is_some();
                let recv = match (receiver.root, receiver.steps.is_empty()) {
                    (_, true) => self.path(receiver, fr),
                    _ if optional => quote!(n),
                    _ => {
                        let r = self.path(receiver, fr);
                        pre.extend(quote!(let n = #r;));
                        quote!(n)
                    }
                };
                let mut vals = Vec::new();
                let lent = &self.method_lent[method.index()];
                self.keep_lent_locals(args, lent, fr);
                for (i, a) in args.iter().enumerate() {
                    if Self::is_lent(lent, i) {
                        // A reference: every node of a region gets it.
                        match self.lend_local(a, fr) {
                            Some(r) => vals.push((r, true)),
                            None => {
                                let v = self.expr(a, fr).ts;
                                let name = format_ident!("arg{i}");
                                pre.extend(quote!(let #name = #v;));
                                vals.push((quote!(&#name), true));
                            }
                        }
                        continue;
                    }
                    let v = self.expr(a, fr).ts;
                    if Self::simple(a) && open.is_none() {
                        vals.push((v, true));
                    } else {
                        let name = format_ident!("arg{i}");
                        let copy = is_copy(&a.ty);
                        // A region call takes the value at its last node.
                        if open.is_some() && !copy {
                            pre.extend(quote!(let mut #name = #v;));
                        } else {
                            pre.extend(quote!(let #name = #v;));
                        }
                        vals.push((quote!(#name), copy));
                    }
                }
                let call = if let Some(o) = open {
                    let site = self.site_arg(needs_site, quote!(Site::Listed));
                    self.region_call(
                        &o.open,
                        |vals| quote!(#f(t, cx, n #site #(, #vals)*)),
                        &vals,
                        replaces,
                    )
                } else {
                    let vals: Vec<_> = vals.into_iter().map(|(v, _)| v).collect();
                    match (receiver.root, receiver.steps.as_slice()) {
                        (PathRoot::SelfNode, []) => {
                            let site = self.site_arg(needs_site, quote!(site));
                            if replaces {
                                let leave = self.leave(fr, ret, Some(quote!(r)));
                                quote!(
                                    let r = #f(t, cx, #recv #site #(, #vals)*)?;
                                    if !matches!(r, Replaced::Kept) {
                                        #leave
                                    }
                                )
                            } else {
                                quote!(#f(t, cx, #recv #site #(, #vals)*)?;)
                            }
                        }
                        (PathRoot::SelfNode, [PathStep::Child(field)]) => {
                            let site = self.site_arg(needs_site, self.child_site(*field));
                            if replaces {
                                self.fwd_event(Event::Slot(*field));
                                let name = &self.field[field.index()];
                                let x = if optional { quote!(Some(x)) } else { quote!(x) };
                                quote!(
                                    if let Some(x) = #f(t, cx, #recv #site #(, #vals)*)?.single() {
                                        t[this].#name = #x;
                                    }
                                )
                            } else {
                                quote!(#f(t, cx, #recv #site #(, #vals)*)?;)
                            }
                        }
                        _ => {
                            // A loop variable whose elements cannot be
                            // replaced (else its loop is open): it stands
                            // in a list.
                            let site = self.site_arg(needs_site, quote!(Site::Listed));
                            quote!(#f(t, cx, #recv #site #(, #vals)*)?;)
                        }
                    }
                };
                let scoped = !pre.is_empty() || replaces || uses_var(&call, "k");
                if optional {
                    let slot = self.path_opt(receiver, fr);
                    quote!(if let Some(n) = #slot { #pre #call })
                } else if !scoped {
                    call
                } else {
                    quote!({ #pre #call })
                }
            }
            StmtKind::Let { local, value } => {
                let name = &fr.locals[local.index()];
                let v = self.expr(value, fr).ts;
                if top && fr.hoisted {
                    quote!(#name = #v;)
                } else {
                    let ty = self.data_type(&value.ty);
                    if fr.mutable.contains(&local.index()) {
                        quote!(let mut #name: #ty = #v;)
                    } else {
                        quote!(let #name: #ty = #v;)
                    }
                }
            }
            StmtKind::Alias { var, path } => {
                let name = &fr.nodes[var.index()];
                let p = self.path(path, fr);
                if top && fr.hoisted {
                    quote!(#name = #p;)
                } else {
                    let id = &self.hier(path.ty).id;
                    quote!(let #name: #id = #p;)
                }
            }
            StmtKind::Assign { place, value } => self.assign(place, value, s, fr),
            StmtKind::Replace { slot, tree } => {
                let built = self.build(tree, fr);
                self.set_slot(slot, built, fr)
            }
            StmtKind::Move { slot, source } => {
                let src = self.path(source, fr);
                self.set_slot(slot, src, fr)
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.expr(cond, fr).ts;
                let a = self.knowing(cond, fr, || self.block(then_branch, fr, ret));
                if pieces {
                    self.fwd_unit();
                }
                if else_branch.is_empty() {
                    quote!(if #c { #a })
                } else if else_branch.len() == 1
                    && matches!(else_branch[0].kind, StmtKind::If { .. })
                    && !self.needs_sync(&else_branch[0], fr)
                {
                    if pieces {
                        self.fwd_pieces();
                    }
                    let b = self.stmt(&else_branch[0], fr, ret, false);
                    quote!(if #c { #a } else #b)
                } else {
                    let b = self.block(else_branch, fr, ret);
                    quote!(if #c { #a } else { #b })
                }
            }
            StmtKind::ForChildren { var, list, body } => {
                let field = &self.field[list.field.index()];
                let v = &fr.nodes[var.index()];
                if !self.loop_replaces(*var, body) {
                    let b = self.block(body, fr, ret);
                    let read = self.with_list(list, fr, &View::All);
                    return quote!({
                        let items = #read;
                        for &#v in items.iter() {
                            #b
                        }
                    });
                }
                // Elements may replace themselves: an open list (see
                // `OpenList`), written back when the loop ends or leaves.
                self.fwd_event(Event::Mutates);
                let depth = fr.open.borrow().len();
                let open = format_ident!("open_{depth}");
                let owner = format_ident!("owner_{depth}");
                let parent = self.path(&list.parent, fr);
                let read = self.list_view(list.field, fr, &View::All);
                fr.open.borrow_mut().push(OpenLoop {
                    var: *var,
                    field: list.field,
                    open: open.clone(),
                    owner: owner.clone(),
                });
                let b = self.block(body, fr, ret);
                fr.open.borrow_mut().pop();
                let next = if uses_var(&b, &v.to_string()) {
                    quote!(let Some(#v) = #open.advance())
                } else {
                    quote!(#open.advance().is_some())
                };
                quote!({
                    let #owner = #parent;
                    let mut #open = {
                        let p = #owner;
                        OpenList::new(#read)
                    };
                    while #next {
                        #b
                    }
                    if let Some(list) = #open.close() {
                        t[#owner].#field = list;
                    }
                })
            }
            StmtKind::ForArray { var, array, body } => {
                let v = &fr.locals[var.index()];
                let mutable = fr.mutable.contains(&var.index());
                let m = if mutable { quote!(mut) } else { quote!() };
                // The loop runs over the array as it was when it started. An
                // array held in a local that the body does not assign can be
                // iterated in place; anything else is copied first.
                let mut inside = Usage::default();
                usage(body, &mut inside);
                let in_place = local_root(array).is_some_and(|l| !inside.assigned.contains(&l));
                let elem_copy = matches!(&array.ty, DataType::Array(el) if is_copy(el));
                if let ExprKind::Builtin(f @ (Builtin::MapKeys | Builtin::MapValues), margs) =
                    &array.kind
                {
                    // The keys or values of a map, iterated where they are,
                    // not collected: from the map itself if the body cannot
                    // assign it, else from a copy (O(1)) as it was.
                    let map = &margs[0];
                    let src = if local_root(map).is_some_and(|l| !inside.assigned.contains(&l)) {
                        self.by_ref(map, fr).at(ATOM)
                    } else {
                        self.expr(map, fr).at(ATOM)
                    };
                    let method = if *f == Builtin::MapKeys {
                        quote!(keys)
                    } else {
                        quote!(values)
                    };
                    let items = if elem_copy {
                        quote!(#src.#method().copied())
                    } else if mutable {
                        quote!(#src.#method().cloned())
                    } else {
                        // Held by reference, as the elements of an array
                        // iterated in place.
                        fr.borrowed.borrow_mut().insert(var.index());
                        quote!(#src.#method())
                    };
                    let b = self.block(body, fr, ret);
                    return quote!(for #m #v in #items { #b });
                }
                if !in_place {
                    let a = self.expr(array, fr).ts;
                    let b = self.block(body, fr, ret);
                    quote!(for #m #v in #a { #b })
                } else if elem_copy {
                    let a = self.by_ref(array, fr).at(ATOM);
                    let b = self.block(body, fr, ret);
                    quote!(for #m #v in #a.iter().copied() { #b })
                } else if mutable {
                    let a = self.by_ref(array, fr).at(ATOM);
                    let b = self.block(body, fr, ret);
                    quote!(for mut #v in #a.iter().cloned() { #b })
                } else {
                    let a = self.by_ref(array, fr).at(ATOM);
                    fr.borrowed.borrow_mut().insert(var.index());
                    let b = self.block(body, fr, ret);
                    quote!(for #v in #a.iter() { #b })
                }
            }
            StmtKind::ForRange {
                var,
                start,
                end,
                body,
            } => {
                let a = self.expr(start, fr).at(AND);
                let z = self.expr(end, fr).at(AND);
                let v = &fr.locals[var.index()];
                let m = if fr.mutable.contains(&var.index()) {
                    quote!(mut)
                } else {
                    quote!()
                };
                let b = self.block(body, fr, ret);
                quote!(for #m #v in #a..#z { #b })
            }
            // `while c limit n { .. }` (§8.6): the limit once, the
            // condition before each iteration (not once the limit is
            // reached), `break` leaving this loop. A `break;` is never
            // inside a loop the generated code opens within the body (the
            // checker allows it only outside `for` bodies), so it ends
            // this loop. Nested loops shadow the counter names.
            StmtKind::While { cond, limit, body } => {
                self.while_loop(cond, limit, fr, || self.block(body, fr, ret))
            }
            StmtKind::Break => quote!(break;),
            StmtKind::Return(value) => match (ret, value) {
                (Ret::Pure { fallible }, Some(v)) => {
                    let v = self.expr(v, fr).ts;
                    if *fallible {
                        quote!(return Ok(#v);)
                    } else {
                        quote!(return #v;)
                    }
                }
                _ => {
                    let _ = ctx;
                    self.leave(fr, ret, None)
                }
            },
        }
    }

    /// `while cond limit n { body }` (§8.6) around the code `body` makes:
    /// the limit once, the condition before each iteration (not once the
    /// limit is reached). A `break;` is never inside a loop the generated
    /// code opens within the body (the checker allows it only outside
    /// `for` bodies), so it ends this loop. Nested loops shadow the
    /// counter names.
    pub(crate) fn while_loop(
        &self,
        cond: &Expr,
        limit: &Expr,
        fr: &Frame,
        body: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        let n = self.expr(limit, fr).ts;
        let c = self.expr(cond, fr).ts;
        // The condition is read before each iteration, after the body's
        // calls may have changed open lists: a pure function over nodes in
        // it reads them from the tree.
        let sync = if !fr.open.borrow().is_empty() && has_node_call(cond) {
            self.sync_all(fr)
        } else {
            TokenStream::new()
        };
        let body = body();
        quote!({
            let while_limit: i64 = #n;
            let mut while_iter: i64 = 0;
            while while_iter < while_limit {
                #sync
                if !(#c) {
                    break;
                }
                while_iter += 1;
                #body
            }
        })
    }

    fn set_slot(&self, slot: &ChildSlot, value: TokenStream, fr: &Frame) -> TokenStream {
        let field = &self.field[slot.field.index()];
        if slot.parent.steps.is_empty() {
            let p = self.path(&slot.parent, fr);
            if slot.parent.root == PathRoot::SelfNode {
                self.fwd_event(Event::Slot(slot.field));
            }
            // A slot of the receiver read once into a local: keep it equal
            // (the form `Gen::may_write_child_slots` accepts).
            let sync = (slot.parent.root == PathRoot::SelfNode)
                .then(|| self.hoisted_child(slot.field, true))
                .flatten()
                .map(|local| quote!(#local = v;));
            let v = if self.p.is_optional(slot.field) {
                quote!(Some(v))
            } else {
                quote!(v)
            };
            quote!({
                let v = #value;
                t[#p].#field = #v;
                #sync
            })
        } else {
            let p = self.path(&slot.parent, fr);
            let v = if self.p.is_optional(slot.field) {
                quote!(Some(v))
            } else {
                quote!(v)
            };
            quote!({
                let n = #p;
                let v = #value;
                t[n].#field = #v;
            })
        }
    }

    fn assign(&self, place: &Place, value: &Expr, s: &Stmt, fr: &Frame) -> TokenStream {
        let code = self.assign_value(place, value, s, fr);
        // A global that a parallel loop keeps private records that this
        // run (a worker's) assigned it: see `Gen::written_flag`.
        match (&place.root, place.projections.is_empty()) {
            (PlaceRoot::Global(g), true) => {
                match self.written_flag.get(g.index()).copied().flatten() {
                    Some(flag) => {
                        let flag = proc_macro2::Literal::usize_unsuffixed(flag);
                        quote!(#code cx.written[#flag] = true;)
                    }
                    None => code,
                }
            }
            _ => code,
        }
    }

    fn assign_value(&self, place: &Place, value: &Expr, s: &Stmt, fr: &Frame) -> TokenStream {
        if let Some(update) = self.update_array(place, value, fr) {
            return update;
        }
        if let (PlaceRoot::Local(l), []) = (&place.root, place.projections.as_slice()) {
            if let Some(update) = self.update_in_place(*l, value, fr) {
                return update;
            }
            // `x = f(.., x, ..)`: the old value is dead once `f`'s
            // arguments are computed, so it moves into them.
            if let Some(read) = crate::moves::self_assign_read(*l, value) {
                fr.moves.borrow_mut().insert(read);
            }
        }
        let v = self.expr(value, fr).ts;
        let mut pre = TokenStream::new();
        let (mut target, mut ty) = match &place.root {
            PlaceRoot::Local(l) => {
                let n = &fr.locals[l.index()];
                (quote!(#n), fr.types[l.index()].clone())
            }
            PlaceRoot::Global(g) => {
                let n = &self.global[g.index()];
                (quote!(cx.globals.#n), self.p.globals[g.index()].ty.clone())
            }
            PlaceRoot::Field(p, f) => {
                let name = &self.field[f.index()];
                let ty = match &self.p.fields[f.index()].kind {
                    FieldKind::Data(d) => d.clone(),
                    _ => DataType::Int,
                };
                let path = self.path(p, fr);
                if self.self_node.get() && is_self(p) {
                    (quote!(this_node.#name), ty)
                } else if p.steps.is_empty() {
                    let node = self.node_for_data_write(*f, path);
                    (quote!(#node.#name), ty)
                } else {
                    pre.extend(quote!(let n = #path;));
                    let node = self.node_for_data_write(*f, quote!(n));
                    (quote!(#node.#name), ty)
                }
            }
        };
        if pre.is_empty() && place.projections.is_empty() {
            if let PlaceRoot::Field(p, f) = &place.root {
                if p.root == PathRoot::SelfNode && p.steps.is_empty() {
                    self.fwd_event(Event::Assigns(self.field[f.index()].to_string()));
                }
            }
            return quote!(#target = #v;);
        }
        // Members of a record held directly in a local, global or field of
        // `self`: the place cannot fail, so nothing needs ordering.
        if pre.is_empty()
            && place
                .projections
                .iter()
                .all(|pr| matches!(pr, Projection::Member(_)))
        {
            for pr in &place.projections {
                let (Projection::Member(m), DataType::Record(r)) = (pr, ty.clone()) else {
                    break;
                };
                let name = &self.rec_fields[r.index()][*m as usize];
                target = quote!(#target.#name);
                ty = self.p.records[r.index()].fields[*m as usize].ty.clone();
            }
            return quote!(#target = #v;);
        }
        // The value first, then the indices, then the place.
        let mut body = quote!(let v = #v;);
        let at = self.at(&fr.context, s.span);
        let mut indexed = Vec::new();
        let mut key = None;
        for (i, pr) in place.projections.iter().enumerate() {
            match pr {
                Projection::Index(e) => {
                    let iv = self.expr(e, fr).ts;
                    let name = format_ident!("i{i}");
                    body.extend(quote!(let #name = #iv;));
                    indexed.push(name);
                }
                Projection::Key(e) => {
                    let kv = self.expr(e, fr).ts;
                    let name = format_ident!("k{i}");
                    body.extend(quote!(let #name = #kv;));
                    key = Some(name);
                }
                Projection::Member(_) => {}
            }
        }
        body.extend(pre);
        let mut indexed = indexed.into_iter();
        let mut deref = false;
        for pr in &place.projections {
            match pr {
                Projection::Member(m) => {
                    let DataType::Record(r) = ty.clone() else {
                        break;
                    };
                    let name = &self.rec_fields[r.index()][*m as usize];
                    target = if deref {
                        quote!((#target).#name)
                    } else {
                        quote!(#target.#name)
                    };
                    deref = false;
                    ty = self.p.records[r.index()].fields[*m as usize].ty.clone();
                }
                Projection::Index(_) => {
                    let name = indexed.next();
                    if matches!(place.root, PlaceRoot::Field(..)) {
                        // `&mut t[..]`: the tree borrowed.
                        self.fwd_event(Event::Mutates);
                    }
                    target = quote!(*checked_index_mut(&mut #target, #name, #at)?);
                    deref = true;
                    if let DataType::Array(el) = ty.clone() {
                        ty = *el;
                    }
                }
                // Always the last projection (the checker made sure).
                Projection::Key(_) => {
                    let target = if deref { quote!((#target)) } else { target };
                    return quote!({ #body #target.insert(#key, v); });
                }
            }
        }
        quote!({ #body #target = v; })
    }

    /// `x = insert(x, k, v)` and `x = remove(x, k)` on a local `x`: the
    /// map is updated where it stands (copy on write where it is shared,
    /// so other values holding it are unchanged). The key and value are
    /// computed first; reading `x` cannot fail, so the order of failures
    /// is the written one.
    fn update_in_place(&self, target: LocalId, value: &Expr, fr: &Frame) -> Option<TokenStream> {
        let ExprKind::Builtin(f @ (Builtin::MapInsert | Builtin::MapRemove), args) = &value.kind
        else {
            return None;
        };
        if !matches!(args[0].kind, ExprKind::Local(l) if l == target) {
            return None;
        }
        let name = &fr.locals[target.index()];
        let k = self.expr(&args[1], fr).ts;
        Some(if *f == Builtin::MapInsert {
            let v = self.expr(&args[2], fr).ts;
            quote!({
                let k = #k;
                let v = #v;
                #name.insert(k, v);
            })
        } else {
            quote!({
                let k = #k;
                map_remove(&mut #name, &k);
            })
        })
    }

    /// `x = append(x, e);` (and `concat`, `slice`, `insert_at`,
    /// `remove_at` of `x` itself, LANGUAGE §8.5) where `x` is a local, a
    /// global or a data field: the `Vec` is changed where it stands
    /// (`x.push(e)`), so appending is amortized O(1). Evaluated as the
    /// interpreter does: the path to a field `x`, then the other
    /// arguments, then the operation.
    fn update_array(&self, place: &Place, value: &Expr, fr: &Frame) -> Option<TokenStream> {
        let ExprKind::Builtin(f, args) = &value.kind else {
            return None;
        };
        if !f.updates_array() || !place.projections.is_empty() {
            return None;
        }
        let (first, rest) = args.split_first()?;
        let mut pre = TokenStream::new();
        let target = match (&place.root, &first.kind) {
            (PlaceRoot::Local(l), ExprKind::Local(m)) if l == m => {
                let n = &fr.locals[l.index()];
                quote!(#n)
            }
            (PlaceRoot::Global(g), ExprKind::Global(h)) if g == h => {
                let n = &self.global[g.index()];
                quote!(cx.globals.#n)
            }
            (PlaceRoot::Field(p, f), ExprKind::Field(q, g)) if f == g && p.same_steps(q) => {
                let name = &self.field[f.index()];
                let path = self.path(q, fr);
                pre.extend(quote!(let n = #path;));
                quote!(t[n].#name)
            }
            _ => return None,
        };
        let at = self.at(&fr.context, value.span);
        let vals: Vec<TokenStream> = rest.iter().map(|a| self.expr(a, fr).ts).collect();
        // `&mut t[n].x`: the tree borrowed.
        let borrows_tree = || {
            if matches!(place.root, PlaceRoot::Field(..)) {
                self.fwd_event(Event::Mutates);
            }
        };
        let op = match (f, vals.as_slice()) {
            (Builtin::ArrayAppend, [e]) => quote!(let v = #e; #target.push(v);),
            (Builtin::ArrayConcat, [b]) => {
                let ty = self.data_type(&value.ty);
                quote!(let ys: #ty = #b; #target.extend(ys);)
            }
            (Builtin::ArraySlice, [i, j]) => {
                borrows_tree();
                quote!(let k = #i; let v = #j; array_slice_in_place(&mut #target, k, v, #at)?;)
            }
            (Builtin::ArrayInsertAt, [i, e]) => {
                borrows_tree();
                quote!(let k = #i; let v = #e; array_insert_at(&mut #target, k, v, #at)?;)
            }
            (Builtin::ArrayRemoveAt, [i]) => {
                borrows_tree();
                quote!(let k = #i; array_remove_at(&mut #target, k, #at)?;)
            }
            _ => return None,
        };
        Some(quote!({ #pre #op }))
    }

    /// Builds a `new` subtree: its values first, then its nodes.
    pub fn build(&self, t: &NewTree, fr: &Frame) -> TokenStream {
        let mut pre = TokenStream::new();
        let mut args = Vec::new();
        for (i, nf) in t.fields.iter().enumerate() {
            let (ts, simple) = self.new_field(nf, fr);
            // A full optional child (§8.7) is `Some` of the node.
            let optional = !matches!(nf, NewField::Empty)
                && self.p.types[t.ty.index()]
                    .fields
                    .get(i)
                    .is_some_and(|f| self.p.is_optional(*f));
            if simple {
                args.push(if optional { quote!(Some(#ts)) } else { ts });
            } else {
                let name = format_ident!("f{i}");
                pre.extend(quote!(let #name = #ts;));
                args.push(if optional {
                    quote!(Some(#name))
                } else {
                    quote!(#name)
                });
            }
        }
        let push = self.push_node(t.ty, quote!(t), args);
        if pre.is_empty() {
            push
        } else {
            quote!({
                #pre
                #push
            })
        }
    }

    fn new_field(&self, nf: &NewField, fr: &Frame) -> (TokenStream, bool) {
        match nf {
            NewField::Data(e) => (self.expr(e, fr).ts, Self::simple(e)),
            NewField::New(t) => (self.build(t, fr), false),
            NewField::Move(p) => {
                let simple = p.steps.is_empty();
                (self.path(p, fr), simple)
            }
            NewField::List(items) => {
                let items = vec_literal(items.iter().map(|i| self.new_field(i, fr).0));
                (quote!(Arc::from(#items)), false)
            }
            NewField::MoveList(slot) => (self.with_list(slot, fr, &View::All), false),
            NewField::Copy(p) => (self.copy(p, fr), false),
            NewField::Empty => (quote!(None), true),
        }
    }
}

impl Gen<'_> {
    /// Whether a call on loop variable `var` in `body` may replace the
    /// element (then the loop keeps an open list).
    pub fn loop_replaces(&self, var: NodeVarId, body: &[Stmt]) -> bool {
        visit::any_stmt(body, &|s| match &s.kind {
            StmtKind::Call {
                receiver, method, ..
            } => {
                receiver.root == PathRoot::Var(var)
                    && receiver.steps.is_empty()
                    && self.replaces_on(*method, receiver.ty)
            }
            _ => false,
        })
    }

    /// Whether a call of `method` on a node of static type `ty` may
    /// replace it: the body the call dispatches to for some concrete
    /// subtype of `ty` may. Narrower than the method's own flag, which
    /// covers every type of its hierarchy: `for f in self.funcs {
    /// f.desugar() }` keeps a plain loop when only statements replace
    /// themselves in `desugar` (and such a loop may run in parallel).
    pub fn replaces_on(&self, method: treefuse_sema::MethodId, ty: treefuse_sema::TypeId) -> bool {
        self.rw.method_replaces[method.index()]
            && (0..self.p.types.len() as u32)
                .map(treefuse_sema::TypeId)
                .filter(|&t| !self.p.types[t.index()].is_abstract && self.p.is_subtype(t, ty))
                .filter_map(|t| self.p.dispatch(t, method))
                .any(|b| self.rw.body_replaces[b.index()])
    }
}

/// What a list read wants (see [`Gen::list_view`]).
pub(crate) enum View {
    /// `len(L)`.
    Len,
    /// Element `k` (a local), with where an index out of range is raised.
    Elem(TokenStream),
    /// The whole list, as an `Arc<[Id]>`.
    All,
}

/// Whether a path is the receiver itself (`self`, no steps).
fn is_self(p: &NodePath) -> bool {
    p.root == PathRoot::SelfNode && p.steps.is_empty()
}

/// The local at the root of `e` when `e` is a local or a member of one.
fn local_root(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Member(x, _) => local_root(x),
        _ => None,
    }
}

/// Whether running `s` leaves every node path reaching the node it
/// reached before: it writes no child slot and calls no traversal (data
/// fields, locals and globals may change; expressions never touch the
/// tree's shape).
pub(crate) fn keeps_facts(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Let { .. } | StmtKind::Alias { .. } | StmtKind::Assign { .. } => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch.iter().chain(else_branch).all(keeps_facts),
        StmtKind::ForArray { body, .. }
        | StmtKind::ForRange { body, .. }
        | StmtKind::While { body, .. } => body.iter().all(keeps_facts),
        StmtKind::Break => true,
        _ => false,
    }
}

impl Gen<'_> {
    /// A call of a pure function that reads tree nodes (LANGUAGE §8.8):
    /// the tree, then the arguments in written order (node ids, values;
    /// Rust evaluates them left to right, as the interpreter does).
    fn node_call(&self, f: PureFnId, args: &[PureArg], fr: &Frame) -> E {
        let lent = &self.pure_lent[f.index()];
        let data: Vec<&Expr> = args
            .iter()
            .filter_map(|a| match a {
                PureArg::Data(e) => Some(e),
                PureArg::Node(_) => None,
            })
            .collect();
        self.keep_lent_refs(&data, lent, fr);
        let mut j = 0;
        let vals: Vec<TokenStream> = args
            .iter()
            .map(|a| match a {
                PureArg::Node(p) => self.path(p, fr),
                PureArg::Data(e) => {
                    let lent_here = Self::is_lent(lent, j);
                    j += 1;
                    if lent_here {
                        self.as_ref_arg(e, fr)
                    } else {
                        self.expr(e, fr).ts
                    }
                }
            })
            .collect();
        let name = &self.pure[f.index()];
        if self.pure_fallible[f.index()] {
            E::atom(quote!(#name(t #(, #vals)*)?))
        } else {
            E::atom(quote!(#name(t #(, #vals)*)))
        }
    }

    /// [`Self::keep_lent_locals`] for the data arguments of a node call.
    fn keep_lent_refs(&self, args: &[&Expr], lent: &[bool], fr: &Frame) {
        let borrowed: std::collections::HashSet<LocalId> = args
            .iter()
            .enumerate()
            .filter(|(i, _)| Self::is_lent(lent, *i))
            .filter_map(|(_, a)| local_root(a))
            .collect();
        if borrowed.is_empty() {
            return;
        }
        for a in args {
            visit::walk_expr(a, &mut |x| {
                if matches!(x.kind, ExprKind::Local(l) if borrowed.contains(&l)) {
                    fr.moves.borrow_mut().remove(&(x as *const Expr));
                }
            });
        }
    }

    /// Whether the code of `s` must first write the open loops' lists into
    /// the tree: its own expressions (a compound statement's head, not its
    /// body) call a pure function that reads nodes, inside an open loop.
    fn needs_sync(&self, s: &Stmt, fr: &Frame) -> bool {
        if fr.open.borrow().is_empty() {
            return false;
        }
        let mut found = false;
        let mut note = |e: &Expr| found |= matches!(e.kind, ExprKind::NodeCall(..));
        match &s.kind {
            StmtKind::If { cond, .. } => visit::walk_expr(cond, &mut note),
            StmtKind::ForChildren { list, .. } => visit::walk_path(&list.parent, &mut note),
            StmtKind::ForArray { array, .. } => visit::walk_expr(array, &mut note),
            StmtKind::ForRange { start, end, .. } => {
                visit::walk_expr(start, &mut note);
                visit::walk_expr(end, &mut note);
            }
            // (The condition syncs before each iteration itself.)
            StmtKind::While { limit, .. } => visit::walk_expr(limit, &mut note),
            _ => visit::walk_stmt_exprs(std::slice::from_ref(s), &mut note),
        }
        found
    }
}

/// Whether `e` calls a pure function over nodes.
fn has_node_call(e: &Expr) -> bool {
    let mut found = false;
    visit::walk_expr(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::NodeCall(..))
    });
    found
}

/// The text of `e` if it is a string constant.
fn str_const(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Const(Value::Str(s)) => Some(s),
        _ => None,
    }
}

/// Whether `e` is a call of `min` or `max`.
fn is_min_max(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Builtin(
            Builtin::MinInt | Builtin::MinFloat | Builtin::MaxInt | Builtin::MaxFloat,
            _
        )
    )
}
