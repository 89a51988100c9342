// A for over children may not replace the list or a node above it.
tree Holder {
    child block: Block;
    traversal f() {
        for s in self.block.stmts {
            self.block = new Block { stmts: [] };
        }
    }
}
tree Block {
    child stmts: [Block];
}
