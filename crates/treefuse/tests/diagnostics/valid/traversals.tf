// Traversals with and without bodies, with and without parameters of every
// data kind; a traversal declared only on a subtype is callable on `self`.
record Pair { a: i64, b: i64 }

abstract tree Element {
    traversal declared_only(x: i64, y: f64, z: bool, s: str, p: Pair, xs: [i64]);
    traversal empty() {}
}

tree Item : Element {
    total: i64;
    traversal declared_only(x: i64, y: f64, z: bool, s: str, p: Pair, xs: [i64]) {
        x = x + 1;
        p.a = x;
        self.total = x + to_i64(y) + len(s) + p.a + p.b + len(xs);
        if z { self.total = 0; }
        self.helper();
    }
    traversal helper() {
        return;
    }
}

fuse f(root: Element) {
    root.empty();
    root.declared_only(1, 2.0, true, "s", Pair { a: 1, b: 2 }, [1, 2, 3]);
}
