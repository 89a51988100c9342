record R0 { a: i64, b: bool }
global g0: i64 = -1;
global g1: i64 = 6;
pure fn pf0(a: i64, b: i64) -> i64 = (a * 3 + b) % 7;
pure fn pf1(a: i64, b: i64) -> i64 {
    let s: i64 = a;
    return s;
}
pure fn pf2(r: R0) -> i64 = if r.b { r.a } else { -r.a };
abstract tree A {
    z: [i64];
    y: i64;
    traversal f2();
}
tree A1 : A {
    s: [i64];
    r: bool = true;
    traversal f2() {
        self.y = self.y + (-1 * self.y);
    }
}
tree A2 : A1 {
}
tree A3 : A1 {
}
tree A4 : A1 {
    child kids: [A];
    w: i64 = 0;
    arr: [i64];
    traversal f2() {
        for x30 in self.kids {
            x30.f2();
        }
        for x37 in self.kids {
                    return;
        }
    }
}
fuse main0(root: A) {
    root.f2();
}
fuse main1(root: A) {
}
