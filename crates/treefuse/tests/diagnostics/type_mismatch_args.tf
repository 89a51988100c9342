// Arguments have the parameter types.
pure fn g(x: f64) -> f64 = x;
tree Leaf {
    x: f64;
    traversal f(b: bool) {
        self.f(1);
        self.x = g(1);
    }
}
