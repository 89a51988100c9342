// LANGUAGE.md §7.1: a call on `self` whose traversal replaced the
// receiver ends the caller (`after` is not counted for `a`); the caller
// sees the new node (`self.a.count()` runs on `Num -5`); an alias keeps
// the detached node (`w` reads the old `Neg`'s operand); the root is
// replaced (`lift`), and later calls run on the new root.
global after: i64 = 0;
global seen: i64 = 0;
abstract tree E {
    traversal outer() {}
    traversal simp() {}
    traversal lift() {}
    traversal count() { seen = seen + 1; }
}
tree Num : E {
    v: i64;
    traversal count() { seen = seen + self.v; }
}
tree Neg : E {
    child e: E;
    traversal simp() {
        if self.e is Num { self = new Num { v: 0 - (self.e as Num).v }; }
    }
    traversal outer() {
        self.e.outer();
        self.simp();
        after = after + 1;
    }
    traversal lift() { self = self.e; }
}
tree Pair : E {
    child a: E;
    child b: E;
    w: i64;
    traversal outer() {
        let old = self.a;
        self.a.outer();
        self.a.count();
        self.w = ((old as Neg).e as Num).v;
    }
}
fuse main(root: E) { root.outer(); root.lift(); root.count(); }
