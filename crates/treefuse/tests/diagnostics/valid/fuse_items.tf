// Fuse items with extra parameters; call arguments are constant
// expressions, extra parameters, or globals (read when the call runs).
global LIMIT: i64 = 3;
record Opt { on: bool, k: f64 }

tree Root {
    v: i64;
    traversal a(n: i64) { self.v = self.v + n; }
    traversal b(o: Opt, s: str) { if o.on { self.v = len(s); } }
    traversal c() {}
}

fuse simple(root: Root) { root.c(); }
fuse with_params(r: Root, limit: i64, name: str, opt: Opt, flags: [bool]) {
    r.a(limit);
    r.a(limit * 2 + LIMIT);
    r.b(opt, name);
    r.b(Opt { on: true, k: 1.5 }, "x");
    r.a(len(flags));
}
fuse empty(root: Root) {}

// Global assignments and fixpoint loops (`limit` is an ordinary name
// elsewhere).
global changed: bool = false;
global limit: i64 = 2;
fuse settle(root: Root, rounds: i64) {
    changed = true;
    while changed && limit < rounds limit 8 {
        changed = false;
        limit = limit + 1;
        root.a(limit);
        while false limit 1 { root.c(); }
    }
    root.c();
}
