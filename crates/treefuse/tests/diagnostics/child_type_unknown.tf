// A child of an unknown type.
tree Leaf {
    child next: Elem;
}
