// A child slot takes a `new` subtree or a moved descendant.
tree Node {
    child next: Node;
    n: i64;
    traversal f() {
        self.next = 3;
        self.next = self.n;
    }
}
