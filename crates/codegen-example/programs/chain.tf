// A linked chain of items, as the faithful case studies link their lists:
// `Inner { item, next }` nodes ending in an `End { item }`. The fused
// function on `Inner` calls `item` and `next`, which the fuser finds
// independent, so the parallel entry point runs the chain's items in
// parallel (`plan_chain`). Each item adds to a counter and sets a flag
// (both reduced per worker), creates a node, and fails when `d == 0`
// (division by zero): the first failure in chain order is the error. An
// item's optional `side` chain is bumped through it: in a tree that is its
// own; the tests point one at a node of the main chain through the arenas,
// which must keep the chain from splitting (the run reads the chain's links
// before its items run).
global TOTAL: i64 = 0;
global BIG: bool = false;

tree Root {
    child list: Link;
}

abstract tree Link {
    child item: Item;
    traversal go(k: i64, m: i64);
    traversal bump();
}

tree Inner : Link {
    child next: Link;
    traversal go(k: i64, m: i64) {
        self.item.go(k, m);
        self.next.go(k, m);
    }
    traversal bump() { self.item.v = self.item.v + 1; }
}

tree End : Link {
    traversal go(k: i64, m: i64) { self.item.go(k, m); }
    traversal bump() { self.item.v = self.item.v + 1; }
}

tree Item {
    v: i64;
    d: i64;
    out: i64;
    child kid: Leaf;
    child kids: [Item];
    child side: Link?;
}

tree Leaf {
    w: i64;
}

impl Root {
    traversal go() { self.list.go(3, 7); }
}

impl Item {
    traversal go(k: i64, m: i64) {
        TOTAL = TOTAL + self.v;
        BIG = BIG || self.v > 40;
        self.out = k * self.v / self.d + m;
        self.kid = new Leaf { w: self.kid.w + self.out };
        for x in self.kids { x.go(k, m); }
        self.side.bump();
    }
}

fuse run(root: Root) { root.go(); }
