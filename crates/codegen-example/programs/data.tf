// Data constructs of LANGUAGE.md §7.4-7.6, one operation per `op`: the
// hand-computed cases in `data_cases.json` run this program in every
// engine (tests/data_cases.rs).

tree Case {
    op: str;
    a: i64;
    b: i64;
    s: str;
    t: str;
    x: f64;
    i: i64;
    r: str;
    flag: bool;
    traversal eval() {
        if self.op == "and" { self.i = self.a & self.b; }
        if self.op == "or" { self.i = self.a | self.b; }
        if self.op == "xor" { self.i = self.a ^ self.b; }
        if self.op == "shl" { self.i = self.a << self.b; }
        if self.op == "shr" { self.i = self.a >> self.b; }
        if self.op == "not" { self.i = !self.a; }
        if self.op == "prec" { self.i = self.a + self.b << 1 & 12 | self.a ^ 3; }
        if self.op == "prec2" { self.flag = self.a & 1 == 1 | 0; }
        if self.op == "concat" { self.r = self.s + self.t + "!"; }
        if self.op == "lt" { self.flag = self.s < self.t; }
        if self.op == "le" { self.flag = self.s <= self.t; }
        if self.op == "gt" { self.flag = self.s > self.t; }
        if self.op == "ge" { self.flag = self.s >= self.t; }
        if self.op == "to_str" { self.r = to_str(self.a) + "," + to_str(self.flag) + "," + to_str(self.x); }
        if self.op == "substr" { self.r = substr(self.s, self.a, self.b); }
        if self.op == "len" { self.i = len(self.s + self.t); }
    }
    traversal check() {
        if self.op == "substr" { self.i = len(self.r); }
    }
}

fuse run(root: Case) {
    root.eval();
    root.check();
}
