// `{}` takes its key and value types from the context; maps are typed.
tree Leaf {
    m: {str: i64};
    n: i64;
    traversal f() {
        let e = {};
        self.m = {"a": true};
        self.m = {1: 2};
        self.n = self.m[3];
        self.m = insert(self.m, "a", "b");
        self.n = get(self.m, 1, 0);
    }
}
