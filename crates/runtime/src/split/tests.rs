use super::*;
use crate::read_tree;
use treefuse_sema::Program;

const SOURCE: &str = "
    tree Prog { child items: [Item]; child meta: Leaf; traversal run() {} }
    tree Item { v: i64; child kids: [Leaf]; }
    tree Leaf { v: i64; }
    fuse all(root: Prog) { root.run(); }
";

fn program() -> Program {
    treefuse_sema::compile(SOURCE).expect("test program checks")
}

/// A program with `n` items of two leaves each (4 nodes per item).
fn tree(program: &Program, n: usize) -> Tree {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"type":"Item","v":{i},"kids":[{{"type":"Leaf","v":1}},{{"type":"Leaf","v":2}}]}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"type":"Prog","items":[{}],"meta":{{"type":"Leaf","v":7}}}}"#,
        items.join(",")
    );
    let root = program.type_named("Prog").expect("Prog");
    read_tree(program, root, &text).expect("test tree reads")
}

fn items(t: &Tree) -> Vec<NodeId> {
    match t.slot(t.root, 0) {
        SlotRef::List(items) => items.to_vec(),
        _ => panic!("items"),
    }
}

#[test]
fn plans_chunks_of_a_grain() {
    let p = program();
    let t = tree(&p, 10);
    let split = LoopSplit::plan(&t, &items(&t), 8).expect("splits");
    // 3 nodes per item, 8 nodes a chunk: items 0..3, 3..6, 6..10.
    assert_eq!(split.chunks(), 3);
    assert_eq!(split.elements(0), 0..3);
    assert_eq!(split.elements(2), 6..10);
    assert!(LoopSplit::plan(&t, &items(&t), 1000).is_none());
}

#[test]
fn lists_under_a_grain_and_a_half_are_refused_before_the_owner_table() {
    let p = program();
    // 4 items of 3 nodes: 12 nodes.
    let t = tree(&p, 4);
    let list = items(&t);
    // A grain of 6: two chunks of 6 nodes (a grain and a half is 9).
    assert_eq!(LoopSplit::plan(&t, &list, 6).map(|s| s.chunks()), Some(2));
    // A grain of 8: the walk lets it through (12 nodes, a grain and a
    // half), the chunking does not (9 nodes, then 3 merged into them).
    assert!(holds_at_least(&t, &list, 8 + 8 / 2));
    assert!(LoopSplit::plan(&t, &list, 8).is_none());
    // A grain of 9: refused by the walk (13 nodes needed), as the
    // chunking would refuse it.
    assert!(!holds_at_least(&t, &list, 9 + 9 / 2));
    assert_eq!(crate::generated::chunk_bounds(&[3, 3, 3, 3], 9).len(), 1);
    assert!(LoopSplit::plan(&t, &list, 9).is_none());
    // The walk stops at the bound, and counts a node reached twice twice.
    assert!(holds_at_least(&t, &list, 12));
    assert!(!holds_at_least(&t, &list, 13));
    assert!(holds_at_least(
        &t,
        &[list[0], list[0], list[0], list[0], list[0]],
        13
    ));
}

#[test]
fn a_chunk_changes_and_creates_its_own_nodes() {
    let p = program();
    let mut t = tree(&p, 4);
    let list = items(&t);
    let split = LoopSplit::plan(&t, &list, 6).expect("splits");
    assert_eq!(split.chunks(), 2);
    let leaf = p.type_named("Leaf").expect("Leaf");
    let mut views: Vec<ChunkView<'_>> = (0..2).map(|k| split.view(&t, &p, k)).collect();
    for (k, view) in views.iter_mut().enumerate() {
        for i in split.elements(k) {
            let item = list[i];
            view.set_data(item, 0, Value::Int(100 + i as i64));
            let fresh = view.alloc(&p, leaf);
            view.set_data(fresh, 0, Value::Int(-(i as i64)));
            view.list_mut(item, 1).expect("a list").push(fresh);
            assert_eq!(view.data(item, 0), Value::Int(100 + i as i64));
            // Nodes outside the list read as they are.
            assert_eq!(view.data(view.child(t.root, 1), 0), Value::Int(7));
        }
        assert!(!view.abandoned());
    }
    let changes: Vec<ChunkChanges> = views.into_iter().map(ChunkView::into_changes).collect();
    let before = t.allocated();
    for c in changes {
        c.apply(&mut t);
    }
    assert_eq!(t.allocated(), before + 4);
    for (i, &item) in list.iter().enumerate() {
        assert_eq!(t.data(item, 0), Value::Int(100 + i as i64));
        let SlotRef::List(kids) = t.slot(item, 1) else {
            panic!("kids")
        };
        // Created in list order: the ids the sequential run gives.
        assert_eq!(kids[2], NodeId((before + i) as u32));
        assert_eq!(t.data(kids[2], 0), Value::Int(-(i as i64)));
    }
}

#[test]
fn touching_another_chunk_or_a_shared_node_abandons() {
    let p = program();
    let t = tree(&p, 4);
    let list = items(&t);
    let split = LoopSplit::plan(&t, &list, 6).expect("splits");
    let view = split.view(&t, &p, 0);
    let _ = view.data(list[3], 0);
    assert!(view.abandoned(), "read of another chunk's node");
    let mut view = split.view(&t, &p, 1);
    let meta = view.child(t.root, 1);
    assert!(!view.abandoned());
    view.set_data(meta, 0, Value::Int(1));
    assert!(view.abandoned(), "write of a node outside the list");
    // A node reachable from two chunks belongs to the first.
    let mut shared = t.clone();
    let kid = match shared.slot(list[0], 1) {
        SlotRef::List(k) => k[0],
        _ => panic!("kids"),
    };
    shared.list_mut(list[3], 1).expect("list").push(kid);
    let split = LoopSplit::plan(&shared, &list, 6).expect("splits");
    let view = split.view(&shared, &p, 1);
    let _ = view.slot(kid, 0);
    assert!(view.abandoned());
}

#[test]
fn deep_copy_through_a_view() {
    let p = program();
    let mut t = tree(&p, 4);
    let list = items(&t);
    let split = LoopSplit::plan(&t, &list, 6).expect("splits");
    let mut view = split.view(&t, &p, 1);
    let copy = view.deep_copy(&p, list[2]);
    let first_leaf = view_child_of(&view, copy);
    view.list_mut(list[3], 1).expect("list").push(first_leaf);
    assert!(!view.abandoned());
    let changes = view.into_changes();
    assert_eq!(changes.created(), 3);
    let before = t.allocated();
    changes.apply(&mut t);
    let SlotRef::List(kids) = t.slot(list[3], 1) else {
        panic!("kids")
    };
    // The copy's first leaf, renumbered into the tree.
    assert_eq!(kids[2], NodeId(before as u32 + 1));
    assert_eq!(t.data(kids[2], 0), Value::Int(1));
}

fn view_child_of(view: &ChunkView<'_>, item: NodeId) -> NodeId {
    match view.slot(item, 1) {
        SlotRef::List(k) => k[0],
        _ => panic!("kids"),
    }
}

#[test]
fn an_element_listed_twice_is_in_a_chunk() {
    let p = program();
    let t = tree(&p, 3);
    let mut list = items(&t);
    list.push(list[0]);
    let split = LoopSplit::plan(&t, &list, 1).expect("splits");
    assert_eq!(split.elements(split.chunks() - 1).end, 4);
    let view = split.view(&t, &p, split.chunks() - 1);
    let _ = view.data(list[3], 0);
    assert!(view.abandoned(), "its nodes belong to the first");
}
