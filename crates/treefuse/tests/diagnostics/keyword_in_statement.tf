// A global named by a keyword is reported once, at its declaration: its
// uses as an assignment target and in expressions (`tree = tree + 1;`)
// read as that name and do not cascade into syntax errors.
global tree: i64 = 0;
tree E {
    child kids: [E];
    traversal f() {
        for k in self.kids { k.f(); }
        tree = tree + 1;
    }
}
fuse go(root: E) { root.f(); }
