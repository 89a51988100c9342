// A field named by a keyword is reported once, at its declaration: its
// uses in paths (`self.l.e.pure && ..`) read as that name and do not
// cascade into syntax errors.
tree E {
    pure: bool;
    child l: L;
    traversal f() {
        self.l.e.pure = true;
        if self.l.e.pure && self.pure { self.pure = false; }
    }
}
tree L { child e: E; traversal f() {} }
fuse go(root: E) { root.f(); }
