// `..PATH` stands only in a list value of children.
tree Block {
    child stmts: [Block];
    ns: [i64];
    traversal f() { self.ns = [..self.stmts]; }
}
