// A character that is not part of any token.
tree Leaf {
    n: i64;
    traversal f() { self.n = self.n # 2; }
}
