// Pass 15, allocate: stack slots for parameters and `let`s (a block's
// slots are reused after it), frame sizes, `MAX_FRAME`. `next` is the
// first free slot; expressions take it too, for the walks, and use none.

impl Program { traversal allocate() walk; }
impl Func {
    traversal allocate() {
        let env: {i64: i64} = {};
        let n = 0;
        for p in self.params {
            p.slot = n;
            env[p.id] = n;
            n = n + 1;
        }
        self.body.allocate(env, n);
        self.frame = self.body.high;
        MAX_FRAME = max(MAX_FRAME, self.frame);
    }
}
impl Stmt { traversal allocate(env: {i64: i64}, next: i64) { walk; self.high = next; } }
impl Sugar { traversal allocate(env: {i64: i64}, next: i64) { self.high = next; } }
impl Block {
    traversal allocate(env: {i64: i64}, next: i64) {
        let scope = env;
        let top = next;
        let high = next;
        for s in self.stmts {
            s.allocate(scope, top);
            high = max(high, s.high);
            if s is Let {
                scope[(s as Let).id] = top;
                top = top + 1;
                high = max(high, top);
            }
        }
        self.high = high;
    }
}
impl Let { traversal allocate(env: {i64: i64}, next: i64) { walk; self.slot = next; self.high = next; } }
impl Assign {
    traversal allocate(env: {i64: i64}, next: i64) { walk; self.slot = get(env, self.id, -1); self.high = next; }
}
impl If {
    traversal allocate(env: {i64: i64}, next: i64) { walk; self.high = max(self.then_b.high, self.else_b.high); }
}
impl While { traversal allocate(env: {i64: i64}, next: i64) { walk; self.high = self.body.high; } }

impl Expr { traversal allocate(env: {i64: i64}, next: i64) walk; }
impl Var { traversal allocate(env: {i64: i64}, next: i64) { self.slot = get(env, self.id, -1); } }
