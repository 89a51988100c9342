// `self` can only be replaced by a subtree, not by a data value.
tree Leaf {
    v: i64;
    traversal f() { self = self.v + 1; }
}
