// The limit of a `while` is an `i64` expression (LANGUAGE §8.6).
global changed: bool = true;
tree Leaf {
    n: i64;
    traversal f(k: f64) {
        while self.n < 3 limit k {
            self.n = self.n + 1;
        }
    }
}
fuse run(root: Leaf) {
    while changed limit true {
        root.f(1.0);
    }
}
