// Fuse items call traversals that exist on the root type.
abstract tree Element { traversal a() {} }
tree Box : Element { traversal only_box() {} }
fuse run(root: Element) {
    root.a();
    root.only_box();
    root.nothing();
}
