// Subtree replacement with nested `new`, defaults for omitted data
// fields, `new T {}` for a type without children, list children built
// from `[..]` or moved whole, and moves of descendants up into a slot.
abstract tree Expr { traversal simplify() {} }
tree Num : Expr { v: i64; tag: str = "n"; }
tree Var : Expr { id: i64; }
tree Unit : Expr {}
tree Assign : Expr { child lhs: Var; child v: Expr; }
tree If : Expr { child cond: Expr; child then_branch: Expr; child else_branch: Expr; }
tree Seq : Expr { child items: [Expr]; }

tree Program {
    child body: Expr;
    traversal simplify() {
        if self.body is If {
            self.body = (self.body as If).then_branch;
            return;
        }
        if self.body is Seq {
            self.body = new Seq { items: (self.body as Seq).items };
            return;
        }
        if self.body is Assign {
            self.body = new Assign { lhs: (self.body as Assign).lhs, v: new Unit {} };
            return;
        }
        self.body = new Assign { lhs: new Var { id: 3 }, v: new Num { v: 0 } };
        self.body = (new Unit {});
        self.body = new Seq {
            items: [new Unit {}, new If { cond: new Num { v: 1, tag: "c" }, then_branch: new Unit {}, else_branch: new Seq { items: [] } }],
        };
        self.body = new Seq { items: [(self.body as If).cond, new Unit {}, (self.body as If).else_branch] };
        self.body = new If {
            cond: (self.body as If).then_branch,
            then_branch: new Assign { lhs: ((self.body as If).cond as Assign).lhs, v: new Num {} },
            else_branch: new Seq { items: ((self.body as If).else_branch as Seq).items },
        };
    }
}

fuse f(root: Program) { root.simplify(); }
