// Pass 15, allocate: stack slots for parameters and `let`s (a block's
// slots are reused after it), frame sizes, `MAX_FRAME`. Expressions take
// the frame too, for the walks, and use it only in `Var`.

// The frame so far: the slot of each variable in scope (by id) and the
// first free slot.
record Frame { slots: {i64: i64}, next: i64 }

impl Program { traversal allocate() walk; }
impl Func {
    traversal allocate() {
        let f = Frame { slots: {}, next: 0 };
        for p in self.params {
            p.slot = f.next;
            f.slots[p.id] = f.next;
            f.next = f.next + 1;
        }
        self.body.allocate(f);
        self.frame = self.body.high;
        MAX_FRAME = max(MAX_FRAME, self.frame);
    }
}
impl Stmt { traversal allocate(f: Frame) { walk; self.high = f.next; } }
impl Sugar { traversal allocate(f: Frame) { self.high = f.next; } }
impl Block {
    traversal allocate(f: Frame) {
        let inner = f;   // what the block's `let`s add is gone after it
        self.high = f.next;
        for s in self.stmts {
            s.allocate(inner);
            self.high = max(self.high, s.high);
            if s is Let {
                inner.slots[(s as Let).id] = inner.next;
                inner.next = inner.next + 1;
                self.high = max(self.high, inner.next);
            }
        }
    }
}
impl Let { traversal allocate(f: Frame) { walk; self.slot = f.next; self.high = f.next; } }
impl Assign {
    traversal allocate(f: Frame) { walk; self.slot = get(f.slots, self.id, -1); self.high = f.next; }
}
impl If { traversal allocate(f: Frame) { walk; self.high = max(self.then_b.high, self.else_b.high); } }
impl While { traversal allocate(f: Frame) { walk; self.high = self.body.high; } }

impl Expr { traversal allocate(f: Frame) walk; }
impl Var { traversal allocate(f: Frame) { self.slot = get(f.slots, self.id, -1); } }
