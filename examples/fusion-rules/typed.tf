// Type-guarded participation (docs/src/fusion.md): between `x.mark()` and
// `x.bump()` on the element, the `if x is Set` statement reads what `mark`
// wrote and `bump` changes, but only when the element is a `Set`.
global total: i64 = 0;

abstract tree Stmt {
    traversal mark() {}
    traversal bump() {}
}
tree Set : Stmt {
    v: i64;
    traversal mark() { self.v = self.v + 1; }
    traversal bump() { self.v = self.v * 10; }
}
tree Other : Stmt {
    w: i64;
    traversal mark() { self.w = self.w + 1; }
    traversal bump() { self.w = self.w * 10; }
}
tree Block : Stmt {
    child stmts: [Stmt];
    sum: i64;
    traversal mark() {
        for x in self.stmts {
            x.mark();
            if x is Set { self.sum = self.sum + 100 / (x as Set).v; }
        }
    }
    traversal bump() {
        for x in self.stmts { x.bump(); }
        total = total + self.sum;
    }
}

fuse go(root: Block) { root.mark(); root.bump(); }
