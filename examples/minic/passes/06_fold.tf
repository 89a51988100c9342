// Pass 6 (and 11, in the fixpoint), fold: constant folding of every
// operator (never `x / 0` or a shift out of range: those stay and fail at
// run time), `c ? a : b` on a literal. The operands first (the walk), then
// the operator replaces itself by its value; `FOLDS` counts and `CHANGED`
// tells the fixpoint loop.

pure fn arith(op: ArithOp, a: i64, b: i64) -> i64 = match op {
    ArithOp::Add => a + b,
    ArithOp::Sub => a - b,
    ArithOp::Mul => a * b,
    ArithOp::Div => a / b,
    ArithOp::Mod => a % b,
    ArithOp::Shl => a << b,
    ArithOp::Shr => a >> b,
    ArithOp::BitAnd => a & b,
    ArithOp::BitOr => a | b,
    ArithOp::BitXor => a ^ b,
};

pure fn compare(op: CmpOp, a: i64, b: i64) -> bool = match op {
    CmpOp::Lt => a < b,
    CmpOp::Le => a <= b,
    CmpOp::Gt => a > b,
    CmpOp::Ge => a >= b,
    CmpOp::Eq => a == b,
    CmpOp::Ne => a != b,
};

pure fn logic(op: LogicOp, a: bool, b: bool) -> bool = if op == LogicOp::And { a && b } else { a || b };

impl Code { traversal fold() walk; }
impl Sugar { traversal fold() {} }
impl Expr { traversal fold() walk; }

impl Arith {
    traversal fold() {
        walk;
        if self.l is IntLit && self.r is IntLit && defined(self.op, self.r) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new IntLit { v: arith(self.op, (self.l as IntLit).v, (self.r as IntLit).v) };
        }
    }
}
impl Compare {
    traversal fold() {
        walk;
        if self.l is IntLit && self.r is IntLit {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new BoolLit { v: compare(self.op, (self.l as IntLit).v, (self.r as IntLit).v) };
        }
        if self.l is BoolLit && self.r is BoolLit && (self.op == CmpOp::Eq || self.op == CmpOp::Ne) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new BoolLit { v: ((self.l as BoolLit).v == (self.r as BoolLit).v) == (self.op == CmpOp::Eq) };
        }
    }
}
impl Logical {
    traversal fold() {
        walk;
        if self.l is BoolLit && self.r is BoolLit {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new BoolLit { v: logic(self.op, (self.l as BoolLit).v, (self.r as BoolLit).v) };
        }
    }
}
// !e on a bool literal, -e and ~e on an integer literal (`!` on an integer
// is an error, and stays). A replacement ends the traversal: no `else`.
impl Unary {
    traversal fold() {
        walk;
        if (self is Not && self.e is BoolLit) || (!(self is Not) && self.e is IntLit) {
            FOLDS = FOLDS + 1; CHANGED = true;
            if self is Not { self = new BoolLit { v: !(self.e as BoolLit).v }; }
            let v = (self.e as IntLit).v;
            self = new IntLit { v: if self is Neg { 0 - v } else { !v } };
        }
    }
}
impl Cond {
    // Only the branch taken is folded when the condition is a literal (the
    // replacement ends the traversal).
    traversal fold() {
        self.c.fold();
        if self.c is BoolLit {
            FOLDS = FOLDS + 1; CHANGED = true;
            if (self.c as BoolLit).v {
                self.a.fold();
                self = self.a;
            }
            self.b.fold();
            self = self.b;
        }
        self.a.fold();
        self.b.fold();
    }
}
