// Moves in fused code: a participant that replaces its node, under a
// condition, with a node built from a record parameter, and reads the
// parameter again in a later statement. Fused, the replacement switches
// the participant off and leaves only its statement, and the Rust
// compiler still sees the later statement run, so the parameter must be
// cloned into the new node, not moved. (`Tagged.mark` assigns its
// parameter, so no body borrows it: every call hands over a value.)

record Span { line: i64, col: i64 }

abstract tree N {
    v: i64 = 0;
    traversal mark(s: Span) {}
    traversal bump() {}
}

tree Leaf : N {
    traversal mark(s: Span) {
        if self.v > 2 {
            self = new Tagged { v: self.v, at: s };
        }
        self.v = self.v + s.line;
    }
    traversal bump() { self.v = self.v * 2; }
}

tree Tagged : N {
    at: Span;
    traversal mark(s: Span) {
        s = Span { line: s.line, col: s.col + 1 };
        self.v = self.v + s.col;
    }
    traversal bump() { self.v = self.v + self.at.col; }
}

tree Pair : N {
    child a: N;
    child b: N;
    traversal mark(s: Span) {
        self.a.mark(s);
        self.b.mark(s);
    }
    traversal bump() {
        self.a.bump();
        self.b.bump();
    }
}

fuse run(root: N) {
    root.mark(Span { line: 3, col: 5 });
    root.bump();
}
