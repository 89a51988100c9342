// A name whose `let` failed is not reported again where it is used; the
// body of a `for` whose range failed is still checked for its own errors.
tree Block {
    child stmts: [Block];
    n: i64;
    traversal f() {
        let x = self.missing;
        self.n = x + 1;
        x = 2;
        let me = self;
        me.n = 3;
        for s in self.n {
            s.f();
            self.n = true;
        }
    }
}
