//! Entry points (`run_<fuse>_unfused`, `run_<fuse>_fused`) and the fixed
//! support code every generated module carries.

use crate::gen::*;
use crate::names::{ident, Names};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::HashSet;
use treefuse_fusion::{FuseLevel, FuseLevelStmt};

impl Gen<'_> {
    /// The statements of a `fuse` item, unfused or fused: `unit` writes
    /// one call or one chunk; global assignments and `while` loops
    /// (LANGUAGE §7.7) are written the same way for both.
    fn fuse_level<S: FuseLevelStmt>(
        &self,
        stmts: &[S],
        source: &[treefuse_sema::FuseStmt],
        fr: &Frame,
        unit: &mut dyn FnMut(usize) -> TokenStream,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for s in stmts {
            match s.level(source) {
                FuseLevel::Unit(u) => out.extend(unit(u)),
                FuseLevel::SetGlobal { global, value } => {
                    let n = &self.global[global.index()];
                    let v = self.expr(value, fr).ts;
                    out.extend(quote!(cx.globals.#n = #v;));
                }
                FuseLevel::While {
                    cond,
                    limit,
                    body,
                    source,
                } => {
                    // The limit once, before the first iteration (§8.6).
                    let n = self.expr(limit, fr).ts;
                    let c = self.expr(cond, fr).ts;
                    let b = self.fuse_level(body, source, fr, unit);
                    out.extend(quote! {
                        {
                            let while_limit: i64 = #n;
                            let mut while_iter: i64 = 0;
                            while while_iter < while_limit {
                                if !(#c) {
                                    break;
                                }
                                while_iter += 1;
                                #b
                            }
                        }
                    });
                }
                FuseLevel::Break => {
                    out.extend(quote!(break;));
                    // What follows in the block cannot run.
                    break;
                }
            }
        }
        out
    }

    pub fn entries(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (fi, (fuse, names)) in self.p.fuses.iter().zip(&self.entry_fn).enumerate() {
            let mut u = Usage::default();
            for c in &fuse.calls {
                c.args.iter().for_each(|a| expr_use(a, &mut u));
            }
            fuse_stmt_exprs(&fuse.body, &mut |e| expr_use(e, &mut u));
            let mut ns = Names::for_locals(&self.locals_reserved);
            let ctx = format!("fuse {}", fuse.name);
            let fr = self.frame(ctx.clone(), &fuse.frame, &u, &mut ns, false);
            let params: Vec<_> = (0..fuse.frame.num_params)
                .map(|i| {
                    let n = &fr.locals[i];
                    let t = self.data_type(&fuse.frame.locals[i].1);
                    quote!(#n: #t)
                })
                .collect();
            let pnames: Vec<_> = (0..fuse.frame.num_params)
                .map(|i| fr.locals[i].clone())
                .collect();
            let h = self.hier(fuse.root_type);
            let arena = &h.arena;
            let root_name = &self.p.types[fuse.root_type.index()].name;
            let at = self.at_value(&ctx, fuse.span);
            let msg = format!("the tree's root is not a `{root_name}`");
            let empty = "the tree is empty: it has no root node";
            let root_variant = &self.variant[h.root.index()];
            let check = |replaces: bool| {
                let root = if replaces {
                    quote!(mut root)
                } else {
                    quote!(root)
                };
                match self.kind_pattern(fuse.root_type) {
                    Some(pat) => quote!(
                        if t.is_empty() {
                            return Err(#at.error(#empty.to_string()));
                        }
                        let Some(#root) = t.root.#arena() else {
                            return Err(#at.error(#msg.to_string()));
                        };
                        if !matches!(t[root].kind, #pat) {
                            return Err(#at.error(#msg.to_string()));
                        }
                    ),
                    None => quote!(return Err(#at.error(#msg.to_string()));),
                }
            };
            // A call on the root that may replace it: later calls run on
            // the new root, which is also the output tree's.
            let on_root = |call: TokenStream, replaces: bool| {
                if replaces {
                    quote!(
                        if let Some(x) = #call?.single() {
                            root = x;
                            t.root = NodeRef::#root_variant(x);
                        }
                    )
                } else {
                    quote!(#call?;)
                }
            };
            let mut unfused_replaces = false;
            // Unfused: the calls in order.
            let unfused = self.fuse_level(&fuse.body, &fuse.body, &fr, &mut |c| {
                let c = &fuse.calls[c];
                let f = &self.method_fn[c.method.index()];
                let replaces = self.rw.method_replaces[c.method.index()];
                unfused_replaces |= replaces;
                let site = self.site_arg(self.rw.method_site[c.method.index()], quote!(Site::Root));
                let args: Vec<_> = c.args.iter().map(|a| self.expr(a, &fr).ts).collect();
                let names: Vec<_> = (0..args.len()).map(|j| format_ident!("arg{j}")).collect();
                let lent = &self.method_lent[c.method.index()];
                let passed = names.iter().enumerate().map(|(j, n)| {
                    if Self::is_lent(lent, j) {
                        quote!(&#n)
                    } else {
                        quote!(#n)
                    }
                });
                let call = on_root(quote!(#f(t, cx, root #site #(, #passed)*)), replaces);
                if args.is_empty() {
                    call
                } else {
                    quote!({
                        #(let #names = #args;)*
                        #call
                    })
                }
            });
            let mut fused_replaces = false;
            // Fused: the entry's chunks.
            let fused = if let Some(entry) = self.fused.entry(&fuse.name) {
                self.fuse_level(&entry.body, &fuse.body, &fr, &mut |c| {
                    let chunk = &entry.chunks[c];
                    let mut pre = TokenStream::new();
                    let mut args = Vec::new();
                    for (k, &ci) in chunk.calls.iter().enumerate() {
                        let lent = &self.method_lent[fuse.calls[ci].method.index()];
                        for (j, a) in fuse.calls[ci].args.iter().enumerate() {
                            let v = self.expr(a, &fr).ts;
                            let n = format_ident!("arg{k}_{j}");
                            pre.extend(quote!(let #n = #v;));
                            if Self::is_lent(lent, j) {
                                args.push(quote!(&#n));
                            } else {
                                args.push(quote!(#n));
                            }
                        }
                    }
                    let Some(disp) = self.fused_disp.get(&chunk.targets) else {
                        return TokenStream::new();
                    };
                    let replaces = self.disp_replaces(&chunk.targets);
                    fused_replaces |= replaces;
                    let site = self.site_arg(self.disp_site(&chunk.targets), quote!(Site::Root));
                    let mask = if self.disp_takes_mask(&chunk.targets) {
                        let bits = self.mask_of_first(chunk.calls.len());
                        quote!(, #bits)
                    } else {
                        quote!()
                    };
                    let call =
                        on_root(quote!(#disp(t, cx, root #site #mask #(, #args)*)), replaces);
                    if pre.is_empty() {
                        call
                    } else {
                        quote!({
                            #pre
                            #call
                        })
                    }
                })
            } else {
                let msg = format!("no fused schedule for `fuse {}`", fuse.name);
                quote!(return Err(#at.error(#msg.to_string()));)
            };
            let parallel = self
                .par_entry_fn
                .get(fi)
                .map(|names| (names, fused.clone(), fused_replaces));
            for ((kind, body, replaces), names) in [
                ("unfused", unfused, unfused_replaces),
                ("fused", fused, fused_replaces),
            ]
            .into_iter()
            .zip(names)
            {
                let check = check(replaces);
                let EntryFns {
                    inner,
                    run,
                    counted,
                } = names;
                let item = format!("`fuse {}` ({})", fuse.name, self.source_pos(fuse.span));
                let doc_inner =
                    format!("{item} {kind}, on a run context (counting visits if `C`), with stack for a tree as deep as it has nodes.");
                let doc_run = format!("Runs {item} {kind} on `tree`, updating `globals`.");
                let doc_counted =
                    format!("Runs {item} {kind} and returns the number of node visits.");
                let diverges = self.kind_pattern(fuse.root_type).is_none()
                    || (kind == "fused" && self.fused.entry(&fuse.name).is_none());
                let tail = if diverges { quote!() } else { quote!(Ok(())) };
                let body = if matches!(self.stack, crate::stack_plan::StackScheme::Created(_)) {
                    quote!(cx.set_stack_bound(t.node_count()); #body)
                } else {
                    body
                };
                let uses_cx = uses_var(&body, "cx");
                let cxp = if uses_cx { quote!(cx) } else { quote!(_cx) };
                let count = &self.count_param;
                out.extend(quote!(
                    #[doc = #doc_inner]
                    pub fn #inner<const #count: bool>(t: &mut Tree, #cxp: &mut Cx<#count> #(, #params)*) -> Result<(), Fail> {
                        run_deep(t.node_count(), move || -> Result<(), Fail> {
                            #check
                            #body
                            #tail
                        })
                    }

                    #[doc = #doc_run]
                    pub fn #run(tree: &mut Tree, globals: &mut Globals #(, #params)*) -> Result<(), RuntimeError> {
                        let mut cx = Cx::<false>::new(std::mem::take(globals));
                        let r = #inner(tree, &mut cx #(, #pnames)*);
                        *globals = cx.globals;
                        r.map_err(|e| *e)
                    }

                    #[doc = #doc_counted]
                    pub fn #counted(tree: &mut Tree, globals: &mut Globals #(, #params)*) -> Result<u64, RuntimeError> {
                        let mut cx = Cx::<true>::new(std::mem::take(globals));
                        let r = #inner(tree, &mut cx #(, #pnames)*);
                        *globals = cx.globals;
                        r.map(|()| cx.visits).map_err(|e| *e)
                    }
                ));
            }
            if let Some((names, body, replaces)) = parallel {
                let check = check(replaces);
                let EntryFns {
                    inner,
                    run,
                    counted,
                } = names;
                let item = format!("`fuse {}` ({})", fuse.name, self.source_pos(fuse.span));
                let doc_inner = format!(
                    "{item} fused, on a parallel run of the tree and a run context (counting visits if `C`)."
                );
                let doc_run = format!(
                    "Runs {item} fused on `tree`, updating `globals`, with the loops (and the items of linked chains) the fuser found independent on the threads of the current rayon pool (`par` says how; see `ParallelRun`). It computes what `run_*_fused` computes; after an error, which is the one the sequential run raises, the globals are the sequential run's but the tree may also hold changes of iterations after the failing one."
                );
                let doc_counted = format!(
                    "Runs {item} fused and in parallel and returns the number of node visits."
                );
                let diverges = self.kind_pattern(fuse.root_type).is_none()
                    || self.fused.entry(&fuse.name).is_none();
                let tail = if diverges { quote!() } else { quote!(Ok(())) };
                let body = if matches!(self.stack, crate::stack_plan::StackScheme::Created(_)) {
                    quote!(cx.set_stack_bound(t.node_count()); #body)
                } else {
                    body
                };
                let cxp = if uses_var(&body, "cx") {
                    quote!(cx)
                } else {
                    quote!(_cx)
                };
                let count = &self.count_param;
                out.extend(quote!(
                    #[doc = #doc_inner]
                    pub fn #inner<const #count: bool>(t: &mut ParallelRun<'_>, #cxp: &mut Cx<#count> #(, #params)*) -> Result<(), Fail> {
                        run_deep(t.node_count(), move || -> Result<(), Fail> {
                            #check
                            #body
                            #tail
                        })
                    }

                    #[doc = #doc_run]
                    pub fn #run(tree: &mut Tree, globals: &mut Globals #(, #params)*, par: &Parallel) -> Result<(), RuntimeError> {
                        let mut cx = Cx::<false>::new(std::mem::take(globals));
                        let r = #inner(&mut ParallelRun::new(tree, par), &mut cx #(, #pnames)*);
                        *globals = cx.globals;
                        r.map_err(|e| *e)
                    }

                    #[doc = #doc_counted]
                    pub fn #counted(tree: &mut Tree, globals: &mut Globals #(, #params)*, par: &Parallel) -> Result<u64, RuntimeError> {
                        let mut cx = Cx::<true>::new(std::mem::take(globals));
                        let r = #inner(&mut ParallelRun::new(tree, par), &mut cx #(, #pnames)*);
                        *globals = cx.globals;
                        r.map(|()| cx.visits).map_err(|e| *e)
                    }
                ));
            }
        }
        out
    }
}

/// Support code: the imports of what the module uses from
/// `treefuse_runtime::generated` (errors, checked operations, rewriting
/// machinery) and of the crates `treefuse-runtime` re-exports, and the run
/// context with its stack handling (`stack.rs`).
///
/// `written`: the number of globals parallel loops keep private
/// (`Gen::written_flag`).
pub fn prelude(code: &TokenStream, count: &proc_macro2::Ident, written: usize) -> TokenStream {
    // Every identifier of the module, collected once: the module of a big
    // program has hundreds of thousands of tokens, and a search of all of
    // them per name asked about cost seconds in an unoptimized build.rs.
    let mut names = HashSet::new();
    identifiers(code, &mut names);
    let mentioned = |name: &str| names.contains(name);
    let mut out = if mentioned("Arc") {
        quote!(
            use std::sync::Arc;
        )
    } else {
        TokenStream::new()
    };
    let stack = crate::stack::support(
        mentioned("with_more_stack"),
        mentioned("set_stack_bound"),
        count,
        written,
    );
    // Re-exported by treefuse-runtime, so that a client crate needs no
    // other dependency.
    for krate in ["imbl", "stacker"] {
        if mentioned(krate) || mentions(&stack, krate) {
            let k = ident(krate);
            out.extend(quote!(use treefuse_runtime::#k;));
        }
    }
    // In public signatures: `run_*` return `RuntimeError`, the traversals
    // `Fail`, those that rewrite `Replaced` and take a `Site`; `Tree::add`
    // returns `BuildError`; `Tree` keeps cold fields in `ColdTable`s; maps
    // (fields, globals, parameters) are `ValueMap`s.
    let mut public = vec![ident("Fail"), ident("RuntimeError")];
    public.extend(
        [
            "Replaced",
            "Site",
            "BuildError",
            "ColdTable",
            "ValueMap",
            "Parallel",
        ]
        .iter()
        .filter(|name| mentioned(name))
        .map(|name| ident(name)),
    );
    out.extend(quote!(pub use treefuse_runtime::generated::{#(#public),*};));
    let used: Vec<_> = crate::names::RUNTIME_HELPERS
        .iter()
        .filter(|name| mentioned(name))
        .map(|name| ident(name))
        .collect();
    if !used.is_empty() {
        // A user's field or variable may share a helper's name, so a
        // name can be mentioned without the helper being used.
        out.extend(quote!(
            #[allow(unused_imports)]
            use treefuse_runtime::generated::{#(#used),*};
        ));
    }
    out.extend(stack);
    out
}

/// Adds every identifier of `ts` (inside groups too) to `out`.
fn identifiers(ts: &TokenStream, out: &mut HashSet<String>) {
    for tt in ts.clone() {
        match tt {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => identifiers(&g.stream(), out),
            _ => {}
        }
    }
}
