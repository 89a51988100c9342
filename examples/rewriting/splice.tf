// A list of n items where every `Drop` deletes itself and every `Dup`
// replaces itself by two nodes: the loop over the list runs in
// O(n + inserted), not O(n^2) (see `cargo run --release -p treefuse
// --example splice_bench`).
abstract tree Item {
    traversal clean() {}
}
tree Keep : Item {
    v: i64;
    traversal clean() { self.v = self.v + 1; }
}
tree Drop : Item {
    traversal clean() { self = []; }
}
tree Dup : Item {
    v: i64;
    traversal clean() { self = [new Keep { v: self.v }, new Keep { v: 0 - self.v }]; }
}
tree List {
    child items: [Item];
    kept: i64;
    traversal clean() {
        for x in self.items { x.clean(); }
        self.kept = len(self.items);
    }
}
fuse main(root: List) { root.clean(); }
