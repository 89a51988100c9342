// `new` is only the value of a child slot or of a child in another `new`.
tree Leaf {
    n: i64;
    traversal f() {
        let x = new Leaf { n: 1 };
        self.n = new Leaf {};
    }
}
