// LANGUAGE §8.5 and §8.8: array built-ins, list insert and remove, pure
// functions that read nodes.
global LOG: [i64] = [];
abstract tree Expr { traversal check() {} }
tree Const : Expr { v: i64; }
tree Add : Expr { child l: Expr; child r: Expr; }
tree Block : Expr {
    child items: [Expr];
    xs: [str];
    n: i64;
    traversal check() {
        self.items.insert(len(self.items), new Const { v: 1 });
        self.items.insert(0, copy(self.items[0]));
        if len(self.items) > 3 { self.items.remove(1); }
        self.xs = append(self.xs, "a");
        self.xs = insert_at(concat(self.xs, ["b", "c"]), 1, "d");
        self.xs = remove_at(slice(self.xs, 0, len(self.xs)), 0);
        LOG = append(LOG, consts(self) + deep(self, 2));
        for e in self.items {
            e.check();
            if is_zero(e) { self.n = self.n + 1; }
        }
    }
}
pure fn is_zero(e: Expr) -> bool = e is Const && (e as Const).v == 0;
pure fn consts(b: Block) -> i64 {
    let k = 0;
    for e in b.items {
        if e is Const { k = k + 1; }
    }
    return k + len(b.items);
}
pure fn deep(e: Expr, limit: i64) -> i64 {
    if e is Add {
        let l = (e as Add).l;
        if is_zero(l) { return limit; }
    }
    return 0;
}
fuse main(root: Block) { root.check(); }
