//! Item-level checking: names, records, the type hierarchy, field layout,
//! traversal overrides and dispatch tables, globals and defaults.
//!
//! Bodies are checked afterwards by [`crate::body`], once every signature
//! is known, so that a body may call a traversal declared later in the
//! file.

use crate::body::{contains_walk, walk_spans, BodyChecker, BodyKind, WalkPlan};
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
    // A body with `walk` is checked once per walk it may take (§8.1); a
    // mistake in it is reported once.
    cx.diags.dedup();
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
        let mut impls = Vec::new();
        for item in &file.items {
            match item {
                ast::Item::Enum(e) => enums.push(e),
                ast::Item::Record(r) => records.push(r),
                ast::Item::Tree(t) => trees.push(t),
                ast::Item::Global(g) => globals.push(g),
                ast::Item::PureFn(f) => pure_fns.push(f),
                ast::Item::Fuse(f) => fuses.push(f),
                ast::Item::Impl(i) => impls.push(i),
            }
        }
        let merged = self.merge_impls(&trees, &impls);
        let trees: Vec<&ast::TreeDecl> = merged.iter().collect();
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

    /// The tree declarations with the traversals of every `impl` block
    /// appended to the declaration of the type it names (LANGUAGE.md
    /// §8.2), as if written there. A member that comes from an `impl` is
    /// recognised later by its span lying outside the declaration's.
    fn merge_impls(
        &mut self,
        trees: &[&ast::TreeDecl],
        impls: &[&ast::ImplDecl],
    ) -> Vec<ast::TreeDecl> {
        let mut merged: Vec<ast::TreeDecl> = trees.iter().map(|t| (*t).clone()).collect();
        for block in impls {
            match merged.iter_mut().find(|t| t.name.name == block.ty.name) {
                Some(tree) => tree.members.extend(
                    block
                        .traversals
                        .iter()
                        .map(|t| ast::TreeMember::Traversal(t.clone())),
                ),
                None => {
                    let what = if BUILTIN_TYPES.contains(&block.ty.name.as_str()) {
                        format!("`{}` is a built-in data type", block.ty.name)
                    } else {
                        format!("no tree type named `{}`", block.ty.name)
                    };
                    self.diags.push(
                        Diagnostic::error(
                            "impl-target",
                            block.ty.span,
                            format!("an `impl` block adds traversals to a tree type, but there is {what}"),
                        )
                        .with_note("declare the type with `tree NAME { .. }` (in any file of the program)"),
                    );
                }
            }
        }
        merged
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
                    default_overrides: Vec::new(),
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
                        if name.name == "type" {
                            // JSON trees (§4) spend the key on the node's
                            // concrete type: such a field could be neither
                            // read nor written.
                            self.diags.push(
                                Diagnostic::error(
                                    "field-named-type",
                                    name.span,
                                    format!(
                                        "`{}` has a field named `type`, which JSON trees use for the node's concrete type",
                                        t.name.name
                                    ),
                                )
                                .with_note("rename it (`kind`, `type_`, `exc_type`)"),
                            );
                        }
                        let is_child = matches!(m, ast::TreeMember::Child { .. });
                        let optional = is_child && matches!(ty, ast::TypeExpr::Optional(..));
                        let kind = if is_child {
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
                            optional,
                        });
                        fields.push(fid);
                    }
                    // Checked with the other defaults, once every field exists.
                    ast::TreeMember::Default { .. } => {}
                    ast::TreeMember::Traversal(tr) => {
                        if let Some((_, prev)) =
                            own_methods.iter().find(|(n, _)| *n == tr.name.name)
                        {
                            // Two bodies of which one comes from an `impl`
                            // block (§8.2).
                            let inside = |s: Span| s.start >= t.span.start && s.end <= t.span.end;
                            let code = if inside(*prev) && inside(tr.name.span) {
                                "duplicate-traversal"
                            } else {
                                "duplicate-name"
                            };
                            let d = Diagnostic::error(
                                code,
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
            // `child c: T?` (§8.7): a single child that may be empty.
            ast::TypeExpr::Optional(inner, span) => match &**inner {
                ast::TypeExpr::Named(n) => (n, false),
                _ => {
                    self.report_optional_list(*span);
                    return None;
                }
            },
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
                ast::TypeExpr::Optional(_, span) => {
                    self.report_optional_list(*span);
                    return None;
                }
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

    /// `child c: [T]?` or `child c: [T?]`: lists are never optional, nor
    /// are their elements (§8.7).
    fn report_optional_list(&mut self, span: Span) {
        self.diags.push(
            Diagnostic::error(
                "optional-type",
                span,
                "a list of children cannot be optional, nor can its elements",
            )
            .with_note("an empty list (`[]`) already holds no node; only a single child can be optional (`child c: T?`)"),
        );
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
        self.default_overrides(trees, order);
        // Fields whose default failed still need a value for later stages.
        for i in 0..self.program.fields.len() {
            if self.program.fields[i].default.is_none() {
                if let FieldKind::Data(ty) = self.program.fields[i].kind.clone() {
                    self.program.fields[i].default = Some(self.program.zero_value(&ty));
                }
            }
        }
    }

    /// Subtypes' own defaults for inherited data fields (LANGUAGE.md
    /// §8.3): `name = value;` in a subtype. Each type starts from its
    /// base's overrides, so a sub-subtype inherits them.
    fn default_overrides(&mut self, trees: &[&ast::TreeDecl], order: &[(TypeId, usize)]) {
        for &(id, decl) in order {
            let mut overrides = match self.program.types[id.index()].base {
                Some(b) => self.program.types[b.index()].default_overrides.clone(),
                None => Vec::new(),
            };
            let mut own: Vec<(FieldId, Span)> = Vec::new();
            for m in &trees[decl].members {
                let ast::TreeMember::Default { name, value, span } = m else {
                    continue;
                };
                let type_name = trees[decl].name.name.clone();
                let Some(fid) = self.program.field_named(id, &name.name) else {
                    self.error(
                        "unknown-field",
                        name.span,
                        format!(
                            "`{type_name}` has no field `{}` to give a default",
                            name.name
                        ),
                    );
                    continue;
                };
                let field = &self.program.fields[fid.index()];
                let (field_span, owner) = (field.span, field.owner);
                let FieldKind::Data(ty) = field.kind.clone() else {
                    self.diags.push(
                        Diagnostic::error(
                            "field-default",
                            *span,
                            format!("`{}` is a child; only data fields have defaults", name.name),
                        )
                        .with_label(field_span, "declared here"),
                    );
                    continue;
                };
                if owner == id {
                    self.diags.push(
                        Diagnostic::error(
                            "field-default",
                            *span,
                            format!(
                                "`{}` is declared by `{type_name}` itself; write its default in its declaration: `{}: {} = ...;`",
                                name.name,
                                name.name,
                                self.program.data_type_name(&ty)
                            ),
                        )
                        .with_label(field_span, "declared here"),
                    );
                    continue;
                }
                if let Some((_, prev)) = own.iter().find(|(f, _)| *f == fid) {
                    let d = Diagnostic::error(
                        "duplicate-field",
                        name.span,
                        format!("`{type_name}` gives the field `{}` two defaults", name.name),
                    )
                    .with_label(*prev, "first given here");
                    self.diags.push(d);
                    continue;
                }
                own.push((fid, name.span));
                let checked = {
                    let mut bc = BodyChecker::new(
                        &self.program,
                        &self.names,
                        BodyKind::Const,
                        &mut self.diags,
                    );
                    bc.expr(value, Some(&ty))
                        .and_then(|x| bc.expect_type(&x, &ty).then_some(x))
                };
                let Some(x) = checked else { continue };
                match const_eval(&self.program, &x) {
                    Ok(v) => {
                        overrides.retain(|(f, _)| *f != fid);
                        overrides.push((fid, v));
                    }
                    Err(d) => self.diags.push(*d),
                }
            }
            self.program.types[id.index()].default_overrides = overrides;
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
                if !contains_walk(&block.stmts) {
                    self.check_traversal_body(bi, id, block, None);
                    continue;
                }
                // A body with `walk`: one checked copy per group of the
                // concrete types that run it whose walks visit the same
                // children, each copy owned by the group's nearest common
                // type and dispatched to by the group.
                let method = self.program.bodies[bi].method;
                let users: Vec<TypeId> = (0..self.program.types.len())
                    .map(|i| TypeId(i as u32))
                    .filter(|t| {
                        !self.program.types[t.index()].is_abstract
                            && self.program.dispatch(*t, method) == Some(BodyId(bi as u32))
                    })
                    .collect();
                let mut spans = Vec::new();
                walk_spans(&block.stmts, &mut spans);
                let mut groups: Vec<(WalkPlan, Vec<TypeId>)> = Vec::new();
                for &t in users.iter().chain(users.is_empty().then_some(&id)) {
                    let plan = self.walk_plan(t, method, &spans);
                    match groups.iter_mut().find(|(p, _)| *p == plan) {
                        Some((_, members)) => members.push(t),
                        None => groups.push((plan, vec![t])),
                    }
                }
                let errors_before = self.error_count();
                for (gi, (plan, members)) in groups.into_iter().enumerate() {
                    let owner = self.common_type(&members, id);
                    let target = if gi == 0 {
                        bi
                    } else {
                        if self.error_count() > errors_before {
                            break;
                        }
                        let copy = TraversalBody {
                            owner,
                            ..self.program.bodies[bi].clone()
                        };
                        self.program.bodies.push(copy);
                        self.program.bodies.len() - 1
                    };
                    self.program.bodies[target].owner = owner;
                    for t in members {
                        self.program.types[t.index()].vtable[method.index()] =
                            Some(BodyId(target as u32));
                    }
                    self.check_traversal_body(target, owner, block, Some(plan));
                }
            }
        }
    }

    fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| !d.is_warning).count()
    }

    /// Checks one traversal body as the statements of body `bi`, with
    /// `self` of type `owner` and `walk` expanding per `walk`.
    fn check_traversal_body(
        &mut self,
        bi: usize,
        owner: TypeId,
        block: &ast::Block,
        walk: Option<WalkPlan>,
    ) {
        let frame = self.program.bodies[bi].frame.clone();
        let (stmts, frame) = {
            let mut bc = BodyChecker::new(
                &self.program,
                &self.names,
                BodyKind::Traversal { self_ty: owner },
                &mut self.diags,
            );
            bc.set_frame(frame);
            if let Some(plan) = walk {
                bc.set_walk(plan);
            }
            let stmts = bc.block(block);
            (stmts, bc.into_frame())
        };
        let (mut stmts, mut frame) = (stmts, frame);
        crate::lower::split_branch_calls(&mut stmts, &mut frame);
        self.program.bodies[bi].body = Some(stmts);
        self.program.bodies[bi].frame = frame;
    }

    /// What `walk` does in traversal `method` on a node of type `ty`: the
    /// child fields, in slot order, whose declared type has a traversal of
    /// that name (LANGUAGE.md §8.1). A child whose type's traversal of
    /// that name has other parameters is a `walk-signature` error at the
    /// first `walk` of the body (`spans`).
    fn walk_plan(&mut self, ty: TypeId, method: MethodId, spans: &[Span]) -> WalkPlan {
        let m = &self.program.methods[method.index()];
        let (name, params) = (m.name.clone(), m.params.clone());
        let mut children = Vec::new();
        for &f in &self.program.types[ty.index()].fields.clone() {
            let field = &self.program.fields[f.index()];
            let (FieldKind::Child(child) | FieldKind::List(child)) = field.kind else {
                continue;
            };
            let Some(callee) = self.program.method_named(child, &name) else {
                continue;
            };
            let callee_params = &self.program.methods[callee.index()].params;
            if *callee_params != params {
                let sig = |ps: &[DataType]| {
                    ps.iter()
                        .map(|t| self.program.data_type_name(t))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let d = Diagnostic::error(
                    "walk-signature",
                    spans.first().copied().unwrap_or(field.span),
                    format!(
                        "`walk` would call `{name}` on the child `{}`, but `{}.{name}` takes ({}) where this traversal takes ({})",
                        field.name,
                        self.program.type_name(child),
                        sig(callee_params),
                        sig(&params)
                    ),
                )
                .with_label(field.span, "the child is declared here")
                .with_label(
                    self.program.methods[callee.index()].span,
                    "its traversal is declared here",
                )
                .with_note("rename one of the traversals, or give them the same parameters");
                self.diags.push(d);
                continue;
            }
            children.push((f, callee));
        }
        WalkPlan { params, children }
    }

    /// The most derived type that is `floor` or a subtype of it and a base
    /// (or equal) of every type in `types`.
    fn common_type(&self, types: &[TypeId], floor: TypeId) -> TypeId {
        let Some(&first) = types.first() else {
            return floor;
        };
        let mut candidate = first;
        loop {
            if candidate == floor || types.iter().all(|t| self.program.is_subtype(*t, candidate)) {
                return candidate;
            }
            match self.program.types[candidate.index()].base {
                Some(b) => candidate = b,
                None => return floor,
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
