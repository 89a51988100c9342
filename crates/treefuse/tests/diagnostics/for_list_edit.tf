// A list cannot be edited inside a `for` over it.
abstract tree Stmt { traversal add() {} }
tree Nop : Stmt {}
tree Block : Stmt {
    child stmts: [Stmt];
    traversal add() {
        for s in self.stmts { self.stmts.push(new Nop {}); }
    }
}
