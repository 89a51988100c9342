// An array is a value with no methods: it grows by assigning it a new
// value, `x = append(x, e);` (LANGUAGE §8.5).
global log: [i64] = [];
tree Leaf {
    xs: [i64];
    traversal f() {
        self.xs.push(1);
        log.append(2);
        let a: [str] = [];
        a.insert(0, "x");
        a.remove(0);
    }
}
