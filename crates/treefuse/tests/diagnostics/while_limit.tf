// A `while` loop needs `limit N` (LANGUAGE §7.7, §8.6).
global changed: bool = true;
tree Leaf {
    n: i64;
    traversal f() {
        changed = false;
        while self.n < 3 {
            self.n = self.n + 1;
        }
    }
}
fuse run(root: Leaf) {
    while changed {
        root.f();
    }
}
