// A list of children is only iterated, moved whole, or given with [..].
tree Block {
    child stmts: [Block];
    n: i64;
    traversal f() {
        self.n = len(self.stmts);
        self.n = self.stmts.n;
        let l = self.stmts;
    }
}
