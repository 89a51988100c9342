// Keywords cannot be used as names.
tree Leaf {
    new: i64;
}
