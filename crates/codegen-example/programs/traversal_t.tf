// Traversals and a pure function named like the parameters of generated
// functions (`t`, `cx`, `n`): their Rust functions take other names, so a
// call such as `t(t, cx, root)` does not meet a shadowing parameter.
pure fn n(x: i64) -> i64 { return x + 1; }
tree N {
    v: i64;
    child kids: [N];
    traversal t() { for k in self.kids { k.t(); } self.v = n(self.v); }
    traversal cx() { for k in self.kids { k.cx(); } self.v = self.v * 2; }
}
fuse go(root: N) { root.t(); root.cx(); root.t(); }
