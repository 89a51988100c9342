// As with record values, a map value cannot stand directly as an `if`
// condition: `{` there opens the block. Parenthesize it.
tree Leaf {
    m: {str: i64};
    b: bool;
    traversal f() {
        if self.m == {} { self.b = true; }
        if self.m == ({}) { self.b = true; }
    }
}
