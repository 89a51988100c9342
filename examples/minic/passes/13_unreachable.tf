// Pass 13, unreachable: statements after a `return` in the same list are
// deleted; `returns` per statement; `MISSING_RETURNS` counts functions
// that may end without one.

impl Program { traversal unreachable() walk; }
impl Func { traversal unreachable() { walk; if !self.body.returns { MISSING_RETURNS = MISSING_RETURNS + 1; } } }
impl Stmt {
    traversal unreachable() {}
    traversal drop_dead() { self = []; }
}
impl Block {
    traversal unreachable() {
        let dead = false;
        for s in self.stmts {
            if dead {
                s.drop_dead();
            } else {
                s.unreachable();
                dead = s.returns;
            }
        }
        self.returns = dead;
    }
}
impl If { traversal unreachable() { walk; self.returns = self.then_b.returns && self.else_b.returns; } }
impl While { traversal unreachable() { walk; self.returns = false; } }   // the body may run zero times
impl Return { traversal unreachable() { self.returns = true; } }
