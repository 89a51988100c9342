// `while COND limit N` and `break;` in traversals and fuse items
// (LANGUAGE §8.6): limits from parameters, fields and globals, locals
// carried across iterations (strings, records, maps), `break` and
// `return` inside loops, calls on `self`, on children (consecutive ones
// fused within an iteration) and on loop variables inside loops, loops inside `for` and `for` inside loops, and
// a condition that divides by zero when it is read.
global G: i64 = 2;
global hits: i64 = 0;
global done: bool = false;
global rounds: i64 = 0;
record Acc { n: i64, s: str }

abstract tree Node {
    n: i64;
    max: i64;
    zero: i64;
    tag: str;
    traversal settle(k: i64);
    traversal bump() { self.n = self.n + 1; }
    traversal tally(d: i64) { self.n = self.n + d; }
}

tree Func : Node {
    child body: Node;
    child items: [Node];
    changed: bool;
    traversal settle(k: i64) {
        self.changed = true;
        let m: {i64: str} = {};
        let acc = Acc { n: 0, s: "" };
        let text: str = self.tag;
        while self.changed limit k + self.max {
            self.changed = false;
            // Consecutive calls on one child fuse within an iteration;
            // `tally(hits)` reads a global `settle` writes: it stays
            // apart.
            self.body.settle(k);
            self.body.bump();
            self.body.tally(k + self.n);
            self.body.tally(hits);
            for x in self.items {
                x.tally(1);
                if x.n < 5 { self.changed = true; }
            }
            m[self.n] = text;
            text = text + "a";
            acc = Acc { n: acc.n + 1, s: acc.s + text };
            self.bump();
            if self.n > 20 { break; }
        }
        for x in self.items {
            while x.n < 3 limit 2 {
                x.bump();
            }
        }
        self.tag = acc.s + to_str(len(m)) + to_str(acc.n);
        while true limit G {
            hits = hits + 1;
            if hits % 2 == 0 { return; }
        }
        self.n = self.n * 2;
    }
}

tree Leaf : Node {
    traversal settle(k: i64) {
        while 1 / (self.zero % 3) == 0 limit k - 2 { self.n = self.n + 1; }
        let i: i64 = 0;
        let s: str = "";
        while i < 3 limit self.max {
            i = i + 1;
            s = s + to_str(i);
            self.n = self.n + i;
            if self.n > 50 { break; }
            while false limit 0 { self.n = 0; }
        }
        self.tag = s;
    }
}

fuse run(root: Node, k: i64) {
    done = false;
    while !done limit k {
        root.settle(k);
        root.bump();
        G = G + 1;
        break;
    }
    root.settle(1);
}

fuse fix(root: Node) {
    done = false;
    while !done limit G + 1 {
        done = true;
        root.tally(1);
        rounds = rounds + 1;
        root.settle(2);
    }
}
