// Pass 7, simplify: algebraic identities, operands first (the walk):
// `x + 0`, `x - 0`, `x * 1`, `x / 1`, `0 + x`, `1 * x`, `x * 0` (only if `x`
// is effect-free), `true && e`, `e || false`, `!!b`, `--x`,
// `!(a < b)` => `a >= b`. The node replaces itself (which ends its
// traversal); `FOLDS` counts.

pure fn negate(op: CmpOp) -> CmpOp = match op {
    CmpOp::Lt => CmpOp::Ge,
    CmpOp::Le => CmpOp::Gt,
    CmpOp::Gt => CmpOp::Le,
    CmpOp::Ge => CmpOp::Lt,
    CmpOp::Eq => CmpOp::Ne,
    CmpOp::Ne => CmpOp::Eq,
};

impl Code { traversal simplify() walk; }
impl Sugar { traversal simplify() {} }
impl Expr { traversal simplify() walk; }

impl Arith {
    traversal simplify() {
        walk;
        let lk = self.l is IntLit;
        let rk = self.r is IntLit;
        let a = if lk { (self.l as IntLit).v } else { 0 };
        let b = if rk { (self.r as IntLit).v } else { 0 };
        let op = self.op;
        // x + 0, x - 0, x | 0, x ^ 0, x << 0, x >> 0, x * 1, x / 1  =>  x
        if rk && ((b == 0 && (op == ArithOp::Add || op == ArithOp::Sub || op == ArithOp::BitOr
                || op == ArithOp::BitXor || op == ArithOp::Shl || op == ArithOp::Shr))
                || (b == 1 && (op == ArithOp::Mul || op == ArithOp::Div))) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = self.l;
        }
        // 0 + x, 0 | x, 0 ^ x, 1 * x  =>  x
        if lk && ((a == 0 && (op == ArithOp::Add || op == ArithOp::BitOr || op == ArithOp::BitXor))
                || (a == 1 && op == ArithOp::Mul)) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = self.r;
        }
        // x * 0, 0 * x, x & 0, 0 & x  =>  0, when x has no effect
        if (op == ArithOp::Mul || op == ArithOp::BitAnd) && ((rk && b == 0 && self.l.effect_free) || (lk && a == 0 && self.r.effect_free)) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new IntLit { v: 0 };
        }
    }
}
impl Logical {
    traversal simplify() {
        walk;
        if self.l is BoolLit {
            // true && r => r, false || r => r; false && r => false, true || r => true
            FOLDS = FOLDS + 1; CHANGED = true;
            if (self.l as BoolLit).v == (self.op == LogicOp::And) { self = self.r; } else { self = self.l; }
        }
        if self.r is BoolLit && (self.r as BoolLit).v == (self.op == LogicOp::And) {
            // l && true => l, l || false => l
            FOLDS = FOLDS + 1; CHANGED = true;
            self = self.l;
        }
    }
}
impl Neg {
    traversal simplify() {
        walk;
        if self.e is Neg { FOLDS = FOLDS + 1; CHANGED = true; self = (self.e as Neg).e; }
    }
}
impl Not {
    traversal simplify() {
        walk;
        if self.e is Not { FOLDS = FOLDS + 1; CHANGED = true; self = (self.e as Not).e; }
        if self.e is Compare && self.e.ty == Ty::Bool {
            // !(a < b) => a >= b (on integers; == and != on bools too)
            FOLDS = FOLDS + 1; CHANGED = true;
            let c = (self.e as Compare);
            self = new Compare { op: negate(c.op), l: c.l, r: c.r, ty: Ty::Bool, effect_free: c.effect_free };
        }
    }
}
