// Pass 9, collect_assigned: the set of variables each statement may
// assign (`assigned`), for propagation to kill around loops.

pure fn union(a: {i64: bool}, b: {i64: bool}) -> {i64: bool} {
    for k in keys(b) { a[k] = true; }
    return a;
}

impl Code { traversal collect_assigned() walk; }
impl Stmt { traversal collect_assigned() {} }
impl Block {
    traversal collect_assigned() {
        let a: {i64: bool} = {};
        for s in self.stmts {
            s.collect_assigned();
            a = union(a, s.assigned);
        }
        self.assigned = a;
    }
}
impl Assign { traversal collect_assigned() { self.assigned = {self.id: true}; } }
impl If { traversal collect_assigned() { walk; self.assigned = union(self.then_b.assigned, self.else_b.assigned); } }
impl While { traversal collect_assigned() { walk; self.assigned = self.body.assigned; } }
