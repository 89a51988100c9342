// The loop-fusion `return` bug without any traversing call (derived by
// hand from fuzz-fusion findings): P.f writes a field of every element in
// one loop, then returns from a second loop over the same list. Unfused,
// every element is written; fused, the merged per-element loop returns
// after the first element (kids[1].y keeps its old value).
abstract tree A {
    y: i64;
    traversal f();
}
tree L : A {
    traversal f() {}
}
tree P : A {
    child kids: [A];
    traversal f() {
        for x in self.kids {
            x.y = 0;
        }
        for x in self.kids {
            return;
        }
    }
}
fuse main(root: A) {
    root.f();
}
