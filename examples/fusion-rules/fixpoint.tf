// A fixpoint loop in a `fuse` item: `dec` lowers every positive counter,
// `mark` counts rounds; the two calls of one iteration run as one fused
// traversal, and the loop stops when a round changes nothing.
global changed: bool = false;
global rounds: i64 = 0;

abstract tree N {
    n: i64;
    seen: i64;
    traversal dec();
    traversal mark() { self.seen = self.seen + 1; }
}

tree Pair : N {
    child l: N;
    child r: N;
    traversal dec() {
        self.l.dec();
        self.r.dec();
        if self.n > 0 { self.n = self.n - 1; changed = true; }
    }
    traversal mark() { self.l.mark(); self.r.mark(); self.seen = self.seen + 1; }
}

tree Leaf : N {
    traversal dec() { if self.n > 0 { self.n = self.n - 1; changed = true; } }
}

fuse settle(root: N) {
    changed = true;
    while changed limit 16 {
        changed = false;
        rounds = rounds + 1;
        root.dec();
        root.mark();
    }
}
