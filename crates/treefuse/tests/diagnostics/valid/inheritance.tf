// Single inheritance: subtypes inherit fields and traversals, override
// traversals with the same parameter list, and deeper chains dispatch.
abstract tree Node {
    id: i64;
    traversal visit(depth: i64) { self.id = depth; }
    traversal other() {}
}

tree Leaf : Node {}

tree Inner : Node {
    child left: Node;
    child right: Node;
    traversal visit(depth: i64) {
        self.id = depth;
        self.left.visit(depth + 1);
        self.right.visit(depth + 1);
    }
}

tree SpecialInner : Inner {
    extra: bool;
    traversal visit(d: i64) {
        self.extra = d > 2;
        self.left.visit(d + 2);
    }
    traversal only_here() { self.extra = !self.extra; }
    traversal other() { self.only_here(); }
}

// Declared before its base: order of items does not matter.
tree Deeper : SpecialInner {}

fuse number(root: Node) { root.visit(0); root.other(); }
