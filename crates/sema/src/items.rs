//! Item-level checking: names, records, the type hierarchy, field layout,
//! traversal overrides and dispatch tables, globals and defaults.
//!
//! Bodies are checked afterwards by [`crate::body`], once every signature
//! is known, so that a body may call a traversal declared later in the
//! file.

use crate::body::{BodyChecker, BodyKind};
use crate::consts::const_eval;
use crate::model::*;
use crate::names::{resolve_data_type, Names};
use indexmap::IndexMap;
use treefuse_syntax::ast;
use treefuse_syntax::{Diagnostic, Span};

const BUILTIN_TYPES: [&str; 4] = ["i64", "f64", "bool", "str"];

/// Checks a parsed file and builds the semantic model.
pub fn check(file: &ast::SourceFile) -> Result<Program, Vec<Diagnostic>> {
    let mut cx = ItemChecker {
        program: Program::default(),
        names: Names::default(),
        diags: Vec::new(),
    };
    cx.run(file);
    cx.diags.sort_by_key(|d| d.span.start);
    if cx.diags.iter().all(|d| d.is_warning) {
        crate::split::add_split_traversals(&mut cx.program);
        cx.program.warnings = cx.diags;
        Ok(cx.program)
    } else {
        Err(cx.diags)
    }
}

struct ItemChecker {
    program: Program,
    names: Names,
    diags: Vec<Diagnostic>,
}

impl ItemChecker {
    fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, span, msg));
    }

    fn run(&mut self, file: &ast::SourceFile) {
        let mut records = Vec::new();
        let mut trees = Vec::new();
        let mut globals = Vec::new();
        let mut pure_fns = Vec::new();
        let mut fuses = Vec::new();
        let mut enums = Vec::new();
        for item in &file.items {
            match item {
                ast::Item::Enum(e) => enums.push(e),
                ast::Item::Record(r) => records.push(r),
                ast::Item::Tree(t) => trees.push(t),
                ast::Item::Global(g) => globals.push(g),
                ast::Item::PureFn(f) => pure_fns.push(f),
                ast::Item::Fuse(f) => fuses.push(f),
            }
        }
        self.declare_types(&records, &trees, &enums);
        self.record_fields(&records);
        let order = self.hierarchy(&trees);
        self.fields_and_traversals(&trees, &order);
        // Signatures before constants, so that a call of a pure function in
        // a constant is reported as not constant rather than unknown.
        self.pure_fn_signatures(&pure_fns);
        self.globals(&globals);
        self.field_defaults(&trees, &order);
        self.pure_fn_bodies(&pure_fns);
        self.traversal_bodies(&trees, &order);
        self.fuses(&fuses);
        self.pure_fn_recursion();
        crate::body::check_replacement_types(&self.program, &mut self.diags);
    }

    fn declare_types(
        &mut self,
        records: &[&ast::RecordDecl],
        trees: &[&ast::TreeDecl],
        enums: &[&ast::EnumDecl],
    ) {
        let mut taken: IndexMap<String, Span> = IndexMap::new();
        let mut claim = |cx: &mut Self, name: &ast::Ident| -> bool {
            if BUILTIN_TYPES.contains(&name.name.as_str()) {
                cx.error(
                    "duplicate-name",
                    name.span,
                    format!("`{}` is a built-in type and cannot be redefined", name.name),
                );
                return false;
            }
            if let Some(prev) = taken.get(&name.name) {
                let d = Diagnostic::error(
                    "duplicate-name",
                    name.span,
                    format!("the type `{}` is defined twice", name.name),
                )
                .with_label(*prev, "first defined here");
                cx.diags.push(d);
                return false;
            }
            taken.insert(name.name.clone(), name.span);
            true
        };
        for e in enums {
            if claim(self, &e.name) {
                let mut variants: Vec<String> = Vec::new();
                for v in &e.variants {
                    if variants.contains(&v.name) {
                        self.error(
                            "duplicate-name",
                            v.span,
                            format!(
                                "the enum `{}` has two variants named `{}`",
                                e.name.name, v.name
                            ),
                        );
                        continue;
                    }
                    variants.push(v.name.clone());
                }
                if variants.is_empty() {
                    self.error(
                        "enum-empty",
                        e.name.span,
                        format!("the enum `{}` needs at least one variant (its first is the default value)", e.name.name),
                    );
                    continue;
                }
                let id = EnumId(self.program.enums.len() as u32);
                self.names.enums.insert(e.name.name.clone(), id);
                self.program.enums.push(EnumDef {
                    name: e.name.name.clone(),
                    span: e.name.span,
                    variants,
                });
            }
        }
        for r in records {
            if claim(self, &r.name) {
                let id = RecordId(self.program.records.len() as u32);
                self.names.records.insert(r.name.name.clone(), id);
                self.program.records.push(Record {
                    name: r.name.name.clone(),
                    span: r.name.span,
                    fields: Vec::new(),
                });
            }
        }
        for t in trees {
            if claim(self, &t.name) {
                let id = TypeId(self.program.types.len() as u32);
                self.names.types.insert(t.name.name.clone(), id);
                self.program.types.push(TreeType {
                    name: t.name.name.clone(),
                    span: t.name.span,
                    is_abstract: t.is_abstract,
                    base: None,
                    fields: Vec::new(),
                    concrete_subtypes: Vec::new(),
                    vtable: Vec::new(),
                });
            }
        }
    }

    /// Resolves a data type; tree types are rejected with `code`.
    /// The tree type a written type names, if it names one.
    fn tree_type_of(&self, t: &ast::TypeExpr) -> Option<TypeId> {
        match t {
            ast::TypeExpr::Named(n) => self.names.types.get(&n.name).copied(),
            _ => None,
        }
    }

    pub(crate) fn data_type(&mut self, t: &ast::TypeExpr, what: &str) -> Option<DataType> {
        resolve_data_type(&self.names, &mut self.diags, t, what)
    }

    fn record_fields(&mut self, records: &[&ast::RecordDecl]) {
        for r in records {
            let Some(&id) = self.names.records.get(&r.name.name) else {
                continue;
            };
            if self.program.records[id.index()].span != r.name.span {
                continue; // a duplicate definition, already reported
            }
            let mut fields: Vec<RecordField> = Vec::new();
            for f in &r.fields {
                if fields.iter().any(|g| g.name == f.name.name) {
                    self.error(
                        "duplicate-field",
                        f.name.span,
                        format!(
                            "record `{}` has two fields named `{}`",
                            r.name.name, f.name.name
                        ),
                    );
                    continue;
                }
                if let Some(ty) = self.data_type(&f.ty, "a record field") {
                    fields.push(RecordField {
                        name: f.name.name.clone(),
                        ty,
                    });
                }
            }
            self.program.records[id.index()].fields = fields;
        }
        // Records may nest but not recursively (they are copied by value).
        for r in records {
            let Some(&id) = self.names.records.get(&r.name.name) else {
                continue;
            };
            if self.record_contains(id, id, &mut Vec::new()) {
                self.error(
                    "record-recursion",
                    r.name.span,
                    format!("record `{}` contains itself", r.name.name),
                );
                // Break the cycle so later stages terminate.
                self.program.records[id.index()].fields.clear();
            }
        }
    }

    fn record_contains(&self, outer: RecordId, target: RecordId, seen: &mut Vec<RecordId>) -> bool {
        if seen.contains(&outer) {
            return false;
        }
        seen.push(outer);
        self.program.records[outer.index()].fields.iter().any(|f| {
            let mut t = &f.ty;
            while let DataType::Array(inner) = t {
                t = inner;
            }
            match t {
                DataType::Record(r) => *r == target || self.record_contains(*r, target, seen),
                _ => false,
            }
        })
    }

    /// Resolves bases, rejects cycles, and returns the tree types in an
    /// order where every base precedes its subtypes.
    fn hierarchy(&mut self, trees: &[&ast::TreeDecl]) -> Vec<(TypeId, usize)> {
        let mut decl_of: Vec<Option<usize>> = vec![None; self.program.types.len()];
        for (i, t) in trees.iter().enumerate() {
            if let Some(&id) = self.names.types.get(&t.name.name) {
                if self.program.types[id.index()].span == t.name.span {
                    decl_of[id.index()] = Some(i);
                }
            }
        }
        for (i, t) in trees.iter().enumerate() {
            let Some(&id) = self.names.types.get(&t.name.name) else {
                continue;
            };
            if decl_of[id.index()] != Some(i) {
                continue;
            }
            if let Some(base) = &t.base {
                match self.names.types.get(&base.name) {
                    Some(&b) => self.program.types[id.index()].base = Some(b),
                    None if self.names.records.contains_key(&base.name) => self.error(
                        "unknown-type",
                        base.span,
                        format!(
                            "`{}` is a record, not a tree type; a tree can only extend a tree",
                            base.name
                        ),
                    ),
                    None => self.error(
                        "unknown-type",
                        base.span,
                        format!("unknown base type `{}`", base.name),
                    ),
                }
            }
        }
        // Cycle detection: follow bases; a chain longer than the number of
        // types is a cycle.
        let n = self.program.types.len();
        for id in 0..n {
            let mut cur = self.program.types[id].base;
            let mut steps = 0;
            while let Some(b) = cur {
                if b.index() == id || steps > n {
                    let span = trees[decl_of[id].unwrap_or(0)]
                        .base
                        .as_ref()
                        .map_or(self.program.types[id].span, |b| b.span);
                    self.error(
                        "inheritance-cycle",
                        span,
                        format!(
                            "the type `{}` inherits from itself",
                            self.program.types[id].name
                        ),
                    );
                    self.program.types[id].base = None;
                    break;
                }
                cur = self.program.types[b.index()].base;
                steps += 1;
            }
        }
        let mut order: Vec<(TypeId, usize)> = Vec::new();
        let mut placed = vec![false; n];
        while order.len() < n {
            let before = order.len();
            for id in 0..n {
                if placed[id] {
                    continue;
                }
                let ready = self.program.types[id]
                    .base
                    .is_none_or(|b| placed[b.index()]);
                if ready {
                    placed[id] = true;
                    if let Some(d) = decl_of[id] {
                        order.push((TypeId(id as u32), d));
                    } else {
                        order.push((TypeId(id as u32), usize::MAX));
                    }
                }
            }
            if order.len() == before {
                break;
            }
        }
        order.retain(|(_, d)| *d != usize::MAX);
        // Concrete subtypes, for dispatch and access analysis.
        for id in 0..n {
            let ty = TypeId(id as u32);
            if self.program.types[id].is_abstract {
                continue;
            }
            let mut cur = Some(ty);
            while let Some(t) = cur {
                self.program.types[t.index()].concrete_subtypes.push(ty);
                cur = self.program.types[t.index()].base;
            }
        }
        order
    }

    fn fields_and_traversals(&mut self, trees: &[&ast::TreeDecl], order: &[(TypeId, usize)]) {
        for &(id, decl) in order {
            let t = trees[decl];
            let mut fields = match self.program.types[id.index()].base {
                Some(b) => self.program.types[b.index()].fields.clone(),
                None => Vec::new(),
            };
            let mut own_methods: Vec<(String, Span)> = Vec::new();
            for m in &t.members {
                match m {
                    ast::TreeMember::Child { name, ty, .. }
                    | ast::TreeMember::Data { name, ty, .. } => {
                        if let Some(prev) = fields
                            .iter()
                            .find(|f| self.program.fields[f.index()].name == name.name)
                        {
                            let prev = &self.program.fields[prev.index()];
                            let (code, msg) = if prev.owner == id {
                                (
                                    "duplicate-field",
                                    format!(
                                        "`{}` has two fields named `{}`",
                                        t.name.name, name.name
                                    ),
                                )
                            } else {
                                (
                                    "field-redeclared",
                                    format!(
                                        "`{}` redeclares the field `{}` inherited from `{}`",
                                        t.name.name,
                                        name.name,
                                        self.program.types[prev.owner.index()].name
                                    ),
                                )
                            };
                            let d = Diagnostic::error(code, name.span, msg)
                                .with_label(prev.span, "first declared here");
                            self.diags.push(d);
                            continue;
                        }
                        let kind = if matches!(m, ast::TreeMember::Child { .. }) {
                            self.child_type(ty)
                        } else {
                            let data = self.data_type(ty, "a data field").map(FieldKind::Data);
                            // A tree type written without `child` was reported
                            // once (`data-type`); the field is then read as the
                            // child it was meant to be, so its uses do not
                            // cascade into unknown-field errors.
                            let element = match ty {
                                ast::TypeExpr::Array(inner, _) => &**inner,
                                named => named,
                            };
                            match element {
                                ast::TypeExpr::Named(n)
                                    if data.is_none() && self.names.types.contains_key(&n.name) =>
                                {
                                    self.child_type(ty)
                                }
                                _ => data,
                            }
                        };
                        let Some(kind) = kind else { continue };
                        let fid = FieldId(self.program.fields.len() as u32);
                        self.program.fields.push(Field {
                            name: name.name.clone(),
                            span: name.span,
                            owner: id,
                            slot: fields.len() as u32,
                            kind,
                            default: None,
                        });
                        fields.push(fid);
                    }
                    ast::TreeMember::Traversal(tr) => {
                        if let Some((_, prev)) =
                            own_methods.iter().find(|(n, _)| *n == tr.name.name)
                        {
                            let d = Diagnostic::error(
                                "duplicate-traversal",
                                tr.name.span,
                                format!(
                                    "`{}` defines the traversal `{}` twice",
                                    t.name.name, tr.name.name
                                ),
                            )
                            .with_label(*prev, "first defined here");
                            self.diags.push(d);
                            continue;
                        }
                        own_methods.push((tr.name.name.clone(), tr.name.span));
                        self.declare_traversal(id, tr);
                    }
                }
            }
            self.program.types[id.index()].fields = fields;
        }
        // Dispatch tables, bases first.
        let num_methods = self.program.methods.len();
        for &(id, _) in order {
            let mut vtable = match self.program.types[id.index()].base {
                Some(b) => self.program.types[b.index()].vtable.clone(),
                None => Vec::new(),
            };
            vtable.resize(num_methods, None);
            for (bi, b) in self.program.bodies.iter().enumerate() {
                if b.owner == id {
                    vtable[b.method.index()] = Some(BodyId(bi as u32));
                }
            }
            self.program.types[id.index()].vtable = vtable;
        }
        // Every concrete type needs a body for every traversal it has.
        for &(id, decl) in order {
            let ty = &self.program.types[id.index()];
            if ty.is_abstract {
                continue;
            }
            for (mi, entry) in ty.vtable.iter().enumerate() {
                let Some(body) = entry else { continue };
                let body = &self.program.bodies[body.index()];
                if body.body.is_none() {
                    let method = &self.program.methods[mi];
                    let d = Diagnostic::error(
                        "missing-traversal-body",
                        trees[decl].name.span,
                        format!(
                            "the concrete type `{}` does not define the traversal `{}`",
                            ty.name, method.name
                        ),
                    )
                    .with_label(body.span, "declared without a body here");
                    self.diags.push(d);
                }
            }
        }
    }

    fn child_type(&mut self, ty: &ast::TypeExpr) -> Option<FieldKind> {
        let (name, is_list) = match ty {
            ast::TypeExpr::Named(n) => (n, false),
            ast::TypeExpr::Map(..) => {
                self.error(
                    "child-type",
                    ty.span(),
                    "a child is a tree node or a list of them, not a map; drop `child` to declare a data field",
                );
                return None;
            }
            ast::TypeExpr::Array(inner, _) => match &**inner {
                ast::TypeExpr::Named(n) => (n, true),
                ast::TypeExpr::Array(..) | ast::TypeExpr::Map(..) => {
                    self.error(
                        "child-type",
                        ty.span(),
                        "a child list holds tree nodes, not lists",
                    );
                    return None;
                }
            },
        };
        match self.names.types.get(&name.name) {
            Some(&t) => Some(if is_list {
                FieldKind::List(t)
            } else {
                FieldKind::Child(t)
            }),
            None => {
                if self.names.records.contains_key(&name.name)
                    || BUILTIN_TYPES.contains(&name.name.as_str())
                {
                    self.error("child-type", name.span, format!("a child must be a tree type, but `{}` is a data type; drop `child` to declare a data field", name.name));
                } else {
                    self.error(
                        "unknown-type",
                        name.span,
                        format!("unknown type `{}`", name.name),
                    );
                }
                None
            }
        }
    }

    fn declare_traversal(&mut self, owner: TypeId, tr: &ast::TraversalDecl) {
        let mut params = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        let mut ok = true;
        for p in &tr.params {
            if names.contains(&p.name.name.as_str()) {
                self.error(
                    "duplicate-name",
                    p.name.span,
                    format!("parameter `{}` is declared twice", p.name.name),
                );
                ok = false;
            }
            names.push(&p.name.name);
            match self.data_type(&p.ty, "a traversal parameter") {
                Some(t) => params.push((p.name.name.clone(), t)),
                None => ok = false,
            }
        }
        let inherited = self.program.types[owner.index()]
            .base
            .and_then(|b| self.program.method_named(b, &tr.name.name));
        let method = match inherited {
            Some(m) => {
                let expected = &self.program.methods[m.index()].params;
                let given: Vec<DataType> = params.iter().map(|(_, t)| t.clone()).collect();
                if ok && *expected != given {
                    let d = Diagnostic::error(
                        "override-signature",
                        tr.name.span,
                        format!(
                            "`{}` overrides `{}` with different parameters",
                            tr.name.name, tr.name.name
                        ),
                    )
                    .with_label(
                        self.program.methods[m.index()].span,
                        "the overridden traversal is declared here",
                    )
                    .with_note(format!(
                        "expected ({})",
                        expected
                            .iter()
                            .map(|t| self.program.data_type_name(t))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                    self.diags.push(d);
                }
                m
            }
            None => {
                let m = MethodId(self.program.methods.len() as u32);
                self.program.methods.push(Method {
                    name: tr.name.name.clone(),
                    declared_on: owner,
                    params: params.iter().map(|(_, t)| t.clone()).collect(),
                    span: tr.name.span,
                });
                m
            }
        };
        let frame = FrameLayout {
            num_params: params.len(),
            locals: params,
            node_vars: Vec::new(),
        };
        self.program.bodies.push(TraversalBody {
            method,
            owner,
            span: tr.name.span,
            frame,
            // Filled in by `traversal_bodies`; `Some(vec![])` marks
            // "has a body" for the abstract-method check meanwhile.
            body: tr.body.as_ref().map(|_| Vec::new()),
        });
    }

    fn globals(&mut self, globals: &[&ast::GlobalDecl]) {
        for g in globals {
            if let Some(&prev) = self.names.globals.get(&g.name.name) {
                let prev = self.program.globals[prev.index()].span;
                self.diags.push(
                    Diagnostic::error(
                        "duplicate-name",
                        g.name.span,
                        format!("the global `{}` is defined twice", g.name.name),
                    )
                    .with_label(prev, "first defined here"),
                );
                continue;
            }
            let Some(ty) = self.data_type(&g.ty, "a global") else {
                continue;
            };
            let value = {
                let mut bc =
                    BodyChecker::new(&self.program, &self.names, BodyKind::Const, &mut self.diags);
                bc.expr(&g.init, Some(&ty))
                    .and_then(|e| bc.expect_type(&e, &ty).then_some(e))
            };
            let Some(expr) = value else { continue };
            let init = match const_eval(&self.program, &expr) {
                Ok(v) => v,
                Err(d) => {
                    self.diags.push(*d);
                    continue;
                }
            };
            let id = GlobalId(self.program.globals.len() as u32);
            self.names.globals.insert(g.name.name.clone(), id);
            self.program.globals.push(Global {
                name: g.name.name.clone(),
                span: g.name.span,
                ty,
                init,
            });
        }
    }

    fn field_defaults(&mut self, trees: &[&ast::TreeDecl], order: &[(TypeId, usize)]) {
        for &(id, decl) in order {
            for m in &trees[decl].members {
                let ast::TreeMember::Data { name, default, .. } = m else {
                    continue;
                };
                let Some(fid) = self.program.field_named(id, &name.name) else {
                    continue;
                };
                let field = &self.program.fields[fid.index()];
                if field.owner != id || field.span != name.span {
                    continue;
                }
                let FieldKind::Data(ty) = field.kind.clone() else {
                    continue;
                };
                let value = match default {
                    None => Some(self.program.zero_value(&ty)),
                    Some(e) => {
                        let checked = {
                            let mut bc = BodyChecker::new(
                                &self.program,
                                &self.names,
                                BodyKind::Const,
                                &mut self.diags,
                            );
                            bc.expr(e, Some(&ty))
                                .and_then(|x| bc.expect_type(&x, &ty).then_some(x))
                        };
                        checked.and_then(|x| match const_eval(&self.program, &x) {
                            Ok(v) => Some(v),
                            Err(d) => {
                                self.diags.push(*d);
                                None
                            }
                        })
                    }
                };
                self.program.fields[fid.index()].default = value;
            }
        }
        // Fields whose default failed still need a value for later stages.
        for i in 0..self.program.fields.len() {
            if self.program.fields[i].default.is_none() {
                if let FieldKind::Data(ty) = self.program.fields[i].kind.clone() {
                    self.program.fields[i].default = Some(self.program.zero_value(&ty));
                }
            }
        }
    }

    fn pure_fn_signatures(&mut self, fns: &[&ast::PureFnDecl]) {
        for f in fns {
            if let Some(&prev) = self.names.pure_fns.get(&f.name.name) {
                let prev = self.program.pure_fns[prev.index()].span;
                self.diags.push(
                    Diagnostic::error(
                        "duplicate-name",
                        f.name.span,
                        format!("the pure function `{}` is defined twice", f.name.name),
                    )
                    .with_label(prev, "first defined here"),
                );
                continue;
            }
            let mut params = Vec::new();
            let mut node_params = Vec::new();
            let mut node_vars: Vec<NodeVar> = Vec::new();
            for (pos, p) in f.params.iter().enumerate() {
                if params.iter().any(|(n, _)| *n == p.name.name)
                    || node_vars.iter().any(|v| v.name == p.name.name)
                {
                    self.error(
                        "duplicate-name",
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    );
                }
                // A tree-typed parameter takes a node (LANGUAGE §8.8).
                if let Some(ty) = self.tree_type_of(&p.ty) {
                    if matches!(f.body, ast::PureBody::Host) {
                        self.diags.push(
                            Diagnostic::error(
                                "pure-fn-host-node",
                                p.ty.span(),
                                format!(
                                    "`pure fn {}` has no body, so the host supplies it, and the host takes data only, not the tree node `{}`",
                                    f.name.name, p.name.name
                                ),
                            )
                            .with_note("give the function a body, or pass the node's data fields instead"),
                        );
                    }
                    node_params.push((pos, ty));
                    node_vars.push(NodeVar {
                        name: p.name.name.clone(),
                        ty,
                        origin: None,
                    });
                    continue;
                }
                let ty = self.data_type(&p.ty, "a pure function parameter");
                params.push((p.name.name.clone(), ty.unwrap_or(DataType::Int)));
            }
            let ret = if let Some(ty) = self.tree_type_of(&f.ret) {
                self.diags.push(
                    Diagnostic::error(
                        "pure-fn-node-return",
                        f.ret.span(),
                        format!(
                            "a pure function returns data, not a tree node (`{}` is a tree type)",
                            self.program.type_name(ty)
                        ),
                    )
                    .with_note("return what the caller needs of the node: a data field, a `bool` of an `is` test, ..."),
                );
                DataType::Int
            } else {
                self.data_type(&f.ret, "a pure function result")
                    .unwrap_or(DataType::Int)
            };
            let id = PureFnId(self.program.pure_fns.len() as u32);
            self.names.pure_fns.insert(f.name.name.clone(), id);
            self.program.pure_fns.push(PureFn {
                name: f.name.name.clone(),
                span: f.name.span,
                params: params.iter().map(|(_, t)| t.clone()).collect(),
                node_params,
                ret,
                frame: FrameLayout {
                    num_params: params.len(),
                    locals: params,
                    node_vars,
                },
                body: PureBody::Host,
            });
        }
    }

    fn pure_fn_bodies(&mut self, fns: &[&ast::PureFnDecl]) {
        for f in fns {
            let Some(&id) = self.names.pure_fns.get(&f.name.name) else {
                continue;
            };
            if self.program.pure_fns[id.index()].span != f.name.span {
                continue;
            }
            if self.tree_type_of(&f.ret).is_some() {
                // Reported (`pure-fn-node-return`); its body would only
                // add follow-up errors.
                continue;
            }
            let pf = &self.program.pure_fns[id.index()];
            let ret = pf.ret.clone();
            let frame = pf.frame.clone();
            let (body, frame) = {
                let mut bc = BodyChecker::new(
                    &self.program,
                    &self.names,
                    BodyKind::Pure { ret: ret.clone() },
                    &mut self.diags,
                );
                let node_params = frame.node_vars.len();
                bc.set_frame(frame);
                bc.bind_node_params(node_params);
                let body = match &f.body {
                    ast::PureBody::Host => PureBody::Host,
                    ast::PureBody::Expr(e) => match bc.expr(e, Some(&ret)) {
                        Some(x) if bc.expect_type(&x, &ret) => PureBody::Expr(x),
                        _ => PureBody::Host,
                    },
                    ast::PureBody::Block(b) => {
                        let stmts = bc.block(b);
                        if !crate::body::always_returns(&stmts) {
                            bc.report(
                                Diagnostic::error(
                                    "missing-return",
                                    f.name.span,
                                    format!("not every path of `{}` returns a value", f.name.name),
                                )
                                .with_label(
                                    Span::new(b.span.end as usize - 1, b.span.end as usize),
                                    "this end is reachable",
                                ),
                            );
                        }
                        PureBody::Block(stmts)
                    }
                };
                (body, bc.into_frame())
            };
            let pf = &mut self.program.pure_fns[id.index()];
            pf.body = body;
            pf.frame = frame;
        }
    }

    fn traversal_bodies(&mut self, trees: &[&ast::TreeDecl], order: &[(TypeId, usize)]) {
        for &(id, decl) in order {
            for m in &trees[decl].members {
                let ast::TreeMember::Traversal(tr) = m else {
                    continue;
                };
                let Some(block) = &tr.body else { continue };
                let Some(bi) = self
                    .program
                    .bodies
                    .iter()
                    .position(|b| b.owner == id && b.span == tr.name.span)
                else {
                    continue;
                };
                let frame = self.program.bodies[bi].frame.clone();
                let (stmts, frame) = {
                    let mut bc = BodyChecker::new(
                        &self.program,
                        &self.names,
                        BodyKind::Traversal { self_ty: id },
                        &mut self.diags,
                    );
                    bc.set_frame(frame);
                    let stmts = bc.block(block);
                    (stmts, bc.into_frame())
                };
                let (mut stmts, mut frame) = (stmts, frame);
                crate::lower::split_branch_calls(&mut stmts, &mut frame);
                self.program.bodies[bi].body = Some(stmts);
                self.program.bodies[bi].frame = frame;
            }
        }
    }

    fn fuses(&mut self, fuses: &[&ast::FuseDecl]) {
        for f in fuses {
            if let Some(prev) = self.program.fuses.iter().find(|g| g.name == f.name.name) {
                let d = Diagnostic::error(
                    "duplicate-name",
                    f.name.span,
                    format!("the fuse item `{}` is defined twice", f.name.name),
                )
                .with_label(prev.span, "first defined here");
                self.diags.push(d);
                continue;
            }
            let Some(root) = f.params.first() else {
                self.error("fuse-root", f.name.span, "a fuse item needs a root parameter of a tree type, as in `fuse name(root: Type)`");
                continue;
            };
            let root_type = match &root.ty {
                ast::TypeExpr::Named(n) => self.names.types.get(&n.name).copied(),
                _ => None,
            };
            let Some(root_type) = root_type else {
                match &root.ty {
                    ast::TypeExpr::Named(n)
                        if !BUILTIN_TYPES.contains(&n.name.as_str())
                            && !self.names.records.contains_key(&n.name) =>
                    {
                        self.error("unknown-type", n.span, format!("unknown type `{}`", n.name))
                    }
                    _ => self.error(
                        "fuse-root",
                        root.ty.span(),
                        "the first parameter of a fuse item is its root and must have a tree type",
                    ),
                }
                continue;
            };
            let mut params = Vec::new();
            for p in &f.params[1..] {
                if p.name.name == root.name.name || params.iter().any(|(n, _)| *n == p.name.name) {
                    self.error(
                        "duplicate-name",
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    );
                }
                if let Some(t) = self.data_type(&p.ty, "a fuse parameter") {
                    params.push((p.name.name.clone(), t));
                }
            }
            let frame = FrameLayout {
                num_params: params.len(),
                locals: params,
                node_vars: Vec::new(),
            };
            let (calls, body) = {
                let mut bc =
                    BodyChecker::new(&self.program, &self.names, BodyKind::Fuse, &mut self.diags);
                bc.set_frame(frame.clone());
                bc.fuse_body(&f.body, &root.name.name, root_type)
            };
            self.program.fuses.push(Fuse {
                name: f.name.name.clone(),
                span: f.name.span,
                root_name: root.name.name.clone(),
                root_type,
                frame,
                calls,
                body,
            });
        }
    }

    fn pure_fn_recursion(&mut self) {
        let n = self.program.pure_fns.len();
        let mut calls: Vec<Vec<(PureFnId, Span)>> = vec![Vec::new(); n];
        for (i, f) in self.program.pure_fns.iter().enumerate() {
            let mut out = Vec::new();
            match &f.body {
                PureBody::Expr(e) => crate::body::called_pure_fns_expr(e, &mut out),
                PureBody::Block(b) => crate::body::called_pure_fns(b, &mut out),
                PureBody::Host => {}
            }
            calls[i] = out;
        }
        // Depth-first search for a cycle, iteratively.
        let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut reported = vec![false; n];
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut stack = vec![(start, 0usize)];
            state[start] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if *next < calls[node].len() {
                    let (callee, call_span) = calls[node][*next];
                    let callee = callee.index();
                    *next += 1;
                    match state[callee] {
                        0 => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        1 if !reported[callee] => {
                            reported[callee] = true;
                            let f = &self.program.pure_fns[callee];
                            let (name, span) = (f.name.clone(), f.span);
                            let d = Diagnostic::error(
                                "pure-fn-recursion",
                                span,
                                format!("the pure function `{name}` calls itself (directly or through others); use a `for` loop instead"),
                            )
                            .with_label(call_span, "this call closes the cycle");
                            self.diags.push(d);
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }
}
