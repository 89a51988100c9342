// Only arrays are indexed, with `i64`.
tree Leaf {
    n: i64;
    xs: [i64];
    traversal f() {
        self.n = self.n[0];
        self.n = self.xs[true];
        self.n[0] = 1;
    }
}
