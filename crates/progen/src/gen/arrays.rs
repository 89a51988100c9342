//! LANGUAGE.md §8.5 and §8.8 in random programs: the array built-ins
//! (`append`, `concat`, `slice`, `insert_at`, `remove_at`, mostly in the
//! `x = f(x, ..)` shape the engines run in place), appends to a global
//! array from several traversals (an ordered effect that fusion must keep
//! in order), the list edits `self.L.insert(i, ..)` and `self.L.remove(i)`,
//! and pure functions that read tree nodes (casts, `is`, children, `len`
//! and `for` over lists, calls of one another), called from traversals
//! with tree paths.
//!
//! In one program in two ([`EXT_ONE_IN`]) these are *added* to what the
//! seed gave before: every choice here is drawn from a generator of its
//! own (seeded from the program's seed), the main generator's state and
//! risk budget are put back after each use, and the names made here have
//! prefixes of their own, so the rest of each program is unchanged. Extra
//! statements follow statements of traversal bodies
//! ([`Gen::ext_stmt`]); the pure functions and the global `garr` are
//! emitted with the other items ([`Gen::ext_items`]).
//!
//! Growth stays bounded: appends and inserts are guarded by a length
//! (`if len(a) < 8 { .. }`), `concat` adds a constant array, and list
//! inserts put a new leaf into a list of fewer than six nodes.

use super::*;

/// One in how many programs get the constructs of this module.
const EXT_ONE_IN: u32 = 2;

/// A pure function that reads nodes: its name, the tree type of its node
/// parameter, and whether it returns `bool` (else `i64`, with a second
/// parameter `k: i64`).
#[derive(Clone)]
pub(super) struct NodeFn {
    name: String,
    ty: usize,
    boolean: bool,
}

/// The state of this module for one program.
pub(super) struct Ext {
    rng: ChaCha8Rng,
    fns: Vec<NodeFn>,
    /// Whether the program has the global `garr: [i64]`.
    garr: bool,
    /// Names made here (`ce1`, ..).
    fresh: usize,
    /// Unguarded array and list operations (that may fail at run time)
    /// still allowed in this program.
    risk: u32,
}

impl Gen {
    /// Decides whether the program gets this module's constructs, and
    /// which pure functions over nodes it has.
    pub(super) fn ext_setup(&mut self, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6172_7261_7973_5f31);
        if rng.gen_range(0..EXT_ONE_IN) != 0 {
            return;
        }
        self.ext = Some(Ext {
            rng,
            fns: Vec::new(),
            garr: false,
            fresh: 0,
            risk: 0,
        });
        self.with_ext(|g| {
            // No `garr` (an ordered append) where traversals keep to the
            // commutative counter.
            let garr = !g.chance(4) && !g.cfg.private_globals;
            let mut fns = Vec::new();
            let bases: Vec<usize> = (0..g.types.len())
                .filter(|&t| g.types[t].parent.is_none())
                .collect();
            for (i, &b) in bases.iter().enumerate() {
                fns.push(NodeFn {
                    name: format!("nf{i}"),
                    ty: b,
                    boolean: false,
                });
                if g.chance(2) {
                    fns.push(NodeFn {
                        name: format!("nb{i}"),
                        ty: b,
                        boolean: true,
                    });
                }
                // A function over a type below the base, some of the time.
                let subs = g.strict_subtypes(b);
                if !subs.is_empty() && g.chance(3) {
                    let s = g.pick(&subs);
                    fns.push(NodeFn {
                        name: format!("ns{i}"),
                        ty: s,
                        boolean: false,
                    });
                }
            }
            let risk = g.below(4);
            if let Some(e) = g.ext.as_mut() {
                e.garr = garr;
                e.fns = fns;
                e.risk = risk;
            }
        });
    }

    /// Runs `f` with this module's generator in place of the main one,
    /// and puts back the main generator's state and risk budget.
    fn with_ext<R>(&mut self, f: impl FnOnce(&mut Gen) -> R) -> Option<R> {
        let ext_rng = self.ext.as_mut()?.rng.clone();
        let main = std::mem::replace(&mut self.rng, ext_rng);
        let risk = self.risk_left;
        let r = f(self);
        let ext_rng = std::mem::replace(&mut self.rng, main);
        self.risk_left = risk;
        if let Some(e) = self.ext.as_mut() {
            e.rng = ext_rng;
        }
        Some(r)
    }

    /// Whether to leave an array or list operation unguarded (an index
    /// that may be out of range), while this program's budget lasts.
    fn ext_risky(&mut self) -> bool {
        let left = self.ext.as_ref().map_or(0, |e| e.risk);
        if left > 0 && self.chance(5) {
            if let Some(e) = self.ext.as_mut() {
                e.risk -= 1;
            }
            true
        } else {
            false
        }
    }

    fn ext_fresh(&mut self, prefix: &str) -> String {
        let n = match self.ext.as_mut() {
            Some(e) => {
                e.fresh += 1;
                e.fresh
            }
            None => 0,
        };
        format!("{prefix}{n}")
    }

    /// The global `garr` and the pure functions over nodes, as items.
    pub(super) fn ext_items(&mut self) -> String {
        let Some(ext) = &self.ext else {
            return String::new();
        };
        let fns = ext.fns.clone();
        let garr = ext.garr;
        self.with_ext(|g| {
            let mut out = String::new();
            if garr {
                out.push_str("global garr: [i64] = [];\n");
            }
            for (i, f) in fns.iter().enumerate() {
                out.push_str(&g.node_fn(f, &fns[..i]));
            }
            out
        })
        .unwrap_or_default()
    }

    /// The text of a pure function over nodes; it may call `earlier`
    /// ones (no recursion).
    fn node_fn(&mut self, f: &NodeFn, earlier: &[NodeFn]) -> String {
        let tn = self.types[f.ty].name.clone();
        if f.boolean {
            // `= expr;`: a type test and a field read through a cast,
            // guarded by it (or not: a cast that may fail).
            let test = self.node_bool(f.ty, "n");
            return format!("pure fn {}(n: {tn}) -> bool = {test};\n", f.name);
        }
        let mut lines = vec!["let s: i64 = k;".to_string()];
        for _ in 0..1 + self.below(4) {
            lines.extend(self.node_fn_stmt(f.ty, earlier));
        }
        lines.push("return s;".into());
        let body: Vec<String> = lines.into_iter().map(|l| format!("    {l}\n")).collect();
        format!(
            "pure fn {}(n: {tn}, k: i64) -> i64 {{\n{}}}\n",
            f.name,
            body.concat()
        )
    }

    /// A `bool` about node `n` of type `t`.
    fn node_bool(&mut self, t: usize, n: &str) -> String {
        let below: Vec<usize> = std::iter::once(t).chain(self.strict_subtypes(t)).collect();
        let s = self.pick(&below);
        let sn = self.types[s].name.clone();
        let bools: Vec<String> = self
            .data_fields_of(s, Some(DTy::Bool))
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        let ints: Vec<String> = self
            .data_fields_of(s, Some(DTy::Int))
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        let read = if !bools.is_empty() && self.chance(2) {
            format!("({n} as {sn}).{}", self.pick(&bools))
        } else if !ints.is_empty() {
            format!("({n} as {sn}).{} > {}", self.pick(&ints), self.below(4))
        } else {
            let lists = self.lists(s);
            if lists.is_empty() {
                return format!("{n} is {sn}");
            }
            let (l, _) = self.pick(&lists);
            format!("len(({n} as {sn}).{l}) > {}", self.below(3))
        };
        if self.chance(12) {
            // Unguarded: fails on nodes of other types.
            read
        } else if self.chance(2) {
            format!("{n} is {sn} && {read}")
        } else {
            format!("!({n} is {sn}) || {read}")
        }
    }

    /// One statement of a pure function over node `n` of type `t`,
    /// adding to the local `s`.
    fn node_fn_stmt(&mut self, t: usize, earlier: &[NodeFn]) -> Vec<String> {
        let below: Vec<usize> = std::iter::once(t).chain(self.strict_subtypes(t)).collect();
        let s = self.pick(&below);
        let sn = self.types[s].name.clone();
        let cast = if s == t {
            "n".to_string()
        } else {
            format!("(n as {sn})")
        };
        let guarded = |g: &mut Gen, lines: Vec<String>| -> Vec<String> {
            if s == t || g.chance(12) {
                lines
            } else {
                let mut out = vec![format!("if n is {sn} {{")];
                out.extend(lines.into_iter().map(|l| format!("    {l}")));
                out.push("}".into());
                out
            }
        };
        match self.below(5) {
            // A data field of the node.
            0 => {
                let ints = self.data_fields_of(s, Some(DTy::Int));
                if ints.is_empty() {
                    return vec![format!("s = s + {};", if s == t { "1" } else { "2" })];
                }
                let (f, _) = self.pick(&ints);
                guarded(self, vec![format!("s = s * 3 + {cast}.{f};")])
            }
            // A data field of a child.
            1 => {
                let singles = self.singles(s);
                if singles.is_empty() {
                    return vec!["s = s + 1;".into()];
                }
                let (c, ct) = self.pick(&singles);
                let ints = self.data_fields_of(ct, Some(DTy::Int));
                let line = match ints.first() {
                    Some((f, _)) => format!("s = s + {cast}.{c}.{f};"),
                    None => {
                        let ctn = self.types[ct].name.clone();
                        format!("if {cast}.{c} is {ctn} {{ s = s + 1; }}")
                    }
                };
                guarded(self, vec![line])
            }
            // A list: its length, or a loop over it.
            2 => {
                let lists = self.lists(s);
                if lists.is_empty() {
                    return vec!["s = s - 1;".into()];
                }
                let (l, lt) = self.pick(&lists);
                if self.chance(2) {
                    return guarded(self, vec![format!("s = s + len({cast}.{l});")]);
                }
                let c = self.ext_fresh("ce");
                let mut inner = vec![format!("s = s + 1;")];
                let subs: Vec<usize> = std::iter::once(lt)
                    .chain(self.strict_subtypes(lt))
                    .collect();
                let u = self.pick(&subs);
                let ints = self.data_fields_of(u, Some(DTy::Int));
                if let Some((f, _)) = ints.first() {
                    let un = self.types[u].name.clone();
                    if u == lt {
                        inner.push(format!("s = s + {c}.{f};"));
                    } else {
                        inner.push(format!("if {c} is {un} {{ s = s + ({c} as {un}).{f}; }}"));
                    }
                }
                let mut lines = vec![format!("for {c} in {cast}.{l} {{")];
                lines.extend(inner.into_iter().map(|l| format!("    {l}")));
                lines.push("}".into());
                guarded(self, lines)
            }
            // A call of an earlier function, on the node or a child.
            3 => {
                let mut opts: Vec<(String, NodeFn)> = Vec::new();
                for f in earlier {
                    if self.is_subtype(s, f.ty) {
                        opts.push((cast.clone(), f.clone()));
                    }
                    for (c, ct) in self.singles(s) {
                        if self.is_subtype(ct, f.ty) {
                            opts.push((format!("{cast}.{c}"), f.clone()));
                        }
                    }
                }
                if opts.is_empty() {
                    return vec!["s = s + k;".into()];
                }
                let (arg, f) = self.pick(&opts);
                let call = if f.boolean {
                    format!("if {}({arg}) {{ s = s + 5; }}", f.name)
                } else {
                    format!("s = s + {}({arg}, s % 5);", f.name)
                };
                guarded(self, vec![call])
            }
            // A type test.
            _ => {
                let b = self.node_bool(t, "n");
                vec![format!("if {b} {{ s = s + 7; }} else {{ s = s - 1; }}")]
            }
        }
    }

    /// Maybe one more statement after one of a traversal body: a call of
    /// a pure function over nodes, an array update, an append to `garr`,
    /// or a list insert or remove.
    pub(super) fn ext_stmt(&mut self, cx: &Ctx) -> Option<Vec<String>> {
        self.ext.as_ref()?;
        self.with_ext(|g| {
            if !g.chance(3) {
                return None;
            }
            for _ in 0..4 {
                let r = match g.below(8) {
                    0..=2 => g.node_fn_call_stmt(cx),
                    3 | 4 => g.array_update_stmt(cx),
                    5 => g.garr_stmt(cx),
                    _ => g.list_insert_remove_stmt(cx),
                };
                if r.is_some() {
                    return r;
                }
            }
            None
        })
        .flatten()
    }

    /// A call of a pure function over nodes with a tree path: its value
    /// goes into a data field, a global, or decides an `if`.
    fn node_fn_call_stmt(&mut self, cx: &Ctx) -> Option<Vec<String>> {
        let fns = self.ext.as_ref()?.fns.clone();
        let p = self.node_path(cx, 0, 2)?;
        let fits: Vec<NodeFn> = fns
            .into_iter()
            .filter(|f| self.is_subtype(p.ty, f.ty))
            .collect();
        if fits.is_empty() {
            return None;
        }
        let f = self.pick(&fits);
        let call = if f.boolean {
            format!("{}({})", f.name, p.text)
        } else {
            let k = self.expr(cx, DTy::Int, 1);
            format!("{}({}, {k})", f.name, p.text)
        };
        let own_ints = self.data_fields_of(cx.ty, Some(DTy::Int));
        let own_bools = self.data_fields_of(cx.ty, Some(DTy::Bool));
        Some(match (f.boolean, self.below(3)) {
            (true, 0) if !own_bools.is_empty() => {
                let (o, _) = self.pick(&own_bools);
                vec![format!("self.{o} = {call};")]
            }
            (true, _) => vec![
                format!("if {call} {{"),
                format!("    {}", self.global_add("1")),
                "}".into(),
            ],
            (false, 0) if !own_ints.is_empty() => {
                let (o, _) = self.pick(&own_ints);
                vec![format!("self.{o} = self.{o} + {call};")]
            }
            (false, 1) if self.ext.as_ref().is_some_and(|e| e.garr) => vec![
                "if len(garr) < 40 {".into(),
                format!("    garr = append(garr, {call});"),
                "}".into(),
            ],
            (false, _) => vec![self.global_add(&call)],
        })
    }

    /// `a = append(a, e);` and the other built-ins on an array in a data
    /// field of `self`, a global or a local (mostly in place: `a` on both
    /// sides), or a built-in's value read into an `i64`.
    fn array_update_stmt(&mut self, cx: &Ctx) -> Option<Vec<String>> {
        let mut arrays: Vec<String> = self
            .data_fields_of(cx.ty, Some(DTy::Arr))
            .into_iter()
            .map(|(f, _)| format!("self.{f}"))
            .collect();
        for (n, t, _) in &self.globals {
            if *t == DTy::Arr {
                arrays.push(n.clone());
            }
        }
        for (n, t) in &cx.locals {
            if *t == DTy::Arr {
                arrays.push(n.clone());
            }
        }
        if self.ext.as_ref().is_some_and(|e| e.garr) {
            arrays.push("garr".into());
        }
        if arrays.is_empty() {
            return None;
        }
        let a = self.pick(&arrays);
        let e = self.expr(cx, DTy::Int, 1);
        let i = self.expr(cx, DTy::Int, 1);
        let risky = self.ext_risky();
        Some(match self.below(7) {
            0 | 1 => vec![
                format!("if len({a}) < 8 {{"),
                format!("    {a} = append({a}, {e});"),
                "}".into(),
            ],
            2 => {
                let c = self.const_value(DTy::Arr);
                vec![
                    format!("if len({a}) < 8 {{"),
                    format!("    {a} = concat({a}, {c});"),
                    "}".into(),
                ]
            }
            3 if risky => vec![format!("{a} = slice({a}, {i}, {e});")],
            3 => vec![format!(
                "{a} = slice({a}, len({a}) / 3, len({a}) - len({a}) / 4);"
            )],
            4 if risky => vec![format!("{a} = insert_at({a}, {i}, {e});")],
            4 => vec![
                format!("if len({a}) < 8 {{"),
                format!("    {a} = insert_at({a}, abs({i}) % (len({a}) + 1), {e});"),
                "}".into(),
            ],
            5 if risky => vec![format!("{a} = remove_at({a}, {i});")],
            5 => vec![
                format!("if len({a}) > 0 {{"),
                format!("    {a} = remove_at({a}, abs({i}) % len({a}));"),
                "}".into(),
            ],
            // A built-in's value used where it is (a copy of the array).
            _ => {
                let b = format!("[{}, {}]", self.below(5), self.below(5));
                vec![self.global_add(&format!(
                    "len(concat(append({a}, {e}), {b})) + len(slice({b}, 0, len({b})))"
                ))]
            }
        })
    }

    /// An append to the global `garr` (the ordered effect of §8.5).
    fn garr_stmt(&mut self, cx: &Ctx) -> Option<Vec<String>> {
        if !self.ext.as_ref().is_some_and(|e| e.garr) {
            return None;
        }
        let e = self.expr(cx, DTy::Int, 2);
        Some(vec![
            "if len(garr) < 40 {".into(),
            format!("    garr = append(garr, {e});"),
            "}".into(),
        ])
    }

    /// `self.L.insert(i, new Leaf {..});` or `self.L.remove(i);` on a
    /// list of `self`, outside loops.
    fn list_insert_remove_stmt(&mut self, cx: &Ctx) -> Option<Vec<String>> {
        if !self.cfg.rewrites || cx.loopvar.is_some() {
            return None;
        }
        let lists = self.lists(cx.ty);
        if lists.is_empty() {
            return None;
        }
        let (l, lt) = self.pick(&lists);
        let list = format!("self.{l}");
        let i = self.expr(cx, DTy::Int, 1);
        let risky = self.ext_risky();
        if self.chance(2) {
            let leaves = self.leaves_below(lt);
            if leaves.is_empty() {
                return None;
            }
            let x = self.pick(&leaves);
            let inits = self.data_inits(cx, x);
            let leaf = format!("new {} {{{inits}}}", self.types[x].name);
            let at = if risky {
                i
            } else {
                format!("abs({i}) % (len({list}) + 1)")
            };
            Some(vec![
                format!("if len({list}) < 6 {{"),
                format!("    {list}.insert({at}, {leaf});"),
                "}".into(),
            ])
        } else if risky {
            Some(vec![format!("{list}.remove({i});")])
        } else {
            Some(vec![
                format!("if len({list}) > 0 {{"),
                format!("    {list}.remove(abs({i}) % len({list}));"),
                "}".into(),
            ])
        }
    }
}
