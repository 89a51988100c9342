// An `if` whose `{` was forgotten at the end of a line: one diagnostic.
tree Box {
    width: i64;
    traversal f() {
        if self.width > 3
            self.width = 3;
        }
        self.width = self.width + 1;
    }
    traversal g() { self.width = 0; }
}

fuse run(root: Box) { root.f(); root.g(); }
