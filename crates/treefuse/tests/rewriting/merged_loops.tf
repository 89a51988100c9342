// LANGUAGE.md §7.2 under fusion: two loops over one list, the second
// deleting and expanding elements (only the last of merged loops may
// replace elements), the owner reading the list's length while the
// second loop edits it, and an element by index afterwards.
global marks: i64 = 0;
abstract tree S {
    traversal mark() { marks = marks + 1; }
    traversal clean() {}
}
tree Keep : S {
    v: i64;
    traversal clean() { self.v = self.v * 2; }
}
tree Drop : S {
    traversal clean() { self = []; }
}
tree Dup : S {
    v: i64;
    traversal clean() { self = [new Keep { v: self.v }, new Keep { v: self.v + 1 }]; }
}
tree Block {
    child body: [S];
    n: i64;
    second: i64;
    traversal go() {
        for s in self.body { s.mark(); }
        for s in self.body {
            s.clean();
            self.n = self.n + len(self.body);
        }
        self.second = (self.body[1] as Keep).v;
    }
}
fuse main(root: Block) { root.go(); }
