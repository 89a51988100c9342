// LANGUAGE.md §8.5: appends to one global array from two traversals (and
// the other array built-ins in place on a field and a local); fused runs
// keep the unfused order of the elements.
global LOG: [i64] = [];
abstract tree N { traversal a() {} traversal b() {} }
tree Leaf : N {
    v: i64;
    seen: [i64];
    traversal a() {
        LOG = append(LOG, self.v);
        self.seen = append(self.seen, len(LOG));
    }
    traversal b() {
        LOG = append(LOG, 100 + self.v);
        let xs: [i64] = [self.v];
        xs = concat(xs, [7, 8]);
        xs = insert_at(xs, 1, -1);
        xs = remove_at(xs, 2);
        xs = slice(xs, 0, 2);
        self.seen = concat(self.seen, xs);
    }
}
tree Pair : N {
    child l: N;
    child r: N;
    traversal a() { self.l.a(); self.r.a(); }
    traversal b() { self.l.b(); self.r.b(); }
}
fuse main(root: N) { root.a(); root.b(); }
