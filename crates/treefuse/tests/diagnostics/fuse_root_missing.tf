// A fuse item needs a root parameter of a tree type.
tree Leaf { traversal f() {} }
fuse a() {}
fuse b(n: i64) {}
fuse c(root: [Leaf]) {}
fuse d(root: Lef) {}
