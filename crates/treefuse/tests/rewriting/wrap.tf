// LANGUAGE.md §7.1: wrapping the receiver, the caller seeing the new
// node, an alias keeping the detached node, a call on `self` whose
// traversal replaced the receiver ending the caller, the root replaced.
global seen: i64 = 0;
abstract tree E {
    traversal wrap() {}
    traversal drop() {}
    traversal count() { seen = seen + 1; }
}
tree Leaf : E {
    v: i64;
    traversal wrap() { if self.v > 0 { self = new Neg { e: self }; } }
    traversal drop() { self = new Leaf { v: 0 }; }
}
tree Neg : E {
    child e: E;
    traversal count() { seen = seen + 10; }
}
tree Pair : E {
    child a: E;
    child b: E;
    tag: i64;
    traversal wrap() {
        let ob = self.b;
        self.a.wrap();
        self.a.count();
        self.b.drop();
        (ob as Leaf).v = 99;
        self.tag = (ob as Leaf).v + (self.b as Leaf).v;
        self.relabel();
        self.tag = self.tag + 1000;
    }
    traversal relabel() { self = new Pair { a: self.a, b: self.b, tag: self.tag + 1 }; }
}
fuse main(root: Pair) {
    root.wrap();
    root.count();
}
