// E712: comparison to `True` or `False` with `==` or `!=`.
global E712: {i64: i64} = {};

impl Node { traversal e712() walk; }
impl Compare {
    traversal e712() {
        if (self.op == CmpOp::Eq || self.op == CmpOp::NotEq)
            && (self.right is BoolLit || self.left is BoolLit) {
            E712[self.line * 1000 + self.col] = 1;
        }
        walk;
    }
}
