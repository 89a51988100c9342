// Optional children (LANGUAGE §8.7), and `none` as an ordinary name
// wherever it is not the value of an optional child.
global none: i64 = 0;
tree Leaf { v: i64; }
abstract tree Expr {
    traversal f(k: i64) {}
}
tree Num : Expr { v: i64; }
tree Ret : Expr {
    child value: Expr?;
    child other: Leaf?;
    child next: Expr;
    traversal f(k: i64) {
        let none: i64 = k + 1;
        if self.value is none { self.value = new Num { v: none }; }
        if !(self.value is none) && self.value is Num { self.other = none; }
        self.value.f(none);
        if self.value is Ret { self.value = (self.value as Ret).value; }
        self.next = new Ret { value: none, next: new Num { v: 1 } };
        self.next.f(k);
    }
}
tree none { none: i64; }
tree Holder {
    child n: none;
    child m: none?;
    traversal g() {
        if self.n is none { self.n.none = 1; }
        if self.m is none { self.m = new none { none: 2 }; }
    }
}
fuse run(root: Expr) { root.f(none); }
