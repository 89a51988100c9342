// Pass 5, effects: `effect_free` of every expression: no call, and cannot
// fail (`/ % << >>` only with a literal right operand for which they are
// defined).

// Whether `a op b` is defined for this right operand (no division by zero,
// no shift outside 0..=63): only then may it be folded or called pure.
pure fn defined(op: ArithOp, b: i64) -> bool = match op {
    ArithOp::Div | ArithOp::Mod => b != 0,
    ArithOp::Shl | ArithOp::Shr => b >= 0 && b <= 63,
    _ => true,
};

impl Code { traversal effects() walk; }
impl Sugar { traversal effects() {} }

impl Expr { traversal effects() { self.effect_free = true; } }
impl Binary { traversal effects() { walk; self.effect_free = self.l.effect_free && self.r.effect_free; } }
impl Arith {
    traversal effects() {
        walk;
        // Division and shifts can fail unless the right operand is a
        // literal for which they are defined.
        let safe = match self.op {
            ArithOp::Div | ArithOp::Mod | ArithOp::Shl | ArithOp::Shr =>
                self.r is IntLit && defined(self.op, (self.r as IntLit).v),
            _ => true,
        };
        self.effect_free = self.l.effect_free && self.r.effect_free && safe;
    }
}
impl Unary { traversal effects() { walk; self.effect_free = self.e.effect_free; } }
impl Call { traversal effects() { walk; self.effect_free = false; } }
impl Cond {
    traversal effects() { walk; self.effect_free = self.c.effect_free && self.a.effect_free && self.b.effect_free; }
}
