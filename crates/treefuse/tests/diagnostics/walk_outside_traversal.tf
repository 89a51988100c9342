// walk-outside-traversal: `walk` is a statement of traversal bodies only.
tree Leaf { traversal walk() {} }
pure fn twice(x: i64) -> i64 {
    walk;
    return x * 2;
}
fuse go(root: Leaf) { walk; }
