// `limit` after a `while` condition must be followed by the limit.
tree Leaf {
    n: i64;
    traversal f() {
        while self.n < 3 limit {
            self.n = self.n + 1;
        }
    }
}
fuse run(root: Leaf) { root.f(); }
