// Found by fuzz-fusion (program seed 1000710), minimized by hand.
// P.f runs a loop of calls over its list child, then a second loop over
// the same list that returns at its first element. Unfused, the first
// loop visits every element before the second loop returns; fused, the
// two loops were merged into one per-element schedule, so the `return`
// of the second loop ended the traversal after the first element and
// the remaining elements were never visited (kids[1].y stays 1).
abstract tree A {
    y: i64;
    traversal f();
}
tree L : A {
    traversal f() {
        self.y = 0;
    }
}
tree P : A {
    child kids: [A];
    traversal f() {
        for x in self.kids {
            x.f();
        }
        for x in self.kids {
            return;
        }
    }
}
fuse main(root: A) {
    root.f();
}
