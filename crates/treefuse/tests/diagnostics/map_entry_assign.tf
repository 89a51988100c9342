// A map entry is assigned whole (`m[k] = v;`), never by member or element.
record P { x: i64 }
tree Leaf {
    m: {str: P};
    a: {str: [i64]};
    traversal f() {
        self.m["a"].x = 1;
        self.a["a"][0] = 1;
        self.m["b"] = P { x: 2 };
    }
}
