// `..` spreads a list of children, not a single node.
abstract tree Stmt { traversal f() {} }
tree Block : Stmt {
    child stmts: [Stmt];
    child last: Stmt;
    traversal f() { self = [..self.last]; }
}
