// A write-first global in a parallel loop (`Parallelism::Parallel::private`):
// each item's traversal writes LAST before it reads it, so the loop over
// `items` runs in parallel with LAST private to each worker. Some items
// return before writing it (the last writer in list order gives the final
// value) and an item with `d == 0` fails before its write (the value at the
// error is the previous writer's, possibly in an earlier chunk).
global LAST: i64 = -1;
global SEEN: i64 = 0;

tree Root {
    child items: [Item];
}

tree Item {
    v: i64;
    d: i64;
    out: i64;
    child kids: [Item];
}

impl Root {
    traversal go() { for x in self.items { x.go(); } }
}

impl Item {
    traversal go() {
        SEEN = SEEN + 1;
        if self.v % 4 == 0 { return; }
        let q = 100 / self.d;
        LAST = self.v * 10 + q;
        self.out = LAST + 1;
        for k in self.kids { k.go(); }
        self.out = self.out + LAST;
    }
}

fuse run(root: Root) { root.go(); }
