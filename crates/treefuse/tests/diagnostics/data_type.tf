// Data (fields, globals, parameters, locals) cannot have tree types.
tree Leaf {
    other: Leaf;
    xs: [Leaf];
    traversal f(n: Leaf) {}
}
global ROOT: Leaf = 1;
pure fn g(x: Leaf) -> Leaf = x;
