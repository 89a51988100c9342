// Conditions are `bool`; ranges are `i64`; `if` branches agree.
tree Leaf {
    n: i64;
    traversal f() {
        if self.n { return; }
        self.n = if self.n > 0 { 1 } else { 2.0 };
        self.n = if 1 { 1 } else { 2 };
        for i in 0..2.5 { self.n = i; }
    }
}
