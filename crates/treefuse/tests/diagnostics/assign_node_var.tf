// Aliases and loop variables cannot be reassigned.
tree Block {
    child stmts: [Block];
    child first: Block;
    traversal f() {
        let n = self.first;
        n = 3;
        for s in self.stmts {
            s = 1;
        }
    }
}
