// B011 (flake8-bugbear assert-false): `assert False`.
//
// As ruff's `assert_false`: the test of an `assert` statement is the
// literal `False` (not `0`, not `not True`). Reported at the literal
// (inside any parentheses).
global B011: [Diag] = [];

impl Node { traversal b011() walk; }
impl Assert {
    traversal b011() {
        if self.test is BooleanLiteral && !(self.test as BooleanLiteral).value {
            B011 = append(B011, Diag { start: self.test.start,
                message: "Do not `assert False` (`python -O` removes these calls), raise `AssertionError()`" });
        }
        walk;
    }
}
