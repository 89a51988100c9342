// Functions must be declared pure functions or built-ins.
tree Leaf {
    n: i64;
    traversal f() { self.n = hash(self.n); }
}
