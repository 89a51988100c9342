// A list child holds nodes, not lists.
tree Leaf {
    child xs: [[Leaf]];
}
