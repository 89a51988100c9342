// A loop after a loop that may replace elements (docs/src/fusion.md,
// "Loops over an edited list"): `lower` replaces each `Inc` by an `Add`,
// one node in its place, and `number`'s loop does more than call the
// element: it adds up the `Add`s it meets. Unfused, `number` iterates over
// the list `lower` edited; merged, its call joins `lower`'s on each element
// and its `is` test reads the node now standing in the element's place.
abstract tree S {
    n: i64;
    traversal lower() {}
    traversal number(k: i64) { self.n = k; }
}
tree Inc : S {
    traversal lower() { self = new Add { v: 1 }; }
}
tree Add : S {
    v: i64;
}
tree Blk : S {
    child stmts: [S];
    traversal lower() { for s in self.stmts { s.lower(); } }
    traversal number(k: i64) {
        let i = k;
        for s in self.stmts {
            s.number(i);
            if s is Add { i = i + (s as Add).v; }
        }
        self.n = i;
    }
}
fuse go(root: Blk) { root.lower(); root.number(0); }
