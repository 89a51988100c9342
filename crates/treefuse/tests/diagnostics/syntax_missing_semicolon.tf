// A missing `;` after a statement.
tree Leaf {
    n: i64;
    traversal f() {
        self.n = 1
        self.n = 2;
    }
}
