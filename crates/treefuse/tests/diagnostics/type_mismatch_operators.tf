// Operators need operands of matching types.
tree Leaf {
    n: i64;
    x: f64;
    b: bool;
    s: str;
    traversal f() {
        self.x = self.x + self.n;
        self.b = self.b + self.b;
        self.b = -self.b;
        self.n = !self.x;
        self.b = self.s < self.n;
        self.n = self.n & self.b;
        self.n = self.x << 2;
        self.s = self.s - self.s;
        self.b = self.n && self.b;
    }
}
