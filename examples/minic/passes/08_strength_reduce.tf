// Pass 8, strength_reduce: `x * 2^k` and `2^k * x` => `x << k` (not `/` or
// `%`: they round differently on negative numbers).

// k when v == 2^k (1 <= k <= 62), else -1.
pure fn log2_exact(v: i64) -> i64 {
    for k in 1..63 {
        if v == 1 << k { return k; }
    }
    return -1;
}

impl Code { traversal strength_reduce() walk; }
impl Sugar { traversal strength_reduce() {} }
impl Expr { traversal strength_reduce() walk; }

impl Arith {
    traversal strength_reduce() {
        walk;
        let kl = if self.l is IntLit { log2_exact((self.l as IntLit).v) } else { -1 };
        let kr = if self.r is IntLit { log2_exact((self.r as IntLit).v) } else { -1 };
        if self.op == ArithOp::Mul && kr > 0 {
            self = new Arith {
                op: ArithOp::Shl, l: self.l, r: new IntLit { v: kr }, ty: Ty::Int, effect_free: self.effect_free,
            };
        } else if self.op == ArithOp::Mul && kl > 0 {
            self = new Arith {
                op: ArithOp::Shl, l: self.r, r: new IntLit { v: kl }, ty: Ty::Int, effect_free: self.effect_free,
            };
        }
    }
}
