// A tree type is not a record: nodes are built with `new`.
tree Leaf {
    n: i64;
    traversal f() { let x = Leaf { n: 1 }; }
}
