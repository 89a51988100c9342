// A tree type written as a data field (without `child`) is reported once;
// the field is read as the child it was meant to be, so its uses do not
// cascade.
tree Leaf { n: i64; traversal f() { self.n = 1; } }
tree Pair {
    left: Leaf;
    traversal f() { self.left.f(); self.left.n = 2; }
}
