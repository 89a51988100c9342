// A loop variable is not a descendant of another slot.
tree Block {
    child stmts: [Block];
    child first: Block;
    traversal f() {
        for s in self.stmts {
            self.first = s;
        }
    }
}
