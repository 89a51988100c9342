// Every concrete type defines every body-less traversal it inherits.
abstract tree Element {
    traversal compute_width();
    traversal compute_height();
}
tree Box : Element {
    traversal compute_width() {}
}
tree Leaf {
    traversal f();
}
