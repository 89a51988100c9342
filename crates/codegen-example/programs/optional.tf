// Optional children (LANGUAGE §8.7): calls on them (plain, guarded, with
// arguments), `is none`, `is T`, emptying, filling with `new`, moves and
// copies into and out of them, nodes replacing themselves in them, and
// reads through them that fail when they are empty (`fuse strict`).

global DEPTHS: i64 = 0;
global EMPTY: i64 = 0;
global SUM: i64 = 0;
global TAG: str = "";

abstract tree Expr {
    is_leaf: i64;
    traversal count(depth: i64);
    traversal fold();
    traversal sum(tag: str);
}

tree Num : Expr {
    v: i64;
    traversal count(depth: i64) { DEPTHS = DEPTHS + depth; }
    traversal fold() {}
    traversal sum(tag: str) { SUM = SUM + self.v; TAG = tag; }
}

tree Add : Expr {
    child l: Expr;
    child r: Expr?;
    traversal count(depth: i64) {
        self.l.count(depth + 1);
        self.r.count(depth + 1);
        if self.r is none { EMPTY = EMPTY + 1; }
    }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.r is none {
            self = self.l;
        } else if self.l is Num && self.r is Num {
            self = new Num { v: (self.l as Num).v + (self.r as Num).v };
        }
    }
    traversal sum(tag: str) {
        self.l.sum(tag + "l");
        if !(self.r is none) { self.r.sum(tag + "r"); }
    }
}

abstract tree Stmt {
    traversal count(depth: i64);
    traversal prune(limit: i64);
    traversal fold();
    traversal sum(tag: str);
    traversal strict();
}

tree Return : Stmt {
    child value: Expr?;
    line: i64;
    traversal count(depth: i64) { self.value.count(depth); }
    traversal prune(limit: i64) {
        if self.value is Num && (self.value as Num).v > limit {
            self.value = none;
        } else if self.value is none && self.line > limit {
            self.value = new Add { l: new Num { v: self.line }, r: none };
        } else if self.value is Add && self.line < 0 {
            self.value = new Add { l: self.value, r: new Num { v: self.line } };
        }
    }
    traversal fold() { self.value.fold(); }
    traversal sum(tag: str) { self.value.sum(tag); }
    traversal strict() {
        if self.line == 7 && !(self.value is Num) {
            SUM = SUM + (self.value as Add).l.is_leaf;
        }
    }
}

tree If : Stmt {
    child cond: Expr;
    child then_s: Stmt;
    child else_s: Stmt?;
    traversal count(depth: i64) {
        self.cond.count(depth);
        self.then_s.count(depth + 1);
        self.else_s.count(depth + 1);
        if self.else_s is none { EMPTY = EMPTY + 10; }
    }
    traversal prune(limit: i64) {
        self.then_s.prune(limit);
        self.else_s.prune(limit);
        if self.cond is Num && (self.cond as Num).v < 0 {
            self.else_s = none;
        } else if self.else_s is If {
            self.else_s = (self.else_s as If).then_s;
        } else if self.else_s is none && self.cond is Num {
            self.else_s = copy(self.then_s);
        }
    }
    traversal fold() {
        self.cond.fold();
        self.then_s.fold();
        self.else_s.fold();
    }
    traversal sum(tag: str) {
        self.cond.sum(tag);
        self.then_s.sum(tag + "t");
        if self.cond is Num { self.else_s.sum(tag + "e"); }
    }
    traversal strict() {
        self.then_s.strict();
        if self.cond is Num && (self.cond as Num).v == 3 {
            let e = self.else_s;
            if e is Return { SUM = SUM + (e as Return).line; }
        }
        self.else_s.strict();
    }
}

tree Block : Stmt {
    child body: [Stmt];
    child tail: Stmt?;
    traversal count(depth: i64) {
        for s in self.body { s.count(depth); }
        self.tail.count(depth);
    }
    traversal prune(limit: i64) {
        for s in self.body { s.prune(limit); }
        self.tail.prune(limit);
        if self.tail is Return && (self.tail as Return).value is none {
            self.tail = none;
        }
    }
    traversal fold() {
        for s in self.body { s.fold(); }
        self.tail.fold();
    }
    traversal sum(tag: str) {
        for s in self.body { s.sum(tag + "b"); }
        self.tail.sum(tag + "_");
    }
    traversal strict() {
        for s in self.body { s.strict(); }
        self.tail.strict();
    }
}

fuse all(root: Stmt) {
    root.count(0);
    root.prune(5);
    root.fold();
    root.sum("");
}

fuse strict(root: Stmt) {
    root.count(0);
    root.strict();
}
