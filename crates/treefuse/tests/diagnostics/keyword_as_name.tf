// A keyword used as a field name is reported once; the field is then read
// under that name, so its uses do not cascade.
tree Decl {
    pure: bool;
    traversal mark() {
        self.pure = true;
    }
}

fuse run(root: Decl) { root.mark(); }
