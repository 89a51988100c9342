// Calls pass exactly the declared parameters.
pure fn add(a: i64, b: i64) -> i64 = a + b;
tree Leaf {
    n: i64;
    traversal f(k: i64) {
        self.f();
        self.f(1, 2);
        self.n = add(1);
    }
}
