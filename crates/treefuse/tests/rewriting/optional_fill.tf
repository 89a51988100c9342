// LANGUAGE.md §8.7: `= none` empties an optional child (a call on it then
// visits nothing), `= new ..` fills it (a call on it then visits the new
// node), `copy` copies one out of a full optional child, and `new` may
// wrap a slot's old subtree in a node whose optional child it leaves
// empty.
global LOG: i64 = 0;
abstract tree T {
    traversal mark(x: i64);
    traversal edit();
}
tree Leaf : T {
    v: i64;
    traversal mark(x: i64) {
        self.v = self.v + x;
        LOG = LOG * 10 + self.v;
    }
    traversal edit() {}
}
tree Box : T {
    child a: T?;
    child b: T?;
    child c: T;
    traversal mark(x: i64) {
        self.a.mark(x);
        self.b.mark(x + 1);
        self.c.mark(x + 2);
    }
    traversal edit() {
        self.c.edit();
        self.a = none;
        self.a.mark(100);
        self.b = new Leaf { v: 5 };
        self.b.mark(1);
        if self.c is Box {
            self.a = copy((self.c as Box).b);
            self.c = new Box { a: self.c, c: new Leaf { v: 7 } };
        }
    }
}
fuse main(root: T) {
    root.edit();
    root.mark(0);
}
