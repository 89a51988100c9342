// Two checks that each count problems into the same global. `ERRORS` is
// only ever updated as `ERRORS = ERRORS + 1`, so the updates commute: the
// two loops over `items` run as one, one visit per node.
global ERRORS: i64 = 0;

tree Prog {
    child items: [Item];
    traversal check_a() { for i in self.items { i.check_a(); } }
    traversal check_b() { for i in self.items { i.check_b(); } }
}

tree Item {
    v: i64;
    traversal check_a() { if self.v < 0 { ERRORS = ERRORS + 1; } }
    traversal check_b() { if self.v > 100 { ERRORS = ERRORS + 1; } }
}

fuse check(root: Prog) { root.check_a(); root.check_b(); }
