// `is none` tests an optional child, not a plain child or a data value.
global G: i64 = 0;
tree Node {
    child next: Node;
    n: i64;
    traversal f() {
        if self.next is none { G = 1; }
        if self.n is none { G = 2; }
    }
}
