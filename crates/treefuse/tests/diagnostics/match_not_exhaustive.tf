// A `match` must cover every value: all variants (or `bool` values), or a
// final `_`; an `i64` or `str` match always needs the `_`.
enum Op { Add, Sub, Mul }
tree Leaf {
    op: Op;
    n: i64;
    traversal f() {
        self.n = match self.op { Op::Add => 1, Op::Sub => 2 };
        self.n = match self.n { 0 => 1, 1 => 2 };
        self.n = match self.n > 0 { true => 1 };
    }
}
