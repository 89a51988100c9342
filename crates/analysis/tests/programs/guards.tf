global acc: Pair = Pair { a: 0, b: 0 };
global limit: i64 = 3;
record Pair { a: i64, b: i64 }
pure fn clamp(x: i64, hi: i64) -> i64 {
    let r = x;
    if r > hi { r = hi; }
    for i in 0..2 { r = r + i - i; }
    return r;
}
abstract tree N {
    n: i64;
    q: Pair;
    traversal go(d: i64) { self.tick(); if d > 0 { self.go2(d - 1); } }
    traversal go2(d: i64) {}
    traversal tick() { acc.a = acc.a + self.n; }
}
tree Leaf : N {
    traversal go2(d: i64) { self.q.b = d; }
}
tree Two : N {
    child a: N;
    child b: N;
    traversal go2(d: i64) {
        if self.a.n > limit {
            self.a.go(d);
        } else {
            if self.b is Two {
                let t = (self.b as Two).a;
                if t is Two {
                    let u = (t as Two).b;
                    self.b = (self.b as Two).a;
                    u.n = clamp(u.n, 9);
                    t.n = 1;
                } else {
                    self.b = (self.b as Two).b;
                }
                self.b.go(d);
                return;
            }
        }
        self.b.go2(d);
        self.q = acc;
    }
}
tree Many : N {
    child xs: [N];
    child tail: N;
    traversal go2(d: i64) {
        for x in self.xs {
            if x.n == 0 { return; }
            x.go(d);
            if x is Two && (x as Two).a is Two {
                let y = ((x as Two).a as Two).a;
                let z = ((x as Two).a as Two).b;
                (x as Two).a = ((x as Two).a as Two).b;
                y.n = y.n + 1;
                z.n = z.n + 1;
                x.q.a = (x as Two).b.n;
            }
        }
        self.tail.go2(d);
        acc = Pair { a: acc.b, b: self.n };
    }
}
