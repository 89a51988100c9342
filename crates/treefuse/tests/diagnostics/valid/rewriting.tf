// Every rewriting construct of LANGUAGE.md §7.1–7.3 in a valid program.
abstract tree Stmt {
    traversal clean() {}
}
tree Nop : Stmt { traversal clean() { self = []; } }
tree Wrap : Stmt {
    child inner: Stmt;
    traversal clean() {
        if in_list() { self = [copy(self.inner), self]; } else { self = self.inner; }
    }
}
tree Neg : Stmt { child e: Stmt; }
tree Block : Stmt {
    child stmts: [Stmt];
    child side: Stmt;
    n: i64;
    traversal clean() {
        for s in self.stmts { s.clean(); s.clean(); }
        self.n = len(self.stmts);
        if self.n > 0 && self.stmts[0] is Wrap {
            let w = (self.stmts[0] as Wrap).inner;
            self.stmts[0] = (self.stmts[0] as Wrap).inner;
        }
        self.stmts.push(new Nop {});
        self.stmts.push(copy(self.side));
        self.stmts = [new Nop {}, ..self.stmts];
        self.side = copy(self.stmts[0]);
        if in_list() { self = [new Nop {}, ..self.stmts]; }
        if self.n == 3 { self = new Neg { e: self }; }
    }
}
fuse main(root: Stmt) { root.clean(); }
