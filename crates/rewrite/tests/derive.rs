//! `#[derive(Rewritable)]` on the shapes it supports.
#![allow(clippy::vec_box)] // `Vec<Box<Self>>` is deliberately one of the tested shapes.

use treefuse_rewrite::{node_count, Rewritable};

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
struct Node {
    label: &'static str,
    kids: Vec<Node>,
    extra: Option<Box<Node>>,
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
struct Pair(u8, Option<Box<Pair>>, Vec<Pair>);

#[derive(Clone, Debug, PartialEq, Rewritable)]
enum Generic<T: Clone> {
    Leaf(T),
    Two(Box<Generic<T>>, Box<Self>),
}

#[derive(Clone, Debug, PartialEq, Rewritable)]
struct UnitStruct;

fn children<T: Rewritable + Clone>(t: &T) -> Vec<T> {
    let mut v = Vec::new();
    t.for_each_child(&mut |c| v.push(c.clone()));
    v
}

fn leafy() -> Stmt {
    Stmt::Block(vec![Stmt::Nop])
}

#[test]
fn enum_children_in_order() {
    let s = Stmt::If {
        cond: "c".into(),
        then: Box::new(Stmt::Nop),
        els: Some(Box::new(leafy())),
    };
    assert_eq!(children(&s), vec![Stmt::Nop, leafy()]);
    let s = Stmt::Many(vec![Box::new(Stmt::Nop), Box::new(leafy())], 7);
    assert_eq!(children(&s), vec![Stmt::Nop, leafy()]);
    assert_eq!(children(&Stmt::Opt(None)), vec![]);
    assert_eq!(
        children(&Stmt::Opt(Some(vec![Stmt::Nop, Stmt::Nop]))).len(),
        2
    );
    assert_eq!(children(&Stmt::Nop), vec![]);
    assert_eq!(leafy().child_count(), 1);
    assert_eq!(leafy().child(0), Some(&Stmt::Nop));
    assert_eq!(leafy().child(1), None);
}

#[test]
fn skip_attribute() {
    let s = Stmt::Skipped(Box::new(Stmt::Nop), Box::new(leafy()));
    assert_eq!(children(&s), vec![leafy()]);
    let mapped = s.map_children(&mut |_| Stmt::Block(vec![]));
    assert_eq!(
        mapped,
        Stmt::Skipped(Box::new(Stmt::Nop), Box::new(Stmt::Block(vec![])))
    );
}

#[test]
fn map_children_rebuilds_each_child_once_and_keeps_other_fields() {
    let s = Stmt::If {
        cond: "c".into(),
        then: Box::new(Stmt::Nop),
        els: Some(Box::new(Stmt::Nop)),
    };
    let mut calls = 0;
    let out = s.map_children(&mut |c| {
        calls += 1;
        Stmt::Block(vec![c])
    });
    assert_eq!(calls, 2);
    assert_eq!(
        out,
        Stmt::If {
            cond: "c".into(),
            then: Box::new(leafy()),
            els: Some(Box::new(leafy())),
        }
    );
    let m = Stmt::Many(vec![Box::new(Stmt::Nop)], 7).map_children(&mut |_| leafy());
    assert_eq!(m, Stmt::Many(vec![Box::new(leafy())], 7));
}

#[test]
fn structs_tuple_structs_generics_units() {
    let n = Node {
        label: "root",
        kids: vec![
            Node {
                label: "a",
                kids: vec![],
                extra: None,
            },
            Node {
                label: "b",
                kids: vec![],
                extra: None,
            },
        ],
        extra: Some(Box::new(Node {
            label: "e",
            kids: vec![],
            extra: None,
        })),
    };
    assert_eq!(node_count(&n), 4);
    let labels: Vec<_> = children(&n).iter().map(|k| k.label).collect();
    assert_eq!(labels, ["a", "b", "e"]);
    let up = n.transform_up(&mut |mut k| {
        if k.kids.is_empty() {
            k.label = "leaf";
        }
        k
    });
    assert_eq!(up.kids[0].label, "leaf");
    assert_eq!(up.extra.as_ref().map(|e| e.label), Some("leaf"));
    assert_eq!(up.label, "root");

    let g = Generic::Two(Box::new(Generic::Leaf(1)), Box::new(Generic::Leaf(2)));
    let g = g.transform_down(&mut |x| match x {
        Generic::Leaf(v) => Generic::Leaf(v * 10),
        other => other,
    });
    assert_eq!(
        g,
        Generic::Two(Box::new(Generic::Leaf(10)), Box::new(Generic::Leaf(20)))
    );

    let mut count = 0;
    UnitStruct.for_each_child(&mut |_| count += 1);
    assert_eq!(count, 0);
    assert_eq!(UnitStruct.map_children(&mut |x| x), UnitStruct);

    let pair = Pair(
        1,
        Some(Box::new(Pair(2, None, vec![]))),
        vec![Pair(3, None, vec![])],
    );
    let firsts: Vec<u8> = children(&pair).iter().map(|c| c.0).collect();
    assert_eq!(firsts, [2, 3]);
}
