// Names must be declared.
tree Leaf {
    n: i64;
    traversal f() {
        self.n = x + 1;
        y = 2;
        if true { let z = 1; }
        self.n = z;
    }
}
