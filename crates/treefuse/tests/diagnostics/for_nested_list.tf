// A loop nested in a loop over the same list cannot call traversals on
// its elements: a call may replace its element while the outer loop edits
// the same list.
abstract tree Stmt { traversal f() {} }
tree Block : Stmt {
    child stmts: [Stmt];
    traversal f() {
        for a in self.stmts {
            for b in self.stmts { b.f(); }
        }
    }
}
