// Only locals, globals, fields and array elements are assigned.
tree Node {
    child next: Node;
    n: i64;
    traversal f() {
        1 = 2;
        self.next[0] = 1;
        (self.n + 1) = 2;
    }
}
