// `x = append(x, e);` (LANGUAGE.md §8.5) on a local, a data field and a
// global: each engine changes the array where it stands, so n appends
// cost O(n) (`cargo run --release -p treefuse --example append_bench`).
// `fill` and the two `log` passes fuse into one visit of the root; the
// appends to `LOG` keep their unfused order.

global LOG: [i64] = [];

tree Root {
    xs: [i64];
    total: i64;
    traversal fill(n: i64) {
        let a: [i64] = [];
        for i in 0..n { a = append(a, i); }
        for i in 0..n { self.xs = append(self.xs, i); }
        self.total = len(a) + len(self.xs);
    }
    traversal log(n: i64) {
        for i in 0..n { LOG = append(LOG, i); }
    }
    traversal unlog(n: i64) {
        for i in 0..n { LOG = append(LOG, -i); }
    }
}

fuse appends(root: Root, n: i64) {
    root.fill(n);
    root.log(n);
    root.unlog(n);
}
