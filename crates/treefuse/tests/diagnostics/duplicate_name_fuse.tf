// Two fuse items with the same name.
tree Leaf { traversal f() {} }
fuse run(root: Leaf) { root.f(); }
fuse run(root: Leaf) {}
