// Built-ins accept only their documented argument types.
tree Leaf {
    n: i64;
    x: f64;
    traversal f() {
        self.n = to_i64(self.n);
        self.x = sqrt(self.n);
        self.n = len(self.n);
        self.n = min(1, 2.0);
    }
}
