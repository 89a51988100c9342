// A node parameter takes a tree path of its type (or a subtype); a data
// parameter takes a value.
abstract tree E {}
tree Num : E { v: i64; }
tree Blk : E { child items: [E]; child first: E; }
pure fn val(n: Num) -> i64 = n.v;
pure fn both(e: E, k: i64) -> i64 = k;
tree Root {
    child b: Blk;
    r: i64;
    traversal f() {
        self.r = val(self.b.first);
        self.r = val(3);
        self.r = both(self.b.items, 1);
        self.r = both(self.b, self.b);
    }
}
