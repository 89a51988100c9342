// Parameter names must be distinct.
pure fn f(x: i64, x: i64) -> i64 = x;
tree Leaf {
    traversal g(a: i64, a: bool) {}
}
fuse h(root: Leaf, n: i64, n: i64) {}
fuse k(root: Leaf, root: i64) {}
