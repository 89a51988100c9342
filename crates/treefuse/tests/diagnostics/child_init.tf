// Children are initialized with `new` or moved subtrees, lists with [..]
// of those or a moved list.
abstract tree Expr {}
tree Num : Expr { v: i64; }
tree Seq : Expr { child items: [Expr]; }
tree Add : Expr { child l: Expr; child r: Expr; }
tree Holder {
    child c: Expr;
    traversal f() {
        self.c = new Add { l: 1, r: new Num {} };
        self.c = new Seq { items: 3 };
        self.c = new Seq { items: [new Num {}, 2] };
    }
}
