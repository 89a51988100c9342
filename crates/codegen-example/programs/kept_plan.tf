// Two parallel loops over the same items, the first creating a node in
// every item (so the second splits on the first's plan, kept and grown),
// with `mix` in between: a copy of one item's leaf into another's, which
// leaves that leaf outside its item's ids in the kept plan. A run must
// check the plan again after `mix` (`tests/parallel.rs`); trusting it
// would hand the worker of item 2 a node of no chunk to write. The leaf
// type's name starts with `_` (its generated accessor names must still be
// snake case: `data_mut_leaf`, not `data_mut__leaf`).
global MIX: bool = false;

tree Root {
    child items: [Item];
}

tree Item {
    v: i64;
    child kid: _Leaf;
}

tree _Leaf {
    w: i64;
}

impl Root {
    traversal first() { for x in self.items { x.grow(); } }
    traversal mix() {
        if MIX { self.items[2].kid = copy(self.items[0].kid); }
    }
    traversal second() { for x in self.items { x.bump(); } }
}

impl Item {
    traversal grow() { self.kid = new _Leaf { w: self.v + self.kid.w }; }
    traversal bump() { self.kid.w = self.kid.w * 2 + 1; }
}

fuse run(root: Root) {
    root.first();
    root.mix();
    root.second();
}
