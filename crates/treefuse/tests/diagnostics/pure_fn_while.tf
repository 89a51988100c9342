// `while` loops are allowed in traversals and `fuse` items, not in pure
// functions (LANGUAGE §8.6).
pure fn count(n: i64) -> i64 {
    let k: i64 = 0;
    while k < n limit 10 {
        k = k + 1;
    }
    return k;
}
tree Leaf {
    v: i64;
    traversal f() { self.v = count(3); }
}
fuse run(root: Leaf) { root.f(); }
