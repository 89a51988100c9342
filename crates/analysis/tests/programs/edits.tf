global changed: bool = false;
global log: [i64] = [0, 0, 0];
record Pair { a: i64, b: i64 }
abstract tree E {
    v: i64;
    p: Pair;
    traversal simp() {}
    traversal sum() {}
    traversal mark(k: i64) {}
}
tree Lit : E {
    traversal sum() { self.p.a = self.v; }
    traversal mark(k: i64) {
        self.v = self.v + k;
        log[k % 3] = self.v;
    }
}
tree Add : E {
    child l: E;
    child r: E;
    traversal simp() {
        self.l.simp();
        self.r.simp();
        if self.l is Add {
            let x = (self.l as Add).r;
            let y = (self.l as Add).l;
            self.l = (self.l as Add).l;
            x.v = 7;
            y.v = y.v + 1;
            changed = true;
        }
        if self.r is Lit && self.r.v == 0 {
            self.v = 1;
            return;
        }
        self.sum();
    }
    traversal sum() {
        self.l.sum();
        self.r.sum();
        self.v = self.l.v + self.r.v;
        self.p = Pair { a: self.l.p.a, b: self.r.p.b / (self.v + 1) };
    }
    traversal mark(k: i64) {
        if k > 0 { self.l.mark(k - 1); }
        self.r.mark(k);
        if changed { self.p.b = log[0]; }
    }
}
tree Neg : E {
    child e: E;
    traversal simp() {
        let before = self.e;
        self.e.simp();
        if self.e is Neg {
            let inner = (self.e as Neg).e;
            self.e = new Add { l: (self.e as Neg).e, r: new Lit { v: 1 } };
            inner.v = inner.v + 1;
            before.v = 3;
        }
        self.v = 0 - self.e.v;
    }
    traversal sum() { self.e.sum(); self.v = self.e.v; }
    traversal mark(k: i64) { self.e.mark(k * 2); }
}
tree Seq : E {
    child items: [E];
    child last: E;
    traversal simp() {
        for x in self.items {
            x.simp();
            x.v = x.v * 2;
            if x is Add {
                let z = (x as Add).l;
                z.v = 3;
            }
        }
        self.last.simp();
        let w = self.last;
        self.last = new Seq { items: (self.last as Seq).items, last: new Lit {} };
        w.v = 9;
        self.v = 0;
    }
    traversal sum() {
        let t = 0;
        for x in self.items {
            x.sum();
            t = t + x.v;
        }
        self.last.sum();
        self.v = t;
    }
    traversal mark(k: i64) {
        for x in self.items { x.mark(k); }
        if k == 1 { return; }
        self.last.mark(k + 1);
    }
}
