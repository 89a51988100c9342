// Features the examples do not use, for the differential tests of the
// generated code: host functions, strings, nested records and arrays with
// element writes, fuse parameters, aliases, casts that fail, runtime errors,
// `return` in traversals that are fused, list children and guarded calls.

global total: i64 = 0;
global last: str = "";
global hist: [i64] = [0, 0, 0];

record Pt { x: i64, y: i64 }
record Span2 { lo: Pt, hi: Pt, tags: [i64] }

// Supplied by the host (`crate::host` in the generated code).
pure fn scale(a: i64) -> i64;
pure fn label(n: i64) -> str;

pure fn clamp3(a: i64) -> i64 {
    let r: i64 = a % 3;
    if r < 0 {
        return r + 3;
    }
    return r;
}

abstract tree Node {
    v: i64;
    sp: Span2;
    s: str = "x";
    traversal sum(k: i64) {}
    traversal mark() {}
}

tree Leaf : Node {
    traversal sum(k: i64) {
        self.v = scale(self.v + k);
        total = total + 100 / (self.v - 3);
        hist[clamp3(self.v)] = hist[clamp3(self.v)] + 1;
    }
    traversal mark() {
        self.s = label(self.v);
        self.sp.lo.x = len(self.s);
        if self.v > 5 {
            return;
        }
        self.sp.tags = [1, 2, 3];
        self.sp.tags[clamp3(self.v)] = 9;
        self.sp.hi = Pt { x: self.sp.tags[0], y: self.sp.lo.x };
        last = self.s;
    }
}

tree Pair : Node {
    child l: Node;
    child r: Node;
    traversal sum(k: i64) {
        self.l.sum(k + 1);
        if self.v < -50 {
            return;
        }
        self.r.sum(k * 2);
        self.v = self.l.v + self.r.v;
    }
    traversal mark() {
        self.l.mark();
        let a = self.l;
        a.v = a.v + 1;
        if self.v > 0 {
            self.r.mark();
        }
        if self.r is Pair {
            self.sp.lo.y = (self.r as Pair).l.v;
        }
        if self.v % 5 == 4 {
            self.sp.hi.x = (self.l as Pair).v;
        }
    }
}

tree Many : Node {
    child kids: [Node];
    traversal sum(k: i64) {
        for c in self.kids {
            c.sum(k);
            self.v = self.v + c.v;
        }
    }
    traversal mark() {
        for c in self.kids {
            if c is Leaf {
                c.mark();
            }
        }
        if self.v == 7 {
            return;
        }
        self.s = "many";
    }
}

fuse run(root: Node, k: i64) {
    root.sum(k);
    root.mark();
    root.sum(1);
}
