// LANGUAGE.md §7.2: deleting (`self = []`), inserting before
// (`self = [new Let {..}, self]`), splicing a block's statements in its
// place (`self = self.stmts`), later calls on the loop variable running on
// every node that now stands where the element stood, `in_list()`, `len`.
global visited: i64 = 0;
abstract tree Stmt {
    traversal clean() {}
    traversal mark() { visited = visited + 1; }
}
tree Nop : Stmt {
    traversal clean() { self = []; }
}
tree Print : Stmt {
    v: i64;
    traversal clean() {
        if self.v < 0 { self = [new Let { v: 0 - self.v }, self]; }
    }
    traversal mark() { visited = visited + 1; self.v = self.v * 10; }
}
tree Let : Stmt { v: i64; }
tree Block : Stmt {
    child stmts: [Stmt];
    n: i64;
    in_l: bool;
    traversal clean() {
        self.in_l = in_list();
        for s in self.stmts {
            s.clean();
            s.mark();
        }
        self.n = len(self.stmts);
        if in_list() { self = self.stmts; }
    }
}
tree Prog {
    child body: Block;
    count: i64;
    traversal clean() {
        self.body.clean();
        self.count = len(self.body.stmts);
    }
}
fuse main(root: Prog) { root.clean(); }
