// E711 (pycodestyle none-comparison): `== None` / `!= None`.
//
// As ruff's `literal_comparisons`: the left operand is checked first
// (flagged when it is `None`, the first operator is `==`/`!=` and the first
// comparator is not a non-singleton constant), then each pair `a op b` of
// the chain: unless `a` is a non-singleton constant, `b` being `None` is
// flagged. The diagnostic points at the `None` literal; the message
// depends on the operator.
global E711: [Diag] = [];

pure fn e711_message(op: CmpOperator) -> str =
    if op == CmpOperator::Eq { "Comparison to `None` should be `cond is None`" }
    else { "Comparison to `None` should be `cond is not None`" };

impl Node { traversal e711() walk; }
impl Compare {
    traversal e711() {
        let op0 = self.ops[0];
        if is_equality(op0) && self.left is NoneLiteral
            && !is_constant_non_singleton(self.comparators[0]) {
            E711 = append(E711, Diag { start: self.left.start, message: e711_message(op0) });
        }
        for i in 0..len(self.ops) {
            let op = self.ops[i];
            let skip = if i == 0 { is_constant_non_singleton(self.left) }
                else { is_constant_non_singleton(self.comparators[i - 1]) };
            if !skip && is_equality(op) && self.comparators[i] is NoneLiteral {
                E711 = append(E711, Diag { start: self.comparators[i].start, message: e711_message(op) });
            }
        }
        walk;
    }
}
