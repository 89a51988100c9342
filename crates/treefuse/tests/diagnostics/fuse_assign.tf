// A fuse item assigns whole globals only, with values of their type.
global changed: bool = true;
record P { x: i64 }
global p: P = P { x: 1 };
tree Leaf {
    traversal f(k: i64) { changed = false; }
}
fuse run(root: Leaf, k: i64) {
    k = 2;
    p.x = 3;
    changed = 1;
    root.f(k);
}
