// Single children and lists of children, iterated with `for`; calls on
// `self`, on a child of `self` and on the loop variable.
abstract tree Stmt {
    traversal count() {}
    traversal reset(to: i64) {}
}

tree Block : Stmt {
    child stmts: [Stmt];
    child last: Stmt;
    n: i64;
    traversal count() {
        self.n = 0;
        for s in self.stmts {
            s.count();
            s.reset(1);
            self.n = self.n + 1;
            if s is Block {
                self.n = self.n + (s as Block).n;
            }
        }
        self.last.count();
        self.after();
    }
    traversal after() {}
}

tree Nop : Stmt {
    k: i64;
    traversal reset(to: i64) { self.k = to; }
}

fuse f(root: Block) { root.count(); }
