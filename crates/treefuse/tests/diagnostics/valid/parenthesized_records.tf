// As in Rust, a record value in the head of `if` or `for` is written in
// parentheses (LANGUAGE.md §6); elsewhere it needs none.
record R { ok: bool, n: i64, xs: [i64] }

tree Leaf {
    n: i64;
    traversal f() {
        if (R { ok: true, n: 1, xs: [] }).ok {
            self.n = 1;
        }
        if self.n == (R { ok: false, n: 2, xs: [1] }).n {
            self.n = 2;
        }
        for x in (R { ok: true, n: 3, xs: [1, 2] }).xs {
            self.n = self.n + x;
        }
        for i in 0..(R { ok: true, n: 3, xs: [] }).n {
            self.n = self.n + i;
        }
        self.n = if (R { ok: true, n: 4, xs: [] }).ok { R { ok: true, n: 5, xs: [] }.n } else { 0 };
        let r = R { ok: true, n: 6, xs: [] };
        if r.ok { self.n = r.n; }
    }
}

fuse run(root: Leaf) { root.f(); }
