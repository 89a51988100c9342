// Cold fields: data fields that no traversal reads or writes (`label`,
// `span`, `tags`, `notes`) are kept out of the node structs by the
// generated code. They must still come in from JSON and go back out, be
// set by `new`, travel with `copy` and with nodes replacing themselves,
// and read back through the typed API.

record Span { line: i64, col: i64 }

global total: i64 = 0;

abstract tree Expr {
    label: str = "expr";
    traversal fold() {}
    traversal count() {}
}

tree Num : Expr {
    v: i64 = 0;
    span: Span = Span { line: 0, col: 0 };
    traversal count() {
        total = total + self.v;
    }
}

tree Add : Expr {
    child l: Expr;
    child r: Expr;
    tags: [i64] = [];
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Num && self.r is Num {
            self = new Num {
                v: (self.l as Num).v + (self.r as Num).v,
                span: Span { line: 1, col: 2 },
                label: "folded",
            };
        }
    }
    traversal count() {
        self.l.count();
        self.r.count();
    }
}

tree Twice : Expr {
    child e: Expr;
    child again: Expr;
    notes: {str: i64} = {};
    traversal fold() {
        self.e.fold();
        self.again = copy(self.e);
    }
    traversal count() {
        self.e.count();
        self.again.count();
    }
}

fuse fold_and_count(root: Expr) {
    root.fold();
    root.count();
}
