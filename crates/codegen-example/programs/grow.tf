// A chain that grows below its running visits: every link wraps its tail
// in a new node and then visits it, so a run's recursion goes twice as
// deep as the chain it started with. The generated code checks the stack
// only in the visits of created nodes that call further (`Wrap`), and
// must still run 10^5-link chains on a test thread's small stack.

abstract tree Chain {
    traversal wrap() {}
    traversal count() {}
}

tree Link : Chain {
    v: i64 = 0;
    child next: Chain;
    traversal wrap() {
        self.next = new Wrap { inner: self.next };
        self.next.wrap();
    }
    traversal count() {
        self.next.count();
        self.v = 1;
    }
}

tree Wrap : Chain {
    depth: i64 = 0;
    child inner: Chain;
    traversal wrap() {
        self.inner.wrap();
    }
    traversal count() {
        self.inner.count();
        self.depth = 1;
    }
}

tree End : Chain {}

fuse grow(root: Chain) {
    root.wrap();
    root.count();
}
