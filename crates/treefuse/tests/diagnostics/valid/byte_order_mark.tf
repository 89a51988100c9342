// A file may start with a byte-order mark.
tree Leaf { traversal f() {} }
fuse run(root: Leaf) { root.f(); }
