// A new or moved subtree fits the type of the slot it goes into.
abstract tree Expr {}
tree Num : Expr {}
tree Wrap : Expr { child inner: Expr; }
tree Other {}
tree Stmt {
    child e: Expr;
    child w: Wrap;
    traversal f() {
        self.e = new Other {};
        self.w = new Num {};
        self.w = self.w.inner;
        self.w = new Wrap { inner: new Other {} };
    }
}
