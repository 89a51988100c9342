// A tree type named `C`, the name generated functions give their
// visit-counting const parameter: the generator picks another (`C_`).
record R { v: i64 }
tree C {
    v: i64;
    child kids: [C];
    traversal inc() { for k in self.kids { k.inc(); } self.v = self.v + 1; }
    traversal sum() { for k in self.kids { k.sum(); TOTAL = TOTAL + k.v; } }
}
global TOTAL: i64 = 0;
fuse go(root: C) { root.inc(); root.sum(); }
