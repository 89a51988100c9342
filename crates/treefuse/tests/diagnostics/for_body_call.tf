// Inside a for over children, calls go to the loop variable only.
tree Block {
    child stmts: [Block];
    child other: Block;
    traversal f() {
        for s in self.stmts {
            s.f();
            self.g();
            self.other.f();
        }
    }
    traversal g() {}
}
