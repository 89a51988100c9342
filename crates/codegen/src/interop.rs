//! The JSON layer of a generated module: conversion from and to
//! `treefuse_runtime::Tree`, whose iterative reader and writer implement
//! LANGUAGE.md §4 once for every engine. What is not particular to the
//! program (value conversions of the built-in types, slot access, the
//! pre-order numbering, reading and writing JSON) is in
//! `treefuse_runtime::generated::interop`; the module holds the
//! conversions of its records and enums and one arm per concrete type.

use crate::gen::*;
use proc_macro2::TokenStream;
use quote::quote;
use treefuse_sema::*;

impl Gen<'_> {
    /// The `Convert` impls of the program's records and enums (the
    /// runtime converts every other data type).
    fn convert_impls(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for name in &self.enum_name {
            out.extend(quote!(
                impl Convert for #name {
                    fn to_value(&self) -> RtValue {
                        RtValue::Enum(*self as u32)
                    }
                    fn from_value(v: &RtValue) -> Self {
                        #name::from_index(enum_index(v))
                    }
                }
            ));
        }
        for (name, fs) in self.rec.iter().zip(&self.rec_fields) {
            let values = vec_literal(fs.iter().map(|f| quote!(to_value(&self.#f))));
            let (v, fields) = if fs.is_empty() {
                (quote!(_v), quote!())
            } else {
                (quote!(v), quote!(let mut fields = record_fields(v);))
            };
            out.extend(quote!(
                impl Convert for #name {
                    fn to_value(&self) -> RtValue {
                        RtValue::Record(Arc::new(#values))
                    }
                    fn from_value(#v: &RtValue) -> Self {
                        #fields
                        #name { #(#fs: next_field(&mut fields)),* }
                    }
                }
            ));
        }
        out
    }

    pub fn interop(&self, source: &str) -> TokenStream {
        // Type tables.
        let ntypes = self.p.types.len();
        let hier_of: Vec<_> = self.hier_of.clone();
        let nh = self.hiers.len();
        // from_runtime: pass 2 per concrete type.
        let from_arms = self
            .p
            .types
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_abstract)
            .map(|(i, t)| {
                let ti = i as u32;
                let args = t.fields.iter().enumerate().map(|(s, f)| {
                    let s = s as u32;
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Child(c) if self.p.is_optional(*f) => {
                            let id = &self.hier(*c).id;
                            quote!(rt_child_opt(rt, n, #s, &map).map(#id))
                        }
                        FieldKind::Child(c) => {
                            let id = &self.hier(*c).id;
                            quote!(#id(rt_child(rt, n, #s, &map)))
                        }
                        FieldKind::List(c) => {
                            let id = &self.hier(*c).id;
                            quote!(rt_list(rt, n, #s, &map).into_iter().map(#id).collect())
                        }
                        FieldKind::Data(_) => quote!(from_value(&rt_data(rt, n, #s))),
                    }
                });
                let push = self.push_node(TypeId(ti), quote!(tree), args.collect());
                quote!(#ti => { #push; })
            });
        let root_arms = self.hiers.iter().enumerate().map(|(i, h)| {
            let v = &self.variant[h.root.index()];
            let id = &h.id;
            quote!(#i => NodeRef::#v(#id(map[rt.root.index()])),)
        });
        let arenas: Vec<_> = self.hiers.iter().map(|h| &h.arena).collect();
        let idxs: Vec<_> = (0..nh).collect();
        // The cold tables, if any, start empty.
        let rest = if self.cold_struct.iter().any(Option::is_some) {
            quote!(..Tree::default())
        } else {
            quote!()
        };
        // to_runtime.
        // Distinct even where two arenas' names differ only in case or
        // underscores (`push_const`, `_push_const`).
        let mut map_names = crate::names::Names::with_reserved(&[]);
        let maps: Vec<_> = self
            .hiers
            .iter()
            .map(|h| map_names.fresh_value(&format!("map_{}", h.arena)))
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
                        FieldKind::Child(c) if self.p.is_optional(*f) => {
                            let cv = &self.variant[self.hier(*c).root.index()];
                            Some(quote!(if let Some(c) = node.#name { stack.push(NodeRef::#cv(c)); }))
                        }
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
                #map[id.0 as usize] = rt.alloc(schema, sema::TypeId(ty)).0;
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
                        FieldKind::Child(c) if self.p.is_optional(*f) => {
                            let cm = &maps[self.hier_of[c.index()]];
                            quote!(rt.set_slot(n, #s, match node.#name {
                                Some(c) => RtSlot::Child(RtNodeId(#cm[c.0 as usize])),
                                None => RtSlot::Empty,
                            });)
                        }
                        FieldKind::Child(c) => {
                            let cm = &maps[self.hier_of[c.index()]];
                            quote!(rt.set_slot(n, #s, RtSlot::Child(RtNodeId(#cm[node.#name.0 as usize])));)
                        }
                        FieldKind::List(c) => {
                            let cm = &maps[self.hier_of[c.index()]];
                            quote!(rt.set_slot(n, #s, RtSlot::List(node.#name.iter().map(|c| RtNodeId(#cm[c.0 as usize])).collect()));)
                        }
                        FieldKind::Data(_) if self.cold[f.index()] => {
                            let place = self.field_place(*t, *f, &quote!(self), &quote!(node), &quote!(id));
                            quote!(rt.set_slot(n, #s, RtSlot::Data(to_value(&#place)));)
                        }
                        FieldKind::Data(_) => {
                            quote!(rt.set_slot(n, #s, RtSlot::Data(to_value(&node.#name)));)
                        }
                    }
                });
                quote!(#kind::#vv => { #(#sets)* })
            });
            let arms = quote!(#(#arms)*);
            // A hierarchy whose types have no fields sets nothing.
            let n = if uses_var(&arms, "n") {
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
        let global_values = vec_literal(gnames.iter().map(|g| quote!(to_value(&self.#g))));
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
        for (fuse, entry) in self.p.fuses.iter().zip(&self.entry_fn) {
            let name = &fuse.name;
            let convs: Vec<_> = fuse.frame.locals[..fuse.frame.num_params]
                .iter()
                .map(|_| quote!(next_field(&mut args)))
                .collect();
            for (names, fused) in entry.iter().zip([false, true]) {
                let run = &names.counted;
                dyn_arms.extend(quote!((#name, #fused) => {
                    let mut args = args.iter();
                    super::#run(&mut tree, &mut globals #(, #convs)*)
                }));
            }
        }
        // With parallel entry points, the same by name for them.
        let parallel_by_name = if self.par_entry_fn.is_empty() {
            quote!()
        } else {
            let arms = self
                .p
                .fuses
                .iter()
                .zip(&self.par_entry_fn)
                .map(|(fuse, names)| {
                    let name = &fuse.name;
                    let run = &names.counted;
                    let convs = fuse.frame.locals[..fuse.frame.num_params]
                        .iter()
                        .map(|_| quote!(next_field(&mut args)));
                    quote!(#name => {
                        let mut args = args.iter();
                        super::#run(&mut tree, &mut globals #(, #convs)*, par)
                    })
                });
            quote!(
                /// [`run_by_name`] fused and in parallel
                /// (`run_<fuse>_parallel`) with the options `par`.
                #[allow(unused_mut, unused_variables)]
                pub fn run_parallel_by_name(
                    schema: &sema::Program,
                    name: &str,
                    input: &RtTree,
                    args: &[RtValue],
                    par: &Parallel,
                ) -> Option<Result<(String, u64), RuntimeError>> {
                    let mut tree = Tree::from_runtime(input);
                    let mut globals = Globals::default();
                    let r = match name {
                        #(#arms)*
                        _ => return None,
                    };
                    Some(r.map(|visits| (write_json(schema, &tree, &globals), visits)))
                }
            )
        };
        let reexport = if self.par_entry_fn.is_empty() {
            quote!(
                pub use json::{read_json, run_by_name, schema, write_json, SOURCE};
            )
        } else {
            quote!(
                pub use json::{
                    read_json, run_by_name, run_parallel_by_name, schema, write_json, SOURCE,
                };
            )
        };
        let code = quote!(
            #parallel_by_name

            /// Runs `fuse` item `name` (fused or unfused) on a copy of an
            /// arena tree of `treefuse-runtime`, with arguments as interpreter
            /// values; returns the output JSON (tree and globals) and the node
            /// visits, or `None` if there is no such item.
            #[allow(unused_mut, unused_variables)]
            pub fn run_by_name(
                schema: &sema::Program,
                name: &str,
                fused: bool,
                input: &RtTree,
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
            pub fn schema() -> sema::Program {
                schema_of(SOURCE)
            }

            /// Reads a JSON tree (LANGUAGE.md §4) whose root is a `root_type`.
            pub fn read_json(schema: &sema::Program, root_type: &str, text: &str) -> Result<Tree, String> {
                let rt = read_runtime_tree(schema, root_type, text)?;
                Ok(Tree::from_runtime(&rt))
            }

            /// Writes the tree as JSON with the globals under `"globals"`.
            pub fn write_json(schema: &sema::Program, tree: &Tree, globals: &Globals) -> String {
                write_runtime_tree(schema, &tree.to_runtime(schema), &globals.to_values())
            }

            /// The hierarchy of each type of the program, by type index.
            const HIER_OF: [usize; #ntypes] = [#(#hier_of),*];

            impl Globals {
                /// Globals from interpreter values (indexed like the program's globals).
                pub fn from_values(#values: &[RtValue]) -> Globals {
                    #iter_values
                    Globals { #(#gnames: next_field(&mut values),)* }
                }

                /// The globals as interpreter values.
                pub fn to_values(&self) -> Vec<RtValue> {
                    #global_values
                }
            }

            impl Tree {
                /// Converts an arena tree of `treefuse-runtime` (its reachable
                /// part), iteratively.
                pub fn from_runtime(rt: &RtTree) -> Tree {
                    let Numbering { map, counts, order } = Numbering::new(rt, &HIER_OF, #nh);
                    if order.is_empty() {
                        // An empty tree: the run_* entry points report it.
                        return Tree::default();
                    }
                    let root = match HIER_OF[rt.type_of(rt.root).index()] {
                        #(#root_arms)*
                        _ => unreachable!("every type belongs to a hierarchy"),
                    };
                    let mut tree = Tree {
                        root,
                        #(#arenas: Vec::with_capacity(counts[#idxs] as usize),)*
                        #rest
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
                pub fn to_runtime(&self, schema: &sema::Program) -> RtTree {
                    let mut rt = RtTree::new();
                    if self.is_empty() {
                        return rt;
                    }
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
        code.extend(self.convert_impls());
        quote!(
            /// JSON trees through `treefuse-runtime` (LANGUAGE.md §4): its
            /// reader and writer are iterative, so 10^6-deep documents are fine.
            pub mod json {
                use super::*;
                // Which of these a program needs depends on its types.
                #[allow(unused_imports)]
                use treefuse_runtime::{
                    generated::interop::{
                        enum_index, from_value, next_field, read_runtime_tree, record_fields,
                        rt_child, rt_child_opt, rt_data, rt_list, schema_of, to_value, write_runtime_tree,
                        Convert, Numbering,
                    },
                    sema::{self, Value as RtValue},
                    NodeId as RtNodeId, Slot as RtSlot, Tree as RtTree,
                };
                #code
            }
            #reexport
        )
    }
}
