// Optional children (LANGUAGE §8.7): calls on them (plain and guarded),
// `is none` and `is T`, emptying, filling, moves out of them, aliases of
// them and reads through them, which fail when they are empty.
global G: i64 = 0;
global H: i64 = 1;
abstract tree E {
    child t: Leaf?;
    traversal a(k: i64) {}
    traversal b() {}
}
tree Leaf : E {
    v: i64;
    traversal a(k: i64) {
        self.v = self.v + k;
        self.t.a(k + 1);
        if self.t is none { G = G + 1; }
    }
    traversal b() {
        if !(self.t is none) && !(self.t.t is none) { self.t = self.t.t; }
        H = H * 3 + self.v;
    }
}
tree Pair : E {
    child l: E?;
    child r: E;
    w: i64;
    traversal a(k: i64) {
        self.l.a(k);
        if self.l is Leaf { self.w = self.w + (self.l as Leaf).v; }
        if self.w > 3 { self.l = none; }
        self.r.a(self.w);
        if !(self.t is none) { let x = self.t; x.v = x.v + 1; }
        self.t.b();
    }
    traversal b() {
        if self.l is none { self.l = new Leaf { v: self.w }; }
        self.l.b();
        if self.l is Pair { self.l = (self.l as Pair).r; }
        if self.w > 5 { H = H * 3 + self.t.v; }
        self.r.b();
        self.t = new Leaf { v: 1, t: none };
    }
}
