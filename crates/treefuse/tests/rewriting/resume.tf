// Rewriting passes fused with the passes after them (§7.1 under fusion):
// `subst` replaces variables before anything else runs on them (and a
// `Pair` in a list by a thicket), `fold` folds sums after its children.
// Fused, `fold` runs in the same traversal as `subst`: where `subst`
// replaced a node, the fused call postpones `fold` and runs it on the
// replacement node(s) when `subst` is done there.
global FOLDED: i64 = 0;
abstract tree E {
    traversal subst(k: i64) {}
    traversal fold() {}
}
tree Lit : E { v: i64; }
tree Var : E {
    traversal subst(k: i64) { self = new Lit { v: k }; }
}
tree Pair : E {
    v: i64;
    traversal subst(k: i64) {
        if in_list() {
            self = [new Add { l: new Lit { v: 1 }, r: new Lit { v: self.v } }, new Lit { v: k }];
        } else {
            self = new Lit { v: self.v };
        }
    }
}
tree Add : E {
    child l: E;
    child r: E;
    traversal subst(k: i64) { self.l.subst(k); self.r.subst(k); }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is Lit && self.r is Lit {
            FOLDED = FOLDED + 1;
            self = new Lit { v: (self.l as Lit).v + (self.r as Lit).v };
        }
    }
}
tree Prog {
    child es: [E];
    traversal subst(k: i64) { for e in self.es { e.subst(k); } }
    traversal fold() { for e in self.es { e.fold(); } }
}
fuse main(root: Prog) { root.subst(10); root.fold(); }
