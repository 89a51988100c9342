// A list of children cannot be assigned.
tree Block {
    child stmts: [Block];
    traversal f() {
        self.stmts = [];
    }
}
