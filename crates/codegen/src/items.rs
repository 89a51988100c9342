//! Items of the generated module: types, traversals, fused functions,
//! entry points.

use crate::gen::*;
use crate::names::{ident, snake, Names};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};
use treefuse_fusion::{FusedFnId, LoopStep, ParticipantMask, Step, WideMask};
use treefuse_sema::*;

/// Lints that fire on patterns users write in traversal code (`x * 1`, an
/// early `return` at the end, dead stores, self-assignments, many
/// parameters after fusion); the module of generated functions allows them.
pub(crate) fn fn_allows() -> TokenStream {
    quote!(#![allow(
        unknown_lints,
        renamed_and_removed_lints,
        clippy::needless_return,
        // `match` as users write it: `match e { A => A, _ => e }`,
        // `{ A => true, _ => false }`, `{ _ => x }`, `A | _`, `1 | 2 | 3`.
        clippy::needless_match,
        clippy::match_like_matches_macro,
        clippy::match_single_binding,
        clippy::wildcard_in_or_patterns,
        clippy::manual_range_patterns,
        clippy::useless_vec,
        clippy::needless_question_mark,
        clippy::self_assignment,
        clippy::almost_swapped,
        clippy::unnecessary_min_or_max,
        clippy::no_effect,
        clippy::unnecessary_operation,
        clippy::ifs_same_cond,
        clippy::double_comparisons,
        clippy::impossible_comparisons,
        clippy::redundant_comparisons,
        clippy::neg_cmp_op_on_partial_ord,
        clippy::zero_divided_by_zero,
        // `7 != 6 & g`: a comparison with a masked value that cannot hold.
        clippy::bad_bit_mask,
        clippy::ineffective_bit_mask,
        clippy::modulo_one,
        clippy::manual_clamp,
        clippy::comparison_chain,
        clippy::short_circuit_statement,
        clippy::nonminimal_bool,
        clippy::cmp_owned,
        clippy::op_ref,
        clippy::single_element_loop,
        clippy::never_loop,
        clippy::redundant_locals,
        clippy::only_used_in_recursion,
        clippy::const_is_empty,
        clippy::len_zero,
        clippy::too_many_arguments,
        clippy::collapsible_if,
        clippy::collapsible_else_if,
        clippy::identity_op,
        clippy::erasing_op,
        clippy::bool_comparison,
        // `if c { x = true; } else { x = false; }` as the program wrote it.
        clippy::needless_bool_assign,
        clippy::neg_multiply,
        clippy::int_plus_one,
        clippy::precedence,
        clippy::unnecessary_cast,
        clippy::let_and_return,
        clippy::needless_late_init,
        clippy::overly_complex_bool_expr,
        clippy::eq_op,
        clippy::absurd_extreme_comparisons,
        clippy::redundant_clone,
        clippy::manual_range_contains,
        clippy::assign_op_pattern,
        clippy::if_same_then_else,
        clippy::needless_bool,
        unused_parens,
        unused_mut,
        clippy::double_parens,
        clippy::vec_init_then_push,
        unreachable_code,
        unused_assignments,
        dead_code
    )])
}

/// Whether reading a fused function's child ids once at its start was
/// sound (see `Gen::fused_fn`).
enum Hoisting {
    Sound,
    /// Something else may write a hoisted slot.
    Unsound,
    /// These hoisted slots are only assigned, never read: hoist the others.
    WrittenUnread(Vec<FieldId>),
}

impl Gen<'_> {
    // ------------------------------------------------------------ types

    pub fn types(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for h in &self.hiers {
            let (node, id, kind, push, arena) = (&h.node, &h.id, &h.kind, &h.push, &h.arena);
            let root_name = &self.p.types[h.root.index()].name;
            let id_doc =
                format!("A node of the `{root_name}` hierarchy: an index into `Tree::{arena}`.");
            let kind_doc = format!("The concrete type of a node of the `{root_name}` hierarchy.");
            let node_doc = format!(
                "A node of the `{root_name}` hierarchy: its kind and the fields of its concrete type, in slots shared by the types of the hierarchy (fields that no type has together share a slot), so that each is reached directly; `kind` says which fields the slots hold."
            );
            let variants: Vec<_> = h
                .concrete
                .iter()
                .map(|t| &self.variant[t.index()])
                .collect();
            let vnames: Vec<_> = h
                .concrete
                .iter()
                .map(|t| self.p.types[t.index()].name.clone())
                .collect();
            // Layout (`repr(C)`, so the order below is the order in memory):
            // the kind, then the shared slots (`assign_slots`). Left to itself
            // rustc would order by alignment and put the one-byte kind at the
            // very end.
            let fields: Vec<_> = h.slots.iter().map(|s| &s.name).collect();
            let ftypes: Vec<_> = h
                .slots
                .iter()
                .map(|s| self.field_type(s.fields[0]))
                .collect();
            let fdocs: Vec<_> = h
                .slots
                .iter()
                .map(|s| {
                    let names: Vec<String> =
                        s.fields.iter().map(|f| self.field_label(*f)).collect();
                    names.join(", ")
                })
                .collect();
            let kind_enum = if variants.is_empty() {
                quote!(
                    #[doc = #kind_doc]
                    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                    pub enum #kind {}
                    impl #kind {
                        /// The type's name.
                        pub fn name(self) -> &'static str {
                            match self {}
                        }
                    }
                )
            } else {
                quote!(
                    #[doc = #kind_doc]
                    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
                    #[allow(non_camel_case_types)]
                    pub enum #kind { #(#[doc = #vnames] #variants),* }
                    impl #kind {
                        /// The type's name.
                        pub fn name(self) -> &'static str {
                            match self { #(#kind::#variants => #vnames),* }
                        }
                    }
                )
            };
            // One constructor per concrete type: its fields in order (the
            // cold ones go to the cold struct's constructor).
            let ctors = self.slot_ctors(h);
            let cold_items = self.cold_structs(h);
            let accessors = self.slot_accessors(h);
            out.extend(self.typed_api(h));
            let push_doc = format!("Adds a node to the `{root_name}` arena.");
            out.extend(quote!(
                #[doc = #id_doc]
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
                #[allow(non_camel_case_types)]
                pub struct #id(pub u32);

                #kind_enum

                #[doc = #node_doc]
                #[derive(Clone, Debug, PartialEq)]
                #[repr(C)]
                #[allow(non_camel_case_types)]
                pub struct #node {
                    /// The node's concrete type.
                    pub kind: #kind,
                    #(#[doc = #fdocs] pub #fields: #ftypes,)*
                }

                impl #node {
                    #(#ctors)*
                    #accessors
                }

                impl std::ops::Index<#id> for Tree {
                    type Output = #node;
                    #[inline]
                    fn index(&self, id: #id) -> &#node {
                        &self.#arena[id.0 as usize]
                    }
                }

                impl std::ops::IndexMut<#id> for Tree {
                    #[inline]
                    fn index_mut(&mut self, id: #id) -> &mut #node {
                        &mut self.#arena[id.0 as usize]
                    }
                }

                impl Tree {
                    #[doc = #push_doc]
                    pub fn #push(&mut self, node: #node) -> #id {
                        let id = #id(self.#arena.len() as u32);
                        self.#arena.push(node);
                        id
                    }
                }

                #cold_items
            ));
        }
        // The tree and its root.
        let arenas: Vec<_> = self.hiers.iter().map(|h| &h.arena).collect();
        let nodes: Vec<_> = self.hiers.iter().map(|h| &h.node).collect();
        let ids: Vec<_> = self.hiers.iter().map(|h| &h.id).collect();
        let roots: Vec<_> = self
            .hiers
            .iter()
            .map(|h| &self.variant[h.root.index()])
            .collect();
        let getters = self.hiers.iter().map(|h| {
            let v = &self.variant[h.root.index()];
            let id = &h.id;
            let arena = &h.arena;
            let doc = format!(
                "The node if it is in the `{}` hierarchy.",
                self.p.types[h.root.index()].name
            );
            let other = if self.hiers.len() > 1 {
                quote!(_ => None,)
            } else {
                quote!()
            };
            quote!(
                #[doc = #doc]
                pub fn #arena(self) -> Option<#id> {
                    match self {
                        NodeRef::#v(id) => Some(id),
                        #other
                    }
                }
            )
        });
        let narenas = arenas.len();
        let (cold_tables, cold_nodes): (Vec<_>, Vec<_>) = self
            .cold_struct
            .iter()
            .flatten()
            .map(|c| (&c.table, &c.name))
            .unzip();
        let first_root = roots.first().map(|v| quote!(NodeRef::#v(#(#ids)*(0))));
        let default_root = match (self.hiers.first(), first_root) {
            (Some(h), Some(_)) => {
                let v = &self.variant[h.root.index()];
                let id = &h.id;
                quote!(NodeRef::#v(#id(0)))
            }
            _ => quote!(unreachable!()),
        };
        out.extend(quote!(
            /// Any node: the hierarchy it belongs to and its id there.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            #[allow(non_camel_case_types)]
            pub enum NodeRef {
                #(
                    /// A node of this hierarchy.
                    #roots(#ids),
                )*
            }

            impl NodeRef {
                #(#getters)*
            }

            /// A tree: one arena per type hierarchy (children are ids into
            /// them) and the root. Replaced subtrees stay in the arenas as
            /// unreachable garbage.
            #[derive(Clone, Debug, PartialEq)]
            pub struct Tree {
                /// The root node.
                pub root: NodeRef,
                #(
                    /// Nodes of one hierarchy.
                    pub #arenas: Vec<#nodes>,
                )*
                #(
                    /// The cold fields of one type's nodes (fields no
                    /// traversal reads or writes), by node id.
                    pub #cold_tables: ColdTable<#cold_nodes>,
                )*
            }

            impl Default for Tree {
                /// The empty tree: no nodes, so no root node.
                fn default() -> Tree {
                    Tree {
                        root: #default_root,
                        #(#arenas: Vec::new(),)*
                        #(#cold_tables: ColdTable::default(),)*
                    }
                }
            }

            /// A concrete type's struct of the typed API (`TextBox`, ..):
            /// what `Tree::add` adds and `Tree::get` reads.
            pub trait TypedNode: Sized {
                /// The id of a node of this type's hierarchy.
                type Id;
                /// Adds the node to `tree` after checking that each child
                /// exists and is of a type its field accepts.
                fn add_to(self, tree: &mut Tree) -> Result<Self::Id, BuildError>;
                /// The node `id` if it is of this type.
                fn read(tree: &Tree, id: Self::Id) -> Option<Self>;
            }

            impl Tree {
                /// Adds a node given by its type's struct (`tree.add(TextBox {
                /// text: "hi".into(), next: end, ..Default::default() })`)
                /// and returns its id; a child that is not in the tree or
                /// of a type its field does not accept is an error, so a
                /// tree built this way is well typed. Children are added
                /// before their parent; set `root` at the end.
                pub fn add<N: TypedNode>(&mut self, node: N) -> Result<N::Id, BuildError> {
                    node.add_to(self)
                }

                /// The node `id` as its type's struct, if it is a node of
                /// type `N` (`tree.get::<TextBox>(id)`).
                pub fn get<N: TypedNode>(&self, id: N::Id) -> Option<N> {
                    N::read(self, id)
                }
            }

            impl Tree {
                /// Whether the tree has no root node (as the `Default`
                /// tree): running a `fuse` item on it is a runtime error.
                pub fn is_empty(&self) -> bool {
                    match self.root {
                        #(NodeRef::#roots(id) => id.0 as usize >= self.#arenas.len(),)*
                    }
                }

                /// The nodes in the arenas (replaced ones included).
                pub fn node_count(&self) -> usize {
                    let counts: [usize; #narenas] = [#(self.#arenas.len()),*];
                    counts.iter().sum()
                }

                /// The bytes of the nodes in the arenas and of their cold
                /// fields: each hierarchy's node size times its nodes, plus
                /// the entries of its cold table (what strings, lists and
                /// arrays hold on the heap is not counted).
                pub fn node_bytes(&self) -> usize {
                    let bytes: [usize; #narenas] =
                        [#(self.#arenas.len() * std::mem::size_of::<#nodes>()),*];
                    bytes.iter().sum::<usize>() #(+ self.#cold_tables.bytes())*
                }
            }
        ));
        out
    }

    /// Per concrete type of `h`, a constructor of the node struct taking
    /// the type's fields stored there (all but its cold ones), in
    /// declaration order; the other slots get blank values.
    fn slot_ctors(&self, h: &Hier) -> Vec<TokenStream> {
        let kind = &h.kind;
        h.concrete
            .iter()
            .map(|t| {
                let ty = &self.p.types[t.index()];
                let ctor = &self.type_ctor[t.index()];
                let v = &self.variant[t.index()];
                let node = &h.node;
                let hot: Vec<FieldId> = ty
                    .fields
                    .iter()
                    .copied()
                    .filter(|f| !self.cold[f.index()])
                    .collect();
                let own: Vec<_> = hot.iter().map(|f| self.member(*f)).collect();
                let own_t: Vec<_> = hot.iter().map(|f| self.field_type(*f)).collect();
                let inits = h.slots.iter().map(|slot| {
                    let name = &slot.name;
                    match hot.iter().position(|f| slot.fields.contains(f)) {
                        Some(i) => {
                            let param = &own[i];
                            if *param == *name {
                                quote!(#name)
                            } else {
                                quote!(#name: #param)
                            }
                        }
                        None => {
                            let blank = self.field_blank(slot.fields[0]);
                            quote!(#name: #blank)
                        }
                    }
                });
                let doc = match &self.cold_struct[t.index()] {
                    Some(c) => format!(
                        "A `{}` node with these fields (in declaration order; its cold fields are a `{}`).",
                        ty.name, c.name
                    ),
                    None => format!(
                        "A `{}` node with these fields (in declaration order).",
                        ty.name
                    ),
                };
                quote!(
                    #[doc = #doc]
                    #[allow(clippy::too_many_arguments)]
                    pub fn #ctor(#(#own: #own_t),*) -> #node {
                        #node { kind: #kind::#v, #(#inits),* }
                    }
                )
            })
            .collect()
    }

    /// A field as its doc comments name it: `` `Type.field` ``.
    fn field_label(&self, f: FieldId) -> String {
        let fd = &self.p.fields[f.index()];
        format!("`{}.{}`", self.p.types[fd.owner.index()].name, fd.name)
    }

    /// A field's name as a Rust identifier (a parameter or member).
    fn member(&self, f: FieldId) -> Ident {
        self.member[f.index()].clone()
    }

    /// The concrete types of `h` that have cold fields, with their cold
    /// structs.
    pub(crate) fn cold_types<'h>(
        &'h self,
        h: &'h Hier,
    ) -> impl Iterator<Item = (TypeId, &'h ColdStruct)> + 'h {
        h.concrete
            .iter()
            .filter_map(|t| self.cold_struct[t.index()].as_ref().map(|c| (*t, c)))
    }

    /// Per concrete type of `h` with cold fields: the struct of them and
    /// `Tree::push_T_with_cold`.
    fn cold_structs(&self, h: &Hier) -> TokenStream {
        let (node, id, push) = (&h.node, &h.id, &h.push);
        let mut out = TokenStream::new();
        for (t, c) in self.cold_types(h) {
            let (name, table, push_with) = (&c.name, &c.table, &c.push_with);
            let tname = &self.p.types[t.index()].name;
            let members: Vec<_> = c.fields.iter().map(|f| self.member(*f)).collect();
            let types: Vec<_> = c.fields.iter().map(|f| self.field_type(*f)).collect();
            let blanks: Vec<_> = c.fields.iter().map(|f| self.field_blank(*f)).collect();
            let docs: Vec<String> = c.fields.iter().map(|f| self.field_label(*f)).collect();
            let doc = format!(
                "The cold fields of a `{tname}` node: fields no traversal reads or writes, kept out of the node struct (in `Tree::{table}`) so that the walks do not carry them through the caches; they are read, written, built and copied with the tree all the same."
            );
            let push_doc = format!("Adds a `{tname}` node with its cold fields.");
            out.extend(quote!(
                #[doc = #doc]
                #[derive(Clone, Debug, PartialEq)]
                #[allow(non_camel_case_types)]
                pub struct #name {
                    #(#[doc = #docs] pub #members: #types,)*
                }

                impl Default for #name {
                    /// Blank values (what a node without an entry reads as).
                    fn default() -> #name {
                        #name { #(#members: #blanks),* }
                    }
                }

                impl Tree {
                    #[doc = #push_doc]
                    pub fn #push_with(&mut self, node: #node, cold: #name) -> #id {
                        let id = self.#push(node);
                        self.#table.insert(id.0, cold);
                        id
                    }
                }
            ));
        }
        out
    }

    /// Code adding a node of concrete type `t` to `tree` (an expression
    /// of `&mut Tree`), its fields given in declaration order by `args`:
    /// `tree.push_H(H::ctor(..))`, or for a type with cold fields
    /// `tree.push_T_with_cold(H::ctor(hot..), TCold { cold.. })`. Its
    /// value is the new id.
    pub(crate) fn push_node(
        &self,
        t: TypeId,
        tree: TokenStream,
        args: Vec<TokenStream>,
    ) -> TokenStream {
        let h = self.hier(t);
        let (node, push) = (&h.node, &h.push);
        let ctor = &self.type_ctor[t.index()];
        let fields = &self.p.types[t.index()].fields;
        let Some(c) = &self.cold_struct[t.index()] else {
            return quote!(#tree.#push(#node::#ctor(#(#args),*)));
        };
        let (name, push_with) = (&c.name, &c.push_with);
        let (mut hot_args, mut cold_inits) = (Vec::new(), Vec::new());
        for (f, a) in fields.iter().zip(args) {
            if self.cold[f.index()] {
                let m = self.member(*f);
                cold_inits.push(quote!(#m: #a));
            } else {
                hot_args.push(a);
            }
        }
        quote!(#tree.#push_with(#node::#ctor(#(#hot_args),*), #name { #(#cold_inits),* }))
    }

    /// Where field `f` of node `id` (an id expression), of concrete type
    /// `t`, is in `tree`, whose node struct is `node` (an expression of
    /// `&H`): `node.slot` or, for a cold field, `tree.T_cold.get(id.0).f`.
    pub(crate) fn field_place(
        &self,
        t: TypeId,
        f: FieldId,
        tree: &TokenStream,
        node: &TokenStream,
        id: &TokenStream,
    ) -> TokenStream {
        let slot = &self.field[f.index()];
        match &self.cold_struct[t.index()] {
            Some(c) if self.cold[f.index()] => {
                let table = &c.table;
                quote!(#tree.#table.get(#id.0).#slot)
            }
            _ => quote!(#node.#slot),
        }
    }

    /// The typed API of one hierarchy: per concrete type a struct of its
    /// fields by name (`TextBox { text, next, .. }`) whose `Default` gives
    /// data fields their declared defaults and leaves children unset, and
    /// its `TypedNode` impl: `add_to` checks that every child exists and is
    /// of a type the field accepts, then stores the node in its slots;
    /// `read` copies a node of that type back out.
    fn typed_api(&self, h: &Hier) -> TokenStream {
        let mut out = TokenStream::new();
        let (id, kind, arena) = (&h.id, &h.kind, &h.arena);
        let root_name = &self.p.types[h.root.index()].name;
        for &t in &h.concrete {
            let ty = &self.p.types[t.index()];
            let Some(name) = &self.type_struct[t.index()] else {
                continue;
            };
            let v = &self.variant[t.index()];
            let tname = &ty.name;
            let members: Vec<_> = ty.fields.iter().map(|f| self.member(*f)).collect();
            let mtypes: Vec<_> = ty.fields.iter().map(|f| self.field_type(*f)).collect();
            let mdocs: Vec<String> = ty
                .fields
                .iter()
                .map(|f| {
                    let fd = &self.p.fields[f.index()];
                    let owner = &self.p.types[fd.owner.index()].name;
                    match &fd.kind {
                        FieldKind::Child(c) if fd.optional => format!(
                            "`{owner}.{}`: an optional child, `None` or a `{}` node added before this one.",
                            fd.name,
                            self.p.types[c.index()].name
                        ),
                        FieldKind::Child(c) => format!(
                            "`{owner}.{}`: a child, a `{}` node added before this one.",
                            fd.name,
                            self.p.types[c.index()].name
                        ),
                        FieldKind::List(c) => format!(
                            "`{owner}.{}`: a list of `{}` nodes added before this one.",
                            fd.name,
                            self.p.types[c.index()].name
                        ),
                        FieldKind::Data(_) => format!("`{owner}.{}`.", fd.name),
                    }
                })
                .collect();
            let defaults = ty.fields.iter().map(|f| {
                let fd = &self.p.fields[f.index()];
                match (&fd.kind, self.p.field_default(t, *f)) {
                    (FieldKind::Data(d), Some(v)) => self.constant(v, d).ts,
                    _ => self.field_blank(*f),
                }
            });
            let checks = ty.fields.iter().zip(&members).filter_map(|(f, m)| {
                let fd = &self.p.fields[f.index()];
                let (FieldKind::Child(c) | FieldKind::List(c)) = &fd.kind else {
                    return None;
                };
                let ch = self.hier(*c);
                let (carena, ckind) = (&ch.arena, &ch.kind);
                let accepted: Vec<_> = self.p.types[c.index()]
                    .concrete_subtypes
                    .iter()
                    .map(|s| &self.variant[s.index()])
                    .collect();
                let (fname, cname) = (&fd.name, &self.p.types[c.index()].name);
                let bad = if accepted.len() == ch.concrete.len() {
                    quote!(found.is_none())
                } else {
                    quote!(!matches!(found, Some(#(#ckind::#accepted)|*)))
                };
                let check = |child: TokenStream| {
                    quote!(
                        let found = tree.#carena.get(#child.0 as usize).map(|n| n.kind);
                        if #bad {
                            return Err(BuildError::new(#tname, #fname, #cname, found.map(#ckind::name)));
                        }
                    )
                };
                Some(match &fd.kind {
                    FieldKind::List(_) => {
                        let check = check(quote!(child));
                        quote!(for &child in self.#m.iter() { #check })
                    }
                    // An optional child (§8.7) is checked when set.
                    _ if fd.optional => {
                        let check = check(quote!(child));
                        quote!(if let Some(child) = self.#m { #check })
                    }
                    _ => {
                        let check = check(quote!(self.#m));
                        quote!({ #check })
                    }
                })
            });
            let reads = ty.fields.iter().zip(&members).map(|(f, m)| {
                let place = self.field_place(t, *f, &quote!(tree), &quote!(n), &quote!(id));
                if self.field_is_copy(*f) {
                    quote!(#m: #place)
                } else {
                    quote!(#m: #place.clone())
                }
            });
            let add = self.push_node(
                t,
                quote!(tree),
                members.iter().map(|m| quote!(self.#m)).collect(),
            );
            let doc = format!(
                "A `{tname}` node (of the `{root_name}` hierarchy) by its fields, for building trees: `tree.add({name} {{ .., ..Default::default() }})` checks the children and returns the node's id; `tree.get::<{name}>(id)` reads one back."
            );
            let default_doc = format!(
                "Data fields at their declared defaults (the zero value if none is declared); children unset (`add` rejects a `{tname}` whose children are not set)."
            );
            out.extend(quote!(
                #[doc = #doc]
                #[derive(Clone, Debug, PartialEq)]
                #[allow(non_camel_case_types)]
                pub struct #name {
                    #(#[doc = #mdocs] pub #members: #mtypes,)*
                }

                impl Default for #name {
                    #[doc = #default_doc]
                    fn default() -> #name {
                        #name { #(#members: #defaults,)* }
                    }
                }

                impl TypedNode for #name {
                    type Id = #id;

                    fn add_to(self, tree: &mut Tree) -> Result<#id, BuildError> {
                        #(#checks)*
                        Ok(#add)
                    }

                    fn read(tree: &Tree, id: #id) -> Option<#name> {
                        let n = tree.#arena.get(id.0 as usize)?;
                        if n.kind != #kind::#v {
                            return None;
                        }
                        Some(#name { #(#reads,)* })
                    }
                }
            ));
        }
        out
    }

    /// Whether a field's Rust type is `Copy` (ids and scalars), so that it
    /// is read by value rather than cloned or borrowed.
    fn field_is_copy(&self, f: FieldId) -> bool {
        match &self.p.fields[f.index()].kind {
            FieldKind::Child(_) => true,
            FieldKind::List(_) => false,
            FieldKind::Data(d) => is_copy(d),
        }
    }

    /// Methods named after the fields stored in a slot of another name
    /// (`init()` and `init_mut()` for `Decl.init` in slot `init_or_e`):
    /// the field's value (a copy for ids and scalars, else a reference)
    /// and a mutable reference to it. They read the slot whatever the
    /// node's kind; which fields a node has is for its `kind` to say.
    fn slot_accessors(&self, h: &Hier) -> TokenStream {
        let mut names = Names::for_methods(&[]);
        for t in &h.concrete {
            names.fresh_value(&self.type_ctor[t.index()].to_string());
        }
        let mut wanted: Vec<(String, Vec<FieldId>)> = Vec::new();
        for slot in &h.slots {
            for &f in &slot.fields {
                let n = crate::names::safe(&snake(&self.p.fields[f.index()].name));
                if slot.name == n {
                    continue;
                }
                match wanted.iter_mut().find(|(w, _)| *w == n) {
                    Some((_, fs)) => fs.push(f),
                    None => wanted.push((n, vec![f])),
                }
            }
        }
        let mut out = TokenStream::new();
        for (n, fs) in &wanted {
            let slot_of = |f: FieldId| &self.field[f.index()];
            let one_slot = fs.iter().all(|f| slot_of(*f) == slot_of(fs[0]));
            let groups: Vec<(String, Vec<FieldId>)> = if one_slot {
                vec![(n.clone(), fs.clone())]
            } else {
                fs.iter()
                    .map(|&f| {
                        let owner = self.p.fields[f.index()].owner;
                        (
                            format!("{}_{n}", snake(&self.p.types[owner.index()].name)),
                            vec![f],
                        )
                    })
                    .collect()
            };
            for (name, fs) in groups {
                let get = names.fresh_value(&name);
                let set = names.fresh_value(&format!("{name}_mut"));
                let slot = slot_of(fs[0]);
                let ty = self.field_type(fs[0]);
                let of: Vec<String> = fs.iter().map(|f| self.field_label(*f)).collect();
                let doc = format!("{} (stored in `{slot}`).", of.join(", "));
                let getter = if self.field_is_copy(fs[0]) {
                    quote!(pub fn #get(&self) -> #ty { self.#slot })
                } else {
                    quote!(pub fn #get(&self) -> &#ty { &self.#slot })
                };
                // The accessors are named after the language's field and
                // return the slot it shares; another slot may be named
                // after that field (clippy's `misnamed_getters`, seen with
                // a slot `into_iterator` beside `fused_or_into_iterator_`).
                out.extend(quote!(
                    #[doc = #doc]
                    #[inline]
                    #[allow(clippy::misnamed_getters)]
                    #getter
                    #[doc = #doc]
                    #[inline]
                    #[allow(clippy::misnamed_getters)]
                    pub fn #set(&mut self) -> &mut #ty { &mut self.#slot }
                ));
            }
        }
        out
    }

    pub fn records(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, e) in self.p.enums.iter().enumerate() {
            let name = &self.enum_name[i];
            let vs = &self.enum_variants[i];
            let first = &vs[0];
            let rest = &vs[1..];
            let doc = format!(
                "`enum {}`; ordered by declaration, as map keys are.",
                e.name
            );
            let indices = (0..vs.len() as u32).collect::<Vec<_>>();
            out.extend(quote!(
                #[doc = #doc]
                #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
                #[allow(non_camel_case_types)]
                pub enum #name {
                    #[default]
                    #[allow(missing_docs)]
                    #first,
                    #(#[allow(missing_docs)] #rest),*
                }

                impl #name {
                    /// The variant with this index (declaration order); the
                    /// first for an index out of range.
                    pub fn from_index(i: u32) -> #name {
                        match i {
                            #(#indices => #name::#vs,)*
                            _ => #name::#first,
                        }
                    }
                }
            ));
        }
        for (i, r) in self.p.records.iter().enumerate() {
            let name = &self.rec[i];
            let fs = &self.rec_fields[i];
            let ts: Vec<_> = r.fields.iter().map(|f| self.data_type(&f.ty)).collect();
            let doc = format!("`record {}`.", r.name);
            out.extend(quote!(
                #[doc = #doc]
                #[derive(Clone, Debug, Default, PartialEq)]
                #[allow(non_camel_case_types)]
                pub struct #name { #(#[allow(missing_docs)] pub #fs: #ts),* }

                impl #name {
                    /// A record value, members in declaration order.
                    #[allow(clippy::too_many_arguments)]
                    pub fn new(#(#fs: #ts),*) -> #name {
                        #name { #(#fs),* }
                    }
                }
            ));
        }
        out
    }

    pub fn globals(&self) -> TokenStream {
        let names = &self.global;
        let docs: Vec<_> = self
            .p
            .globals
            .iter()
            .map(|g| format!("`global {}`.", g.name))
            .collect();
        let tys: Vec<_> = self
            .p
            .globals
            .iter()
            .map(|g| self.data_type(&g.ty))
            .collect();
        let inits: Vec<_> = self
            .p
            .globals
            .iter()
            .map(|g| self.constant(&g.init, &g.ty).ts)
            .collect();
        if self.p.globals.is_empty() {
            return quote!(
                /// The program's globals (it has none).
                #[derive(Clone, Debug, Default, PartialEq)]
                pub struct Globals {}
            );
        }
        quote!(
            /// The program's globals; `Default` gives their initial values.
            #[derive(Clone, Debug, PartialEq)]
            pub struct Globals { #(#[doc = #docs] pub #names: #tys,)* }

            #[allow(clippy::derivable_impls)]
            impl Default for Globals {
                fn default() -> Globals {
                    Globals { #(#names: #inits,)* }
                }
            }
        )
    }

    // ------------------------------------------------------------ functions

    pub fn pure_fns(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, f) in self.p.pure_fns.iter().enumerate() {
            let body = match &f.body {
                PureBody::Host => continue,
                PureBody::Expr(e) => vec![Stmt {
                    kind: StmtKind::Return(Some(e.clone())),
                    span: e.span,
                }],
                PureBody::Block(b) => b.clone(),
            };
            let mut u = Usage::default();
            usage(&body, &mut u);
            let mut ns = Names::for_locals(&self.locals_reserved);
            let mut fr = self.frame(format!("pure fn {}", f.name), &f.frame, &u, &mut ns, false);
            self.lend(&mut fr, Lender::Pure(i), &self.pure_lent[i]);
            *fr.moves.borrow_mut() = crate::moves::last_uses(&body);
            let params = self.params(&fr, &f.frame);
            let ret = self.data_type(&f.ret);
            let name = &self.pure[i];
            let node_fn = !f.node_params.is_empty();
            let fallible = self.pure_fallible[i];
            let code = match body.as_slice() {
                [Stmt {
                    kind: StmtKind::Return(Some(e)),
                    ..
                }] if matches!(f.body, PureBody::Expr(_)) => {
                    let e = self.expr(e, &fr).ts;
                    if fallible {
                        quote!(Ok(#e))
                    } else {
                        e
                    }
                }
                _ => self.block(&body, &fr, &Ret::Pure { fallible }),
            };
            // Only a function that can raise a runtime error returns a
            // `Result` (`treefuse_analysis::pure_fns_may_fail`).
            let ret = if fallible {
                quote!(Result<#ret, Fail>)
            } else {
                ret
            };
            let doc = format!("`pure fn {}` ({}).", f.name, self.source_pos(f.span));
            // A function that reads tree nodes (LANGUAGE §8.8) takes the
            // tree, then its parameters as written, nodes as ids.
            let generics = match &self.tree_param {
                Some(ta) if node_fn => quote!(<#ta: TreeAccess>),
                _ => quote!(),
            };
            let params = if node_fn {
                let t = if uses_var(&code, "t") {
                    quote!(t)
                } else {
                    quote!(_t)
                };
                let mut data = params.into_iter();
                let tree = self.tree_ty();
                let mut all = vec![quote!(#t: &#tree)];
                for pos in 0..f.arity() {
                    match f.node_param_at(pos) {
                        Some(k) => {
                            let n = &fr.nodes[k];
                            let id = &self.hier(f.node_params[k].1).id;
                            all.push(quote!(#n: #id));
                        }
                        None => all.extend(data.next()),
                    }
                }
                all
            } else {
                params
            };
            out.extend(quote!(
                #[doc = #doc]
                #[inline]
                pub fn #name #generics(#(#params),*) -> #ret {
                    #code
                }
            ));
        }
        out
    }

    /// Marks the parameters of `fr` that `lender`'s callers lend as held
    /// by reference.
    pub(crate) fn lend(&self, fr: &mut Frame, lender: Lender, lent: &[bool]) {
        fr.lender = Some(lender);
        for (param, &lent) in lent.iter().enumerate() {
            if lent {
                fr.borrowed.borrow_mut().insert(param);
            }
        }
    }

    /// The Rust type of a parameter of type `ty`: `&T` if lent (`&[T]`
    /// for an array).
    pub(crate) fn param_type(&self, ty: &DataType, lent: bool) -> TokenStream {
        match ty {
            DataType::Array(el) if lent => {
                let el = self.data_type(el);
                quote!(&[#el])
            }
            _ if lent => {
                let t = self.data_type(ty);
                quote!(&#t)
            }
            _ => self.data_type(ty),
        }
    }

    fn params(&self, fr: &Frame, layout: &FrameLayout) -> Vec<TokenStream> {
        (0..layout.num_params)
            .map(|i| {
                let n = &fr.locals[i];
                let t = self.param_type(&layout.locals[i].1, fr.borrowed.borrow().contains(&i));
                if fr.mutable.contains(&i) {
                    quote!(mut #n: #t)
                } else {
                    quote!(#n: #t)
                }
            })
            .collect()
    }

    /// `t`, `cx` and `this` parameters, with a `_` where the body does not
    /// use them.
    fn base_params(&self, code: &TokenStream, this_ty: &proc_macro2::Ident) -> TokenStream {
        let t = if uses_var(code, "t") {
            quote!(t)
        } else {
            quote!(_t)
        };
        let cx = if uses_var(code, "cx") {
            quote!(cx)
        } else {
            quote!(_cx)
        };
        let this = if uses_var(code, "this") {
            quote!(this)
        } else {
            quote!(_this)
        };
        let c = &self.count_param;
        let tree = self.tree_ty();
        quote!(#t: &mut #tree, #cx: &mut Cx<#c>, #this: #this_ty)
    }

    /// `, site: Site` for a function that needs to know where its
    /// receiver stands.
    fn site_param(&self, needed: bool, code: &TokenStream) -> TokenStream {
        match (needed, uses_var(code, "site")) {
            (false, _) => quote!(),
            (true, true) => quote!(, site: Site),
            (true, false) => quote!(, _site: Site),
        }
    }

    /// `Result<Replaced<Id>, Fail>` for a function that may replace its
    /// receiver, else `Result<(), Fail>`.
    pub fn result_type(&self, replaces: bool, id: &proc_macro2::Ident) -> TokenStream {
        if replaces {
            quote!(Result<Replaced<#id>, Fail>)
        } else {
            quote!(Result<(), Fail>)
        }
    }

    /// A call of a function returning `Result<()>` where the caller
    /// returns `Result<Replaced<_>>` (`widen`), or as it is.
    fn widened(call: TokenStream, widen: bool) -> TokenStream {
        if widen {
            quote!({
                #call?;
                Ok(Replaced::Kept)
            })
        } else {
            call
        }
    }

    /// One function per traversal body that some concrete type runs.
    pub fn bodies(&self) -> TokenStream {
        self.bodies_where(|i| !self.p.is_synthetic(self.p.bodies[i].method))
    }

    /// The unfused bodies `keep` selects (by index).
    fn bodies_where(&self, keep: impl Fn(usize) -> bool) -> TokenStream {
        let mut out = TokenStream::new();
        let mut used = vec![false; self.p.bodies.len()];
        for t in &self.p.types {
            if !t.is_abstract {
                for b in t.vtable.iter().flatten() {
                    used[b.index()] = true;
                }
            }
        }
        for (i, b) in self.p.bodies.iter().enumerate() {
            if !used[i] || !keep(i) {
                continue;
            }
            let stmts = b.body.clone().unwrap_or_default();
            let mut u = Usage::default();
            usage(&stmts, &mut u);
            let mut ns = Names::for_locals(&self.locals_reserved);
            let ctx = self.p.body_name(BodyId(i as u32));
            let mut fr = self.frame(ctx.clone(), &b.frame, &u, &mut ns, false);
            fr.owner = Some(b.owner);
            let m = b.method.index();
            self.lend(
                &mut fr,
                Lender::Body { method: m, body: i },
                &self.method_lent[m],
            );
            *fr.moves.borrow_mut() = crate::moves::last_uses(&stmts);
            let params = self.params(&fr, &b.frame);
            let replaces = self.rw.body_replaces[i];
            let mut code = self.block(&stmts, &fr, &Ret::Traversal { replaces });
            if !block_diverges(&stmts) {
                code.extend(if replaces {
                    quote!(Ok(Replaced::Kept))
                } else {
                    quote!(Ok(()))
                });
            }
            let id = &self.hier(b.owner).id;
            let base = self.base_params(&code, id);
            let site = self.site_param(self.rw.body_site[i], &code);
            let ret = self.result_type(replaces, id);
            let name = &self.body_fn[i];
            let doc = format!("{} as written.", self.body_at(BodyId(i as u32)));
            let generics = self.fn_generics();
            out.extend(quote!(
                #[doc = #doc]
                #[inline]
                fn #name #generics(#base #site #(, #params)*) -> #ret {
                    #code
                }
            ));
        }
        out
    }

    /// Deep copies of subtrees (`copy(PATH)`, LANGUAGE.md §7.3): per
    /// hierarchy, `copy_H(t, n)` copies node `n` and then, through a work
    /// stack of copied nodes whose children still are the originals
    /// (`copy_pending`), every node below, so deep subtrees need no
    /// recursion. Strings and maps are shared (immutable), arrays cloned.
    pub fn copy_fns(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let mut arms = Vec::new();
        // With parallel entry points, generic over the tree's access (a
        // worker of a parallel loop copies into its own part).
        let (generics, tree) = match &self.tree_param {
            Some(ta) => (quote!(<#ta: TreeAccess>), quote!(#ta)),
            None => (quote!(), quote!(Tree)),
        };
        for (hi, h) in self.hiers.iter().enumerate() {
            let (id, kind) = (&h.id, &h.kind);
            let v = &self.variant[h.root.index()];
            let f = &self.copy_fn[hi];
            let copy_top = self.copy_node(h, quote!(n));
            let children = &self.copy_children_fn[hi];
            let root = &self.p.types[h.root.index()];
            let doc = format!(
                "A deep copy of the `{}` ({}) subtree at `n`.",
                root.name,
                self.source_pos(root.span)
            );
            let child_doc = format!(
                "Replaces the children of the copied `{}` ({}) node `n` by copies, to be continued by `copy_pending`.",
                root.name,
                self.source_pos(root.span)
            );
            // Per concrete type: its child fields.
            let kind_arms: Vec<TokenStream> = h
                .concrete
                .iter()
                .filter_map(|t| {
                    let fields: Vec<TokenStream> = h
                        .fields
                        .iter()
                        .filter(|f| self.p.is_subtype(*t, self.p.fields[f.index()].owner))
                        .filter_map(|f| {
                            let name = &self.field[f.index()];
                            match &self.p.fields[f.index()].kind {
                                // An empty optional child stays empty (§8.7).
                                FieldKind::Child(ct) if self.p.is_optional(*f) => {
                                    let ch = self.hier(*ct);
                                    let cv = &self.variant[ch.root.index()];
                                    let copy = self.copy_node(ch, quote!(c));
                                    Some(quote!({
                                        if let Some(c) = t[n].#name {
                                            let c = #copy;
                                            t[n].#name = Some(c);
                                            stack.push(NodeRef::#cv(c));
                                        }
                                    }))
                                }
                                FieldKind::Child(ct) => {
                                    let ch = self.hier(*ct);
                                    let cv = &self.variant[ch.root.index()];
                                    let copy = self.copy_node(ch, quote!(c));
                                    Some(quote!({
                                        let c = t[n].#name;
                                        let c = #copy;
                                        t[n].#name = c;
                                        stack.push(NodeRef::#cv(c));
                                    }))
                                }
                                FieldKind::List(ct) => {
                                    let ch = self.hier(*ct);
                                    let cv = &self.variant[ch.root.index()];
                                    let copy = self.copy_node(ch, quote!(c));
                                    Some(quote!({
                                        let items = t[n].#name.clone();
                                        let mut copied = Vec::with_capacity(items.len());
                                        for &c in items.iter() {
                                            let c = #copy;
                                            stack.push(NodeRef::#cv(c));
                                            copied.push(c);
                                        }
                                        t[n].#name = Arc::from(copied);
                                    }))
                                }
                                FieldKind::Data(_) => None,
                            }
                        })
                        .collect();
                    if fields.is_empty() {
                        return None;
                    }
                    let tv = &self.variant[t.index()];
                    Some(quote!(#kind::#tv => { #(#fields)* }))
                })
                .collect();
            let body = if kind_arms.is_empty() {
                quote!(let _ = (t, n, stack);)
            } else {
                quote!(
                    match t[n].kind {
                        #(#kind_arms)*
                        _ => {}
                    }
                )
            };
            out.extend(quote!(
                #[doc = #doc]
                fn #f #generics(t: &mut #tree, n: #id) -> #id {
                    let top = #copy_top;
                    let mut stack = vec![NodeRef::#v(top)];
                    copy_pending(t, &mut stack);
                    top
                }

                #[doc = #child_doc]
                #[allow(clippy::single_match, clippy::match_single_binding, unreachable_patterns)]
                fn #children #generics(t: &mut #tree, n: #id, stack: &mut Vec<NodeRef>) {
                    #body
                }
            ));
            arms.push(quote!(NodeRef::#v(n) => #children(t, n, stack),));
        }
        out.extend(quote!(
            /// Copies the children of the copied nodes on `stack` until none is left.
            fn copy_pending #generics(t: &mut #tree, stack: &mut Vec<NodeRef>) {
                while let Some(top) = stack.pop() {
                    match top {
                        #(#arms)*
                    }
                }
            }
        ));
        out
    }

    /// A copy of node `n` (an id of hierarchy `h`) added to `t`, with its
    /// cold fields: the new id. Its children are still `n`'s.
    fn copy_node(&self, h: &Hier, n: TokenStream) -> TokenStream {
        let (push, kind) = (&h.push, &h.kind);
        let cold: Vec<(&Ident, TokenStream)> = self
            .cold_types(h)
            .map(|(t, c)| {
                let table = &c.table;
                let body = if self.tree_param.is_some() {
                    let (get, insert) = (&c.get, &c.insert);
                    quote!(
                        let cold = t.#get(#n.0).clone();
                        t.#insert(copy.0, cold);
                    )
                } else {
                    quote!(
                        let cold = t.#table.get(#n.0).clone();
                        t.#table.insert(copy.0, cold);
                    )
                };
                (&self.variant[t.index()], body)
            })
            .collect();
        let copy_cold = match cold.as_slice() {
            [] => {
                return quote!({
                    let node = t[#n].clone();
                    t.#push(node)
                })
            }
            [(_, body)] if h.concrete.len() == 1 => body.clone(),
            [(v, body)] => quote!(if kind == #kind::#v { #body }),
            _ => {
                let arms = cold.iter().map(|(v, body)| quote!(#kind::#v => { #body }));
                let other = (cold.len() < h.concrete.len()).then(|| quote!(_ => {}));
                quote!(match kind { #(#arms)* #other })
            }
        };
        let kind_of = (h.concrete.len() > 1).then(|| quote!(let kind = node.kind;));
        quote!({
            let node = t[#n].clone();
            #kind_of
            let copy = t.#push(node);
            #copy_cold
            copy
        })
    }

    /// One checked downcast per type: `(path as T)`.
    pub fn casts(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, ty) in self.p.types.iter().enumerate() {
            let t = TypeId(i as u32);
            let id = &self.hier(t).id;
            let f = &self.cast_fn[i];
            let name = &ty.name;
            let doc = format!(
                "`(n as {name})`: `n` if it is a `{name}` ({}), else a runtime error.",
                self.source_pos(ty.span)
            );
            let tree_ty = self.tree_ty();
            let cast_generics = self.tree_param.as_ref().map(|ta| quote!(<#ta: TreeAccess>));
            let body = match self.kind_pattern(t) {
                Some(pat) => quote!(
                    if matches!(t[n].kind, #pat) {
                        Ok(n)
                    } else {
                        Err(cast_error(t[n].kind.name(), #name, at))
                    }
                ),
                None => quote!(Err(cast_error(t[n].kind.name(), #name, at))),
            };
            out.extend(quote!(
                #[doc = #doc]
                #[inline]
                fn #f #cast_generics(t: &#tree_ty, n: #id, at: &At) -> Result<#id, Fail> {
                    #body
                }
            ));
        }
        out
    }

    /// One dispatching function per traversal.
    pub fn dispatchers(&self) -> TokenStream {
        self.dispatchers_where(|m| !self.p.is_synthetic(m))
    }

    /// The head and tail traversals of split calls
    /// (`treefuse_sema::SplitTraversal`) that `code` (and, in turn, they)
    /// call, with their bodies: the fused program runs them where it
    /// split a call; nothing else does.
    pub fn split_parts(&self, code: &TokenStream) -> TokenStream {
        let mut out = TokenStream::new();
        let mut done: Vec<MethodId> = Vec::new();
        loop {
            let called: Vec<MethodId> = (0..self.p.methods.len())
                .map(|mi| MethodId(mi as u32))
                .filter(|&m| self.p.is_synthetic(m) && !done.contains(&m))
                .filter(|m| {
                    let name = self.method_fn[m.index()].to_string();
                    crate::gen::mentions(code, &name) || crate::gen::mentions(&out, &name)
                })
                .collect();
            if called.is_empty() {
                return out;
            }
            out.extend(self.dispatchers_where(|m| called.contains(&m)));
            out.extend(self.bodies_where(|i| called.contains(&self.p.bodies[i].method)));
            done.extend(called);
        }
    }

    /// The dispatchers of the traversals `keep` selects.
    fn dispatchers_where(&self, keep: impl Fn(MethodId) -> bool) -> TokenStream {
        let mut out = TokenStream::new();
        for (mi, m) in self.p.methods.iter().enumerate() {
            if !keep(MethodId(mi as u32)) {
                continue;
            }
            let h = self.hier(m.declared_on);
            let (id, kind) = (&h.id, &h.kind);
            let xs: Vec<_> = (0..m.params.len()).map(|k| format_ident!("x{k}")).collect();
            let tys: Vec<_> = m
                .params
                .iter()
                .zip(&self.method_lent[mi])
                .map(|(t, &lent)| self.param_type(t, lent))
                .collect();
            // Group the concrete types by the body they run.
            let mut arms: Vec<(Vec<TypeId>, BodyId)> = Vec::new();
            let mut missing = false;
            for &t in &h.concrete {
                match self.p.dispatch(t, MethodId(mi as u32)) {
                    Some(b) => match arms.iter_mut().find(|(_, x)| *x == b) {
                        Some((ts, _)) => ts.push(t),
                        None => arms.push((vec![t], b)),
                    },
                    None => missing = true,
                }
            }
            let replaces = self.rw.method_replaces[mi];
            let needs_site = self.rw.method_site[mi];
            let (site_param, site_arg) = if needs_site {
                (quote!(, site: Site), quote!(, site))
            } else {
                (quote!(), quote!())
            };
            let name = &self.method_fn[mi];
            let again = quote!(#name(t, cx, n #site_arg #(, #xs)*));
            let arms_ts = arms.iter().map(|(ts, b)| {
                let vs = ts.iter().map(|t| &self.variant[t.index()]);
                let f = &self.body_fn[b.index()];
                let site = self.site_arg(self.rw.body_site[b.index()], quote!(site));
                let call = Self::widened(
                    quote!(#f(t, cx, n #site #(, #xs)*)),
                    replaces && !self.rw.body_replaces[b.index()],
                );
                let check = self.arm_stack_check(ts, self.body_calls(*b), &again);
                if check.is_empty() {
                    quote!(#(#kind::#vs)|* => #call,)
                } else {
                    quote!(#(#kind::#vs)|* => { #check #call })
                }
            });
            let ret = self.result_type(replaces, id);
            let mname = &m.name;
            let fallback = if missing || arms.is_empty() {
                quote!(other => Err(no_traversal(#mname, other.name())),)
            } else {
                quote!()
            };
            let doc = format!(
                "Runs traversal `{mname}` ({}) on node `n`, dispatching on its concrete type (one node visit).",
                self.source_pos(m.span)
            );
            let prologue = self.visit_prologue(quote!(#name(t, cx, n #site_arg #(, #xs)*)));
            let count = &self.count_param;
            let (generics, tree) = (self.fn_generics(), self.tree_ty());
            out.extend(quote!(
                #[doc = #doc]
                #[inline]
                pub fn #name #generics(t: &mut #tree, cx: &mut Cx<#count>, n: #id #site_param #(, #xs: #tys)*) -> #ret {
                    #prologue
                    match t[n].kind {
                        #(#arms_ts)*
                        #fallback
                    }
                }
            ));
        }
        out
    }

    // ------------------------------------------------------------ fused

    /// The Rust types of a fused function's parameters: its participants'
    /// in order, lent as their traversals are.
    fn fused_params(&self, f: FusedFnId) -> Vec<TokenStream> {
        self.fused.functions[f.index()]
            .participants
            .iter()
            .flat_map(|p| {
                let m = p.method.index();
                self.p.methods[m]
                    .params
                    .iter()
                    .zip(&self.method_lent[m])
                    .map(|(t, &lent)| self.param_type(t, lent))
            })
            .collect()
    }

    /// One dispatcher per fused call target list, each with its name and
    /// without an inline attribute (see [`Gen::fused_items`]), and one per
    /// target list and concrete type proved by the call's guards
    /// ([`Gen::proven_type`]), which runs that type's arm without a match.
    fn fused_dispatchers(&self) -> Vec<(proc_macro2::Ident, TokenStream)> {
        let mut out = Vec::new();
        let known = self
            .fused_disp_known
            .iter()
            .map(|((targets, ty), name)| (targets, Some(*ty), name));
        let all = self
            .fused_disp
            .iter()
            .map(|(targets, name)| (targets, None, name));
        for (targets, proven, name) in all.chain(known) {
            let Some((first_ty, first)) = targets.first() else {
                continue;
            };
            let h = self.hier(*first_ty);
            let (id, kind) = (&h.id, &h.kind);
            let tys = self.fused_params(*first);
            let xs: Vec<_> = (0..tys.len()).map(|k| format_ident!("x{k}")).collect();
            let takes_mask = self.disp_takes_mask(targets);
            let mask_arg = if takes_mask { quote!(, mask) } else { quote!() };
            let replaces = self.disp_replaces(targets);
            let needs_site = self.disp_site(targets);
            let site_arg = self.site_arg(needs_site, quote!(site));
            let mask_arg = quote!(#site_arg #mask_arg);
            let ret = match self.forwarding.borrow().by_targets.get(targets) {
                Some(fw) => {
                    let ty = &fw.ty;
                    quote!(Result<#ty, Fail>)
                }
                None => self.result_type(replaces, id),
            };
            let again = quote!(#name(t, cx, n #mask_arg #(, #xs)*));
            let arm = |ty: TypeId, f: FusedFnId| {
                let fname = &self.fused_fn[f.index()];
                let mask = if self.fn_takes_mask(f) {
                    quote!(, mask)
                } else {
                    quote!()
                };
                let site = self.site_arg(self.rw.fused_site[f.index()], quote!(site));
                let call = Self::widened(
                    quote!(#fname(t, cx, n #site #mask #(, #xs)*)),
                    replaces && !self.rw.fused_replaces[f.index()],
                );
                let check = self.arm_stack_check(&[ty], self.fused_calls(f), &again);
                (check, call)
            };
            let traversals: Vec<String> = self.fused.functions[first.index()]
                .participants
                .iter()
                .map(|p| {
                    let m = &self.p.methods[self.p.bodies[p.body.index()].method.index()];
                    format!("`{}` ({})", m.name, self.source_pos(m.span))
                })
                .collect();
            let prologue = self.visit_prologue(quote!(#name(t, cx, n #mask_arg #(, #xs)*)));
            let (doc, body) = match proven.and_then(|ty| {
                let (_, f) = targets.iter().find(|(u, _)| *u == ty)?;
                Some((ty, *f))
            }) {
                Some((ty, f)) => {
                    let v = &self.variant[ty.index()];
                    let (check, call) = arm(ty, f);
                    let doc = format!(
                        "Runs a fused call of {} on node `n`, which the caller's `is` test proved a `{}` (one node visit).",
                        traversals.join(", "),
                        self.p.types[ty.index()].name
                    );
                    (
                        doc,
                        quote!(
                            debug_assert!(matches!(t[n].kind, #kind::#v));
                            #check
                            #call
                        ),
                    )
                }
                None => {
                    let arms = targets.iter().map(|(ty, f)| {
                        let v = &self.variant[ty.index()];
                        let (check, call) = arm(*ty, *f);
                        if check.is_empty() {
                            quote!(#kind::#v => #call,)
                        } else {
                            quote!(#kind::#v => { #check #call })
                        }
                    });
                    let fallback = if targets.len() < h.concrete.len() {
                        quote!(other => Err(no_traversal("(fused)", other.name())),)
                    } else {
                        quote!()
                    };
                    let doc = format!(
                        "Runs a fused call of {} on node `n`, dispatching on its concrete type (one node visit).",
                        traversals.join(", ")
                    );
                    (
                        doc,
                        quote!(
                            match t[n].kind {
                                #(#arms)*
                                #fallback
                            }
                        ),
                    )
                }
            };
            // Every caller passes the target list's `site` and `mask`; a
            // dispatcher for one proved type may not need them.
            let code = quote!(#prologue #body);
            let site_param = self.site_param(needs_site, &code);
            let mask_param = match (takes_mask, uses_var(&code, "mask")) {
                (false, _) => quote!(),
                (true, true) => {
                    let ty = self.mask_ty();
                    quote!(, mask: #ty)
                }
                (true, false) => {
                    let ty = self.mask_ty();
                    quote!(, _mask: #ty)
                }
            };
            let count = &self.count_param;
            let (generics, tree) = (self.fn_generics(), self.tree_ty());
            out.push((
                name.clone(),
                quote!(
                    #[doc = #doc]
                    #[allow(clippy::too_many_arguments)]
                    fn #name #generics(t: &mut #tree, cx: &mut Cx<#count>, n: #id #site_param #mask_param #(, #xs: #tys)*) -> #ret {
                        #prologue
                        #body
                    }
                ),
            ));
        }
        out
    }

    /// The fused functions and their dispatchers, each marked
    /// `#[inline(always)]` or `#[inline]` as [`crate::inlining`] decides.
    pub fn fused_items(&self) -> TokenStream {
        self.plan_forwarding();
        let mut items: Vec<(proc_macro2::Ident, TokenStream)> = self
            .fused
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| (self.fused_fn[fi].clone(), self.fused_fn(fi, f)))
            .collect();
        // Rewriting code (creating nodes, replacing the receiver) is
        // long and mostly cold: left to the compiler.
        let mut rewrites: Vec<bool> = items
            .iter()
            .enumerate()
            .map(|(fi, (_, code))| {
                self.rw.fused_replaces[fi]
                    || self
                        .hiers
                        .iter()
                        .any(|h| mentions(code, &h.push.to_string()))
            })
            .collect();
        let dispatchers = self.fused_dispatchers();
        rewrites.resize(items.len() + dispatchers.len(), false);
        items.extend(dispatchers);
        let always = crate::inlining::always_inline(&items, &rewrites);
        let mut out = TokenStream::new();
        for ((_, item), always) in items.into_iter().zip(always) {
            out.extend(if always {
                quote!(#[inline(always)])
            } else {
                quote!(#[inline])
            });
            out.extend(item);
        }
        out
    }

    /// For a `let` or alias of a participant that can be inactive: its
    /// declaration with a placeholder value, emitted before the guarded
    /// statements so that each of them (in its own `if active_N`) sees it;
    /// the statement itself then assigns (`Frame::hoisted`).
    fn hoisted_declaration(&self, s: &Stmt, fr: &Frame) -> Option<TokenStream> {
        match &s.kind {
            StmtKind::Let { local, value } => {
                let n = &fr.locals[local.index()];
                let ty = self.data_type(&value.ty);
                let z = self.zero(&value.ty);
                Some(quote!(let mut #n: #ty = #z;))
            }
            StmtKind::Alias { var, path } => {
                let n = &fr.nodes[var.index()];
                let id = &self.hier(path.ty).id;
                Some(quote!(let mut #n: #id = #id(u32::MAX);))
            }
            _ => None,
        }
    }

    /// Fused function `fi`. Where nothing in it can write a child slot of
    /// the receiver but its own assignments to them (`self.c = ..`; no
    /// rewriting, no call on `self`, whose traversal may assign one), the
    /// child ids its paths read (`self.next.max_width`) are read once at
    /// its start into locals (`next_id`), which those assignments update
    /// with the slot, so a read after a call costs one bounds check
    /// instead of two; otherwise it reads `t[this].next` where used.
    pub(crate) fn fused_fn(&self, fi: usize, f: &treefuse_fusion::FusedFunction) -> TokenStream {
        // A call on `self` (`self.helper()`, `(self as T).helper()`, or
        // through an alias of `self`) runs a traversal that may assign the
        // receiver's slots behind the locals' back.
        let on_self = |p: &NodePath, aliases: &[NodeVarId]| {
            let root_is_self = match p.root {
                PathRoot::SelfNode => true,
                PathRoot::Var(v) => aliases.contains(&v),
            };
            root_is_self && p.steps.iter().all(|s| matches!(s, PathStep::Cast(_)))
        };
        let calls_self = f.participants.iter().any(|p| {
            let body = self.p.bodies[p.body.index()].body.as_deref().unwrap_or(&[]);
            // Aliases of `self` (in statement order, so an alias of one
            // counts too).
            let aliases = std::cell::RefCell::new(Vec::new());
            treefuse_sema::visit::any_stmt(body, &|s| {
                if let StmtKind::Alias { var, path } = &s.kind {
                    if on_self(path, &aliases.borrow()) {
                        aliases.borrow_mut().push(*var);
                    }
                }
                false
            });
            let aliases = aliases.into_inner();
            treefuse_sema::visit::any_stmt(body, &|s| {
                matches!(&s.kind, StmtKind::Call { receiver, .. } if on_self(receiver, &aliases))
            })
        });
        // A chain function reads its children where it uses them: its
        // groups run on other nodes of the chain too.
        if calls_self || self.chain_shape(fi, f).is_some() {
            return self.fused_fn_with(fi, f, None).0;
        }
        let mut unread: Vec<FieldId> = Vec::new();
        loop {
            match self.fused_fn_with(fi, f, Some(&unread)) {
                (code, Hoisting::Sound) => return code,
                (_, Hoisting::WrittenUnread(fields)) => unread.extend(fields),
                (_, Hoisting::Unsound) => return self.fused_fn_with(fi, f, None).0,
            }
        }
    }

    /// Whether `code` may write a child slot of some node other than by a
    /// plain assignment to a slot not in `slots` or a synchronised
    /// assignment to the receiver's slot (`t[this].SLOT = v; LOCAL = v;`,
    /// `slots` gives each slot's local): rewriting (replacements, open
    /// lists, sites), a `&mut` borrow of the tree, or any other assignment
    /// to one of `slots`. New nodes (`push_..`) write no existing slot.
    fn may_write_child_slots(&self, code: &TokenStream, slots: &[(String, String)]) -> bool {
        let rewriting = ["Replaced", "Site", "OpenList"];
        let tokens: Vec<TokenTree> = code.clone().into_iter().collect();
        let ident =
            |i: usize, name: &str| matches!(tokens.get(i), Some(TokenTree::Ident(x)) if x == name);
        let punct = |i: usize, c: char| {
            matches!(tokens.get(i), Some(TokenTree::Punct(p))
                if p.as_char() == c && p.spacing() == proc_macro2::Spacing::Alone)
        };
        let this_index = |i: usize| {
            matches!(tokens.get(i), Some(TokenTree::Group(g))
                if g.delimiter() == proc_macro2::Delimiter::Bracket
                    && g.stream().to_string() == "this")
        };
        tokens.iter().enumerate().any(|(i, tt)| match tt {
            TokenTree::Group(g) => self.may_write_child_slots(&g.stream(), slots),
            TokenTree::Ident(id) => {
                let id = id.to_string();
                if rewriting.contains(&id.as_str()) || (id == "t" && i > 0 && ident(i - 1, "mut")) {
                    return true;
                }
                let Some((_, local)) = slots.iter().find(|(slot, _)| *slot == id) else {
                    return false;
                };
                if !punct(i + 1, '=') {
                    return false;
                }
                // `t[this].SLOT = v; LOCAL = v;`
                let synced = i >= 3
                    && ident(i - 3, "t")
                    && this_index(i - 2)
                    && punct(i - 1, '.')
                    && ident(i + 2, "v")
                    && punct(i + 3, ';')
                    && ident(i + 4, local)
                    && punct(i + 5, '=')
                    && ident(i + 6, "v");
                !synced
            }
            _ => false,
        })
    }

    /// [`Gen::fused_fn`] with child ids read at the start (`hoist`: all but
    /// the given fields) or without; with them, also whether that was
    /// sound (else the caller generates it again without) or which
    /// hoisted slots the function assigns but never reads.
    fn fused_fn_with(
        &self,
        fi: usize,
        f: &treefuse_fusion::FusedFunction,
        hoist: Option<&[FieldId]>,
    ) -> (TokenStream, Hoisting) {
        let np = f.participants.len();
        let bodies: Vec<&[Stmt]> = f
            .participants
            .iter()
            .map(|p| self.p.bodies[p.body.index()].body.as_deref().unwrap_or(&[]))
            .collect();
        let flagged: Vec<bool> = (0..np).map(|p| self.flagged(fi, p, &self.off)).collect();
        // A function that runs a chain's items in parallel generates its
        // groups twice (`Gen::chain_driver`), once in a closure.
        let chain = self.chain_shape(fi, f);
        let mut chain_steps: Vec<TokenStream> = Vec::new();
        let mut chain_fn: Option<(proc_macro2::Ident, TokenStream)> = None;
        let mut ns = Names::for_locals(&self.locals_reserved);
        // Locals for the receiver's child ids, named before the frames so
        // that no local of the program takes their names.
        let children: Vec<HoistedChild> = match hoist {
            Some(unread) => self.p.types[f.ty.index()]
                .fields
                .iter()
                .filter(|g| {
                    // Optional children (§8.7) are read where used.
                    matches!(self.p.fields[g.index()].kind, FieldKind::Child(_))
                        && !self.p.is_optional(**g)
                        && !unread.contains(g)
                })
                .map(|&g| {
                    let name = format!("{}_id", snake(&self.p.fields[g.index()].name));
                    HoistedChild {
                        field: g,
                        local: ns.fresh_value(&name),
                        read: false,
                        written: false,
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        *self.self_children.borrow_mut() = Some(children);
        self.fwd_begin(fi, hoist);
        // Each participant's top-level statements in the order the
        // schedule runs them, and those that are loops merged with others.
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); np];
        let mut merged: Vec<std::collections::HashSet<usize>> = vec![Default::default(); np];
        for step in &f.steps {
            match step {
                Step::Stmt { participant, stmt } => order[*participant].push(*stmt),
                Step::While(w) => order[w.participant].push(w.stmt),
                Step::Group(g) => g.calls.iter().for_each(|&(p, s)| order[p].push(s)),
                Step::Loop(l) => l.loops.iter().for_each(|&(p, s)| {
                    order[p].push(s);
                    merged[p].insert(s);
                }),
            }
        }
        let frames: Vec<Frame> = f
            .participants
            .iter()
            .enumerate()
            .map(|(p, part)| {
                let b = &self.p.bodies[part.body.index()];
                // Every top-level statement: the steps of a participant are
                // generated whether or not an earlier one of its statements
                // always returns or replaces the node (then its flag is off
                // and they never run), so their locals must be declared as
                // they use them.
                let mut u = Usage::default();
                bodies[p].iter().for_each(|s| usage_stmt(s, &mut u));
                let mut fr = self.frame(
                    self.p.body_name(part.body),
                    &b.frame,
                    &u,
                    &mut ns,
                    flagged[p],
                );
                fr.owner = Some(f.ty);
                let m = part.method.index();
                self.lend(
                    &mut fr,
                    Lender::Body {
                        method: m,
                        body: part.body.index(),
                    },
                    &self.method_lent[m],
                );
                // Participants after one that may postpone them are resumed
                // with their parameters (`Gen::resume`): those stay.
                let resumable = f.resume.iter().any(|r| r.participant < p);
                let kept = if resumable {
                    (0..b.frame.num_params).map(|i| LocalId(i as u32)).collect()
                } else {
                    std::collections::HashSet::new()
                };
                // (A chain function's calls run in a closure called once
                // per item: they pass copies, never move a parameter.)
                if chain.is_none() {
                    *fr.moves.borrow_mut() = crate::moves::last_uses_scheduled(
                        bodies[p], &order[p], &merged[p], &kept, flagged[p],
                    );
                }
                fr
            })
            .collect();
        let never = Ret::Traversal { replaces: false };
        // Which steps involve each participant, to know whether a flag is
        // read after a given step.
        let involves = |step: &Step, p: usize| match step {
            Step::Stmt { participant, .. } => *participant == p,
            Step::While(w) => w.participant == p,
            Step::Group(g) => g.calls.iter().any(|(q, _)| *q == p),
            Step::Loop(l) => l.loops.iter().any(|(q, _)| *q == p),
        };
        let read_after = |si: usize, p: usize| f.steps[si + 1..].iter().any(|s| involves(s, p));
        let mut cleared = vec![false; np];
        // A participant that may replace the node while later ones follow:
        // when it does, the active later participants are recorded in
        // `resume_p` (bit k: participant p + 1 + k) and switched off; at
        // the end they run on the replacement.
        let postpone: Vec<Option<TokenStream>> = (0..np)
            .map(|p| {
                f.resume.iter().find(|r| r.participant == p)?;
                let resume = format_ident!("resume_{p}");
                let mut bits = Vec::new();
                let mut clears = TokenStream::new();
                for (k, is_cleared) in cleared.iter_mut().enumerate().skip(p + 1) {
                    let flag = format_ident!("active_{k}");
                    clears.extend(quote!(#flag = false;));
                    bits.push(flag);
                    *is_cleared = true;
                }
                let later = self.mask_from_flags(&bits);
                Some(quote!(#resume = #later; #clears))
            })
            .collect();
        let mut code = TokenStream::new();
        // The kind of the child whose type at the start decides the type
        // guards of the calls on it (`FusedFunction::typed_child`).
        if let Some(field) = f.typed_child {
            let child = match self.hoisted_child(field, false) {
                Some(local) => quote!(#local),
                None => {
                    let name = &self.field[field.index()];
                    quote!(t[this].#name)
                }
            };
            code.extend(quote!(let start_kind = t[#child].kind;));
        }
        // Hoisted declarations of participants that can be inactive.
        for p in 0..np {
            if !flagged[p] {
                continue;
            }
            for s in bodies[p] {
                if let Some(decl) = self.hoisted_declaration(s, &frames[p]) {
                    code.extend(decl);
                }
            }
        }
        // A run of statements that touch only the receiver's data fields
        // (`Gen::self_node`): generated into `segment`, after a binding of
        // the receiver's node.
        let mut segment = TokenStream::new();
        for (si, step) in f.steps.iter().enumerate() {
            let self_only = self.tree_param.is_some()
                && matches!(step, Step::Stmt { participant, stmt }
                    if bodies[*participant].get(*stmt).is_some_and(|s| self.self_data_only(s)));
            if self_only {
                self.self_node.set(true);
            } else {
                self.close_self_segment(&mut code, &mut segment, f.ty);
            }
            match step {
                Step::Stmt {
                    participant: p,
                    stmt,
                } => {
                    self.fwd_unit();
                    let p = *p;
                    let Some(s) = bodies[p].get(*stmt) else {
                        continue;
                    };
                    let fr = &frames[p];
                    let code = if self_only { &mut segment } else { &mut code };
                    if !flagged[p] {
                        self.fwd_pieces();
                        code.extend(self.stmt(s, fr, &never, true));
                        continue;
                    }
                    let flag = format_ident!("active_{p}");
                    let later = read_after(si, p);
                    if matches!(s.kind, StmtKind::Return(_)) {
                        if later {
                            cleared[p] = true;
                            code.extend(quote!(#flag = false;));
                        }
                        continue;
                    }
                    let has_ret = self.contains_return(s);
                    let label = syn_label(&format!("'s{si}"));
                    let ret = Ret::Fused {
                        label: label.clone(),
                        flag: if later && has_ret {
                            cleared[p] = true;
                            Some(flag.clone())
                        } else {
                            None
                        },
                        depth: 0,
                        postpone: postpone[p].clone(),
                    };
                    let inner = self.stmt(s, fr, &ret, true);
                    if has_ret {
                        code.extend(quote!(if #flag { #label: { #inner } }));
                    } else {
                        code.extend(quote!(if #flag { #inner }));
                    }
                }
                Step::While(w) => {
                    self.fwd_unit();
                    let p = w.participant;
                    let Some(s) = bodies[p].get(w.stmt) else {
                        continue;
                    };
                    let StmtKind::While {
                        cond,
                        limit,
                        body: loop_body,
                    } = &s.kind
                    else {
                        continue;
                    };
                    let fr = &frames[p];
                    let flag = format_ident!("active_{p}");
                    let later = flagged[p] && read_after(si, p);
                    let has_ret = self.contains_return(s);
                    let label = syn_label(&format!("'s{si}"));
                    let ret = if flagged[p] {
                        Ret::Fused {
                            label: label.clone(),
                            flag: if later && has_ret {
                                cleared[p] = true;
                                Some(flag.clone())
                            } else {
                                None
                            },
                            depth: 0,
                            postpone: postpone[p].clone(),
                        }
                    } else {
                        never.clone()
                    };
                    let sites = self.call_sites(fi, step);
                    let mut sites = sites.iter();
                    let lp = self.while_loop(cond, limit, fr, || {
                        // As `Gen::block` makes a body: facts dropped where
                        // the tree may change, nothing after a statement
                        // that leaves the iteration.
                        let mut iteration = TokenStream::new();
                        for ws in &w.steps {
                            match ws {
                                treefuse_fusion::WhileStep::Stmt(i) => {
                                    let Some(s) = loop_body.get(*i) else {
                                        continue;
                                    };
                                    if !crate::body::keeps_facts(s) {
                                        fr.facts.borrow_mut().clear();
                                    }
                                    iteration.extend(self.stmt(s, fr, &ret, false));
                                    if crate::gen::diverges(s) {
                                        break;
                                    }
                                }
                                treefuse_fusion::WhileStep::Call { field, .. } => {
                                    let Some((members, targets)) = sites.next() else {
                                        continue;
                                    };
                                    self.fwd_call(*field, targets, false);
                                    fr.facts.borrow_mut().clear();
                                    // The participant is active in its
                                    // loop: every call takes part.
                                    let call = self.fused_call(
                                        members,
                                        &vec![false; np],
                                        &frames,
                                        (targets, &[]),
                                        &Deliver::Child(*field),
                                        None,
                                    );
                                    iteration.extend(quote!({ #call }));
                                }
                            }
                        }
                        iteration
                    });
                    if !flagged[p] {
                        code.extend(lp);
                    } else if has_ret {
                        code.extend(quote!(if #flag { #label: { #lp } }));
                    } else {
                        code.extend(quote!(if #flag { #lp }));
                    }
                }
                Step::Group(g) => {
                    // The group's code on its own first, for a chain
                    // function's driver (`Gen::chain_driver`).
                    let before = std::mem::take(&mut code);
                    for (members, targets) in self.call_sites(fi, step) {
                        self.fwd_unit();
                        self.fwd_call(g.field, targets, true);
                        // No value forwarded from an optional child (§8.7),
                        // which may be empty.
                        let fw = self
                            .forwarding
                            .borrow()
                            .by_targets
                            .get(targets)
                            .filter(|_| !self.p.is_optional(g.field))
                            .cloned();
                        let call = self.fused_call(
                            &members,
                            &flagged,
                            &frames,
                            (targets, &g.guards),
                            &Deliver::Child(g.field),
                            fw.as_ref().map(|fw| &fw.slot),
                        );
                        match fw {
                            // The call's value, for the reads that follow
                            // (`forward.rs`); `_` where none does (named all
                            // the same, so that later names do not depend on
                            // the reads).
                            Some(fw) => {
                                let field = &self.field[g.field.index()];
                                let ret = ns.fresh_value(&format!("{field}_{}", fw.slot));
                                if self.fwd_bind(&ret) {
                                    code.extend(quote!(let #ret = { #call };));
                                } else {
                                    code.extend(quote!(let _ = { #call };));
                                }
                            }
                            None => code.extend(quote!({ #call })),
                        }
                    }
                    let group = std::mem::replace(&mut code, before);
                    if chain.is_some() {
                        chain_steps.push(group.clone());
                    }
                    code.extend(group);
                }
                Step::Loop(l) => {
                    self.fwd_unit();
                    let cleared_before = cleared.clone();
                    let field = &self.field[l.field.index()];
                    let mut bind_vars = Vec::new();
                    let mut loop_bodies: Vec<(usize, &[Stmt])> = Vec::new();
                    for &(p, i) in &l.loops {
                        match bodies[p].get(i) {
                            Some(Stmt {
                                kind: StmtKind::ForChildren { var, body, .. },
                                ..
                            }) => {
                                let v = frames[p].nodes[var.index()].clone();
                                bind_vars.push(v);
                                loop_bodies.push((p, body.as_slice()));
                            }
                            _ => loop_bodies.push((p, &[])),
                        }
                    }
                    // Elements may replace themselves: one open list for
                    // every member loop (only the last may replace).
                    let open_needed = self
                        .call_sites(fi, step)
                        .iter()
                        .any(|(_, targets)| self.disp_replaces(targets))
                        || l.loops.iter().any(|&(p, i)| match bodies[p].get(i) {
                            Some(Stmt {
                                kind: StmtKind::ForChildren { var, body, .. },
                                ..
                            }) => self.loop_replaces(*var, body),
                            _ => false,
                        });
                    let open = format_ident!("open_0");
                    if open_needed {
                        self.fwd_event(crate::forward_record::Event::Mutates);
                        for &(p, i) in &l.loops {
                            if let Some(Stmt {
                                kind: StmtKind::ForChildren { var, .. },
                                ..
                            }) = bodies[p].get(i)
                            {
                                frames[p].open.borrow_mut().push(OpenLoop {
                                    var: *var,
                                    field: l.field,
                                    open: open.clone(),
                                    owner: format_ident!("this"),
                                });
                            }
                        }
                    }
                    let mut sites = self
                        .call_sites(fi, step)
                        .into_iter()
                        .zip(Self::type_guards(step));
                    // Loop variables bound, at each step that uses them, to
                    // the node now standing where the element stood
                    // (`LoopGroup::rebound`: its region is that one node).
                    let rebound: Vec<String> = l
                        .rebound
                        .iter()
                        .filter_map(|&m| bind_vars.get(m).map(ToString::to_string))
                        .collect();
                    let standing = if open_needed {
                        quote!(#open.standing().unwrap_or(item))
                    } else {
                        quote!(item)
                    };
                    let mut iteration = TokenStream::new();
                    let mut step_code = TokenStream::new();
                    for (li, ls) in l.steps.iter().enumerate() {
                        // The previous step's code goes in now (`continue`
                        // may end a step early).
                        rebind_into(
                            &mut iteration,
                            std::mem::take(&mut step_code),
                            &rebound,
                            &standing,
                        );
                        let inner = &mut step_code;
                        match ls {
                            LoopStep::Stmt { member, stmt } => {
                                let (p, body) = loop_bodies[*member];
                                let Some(s) = body.get(*stmt) else {
                                    continue;
                                };
                                let fr = &frames[p];
                                if !flagged[p] {
                                    inner.extend(self.stmt(s, fr, &never, false));
                                    continue;
                                }
                                // Later iterations read the flag again.
                                let flag = format_ident!("active_{p}");
                                cleared[p] |= self.contains_return(s);
                                let label = syn_label(&format!("'s{si}_{li}"));
                                let ret = Ret::Fused {
                                    label: label.clone(),
                                    flag: Some(flag.clone()),
                                    depth: fr.open.borrow().len(),
                                    postpone: postpone[p].clone(),
                                };
                                // A binding of a participant that can be
                                // inactive is declared before its guard, for
                                // the member's later statements (each in its
                                // own guard) to see, as at the top level.
                                let decl = self.hoisted_declaration(s, fr);
                                let hoisted = decl.is_some();
                                inner.extend(decl);
                                let code_s = self.stmt(s, fr, &ret, hoisted);
                                if matches!(s.kind, StmtKind::Return(_)) {
                                    inner.extend(quote!(#flag = false;));
                                } else if self.contains_return(s) {
                                    inner.extend(quote!(if #flag { #label: { #code_s } }));
                                } else {
                                    inner.extend(quote!(if #flag { #code_s }));
                                }
                            }
                            LoopStep::Call { .. } => {
                                let Some(((members, targets), guards)) = sites.next() else {
                                    continue;
                                };
                                let deliver = if open_needed {
                                    Deliver::Region(open.clone())
                                } else {
                                    Deliver::Item
                                };
                                let call = self.fused_call(
                                    &members,
                                    &flagged,
                                    &frames,
                                    (targets, guards),
                                    &deliver,
                                    None,
                                );
                                inner.extend(quote!({ #call }));
                            }
                        }
                    }
                    rebind_into(&mut iteration, step_code, &rebound, &standing);
                    let inner = iteration;
                    let mut binds = TokenStream::new();
                    for v in bind_vars {
                        if !rebound.contains(&v.to_string()) && uses_var(&inner, &v.to_string()) {
                            binds.extend(quote!(let #v = item;));
                        }
                    }
                    let item = if uses_var(&binds, "item") || uses_var(&inner, "item") {
                        quote!(item)
                    } else {
                        quote!(_item)
                    };
                    if open_needed {
                        for &(p, _) in &l.loops {
                            frames[p].open.borrow_mut().clear();
                        }
                        code.extend(quote!({
                            let mut #open = OpenList::new(t[this].#field.clone());
                            while let Some(#item) = #open.advance() {
                                #binds
                                #inner
                            }
                            if let Some(list) = #open.close() {
                                t[this].#field = list;
                            }
                        }));
                    } else if let (
                        Some(_),
                        treefuse_fusion::Parallelism::Parallel { reduced, private },
                    ) = (&self.tree_param, &l.parallel)
                    {
                        // A loop that may run in parallel: unless a member
                        // returns in it (its flag is shared by the
                        // iterations).
                        if cleared != cleared_before {
                            code.extend(quote!({
                                let items = t[this].#field.clone();
                                for &#item in items.iter() {
                                    #binds
                                    #inner
                                }
                            }));
                        } else {
                            code.extend(
                                self.parallel_loop(
                                    l.field, reduced, private, &item, &binds, &inner,
                                ),
                            );
                        }
                    } else {
                        code.extend(quote!({
                            let items = t[this].#field.clone();
                            for &#item in items.iter() {
                                #binds
                                #inner
                            }
                        }));
                    }
                }
            }
        }
        self.close_self_segment(&mut code, &mut segment, f.ty);
        for r in &f.resume {
            code.extend(self.resume(f, r, &frames));
        }
        if let (Some(shape), [items, next]) = (&chain, chain_steps.as_slice()) {
            let params: Vec<proc_macro2::Ident> = f
                .participants
                .iter()
                .enumerate()
                .flat_map(|(p, part)| {
                    let layout = &self.p.bodies[part.body.index()].frame;
                    frames[p].locals[..layout.num_params].to_vec()
                })
                .collect();
            let driver = self.chain_driver(fi, f, shape, (items, next), &params);
            code = driver.body;
            chain_fn = Some((driver.chain_fn, driver.chain_body));
        }
        let children = self.self_children.borrow_mut().take().unwrap_or_default();
        // A local only assigned would be dead: such slots are generated
        // again without one.
        let written_unread: Vec<FieldId> = children
            .iter()
            .filter(|h| h.written && !h.read)
            .map(|h| h.field)
            .collect();
        // Reads replaced by forwarded values may leave a local unread.
        let used: Vec<&HoistedChild> = children
            .iter()
            .filter(|h| h.read && (h.written || uses_var(&code, &h.local.to_string())))
            .collect();
        self.fwd_end(&children);
        let slots: Vec<(String, String)> = used
            .iter()
            .map(|h| (self.field[h.field.index()].to_string(), h.local.to_string()))
            .collect();
        let hoisting = if !written_unread.is_empty() {
            Hoisting::WrittenUnread(written_unread)
        } else if used.is_empty() || !self.may_write_child_slots(&code, &slots) {
            Hoisting::Sound
        } else {
            Hoisting::Unsound
        };
        let child_reads = used.iter().map(|h| {
            let (slot, local) = (&self.field[h.field.index()], &h.local);
            if h.written {
                quote!(let mut #local = t[this].#slot;)
            } else {
                quote!(let #local = t[this].#slot;)
            }
        });
        // A synchronised assignment may be the last use of its local.
        let dead_stores = if used.iter().any(|h| h.written) {
            quote!(#[allow(unused_assignments)])
        } else {
            quote!()
        };
        let mut code = quote!(#(#child_reads)* #code);
        let replaces = self.rw.fused_replaces[fi];
        let returned = self.forwarding.borrow().by_fn.get(&fi).cloned();
        code.extend(match (&returned, replaces) {
            (_, true) => quote!(Ok(replaced)),
            (Some(fw), false) => {
                let slot = &fw.slot;
                quote!(Ok(t[this].#slot))
            }
            (None, false) => quote!(Ok(())),
        });
        // Flags.
        let mut flags = TokenStream::new();
        for p in 0..np {
            if !flagged[p] {
                continue;
            }
            let flag = format_ident!("active_{p}");
            if !uses_var(&code, &flag.to_string()) {
                continue;
            }
            let init = if self.off[fi][p] {
                self.mask_has(quote!(mask), p)
            } else {
                quote!(true)
            };
            if cleared[p] {
                flags.extend(quote!(let mut #flag = #init;));
            } else {
                flags.extend(quote!(let #flag = #init;));
            }
        }
        if replaces {
            flags.extend(quote!(let mut replaced = Replaced::Kept;));
        }
        for r in &f.resume {
            let resume = format_ident!("resume_{}", r.participant);
            let ty = self.mask_ty();
            let none = self.mask_none();
            flags.extend(quote!(let mut #resume: #ty = #none;));
        }
        let code = quote!(#flags #code);
        let id = &self.hier(f.ty).id;
        let base = self.base_params(&code, id);
        let site = self.site_param(self.rw.fused_site[fi], &code);
        let ret = match returned {
            Some(fw) => {
                let ty = fw.ty;
                quote!(Result<#ty, Fail>)
            }
            None => self.result_type(replaces, id),
        };
        let mask = if self.fn_takes_mask(FusedFnId(fi as u32)) {
            let ty = self.mask_ty();
            if uses_var(&code, "mask") {
                quote!(, mask: #ty)
            } else {
                quote!(, _mask: #ty)
            }
        } else {
            quote!()
        };
        let params: Vec<_> = f
            .participants
            .iter()
            .enumerate()
            .flat_map(|(p, part)| {
                let layout = &self.p.bodies[part.body.index()].frame;
                self.params(&frames[p], layout)
            })
            .collect();
        let name = &self.fused_fn[fi];
        let parts: Vec<String> = f
            .participants
            .iter()
            .map(|p| self.body_at(p.body))
            .collect();
        let doc = format!(
            "Fused function {fi}: runs {} together on one `{}` node.",
            parts.join(", "),
            self.p.types[f.ty.index()].name
        );
        let generics = self.fn_generics();
        let chain = chain_fn.map(|(chain_name, body)| {
            let base = self.base_params(&body, id);
            let doc = format!("Runs fused function {fi} on a chain of `{}` nodes, its items in parallel where the tree splits.", self.p.types[f.ty.index()].name);
            quote!(
                #[doc = #doc]
                #[inline(never)]
                fn #chain_name #generics(#base #(, #params)*) -> #ret {
                    #body
                }
            )
        });
        (
            quote!(
                #[doc = #doc]
                #dead_stores
                fn #name #generics(#base #site #mask #(, #params)*) -> #ret {
                    #code
                }
                #chain
            ),
            hoisting,
        )
    }

    /// The end of a fused function whose participant `r.participant` may
    /// replace the node: if it did while later participants were active,
    /// they run now, as one fused call with the arguments they were given,
    /// on each node of the replacement, whose own replacements make up the
    /// function's result.
    fn resume(
        &self,
        f: &treefuse_fusion::FusedFunction,
        r: &treefuse_fusion::Resume,
        frames: &[Frame],
    ) -> TokenStream {
        let p = r.participant;
        let resume = format_ident!("resume_{p}");
        let disp = &self.fused_disp[&r.targets];
        let site = self.site_arg(self.disp_site(&r.targets), quote!(site));
        let mut args = Vec::new();
        for (j, part) in f.participants.iter().enumerate().skip(p + 1) {
            let layout = &self.p.bodies[part.body.index()].frame;
            for i in 0..layout.num_params {
                let n = &frames[j].locals[i];
                // (A lent parameter is a reference: passed on as it is.)
                if is_copy(&layout.locals[i].1) || frames[j].borrowed.borrow().contains(&i) {
                    args.push(quote!(#n));
                } else {
                    args.push(quote!(#n.clone()));
                }
            }
        }
        let call = quote!(#disp(t, cx, n #site, #resume #(, #args)*)?);
        let (one, each) = if self.disp_replaces(&r.targets) {
            (
                quote!(match #call {
                    Replaced::Kept => Replaced::One(n),
                    other => other,
                }),
                quote!(match #call {
                    Replaced::Kept => nodes.push(n),
                    Replaced::One(x) => nodes.push(x),
                    Replaced::Many(xs) => nodes.extend(xs),
                }),
            )
        } else {
            (
                quote!({
                    #call;
                    Replaced::One(n)
                }),
                quote!(#call; nodes.push(n);),
            )
        };
        let postponed = self.mask_any(quote!(#resume));
        quote!(
            if #postponed {
                replaced = match std::mem::replace(&mut replaced, Replaced::Kept) {
                    Replaced::One(n) => #one,
                    Replaced::Many(before) => {
                        let mut nodes = Vec::with_capacity(before.len());
                        for n in before {
                            #each
                        }
                        Replaced::Many(nodes)
                    }
                    Replaced::Kept => Replaced::Kept,
                };
            }
        )
    }

    /// The live calls of a group or loop step on `child`, as one fused call.
    /// Returns a token stream that is a block's content.
    fn fused_call(
        &self,
        members: &[(usize, &Stmt)],
        flagged: &[bool],
        frames: &[Frame],
        (targets, guards): (
            &[(TypeId, FusedFnId)],
            &[Option<treefuse_fusion::TypeGuard>],
        ),
        deliver: &Deliver,
        value: Option<&proc_macro2::Ident>,
    ) -> TokenStream {
        let mut pre = TokenStream::new();
        let mut args = Vec::new();
        let mut copies = Vec::new();
        let type_guarded = |k: usize| guards.get(k).is_some_and(Option::is_some);
        let may_skip = |k: usize, p: usize, s: &Stmt| {
            flagged[p] || matches!(s.kind, StmtKind::If { .. }) || type_guarded(k)
        };
        let any_cond = members
            .iter()
            .enumerate()
            .any(|(k, (p, s))| may_skip(k, *p, s));
        // Bits of the calls that always take part.
        let always: Vec<usize> = members
            .iter()
            .enumerate()
            .filter(|(k, (p, s))| !may_skip(*k, *p, s))
            .map(|(k, _)| k)
            .collect();
        let always = self.mask_lit(&always);
        let mask_ty = self.mask_ty();
        let any_taking_part = self.mask_any(quote!(m));
        // Type-guarded calls take part by the type of the element as the
        // loop found it (`item`), or of the child as it stood when the
        // function started (`start_kind`); the others are not even
        // evaluated.
        let subject = match deliver {
            Deliver::Child(_) => quote!(start_kind),
            _ => quote!(t[item].kind),
        };
        if let Some(admit) = self.type_guard_mask(targets, guards, &subject) {
            let ty = self.mask_ty();
            pre.extend(quote!(let admit: #ty = #admit;));
        }
        for (k, (p, s)) in members.iter().enumerate() {
            let fr = &frames[*p];
            let (guard, call) = match &s.kind {
                StmtKind::If {
                    cond, then_branch, ..
                } => (Some(cond), then_branch.first()),
                _ => (None, Some(*s)),
            };
            let (call_args, lent): (&[Expr], &[bool]) = match call.map(|c| &c.kind) {
                Some(StmtKind::Call { args, method, .. }) => {
                    (args, &self.method_lent[method.index()])
                }
                _ => (&[], &[]),
            };
            self.keep_lent_locals(call_args, lent, fr);
            let mut conds = Vec::new();
            if flagged[*p] {
                let flag = format_ident!("active_{p}");
                conds.push(quote!(#flag));
            }
            if type_guarded(k) {
                conds.push(self.mask_has(quote!(admit), k));
            }
            if let Some(c) = guard {
                conds.push(self.expr(c, fr).at(4));
            }
            let names: Vec<_> = (0..call_args.len())
                .map(|j| format_ident!("arg{k}_{j}"))
                .collect();
            // Lent arguments are references, which every node of a region
            // gets: a local is lent where it is, even by a call that may
            // not take part (the borrow costs nothing and cannot fail),
            // anything else from a value the caller holds.
            copies.extend(
                call_args
                    .iter()
                    .enumerate()
                    .map(|(j, a)| is_copy(&a.ty) || Self::is_lent(lent, j)),
            );
            let mut passed: Vec<TokenStream> = names.iter().map(|n| quote!(#n)).collect();
            for (j, a) in call_args.iter().enumerate() {
                if !Self::is_lent(lent, j) {
                    continue;
                }
                if let Some(r) = self.lend_local(a, fr) {
                    let n = &names[j];
                    pre.extend(quote!(let #n = #r;));
                } else {
                    let n = &names[j];
                    passed[j] = quote!(&#n);
                }
            }
            let lent_local =
                |j: usize, a: &Expr| Self::is_lent(lent, j) && matches!(a.kind, ExprKind::Local(_));
            if conds.is_empty() {
                for (j, a) in call_args.iter().enumerate() {
                    if lent_local(j, a) {
                        continue;
                    }
                    let v = self.expr(a, fr).ts;
                    let n = &names[j];
                    // A region call takes the value at its last node.
                    if matches!(deliver, Deliver::Region(_))
                        && !is_copy(&a.ty)
                        && !Self::is_lent(lent, j)
                    {
                        pre.extend(quote!(let mut #n = #v;));
                    } else {
                        pre.extend(quote!(let #n = #v;));
                    }
                }
            } else {
                let mut sets = TokenStream::new();
                for (j, a) in call_args.iter().enumerate() {
                    if lent_local(j, a) {
                        continue;
                    }
                    let v = self.expr(a, fr).ts;
                    let n = &names[j];
                    let ty = self.data_type(&a.ty);
                    let z = self.zero(&a.ty);
                    pre.extend(quote!(let mut #n: #ty = #z;));
                    sets.extend(quote!(#n = #v;));
                }
                sets.extend(self.mask_insert(quote!(m), k));
                pre.extend(quote!(if #(#conds)&&* { #sets }));
            }
            args.extend(passed);
        }
        // A child whose type the members' guards proved is run without
        // the dispatcher's match on its kind.
        let proven = match deliver {
            Deliver::Child(field) => self
                .proven_type(*field, members, targets)
                .and_then(|ty| self.fused_disp_known.get(&(targets.to_vec(), ty))),
            _ => None,
        };
        let disp = proven.unwrap_or(&self.fused_disp[targets]);
        let takes_mask = self.disp_takes_mask(targets);
        let replaces = self.disp_replaces(targets);
        let needs_site = self.disp_site(targets);
        let mask = if !takes_mask {
            quote!()
        } else if any_cond {
            quote!(, m)
        } else {
            let bits = self.mask_of_first(members.len());
            quote!(, #bits)
        };
        let optional = match deliver {
            Deliver::Child(field) => self.p.is_optional(*field),
            _ => false,
        };
        let (child_def, call) = match deliver {
            Deliver::Child(field) => {
                // `t[this].FIELD`.
                self.fwd_event(crate::forward_record::Event::Slot(*field));
                let name = &self.field[field.index()];
                let site = self.site_arg(needs_site, self.child_site(*field));
                let x = if optional { quote!(Some(x)) } else { quote!(x) };
                let call = if replaces {
                    quote!(
                        if let Some(x) = #disp(t, cx, child #site #mask #(, #args)*)?.single() {
                            t[this].#name = #x;
                        }
                    )
                } else if value.is_some() {
                    quote!(#disp(t, cx, child #site #mask #(, #args)*)?)
                } else {
                    quote!(#disp(t, cx, child #site #mask #(, #args)*)?;)
                };
                (quote!(let child = t[this].#name;), call)
            }
            Deliver::Item => {
                let site = self.site_arg(needs_site, quote!(Site::Listed));
                (
                    TokenStream::new(),
                    quote!(#disp(t, cx, item #site #mask #(, #args)*)?;),
                )
            }
            Deliver::Region(open) => {
                let site = self.site_arg(needs_site, quote!(Site::Listed));
                let args: Vec<(TokenStream, bool)> = args.into_iter().zip(copies).collect();
                let call = self.region_call(
                    open,
                    |vals| quote!(#disp(t, cx, n #site #mask #(, #vals)*)),
                    &args,
                    replaces,
                );
                (TokenStream::new(), call)
            }
        };
        // A skipped call's value is the slot as it is.
        let skipped = match (value, deliver) {
            (Some(slot), Deliver::Child(field)) => {
                let name = &self.field[field.index()];
                quote!(else { t[t[this].#name].#slot })
            }
            _ => quote!(),
        };
        if let (true, Deliver::Child(field)) = (optional, deliver) {
            // An optional child (§8.7): read once (evaluating guards and
            // arguments cannot change it); when it is empty, no call
            // takes part and only the live calls' guards are evaluated,
            // as unfused.
            let name = &self.field[field.index()];
            let mut guards_only = TokenStream::new();
            for (p, s) in members {
                if let StmtKind::If { cond, .. } = &s.kind {
                    let c = self.expr(cond, &frames[*p]).ts;
                    if flagged[*p] {
                        let flag = format_ident!("active_{p}");
                        guards_only.extend(quote!(if #flag { let _ = #c; }));
                    } else {
                        guards_only.extend(quote!(let _ = #c;));
                    }
                }
            }
            let body = if any_cond {
                quote!(
                    let mut m: #mask_ty = #always;
                    #pre
                    if #any_taking_part {
                        #call
                    }
                )
            } else {
                quote!(#pre #call)
            };
            if guards_only.is_empty() {
                return quote!(
                    if let Some(child) = t[this].#name {
                        #body
                    }
                );
            }
            return quote!(
                if let Some(child) = t[this].#name {
                    #body
                } else {
                    #guards_only
                }
            );
        }
        if any_cond {
            quote!(
                let mut m: #mask_ty = #always;
                #pre
                if #any_taking_part {
                    #child_def
                    #call
                } #skipped
            )
        } else {
            quote!(
                #pre
                #child_def
                #call
            )
        }
    }
}

impl Gen<'_> {
    /// For a call step with type-guarded calls: an expression giving the
    /// calls (as mask bits) that take part for the concrete type `subject`
    /// (the kind of the loop's element `item`, or `start_kind`); `None`
    /// without guards.
    fn type_guard_mask(
        &self,
        targets: &[(TypeId, FusedFnId)],
        guards: &[Option<treefuse_fusion::TypeGuard>],
        subject: &TokenStream,
    ) -> Option<TokenStream> {
        let (first, _) = targets.first()?;
        if guards.is_empty() {
            return None;
        }
        let kind = &self.hier(*first).kind;
        let arms = targets.iter().filter_map(|(ty, _)| {
            let bits: WideMask = treefuse_fusion::admitted(guards, *ty);
            let left_out: Vec<usize> = (0..guards.len()).filter(|&k| !bits.has(k)).collect();
            (!left_out.is_empty()).then(|| {
                let v = &self.variant[ty.index()];
                let admitted = self.mask_all_but(&left_out);
                quote!(#kind::#v => #admitted,)
            })
        });
        let all = self.mask_all();
        Some(quote!(match #subject { #(#arms)* _ => #all }))
    }
}

/// Where a fused call's callee stands and where its replacement goes.
pub(crate) enum Deliver {
    /// The child in this field of `this`.
    Child(FieldId),
    /// `item`, an element of a list whose elements are not replaced.
    Item,
    /// Every node of the current element's region of this open list.
    Region(proc_macro2::Ident),
}

fn syn_label(s: &str) -> TokenStream {
    let l = proc_macro2::Punct::new('\'', proc_macro2::Spacing::Joint);
    let i = ident(&s[1..]);
    quote!(#l #i)
}

/// Appends the code of one step of a merged loop's iteration to
/// `iteration`, after a binding of each rebound loop variable it uses to
/// the node standing where the element stood (`standing`).
fn rebind_into(
    iteration: &mut TokenStream,
    code: TokenStream,
    rebound: &[String],
    standing: &TokenStream,
) {
    for v in rebound {
        if uses_var(&code, v) {
            let v = format_ident!("{v}");
            iteration.extend(quote!(let #v = #standing;));
        }
    }
    iteration.extend(code);
}

impl Gen<'_> {
    /// Keeps lent only the parameters whose code copies the value out of
    /// the reference rarely enough to pay. Generates the pure functions and
    /// the unfused bodies, unlends what they copy too often, and repeats
    /// until nothing changes (a parameter passed on to one that is no
    /// longer lent is copied there: the sets only shrink).
    ///
    /// A pure function's parameter must never be copied: its callers
    /// typically hand over a map they then replace (`e = kill(e, id)`),
    /// which the callee updates in place only if it owns it. A traversal's
    /// parameter may be copied at one place outside loops (`Block.propagate`
    /// starts with `let known = env;`): that copy is the one its caller
    /// made before, moved into the callee, while the calls that pass the
    /// value on without copying (one per statement, per child) no longer
    /// copy. Array parameters of pure functions stay lent (`&[T]`, copied
    /// with `to_vec` where needed), as before.
    ///
    /// Value semantics hold by construction: a lent parameter is a shared
    /// `&T` (the generated types have no interior mutability) that the
    /// callee never assigns, and the caller cannot change the value while
    /// the call holds the borrow, so neither side sees the other's later
    /// changes.
    pub(crate) fn settle_lending(&mut self) {
        loop {
            self.lent_copied.borrow_mut().clear();
            let _ = self.pure_fns();
            let _ = self.bodies();
            let copied = std::mem::take(&mut *self.lent_copied.borrow_mut());
            let mut changed = false;
            for ((lender, i), how) in copied {
                let (slot, keep) = match lender {
                    Lender::Pure(f) => (
                        self.pure_lent[f].get_mut(i),
                        matches!(
                            self.p.pure_fns[f].frame.locals.get(i),
                            Some((_, DataType::Array(_)))
                        ),
                    ),
                    Lender::Body { method, .. } => {
                        (self.method_lent[method].get_mut(i), how == Copied::Once)
                    }
                };
                if let Some(lent) = slot {
                    if *lent && !keep {
                        *lent = false;
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }
}

impl Gen<'_> {
    /// Ends a run of statements that touch only the receiver's data fields
    /// (`Gen::self_node`): `segment`'s code joins `code`, after the
    /// binding of the receiver's node when the code uses it.
    fn close_self_segment(&self, code: &mut TokenStream, segment: &mut TokenStream, ty: TypeId) {
        self.self_node.set(false);
        let run = std::mem::take(segment);
        if mentions(&run, "this_node") {
            let data_mut = &self.hier(ty).data_mut;
            code.extend(quote!(let this_node = t.#data_mut(this);));
        }
        code.extend(run);
    }
}
