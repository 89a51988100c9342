// A traversal is called on a node, not on data or a list.
record R { n: i64 }
tree Leaf {
    r: R;
    child xs: [Leaf];
    traversal f() {
        self.r.f();
        self.xs.f();
    }
}
