// LANGUAGE.md §8.5: `L.insert(i, ..)` needs 0 <= i <= len(L).
abstract tree N { traversal go() {} }
tree Item : N { v: i64; }
tree Box : N {
    child items: [N];
    traversal go() {
        self.items.insert(len(self.items), new Item { v: 1 });
        self.items.insert(len(self.items) + 1, new Item { v: 2 });
    }
}
fuse main(root: Box) { root.go(); }
