//! The JSON layer of a generated module: conversion from and to
//! `treefuse_runtime::Tree`, whose iterative reader and writer implement
//! LANGUAGE.md §4 once for every engine.

use crate::gen::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use treefuse_sema::*;

impl Gen<'_> {
    /// Every data type that a field, record field or global has, inner
    /// types first.
    fn all_data_types(&self) -> Vec<DataType> {
        let mut out: Vec<DataType> = Vec::new();
        fn add(t: &DataType, p: &Program, out: &mut Vec<DataType>) {
            if out.contains(t) {
                return;
            }
            match t {
                DataType::Array(e) => add(e, p, out),
                DataType::Map(k, v) => {
                    add(k, p, out);
                    add(v, p, out);
                }
                DataType::Record(r) => {
                    for f in &p.records[r.index()].fields {
                        add(&f.ty, p, out);
                    }
                }
                _ => {}
            }
            out.push(t.clone());
        }
        for f in &self.p.fields {
            if let FieldKind::Data(d) = &f.kind {
                add(d, self.p, &mut out);
            }
        }
        for g in &self.p.globals {
            add(&g.ty, self.p, &mut out);
        }
        for f in &self.p.fuses {
            for (_, t) in &f.frame.locals[..f.frame.num_params] {
                add(t, self.p, &mut out);
            }
        }
        out
    }

    pub fn interop(&self, source: &str) -> TokenStream {
        let types = self.all_data_types();
        let k = |t: &DataType| types.iter().position(|x| x == t).unwrap_or(0);
        let to = |t: &DataType| format_ident!("to_value_{}", k(t));
        let from = |t: &DataType| format_ident!("from_value_{}", k(t));
        let mut helpers: Vec<(String, TokenStream)> = Vec::new();
        for t in &types {
            let (tn, fnm) = (to(t), from(t));
            let rt = self.data_type(t);
            let (to_body, from_body) = match t {
                DataType::Int => (quote!(RtValue::Int(*v)), quote!(v.as_int())),
                DataType::Float => (quote!(RtValue::Float(*v)), quote!(v.as_float())),
                DataType::Bool => (quote!(RtValue::Bool(*v)), quote!(v.as_bool())),
                DataType::Str => (
                    quote!(RtValue::Str(v.clone())),
                    quote!(match v {
                        RtValue::Str(s) => s.clone(),
                        _ => Arc::from(""),
                    }),
                ),
                DataType::Array(e) => {
                    let (te, fe) = (to(e), from(e));
                    (
                        // A closure, not the function itself: the elements of an
                        // array of arrays are `&Vec<T>`, which coerce to the
                        // `&[T]` that `to_value` takes only at a call.
                        quote!(RtValue::Array(Arc::new(v.iter().map(|x| #te(x)).collect()))),
                        quote!(match v {
                            RtValue::Array(items) => items.iter().map(#fe).collect(),
                            _ => Vec::new(),
                        }),
                    )
                }
                DataType::Enum(_) => (
                    quote!(RtValue::Enum(*v as u32)),
                    quote!(match v {
                        RtValue::Enum(i) => #rt::from_index(*i),
                        _ => #rt::default(),
                    }),
                ),
                DataType::Map(k, x) => {
                    let (tk, fk, tx, fx) = (to(k), from(k), to(x), from(x));
                    (
                        quote!(RtValue::Map(
                            v.iter()
                                .filter_map(|(k, x)| {
                                    Some((treefuse_sema::value::MapKey::of(&#tk(k))?, #tx(x)))
                                })
                                .collect()
                        )),
                        quote!(match v {
                            RtValue::Map(m) => m
                                .iter()
                                .map(|(k, x)| (#fk(&k.to_value()), #fx(x)))
                                .collect(),
                            _ => imbl::OrdMap::new(),
                        }),
                    )
                }
                DataType::Record(r) => {
                    let name = &self.rec[r.index()];
                    let fs = &self.rec_fields[r.index()];
                    let tos: Vec<_> = self.p.records[r.index()]
                        .fields
                        .iter()
                        .map(|f| to(&f.ty))
                        .collect();
                    let froms: Vec<_> = self.p.records[r.index()]
                        .fields
                        .iter()
                        .map(|f| from(&f.ty))
                        .collect();
                    (
                        quote!(RtValue::Record(Arc::new(vec![#(#tos(&v.#fs)),*]))),
                        quote!(match v {
                            RtValue::Record(fields) => { let mut fields = fields.iter(); #name {
                                #(#fs: #froms(fields.next().unwrap_or(&ZERO))),*
                            }},
                            _ => #name::default(),
                        }),
                    )
                }
            };
            let param = match t {
                DataType::Array(e) => {
                    let e = self.data_type(e);
                    quote!(&[#e])
                }
                _ => quote!(&#rt),
            };
            helpers.push((
                tn.to_string(),
                quote!(fn #tn(v: #param) -> RtValue { #to_body }),
            ));
            helpers.push((
                fnm.to_string(),
                quote!(fn #fnm(v: &RtValue) -> #rt { #from_body }),
            ));
        }
        // Type tables.
        let ntypes = self.p.types.len();
        let hier_of: Vec<_> = self.hier_of.clone();
        let slot_count: Vec<u32> = self.p.types.iter().map(|t| t.fields.len() as u32).collect();
        let nh = self.hiers.len();
        // from_runtime: pass 2 per concrete type.
        let from_arms = self
            .p
            .types
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_abstract)
            .map(|(i, t)| {
                let h = self.hier(TypeId(i as u32));
                let (node, arena) = (&h.node, &h.arena);
                let ctor = &self.type_ctor[i];
                let ti = i as u32;
                let args = t.fields.iter().enumerate().map(|(s, f)| {
                    let s = s as u32;
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Child(c) => {
                            let id = &self.hier(*c).id;
                            quote!(#id(rt_child(rt, n, #s, &map)))
                        }
                        FieldKind::List(c) => {
                            let id = &self.hier(*c).id;
                            quote!(rt_list(rt, n, #s, &map).into_iter().map(#id).collect())
                        }
                        FieldKind::Data(d) => {
                            let f = from(d);
                            quote!(#f(rt_data(rt, n, #s)))
                        }
                    }
                });
                quote!(#ti => { tree.#arena.push(#node::#ctor(#(#args),*)); })
            });
        let root_arms = self.hiers.iter().enumerate().map(|(i, h)| {
            let v = &self.variant[h.root.index()];
            let id = &h.id;
            quote!(#i => NodeRef::#v(#id(map[rt.root.index()])),)
        });
        let arenas: Vec<_> = self.hiers.iter().map(|h| &h.arena).collect();
        let idxs: Vec<_> = (0..nh).collect();
        // to_runtime.
        let maps: Vec<_> = self
            .hiers
            .iter()
            .map(|h| format_ident!("map_{}", h.arena))
            .collect();
        let pass1 = self.hiers.iter().enumerate().map(|(hi, h)| {
            let v = &self.variant[h.root.index()];
            let kind = &h.kind;
            let map = &maps[hi];
            let ty_arms = h.concrete.iter().map(|t| {
                let vv = &self.variant[t.index()];
                let ti = t.0;
                quote!(#kind::#vv => #ti,)
            });
            let child_arms = h.concrete.iter().map(|t| {
                let vv = &self.variant[t.index()];
                let pushes = self.p.types[t.index()].fields.iter().rev().filter_map(|f| {
                    let name = &self.field[f.index()];
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Child(c) => {
                            let cv = &self.variant[self.hier(*c).root.index()];
                            Some(quote!(stack.push(NodeRef::#cv(node.#name));))
                        }
                        FieldKind::List(c) => {
                            let cv = &self.variant[self.hier(*c).root.index()];
                            Some(quote!(stack.extend(node.#name.iter().rev().map(|&c| NodeRef::#cv(c)));))
                        }
                        FieldKind::Data(_) => None,
                    }
                });
                quote!(#kind::#vv => { #(#pushes)* })
            });
            quote!(NodeRef::#v(id) => {
                let node = &self[id];
                let ty: u32 = match node.kind { #(#ty_arms)* };
                #map[id.0 as usize] = rt.alloc(schema, treefuse_sema::TypeId(ty)).0;
                match node.kind { #(#child_arms)* }
            })
        });
        let pass2 = self.hiers.iter().enumerate().map(|(hi, h)| {
            let v = &self.variant[h.root.index()];
            let kind = &h.kind;
            let map = &maps[hi];
            let arms = h.concrete.iter().map(|t| {
                let vv = &self.variant[t.index()];
                let sets = self.p.types[t.index()].fields.iter().enumerate().map(|(s, f)| {
                    let s = s as u32;
                    let name = &self.field[f.index()];
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Child(c) => {
                            let cm = &maps[self.hier_of[c.index()]];
                            quote!(*rt.slot_mut(n, #s) = RtSlot::Child(RtNodeId(#cm[node.#name.0 as usize]));)
                        }
                        FieldKind::List(c) => {
                            let cm = &maps[self.hier_of[c.index()]];
                            quote!(*rt.slot_mut(n, #s) = RtSlot::List(node.#name.iter().map(|c| RtNodeId(#cm[c.0 as usize])).collect());)
                        }
                        FieldKind::Data(d) => {
                            let f = to(d);
                            quote!(*rt.slot_mut(n, #s) = RtSlot::Data(#f(&node.#name));)
                        }
                    }
                });
                quote!(#kind::#vv => { #(#sets)* })
            });
            let arms = quote!(#(#arms)*);
            // A hierarchy whose types have no fields sets nothing.
            let n = if mentions(&arms, "n") {
                quote!(n)
            } else {
                quote!(_n)
            };
            quote!(NodeRef::#v(id) => {
                let node = &self[id];
                let #n = RtNodeId(#map[id.0 as usize]);
                match node.kind { #arms }
            })
        });
        let gnames = &self.global;
        let gfrom: Vec<_> = self.p.globals.iter().map(|g| from(&g.ty)).collect();
        let gto: Vec<_> = self.p.globals.iter().map(|g| to(&g.ty)).collect();
        let iter_values = if self.p.globals.is_empty() {
            quote!()
        } else {
            quote!(let mut values = values.iter();)
        };
        let values = if self.p.globals.is_empty() {
            quote!(_values)
        } else {
            quote!(values)
        };
        // Runs by name, with interpreter values as arguments.
        let mut dyn_arms = TokenStream::new();
        for fuse in &self.p.fuses {
            let base = crate::names::snake(&fuse.name);
            let name = &fuse.name;
            let convs: Vec<_> = fuse.frame.locals[..fuse.frame.num_params]
                .iter()
                .map(|(_, t)| {
                    let f = from(t);
                    quote!(#f(args.next().unwrap_or(&ZERO)))
                })
                .collect();
            for (kind, fused) in [("unfused", false), ("fused", true)] {
                let run = format_ident!("run_{base}_{kind}_counted");
                dyn_arms.extend(quote!((#name, #fused) => {
                    let mut args = args.iter();
                    super::#run(&mut tree, &mut globals #(, #convs)*)
                }));
            }
        }
        let code = quote!(
            /// Runs `fuse` item `name` (fused or unfused) on a copy of an
            /// arena tree of `treefuse-runtime`, with arguments as interpreter
            /// values; returns the output JSON (tree and globals) and the node
            /// visits, or `None` if there is no such item.
            #[allow(unused_mut, unused_variables)]
            pub fn run_by_name(
                schema: &treefuse_sema::Program,
                name: &str,
                fused: bool,
                input: &treefuse_runtime::Tree,
                args: &[RtValue],
            ) -> Option<Result<(String, u64), RuntimeError>> {
                let mut tree = Tree::from_runtime(input);
                let mut globals = Globals::default();
                let r = match (name, fused) {
                    #dyn_arms
                    _ => return None,
                };
                Some(r.map(|visits| (write_json(schema, &tree, &globals), visits)))
            }

            /// The program's source; the JSON layer checks it again for the
            /// schema (see [`schema`]).
            pub const SOURCE: &str = #source;

            /// The checked program, the schema for reading and writing trees.
            pub fn schema() -> treefuse_sema::Program {
                match treefuse_sema::compile(SOURCE) {
                    Ok(p) => p,
                    Err(d) => panic!("the generated module's source no longer checks: {d:?}"),
                }
            }

            /// Reads a JSON tree (LANGUAGE.md §4) whose root is a `root_type`.
            pub fn read_json(schema: &treefuse_sema::Program, root_type: &str, text: &str) -> Result<Tree, String> {
                let root = schema.type_named(root_type).ok_or_else(|| format!("no tree type `{root_type}`"))?;
                let rt = treefuse_runtime::read_tree(schema, root, text).map_err(|e| e.to_string())?;
                Ok(Tree::from_runtime(&rt))
            }

            /// Writes the tree as JSON with the globals under `"globals"`.
            pub fn write_json(schema: &treefuse_sema::Program, tree: &Tree, globals: &Globals) -> String {
                let rt = tree.to_runtime(schema);
                treefuse_runtime::write_tree(schema, &rt, Some(&globals.to_values()), Default::default())
            }

            const HIER_OF: [usize; #ntypes] = [#(#hier_of),*];
            const SLOT_COUNT: [u32; #ntypes] = [#(#slot_count),*];


            impl Globals {
                /// Globals from interpreter values (indexed like the program's globals).
                pub fn from_values(#values: &[RtValue]) -> Globals {
                    #iter_values
                    Globals { #(#gnames: #gfrom(values.next().unwrap_or(&ZERO)),)* }
                }

                /// The globals as interpreter values.
                pub fn to_values(&self) -> Vec<RtValue> {
                    vec![#(#gto(&self.#gnames)),*]
                }
            }

            impl Tree {
                /// Converts an arena tree of `treefuse-runtime` (its reachable
                /// part), iteratively.
                pub fn from_runtime(rt: &treefuse_runtime::Tree) -> Tree {
                    let mut map = vec![u32::MAX; rt.allocated()];
                    let mut counts = [0u32; #nh];
                    let mut order = Vec::new();
                    let mut stack = vec![rt.root];
                    while let Some(n) = stack.pop() {
                        let ty = rt.type_of(n).index();
                        let h = HIER_OF[ty];
                        map[n.index()] = counts[h];
                        counts[h] += 1;
                        order.push(n);
                        for s in (0..SLOT_COUNT[ty]).rev() {
                            match rt.slot(n, s) {
                                RtSlot::Child(c) => stack.push(*c),
                                RtSlot::List(items) => stack.extend(items.iter().rev().copied()),
                                RtSlot::Data(_) => {}
                            }
                        }
                    }
                    let root = match HIER_OF[rt.type_of(rt.root).index()] {
                        #(#root_arms)*
                        _ => unreachable!("every type belongs to a hierarchy"),
                    };
                    let mut tree = Tree {
                        root,
                        #(#arenas: Vec::with_capacity(counts[#idxs] as usize),)*
                    };
                    for &n in &order {
                        // One arm per concrete type; with a single type
                        // clippy would rather see an `if`.
                        #[allow(clippy::single_match)]
                        match rt.type_of(n).0 {
                            #(#from_arms)*
                            _ => {}
                        }
                    }
                    tree
                }

                /// Converts the reachable part of the tree into an arena tree
                /// of `treefuse-runtime`, iteratively.
                pub fn to_runtime(&self, schema: &treefuse_sema::Program) -> treefuse_runtime::Tree {
                    let mut rt = treefuse_runtime::Tree::new();
                    #(let mut #maps = vec![u32::MAX; self.#arenas.len()];)*
                    let mut order = Vec::new();
                    let mut stack = vec![self.root];
                    while let Some(r) = stack.pop() {
                        order.push(r);
                        match r { #(#pass1)* }
                    }
                    for r in order {
                        match r { #(#pass2)* }
                    }
                    rt.root = RtNodeId(0);
                    rt
                }
            }
        );
        let mut code = code;
        helpers.push((
            "ZERO".into(),
            quote!(
                static ZERO: RtValue = RtValue::Int(0);
            ),
        ));
        helpers.push((
            "rt_data".into(),
            quote!(
                fn rt_data(rt: &treefuse_runtime::Tree, n: RtNodeId, s: u32) -> &RtValue {
                    match rt.slot(n, s) {
                        RtSlot::Data(v) => v,
                        _ => &ZERO,
                    }
                }
            ),
        ));
        helpers.push((
            "rt_child".into(),
            quote!(
                fn rt_child(rt: &treefuse_runtime::Tree, n: RtNodeId, s: u32, map: &[u32]) -> u32 {
                    match rt.slot(n, s) {
                        RtSlot::Child(c) => map[c.index()],
                        _ => u32::MAX,
                    }
                }
            ),
        ));
        helpers.push((
            "rt_list".into(),
            quote!(
                fn rt_list(
                    rt: &treefuse_runtime::Tree,
                    n: RtNodeId,
                    s: u32,
                    map: &[u32],
                ) -> Vec<u32> {
                    match rt.slot(n, s) {
                        RtSlot::List(items) => items.iter().map(|c| map[c.index()]).collect(),
                        _ => Vec::new(),
                    }
                }
            ),
        ));
        // Keep only the helpers something uses.
        let mut included = vec![false; helpers.len()];
        loop {
            let mut changed = false;
            for (i, (name, _)) in helpers.iter().enumerate() {
                if !included[i] && mentions(&code, name) {
                    included[i] = true;
                    code.extend(helpers[i].1.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        quote!(
            /// JSON trees through `treefuse-runtime` (LANGUAGE.md §4): its
            /// reader and writer are iterative, so 10^6-deep documents are fine.
            pub mod json {
                #![allow(clippy::redundant_closure)]
                use super::*;
                use treefuse_runtime::{NodeId as RtNodeId, Slot as RtSlot};
                use treefuse_sema::Value as RtValue;
                #code
            }
            pub use json::{read_json, run_by_name, schema, write_json, SOURCE};
        )
    }
}
