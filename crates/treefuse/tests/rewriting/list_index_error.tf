// LANGUAGE.md §7.2: an index out of range is a runtime error.
abstract tree N { traversal go() {} }
tree Item : N { v: i64; }
tree Box : N {
    child items: [N];
    traversal go() { self.items[3] = new Item { v: 0 }; }
}
fuse main(root: Box) { root.go(); }
