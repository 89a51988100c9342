// LANGUAGE.md §8.7: moving, casting or aliasing an empty optional child
// is a runtime error; testing it with `is` is not.
abstract tree E { traversal up(); }
tree Leaf : E { traversal up() {} }
tree Wrap : E {
    child inner: E?;
    child keep: E;
    traversal up() {
        if !(self.inner is Leaf) {
            self.keep = (self.keep as Wrap).inner;
        }
    }
}
fuse main(root: E) { root.up(); }
