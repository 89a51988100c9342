// Arguments of calls in a `fuse` item are evaluated when the fused call
// starts. `setk(K)` can join `count()` (which writes COUNT, not K) but not
// `bump()` (which writes K): the report says why.
global COUNT: i64 = 0;
global K: i64 = 5;

tree Leaf {
    n: i64;
    traversal count() { COUNT = COUNT + 1; }
    traversal bump() { K = K + 1; }
    traversal setk(k: i64) { self.n = k; }
}

fuse apart(root: Leaf) { root.count(); root.setk(K); }
fuse kept(root: Leaf) { root.bump(); root.setk(K); }
