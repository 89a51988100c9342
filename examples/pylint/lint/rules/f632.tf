// F632 (pyflakes is-literal): `is` / `is not` against a literal.
//
// As ruff's `invalid_literal_comparison`: each pair `a op b` of a
// comparison chain whose operator is `is` or `is not` and where `a` or `b`
// is a non-singleton constant (a string, bytes or number literal, or a
// tuple of literals; not None/True/False/...) or a mutable container
// display (`[...]`, `{...}`, `{...: ...}` and their comprehensions).
// One diagnostic per such pair, all at the start of the comparison.
global F632: [Diag] = [];

// A non-singleton constant or a mutable container display.
pure fn f632_bad(e: Expr) -> bool =
    is_constant_non_singleton(e)
        || e is Set || e is SetComp || e is List || e is ListComp || e is Dict || e is DictComp;

impl Node { traversal f632() walk; }
impl Compare {
    traversal f632() {
        for i in 0..len(self.ops) {
            let op = self.ops[i];
            if op == CmpOperator::Is || op == CmpOperator::IsNot {
                let left_bad = if i == 0 { f632_bad(self.left) } else { f632_bad(self.comparators[i - 1]) };
                if left_bad || f632_bad(self.comparators[i]) {
                    F632 = append(F632, Diag { start: self.start, message:
                        if op == CmpOperator::Is { "Use `==` to compare constant literals" }
                        else { "Use `!=` to compare constant literals" } });
                }
            }
        }
        walk;
    }
}
