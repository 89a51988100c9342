// A move out of another element of the same list is not below the
// replaced element.
abstract tree Stmt { traversal f() {} }
tree Wrap : Stmt { child inner: Stmt; }
tree Block : Stmt {
    child stmts: [Stmt];
    traversal f() { self.stmts[0] = (self.stmts[1] as Wrap).inner; }
}
