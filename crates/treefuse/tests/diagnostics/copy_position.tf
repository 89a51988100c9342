// `copy(PATH)` is a subtree, not a data value.
tree Leaf {
    v: i64;
    child next: Leaf;
    traversal f() { self.v = copy(self.next); }
}
