// Fields must exist on the static type.
record R { a: i64 }
abstract tree Element { n: i64; }
tree Box : Element { width: i64; child content: Element; }
tree Other { width: i64; }
tree Leaf : Element {
    r: R;
    traversal f() {
        self.n = self.width;
        self.r.b = 1;
        self.n = self.r.c;
        self.n = self.n.m;
        self.zzz = 1;
    }
}
