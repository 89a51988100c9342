// A list of children cannot be optional, nor can its elements.
tree Block {
    child stmts: [Block]?;
    child more: [Block?];
}
