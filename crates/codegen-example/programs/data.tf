// Data constructs of LANGUAGE.md §7.4-7.6, one operation per `op`: the
// hand-computed cases in `data_cases.json` run this program in every
// engine (tests/data_cases.rs).

enum Op { Add, Sub, Mul, Shl }

record Scope { names: {str: i64}, depth: i64 }

global counts: {str: i64} = {"x": 10};

tree Case {
    op: str;
    e: Op;
    m: {str: i64};
    ks: [str];
    vs: [i64];
    sc: Scope;
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
        if self.op == "match_enum" { self.i = match self.e { Op::Add | Op::Sub => 1, Op::Mul => 2, _ => 3 }; }
        if self.op == "match_int" { self.r = match self.a { 0 => "zero", -5 => "minus five", 1 | 2 => "small", _ => "other" }; }
        if self.op == "match_str" { self.i = match self.s { "a" => 1, "b" => 2, _ => 0 }; }
        if self.op == "match_bool" { self.i = match self.flag { true => 1, false => 0 }; }
        if self.op == "enum_str" { self.r = to_str(self.e); self.flag = self.e == Op::Mul; }
        if self.op == "map_index" { self.i = self.m[self.s]; }
        if self.op == "map_get" { self.i = get(self.m, self.s, -1); }
        if self.op == "map_contains" { self.flag = contains(self.m, self.s); }
        if self.op == "map_len" { self.i = len(self.m); }
        if self.op == "map_insert" { self.m = insert(self.m, self.s, self.a); }
        if self.op == "map_remove" { self.m = remove(self.m, self.s); }
        if self.op == "map_keys" { self.ks = keys(self.m); self.vs = values(self.m); }
        if self.op == "map_assign" { self.m[self.s] = self.a; }
        if self.op == "map_literal" { self.m = {"b": 2, "a": 1, self.s: self.a}; }
        if self.op == "map_local" {
            let env: {i64: str} = {};
            env[3] = "c";
            env[1] = "a";
            env[3] = "d";
            self.r = to_str(len(env)) + values(env)[0] + values(env)[1];
        }
        if self.op == "map_param" { self.scoped(self.m); }
        if self.op == "map_global" {
            counts[self.s] = get(counts, self.s, 0) + 1;
            counts[self.s] = counts[self.s] + 1;
            self.i = counts[self.s];
        }
        if self.op == "map_eq" { self.flag = insert(self.m, "z", 0) == {"z": 0}; }
        if self.op == "map_keys_order" {
            let w: {Op: i64} = {Op::Shl: 4, Op::Add: 1};
            let b: {bool: i64} = {true: 1, false: 0};
            let n: {i64: i64} = {10: 0, -3: 0, 2: 0};
            self.r = to_str(keys(w)[0]) + to_str(keys(w)[1]) + to_str(keys(b)[0]) + to_str(keys(n)[0]);
        }
        if self.op == "map_record" { self.sc.names[self.s] = self.a; self.sc.depth = len(self.sc.names); }
        if self.op == "map_nested" {
            let mm: {str: {i64: bool}} = {};
            mm["a"] = {1: true};
            self.flag = mm["a"][1] && !contains(mm, "b");
        }
        if self.op == "map_index_keys" {
            let n: {i64: str} = {3: "c"};
            let w: {Op: i64} = {Op::Add: 1};
            let b: {bool: i64} = {true: 2};
            self.r = n[self.a] + to_str(w[self.e] + b[self.flag]);
        }
        // Maps updated in place where the generated code owns them: other
        // values holding the same map must not change.
        if self.op == "map_alias" {
            let a = self.m;
            let b = a;
            b[self.s] = self.a;
            b = insert(b, "zz", 1);
            b = remove(b, "b");
            self.m = a;
            self.i = len(b);
            self.ks = keys(b);
        }
        // Keys iterated without collecting them: the loop sees the keys the
        // map had when it started, whatever the body does to the map.
        if self.op == "map_keys_mutate" {
            let m = self.m;
            for k in keys(m) {
                m[k + "!"] = len(m);
                m = remove(m, k);
            }
            self.m = m;
        }
        if self.op == "map_keys_field" {
            for k in keys(self.m) {
                self.m = remove(self.m, k);
                self.i = self.i + 1;
            }
            for v in values(self.sc.names) { self.i = self.i + v; }
        }
        if self.op == "map_self_assign" {
            let e = self.m;
            let keep = e;
            for k in keys(keep) { e = insert(remove(e, k), k + k, 0); }
            self.m = keep;
            self.ks = keys(e);
        }
        if self.op == "map_moves" {
            let old = self.m;
            self.m = grow(old, self.s);
            self.i = len(old);
        }
        if self.op == "map_update_fails" {
            let m = self.m;
            m = insert(m, self.ks[self.a], 1);
            self.m = m;
        }
    }
    traversal scoped(env: {str: i64}) {
        env["x"] = 9;
        env = remove(env, "y");
        self.i = len(env) * 10 + env["x"];
    }
    traversal check() {
        if self.op == "substr" { self.i = len(self.r); }
    }
}

fuse run(root: Case) {
    root.eval();
    root.check();
}

// Locals at their last use move (`a` into `b`'s map, `m` into `a`); `a`
// is read again after `b` is made, so `b` starts as a copy.
pure fn grow(m: {str: i64}, k: str) -> {str: i64} {
    let a = m;
    a[k] = len(a);
    let b = a;
    b = remove(b, k);
    return insert(b, k + "2", len(a));
}
