// Split calls (docs/src/fusion.md, "Split calls"): `prop` calls each
// statement, then reads the root of a `Let`'s initializer; `fold` is
// post-order and replaces that root last. The read keeps `s.fold()` out of
// `s.prop()`'s walk of a `Let`, but only `fold`'s tail (the replacement of
// the initializer's root) conflicts with it: the fuser runs `s.fold$head()`
// (the children folded) with `s.prop()` and `s.fold$tail()` after the read.

global SEEN: i64 = 0;

abstract tree Expr {
    traversal prop() {}
    traversal fold() {}
}

tree Lit : Expr {
    v: i64;
}

// A placeholder `prop` replaces by a literal (`v - 100`) when `v > 100`.
tree Var : Expr {
    v: i64;
    traversal prop() {
        if self.v > 100 { self = new Lit { v: self.v - 100 }; }
    }
}

tree Add : Expr {
    child l: Expr;
    child r: Expr;
    traversal prop() { self.l.prop(); self.r.prop(); }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Lit && self.r is Lit {
            self = new Lit { v: (self.l as Lit).v + (self.r as Lit).v };
        }
    }
}

abstract tree Stmt {
    traversal prop() {}
    traversal fold() {}
}

tree Let : Stmt {
    child init: Expr;
    traversal prop() { self.init.prop(); }
    traversal fold() { self.init.fold(); }
}

tree Print : Stmt {
    child e: Expr;
    traversal prop() { self.e.prop(); }
    traversal fold() { self.e.fold(); }
}

tree Block : Stmt {
    child stmts: [Stmt];
    traversal prop() {
        for s in self.stmts {
            s.prop();
            if s is Let && (s as Let).init is Lit {
                SEEN = SEEN * 10 + ((s as Let).init as Lit).v;
            }
        }
    }
    traversal fold() { for s in self.stmts { s.fold(); } }
}

fuse go(root: Block) {
    root.prop();
    root.fold();
}
