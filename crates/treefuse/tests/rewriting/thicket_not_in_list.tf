// LANGUAGE.md §7.2: a thicket where the receiver does not stand in a list
// is a runtime error.
abstract tree S { traversal clean() {} }
tree Nop : S { traversal clean() { self = []; } }
tree Wrap : S {
    child inner: S;
    traversal clean() { self.inner.clean(); }
}
fuse main(root: S) { root.clean(); }
