// Assigned values have the type of the place.
tree Leaf {
    n: i64;
    x: f64;
    s: str;
    traversal f() {
        self.n = 1.5;
        self.x = self.n;
        self.s = 3;
    }
}
