//! Expressions, node paths and statements.

use crate::gen::*;
use crate::names::ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use treefuse_sema::ops::{BinaryOp, Builtin, UnaryOp};
use treefuse_sema::*;
use treefuse_syntax::Span;

impl Gen<'_> {
    /// The node a path reaches, as an expression of the hierarchy's id type.
    pub fn path(&self, p: &NodePath, fr: &Frame) -> TokenStream {
        let mut cur = match p.root {
            PathRoot::SelfNode => quote!(this),
            PathRoot::Var(v) => {
                let n = &fr.nodes[v.index()];
                quote!(#n)
            }
        };
        for step in &p.steps {
            cur = match step {
                PathStep::Child(f) => {
                    let name = &self.field[f.index()];
                    quote!(t[#cur].#name)
                }
                PathStep::Cast(ty) => {
                    let at = self.at(&fr.context, p.span);
                    let f = &self.cast_fn[ty.index()];
                    quote!(#f(t, #cur, #at)?)
                }
                PathStep::Elem(..) => crate::unsupported_tokens(),
            };
        }
        cur
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
            ExprKind::Field(p, f) => {
                let path = self.path(p, fr);
                let name = &self.field[f.index()];
                Some(quote!(t[#path].#name))
            }
            ExprKind::Member(x, i) => {
                let inner = self.place(x, fr)?;
                let DataType::Record(r) = &x.ty else {
                    return None;
                };
                let name = &self.rec_fields[r.index()][*i as usize];
                Some(quote!(#inner.#name))
            }
            _ => None,
        }
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

    /// An owned value of `e`.
    pub fn expr(&self, e: &Expr, fr: &Frame) -> E {
        if let Some(p) = self.place(e, fr) {
            return if is_copy(&e.ty) {
                E::atom(p)
            } else if self.is_lent_local(e, fr) && matches!(e.ty, DataType::Array(_)) {
                // A lent array parameter (`&[T]`): copy it out.
                E::atom(quote!(#p.to_vec()))
            } else {
                E::atom(quote!(#p.clone()))
            };
        }
        let ctx = &fr.context;
        match &e.kind {
            ExprKind::Const(v) => self.constant(v, &e.ty),
            ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Field(..) => unreachable!(),
            ExprKind::ListLen(_) | ExprKind::InList => E::atom(crate::unsupported_tokens()),
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
                    _ => E::atom(quote!(#name(#(#args),*)?)),
                }
            }
            ExprKind::Array(items) => {
                let items = items.iter().map(|a| self.expr(a, fr).ts);
                E::atom(quote!(vec![#(#items),*]))
            }
            ExprKind::Record(r, items) => {
                let name = &self.rec[r.index()];
                let items = items.iter().map(|a| self.expr(a, fr).ts);
                E::atom(quote!(#name::new(#(#items),*)))
            }
            ExprKind::Is(p, ty) => {
                let path = self.path(p, fr);
                match self.kind_pattern(*ty) {
                    Some(pat) => E::atom(quote!(matches!(t[#path].kind, #pat))),
                    None if p.has_cast() => E::atom(quote!({
                        let _ = #path;
                        false
                    })),
                    None => E::atom(quote!(false)),
                }
            }
            ExprKind::If(c, a, b) => {
                let c = self.expr(c, fr).ts;
                let a = self.expr(a, fr).ts;
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
            quote!(&*#s)
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
                let x = self.as_ref_arg(a, fr);
                let y = self.as_ref_arg(b, fr);
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
            Builtin::MapInsert => {
                let m = self.by_ref(&args[0], fr).at(ATOM);
                let (k, v) = (arg(1).ts, arg(2).ts);
                E::atom(quote!(#m.update(#k, #v)))
            }
            Builtin::MapRemove => {
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
        let ctx = &fr.context;
        match &s.kind {
            StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. } => crate::unsupported_tokens(),
            StmtKind::Call {
                receiver,
                method,
                args,
            } => {
                let f = &self.method_fn[method.index()];
                let mut pre = TokenStream::new();
                let recv = match (receiver.root, receiver.steps.is_empty()) {
                    (_, true) => self.path(receiver, fr),
                    _ => {
                        let r = self.path(receiver, fr);
                        pre.extend(quote!(let n = #r;));
                        quote!(n)
                    }
                };
                let mut vals = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    let v = self.expr(a, fr).ts;
                    if Self::simple(a) {
                        vals.push(v);
                    } else {
                        let name = format_ident!("arg{i}");
                        pre.extend(quote!(let #name = #v;));
                        vals.push(quote!(#name));
                    }
                }
                let call = quote!(#f(t, cx, #recv #(, #vals)*)?;);
                if pre.is_empty() {
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
                let a = self.block(then_branch, fr, ret);
                if else_branch.is_empty() {
                    quote!(if #c { #a })
                } else if else_branch.len() == 1
                    && matches!(else_branch[0].kind, StmtKind::If { .. })
                {
                    let b = self.stmt(&else_branch[0], fr, ret, false);
                    quote!(if #c { #a } else #b)
                } else {
                    let b = self.block(else_branch, fr, ret);
                    quote!(if #c { #a } else { #b })
                }
            }
            StmtKind::ForChildren { var, list, body } => {
                let parent = self.path(&list.parent, fr);
                let field = &self.field[list.field.index()];
                let v = &fr.nodes[var.index()];
                let b = self.block(body, fr, ret);
                quote!({
                    let items = t[#parent].#field.clone();
                    for &#v in items.iter() {
                        #b
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
            StmtKind::Return(value) => match (ret, value) {
                (Ret::Pure, Some(v)) => {
                    let v = self.expr(v, fr).ts;
                    quote!(return Ok(#v);)
                }
                (Ret::Traversal, _) | (Ret::Pure, None) => quote!(return Ok(());),
                (Ret::Fused { label, flag }, _) => {
                    let _ = ctx;
                    match flag {
                        Some(f) => quote!(#f = false; break #label;),
                        None => quote!(break #label;),
                    }
                }
            },
        }
    }

    fn set_slot(&self, slot: &ChildSlot, value: TokenStream, fr: &Frame) -> TokenStream {
        let field = &self.field[slot.field.index()];
        if slot.parent.steps.is_empty() {
            let p = self.path(&slot.parent, fr);
            quote!({
                let v = #value;
                t[#p].#field = v;
            })
        } else {
            let p = self.path(&slot.parent, fr);
            quote!({
                let n = #p;
                let v = #value;
                t[n].#field = v;
            })
        }
    }

    fn assign(&self, place: &Place, value: &Expr, s: &Stmt, fr: &Frame) -> TokenStream {
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
                if p.steps.is_empty() {
                    (quote!(t[#path].#name), ty)
                } else {
                    pre.extend(quote!(let n = #path;));
                    (quote!(t[n].#name), ty)
                }
            }
        };
        if pre.is_empty() && place.projections.is_empty() {
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

    /// Builds a `new` subtree: its values first, then its nodes.
    pub fn build(&self, t: &NewTree, fr: &Frame) -> TokenStream {
        let h = self.hier(t.ty);
        let node = &h.node;
        let push = &h.push;
        let ctor = &self.type_ctor[t.ty.index()];
        let mut pre = TokenStream::new();
        let mut args = Vec::new();
        for (i, nf) in t.fields.iter().enumerate() {
            let (ts, simple) = self.new_field(nf, fr);
            if simple {
                args.push(ts);
            } else {
                let name = format_ident!("f{i}");
                pre.extend(quote!(let #name = #ts;));
                args.push(quote!(#name));
            }
        }
        if pre.is_empty() {
            quote!(t.#push(#node::#ctor(#(#args),*)))
        } else {
            quote!({
                #pre
                t.#push(#node::#ctor(#(#args),*))
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
                let items = items.iter().map(|i| self.new_field(i, fr).0);
                (quote!(Arc::from(vec![#(#items),*])), false)
            }
            NewField::MoveList(slot) => {
                let p = self.path(&slot.parent, fr);
                let f = &self.field[slot.field.index()];
                (quote!(t[#p].#f.clone()), false)
            }
            NewField::Copy(_) => (crate::unsupported_tokens(), false),
        }
    }
}

/// The local at the root of `e` when `e` is a local or a member of one.
fn local_root(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Member(x, _) => local_root(x),
        _ => None,
    }
}
