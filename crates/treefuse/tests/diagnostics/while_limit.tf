// A `while` loop in a fuse item needs `limit N` with N >= 1.
global changed: bool = true;
tree Leaf {
    traversal f() { changed = false; }
}
fuse run(root: Leaf) {
    while changed {
        root.f();
    }
    while changed limit 0 {
        root.f();
    }
}
