// Traversals return nothing; pure functions return a value.
tree Leaf {
    traversal f() { return 1; }
}
pure fn g(x: i64) -> i64 {
    return;
}
