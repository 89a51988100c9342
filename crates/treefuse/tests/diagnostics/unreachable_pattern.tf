// A pattern that earlier arms already cover is a warning (and is left
// out); this program is rejected for its other error.
enum Op { Add, Sub }
tree Leaf {
    op: Op;
    n: i64;
    traversal f() {
        self.n = match self.op { Op::Add => 1, Op::Sub | Op::Add => 2, _ => 3 };
        self.n = match self.n { 1 => 1, _ => 2, 3 => 4 };
        self.n = undefined_name;
    }
}
