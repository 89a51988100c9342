// Map keys are `i64`, `str`, `bool` or enums: they need an exact order.
record P { x: i64 }
tree Leaf {
    by_weight: {f64: i64};
    by_point: {P: i64};
    traversal f() {
        let m = {[1]: 2};
    }
}
