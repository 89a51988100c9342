// Lists of children reached through aliases and casts, nested loops over
// children, moves and aliases below a loop variable, `return` in a loop,
// array-element writes of fields, shadowing in nested blocks.
abstract tree Stmt {
    traversal run(k: i64) {}
}

tree Expr : Stmt {
    v: i64;
    xs: [i64] = [0, 0];
}

tree Wrap : Stmt {
    child inner: Stmt;
}

tree Block : Stmt {
    child stmts: [Stmt];
    child first: Stmt;
    count: i64;
    traversal run(k: i64) {
        let b = self.first;
        for s in self.stmts {
            s.run(k + 1);
            if s is Wrap {
                let w = (s as Wrap).inner;
                if w is Expr {
                    (w as Expr).v = k;
                }
                if (s as Wrap).inner is Wrap {
                    (s as Wrap).inner = ((s as Wrap).inner as Wrap).inner;
                }
            }
            if s is Block {
                for t in (s as Block).stmts {
                    t.run(k + 2);
                }
            }
            if k > 10 {
                return;
            }
        }
        if b is Block {
            for t in (b as Block).stmts {
                if t is Expr {
                    (t as Expr).xs[1] = 3;
                }
            }
        }
        if self.first is Wrap {
            self.first = (self.first as Wrap).inner;
        }
        let k = k * 2;
        if k > 0 {
            let k = true;
            if k { self.count = 1; }
        }
        for i in 0..k {
            self.count = self.count + i;
        }
        self.first.run(k);
    }
}

fuse f(root: Stmt, k: i64) { root.run(k); }
