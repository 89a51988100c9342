// A list of children has no fields of its own.
tree Block {
    child stmts: [Block];
    n: i64;
    traversal f() {
        self.stmts.n = 1;
    }
}
