// Pass 1, desugar_assign:  x op= e, x++, x--  =>  x = x op e, x = x + 1, x = x - 1.
// The statement replaces itself; everything else walks down to the
// statements (expressions contain none).

impl Code { traversal desugar_assign() walk; }

impl CompoundAssign {
    traversal desugar_assign() {
        self = new Assign {
            name: self.name,
            value: new Arith { op: self.op, l: new Var { name: self.name }, r: self.value },
        };
    }
}
impl Step {
    traversal desugar_assign() {
        let op = if self is Incr { ArithOp::Add } else { ArithOp::Sub };
        self = new Assign {
            name: self.name,
            value: new Arith { op: op, l: new Var { name: self.name }, r: new IntLit { v: 1 } },
        };
    }
}
