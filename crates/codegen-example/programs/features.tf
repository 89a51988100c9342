// Features the examples do not use, for the differential tests of the
// generated code: host functions, strings, nested records and arrays with
// element writes, fuse parameters, aliases, casts that fail, runtime errors,
// `return` in traversals that are fused, list children and guarded calls,
// `while` loops and global assignments in fuse items,
// and arrays lent to pure functions (read-only array parameters are `&[T]`
// in the generated code, loops over them run in place).

global total: i64 = 0;
global last: str = "";
global hist: [i64] = [0, 0, 0];

record Pt { x: i64, y: i64 }
record Span2 { lo: Pt, hi: Pt, tags: [i64] }
record Tag { name: str, w: i64 }

global grid: [[i64]] = [[1, 2], [3], []];

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

// Read-only array parameters: lent, iterated in place, copied out, compared.
pure fn weigh(tags: [Tag], extra: [i64], rows: [[i64]], k: i64) -> i64 {
    let total: i64 = 0;
    for t in tags {
        total = total + t.w * k + len(t.name);
        if t == tags[0] {
            total = total + 1;
        }
        let again: Tag = t;
        total = total + again.w;
    }
    let copy: [i64] = extra;
    // The body assigns the local it iterates: the loop sees the old value.
    for x in copy {
        copy[0] = copy[0] + x;
        total = total + x;
    }
    if extra == [1, 2, 3] {
        total = total + 1000;
    }
    for row in rows {
        for x in row {
            total = total + x * 10;
        }
        total = total + sum_all(row);
    }
    return total + copy[0] + len(extra) + sum_all(extra);
}

// A lent parameter passed on to another function.
pure fn sum_all(xs: [i64]) -> i64 {
    let s: i64 = 0;
    for x in xs {
        s = s + x;
    }
    return s;
}

// An assigned array parameter stays a value.
pure fn bump(xs: [i64]) -> [i64] {
    xs[0] = xs[0] + 1;
    return xs;
}

abstract tree Node {
    v: i64;
    sp: Span2;
    s: str = "x";
    traversal sum(k: i64) {}
    traversal mark() {}
    traversal scan() {}
    traversal scan2() {}
    traversal tally() {
        let tags: [Tag] = [Tag { name: self.s, w: self.v }, Tag { name: "ab", w: 2 }];
        self.v = weigh(tags, self.sp.tags, grid, self.v % 5) + sum_all(bump(self.sp.tags));
    }
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
    // Two loops over the same list, fused element by element; `scan` can
    // stop early (a participant that can be inactive) and binds locals in
    // its loop body that its later statements use.
    traversal scan() {
        for c in self.kids {
            if c.v > 40 {
                return;
            }
            let w: i64 = c.v * 2;
            let s: Span2 = c.sp;
            c.v = w + 1;
            self.sp.lo.x = s.lo.x + w;
        }
    }
    traversal scan2() {
        for c in self.kids {
            let z: i64 = c.v;
            self.v = self.v + z;
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
    root.scan();
    root.scan2();
    root.tally();
}

// A fixpoint loop and global assignments in a fuse item: the condition
// reads a global the traversals write and a parameter.
fuse settle(root: Node, k: i64) {
    total = k;
    while total < 40 && k != 3 limit 3 {
        last = "round";
        root.sum(k);
        root.mark();
    }
    hist = [total, k, 0];
    root.scan();
}
