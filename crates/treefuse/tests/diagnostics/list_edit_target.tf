// A list is edited only by the node that owns it.
abstract tree Stmt { traversal add() {} }
tree Nop : Stmt {}
tree Block : Stmt { child stmts: [Stmt]; }
tree Func : Stmt {
    child body: Block;
    traversal add() { self.body.stmts.push(new Nop {}); }
}
