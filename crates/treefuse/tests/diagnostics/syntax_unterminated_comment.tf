// A block comment that never ends.
tree Leaf { n: i64; }
/* this comment runs to the end of the file
fuse f(root: Leaf) {}
