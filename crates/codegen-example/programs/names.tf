// Names that collide with what generated code calls its own things:
// locals and parameters of generated functions (`t`, `cx`, `this`, `n`,
// `site`, `replaced`, `active_0`, `mask`, ...), generated types and
// helpers (`Tree`, `Globals`, `Cx`, `At`, `Fail`, `Site`, `Replaced`,
// `OpenList`, `NodeRef`, `div_int`, `to_value`, ...), generated functions
// (a traversal `run_unfused`, a traversal `x_fused` beside the entry
// point of `fuse x`), Rust keywords (`type`, `impl`, `mod`, `loop`; a
// tree field may not be named `type`, a record field may). The
// module generated from it must compile under `#![deny(warnings)]` and
// `clippy -D warnings`, and run like the interpreter.

global cx: i64 = 1;
global tree_: i64 = 0;
global globals: i64 = 2;
global type: str = "t";
global loop: i64 = 0;

record Tree { s: i64, t: i64, this: i64 }
record Globals { cx: i64, site: bool }
record At { line: i64, type: i64 }
// Fields that differ only by a leading underscore: constructor
// parameters `level` and `_level_2`, not `_level` (clippy's
// `duplicate_underscore_argument`).
record Level { level: i64, _level: bool }
enum Fail { Ok, Err, Some, None }
enum Site { Root, Listed }
// A field and a record field named like a variant of their own enum type:
// constructor parameters `mode: Mode` would be bindings with a variant's
// name (E0170), so the members are `mode_2`.
enum Mode { mode, Loud }
record Pick { mode: Mode, at: i64 }

pure fn div_int(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    return a / b;
}
pure fn enter(t: i64) -> i64 { return t + 1; }
pure fn schema(n: i64, cx: i64) -> i64 { return n * cx; }
pure fn to_value(x: i64) -> i64 { return x; }

abstract tree Replaced {
    s: i64;
    t: i64;
    n: i64;
    this: i64;
    cx: i64;
    site: i64;
    replaced: i64;
    active_0: i64;
    mask: i64;
    kind: i64;
    impl: i64;
    mod: i64;
    tr: Tree;
    at: At;
    g: Globals;
    f: Fail;
    mode: Mode;
    pick: Pick;
    traversal visit(t: i64, cx: i64) {}
    traversal run_unfused(n: i64) {}
    traversal x_fused() {}
    traversal prune() {}
}

tree NodeRef : Replaced {
    child this_child: Replaced;
    traversal visit(t: i64, cx: i64) {
        let this: i64 = t + cx;
        let site: i64 = this * 2;
        let replaced: i64 = site - 1;
        let active_0: i64 = replaced;
        let mask: i64 = div_int(active_0, cx);
        let s: i64 = enter(mask);
        let x: i64 = schema(s, 2);
        let k: i64 = to_value(x);
        self.this_child.visit(k, this);
        self.t = self.this_child.t + k;
        self.s = s;
        self.at.type = self.at.type + 1;
        self.impl = self.mod + self.kind;
        self.tr = Tree { s: s, t: self.t, this: this };
        self.g = Globals { cx: cx, site: site > 3 };
        tree_ = tree_ + loop;
    }
    traversal run_unfused(n: i64) {
        self.this_child.run_unfused(n + 1);
        self.n = n + self.this_child.n;
        self.f = Fail::Some;
        if self.f == Fail::None { return; }
        self.pick = Pick { mode: self.mode, at: n };
        self.mode = Mode::Loud;
        self.replaced = self.replaced + globals;
    }
    traversal x_fused() {
        self.this_child.x_fused();
        self.active_0 = self.active_0 + 1;
    }
    // Rewriting in place: a `site`, `replaced` results, copies.
    traversal prune() {
        self.this_child.prune();
        if in_list() {
            self.site = self.site + 1;
        }
        if self.s > 60 {
            self = copy(self.this_child);
        }
    }
}

tree OpenList : Replaced {
    child items: [Replaced];
    traversal visit(t: i64, cx: i64) {
        for child_ in self.items {
            child_.visit(t, cx);
            self.s = self.s + child_.s;
        }
    }
    traversal run_unfused(n: i64) {
        for item in self.items {
            item.run_unfused(n);
        }
        self.mask = len(self.items);
    }
    // An open list: elements replace themselves while the loop runs.
    traversal prune() {
        for item in self.items {
            item.prune();
            item.x_fused();
            self.cx = self.cx + len(self.items);
        }
    }
}

tree Cx : Replaced {
    traversal prune() {
        if self.s > 20 && in_list() {
            self = [];
        }
        if self.t > 20 && in_list() {
            self = [new Cx { s: 0, t: 0 }, self];
        }
    }
}

fuse layout(root: Replaced, t: i64) {
    root.visit(t, 3);
    root.run_unfused(t);
    root.x_fused();
}

fuse x(root: Replaced) {
    root.x_fused();
    root.visit(1, 2);
}

fuse prune(root: Replaced) {
    root.prune();
    root.visit(0, 1);
    root.x_fused();
}
