//! Data expressions: literals, operators, built-ins, pure function calls,
//! record and array values.

use super::*;

impl BodyChecker<'_> {
    /// Checks a data expression. `expected` only guides the typing of `[]`.
    pub(crate) fn expr(&mut self, e: &ast::Expr, expected: Option<&DataType>) -> Option<Expr> {
        if let ast::ExprKind::Map(entries) = &e.kind {
            if entries.is_empty() {
                if let Some(t @ DataType::Map(..)) = expected {
                    return Some(Expr {
                        kind: ExprKind::Builtin(Builtin::MapFrom, Vec::new()),
                        ty: t.clone(),
                        span: e.span,
                    });
                }
            }
        }
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
            | ast::ExprKind::As(..) => self.tree_or_data(e, expected),
            ast::ExprKind::Index(base, _) if self.try_resolve_list(base) == Some(true) => {
                self.tree_or_data(e, expected)
            }
            _ => self.data_expr(e, expected),
        }
    }

    /// A path expression that must turn out to be data.
    fn tree_or_data(&mut self, e: &ast::Expr, expected: Option<&DataType>) -> Option<Expr> {
        {
            match self.resolve_expecting(e, expected)? {
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
            }
        }
    }

    pub(super) fn data_expr(&mut self, e: &ast::Expr, expected: Option<&DataType>) -> Option<Expr> {
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
                if let DataType::Map(key_ty, value_ty) = b.ty.clone() {
                    let k = self.expr(index, Some(&key_ty))?;
                    if !self.expect_type(&k, &key_ty) {
                        return None;
                    }
                    return mk(ExprKind::Builtin(Builtin::MapIndex, vec![b, k]), *value_ty);
                }
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
                    (ast::UnaryOp::Not, DataType::Int) => (UnaryOp::NotInt, DataType::Int),
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
            ast::ExprKind::New(..) if self.in_pure_fn() => {
                self.pure_fn_node_build(span, "create");
                None
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
                    if ty.name == "none" && !self.names.types.contains_key("none") {
                        self.is_none_error(inner.span);
                        return None;
                    }
                    self.error("is-type", inner.span, "`is` tests the type of a tree node");
                    return None;
                };
                // `PATH is none` tests an optional child (§8.7); `none` is
                // no keyword, so a tree type of that name still works on
                // other paths.
                if ty.name == "none" {
                    if self.program.ends_in_optional(&p).is_some() {
                        return mk(ExprKind::IsNone(p), DataType::Bool);
                    }
                    if !self.names.types.contains_key("none") {
                        self.is_none_error(inner.span);
                        return None;
                    }
                }
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
            ast::ExprKind::Spread(_) => {
                self.error(
                    "spread-position",
                    span,
                    "`..PATH` spreads a list of children and may only stand in a list value of children, such as `self = [new Nop {}, ..self.stmts];`",
                );
                None
            }
            ast::ExprKind::Variant(name, variant) => {
                let Some(&id) = self.names.enums.get(&name.name) else {
                    self.error(
                        "unknown-type",
                        name.span,
                        format!("unknown enum `{}`", name.name),
                    );
                    return None;
                };
                let def = &self.program.enums[id.index()];
                let Some(i) = def.variants.iter().position(|v| *v == variant.name) else {
                    let known = def.variants.join("`, `");
                    let msg = format!("the enum `{}` has no variant `{}`", name.name, variant.name);
                    self.report(
                        Diagnostic::error("unknown-variant", variant.span, msg)
                            .with_note(format!("its variants are `{known}`")),
                    );
                    return None;
                };
                mk(ExprKind::Const(Value::Enum(i as u32)), DataType::Enum(id))
            }
            ast::ExprKind::Match(x, arms) => self.match_expr(x, arms, span, expected),
            ast::ExprKind::Map(entries) => self.map_value(entries, span, expected),
            ast::ExprKind::Paren(_)
            | ast::ExprKind::SelfRef
            | ast::ExprKind::Name(_)
            | ast::ExprKind::Field(..)
            | ast::ExprKind::As(..) => self.expr(e, expected),
        }
    }

    /// `{k1: v1, ...}`; the empty map is typed by [`Self::expr`] from the
    /// context.
    fn map_value(
        &mut self,
        entries: &[(ast::Expr, ast::Expr)],
        span: Span,
        expected: Option<&DataType>,
    ) -> Option<Expr> {
        let (key_expected, value_expected) = match expected {
            Some(DataType::Map(k, v)) => (Some((**k).clone()), Some((**v).clone())),
            _ => (None, None),
        };
        if entries.is_empty() {
            self.report(
                Diagnostic::error(
                    "map-type",
                    span,
                    "cannot infer the key and value types of `{}`",
                )
                .with_note("annotate the local, e.g. `let m: {str: i64} = {};`"),
            );
            return None;
        }
        let mut args: Vec<Expr> = Vec::new();
        let mut constant_keys: Vec<(Value, Span)> = Vec::new();
        for (k, v) in entries {
            let key = self.expr(k, key_expected.as_ref().or(args.first().map(|a| &a.ty)))?;
            let value = self.expr(v, value_expected.as_ref().or(args.get(1).map(|a| &a.ty)))?;
            if let [first_key, first_value, ..] = args.as_slice() {
                let (kt, vt) = (first_key.ty.clone(), first_value.ty.clone());
                if !self.expect_type(&key, &kt) || !self.expect_type(&value, &vt) {
                    return None;
                }
            } else if !matches!(
                key.ty,
                DataType::Int | DataType::Str | DataType::Bool | DataType::Enum(_)
            ) {
                self.report(Diagnostic::error(
                    "map-key-type",
                    key.span,
                    format!(
                        "a map key must be an `i64`, a `str`, a `bool` or an enum, not `{}`",
                        self.type_name(&key.ty)
                    ),
                ));
                return None;
            }
            if let ExprKind::Const(c) = &key.kind {
                if let Some((_, first)) = constant_keys.iter().find(|(v, _)| v == c) {
                    self.report(
                        Diagnostic::error(
                            "map-duplicate-key",
                            key.span,
                            "this key is already given in this map value",
                        )
                        .with_label(*first, "first given here"),
                    );
                    return None;
                }
                constant_keys.push((c.clone(), key.span));
            }
            args.push(key);
            args.push(value);
        }
        let ty = DataType::Map(Box::new(args[0].ty.clone()), Box::new(args[1].ty.clone()));
        Some(Expr {
            kind: ExprKind::Builtin(Builtin::MapFrom, args),
            ty,
            span,
        })
    }

    pub(super) fn binary_expr(
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
                A::BitAnd => (BinaryOp::BitAndInt, DataType::Int),
                A::BitOr => (BinaryOp::BitOrInt, DataType::Int),
                A::BitXor => (BinaryOp::BitXorInt, DataType::Int),
                A::Shl => (BinaryOp::ShlInt, DataType::Int),
                A::Shr => (BinaryOp::ShrInt, DataType::Int),
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
            (_, DataType::Str, DataType::Str) => match op {
                A::Add => (BinaryOp::ConcatStr, DataType::Str),
                A::Lt => (BinaryOp::LtStr, DataType::Bool),
                A::Le => (BinaryOp::LeStr, DataType::Bool),
                A::Gt => (BinaryOp::GtStr, DataType::Bool),
                A::Ge => (BinaryOp::GeStr, DataType::Bool),
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

    pub(super) fn call_expr(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        if let Some(&f) = self.names.pure_fns.get(&name.name) {
            if !self.program.pure_fns[f.index()].node_params.is_empty() {
                return self.node_call(f, name, args, span);
            }
            let params = self.program.pure_fns[f.index()].params.clone();
            let ret = self.program.pure_fns[f.index()].ret.clone();
            let args = self.call_args(&name.name, args, &params, span)?;
            return Some(Expr {
                kind: ExprKind::Call(f, args),
                ty: ret,
                span,
            });
        }
        if let Some(r) = self.rewrite_builtin(name, args, span) {
            return r;
        }
        let mut checked: Vec<Expr> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            // Map built-ins type keys, values and defaults from the map,
            // so that `insert(m, k, [])` and `get(m, k, {})` check.
            let expected = match (name.name.as_str(), checked.first().map(|m| &m.ty), i) {
                ("get" | "contains" | "insert" | "remove", Some(DataType::Map(k, _)), 1) => {
                    Some((**k).clone())
                }
                ("get" | "insert", Some(DataType::Map(_, v)), 2) => Some((**v).clone()),
                // Array built-ins type elements from the array, so that
                // `append(xs, [])` and `concat(xs, [])` check.
                ("append", Some(DataType::Array(t)), 1)
                | ("insert_at", Some(DataType::Array(t)), 2) => Some((**t).clone()),
                ("concat", Some(a @ DataType::Array(_)), 1) => Some(a.clone()),
                ("slice" | "insert_at" | "remove_at", Some(DataType::Array(_)), 1 | 2) => {
                    Some(DataType::Int)
                }
                _ => None,
            };
            checked.push(self.expr(a, expected.as_ref())?);
        }
        if let (
            "to_str",
            [Expr {
                ty: DataType::Enum(e),
                ..
            }],
        ) = (name.name.as_str(), checked.as_slice())
        {
            // `to_str(e)` on an enum is the match from variants to names.
            let def = &self.program.enums[e.index()];
            let arms = def
                .variants
                .iter()
                .enumerate()
                .map(|(i, v)| MatchArm {
                    patterns: vec![Value::Enum(i as u32)],
                    body: Expr {
                        kind: ExprKind::Const(Value::Str(v.as_str().into())),
                        ty: DataType::Str,
                        span,
                    },
                })
                .collect();
            let x = checked.remove(0);
            return Some(Expr {
                kind: ExprKind::Match(Box::new(x), arms),
                ty: DataType::Str,
                span,
            });
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
            ("to_str", [Int]) => Some((Builtin::ToStrInt, Str)),
            ("to_str", [Bool]) => Some((Builtin::ToStrBool, Str)),
            ("to_str", [Float]) => Some((Builtin::ToStrFloat, Str)),
            ("substr", [Str, Int, Int]) => Some((Builtin::Substr, Str)),
            ("len", [Map(..)]) => Some((Builtin::LenMap, Int)),
            ("get", [Map(k, v), k2, v2]) if **k == **k2 && **v == **v2 => {
                Some((Builtin::MapGetOr, (**v).clone()))
            }
            ("contains", [Map(k, _), k2]) if **k == **k2 => Some((Builtin::MapContains, Bool)),
            ("insert", [m @ Map(k, v), k2, v2]) if **k == **k2 && **v == **v2 => {
                Some((Builtin::MapInsert, (*m).clone()))
            }
            ("remove", [m @ Map(k, _), k2]) if **k == **k2 => {
                Some((Builtin::MapRemove, (*m).clone()))
            }
            ("keys", [Map(k, _)]) => Some((Builtin::MapKeys, Array(k.clone()))),
            ("values", [Map(_, v)]) => Some((Builtin::MapValues, Array(v.clone()))),
            ("append", [a @ Array(t), e]) if **t == **e => {
                Some((Builtin::ArrayAppend, (*a).clone()))
            }
            ("concat", [a @ Array(_), b]) if *a == *b => Some((Builtin::ArrayConcat, (*a).clone())),
            ("slice", [a @ Array(_), Int, Int]) => Some((Builtin::ArraySlice, (*a).clone())),
            ("insert_at", [a @ Array(t), Int, e]) if **t == **e => {
                Some((Builtin::ArrayInsertAt, (*a).clone()))
            }
            ("remove_at", [a @ Array(_), Int]) => Some((Builtin::ArrayRemoveAt, (*a).clone())),
            _ => None,
        };
        match resolved {
            Some((b, ty)) => Some(Expr {
                kind: ExprKind::Builtin(b, checked),
                ty,
                span,
            }),
            None => {
                if crate::BUILTIN_FUNCTIONS.contains(&name.name.as_str()) {
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

impl BodyChecker<'_> {
    /// A call of a pure function that takes tree nodes (LANGUAGE §8.8):
    /// each node parameter is given a tree path whose static type is a
    /// subtype of the parameter's, each data parameter a value.
    fn node_call(
        &mut self,
        f: PureFnId,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let pf = &self.program.pure_fns[f.index()];
        let (arity, ret) = (pf.arity(), pf.ret.clone());
        if args.len() != arity {
            self.error(
                "call-args",
                span,
                format!(
                    "`{}` takes {arity} argument(s) but {} were given",
                    name.name,
                    args.len()
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        let mut data = 0;
        for (i, a) in args.iter().enumerate() {
            let pf = &self.program.pure_fns[f.index()];
            match pf.node_param_at(i) {
                Some(k) => {
                    let want = pf.node_params[k].1;
                    match self.node_arg(a, want) {
                        Some(p) => out.push(PureArg::Node(p)),
                        None => ok = false,
                    }
                }
                None => {
                    let p = pf.params[data].clone();
                    data += 1;
                    match self.expr(a, Some(&p)) {
                        Some(e) if self.expect_type(&e, &p) => out.push(PureArg::Data(e)),
                        _ => ok = false,
                    }
                }
            }
        }
        ok.then_some(Expr {
            kind: ExprKind::NodeCall(f, out),
            ty: ret,
            span,
        })
    }

    /// The argument of a node parameter of type `want`: a tree path.
    fn node_arg(&mut self, a: &ast::Expr, want: TypeId) -> Option<NodePath> {
        if !self.denotes_tree(a) {
            // Check it for its own errors, then say what is expected.
            let e = self.expr(a, None)?;
            self.report(
                Diagnostic::error(
                    "type-mismatch",
                    a.span,
                    format!(
                        "expected a tree node of type `{}`, found a value of type `{}`",
                        self.program.type_name(want),
                        self.type_name(&e.ty)
                    ),
                )
                .with_note(
                    "pass a tree path such as `self.left`, a loop variable or a node parameter",
                ),
            );
            return None;
        }
        match self.resolve(a)? {
            Resolved::Node(p) => {
                if !self.program.is_subtype(p.ty, want) {
                    let mut d = Diagnostic::error(
                        "type-mismatch",
                        a.span,
                        format!(
                            "expected a tree node of type `{}`, found `{}`",
                            self.program.type_name(want),
                            self.program.type_name(p.ty)
                        ),
                    );
                    if self.program.is_subtype(want, p.ty) {
                        d = d.with_note(format!(
                            "cast it if it is one: `(PATH as {})`",
                            self.program.type_name(want)
                        ));
                    }
                    self.report(d);
                    return None;
                }
                Some(p)
            }
            Resolved::List(_) => {
                self.list_misuse(a.span);
                None
            }
            Resolved::Data(e) => {
                let msg = format!(
                    "expected a tree node of type `{}`, found a value of type `{}`",
                    self.program.type_name(want),
                    self.type_name(&e.ty)
                );
                self.error("type-mismatch", a.span, msg);
                None
            }
        }
    }

    /// `pure-fn-node-build`: a pure function would create, move or copy
    /// nodes (`what`).
    pub(super) fn pure_fn_node_build(&mut self, span: Span, what: &str) {
        self.report(
            Diagnostic::error(
                "pure-fn-node-build",
                span,
                format!(
                    "a pure function cannot {what} tree nodes; it only reads the nodes it is given"
                ),
            )
            .with_note("build, move or copy subtrees in a traversal"),
        );
    }

    /// `pure-fn-node-write`: a pure function would change a node it reads.
    pub(super) fn pure_fn_node_write(&mut self, span: Span, what: &str) {
        self.report(
            Diagnostic::error(
                "pure-fn-node-write",
                span,
                format!("a pure function cannot {what}; it only reads the nodes it is given"),
            )
            .with_note("make the change in a traversal, with the function's result"),
        );
    }
}
