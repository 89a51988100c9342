// Type names that generated names could collide with (identifiers named
// like generated ones are in `names.tf`): a hierarchy root
// named `Root` (its arena would be `Tree::root`, the root's own field), a
// type named `Tree` (the generated tree struct), one named `Node`
// (whose hierarchy's types must not be called `NodeNode`) and one named
// `NODESLOTS` (whose constructor, a method of `NodeSlots`, must not be
// called `nodeslots`: clippy's `self_named_constructors`).

tree Root {
    child top: Node;
    total: i64 = 0;
    traversal sum() {
        self.top.sum();
        self.total = self.top.size;
    }
}

abstract tree Node {
    size: i64 = 1;
    traversal sum() {}
}

tree Tree : Node {
    child left: Node;
    child right: Node;
    traversal sum() {
        self.left.sum();
        self.right.sum();
        self.size = self.left.size + self.right.size + 1;
    }
}

tree Leaf : Node {}

tree NODESLOTS : Node {}

fuse count(root: Root) {
    root.sum();
}
