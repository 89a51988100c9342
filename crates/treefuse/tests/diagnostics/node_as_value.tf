// A tree node is not a data value.
tree Node {
    child next: Node;
    n: i64;
    traversal f() {
        self.n = self.next;
        self.n = self;
    }
}
