//! Entry points (`run_<fuse>_unfused`, `run_<fuse>_fused`) and the fixed
//! support code every generated module carries.

use crate::gen::*;
use crate::names::{snake, Names};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use treefuse_fusion::{FuseLevel, FuseLevelStmt};

impl Gen<'_> {
    /// The statements of a `fuse` item, unfused or fused: `unit` writes
    /// one call or one chunk; global assignments and `while` loops
    /// (LANGUAGE §7.7) are written the same way for both.
    fn fuse_level<S: FuseLevelStmt>(
        &self,
        stmts: &[S],
        fr: &Frame,
        unit: &mut dyn FnMut(usize) -> TokenStream,
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for s in stmts {
            match s.level() {
                FuseLevel::Unit(u) => out.extend(unit(u)),
                FuseLevel::SetGlobal { global, value } => {
                    let n = &self.global[global.index()];
                    let v = self.expr(value, fr).ts;
                    out.extend(quote!(cx.globals.#n = #v;));
                }
                FuseLevel::While { cond, limit, body } => {
                    let c = self.expr(cond, fr).ts;
                    let b = self.fuse_level(body, fr, unit);
                    out.extend(quote! {
                        for _ in 0..#limit {
                            if !(#c) {
                                break;
                            }
                            #b
                        }
                    });
                }
            }
        }
        out
    }

    pub fn entries(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for fuse in &self.p.fuses {
            let mut u = Usage::default();
            for c in &fuse.calls {
                c.args.iter().for_each(|a| expr_use(a, &mut u));
            }
            fuse_stmt_exprs(&fuse.body, &mut |e| expr_use(e, &mut u));
            let mut ns = Names::with_reserved(
                &reserved_locals()
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>(),
            );
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
            let root_variant = &self.variant[h.root.index()];
            let check = |replaces: bool| {
                let root = if replaces {
                    quote!(mut root)
                } else {
                    quote!(root)
                };
                match self.kind_pattern(fuse.root_type) {
                    Some(pat) => quote!(
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
            let unfused = self.fuse_level(&fuse.body, &fr, &mut |c| {
                let c = &fuse.calls[c];
                let f = &self.method_fn[c.method.index()];
                let replaces = self.rw.method_replaces[c.method.index()];
                unfused_replaces |= replaces;
                let site = self.site_arg(self.rw.method_site[c.method.index()], quote!(Site::Root));
                let args: Vec<_> = c.args.iter().map(|a| self.expr(a, &fr).ts).collect();
                let names: Vec<_> = (0..args.len()).map(|j| format_ident!("arg{j}")).collect();
                let call = on_root(quote!(#f(t, cx, root #site #(, #names)*)), replaces);
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
                self.fuse_level(&entry.body, &fr, &mut |c| {
                    let chunk = &entry.chunks[c];
                    let mut pre = TokenStream::new();
                    let mut args = Vec::new();
                    for (k, &ci) in chunk.calls.iter().enumerate() {
                        for (j, a) in fuse.calls[ci].args.iter().enumerate() {
                            let v = self.expr(a, &fr).ts;
                            let n = format_ident!("arg{k}_{j}");
                            pre.extend(quote!(let #n = #v;));
                            args.push(quote!(#n));
                        }
                    }
                    let Some(disp) = self.fused_disp.get(&chunk.targets) else {
                        return TokenStream::new();
                    };
                    let replaces = self.disp_replaces(&chunk.targets);
                    fused_replaces |= replaces;
                    let site = self.site_arg(self.disp_site(&chunk.targets), quote!(Site::Root));
                    let mask = if self.disp_takes_mask(&chunk.targets) {
                        let bits = if chunk.calls.len() >= 64 {
                            u64::MAX
                        } else {
                            (1u64 << chunk.calls.len()) - 1
                        };
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
            let base = snake(&fuse.name);
            for (kind, body, replaces) in [
                ("unfused", unfused, unfused_replaces),
                ("fused", fused, fused_replaces),
            ] {
                let check = check(replaces);
                let inner = format_ident!("{base}_{kind}");
                let run = format_ident!("run_{base}_{kind}");
                let counted = format_ident!("run_{base}_{kind}_counted");
                let doc_inner = format!(
                    "`fuse {}` {kind}, on a run context (counting visits if `C`).",
                    fuse.name
                );
                let doc_run = format!(
                    "Runs `fuse {}` {kind} on `tree`, updating `globals`.",
                    fuse.name
                );
                let doc_counted = format!(
                    "Runs `fuse {}` {kind} and returns the number of node visits.",
                    fuse.name
                );
                let diverges = self.kind_pattern(fuse.root_type).is_none()
                    || (kind == "fused" && self.fused.entry(&fuse.name).is_none());
                let tail = if diverges { quote!() } else { quote!(Ok(())) };
                let uses_cx = mentions(&body, "cx");
                let cxp = if uses_cx { quote!(cx) } else { quote!(_cx) };
                out.extend(quote!(
                    #[doc = #doc_inner]
                    pub fn #inner<const C: bool>(t: &mut Tree, #cxp: &mut Cx<C> #(, #params)*) -> Result<(), Fail> {
                        #check
                        #body
                        #tail
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
        }
        out
    }
}

/// Support code: errors, the run context with its stack guard, checked
/// operations. Helpers that `code` never mentions are left out.
pub fn prelude(code: &TokenStream) -> TokenStream {
    let mut out = if mentions(code, "Arc") {
        quote!(
            use std::sync::Arc;
        )
    } else {
        TokenStream::new()
    };
    out.extend(quote!(
        /// Where a runtime error can be raised: the running traversal and the
        /// source position.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct At {
            /// `Type.traversal`, `pure fn name` or `fuse name`.
            pub context: &'static str,
            /// 1-based line.
            pub line: u32,
            /// 1-based column.
            pub col: u32,
        }

        impl At {
            /// The position `line:col` in `context`.
            pub const fn new(context: &'static str, line: u32, col: u32) -> At {
                At { context, line, col }
            }

            /// An error raised here.
            #[cold]
            pub fn error(&self, message: String) -> Fail {
                Box::new(RuntimeError {
                    message,
                    context: self.context,
                    line: self.line,
                    col: self.col,
                })
            }
        }

        /// A runtime error on its way out: boxed, so that the `Result` of
        /// every traversal and pure function is one register wide (an
        /// unboxed `RuntimeError` would make each return go through memory).
        pub type Fail = Box<RuntimeError>;

        /// A runtime error of the program (LANGUAGE.md §3): division by zero,
        /// a failed cast, an index out of range.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct RuntimeError {
            /// What went wrong.
            pub message: String,
            /// The traversal, pure function or fuse item running.
            pub context: &'static str,
            /// 1-based line of the failing expression or statement.
            pub line: u32,
            /// 1-based column.
            pub col: u32,
        }

        impl std::fmt::Display for RuntimeError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "runtime error: {}:{}: in {}: {}", self.line, self.col, self.context, self.message)
            }
        }

        impl std::error::Error for RuntimeError {}

        /// Stack that must remain when a node visit starts: room for one
        /// visit's frame and the pure-function calls it makes, with a wide
        /// margin.
        const STACK_RED_ZONE: usize = 1 << 20;
        /// Size of each stack segment added when the stack runs low.
        const STACK_SEGMENT: usize = 16 << 20;

        /// The state of one run: the globals, the node-visit counter (kept
        /// only when `COUNT` is true; otherwise every update compiles away)
        /// and the stack address below which a visit needs more stack.
        #[derive(Clone, Debug)]
        pub struct Cx<const COUNT: bool> {
            /// The globals.
            pub globals: Globals,
            /// Node visits so far (always 0 unless `COUNT`).
            pub visits: u64,
            stack_low: usize,
        }

        impl<const COUNT: bool> Cx<COUNT> {
            /// A context with these globals and no visits, for a run on
            /// this thread.
            pub fn new(globals: Globals) -> Self {
                Cx { globals, visits: 0, stack_low: stack_low() }
            }
        }

        /// An address near the top of the current stack (the stack grows
        /// down on every platform `stacker` supports).
        #[inline(always)]
        fn stack_pointer() -> usize {
            let marker = 0u8;
            std::ptr::addr_of!(marker) as usize
        }

        /// The address below which the current stack segment has less than
        /// `STACK_RED_ZONE` left (0 where `stacker` cannot tell: no checks).
        fn stack_low() -> usize {
            match stacker::remaining_stack() {
                Some(left) => (stack_pointer() - left).saturating_add(STACK_RED_ZONE),
                None => 0,
            }
        }

        /// Starts one node visit: counts it and tells whether the stack is
        /// running low, in which case the caller runs the visit through
        /// [`with_more_stack`]. (The visit is written out on both paths, so
        /// that the common one is straight-line code the compiler inlines;
        /// the check is one comparison of the stack pointer.)
        #[inline(always)]
        fn enter<const C: bool>(cx: &mut Cx<C>) -> bool {
            if C {
                cx.visits += 1;
            }
            stack_pointer() < cx.stack_low
        }

        /// Runs `f` on a new `STACK_SEGMENT` added with `stacker`, so that
        /// 10^6-deep trees run.
        #[cold]
        #[inline(never)]
        fn with_more_stack<const C: bool, R>(cx: &mut Cx<C>, f: impl FnOnce(&mut Cx<C>) -> R) -> R {
            let saved = cx.stack_low;
            let r = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                cx.stack_low = stack_low();
                f(cx)
            });
            cx.stack_low = saved;
            r
        }
    ));
    let helpers = [
        (
            "Replaced",
            quote!(
                /// What a traversal that may replace its receiver did with it
                /// (LANGUAGE.md §7.1–7.2); the caller puts the replacement where
                /// the receiver stood.
                #[derive(Clone, Debug, PartialEq, Eq)]
                pub enum Replaced<I> {
                    /// The receiver stays.
                    Kept,
                    /// `self = SUBTREE;`
                    One(I),
                    /// A thicket: zero or more nodes (the receiver stands in a list).
                    Many(Vec<I>),
                }

                impl<I> Replaced<I> {
                    /// The replacement of a receiver that stands in a single slot
                    /// or is the root (a thicket raised an error there instead).
                    #[inline]
                    pub fn single(self) -> Option<I> {
                        match self {
                            Replaced::One(x) => Some(x),
                            _ => None,
                        }
                    }
                }
            ),
        ),
        (
            "Site",
            quote!(
                /// Where the receiver of a traversal stands, for `in_list()`
                /// and thickets.
                #[derive(Clone, Copy, Debug, PartialEq, Eq)]
                pub enum Site {
                    /// The root of the run.
                    Root,
                    /// In a list of children.
                    Listed,
                    /// In a single child slot: the parent's type and the field.
                    Child(&'static str, &'static str),
                }
            ),
        ),
        (
            "thicket_error",
            quote!(
                /// A thicket replacing a receiver that does not stand in a list.
                #[cold]
                fn thicket_error(site: Site, at: &At) -> Fail {
                    let place = match site {
                        Site::Root => "it is the root of the run".to_string(),
                        Site::Child(ty, field) => {
                            format!("it stands in the single child slot `{ty}.{field}`")
                        }
                        Site::Listed => "it stands in a list".to_string(),
                    };
                    at.error(format!(
                        "a list value can only replace a node that stands in a list of children, but {place}"
                    ))
                }
            ),
        ),
        (
            "list_elem",
            quote!(
                /// Element `i` of a list child, or a runtime error.
                #[inline]
                fn list_elem<I: Copy>(items: &[I], i: i64, at: &At) -> Result<I, Fail> {
                    match usize::try_from(i).ok().and_then(|k| items.get(k)) {
                        Some(&x) => Ok(x),
                        None => Err(at.error(format!(
                            "list index {i} out of range (the list has {} elements)",
                            items.len()
                        ))),
                    }
                }
            ),
        ),
        (
            "OpenList",
            quote!(
                /// A running `for` loop over a list child whose elements may
                /// replace themselves (LANGUAGE.md §7.2). The loop visits the
                /// elements of `snapshot` (the list when it started); a later
                /// call on the loop variable runs on every node now standing
                /// where the current element stood (its region). Until the first
                /// replacement nothing is copied; then `front` holds the list
                /// built so far (its tail is the current region), the elements
                /// not reached yet being `snapshot[next..]`, so that a loop over
                /// n elements costs O(n + inserted) in all. The tree's slot is
                /// written when the loop ends (or leaves), or before a deep copy
                /// (`sync`, O(n)); meanwhile the owner reads the list from here
                /// (`len` and `elem` in O(1)).
                struct OpenList<I> {
                    snapshot: Arc<[I]>,
                    next: usize,
                    front: Option<Vec<I>>,
                    region_start: usize,
                    stale: bool,
                    region: Vec<I>,
                }

                #[allow(dead_code)]
                impl<I: Copy> OpenList<I> {
                    fn new(snapshot: Arc<[I]>) -> Self {
                        OpenList {
                            snapshot,
                            next: 0,
                            front: None,
                            region_start: 0,
                            stale: false,
                            region: Vec::new(),
                        }
                    }

                    /// The next original element, or `None` at the end.
                    #[inline]
                    fn advance(&mut self) -> Option<I> {
                        let e = *self.snapshot.get(self.next)?;
                        self.next += 1;
                        match &mut self.front {
                            Some(front) => {
                                self.region_start = front.len();
                                front.push(e);
                            }
                            None => self.region_start = self.next - 1,
                        }
                        Some(e)
                    }

                    /// The length of the list as the program sees it now.
                    #[inline]
                    fn len(&self) -> usize {
                        match &self.front {
                            Some(front) => front.len() + self.snapshot.len() - self.next,
                            None => self.snapshot.len(),
                        }
                    }

                    /// Element `i` of the list as the program sees it now.
                    #[inline]
                    fn elem(&self, i: i64, at: &At) -> Result<I, Fail> {
                        let found = usize::try_from(i).ok().and_then(|k| match &self.front {
                            Some(front) if k < front.len() => Some(front[k]),
                            Some(front) => {
                                self.snapshot.get(self.next + (k - front.len())).copied()
                            }
                            None => self.snapshot.get(k).copied(),
                        });
                        match found {
                            Some(x) => Ok(x),
                            None => Err(at.error(format!(
                                "list index {i} out of range (the list has {} elements)",
                                self.len()
                            ))),
                        }
                    }

                    /// Takes the current region out of the list, to be visited
                    /// node by node (`region_node`, then `put` each back).
                    #[inline]
                    fn take_region(&mut self) {
                        self.region.clear();
                        match &mut self.front {
                            Some(front) => self.region.extend(front.drain(self.region_start..)),
                            None => self.region.push(self.snapshot[self.region_start]),
                        }
                    }

                    #[inline]
                    fn region_node(&self, k: usize) -> Option<I> {
                        self.region.get(k).copied()
                    }

                    /// After visiting region node `n`: it stays or is replaced.
                    #[inline]
                    fn put(&mut self, n: I, r: Replaced<I>) {
                        match r {
                            Replaced::Kept => {
                                if let Some(front) = &mut self.front {
                                    front.push(n);
                                }
                            }
                            Replaced::One(x) => {
                                self.stale = true;
                                self.front_mut().push(x);
                            }
                            Replaced::Many(xs) => {
                                self.stale = true;
                                self.front_mut().extend(xs);
                            }
                        }
                    }

                    /// `front`, made on the first replacement from the elements
                    /// before the current region (copied once).
                    fn front_mut(&mut self) -> &mut Vec<I> {
                        let processed = self.region_start;
                        let snapshot = &self.snapshot;
                        self.front
                            .get_or_insert_with(|| snapshot[..processed].to_vec())
                    }

                    /// The list as the program sees it now.
                    fn current(&self) -> Arc<[I]> {
                        match &self.front {
                            Some(front) => front
                                .iter()
                                .chain(&self.snapshot[self.next..])
                                .copied()
                                .collect(),
                            None => self.snapshot.clone(),
                        }
                    }

                    /// Writes the list into the tree if replacements changed it
                    /// since it was last written.
                    fn sync(&mut self, slot: &mut Arc<[I]>) {
                        if self.stale {
                            *slot = self.current();
                            self.stale = false;
                        }
                    }

                    /// At the end of the loop: writes the list if it changed.
                    fn close(&mut self, slot: &mut Arc<[I]>) {
                        if self.front.is_some() {
                            *slot = self.current();
                        }
                    }
                }
            ),
        ),
        (
            "div_int",
            quote!(
                #[inline]
                fn div_int(a: i64, b: i64, at: &At) -> Result<i64, Fail> {
                    if b == 0 {
                        return Err(at.error("integer division or remainder by zero".to_string()));
                    }
                    Ok(a.wrapping_div(b))
                }
            ),
        ),
        (
            "rem_int",
            quote!(
                #[inline]
                fn rem_int(a: i64, b: i64, at: &At) -> Result<i64, Fail> {
                    if b == 0 {
                        return Err(at.error("integer division or remainder by zero".to_string()));
                    }
                    Ok(a.wrapping_rem(b))
                }
            ),
        ),
        (
            "shift_int",
            quote!(
                #[inline]
                fn shift_int(a: i64, b: i64, left: bool, at: &At) -> Result<i64, Fail> {
                    if !(0..=63).contains(&b) {
                        return Err(at.error(format!("shift amount {b} is outside 0..=63")));
                    }
                    Ok(if left { a << b } else { a >> b })
                }
            ),
        ),
        (
            "map_index",
            quote!(
                #[inline]
                fn map_index<K: Ord + Clone + std::fmt::Debug, V: Clone>(
                    m: &imbl::OrdMap<K, V>,
                    k: &K,
                    at: &At,
                ) -> Result<V, Fail> {
                    match m.get(k) {
                        Some(v) => Ok(v.clone()),
                        None => Err(at.error(format!("the key {k:?} is not in the map"))),
                    }
                }
            ),
        ),
        (
            "map_get_or",
            quote!(
                #[inline]
                fn map_get_or<K: Ord + Clone, V: Clone>(m: &imbl::OrdMap<K, V>, k: &K, d: V) -> V {
                    match m.get(k) {
                        Some(v) => v.clone(),
                        None => d,
                    }
                }
            ),
        ),
        (
            "concat_str",
            quote!(
                #[inline]
                fn concat_str(a: &str, b: &str) -> Arc<str> {
                    let mut out = String::with_capacity(a.len() + b.len());
                    out.push_str(a);
                    out.push_str(b);
                    Arc::from(out)
                }
            ),
        ),
        (
            "substr_checked",
            quote!(
                #[inline]
                fn substr_checked(
                    s: &str,
                    start: i64,
                    end: i64,
                    at: &At,
                ) -> Result<Arc<str>, Fail> {
                    match usize::try_from(start)
                        .ok()
                        .zip(usize::try_from(end).ok())
                        .and_then(|(a, b)| s.get(a..b))
                    {
                        Some(part) => Ok(Arc::from(part)),
                        None => Err(at.error(format!(
                            "substr({start}, {end}) is out of range or not on a character boundary of a string of {} bytes",
                            s.len()
                        ))),
                    }
                }
            ),
        ),
        (
            "checked_index",
            quote!(
                #[inline]
                fn checked_index<T: Clone>(a: &[T], i: i64, at: &At) -> Result<T, Fail> {
                    match usize::try_from(i).ok().and_then(|k| a.get(k)) {
                        Some(x) => Ok(x.clone()),
                        None => Err(at.error(format!(
                            "index {i} out of range for array of length {}",
                            a.len()
                        ))),
                    }
                }
            ),
        ),
        (
            "checked_index_mut",
            quote!(
                #[inline]
                fn checked_index_mut<'a, T>(
                    a: &'a mut [T],
                    i: i64,
                    at: &At,
                ) -> Result<&'a mut T, Fail> {
                    let len = a.len();
                    match usize::try_from(i).ok().and_then(|k| a.get_mut(k)) {
                        Some(x) => Ok(x),
                        None => {
                            Err(at
                                .error(format!("index {i} out of range for array of length {len}")))
                        }
                    }
                }
            ),
        ),
        (
            "cast_error",
            quote!(
                #[cold]
                fn cast_error(actual: &str, expected: &str, at: &At) -> Fail {
                    at.error(format!(
                        "cast failed: the node is a `{actual}`, not a `{expected}`"
                    ))
                }
            ),
        ),
        (
            "no_traversal",
            quote!(
                #[cold]
                fn no_traversal(traversal: &'static str, ty: &str) -> Fail {
                    Box::new(RuntimeError {
                        message: format!("no traversal `{traversal}` for a node of type `{ty}`"),
                        context: traversal,
                        line: 0,
                        col: 0,
                    })
                }
            ),
        ),
    ];
    for (name, ts) in helpers {
        if mentions(code, name) || (name == "Replaced" && mentions(code, "OpenList")) {
            out.extend(ts);
        }
    }
    out
}

/// Calls `f` on every expression of the global assignments and loop
/// conditions of a `fuse` item (call arguments are in `Fuse::calls`).
fn fuse_stmt_exprs(stmts: &[treefuse_sema::FuseStmt], f: &mut impl FnMut(&treefuse_sema::Expr)) {
    for s in stmts {
        match s {
            treefuse_sema::FuseStmt::Call(_) => {}
            treefuse_sema::FuseStmt::SetGlobal { value, .. } => f(value),
            treefuse_sema::FuseStmt::While { cond, body, .. } => {
                f(cond);
                fuse_stmt_exprs(body, f);
            }
        }
    }
}
