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

// Whether `e` is the literal `v`.
pure fn is_int(e: Expr, v: i64) -> bool = e is IntLit && (e as IntLit).v == v;
pure fn is_bool(e: Expr, v: bool) -> bool = e is BoolLit && (e as BoolLit).v == v;

impl Code { traversal simplify() walk; }
impl Sugar { traversal simplify() {} }
impl Expr { traversal simplify() walk; }

impl Arith {
    traversal simplify() {
        walk;
        let op = self.op;
        // 0 is neutral on both sides of + | ^ and on the right of - << >>, 1 on
        // both sides of * and on the right of /.
        let zero_both = op == ArithOp::Add || op == ArithOp::BitOr || op == ArithOp::BitXor;
        let zero_right = zero_both || op == ArithOp::Sub || op == ArithOp::Shl || op == ArithOp::Shr;
        let one_right = op == ArithOp::Mul || op == ArithOp::Div;
        // x + 0, x - 0, x | 0, x ^ 0, x << 0, x >> 0, x * 1, x / 1  =>  x
        if (is_int(self.r, 0) && zero_right) || (is_int(self.r, 1) && one_right) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = self.l;
        }
        // 0 + x, 0 | x, 0 ^ x, 1 * x  =>  x
        if (is_int(self.l, 0) && zero_both) || (is_int(self.l, 1) && op == ArithOp::Mul) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = self.r;
        }
        // x * 0, 0 * x, x & 0, 0 & x  =>  0, when x has no effect
        let absorbing = op == ArithOp::Mul || op == ArithOp::BitAnd;
        if absorbing && ((is_int(self.r, 0) && self.l.effect_free)
                || (is_int(self.l, 0) && self.r.effect_free)) {
            FOLDS = FOLDS + 1; CHANGED = true;
            self = new IntLit { v: 0 };
        }
    }
}
impl Logical {
    traversal simplify() {
        walk;
        let and = self.op == LogicOp::And;
        // true && r => r, false || r => r; false && r => false, true || r => true
        if is_bool(self.l, and) { FOLDS = FOLDS + 1; CHANGED = true; self = self.r; }
        if is_bool(self.l, !and) { FOLDS = FOLDS + 1; CHANGED = true; self = self.l; }
        // l && true => l, l || false => l
        if is_bool(self.r, and) { FOLDS = FOLDS + 1; CHANGED = true; self = self.l; }
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
