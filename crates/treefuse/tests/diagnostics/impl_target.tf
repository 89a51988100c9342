// impl-target: an `impl` block names a tree type declared somewhere in the
// program.
record Point { x: i64, y: i64 }
tree Leaf { n: i64; }
impl Leef {
    traversal bump() { self.n = self.n + 1; }
}
impl Point {
    traversal move_it() {}
}
