// An override keeps the parameter list of the traversal it overrides.
abstract tree Element {
    traversal layout(width: i64, scale: f64) {}
}
tree Box : Element {
    traversal layout(width: f64, scale: f64) {}
}
tree Text : Element {
    traversal layout(width: i64) {}
}
