//! Parallel entry points (`CodegenOptions::parallel`): the tree-access
//! trait the traversals become generic over, the worker's view of the
//! tree, and the code that splits a loop the fuser found independent.
//!
//! With the option, every function of `traversals` that takes the tree is
//! generic over `TA: TreeAccess` (the `Index`/`IndexMut` of every arena,
//! plus `tree_mut` where nodes are created and `split` where a parallel
//! loop starts). Three types implement it:
//!
//! - `Tree`: the sequential entry points, which instantiate the
//!   traversals with it; `split` is `None`, so a parallel loop is the
//!   plain loop it was and the machine code is that of a module without
//!   the option.
//! - `ParallelRun`: the whole tree of `run_<fuse>_parallel`. It indexes
//!   like `Tree` (and derefs to it) until a loop whose `LoopGroup::parallel`
//!   is `Parallel` starts: there `split` hands the loop the tree and the
//!   options, and `par_loop` runs the elements in chunks.
//! - `SubtreeView`: what one chunk's worker sees. Per arena, its chunk's
//!   nodes mutably (`&mut [Slots]`) and the nodes before and after the
//!   whole list's shared (`&[Slots]`), taken apart with `split_at_mut`;
//!   no `unsafe`. Everything inside a worker runs sequentially on it
//!   (`split` is `None`), nested parallel loops included.
//!
//! `par_loop` plans without visiting every node
//! (`treefuse_runtime::generated::guess_plan`): a short pre-order walk per
//! element (`SubtreeView::firsts`, on the pool's threads; from
//! `Parallel::sampled_from` elements on, per block of consecutive
//! elements) finds where its nodes start in each arena, the last elements
//! are measured (`SubtreeView::span`) for where the list ends, and
//! `plan_from_firsts` turns that into chunks
//! of at least the grain, guessing that each element's nodes are the ids
//! from its first to the next element's (true of the pre-order layout that
//! JSON reading and `Tree::from_runtime` produce). The guess is then
//! proven, not trusted: every chunk is *closed* (a linear scan of its id
//! ranges, one chunk per thread: every child of a node in them is in
//! them), every element's root lies in its chunk, and no node outside the
//! list's ranges points into them but the list itself (`refs_into`). So
//! each element's subtree lies in its chunk and is reached only through
//! the list: no node is shared between workers. (`refs_into` reads only
//! the nodes outside the ranges: in a tree read from JSON, the list's
//! ancestors.)
//!
//! Nodes that the chunks of a split loop create land after every other
//! node, so after such a loop an element's nodes are two ranges of ids
//! (its old ones, and its new ones among the other elements' new ones),
//! which the pre-order guess cannot find. The run therefore keeps the
//! plan of the last loop that split (`ParallelRun`'s `memo`,
//! `SplitMemo`), grown by a *band* of the created nodes per arena (chunk
//! `k` holds its range of every band: `SplitPlan::with_growth`), and
//! `plan_split` tries it first when the next parallel loop runs over the
//! same elements. A kept plan is only a guess too: it goes through the
//! same proof (roots, closed chunks over all their ranges, `refs_into`
//! over all the list's ranges) before anything runs on it, unless it is
//! still *proven*: the loop that left it found every node a chunk changed
//! or created with its children in the chunk's grown ranges
//! (`SubtreeView::settle`, while renumbering; the nodes no worker got
//! mutably kept the children the proof saw, and no worker writes outside
//! its chunk), and nothing changed a node since other than in a data
//! field (`ParallelRun` notes every `IndexMut`, `push` and `DerefMut`, and
//! its `split` then forgets the proof). Then only the plan's shape and the
//! elements' roots are checked (`Parallel::kept_proofs` counts such
//! loops).
//! Otherwise, and for lists under the grain, `plan_split` says no before
//! anything ran, and the loop runs as it stands, sequentially on the
//! `ParallelRun` itself (indexed as fast as `Tree`), with splitting off
//! for the loops inside it (`TreeAccess::set_splitting`), which run as
//! they would in a chunk, without planning. Each worker runs on a context of its own
//! holding a copy of the globals; afterwards the chunks are taken in list
//! order: the globals the fuser lists as reduced are combined
//! (`treefuse_fusion::Reduction`: each worker starts from the value before
//! the loop, so the result is the sequential one), visits are added, and
//! the first chunk that failed ends the loop with its error, which is the
//! error the sequential run raises first. The chunks after it may have run
//! by then: after an error, the tree holds their changes as well (the
//! globals and the error are the sequential run's).
//!
//! A linked list (`Inner { content, next }`, as the faithful case studies
//! keep their lists) has no loop: the fused function on `Inner` calls
//! `content`, then `next`, which runs the same function on the next inner
//! node. When the fuser found the two calls independent
//! (`FusedFunction::independent_calls`) and they pass nothing but the
//! function's parameters (`Gen::chain_shape`), the function's body
//! becomes a *chain driver* (`Gen::chain_driver`): on a `ParallelRun`
//! with splitting on, it follows `next` while the node is of its type,
//! plans the chain's nodes as the elements of a loop (`plan_chain`), runs
//! their `content` calls in `par_loop` and the last node's `next` call
//! once. Sequentially the content calls run in chain order before the
//! end's, all commuting, so the result and the first error are the
//! sequential run's. `plan_chain` guesses as `plan_split` does (an item is
//! its chain node and its item child's subtree, not the rest of the
//! chain) and proves each chunk closed but for its last chain node's next
//! child (`SubtreeView::closed_chain`), counting the children in the chunk
//! that are chain nodes: only the chain's own links may be, so no item
//! reaches a chain node. No plan is kept after a chain (the kept plan's
//! proof is a loop's).
//!
//! Nodes a worker creates are numbered from the arena's end; after the
//! loop each chunk's land after the earlier chunks' and the references to
//! them move up (`SubtreeView::settle`). Only nodes the worker created
//! or changed can hold such references, so only those are visited: a
//! chunk's `ArenaView` sets a bit per node it hands out mutably
//! (`ArenaView::get_mut`, the only way to change a chunk node), and the
//! others still hold the references the check proved to lie inside the
//! chunk, below the arena's length at the split.

use crate::gen::*;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use treefuse_sema::{FieldKind, GlobalId};

/// How a child field holds its children: one, an optional one, a list.
#[derive(Clone, Copy)]
enum Holds {
    One,
    Optional,
    List,
}

impl Gen<'_> {
    /// Per concrete type of `h` with child fields, a `match` arm on
    /// `node.kind` whose body is `each(field, arena index of the child's
    /// hierarchy, how the field holds children)` for every child field of
    /// the type; `None` if no type has children.
    fn child_field_match(
        &self,
        h: &crate::gen::Hier,
        each: &dyn Fn(&proc_macro2::Ident, usize, Holds) -> TokenStream,
    ) -> Option<TokenStream> {
        let kind = &h.kind;
        // The types without child fields, named rather than matched by
        // `_`: the match then covers the enum, and a jump table needs no
        // range check (a linear scan such as `SubtreeView::closed` runs
        // it per node).
        let mut childless = Vec::new();
        let arms: Vec<TokenStream> = h
            .concrete
            .iter()
            .filter_map(|&t| {
                let code: Vec<TokenStream> = h
                    .fields
                    .iter()
                    .filter(|f| self.p.is_subtype(t, self.p.fields[f.index()].owner))
                    .filter_map(|f| {
                        let name = &self.field[f.index()];
                        let (ct, holds) = match &self.p.fields[f.index()].kind {
                            FieldKind::Child(ct) if self.p.is_optional(*f) => {
                                (*ct, Holds::Optional)
                            }
                            FieldKind::Child(ct) => (*ct, Holds::One),
                            FieldKind::List(ct) => (*ct, Holds::List),
                            FieldKind::Data(_) => return None,
                        };
                        Some(each(name, self.hier_of[ct.index()], holds))
                    })
                    .collect();
                let tv = &self.variant[t.index()];
                if code.is_empty() {
                    childless.push(tv);
                    return None;
                }
                Some(quote!(#kind::#tv => { #(#code)* }))
            })
            .collect();
        if arms.is_empty() {
            return None;
        }
        let rest = if childless.is_empty() {
            quote!()
        } else {
            quote!(#(#kind::#childless)|* => {})
        };
        Some(quote!(match node.kind {
            #(#arms)*
            #rest
        }))
    }

    /// The support items of a module with parallel entry points; those
    /// that split only if some code splits: loops (`loops`: the code calls
    /// `plan_split`) or chains (`chains`: it calls `plan_chain`).
    pub fn parallel_support(&self, loops: bool, chains: bool) -> TokenStream {
        let splits = loops || chains;
        if self.tree_param.is_none() {
            return TokenStream::new();
        }
        let ids: Vec<_> = self.hiers.iter().map(|h| &h.id).collect();
        let nodes: Vec<_> = self.hiers.iter().map(|h| &h.node).collect();
        let arenas: Vec<_> = self.hiers.iter().map(|h| &h.arena).collect();
        let pushes: Vec<_> = self.hiers.iter().map(|h| &h.push).collect();
        let n_arenas = self.hiers.len();
        let data_muts: Vec<_> = self.hiers.iter().map(|h| &h.data_mut).collect();
        let arena_lits: Vec<_> = (0..n_arenas)
            .map(proc_macro2::Literal::usize_unsuffixed)
            .collect();
        // The cold tables: per table its struct, the arena (index) of its
        // type's hierarchy, its trait methods.
        let colds: Vec<(&crate::gen::ColdStruct, usize)> = self
            .hiers
            .iter()
            .enumerate()
            .flat_map(|(hi, h)| self.cold_types(h).map(move |(_, c)| (c, hi)))
            .collect();
        let tables: Vec<_> = colds.iter().map(|(c, _)| &c.table).collect();
        let cold_names: Vec<_> = colds.iter().map(|(c, _)| &c.name).collect();
        let push_withs: Vec<_> = colds.iter().map(|(c, _)| &c.push_with).collect();
        let cold_pushes: Vec<_> = colds.iter().map(|(_, hi)| &self.hiers[*hi].push).collect();
        let cold_nodes: Vec<_> = colds.iter().map(|(_, hi)| &self.hiers[*hi].node).collect();
        let cold_ids: Vec<_> = colds.iter().map(|(_, hi)| &self.hiers[*hi].id).collect();
        let cold_arena: Vec<_> = colds
            .iter()
            .map(|(_, hi)| proc_macro2::Literal::usize_unsuffixed(*hi))
            .collect();
        let cold_gets: Vec<_> = colds.iter().map(|(c, _)| &c.get).collect();
        let cold_inserts: Vec<_> = colds.iter().map(|(c, _)| &c.insert).collect();
        let base = quote!(
            /// How the traversals reach the tree's nodes: the whole `Tree`
            /// (the sequential entry points), the whole tree of a parallel run
            /// (`ParallelRun`), or one worker's `SubtreeView` of it.
            pub trait TreeAccess: #(std::ops::IndexMut<#ids, Output = #nodes> +)* Sized {
                #(
                    /// Adds a node to its hierarchy's arena; its id.
                    fn #pushes(&mut self, node: #nodes) -> #ids;
                    /// The node at `id`, to write one of its data fields
                    /// (never a child slot: a split worker does not
                    /// renumber a node changed only through this).
                    #[inline]
                    fn #data_muts(&mut self, id: #ids) -> &mut #nodes {
                        &mut self[id]
                    }
                )*
                #(
                    /// The cold fields of a node.
                    fn #cold_gets(&self, id: u32) -> &#cold_names;
                    /// Sets the cold fields of a node just added.
                    fn #cold_inserts(&mut self, id: u32, cold: #cold_names);
                    /// Adds a node with its cold fields; its id.
                    #[inline]
                    fn #push_withs(&mut self, node: #cold_nodes, cold: #cold_names) -> #cold_ids {
                        let id = self.#cold_pushes(node);
                        self.#cold_inserts(id.0, cold);
                        id
                    }
                )*

                /// The tree, the options and the kept plan of a parallel run,
                /// where a loop the fuser found independent may split: `None`
                /// but for `ParallelRun`.
                #[inline]
                fn split(&mut self) -> Option<(&mut Tree, &Parallel, &mut Option<SplitMemo<#n_arenas>>)> {
                    None
                }

                /// Lets loops split (`true`) or not; whether they could.
                /// Only a `ParallelRun` splits: it stops while a parallel
                /// loop that did not split runs, so that the loops inside
                /// it run as they would in a chunk, without planning.
                #[inline]
                fn set_splitting(&mut self, _on: bool) -> bool {
                    false
                }
            }

            impl TreeAccess for Tree {
                #(
                    #[inline]
                    fn #pushes(&mut self, node: #nodes) -> #ids {
                        Tree::#pushes(self, node)
                    }
                )*
                #(
                    #[inline]
                    fn #cold_gets(&self, id: u32) -> &#cold_names {
                        self.#tables.get(id)
                    }
                    #[inline]
                    fn #cold_inserts(&mut self, id: u32, cold: #cold_names) {
                        self.#tables.insert(id, cold);
                    }
                )*
            }

            /// The tree of a parallel run (`run_<fuse>_parallel`): indexed
            /// like `Tree` (and dereferencing to it) up to the loops that
            /// split.
            pub struct ParallelRun<'a> {
                tree: &'a mut Tree,
                par: &'a Parallel,
                splitting: bool,
                /// The plan of the last loop that split, grown by the nodes
                /// its chunks created: tried first when the next parallel
                /// loop runs over the same elements (`plan_split`).
                memo: Option<SplitMemo<#n_arenas>>,
                /// Whether a node may have changed other than in a data
                /// field (handed out mutably, added) since the last split:
                /// then the kept plan's proof no longer holds.
                changed: bool,
            }

            impl<'a> ParallelRun<'a> {
                /// A run on `tree` with the options `par`.
                pub fn new(tree: &'a mut Tree, par: &'a Parallel) -> ParallelRun<'a> {
                    ParallelRun { tree, par, splitting: true, memo: None, changed: false }
                }
            }

            impl std::ops::Deref for ParallelRun<'_> {
                type Target = Tree;
                #[inline]
                fn deref(&self) -> &Tree {
                    self.tree
                }
            }

            impl std::ops::DerefMut for ParallelRun<'_> {
                #[inline]
                fn deref_mut(&mut self) -> &mut Tree {
                    self.changed = true;
                    self.tree
                }
            }

            #(
                impl std::ops::Index<#ids> for ParallelRun<'_> {
                    type Output = #nodes;
                    #[inline]
                    fn index(&self, id: #ids) -> &#nodes {
                        &self.tree[id]
                    }
                }

                impl std::ops::IndexMut<#ids> for ParallelRun<'_> {
                    #[inline]
                    fn index_mut(&mut self, id: #ids) -> &mut #nodes {
                        self.changed = true;
                        &mut self.tree[id]
                    }
                }
            )*

            impl TreeAccess for ParallelRun<'_> {
                #(
                    #[inline]
                    fn #pushes(&mut self, node: #nodes) -> #ids {
                        self.changed = true;
                        Tree::#pushes(self.tree, node)
                    }
                    /// Not a change for the kept plan: a data field holds
                    /// no node id.
                    #[inline]
                    fn #data_muts(&mut self, id: #ids) -> &mut #nodes {
                        &mut self.tree[id]
                    }
                )*
                #(
                    #[inline]
                    fn #cold_gets(&self, id: u32) -> &#cold_names {
                        self.tree.#tables.get(id)
                    }
                    #[inline]
                    fn #cold_inserts(&mut self, id: u32, cold: #cold_names) {
                        self.tree.#tables.insert(id, cold);
                    }
                )*

                #[inline]
                fn split(&mut self) -> Option<(&mut Tree, &Parallel, &mut Option<SplitMemo<#n_arenas>>)> {
                    if self.splitting {
                        if std::mem::take(&mut self.changed) {
                            if let Some(memo) = &mut self.memo {
                                memo.unprove();
                            }
                        }
                        Some((&mut *self.tree, self.par, &mut self.memo))
                    } else {
                        None
                    }
                }

                #[inline]
                fn set_splitting(&mut self, on: bool) -> bool {
                    std::mem::replace(&mut self.splitting, on)
                }
            }
        );
        if !splits {
            return base;
        }
        // Per hierarchy: the code visiting each child id of `node` (for
        // `visit(arena, id)`), and the code renumbering the created ones.
        let visit_children: Vec<Option<TokenStream>> = self
            .hiers
            .iter()
            .map(|h| {
                self.child_field_match(h, &|name, a, holds| {
                    let a = proc_macro2::Literal::usize_unsuffixed(a);
                    match holds {
                        Holds::One => quote!(visit(#a, node.#name.0 as usize);),
                        Holds::Optional => quote!(if let Some(c) = node.#name {
                            visit(#a, c.0 as usize);
                        }),
                        Holds::List => quote!(for c in node.#name.iter() {
                            visit(#a, c.0 as usize);
                        }),
                    }
                })
            })
            .collect();
        let shift_children: Vec<TokenStream> = self
            .hiers
            .iter()
            .map(|h| {
                let m = self.child_field_match(h, &|name, a, holds| {
                    let cid = &self.hiers[a].id;
                    let a = proc_macro2::Literal::usize_unsuffixed(a);
                    match holds {
                        Holds::One => quote!(if node.#name.0 as usize >= base[#a] {
                            node.#name.0 += off[#a] as u32;
                        }),
                        Holds::Optional => quote!(if let Some(c) = &mut node.#name {
                            if c.0 as usize >= base[#a] {
                                c.0 += off[#a] as u32;
                            }
                        }),
                        // In place when the worker holds the list's
                        // only reference (a list it built or edited);
                        // a copy when the list is shared.
                        Holds::List => quote!(if node.#name.iter().any(|c| c.0 as usize >= base[#a]) {
                            if let Some(ids) = Arc::get_mut(&mut node.#name) {
                                for c in ids.iter_mut().filter(|c| c.0 as usize >= base[#a]) {
                                    c.0 += off[#a] as u32;
                                }
                            } else {
                                node.#name = node.#name.iter().map(|&c| if c.0 as usize >= base[#a] {
                                    #cid(c.0 + off[#a] as u32)
                                } else {
                                    c
                                }).collect();
                            }
                        }),
                    }
                });
                m.unwrap_or_else(|| quote!(let _ = (node, base, off);))
            })
            .collect();
        // Per hierarchy, the arm of a walk over a subtree (`span`,
        // `firsts`) for a node of it: bounds and cycle checks, `record`
        // (given the arena index) and the children onto `pending`.
        let walk_arms =
            |record: &dyn Fn(&proc_macro2::Literal) -> TokenStream| -> Vec<TokenStream> {
                self.hiers
                    .iter()
                    .zip(&arena_lits)
                    .zip(&visit_children)
                    .map(|((h, a), children)| {
                        let (arena, v) = (&h.arena, &self.variant[h.root.index()]);
                        let children = match children {
                            Some(m) => quote!(
                                let mut visit = |a: usize, c: usize| pending.push((a, c));
                                #m
                            ),
                            None => quote!(let _ = node;),
                        };
                        let record = record(a);
                        quote!(NodeRef::#v(id) => {
                            let i = id.0 as usize;
                            let node = t.#arena.get(i)?;
                            seen += 1;
                            if seen > limit {
                                return None;
                            }
                            #record
                            #children
                        })
                    })
                    .collect()
            };
        let span_arms = walk_arms(&|a| quote!(span[#a].add(i);));
        let first_arms = walk_arms(&|a| {
            quote!(
                if found[#a].is_none() {
                    found[#a] = Some(i);
                    missing -= 1;
                }
            )
        });
        // A child id found while walking a subtree: back to a `NodeRef`.
        let refer_arms: Vec<TokenStream> = self
            .hiers
            .iter()
            .zip(&arena_lits)
            .map(|(h, a)| {
                let (id, v) = (&h.id, &self.variant[h.root.index()]);
                quote!(#a => NodeRef::#v(#id(c as u32)),)
            })
            .collect();
        // Per arena whose nodes have children: `scan(arena field, arena
        // index, the code visiting a node's children)`.
        let per_arena_with_children = |scan: &dyn Fn(
            &proc_macro2::Ident,
            &proc_macro2::Literal,
            &TokenStream,
        ) -> TokenStream| {
            self.hiers
                .iter()
                .zip(&arena_lits)
                .zip(&visit_children)
                .filter_map(|((h, a), children)| Some(scan(&h.arena, a, children.as_ref()?)))
                .collect::<Vec<TokenStream>>()
        };
        let outside_scans = per_arena_with_children(&|arena, a, children| {
            // Only the nodes before and after the ranges: the ones in
            // them are not looked at (a tree read in pre-order has
            // few others, the list's ancestors).
            quote!(
                for gap in gaps(&list[#a], t.#arena.len()) {
                    for node in &t.#arena[gap] {
                        let mut visit = |a: usize, c: usize| {
                            if in_ranges(&list[a], c) {
                                refs += 1;
                            }
                        };
                        #children
                    }
                }
            )
        });
        // Per arena with children, a linear scan of the ids in `over`
        // whose children must lie in `ranges` (`fail` returned if one
        // does not), running `also` on every child: one comparison per
        // child against the first band's range (`c - lo` wraps around
        // below `lo`), the other bands only for a child outside it; no
        // branch per node: the verdict of a block of nodes is looked at
        // once.
        let block_scans =
            |over: TokenStream, fail: TokenStream, also: TokenStream| -> Vec<TokenStream> {
                per_arena_with_children(&|arena, a, children| {
                    // (`?` where the function returns an `Option`.)
                    let nodes = if fail.to_string() == "None" {
                        quote!(let nodes = t.#arena.get(range.clone())?;)
                    } else {
                        quote!(let Some(nodes) = t.#arena.get(range.clone()) else {
                                return #fail;
                            };)
                    };
                    quote!(
                        for range in &#over[#a] {
                            #nodes
                            for block in nodes.chunks(256) {
                                let mut outside = false;
                                for node in block {
                                    let mut visit = |a: usize, c: usize| {
                                        outside |= c.wrapping_sub(lo[a]) >= width[a]
                                            && !in_ranges(&ranges[a][1..], c);
                                        #also
                                    };
                                    #children
                                }
                                if outside {
                                    return #fail;
                                }
                            }
                        }
                    )
                })
            };
        let closed_scans = block_scans(quote!(ranges), quote!(false), quote!());
        // `closed_chain`'s: over `scan` (the chunk's ids but its last
        // chain node), also counting the children that are chain nodes (a
        // bit per id of the chain's arena in `links`).
        let chain_scans = block_scans(
            quote!(scan),
            quote!(None),
            quote!(
                refs += usize::from(
                    a == links.0 && links.1.get(c / 64).is_some_and(|w| (w >> (c % 64)) & 1 == 1),
                );
            ),
        );
        let place_arms: Vec<TokenStream> = self
            .hiers
            .iter()
            .zip(&arena_lits)
            .map(|(h, a)| {
                let v = &self.variant[h.root.index()];
                quote!(NodeRef::#v(id) => (#a, id.0 as usize),)
            })
            .collect();
        // `SubtreeView`'s per-arena methods, snake case and distinct
        // whatever the arenas are called (`_leaf` and `leaf` both).
        let mut view_ns = crate::names::Names::for_methods(&[
            "span",
            "firsts",
            "closed",
            "place",
            "refs_into",
            "settle",
            "into_growth",
        ]);
        let mut per_arena = |prefix: &str| -> Vec<proc_macro2::Ident> {
            arenas
                .iter()
                .map(|a| {
                    view_ns.fresh_value(&format!(
                        "{prefix}_{}",
                        a.to_string().trim_start_matches("r#")
                    ))
                })
                .collect()
        };
        let shift_fns = per_arena("shift");
        let inside_fns = per_arena("inside");
        // Per hierarchy: whether all children of `node` lie in `ranges`.
        let inside_children: Vec<TokenStream> = visit_children
            .iter()
            .map(|children| match children {
                Some(children) => quote!(
                    let mut inside = true;
                    let mut visit = |a: usize, c: usize| inside &= in_ranges(&ranges[a], c);
                    #children
                    inside
                ),
                None => quote!(
                    let _ = (node, ranges);
                    true
                ),
            })
            .collect();
        // `par_loop`'s locals for the arenas and cold tables it takes
        // apart: numbered, never the arenas' own (user-derived) names,
        // which could be those of its parameters (a hierarchy `Body`
        // makes an arena `body`).
        let numbered = |prefix: &str, n: usize| -> Vec<proc_macro2::Ident> {
            (0..n).map(|i| format_ident!("{prefix}_{i}")).collect()
        };
        let parts = numbered("parts", arenas.len());
        let arena_vars = numbered("arena", arenas.len());
        let view_vars = numbered("view", arenas.len());
        let table_vars = numbered("table", tables.len());
        let stack_bound = if matches!(self.stack, crate::stack_plan::StackScheme::Created(_)) {
            quote!(cx.set_stack_bound(nodes);)
        } else {
            quote!()
        };
        // The visit-counting const parameter, named as in the traversals
        // (not `C` when a tree type is named so).
        let count = &self.count_param;
        // What only the splitting of loops needs (`plan_split`), and what
        // only chains' (`plan_chain`): neither is generated where no code
        // calls it.
        let firsts_fn = if loops || chains {
            quote!(
                /// The first node of each arena that a pre-order walk of the
                /// subtree at `root` meets (see `plan_from_firsts`); the walk
                /// stops once it has one of every arena, or after 16 nodes
                /// (an arena not met by then counts as one the element has
                /// no nodes in: a guess like the rest of the plan, which
                /// `closed` checks; walking every element whole would cost
                /// as much as a pass). `None` if it reaches an id not in the
                /// tree or more nodes than the tree has (a cycle).
                #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                fn firsts(
                    t: &Tree,
                    root: NodeRef,
                    pending: &mut Vec<(usize, usize)>,
                ) -> Option<[Option<usize>; #n_arenas]> {
                    let limit = t.node_count();
                    let mut seen = 0usize;
                    let mut found = [None; #n_arenas];
                    let mut missing = #n_arenas;
                    pending.clear();
                    let mut next = Some(root);
                    while let Some(n) = next {
                        let mark = pending.len();
                        match n {
                            #(#first_arms)*
                        }
                        if missing == 0 || seen >= 16 {
                            break;
                        }
                        // Children in order: the walk is a pre-order.
                        pending[mark..].reverse();
                        next = pending.pop().map(|(a, c)| match a {
                            #(#refer_arms)*
                            _ => unreachable!("an arena index of this module"),
                        });
                    }
                    Some(found)
                }

            )
        } else {
            TokenStream::new()
        };
        let loop_view_fns = if loops {
            quote!(
                /// Whether every node with an id in `ranges[a]` (one chunk's
                /// ranges per arena) has its children in those ranges too.
                #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                fn closed(t: &Tree, ranges: &[Vec<std::ops::Range<usize>>; #n_arenas]) -> bool {
                    // Every range of a well-formed plan: `ranges[a][0]` is
                    // there, empty or not.
                    let lo: [usize; #n_arenas] = std::array::from_fn(|a| ranges[a].first().map_or(0, |r| r.start));
                    let width: [usize; #n_arenas] = std::array::from_fn(|a| ranges[a].first().map_or(0, |r| r.len()));
                    let _ = (lo, width);
                    #(#closed_scans)*
                    true
                }

                /// How many child references of nodes outside the ids
                /// `list[a]` of each arena (the list's ranges) point into
                /// them.
                #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                fn refs_into(t: &Tree, list: &[Vec<std::ops::Range<usize>>; #n_arenas]) -> usize {
                    let mut refs = 0usize;
                    #(#outside_scans)*
                    refs
                }

            )
        } else {
            TokenStream::new()
        };
        let plan_split_fn = if loops {
            quote!(
            /// Where a loop the fuser found independent splits: chunks of
            /// at least the grain's nodes when the elements' subtrees
            /// (`node` of each of `items`) are contiguous id ranges one
            /// after the other and nothing outside the list points into
            /// them; `None` otherwise, and the caller runs the loop as it
            /// stands, on the tree itself. The plan the run kept from the
            /// last loop that split (`memo`) is tried first when it was
            /// made for the same elements.
            fn plan_split<I: Copy + Sync>(
                tree: &Tree,
                par: &Parallel,
                memo: &mut Option<SplitMemo<#n_arenas>>,
                items: &[I],
                node: impl Fn(I) -> NodeRef + Sync,
            ) -> Option<SplitMemo<#n_arenas>> {
                use treefuse_runtime::rayon::prelude::*;
                if items.len() < 2 {
                    return None;
                }
                let whole: &Tree = tree;
                let places: Vec<(usize, usize)> = items.iter().map(|&i| SubtreeView::place(node(i))).collect();
                let lens: [usize; #n_arenas] = [#(whole.#arenas.len()),*];
                // The cheap half of a plan's proof: its bands in the
                // arenas, every element's root in its chunk.
                let shaped = |plan: &SplitPlan<#n_arenas>| -> bool {
                    let mut begin = 0;
                    plan.is_well_formed(lens)
                        && plan.ends.iter().enumerate().all(|(k, &e)| {
                            let ranges = plan.chunk_ranges(k);
                            let roots = &places[begin..e];
                            begin = e;
                            roots.iter().all(|&(a, id)| in_ranges(&ranges[a], id))
                        })
                };
                // The proof that a plan holds, whatever guessed it: that,
                // every chunk closed, and nothing outside the list pointing
                // into it but the list.
                let proven = |plan: &SplitPlan<#n_arenas>| -> bool {
                    shaped(plan)
                        && (0..plan.chunks())
                            .into_par_iter()
                            .all(|k| SubtreeView::closed(whole, &plan.chunk_ranges(k)))
                        && SubtreeView::refs_into(whole, &plan.list_ranges()) == items.len()
                };
                // The kept plan: the last split loop's over the same
                // elements, with the nodes its chunks created as a band of
                // their own (nodes a split created lie after all others,
                // where a fresh guess would not look). If that loop left
                // it proven (every chunk still closed, `par_loop`) and
                // nothing changed the tree since (`ParallelRun` forgets the
                // proof when something does), its shape is all there is to
                // check: the scans would find what they found before.
                if let Some(kept) = memo.take().and_then(|m| m.recall(&places)) {
                    if kept.is_proven() && shaped(kept.plan()) {
                        par.note_kept_proof();
                        return Some(kept);
                    }
                    let plan = kept.into_plan();
                    if proven(&plan) {
                        return Some(SplitMemo::new(places, plan));
                    }
                }
                // Where each element's nodes start (a short pre-order walk
                // each, on the pool's threads), where the list ends (the
                // last elements' subtrees measured).
                let plan = guess_plan(
                    par,
                    items.len(),
                    |pending, k| SubtreeView::firsts(whole, node(items[k]), pending),
                    |pending, k| SubtreeView::span(whole, node(items[k]), pending),
                )?;
                proven(&plan).then(|| SplitMemo::new(places, plan))
            }

            )
        } else {
            TokenStream::new()
        };
        let chain_view_fns = if chains {
            quote!(
                /// Whether every node with an id in `scan[a]` (a chunk's ids
                /// per arena but the chunk's last chain node, whose next
                /// child is the next chunk's first) has its children in
                /// `ranges[a]` (the chunk's ids); if so, how many of those
                /// children are chain nodes (`links`: the chain's arena and
                /// a bit per id of it).
                #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                fn closed_chain(
                    t: &Tree,
                    ranges: &[Vec<std::ops::Range<usize>>; #n_arenas],
                    scan: &[Vec<std::ops::Range<usize>>; #n_arenas],
                    links: (usize, &[u64]),
                ) -> Option<usize> {
                    let lo: [usize; #n_arenas] = std::array::from_fn(|a| ranges[a].first().map_or(0, |r| r.start));
                    let width: [usize; #n_arenas] = std::array::from_fn(|a| ranges[a].first().map_or(0, |r| r.len()));
                    let _ = (lo, width);
                    let mut refs = 0usize;
                    #(#chain_scans)*
                    Some(refs)
                }
            )
        } else {
            TokenStream::new()
        };
        let plan_chain_fn = if chains {
            quote!(
            /// Where a chain of nodes (`Gen::chain_driver`) splits: item
            /// `i` is the chain's node `nodes(i).0` with the subtree of its
            /// item child `nodes(i).1`, not the rest of the chain. As
            /// `plan_split` does for a list, it guesses each item's nodes
            /// from a short walk (`SubtreeView::firsts`; the chain node
            /// comes first in pre-order) and proves the guess on the pool's
            /// threads: each chunk holds its chain nodes and is closed
            /// (every child of a node in it is in it) but for the next
            /// child of its last chain node (the next chunk's first, by the
            /// walk that found the chain), that node's item child is in
            /// it, and the only children in it that are chain nodes are
            /// the chain's own links. So each worker reaches nothing
            /// outside its chunk, and no item reaches a chain node.
            /// `None` otherwise, or under two chunks of the grain.
            fn plan_chain<I: Copy + Sync>(
                tree: &Tree,
                par: &Parallel,
                items: &[I],
                nodes: impl Fn(I) -> (NodeRef, NodeRef) + Sync,
            ) -> Option<SplitMemo<#n_arenas>> {
                use treefuse_runtime::rayon::prelude::*;
                if items.len() < 2 {
                    return None;
                }
                let whole: &Tree = tree;
                // An item's chain node and its subtree's start and end.
                let plan = guess_plan(
                    par,
                    items.len(),
                    |pending, k| {
                        let (link, item) = nodes(items[k]);
                        let mut found = SubtreeView::firsts(whole, item, pending)?;
                        let (a, id) = SubtreeView::place(link);
                        found[a] = Some(found[a].map_or(id, |f| f.min(id)));
                        Some(found)
                    },
                    |pending, k| {
                        let (link, item) = nodes(items[k]);
                        let mut span = SubtreeView::span(whole, item, pending)?;
                        let (a, id) = SubtreeView::place(link);
                        span[a].add(id);
                        Some(span)
                    },
                )?;
                let lens: [usize; #n_arenas] = [#(whole.#arenas.len()),*];
                if !plan.is_well_formed(lens) {
                    return None;
                }
                let places: Vec<(usize, usize)> =
                    items.iter().map(|&i| SubtreeView::place(nodes(i).0)).collect();
                // A bit per chain node (all of one arena).
                let link_arena = places[0].0;
                let mut links = vec![0u64; lens[link_arena].div_ceil(64)];
                for &(a, id) in &places {
                    let word = links.get_mut(id / 64).filter(|_| a == link_arena)?;
                    *word |= 1 << (id % 64);
                }
                let is_link = |a: usize, id: usize| {
                    a == link_arena && links.get(id / 64).is_some_and(|w| (w >> (id % 64)) & 1 == 1)
                };
                let proven = (0..plan.chunks()).into_par_iter().all(|k| {
                    let begin = if k == 0 { 0 } else { plan.ends[k - 1] };
                    let end = plan.ends[k];
                    let ranges = plan.chunk_ranges(k);
                    if !places[begin..end].iter().all(|&(a, id)| in_ranges(&ranges[a], id)) {
                        return false;
                    }
                    let (_, last) = places[end - 1];
                    let (ca, content) = SubtreeView::place(nodes(items[end - 1]).1);
                    if !in_ranges(&ranges[ca], content) || is_link(ca, content) {
                        return false;
                    }
                    let mut scan = ranges.clone();
                    scan[link_arena] = ranges[link_arena]
                        .iter()
                        .flat_map(|r| {
                            if r.contains(&last) {
                                vec![r.start..last, last + 1..r.end]
                            } else {
                                vec![r.clone()]
                            }
                        })
                        .collect();
                    SubtreeView::closed_chain(whole, &ranges, &scan, (link_arena, &links))
                        == Some(end - begin - 1)
                });
                proven.then(|| SplitMemo::new(places, plan))
            }

            )
        } else {
            TokenStream::new()
        };
        let split = quote!(
            /// What the worker of one chunk of a parallel loop sees: per
            /// arena, its chunk's nodes to change, the nodes outside the
            /// list to read and the nodes it creates (`ArenaView`); per
            /// cold table, the tree's entries and those of its new nodes.
            pub struct SubtreeView<'a> {
                #(#arenas: ArenaView<'a, #nodes>,)*
                #(#tables: ColdView<'a, #cold_names>,)*
            }

            impl<'a> SubtreeView<'a> {
                /// The nodes of the subtree at `root`, per arena; `None` if
                /// it reaches an id that is not in the tree, or more nodes
                /// than the tree has (a cycle). A node reached twice is
                /// counted twice, which `split_plan` then refuses unless
                /// its range is full all the same: a node shared inside one
                /// element's subtree is harmless, since one worker runs the
                /// whole element as the sequential run does.
                #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                fn span(
                    t: &Tree,
                    root: NodeRef,
                    pending: &mut Vec<(usize, usize)>,
                ) -> Option<[IdRange; #n_arenas]> {
                    let limit = t.node_count();
                    let mut seen = 0usize;
                    let mut span = [IdRange::default(); #n_arenas];
                    pending.clear();
                    let mut next = Some(root);
                    while let Some(n) = next {
                        match n {
                            #(#span_arms)*
                        }
                        next = pending.pop().map(|(a, c)| match a {
                            #(#refer_arms)*
                            _ => unreachable!("an arena index of this module"),
                        });
                    }
                    Some(span)
                }

                #firsts_fn
                #loop_view_fns
                #chain_view_fns
                /// The arena index and id of a node.
                fn place(n: NodeRef) -> (usize, usize) {
                    match n {
                        #(#place_arms)*
                    }
                }

                /// After the loop: renumbers the references of the
                /// worker's nodes to the nodes it created (those from
                /// `base[a]` on move up by `off[a]`, where they land when
                /// appended), and tells whether every node it changed or
                /// created then has its children in `after` (the chunk's
                /// ids in the plan kept for the next loop; `None`: no plan
                /// is kept, nothing to tell).
                fn settle(
                    &mut self,
                    base: &[usize; #n_arenas],
                    off: &[usize; #n_arenas],
                    after: Option<&[Vec<std::ops::Range<usize>>; #n_arenas]>,
                ) -> bool {
                    // Only the nodes the worker changed or created can
                    // refer to created nodes (`ArenaView::for_each_changed`):
                    // a chunk node it never got mutably (`get_mut` is the
                    // only way) holds the references it had at the split,
                    // which the plan's proof found inside the chunk, below
                    // `base`. For the same reason they are the only nodes
                    // that can have left the chunk's ids.
                    let shift = off.iter().any(|&o| o > 0);
                    if !shift && after.is_none() {
                        return true;
                    }
                    let mut closed = true;
                    #(
                        self.#arenas.for_each_changed(|node| {
                            if shift {
                                Self::#shift_fns(node, base, off);
                            }
                            if let Some(ranges) = after {
                                closed &= Self::#inside_fns(node, ranges);
                            }
                        });
                    )*
                    closed
                }

                #(
                    #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                    fn #shift_fns(node: &mut #nodes, base: &[usize; #n_arenas], off: &[usize; #n_arenas]) {
                        #shift_children
                    }

                    #[allow(clippy::single_match, clippy::match_single_binding, clippy::collapsible_match, unreachable_patterns)]
                    fn #inside_fns(node: &#nodes, ranges: &[Vec<std::ops::Range<usize>>; #n_arenas]) -> bool {
                        #inside_children
                    }
                )*

                /// The nodes the worker created and their cold fields.
                fn into_growth(self) -> SubtreeGrowth {
                    SubtreeGrowth {
                        #(#arenas: self.#arenas.into_grown(),)*
                        #(#tables: self.#tables.into_grown(),)*
                    }
                }
            }

            /// The nodes a worker of a parallel loop created, with their
            /// cold fields, to append to the tree after the loop.
            struct SubtreeGrowth {
                #(#arenas: Vec<#nodes>,)*
                #(#tables: ColdTable<#cold_names>,)*
            }

            impl SubtreeGrowth {
                /// Appends the nodes to `tree`, `off[a]` after the arena's
                /// length at the split (their references renumbered so
                /// already: `SubtreeView::settle`).
                fn append_to(self, tree: &mut Tree, off: &[usize; #n_arenas]) {
                    let _ = off;
                    #(tree.#arenas.extend(self.#arenas);)*
                    #(tree.#tables.append_shifted(self.#tables, off[#cold_arena] as u32);)*
                }
            }

            #(
                // Always inlined, as indexing the arena is: the view's own
                // range is a comparison, the rest a call.
                impl std::ops::Index<#ids> for SubtreeView<'_> {
                    type Output = #nodes;
                    #[inline(always)]
                    fn index(&self, id: #ids) -> &#nodes {
                        self.#arenas.get(id.0 as usize)
                    }
                }

                impl std::ops::IndexMut<#ids> for SubtreeView<'_> {
                    #[inline(always)]
                    fn index_mut(&mut self, id: #ids) -> &mut #nodes {
                        self.#arenas.get_mut(id.0 as usize)
                    }
                }
            )*

            impl TreeAccess for SubtreeView<'_> {
                #(
                    #[inline]
                    fn #pushes(&mut self, node: #nodes) -> #ids {
                        #ids(self.#arenas.push(node) as u32)
                    }
                    #[inline(always)]
                    fn #data_muts(&mut self, id: #ids) -> &mut #nodes {
                        self.#arenas.get_mut_data(id.0 as usize)
                    }
                )*
                #(
                    #[inline]
                    fn #cold_gets(&self, id: u32) -> &#cold_names {
                        self.#tables.get(id)
                    }
                    #[inline]
                    fn #cold_inserts(&mut self, id: u32, cold: #cold_names) {
                        self.#tables.insert(id, cold);
                    }
                )*
            }

            #plan_split_fn
            #plan_chain_fn
            /// Runs `body` on each of `items`, the elements of a loop that
            /// the fuser found independent, split as `split.plan()` says
            /// (`plan_split`), the chunks on the threads of the current
            /// rayon pool. `reduce(globals, before, worker)` combines a
            /// chunk's copy of the globals into the run's, chunk by chunk
            /// in list order; the first chunk that failed returns its error
            /// (the sequential run's first). The nodes the chunks created
            /// join the arenas in list order; the plan, grown by them, is
            /// kept in `memo` for the next loop.
            #[allow(clippy::too_many_arguments)]
            fn par_loop<I: Copy + Sync, const #count: bool>(
                tree: &mut Tree,
                par: &Parallel,
                memo: &mut Option<SplitMemo<#n_arenas>>,
                split: SplitMemo<#n_arenas>,
                cx: &mut Cx<#count>,
                items: &[I],
                reduce: impl Fn(&mut Globals, &Globals, &Cx<#count>),
                body: impl Fn(&mut SubtreeView<'_>, &mut Cx<#count>, I) -> Result<(), Fail> + Sync,
            ) -> Result<(), Fail> {
                use treefuse_runtime::rayon::prelude::*;
                let base: [usize; #n_arenas] = [#(tree.#arenas.len()),*];
                let plan = split.plan();
                par.note_split(plan.chunks());
                let start = cx.globals.clone();
                let done: Vec<_> = {
                    let Tree { #(#arenas: #arena_vars,)* #(#tables: #table_vars,)* .. } = &mut *tree;
                    #(
                        let mut #parts = split_arena(#arena_vars, &plan.bands[#arena_lits]).into_iter();
                    )*
                    let mut chunks = Vec::with_capacity(plan.ends.len());
                    let mut begin = 0;
                    for (&end, &nodes) in plan.ends.iter().zip(&plan.nodes) {
                        #(let Some(#view_vars) = #parts.next() else { break };)*
                        let view = SubtreeView {
                            #(#arenas: #view_vars,)*
                            #(#tables: ColdView::new(#table_vars, base[#cold_arena]),)*
                        };
                        chunks.push((view, &items[begin..end], nodes));
                        begin = end;
                    }
                    let ran: Vec<_> = chunks
                        .into_par_iter()
                        .map(|(mut view, items, nodes)| {
                            let mut cx = Cx::<#count>::new(start.clone());
                            let r = run_deep(nodes, || -> Result<(), Fail> {
                                #stack_bound
                                for &item in items {
                                    body(&mut view, &mut cx, item)?;
                                }
                                Ok(())
                            });
                            (r, cx, view)
                        })
                        .collect();
                    // Where each chunk's new nodes land: after the earlier
                    // chunks' (the sequential run's order).
                    let mut at = [0usize; #n_arenas];
                    let mut offsets = Vec::with_capacity(ran.len());
                    let mut grown = Vec::with_capacity(ran.len());
                    for (_, _, view) in &ran {
                        offsets.push(at);
                        let made: [usize; #n_arenas] = [#(view.#arenas.grown_len()),*];
                        for (a, m) in made.iter().enumerate() {
                            at[a] += m;
                        }
                        grown.push(made);
                    }
                    // The plan kept for the next loop, still proven if
                    // every node a chunk changed or created has its
                    // children in the chunk's ids now (the others kept
                    // theirs, and no worker wrote outside its chunk).
                    let mut kept = split.after_growth(base, &grown);
                    let settled: Vec<_> = ran
                        .into_par_iter()
                        .zip(offsets)
                        .enumerate()
                        .map(|(k, ((r, cx, mut view), off))| {
                            let after = kept.as_ref().map(|m| m.plan().chunk_ranges(k));
                            let closed = view.settle(&base, &off, after.as_ref());
                            (r, cx, view.into_growth(), off, closed)
                        })
                        .collect();
                    if let Some(m) = &mut kept {
                        if settled.iter().any(|s| !s.4) {
                            m.unprove();
                        }
                    }
                    *memo = kept;
                    settled
                };
                let mut result = Ok(());
                let mut grown = Vec::with_capacity(done.len());
                for (r, done_cx, view, off, _) in done {
                    grown.push((view, off));
                    if result.is_ok() {
                        reduce(&mut cx.globals, &start, &done_cx);
                        if #count {
                            cx.visits += done_cx.visits;
                        }
                        result = r;
                    }
                }
                for (growth, off) in grown {
                    growth.append_to(tree, &off);
                }
                result
            }
        );
        quote!(#base #split)
    }

    /// `par_loop`'s `reduce` for a loop whose workers update `reduced`
    /// and keep `private` to themselves (the last worker that assigned
    /// one gives its value).
    fn reduce_fn(&self, reduced: &[GlobalId], private: &[GlobalId]) -> TokenStream {
        if reduced.is_empty() && private.is_empty() {
            return quote!(|_, _, _| {});
        }
        let classes = treefuse_fusion::reductions(self.p);
        let updates = reduced.iter().map(|g| {
            let n = &self.global[g.index()];
            match classes.get(g.index()) {
                Some(treefuse_fusion::Reduction::Sum) => {
                    quote!(g.#n = g.#n.wrapping_add(w.#n.wrapping_sub(before.#n));)
                }
                Some(treefuse_fusion::Reduction::Or) => quote!(g.#n = g.#n || w.#n;),
                Some(treefuse_fusion::Reduction::And) => quote!(g.#n = g.#n && w.#n;),
                Some(treefuse_fusion::Reduction::Min) => quote!(g.#n = g.#n.min(w.#n);),
                Some(treefuse_fusion::Reduction::Max) => quote!(g.#n = g.#n.max(w.#n);),
                Some(treefuse_fusion::Reduction::Last) | None => quote!(
                    if w.#n != before.#n {
                        g.#n.clone_from(&w.#n);
                    }
                ),
            }
        });
        let mut updates: TokenStream = updates.collect();
        for g in private {
            let n = &self.global[g.index()];
            let Some(flag) = self.written_flag.get(g.index()).copied().flatten() else {
                continue;
            };
            let flag = proc_macro2::Literal::usize_unsuffixed(flag);
            updates.extend(quote!(
                if worker.written[#flag] {
                    g.#n.clone_from(&w.#n);
                }
            ));
        }
        // `||`, `&&`, `min` and `max` do not need the value before the loop.
        let before = if uses_var(&updates, "before") {
            quote!(before)
        } else {
            quote!(_before)
        };
        let count = &self.count_param;
        let w = if uses_var(&updates, "w") {
            quote!(let w = &worker.globals;)
        } else {
            TokenStream::new()
        };
        quote!(|g: &mut Globals, #before: &Globals, worker: &Cx<#count>| { #w #updates })
    }

    /// A merged loop over `field` of `this` whose iterations the fuser
    /// found independent, in a module with parallel entry points: split
    /// by `par_loop` where the tree is a `ParallelRun`, else the plain
    /// loop. `binds` and `inner` are one iteration on `item`.
    pub(crate) fn parallel_loop(
        &self,
        field: treefuse_sema::FieldId,
        reduced: &[GlobalId],
        private: &[GlobalId],
        item: &TokenStream,
        binds: &TokenStream,
        inner: &TokenStream,
    ) -> TokenStream {
        let name = &self.field[field.index()];
        let FieldKind::List(el) = self.p.fields[field.index()].kind else {
            return quote!();
        };
        let h = self.hier(el);
        let (id, v) = (&h.id, &self.variant[h.root.index()]);
        let count = &self.count_param;
        let reduce = self.reduce_fn(reduced, private);
        let tv = if uses_var(binds, "t") || uses_var(inner, "t") {
            quote!(t)
        } else {
            quote!(_t)
        };
        let cxv = if uses_var(binds, "cx") || uses_var(inner, "cx") {
            quote!(cx)
        } else {
            quote!(_cx)
        };
        // `continue` ends an iteration early: one iteration of a loop of
        // its own inside the closure.
        let once = if mentions(inner, "continue") {
            quote!(for &#item in std::slice::from_ref(&#item) { #binds #inner })
        } else {
            quote!(#binds #inner)
        };
        quote!({
            let items = t[this].#name.clone();
            let plan = t
                .split()
                .and_then(|(tree, par, memo)| plan_split(tree, par, memo, &items, NodeRef::#v));
            if let (Some(plan), Some((tree, par, memo))) = (plan, t.split()) {
                par_loop(
                    tree,
                    par,
                    memo,
                    plan,
                    cx,
                    &items,
                    #reduce,
                    |#tv: &mut SubtreeView<'_>, #cxv: &mut Cx<#count>, #item: #id| -> Result<(), Fail> {
                        #once
                        Ok(())
                    },
                )?;
            } else {
                let splitting = t.set_splitting(false);
                for &#item in items.iter() {
                    #binds
                    #inner
                }
                t.set_splitting(splitting);
            }
        })
    }

    /// Whether fused function `fi` walks a chain whose items may run in
    /// parallel, in a module with parallel entry points: the shape
    /// `FusedFunction::linked_chain` tests (an item child and a next child
    /// that runs this very function again, independent calls passing the
    /// function's parameters only), and nothing the generated function
    /// would have to carry from node to node: no masks, replacement,
    /// rewriting sites, forwarded values or flags.
    pub(crate) fn chain_shape(
        &self,
        fi: usize,
        f: &treefuse_fusion::FusedFunction,
    ) -> Option<ChainShape> {
        self.tree_param.as_ref()?;
        let chain = f.linked_chain(treefuse_fusion::FusedFnId(fi as u32), self.p)?;
        let np = f.participants.len();
        let plain = !self.fn_takes_mask(treefuse_fusion::FusedFnId(fi as u32))
            && !self.rw.fused_replaces[fi]
            && !self.rw.fused_site[fi]
            && !self.forwarding.borrow().by_fn.contains_key(&fi)
            && (0..np).all(|p| !self.flagged(fi, p, &self.off));
        let [treefuse_fusion::Step::Group(item), treefuse_fusion::Step::Group(next)] =
            f.steps.as_slice()
        else {
            return None;
        };
        let dispatch_plain = |g: &treefuse_fusion::CallGroup| {
            !self.disp_takes_mask(&g.targets)
                && !self.disp_replaces(&g.targets)
                && !self.disp_site(&g.targets)
        };
        (plain && dispatch_plain(item) && dispatch_plain(next)).then_some(chain)
    }

    /// The body of chain function `fi` (`Gen::chain_shape`) in a module
    /// with parallel entry points, from the code of its two groups
    /// (`items`, `next`, which read the children where they use them) and
    /// the names of its parameters (`params`).
    ///
    /// Where the tree is a `ParallelRun` with splitting on, it first
    /// follows the next child from node to node while the node is of a
    /// type this function runs on (the *chain*), and plans the chain's
    /// items as the chunks of a parallel loop (`plan_chain`). If the plan
    /// holds, the item call of every chain node runs in `par_loop` (in
    /// chain order, reduced globals combined, the first failing chunk's
    /// error returned: the order and error of the sequential run, in
    /// which each node's item call runs before the rest of the chain and
    /// all commute), then the next call of the last chain node, once.
    /// The visits of the chain nodes the recursion would have entered are
    /// counted. If not, the function runs again with splitting off (so
    /// the nodes after this one do not walk the chain again). All of it is
    /// a function of its own, called where `split` is `Some`; on every
    /// other tree the body is the two groups' code, as in a module without
    /// parallel entry points.
    pub(crate) fn chain_driver(
        &self,
        fi: usize,
        f: &treefuse_fusion::FusedFunction,
        shape: &ChainShape,
        (items, next): (&TokenStream, &TokenStream),
        params: &[proc_macro2::Ident],
    ) -> ChainDriver {
        let h = self.hier(f.ty);
        let (id, kind) = (&h.id, &h.kind);
        let this_ref = &self.variant[h.root.index()];
        let (item_field, next_field) = (
            &self.field[shape.item.index()],
            &self.field[shape.next.index()],
        );
        let name = &self.fused_fn[fi];
        let chain_name = self.chain_fn[fi].clone();
        let FieldKind::Child(item_ty) = self.p.fields[shape.item.index()].kind else {
            return ChainDriver {
                body: quote!(#items #next),
                chain_fn: chain_name,
                chain_body: quote!(Ok(())),
            };
        };
        let item_ref = &self.variant[self.hier(item_ty).root.index()];
        // The chain goes on while the next node is of this function's type.
        let chain_type = &self.variant[f.ty.index()];
        let count = &self.count_param;
        let reduce = self.reduce_fn(&shape.reduced, &[]);
        let tv = if uses_var(items, "t") {
            quote!(t)
        } else {
            quote!(_t)
        };
        let cxv = if uses_var(items, "cx") {
            quote!(cx)
        } else {
            quote!(_cx)
        };
        let chain_body = quote!(
            // A chain of nodes `#name` runs on, linked by `#next_field`:
            // its items' calls run in parallel when the tree splits there
            // (`plan_chain`).
            let chain = t.split().and_then(|(tree, par, _)| {
                let tree: &Tree = tree;
                let mut chain = vec![this];
                let mut n = tree[this].#next_field;
                while matches!(tree[n].kind, #kind::#chain_type) {
                    if chain.len() > tree.node_count() {
                        // A cycle: the sequential run's business.
                        return None;
                    }
                    chain.push(n);
                    n = tree[n].#next_field;
                }
                let plan = plan_chain(tree, par, &chain, |n: #id| {
                    (NodeRef::#this_ref(n), NodeRef::#item_ref(tree[n].#item_field))
                })?;
                Some((chain, plan))
            });
            let Some((chain, plan)) = chain else {
                // As the sequential run goes, without splitting below.
                let splitting = t.set_splitting(false);
                let ran = #name(t, cx, this #(, #params)*);
                t.set_splitting(splitting);
                return ran;
            };
            if let Some((tree, par, memo)) = t.split() {
                let ran = par_loop(
                    tree,
                    par,
                    memo,
                    plan,
                    cx,
                    &chain,
                    #reduce,
                    |#tv: &mut SubtreeView<'_>, #cxv: &mut Cx<#count>, this: #id| -> Result<(), Fail> {
                        #items
                        Ok(())
                    },
                );
                par.note_chain();
                // No plan kept: the next loop over these items would have
                // to prove it as a chain.
                *memo = None;
                ran?;
            }
            if #count {
                cx.visits += (chain.len() - 1) as u64;
            }
            let this = chain[chain.len() - 1];
            #next
            Ok(())
        );
        ChainDriver {
            body: quote!(
                if t.split().is_some() {
                    return #chain_name(t, cx, this #(, #params)*);
                }
                #items
                #next
            ),
            chain_fn: chain_name,
            chain_body,
        }
    }
}

/// What [`Gen::chain_driver`] makes of a chain function: its body, and a
/// function of its own (not inlined, so that the body stays what it is
/// in a module without parallel entry points) that runs a chain.
pub(crate) struct ChainDriver {
    /// The function's body: the groups' code, after a call of `chain_fn`
    /// where the tree may split.
    pub body: TokenStream,
    /// The name of the function that runs a chain.
    pub chain_fn: proc_macro2::Ident,
    /// Its body (its parameters are the chain function's).
    pub chain_body: TokenStream,
}

/// A chain function's children (`Gen::chain_shape`).
pub(crate) type ChainShape = treefuse_fusion::LinkedChain;
