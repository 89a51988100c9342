// Comparison operators do not chain, as in Rust.
tree Leaf {
    b: bool;
    n: i64;
    traversal f() { self.b = 1 < self.n < 3; }
}
