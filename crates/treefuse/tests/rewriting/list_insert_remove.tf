// LANGUAGE.md §8.5 list edits: `L.insert(i, ..)` at the front, the end and
// in the middle (a `new` node and a `copy`), `L.remove(i)` at both ends
// and in the middle; the removed subtrees are dropped.
abstract tree N { traversal go() {} traversal mark() {} }
tree Item : N { v: i64; traversal mark() { self.v = self.v * 10; } }
tree Box : N {
    child items: [N];
    child keep: N;
    total: i64;
    traversal go() {
        self.items.insert(0, new Item { v: 5 });
        self.items.insert(len(self.items), new Item { v: 6 });
        self.items.insert(2, copy(self.keep));
        self.items.remove(0);
        self.items.remove(len(self.items) - 1);
        self.items.remove(2);
        for x in self.items { x.mark(); }
        let t: i64 = 0;
        for i in 0..len(self.items) {
            t = t + (self.items[i] as Item).v;
        }
        self.total = t;
    }
    traversal mark() { for x in self.items { x.mark(); } }
}
fuse main(root: Box) { root.go(); root.mark(); }
