// `as` casts nodes between related tree types.
abstract tree E {}
tree A : E {}
tree B : E {}
tree H {
    child a: A;
    n: i64;
    traversal f() {
        self.n = (self.n as A).n;
        self.n = (self.a as B).n;
    }
}
