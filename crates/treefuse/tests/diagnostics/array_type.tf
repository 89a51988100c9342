// The element type of `[]` must be known.
tree Leaf {
    traversal f() {
        let a = [];
    }
}
