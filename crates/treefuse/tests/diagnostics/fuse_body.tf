// A fuse item only calls traversals on its root.
tree Leaf {
    n: i64;
    child next: Leaf;
    traversal f() {}
}
fuse run(root: Leaf) {
    root.f();
    let x = 1;
    root.next.f();
    other.f();
    if true { root.f(); }
}
