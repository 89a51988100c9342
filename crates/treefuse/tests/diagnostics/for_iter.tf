// `for` iterates a list child, an array or a range.
tree Node {
    child next: Node;
    n: i64;
    traversal f() {
        for x in self.n { }
        for x in self.next { }
    }
}
