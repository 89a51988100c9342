// A list value cannot both keep `self` and spread a list below it.
abstract tree Stmt { traversal flat() {} }
tree Block : Stmt {
    child stmts: [Stmt];
    traversal flat() { self = [self, ..self.stmts]; }
}
