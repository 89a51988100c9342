// Every expression form: literals, paths, unary and binary operators with
// Rust precedence, short-circuit operators, pure calls and built-ins,
// array values and indexing, record values, `is`, `as`, `if` expressions.
global G: i64 = 7;
record P { a: i64, b: [f64] }
pure fn twice(x: i64) -> i64 = x * 2;

abstract tree T {
    i: i64;
    f: f64;
    b: bool;
    s: str;
    xs: [i64];
    p: P;
    traversal eval() {}
}

tree Leaf : T {}

tree Pair : T {
    child left: T;
    child right: T;
    traversal eval() {
        self.i = 1 + 2 * 3 - 4 / 2 % 3;
        self.i = -self.i - -1 + G;
        self.f = 2.5 * -self.f / 1.0e2 - 0.5 + 1e-3;
        self.b = !self.b && self.i < 3 || self.i >= 4 && self.i <= 5 || self.i != 6;
        self.b = self.i == 1 || (self.i > 2) == self.b;
        self.b = self.s == "x" && self.s != "y";
        self.b = !self.left is Leaf;
        self.b = self.right is Pair && (self.right as Pair).left is Leaf;
        self.i = len(self.s) + len(self.xs) + twice(self.xs[0]) + [1, 2, 3][G % 3];
        self.xs = [self.i, G, twice(2)];
        self.p = P { a: self.i, b: [self.f, to_f64(self.i)] };
        self.f = self.p.b[0] + self.left.f;
        self.i = (self.right as Pair).right.i + ((self.right as Pair).left as Pair).i;
        self.i = if self.b { 1 } else if self.i > 0 { 2 } else { 3 };
        self.s = if self.right is Leaf { "leaf" } else { "pair" };
        self.b = (self.i) == ((1));
        self.i = 9223372036854775807 + -9223372036854775808;
        self.b = self.left.b;
    }
}

fuse f(root: T) { root.eval(); }
