abstract tree Expr { v: i64; traversal simp() {} traversal deep() {} }
tree Lit : Expr {}
tree Cond : Expr {
    child a: Expr;
    child b: Expr;
    traversal deep() { self.a = (self.a as Cond).b; }
}
tree Holder {
    child e: Expr;
    traversal simp() {
        if self.e is Cond {
            let n = (self.e as Cond).a;
            self.e = (self.e as Cond).a;
            n.v = 5;
        }
    }
    traversal deep() {
        let m = (self.e as Cond).a;
        self.e.deep();
        m.v = 1;
    }
    traversal fresh() {
        self.e = new Cond { a: new Lit { v: 1 }, b: (self.e as Cond).b };
    }
}
