// A traversing call returns nothing and cannot be used as a value.
tree Leaf {
    n: i64;
    traversal f() {
        self.n = self.g() + 1;
    }
    traversal g() {}
}
