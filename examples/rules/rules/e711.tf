// E711: comparison to `None` with `==` or `!=` (use `is` / `is not`).
global E711: {i64: i64} = {};

impl Node { traversal e711() walk; }
impl Compare {
    traversal e711() {
        if (self.op == CmpOp::Eq || self.op == CmpOp::NotEq)
            && (self.right is NoneLit || self.left is NoneLit) {
            E711[self.line * 1000 + self.col] = 1;
        }
        walk;
    }
}
