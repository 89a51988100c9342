// A `fuse` root is a slot too: replacing a `Block` root by a `Nop` breaks
// `fuse main(root: Block)`.
abstract tree Stmt { traversal clean() {} }
tree Nop : Stmt {}
tree Block : Stmt {
    child stmts: [Stmt];
    traversal clean() { self = new Nop {}; }
}
fuse main(root: Block) { root.clean(); }
