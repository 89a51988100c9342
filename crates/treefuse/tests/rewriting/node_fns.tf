// LANGUAGE.md §8.8: pure functions that read nodes (`is`, casts, children,
// `for` over a list, calls of one another), called by two traversals with
// tree paths: `self`, a child, a loop variable.
abstract tree E { traversal fold() {} traversal count() {} }
tree Num : E { v: i64; }
tree Neg : E { child e: E; }
tree Add : E {
    child l: E;
    child r: E;
    zeros: i64;
    size: i64;
    traversal fold() {
        self.l.fold();
        self.r.fold();
        self.zeros = zeros(self.l) + zeros(self.r);
        if is_zero(self.r) { self.r = new Num { v: 1 }; }
    }
    traversal count() {
        self.l.count();
        self.r.count();
        self.size = size(self);
    }
}
tree List : E {
    child items: [E];
    n: i64;
    traversal fold() {
        for x in self.items {
            x.fold();
            self.n = self.n * 10 + zeros(x);
        }
        self.n = self.n + zeros(self);
    }
    traversal count() {
        for x in self.items {
            x.count();
            if is_zero(x) { self.n = self.n + 100; }
        }
    }
}
pure fn is_zero(e: E) -> bool = e is Num && (e as Num).v == 0;
pure fn zeros(e: E) -> i64 {
    if is_zero(e) { return 1; }
    let k = 0;
    if e is Neg && is_zero((e as Neg).e) { k = 10; }
    if e is Add {
        if is_zero((e as Add).l) { k = k + 1; }
        if is_zero((e as Add).r) { k = k + 1; }
    }
    if e is List {
        for x in (e as List).items {
            if is_zero(x) { k = k + 1; }
        }
    }
    return k;
}
pure fn size(e: E) -> i64 = if e is Add { 1 + small((e as Add).l) + small((e as Add).r) } else { small(e) };
pure fn small(e: E) -> i64 = if e is Num { 1 } else { 5 };
fuse main(root: E) { root.fold(); root.count(); }
