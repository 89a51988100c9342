// Pure functions cannot refer to tree nodes.
pure fn f(x: i64) -> i64 {
    let n = self.next;
    return self.n;
}
