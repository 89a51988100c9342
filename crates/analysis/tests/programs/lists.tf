global count: i64 = 0;
abstract tree Stmt {
    x: i64;
    traversal f() {}
    traversal g(k: i64) {}
}
tree Leaf : Stmt {
    traversal f() { self.x = self.x + 1; }
    traversal g(k: i64) { count = count + k; }
}
tree Block : Stmt {
    child items: [Stmt];
    traversal f() {
        for s in self.items {
            s.f();
            s.x = 0;
        }
    }
    traversal g(k: i64) {
        for s in self.items { s.g(k + 1); }
        self.x = k;
    }
}
