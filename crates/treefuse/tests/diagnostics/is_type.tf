// `is` tests the type of a node, not of data.
tree Leaf {
    n: i64;
    b: bool;
    traversal f() { self.b = self.n is Leaf; }
}
