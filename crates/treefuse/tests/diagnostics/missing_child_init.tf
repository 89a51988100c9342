// Every child of a new node is initialized.
abstract tree Expr {}
tree Num : Expr { v: i64; }
tree Add : Expr { child l: Expr; child r: Expr; }
tree Seq : Expr { child items: [Expr]; }
tree Holder {
    child c: Expr;
    traversal f() {
        self.c = new Add { l: new Num {} };
        self.c = new Seq {};
        self.c = new Add { l: new Num { v: 1 }, r: new Add {} };
    }
}
