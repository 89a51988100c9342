// Patterns are literals, variants or `_`, of the scrutinee's type; a
// `match` works on `i64`, `str`, `bool` and enums.
enum Op { Add, Sub }
enum Color { Red }
tree Leaf {
    op: Op;
    n: i64;
    x: f64;
    traversal f() {
        self.n = match self.op { self.n => 1, _ => 2 };
        self.n = match self.op { Color::Red => 1, _ => 2 };
        self.n = match self.n { "a" => 1, _ => 2 };
        self.n = match self.x { _ => 2 };
        self.n = match self.n { 1 => 1, _ => true };
    }
}
