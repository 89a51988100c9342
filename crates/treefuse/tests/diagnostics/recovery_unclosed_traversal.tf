// A traversal body left unclosed ends where the next traversal starts:
// one diagnostic, and the rest of the tree and the program still check.
tree Box {
    width: i64;
    height: i64;
    traversal size() {
        self.width = 2;
    traversal grow() {
        self.height = self.width + 1;
    }
}

fuse run(root: Box) { root.size(); root.grow(); }
