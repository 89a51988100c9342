// A type defines each traversal once.
tree Leaf {
    traversal f() {}
    traversal g() {}
    traversal f(x: i64) {}
}
