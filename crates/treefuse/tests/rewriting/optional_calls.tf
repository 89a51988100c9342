// LANGUAGE.md §8.7: calls on optional children. A call on an empty one
// does nothing: no visit, and its arguments are not evaluated (`k /
// self.d` with `d == 0` under an empty `value`); `is T` on an empty one
// is false; `null` and a missing key read as empty, and empty ones are
// written as `null`.
global SUM: i64 = 0;
global EMPTIES: i64 = 0;
abstract tree Expr {
    traversal total(k: i64);
    traversal clear();
}
tree Num : Expr {
    v: i64;
    traversal total(k: i64) { SUM = SUM + self.v * k; }
    traversal clear() {}
}
tree Ret : Expr {
    d: i64 = 1;
    child value: Expr?;
    child next: Expr?;
    traversal total(k: i64) {
        if self.value is none { EMPTIES = EMPTIES + 1; }
        self.value.total(k / self.d);
        self.next.total(k + 1);
    }
    traversal clear() {
        if self.value is Num && (self.value as Num).v > 2 { self.value = none; }
        self.next.clear();
    }
}
fuse main(root: Expr) {
    root.total(1);
    root.clear();
    root.total(10);
}
