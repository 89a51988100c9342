// Moves in fused code: a participant that replaces its node, under a
// condition, with a node built from a record parameter, and reads the
// parameter again in a later statement. Fused, the replacement switches
// the participant off and leaves only its statement, and the Rust
// compiler still sees the later statement run, so the parameter must be
// cloned into the new node, not moved. (`Tagged.mark` assigns its
// parameter, so no body borrows it: every call hands over a value.)
//
// `fuse walk`: a participant that may return runs each of its statements
// under its active flag, so for the Rust compiler the assignment
// `s = ...` in `Pair.walk` may be skipped, and `s` must not move into the
// call before it.

record Span { line: i64, col: i64 }

abstract tree N {
    v: i64 = 0;
    traversal mark(s: Span) {}
    traversal bump() {}
    traversal walk(s: Span) {}
}

tree Leaf : N {
    traversal mark(s: Span) {
        if self.v > 2 {
            self = new Tagged { v: self.v, at: s };
        }
        self.v = self.v + s.line;
    }
    traversal bump() { self.v = self.v * 2; }
    traversal walk(s: Span) { self.v = self.v * 10 + s.line; }
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
    traversal walk(s: Span) {
        if self.v < 0 {
            return;
        }
        self.a.walk(s);
        s = Span { line: self.v + 7, col: 0 };
        self.b.walk(s);
    }
}

fuse run(root: N) {
    root.mark(Span { line: 3, col: 5 });
    root.bump();
}

fuse walk(root: N) {
    root.walk(Span { line: 1, col: 0 });
    root.bump();
}
