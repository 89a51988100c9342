// F631 (pyflakes assert-tuple): `assert (x, "message")`.
//
// As ruff's `assert_tuple`: the test of an `assert` statement is a
// non-empty tuple (always true). Reported at the `assert` statement.
global F631: [Diag] = [];

impl Node { traversal f631() walk; }
impl Assert {
    traversal f631() {
        if self.test is Tuple && len((self.test as Tuple).elts) > 0 {
            F631 = append(F631, Diag { start: self.start,
                message: "Assert test is a non-empty tuple, which is always `True`" });
        }
        walk;
    }
}
