// LANGUAGE.md §7.2: a thicket at the root is a runtime error.
abstract tree S { traversal clean() {} }
tree Nop : S { traversal clean() { self = []; } }
fuse main(root: S) { root.clean(); }
