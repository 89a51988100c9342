// duplicate-name: two bodies of one traversal for one type, one of them in
// an `impl` block.
tree Leaf {
    n: i64;
    traversal bump() { self.n = self.n + 1; }
}
impl Leaf {
    traversal bump() { self.n = self.n + 2; }
}
