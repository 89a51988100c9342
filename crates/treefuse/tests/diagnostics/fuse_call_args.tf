// Fuse calls pass well-typed arguments, constants or extra parameters.
tree Leaf { traversal f(n: i64, s: str) {} }
fuse run(root: Leaf, k: f64) {
    root.f(1);
    root.f(k, "x");
    root.f(1, "x", 2);
    root.f(root, "x");
}
