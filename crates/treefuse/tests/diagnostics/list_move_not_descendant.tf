// `push` replaces no slot, so it cannot move a subtree (copy it instead).
abstract tree Stmt { traversal f() {} }
tree Nop : Stmt {}
tree Block : Stmt {
    child stmts: [Stmt];
    child extra: Stmt;
    traversal f() { self.stmts.push(self.extra); }
}
