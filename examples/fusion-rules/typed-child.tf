// Type tests between calls on a child (docs/src/fusion.md): `lower`
// rewrites an `Inc` statement into a `Set` between the calls the two
// passes make on `stmt`, so the fuser merges those calls only where the
// statement standing in `stmt` at the start is not an `Inc`.
global sets: i64 = 0;

abstract tree Stmt {
    traversal lower() {}
    traversal count() {}
}

tree Seq : Stmt {
    child stmt: Stmt;
    child next: Stmt;
    traversal lower() {
        if self.stmt is If { self.stmt.lower(); }
        if self.stmt is Inc {
            let v: i64 = (self.stmt as Inc).var;
            self.stmt = new Set { var: v, value: 1 };
        }
        self.next.lower();
    }
    traversal count() {
        if self.stmt is If || self.stmt is Set { self.stmt.count(); }
        self.next.count();
    }
}

tree If : Stmt {
    child then_part: Stmt;
    child else_part: Stmt;
    traversal lower() {
        self.then_part.lower();
        self.else_part.lower();
    }
    traversal count() {
        self.then_part.count();
        self.else_part.count();
    }
}

tree Inc : Stmt { var: i64; }

tree Set : Stmt {
    var: i64;
    value: i64;
    traversal count() { sets = sets + 1; }
}

tree Nop : Stmt {}

fuse go(root: Seq) {
    root.lower();
    root.count();
}
