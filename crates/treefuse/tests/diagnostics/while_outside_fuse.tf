// `while` loops are allowed only in fuse items (LANGUAGE §7.7).
global n: i64 = 0;
tree Leaf {
    traversal f() {
        while n < 3 limit 4 {
            n = n + 1;
        }
    }
}
fuse run(root: Leaf) { root.f(); }
