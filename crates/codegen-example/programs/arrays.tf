// Array built-ins (LANGUAGE.md §8.5), list inserts and removes, and pure
// functions that read nodes (§8.8), one operation per `op`: the
// hand-computed cases in `arrays_cases.json` run this program in every
// engine (tests/arrays_cases.rs).

global G: [i64] = [1];

abstract tree E {}
tree Num : E { v: i64; }
tree Neg : E { child e: E; }

tree Case {
    child items: [E];
    child e: E;
    op: str;
    xs: [i64];
    ys: [i64];
    ss: [str];
    i: i64;
    j: i64;
    r: i64;
    flag: bool;
    traversal run() {
        if self.op == "append" { self.xs = append(self.xs, self.i); }
        if self.op == "append_copy" { self.ys = append(self.xs, self.i); }
        if self.op == "append_local" {
            let a = self.xs;
            a = append(a, self.i);
            a = append(a, self.j);
            self.ys = a;
        }
        if self.op == "append_global" { G = append(G, self.i); self.ys = G; }
        if self.op == "concat" { self.xs = concat(self.xs, self.ys); }
        if self.op == "concat_value" { self.ys = concat(self.ys, concat(self.xs, [self.i])); }
        if self.op == "slice" { self.xs = slice(self.xs, self.i, self.j); }
        if self.op == "slice_value" { self.ys = slice(self.xs, self.i, self.j); }
        if self.op == "insert_at" { self.xs = insert_at(self.xs, self.i, self.j); }
        if self.op == "insert_at_value" { self.ys = insert_at(self.xs, self.i, self.j); }
        if self.op == "remove_at" { self.xs = remove_at(self.xs, self.i); }
        if self.op == "remove_at_value" { self.ys = remove_at(self.xs, self.i); }
        if self.op == "strings" { self.ss = insert_at(append(self.ss, "z"), 0, "a"); }
        if self.op == "is_zero" { self.flag = is_zero(self.e); }
        if self.op == "depth" { self.r = depth(self.e); }
        if self.op == "count" { self.r = count(self); }
        if self.op == "nth" { self.r = nth(self, self.i); }
        if self.op == "list_insert" {
            self.items.insert(self.i, new Num { v: self.j });
            self.r = count(self);
        }
        if self.op == "list_remove" {
            self.items.remove(self.i);
            self.r = count(self);
        }
    }
}

pure fn is_zero(e: E) -> bool = e is Num && (e as Num).v == 0;

pure fn depth(e: E) -> i64 {
    if e is Num { return (e as Num).v; }
    let inner = (e as Neg).e;
    if inner is Num { return 100 + (inner as Num).v; }
    return 200 + ((inner as Neg).e as Num).v;
}

pure fn count(c: Case) -> i64 {
    let k = 0;
    for x in c.items {
        k = k + 1;
        if is_zero(x) { k = k + 100; }
    }
    return k * 1000 + len(c.items);
}

pure fn nth(c: Case, i: i64) -> i64 = depth(c.items[i]);

fuse run(root: Case) { root.run(); }
