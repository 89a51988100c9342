// `new` initializes each field once.
tree Leaf { n: i64; }
tree Holder {
    child c: Leaf;
    traversal f() { self.c = new Leaf { n: 1, n: 2 }; }
}
