// LANGUAGE.md §8.5: `L.remove(i)` needs 0 <= i < len(L).
abstract tree N { traversal go() {} }
tree Item : N { v: i64; }
tree Box : N {
    child items: [N];
    traversal go() {
        self.items.remove(0);
        self.items.remove(len(self.items));
    }
}
fuse main(root: Box) { root.go(); }
