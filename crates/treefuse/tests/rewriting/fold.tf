// LANGUAGE.md §7.1: constant folding and simplification, each node
// replacing itself; the root is replaced too.
abstract tree Expr {
    traversal fold() {}
    traversal simplify() {}
}
tree Const : Expr { v: i64; }
tree Var : Expr { id: i64; }
tree Add : Expr {
    child l: Expr;
    child r: Expr;
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Const && self.r is Const {
            self = new Const { v: (self.l as Const).v + (self.r as Const).v };
        }
    }
    traversal simplify() {
        self.l.simplify();
        self.r.simplify();
        if self.r is Const && (self.r as Const).v == 0 { self = self.l; }
    }
}
tree Neg : Expr {
    child e: Expr;
    traversal fold() {
        self.e.fold();
        if self.e is Const { self = new Const { v: 0 - (self.e as Const).v }; }
    }
}
fuse main(root: Expr) {
    root.fold();
    root.simplify();
}
