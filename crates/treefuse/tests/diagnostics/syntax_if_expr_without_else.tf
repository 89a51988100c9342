// An `if` expression needs an `else`.
tree Leaf {
    n: i64;
    traversal f() { self.n = if self.n > 0 { 1 }; }
}
