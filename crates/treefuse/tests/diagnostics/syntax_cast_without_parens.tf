// A cast is written in parentheses.
abstract tree E { n: i64; }
tree A : E {}
tree H {
    child e: E;
    n: i64;
    traversal f() { self.n = self.e as A.n; }
}
