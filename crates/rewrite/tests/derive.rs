//! `#[derive(Rewritable)]` on the shapes it supports, single types and
//! families, and the iterative deep operations built on it.
#![allow(clippy::vec_box)] // `Vec<Box<Self>>` is deliberately one of the tested shapes.

use treefuse_rewrite::{
    deep_clone, deep_eq, dismantle, first_difference, node_count, DynNode, Kind, Node, Rewritable,
};

#[derive(Clone, Debug, PartialEq, Rewritable)]
enum Stmt {
    Nop,
    Block(Vec<Stmt>),
    If {
        cond: String,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    Many(Vec<Box<Stmt>>, u32),
    Opt(Option<Vec<Stmt>>),
    Skipped(#[rewrite(skip)] Box<Stmt>, Box<Stmt>),
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
struct Node2 {
    label: &'static str,
    kids: Vec<Node2>,
    extra: Option<Box<Node2>>,
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
enum Generic<T: Clone + PartialEq> {
    Leaf(T),
    Two(Box<Generic<T>>, Box<Self>),
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
struct UnitStruct;

// A two-type family: statements hold expressions and vice versa.
#[derive(Clone, Debug, PartialEq, Rewritable)]
#[rewrite(family(S, E))]
enum S {
    Expr(E),
    Seq(Vec<S>),
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
#[rewrite(family(S, E))]
enum E {
    Lit(i32),
    Block(Box<S>, Option<Box<E>>),
    Args(Vec<E>),
}

fn kinds(t: &dyn DynNode) -> Vec<String> {
    let mut v = Vec::new();
    t.dyn_children(&mut |c| v.push(c.dyn_kind().to_string()));
    v
}

#[test]
fn enum_children_in_order() {
    let s = Stmt::If {
        cond: "c".into(),
        then: Box::new(Stmt::Nop),
        els: Some(Box::new(Stmt::Block(vec![Stmt::Nop]))),
    };
    assert_eq!(kinds(&s), ["Stmt::Nop", "Stmt::Block"]);
    assert_eq!(
        s.kind(),
        Kind {
            ty: "Stmt",
            variant: "If"
        }
    );
    let s = Stmt::Many(vec![Box::new(Stmt::Nop), Box::new(Stmt::Block(vec![]))], 7);
    assert_eq!(kinds(&s), ["Stmt::Nop", "Stmt::Block"]);
    assert!(kinds(&Stmt::Opt(None)).is_empty());
    assert_eq!(kinds(&Stmt::Opt(Some(vec![Stmt::Nop, Stmt::Nop]))).len(), 2);
    assert_eq!(node_count(&s), 3);
}

#[test]
fn skip_attribute() {
    let s = Stmt::Skipped(Box::new(Stmt::Nop), Box::new(Stmt::Block(vec![])));
    assert_eq!(kinds(&s), ["Stmt::Block"]);
    // The skipped field is still compared and copied as a plain field.
    let t = Stmt::Skipped(Box::new(Stmt::Block(vec![])), Box::new(Stmt::Block(vec![])));
    assert!(!s.shallow_eq(&t));
    assert!(deep_eq(&t, &deep_clone(&t)));
}

#[test]
fn family_children_cross_types() {
    let e = E::Block(
        Box::new(S::Seq(vec![
            S::Expr(E::Lit(1)),
            S::Expr(E::Args(vec![E::Lit(2)])),
        ])),
        Some(Box::new(E::Lit(3))),
    );
    assert_eq!(kinds(&e), ["S::Seq", "E::Lit"]);
    assert_eq!(node_count(&e), 8);
    let c = deep_clone(&e);
    assert_eq!(c, e);
    let mut d = e.clone();
    if let E::Block(s, _) = &mut d {
        if let S::Seq(v) = &mut **s {
            v[1] = S::Expr(E::Args(vec![E::Lit(9)]));
        }
    }
    let path = first_difference(&e, &d).unwrap();
    let steps: Vec<(String, usize)> = path
        .iter()
        .map(|s| (s.parent.to_string(), s.child))
        .collect();
    assert_eq!(
        steps,
        [
            ("E::Block".to_string(), 0),
            ("S::Seq".to_string(), 1),
            ("S::Expr".to_string(), 0),
            ("E::Args".to_string(), 0)
        ]
    );
    assert!(!deep_eq(&e, &d));
    dismantle(d);
}

#[test]
fn structs_generics_units() {
    let leaf = |l| Node2 {
        label: l,
        kids: vec![],
        extra: None,
    };
    let n = Node2 {
        label: "root",
        kids: vec![leaf("a"), leaf("b")],
        extra: Some(Box::new(leaf("e"))),
    };
    assert_eq!(node_count(&n), 4);
    assert_eq!(n.kind().to_string(), "Node2");
    assert_eq!(deep_clone(&n), n);
    let mut m = n.clone();
    m.kids.pop();
    // Different numbers of children: the root differs.
    assert_eq!(first_difference(&n, &m), Some(vec![]));

    let g = Generic::Two(Box::new(Generic::Leaf(1)), Box::new(Generic::Leaf(2)));
    assert_eq!(node_count(&g), 3);
    assert_eq!(deep_clone(&g), g);
    assert_eq!(node_count(&UnitStruct), 1);
    assert!(deep_eq(&UnitStruct, &UnitStruct));
}

/// A list nested 10^6 deep (through `Vec`s and `Box`es across two types):
/// count, copy, compare and drop without recursion.
#[test]
fn deep_operations_across_families() {
    let depth = 1_000_000;
    let mut e = E::Lit(0);
    for i in 0..depth {
        e = if i % 2 == 0 {
            E::Args(vec![e])
        } else {
            E::Block(Box::new(S::Seq(vec![S::Expr(e)])), None)
        };
    }
    let n = node_count(&e);
    assert!(n > depth);
    let c = deep_clone(&e);
    assert!(deep_eq(&e, &c));
    assert_eq!(node_count(&c), n);
    dismantle(c);
    dismantle(e);
}
