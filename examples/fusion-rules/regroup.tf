// Loop grouping (docs/src/fusion.md): `bump`'s loop commutes with the loop
// that builds `resolve`'s table, but `resolve`'s second loop must wait for
// the whole table. The fuser runs `bump` beside `use`, where both walk the
// bodies once, and leaves the table loop (and the shallow `sig`) alone.
tree Body {
    v: i64;
    traversal bump() { self.v = self.v + 1; }
    traversal use(t: {i64: i64}) { self.v = self.v * 2 + t[0]; }
}
tree Fn {
    name: i64;
    idx: i64;
    seen: i64;
    child body: Body;
    traversal bump() { self.body.bump(); }
    traversal sig() { self.seen = self.name; }
    traversal use(t: {i64: i64}) { self.body.use(t); }
}
tree Prog {
    child fns: [Fn];
    traversal bump() { for f in self.fns { f.bump(); } }
    traversal resolve() {
        let t: {i64: i64} = {};
        for f in self.fns {
            f.sig();
            t[f.idx] = f.name;
        }
        for f in self.fns { f.use(t); }
    }
}
fuse go(root: Prog) { root.bump(); root.resolve(); }
