// An expression is not a statement; only traversing calls are.
tree Leaf {
    n: i64;
    traversal f() {
        self.n + 1;
    }
}
