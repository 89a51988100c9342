// A traversing call returns nothing and cannot be bound with `let`.
tree Leaf {
    n: i64;
    traversal f() {
        let x = self.g();
    }
    traversal g() {}
}
