//! Exact access sets of statements and summaries on small programs.

use treefuse_analysis::{Analysis, ConflictKind, FrameVar, Location};
use treefuse_automata::{Label, Nfa};
use treefuse_sema::{compile, GlobalId, LocalId, MethodId, NodeVarId, Program, TypeId};

fn program(src: &str) -> Program {
    match compile(src) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    }
}

fn ty(p: &Program, name: &str) -> TypeId {
    p.type_named(name).unwrap()
}

fn method(p: &Program, t: &str, m: &str) -> MethodId {
    p.method_named(ty(p, t), m).unwrap()
}

/// A path by dotted label names, e.g. `Box.next.Elem.width`: segments are
/// paired `Type.field` (tree fields and record members) or `global:NAME`.
fn word(a: &Analysis, path: &str) -> Vec<Label> {
    if path.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let name = if parts[i].starts_with("global:") {
            i += 1;
            parts[i - 1].to_string()
        } else {
            i += 2;
            format!("{}.{}", parts[i - 2], parts[i - 1])
        };
        out.push(
            a.labels()
                .interner()
                .get(&name)
                .unwrap_or_else(|| panic!("no label {name}")),
        );
    }
    out
}

fn accepts(a: &Analysis, n: &Nfa, path: &str) -> bool {
    n.accepts(&word(a, path))
}

const BOXES: &str = include_str!("programs/boxes.tf");

#[test]
fn simple_statements_have_exact_sets() {
    let p = program(BOXES);
    let a = Analysis::new(&p);
    let s = a
        .body_accesses(ty(&p, "Box"), method(&p, "Box", "w"))
        .unwrap();
    assert_eq!(s.len(), 10);
    let f =
        |i: usize| a.format_access(&s[i].set.reads) + " / " + &a.format_access(&s[i].set.writes);

    // self.width = self.next.width + 1
    assert_eq!(f(0), "{Box.next.Elem.width} / {Elem.width}");
    for r in ["", "Box.next", "Box.next.Elem.width"] {
        assert!(accepts(&a, &s[0].set.reads, r), "{r}");
    }
    assert!(!accepts(&a, &s[0].set.reads, "Elem.width"));
    assert!(!accepts(&a, &s[0].set.writes, "Box.next.Elem.width"));
    assert!(!s[0].set.may_fail && !s[0].set.returns && !s[0].set.has_calls);

    // self.border.size = 3: a member only.
    assert_eq!(f(1), "{ε} / {Elem.border.Border.size}");
    assert!(!accepts(&a, &s[1].set.writes, "Elem.border.Border.color"));
    // let b = self.border: the whole record.
    assert_eq!(f(2), "{Elem.border.**} / ∅");
    assert_eq!(
        s[2].set.frame_writes.iter().copied().collect::<Vec<_>>(),
        vec![FrameVar::Local(LocalId(0))]
    );
    // self.xs[0] = 1: the whole array, may fail.
    assert_eq!(f(3), "{ε} / {Elem.xs.**}");
    assert!(s[3].set.may_fail);
    // changed = true: a global only, with the value written (`changed`
    // is only ever set to constants: its writes are told apart by value).
    assert_eq!(f(4), "∅ / ∅");
    assert_eq!(
        a.format_access(&s[4].set.global_writes),
        "{global:changed.=true}"
    );
    let changed = a.labels().global(GlobalId(0));
    assert!(s[4].set.global_writes.accepts(&[changed]));
    // if self.next is End { return; }
    assert_eq!(f(5), "{Box.next} / ∅");
    assert!(s[5].set.returns && !s[5].set.may_fail);
    // let n = self.next; n.width = twice(b.size)
    assert_eq!(f(6), "{Box.next} / ∅");
    assert_eq!(f(7), "{Box.next} / {Box.next.Elem.width}");
    assert!(s[7].set.frame_reads.contains(&FrameVar::Local(LocalId(0))));
    assert!(s[7].set.frame_reads.contains(&FrameVar::Node(NodeVarId(0))));
    assert!(s[6]
        .set
        .frame_writes
        .contains(&FrameVar::Node(NodeVarId(0))));
    // self.next.w(): the recursive summary under next.
    let call = &s[8].set;
    assert!(call.has_calls && call.may_fail);
    for w in [
        "Box.next.Elem.width",
        "Box.next.Box.next.Elem.width",
        "Box.next.Box.next.Box.next.Elem.xs",
        "Box.next.Elem.border.Border.size",
    ] {
        assert!(accepts(&a, &call.writes, w), "{w}");
    }
    assert!(!accepts(&a, &call.writes, "Elem.width"));
    assert!(!accepts(&a, &call.writes, "Box.next"));
    assert_eq!(
        a.format_access(&call.global_writes),
        "{global:total, global:changed.=true}"
    );
    // total = total + half(self.width): global read and write, may fail.
    assert_eq!(a.format_access(&s[9].set.global_reads), "{global:total}");
    assert!(s[9].set.may_fail);

    // Conflicts within the body.
    let c = a.conflict(&s[0].set, &s[8].set, true).unwrap();
    assert_eq!(c.kind, ConflictKind::ReadWrite);
    assert_eq!(c.witness, "Box.next.Elem.width");
    assert!(a.conflict(&s[1].set, &s[3].set, true).is_none());
    let c = a.conflict(&s[1].set, &s[2].set, true).unwrap();
    assert_eq!(
        (c.kind, c.witness.as_str()),
        (ConflictKind::WriteRead, "Elem.border.Border.size")
    );
    let c = a.conflict(&s[2].set, &s[7].set, true).unwrap();
    assert_eq!(c.location, Location::Frame(FrameVar::Local(LocalId(0))));
    assert!(a.conflict(&s[2].set, &s[7].set, false).is_none());
    let c = a.conflict(&s[4].set, &s[8].set, false).unwrap();
    assert_eq!(
        (c.kind, c.location),
        (ConflictKind::WriteWrite, Location::Global)
    );
    assert_eq!(c.witness, "global:changed");
    let c = a.conflict(&s[8].set, &s[9].set, false).unwrap();
    assert_eq!(c.kind, ConflictKind::WriteRead);
    assert_eq!(c.witness, "global:total");
}

#[test]
fn summaries_union_over_overrides() {
    let p = program(BOXES);
    let a = Analysis::new(&p);
    let elem = ty(&p, "Elem");
    let w = method(&p, "Elem", "w");
    assert!(a.summary(ty(&p, "End"), w).unwrap().writes.is_empty());
    let s = a.static_summary(elem, w).unwrap();
    assert!(accepts(&a, &s.writes, "Box.next.Box.next.Elem.width"));
    assert!(s.may_fail);
    assert!(
        a.summary(elem, w).is_none(),
        "abstract types have no concrete summary"
    );
    let under = a.call_access(&word(&a, "Box.next"), elem, w).unwrap();
    assert!(accepts(&a, &under.reads, "Box.next"));
    assert!(accepts(&a, &under.writes, "Box.next.Elem.width"));
    assert!(!accepts(&a, &under.writes, "Elem.width"));
}

#[test]
fn figure2_calls_conflict_through_width() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/figure2/figure2.tf"
    ))
    .unwrap();
    let p = program(&src);
    let a = Analysis::new(&p);
    let element = ty(&p, "Element");
    let width = method(&p, "Element", "compute_width");
    let height = method(&p, "Element", "compute_height");
    let next = word(&a, "TextBox.next");
    let cw = a.call_access(&next, element, width).unwrap();
    let ch = a.call_access(&next, element, height).unwrap();
    let c = a.conflict(&cw, &ch, false).unwrap();
    assert_eq!(c.kind, ConflictKind::WriteRead);
    assert_eq!(c.witness, "TextBox.next.Element.width");
    // The other order conflicts too (height reads what width writes).
    let c = a.conflict(&ch, &cw, false).unwrap();
    assert_eq!(c.kind, ConflictKind::ReadWrite);
    // Heights are never read by compute_width: no write/write, no
    // read-after-height-write.
    assert!(treefuse_automata::intersection_witness(&ch.writes, &cw.reads).is_none());
    assert!(treefuse_automata::intersection_witness(&ch.writes, &cw.writes).is_none());

    // In TextBox.compute_height, `self.next.compute_height()` (statement 0)
    // and the write of `self.height` (statement 1) are independent, but the
    // comparison in statement 3 reads next.height, which the call writes.
    let tb = a.body_accesses(ty(&p, "TextBox"), height).unwrap();
    assert!(a.conflict(&tb[0].set, &tb[1].set, true).is_none());
    let c = a.conflict(&tb[0].set, &tb[3].set, true).unwrap();
    assert_eq!(c.witness, "TextBox.next.Element.height");
    // Group: the call on content writes content.width, read at the end.
    let g = a.body_accesses(ty(&p, "Group"), width).unwrap();
    let c = a.conflict(&g[0].set, &g[2].set, true).unwrap();
    assert_eq!(
        (c.kind, c.witness.as_str()),
        (ConflictKind::WriteRead, "Group.content.Element.width")
    );
    // Globals: compute_height reads CHAR_WIDTH, nobody writes it.
    let hs = a.static_summary(element, height).unwrap();
    assert_eq!(a.format_access(&hs.global_reads), "{global:CHAR_WIDTH}");
    assert!(hs.global_writes.is_empty());
    assert!(hs.may_fail, "width / CHAR_WIDTH may divide by zero");
    let ws = a.static_summary(element, width).unwrap();
    assert!(!ws.may_fail);
    let d = a.describe(ws);
    assert!(d.contains("writes {"), "{d}");
}

#[test]
fn same_field_name_on_unrelated_types_is_two_labels() {
    let p = program(
        r#"
        tree A { x: i64; traversal f() { self.x = 1; } }
        tree B { x: i64; traversal f() { self.x = 2; } }
        "#,
    );
    let a = Analysis::new(&p);
    let la = a.labels().field_named(&p, "A", "x").unwrap();
    let lb = a.labels().field_named(&p, "B", "x").unwrap();
    assert_ne!(la, lb);
    let sa = a.summary(ty(&p, "A"), method(&p, "A", "f")).unwrap();
    let sb = a.summary(ty(&p, "B"), method(&p, "B", "f")).unwrap();
    assert!(a.conflict(sa, sb, false).is_none());
}

const LISTS: &str = include_str!("programs/lists.tf");

#[test]
fn list_elements_are_the_list_label() {
    let p = program(LISTS);
    let a = Analysis::new(&p);
    let block = ty(&p, "Block");
    let f = method(&p, "Stmt", "f");
    let g = method(&p, "Stmt", "g");
    let s = a.body_accesses(block, f).unwrap();
    assert_eq!(s.len(), 1);
    let set = &s[0].set;
    assert!(accepts(&a, &set.writes, "Block.items.Stmt.x"));
    assert!(accepts(&a, &set.writes, "Block.items.Block.items.Stmt.x"));
    assert!(!accepts(&a, &set.writes, "Stmt.x"));
    assert!(accepts(&a, &set.reads, "Block.items"));
    assert!(set.frame_writes.contains(&FrameVar::Node(NodeVarId(0))));
    // Nested blocks carry their own sets.
    assert_eq!(s[0].blocks.len(), 1);
    let body = &s[0].blocks[0];
    assert_eq!(a.format_access(&body[1].set.writes), "{Block.items.Stmt.x}");
    let c = a.conflict(&body[0].set, &body[1].set, true).unwrap();
    assert_eq!(c.witness, "Block.items.Stmt.x");
    // f and g: f writes x everywhere below, g writes x on blocks and reads
    // and writes a global.
    let sf = a.static_summary(ty(&p, "Stmt"), f).unwrap();
    let sg = a.static_summary(ty(&p, "Stmt"), g).unwrap();
    let c = a.conflict(sf, sg, false).unwrap();
    assert_eq!(c.kind, ConflictKind::ReadWrite);
    assert!(sg.global_writes.accepts(&word(&a, "global:count")));
    let gs = a.body_accesses(block, g).unwrap();
    assert!(gs[0].set.frame_reads.contains(&FrameVar::Local(LocalId(0))));
}

const MOVES: &str = include_str!("programs/moves.tf");

#[test]
fn moves_write_subtrees_and_relocate_aliases() {
    let p = program(MOVES);
    let a = Analysis::new(&p);
    let holder = ty(&p, "Holder");
    let simp = method(&p, "Holder", "simp");
    let s = a.body_accesses(holder, simp).unwrap();
    let set = &s[0].set;
    assert!(set.may_fail, "casts may fail");
    assert!(accepts(&a, &set.writes, "Holder.e"));
    assert!(accepts(&a, &set.writes, "Holder.e.Cond.b.Expr.v"));
    // The alias `n` was bound to e.a, which the move puts at e: `n.v = 5`
    // writes e.v in fact.
    assert!(accepts(&a, &set.writes, "Holder.e.Expr.v"));
    assert!(accepts(&a, &set.writes, "Holder.e.Cond.a.Expr.v"));
    let r = a.relocations(holder, simp).unwrap();
    assert!(r.accepts(&word(&a, "Holder.e")));
    // Nested: the alias write statement alone.
    let inner = &s[0].blocks[0];
    assert!(accepts(&a, &inner[2].set.writes, "Holder.e.Expr.v"));

    // A move in a callee relocates the alias of the caller.
    let deep = method(&p, "Holder", "deep");
    let r = a.relocations(holder, deep).unwrap();
    assert!(r.accepts(&word(&a, "Holder.e.Cond.a")));
    let s = a.body_accesses(holder, deep).unwrap();
    assert!(accepts(&a, &s[2].set.writes, "Holder.e.Cond.a.Expr.v"));
    assert!(accepts(
        &a,
        &s[2].set.writes,
        "Holder.e.Cond.a.Cond.b.Expr.v"
    ));

    // `new` with a moved child: writes the whole slot, reads the source.
    let fresh = p.method_named(holder, "fresh").unwrap();
    let s = a.body_accesses(holder, fresh).unwrap();
    assert_eq!(a.format_access(&s[0].set.writes), "{Holder.e.**}");
    assert!(accepts(&a, &s[0].set.reads, "Holder.e.Cond.b.Expr.v"));
    assert!(a
        .relocations(holder, fresh)
        .unwrap()
        .accepts(&word(&a, "Holder.e")));
}

#[test]
fn fuse_items_have_call_accesses() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/figure2/figure2.tf"
    ))
    .unwrap();
    let p = program(&src);
    let a = Analysis::new(&p);
    let f = p.fuse_named("layout").unwrap();
    let calls = a.fuse_accesses(f);
    assert_eq!(calls.len(), 2);
    let c = a.conflict(&calls[0], &calls[1], false).unwrap();
    assert_eq!(c.witness, "Element.width");
}

#[test]
fn short_paths_and_group_unions() {
    let p = program(BOXES);
    let a = Analysis::new(&p);
    let s = a
        .body_accesses(ty(&p, "Box"), method(&p, "Box", "w"))
        .unwrap();
    let c = a.conflict(&s[0].set, &s[8].set, true).unwrap();
    assert_eq!(a.labels().format_short(&c.word), "next.width");
    assert_eq!(
        treefuse_analysis::format_access_short(&s[0].set.reads, a.labels()),
        "{next.width}"
    );
    let u = treefuse_analysis::AccessSet::union_all(&[&s[0].set, &s[4].set, &s[2].set]);
    assert!(accepts(&a, &u.writes, "Elem.width"));
    assert!(accepts(&a, &u.reads, "Elem.border.Border.color"));
    assert!(u.global_writes.accepts(&word(&a, "global:changed")));
    assert!(u.frame_writes.contains(&FrameVar::Local(LocalId(0))));
    assert!(!u.may_fail && !u.returns);
}

/// Precision regression: the pairs of render passes that touch disjoint
/// data must stay independent at the root (and the others must not).
#[test]
fn render_passes_independence_at_the_root() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/render/render.tf"
    ))
    .unwrap();
    let p = program(&src);
    let a = Analysis::new(&p);
    let fuse = p.fuse_named("render").unwrap();
    let calls = a.fuse_accesses(fuse);
    let names: Vec<&str> = fuse
        .calls
        .iter()
        .map(|c| p.methods[c.method.index()].name.as_str())
        .collect();
    let mut independent = Vec::new();
    for i in 0..calls.len() {
        for j in i + 1..calls.len() {
            if a.conflict(&calls[i], &calls[j], false).is_none() {
                independent.push(format!("{} {}", names[i], names[j]));
            }
        }
    }
    assert_eq!(
        independent,
        [
            "resolve_flex_widths set_font",
            "resolve_relative_widths set_font",
            "set_font set_positions"
        ]
    );
    // And a witness for a blocked pair, in short form.
    let c = a.conflict(&calls[3], &calls[4], false).unwrap();
    assert_eq!(c.kind, ConflictKind::WriteRead);
    assert_eq!(
        a.labels().format_short(&c.word),
        "page_list.content.horiz_list.content.height"
    );
}

#[test]
fn loop_bodies_split_by_element() {
    let p = program(LISTS);
    let a = Analysis::new(&p);
    let block = ty(&p, "Block");
    let (f, g) = (method(&p, "Stmt", "f"), method(&p, "Stmt", "g"));
    let lf = a.body_accesses(block, f).unwrap()[0]
        .per_element
        .as_deref()
        .unwrap();
    // Through the element: its x, and everything f does below it.
    assert!(accepts(&a, &lf.element.writes, "Stmt.x"));
    assert!(accepts(&a, &lf.element.writes, "Block.items.Stmt.x"));
    assert!(!accepts(&a, &lf.element.writes, "Block.items"));
    assert!(lf.element.global_writes.is_empty() && lf.element.frame_reads.is_empty());
    // The rest: only the header's read of the list and the binding.
    assert!(lf.other.writes.is_empty());
    assert_eq!(a.format_access(&lf.other.reads), "{Block.items}");
    assert!(lf
        .other
        .frame_writes
        .contains(&FrameVar::Node(NodeVarId(0))));
    // g's loop reads the parameter and, through the calls, the global.
    let lg = a.body_accesses(block, g).unwrap()[0]
        .per_element
        .as_deref()
        .unwrap();
    assert!(lg.other.frame_reads.contains(&FrameVar::Local(LocalId(0))));
    assert_eq!(a.format_access(&lg.other.global_writes), "{global:count}");
    assert!(lg.element.global_writes.is_empty());
    // Fusing the two loops: iterations on different elements only meet
    // through `other`, and there the loops are independent...
    assert!(a.conflict(&lf.other, &lg.other, false).is_none());
    assert!(a
        .conflict(
            &lf.other,
            &lg.element.under(&word(&a, "Block.items")),
            false
        )
        .is_none());
    // ...while on the same element f's writes of x precede g's reads: kept
    // by running the bodies in order within an iteration.
    let c = a.conflict(&lf.element, &lg.element, false).unwrap();
    assert_eq!(c.kind, ConflictKind::ReadWrite);
    // Statements outside loops have no split.
    let gs = a.body_accesses(block, g).unwrap();
    assert!(gs[1].per_element.is_none());
}

#[test]
fn analysis_can_be_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Analysis<'static>>();
    send_sync::<treefuse_analysis::AccessSet>();
    send_sync::<treefuse_analysis::StmtAccess>();
}
