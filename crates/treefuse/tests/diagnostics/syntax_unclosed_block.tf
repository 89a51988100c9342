// A block that is never closed.
tree Leaf {
    n: i64;
    traversal f() {
        self.n = 1;
