// LANGUAGE.md §7.2 list edits and §7.3 copies: `copy`, `push`, `L[i] = ..`,
// `L = [.., ..L, ..]`, `len`, indexed paths.
abstract tree N { traversal go() {} }
tree Item : N { v: i64; }
tree Box : N {
    child items: [N];
    child first: N;
    total: i64;
    traversal go() {
        self.first = copy(self.items[0]);
        (self.first as Item).v = 100;
        self.items.push(new Item { v: len(self.items) });
        self.items[1] = copy(self.items[2]);
        self.items = [new Item { v: -1 }, ..self.items, copy(self.first)];
        let t: i64 = 0;
        for i in 0..len(self.items) {
            t = t + (self.items[i] as Item).v;
        }
        self.total = t;
    }
}
fuse main(root: Box) { root.go(); }
