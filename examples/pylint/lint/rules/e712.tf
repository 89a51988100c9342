// E712 (pycodestyle true-false-comparison): `== True`, `!= False`, ...
//
// As ruff's `literal_comparisons`: the left operand is checked first
// (flagged when it is `True`/`False`, the first operator is `==`/`!=` and
// the first comparator is not a non-singleton constant), then each pair
// `a op b` of the chain: unless `a` is a non-singleton constant, `b` being
// `True`/`False` is flagged (but not `True == True`: `==` between two equal
// boolean literals; `!=` is flagged). The diagnostic points at the whole
// comparison. For a single comparison the message quotes the other
// operand's source; for a chain it is the generic message. A chain may
// report the same message twice, as ruff does.
global E712: [Diag] = [];

pure fn e712_message(value: bool, op: CmpOperator, single: bool, other: Expr) -> str {
    if !single { return "Avoid equality comparisons to `True` or `False`"; }
    let cond = source_snippet(other.start, other.end);
    let eq = op == CmpOperator::Eq;
    if value && eq { return "Avoid equality comparisons to `True`; use `" + cond + ":` for truth checks"; }
    if value { return "Avoid inequality comparisons to `True`; use `not " + cond + ":` for false checks"; }
    if eq { return "Avoid equality comparisons to `False`; use `not " + cond + ":` for false checks"; }
    return "Avoid inequality comparisons to `False`; use `" + cond + ":` for truth checks";
}

// Whether the pair `prev op cur` of a chain compares to `True`/`False`.
pure fn e712_pair(prev: Expr, op: CmpOperator, cur: Expr) -> bool =
    !is_constant_non_singleton(prev) && is_equality(op) && cur is BooleanLiteral
        && !(op == CmpOperator::Eq && prev is BooleanLiteral
             && (prev as BooleanLiteral).value == (cur as BooleanLiteral).value);

impl Node { traversal e712() walk; }
impl Compare {
    traversal e712() {
        let single = len(self.ops) == 1;
        let op0 = self.ops[0];
        if is_equality(op0) && self.left is BooleanLiteral
            && !is_constant_non_singleton(self.comparators[0]) {
            E712 = append(E712, Diag { start: self.start, message: e712_message(
                (self.left as BooleanLiteral).value, op0, single, self.comparators[0]) });
        }
        for i in 0..len(self.ops) {
            let op = self.ops[i];
            let flagged = if i == 0 { e712_pair(self.left, op, self.comparators[0]) }
                else { e712_pair(self.comparators[i - 1], op, self.comparators[i]) };
            if flagged {
                // ruff quotes the left operand, whichever pair it is.
                E712 = append(E712, Diag { start: self.start, message: e712_message(
                    (self.comparators[i] as BooleanLiteral).value, op, single, self.left) });
            }
        }
        walk;
    }
}
