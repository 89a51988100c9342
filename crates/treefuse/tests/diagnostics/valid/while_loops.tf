// `while COND limit N` and `break;` in traversals and fuse items
// (LANGUAGE §8.6); `break` and `limit` stay ordinary names elsewhere.
global limit: i64 = 3;
global changed: bool = true;
record Limit { n: i64 }
tree Node {
    child kids: [Node];
    child next: Leaf;
    n: i64;
    limit: i64;
    traversal break() { self.n = self.n + 1; }
    traversal f(cap: i64) {
        let break: i64 = 0;
        break = break + 1;
        while self.n < cap limit limit {
            self.n = self.n + break;
            if self.n > 100 { break; }
            for x in self.kids { x.break(); }
            self.next.g();
        }
        while true limit (Limit { n: self.limit }).n {
            self.break();
            if self.n == 7 { return; } else { break; }
        }
        while changed limit cap * 2 {
            while false limit 0 { break; }
            changed = false;
        }
    }
}
tree Leaf {
    traversal g() { }
}
fuse run(root: Node, cap: i64) {
    while changed limit cap {
        root.f(cap);
        while false limit limit { break; }
    }
}
