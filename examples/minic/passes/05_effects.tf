// Pass 5, effects: `effect_free` of every expression: no call, and cannot
// fail (`/ % << >>` only with a literal right operand for which they are
// defined).

// Whether `l op r` is defined whatever `l` is: `/` and `%` need a literal
// right operand other than 0, shifts one in 0..=63. Only then may it be
// folded or called pure.
pure fn defined(op: ArithOp, r: Expr) -> bool = match op {
    ArithOp::Div | ArithOp::Mod => r is IntLit && (r as IntLit).v != 0,
    ArithOp::Shl | ArithOp::Shr => r is IntLit && (r as IntLit).v >= 0 && (r as IntLit).v <= 63,
    _ => true,
};

impl Code { traversal effects() walk; }
impl Sugar { traversal effects() {} }

impl Expr { traversal effects() { self.effect_free = true; } }
impl Binary { traversal effects() { walk; self.effect_free = self.l.effect_free && self.r.effect_free; } }
// Division and shifts can fail unless the right operand is a literal for
// which they are defined.
impl Arith {
    traversal effects() {
        walk;
        self.effect_free = self.l.effect_free && self.r.effect_free && defined(self.op, self.r);
    }
}
impl Unary { traversal effects() { walk; self.effect_free = self.e.effect_free; } }
impl Call { traversal effects() { walk; self.effect_free = false; } }
impl Cond {
    traversal effects() { walk; self.effect_free = self.c.effect_free && self.a.effect_free && self.b.effect_free; }
}
