// `copy` takes a tree path.
tree Leaf {
    v: i64;
    child next: Leaf;
    traversal f() { self.next = copy(self.v); }
}
