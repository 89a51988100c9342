// `self` cannot be replaced.
tree Leaf {
    traversal f() { self = new Leaf {}; }
}
