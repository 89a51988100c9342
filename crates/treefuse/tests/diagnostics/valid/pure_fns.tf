// Pure functions: expression bodies, host-supplied bodies, and blocks with
// `let`, local assignment, `if`/`else if`/`else`, `for` over arrays and
// ranges, and `return` on every path.
record V { x: f64, y: f64 }

pure fn max2(a: i64, b: i64) -> i64 = if a > b { a } else { b };
pure fn hash(x: i64) -> i64;
pure fn norm(v: V) -> f64 = sqrt(v.x * v.x + v.y * v.y);
pure fn list_height(lens: [i64], size: i64, margin: i64, width: i64) -> i64 {
    let h: i64 = 0;
    for l in lens {
        h = h + (l * size + margin + width - 1) / width;
    }
    return h;
}
pure fn sum_to(n: i64) -> i64 {
    let s = 0;
    for i in 0..n {
        s = s + i;
    }
    return s;
}
pure fn classify(x: i64) -> str {
    if x < 0 {
        return "negative";
    } else if x == 0 {
        return "zero";
    } else {
        return "positive";
    }
}
pure fn squares(n: i64) -> [i64] {
    let out: [i64] = [];
    let ones = [1, 1];
    for i in 0..n {
        out = [i * i];
        ones[0] = ones[0] + out[0];
        n = n - 1;
    }
    return out;
}
pure fn builtins(a: f64, b: i64) -> f64 {
    let c = abs(b) + min(b, 2) + max(b, 3) + to_i64(floor(a)) + to_i64(ceil(a));
    return abs(a) + min(a, 1.0) + max(a, 2.0) + to_f64(c) + to_f64(len("ab")) + to_f64(hash(b));
}
pure fn uses_later(x: i64) -> i64 = defined_later(x) + 1;
pure fn defined_later(x: i64) -> i64 = x * 2;

tree Leaf {
    n: i64;
    s: str;
    traversal run() {
        self.n = max2(self.n, sum_to(4)) + list_height([1, 2], 3, 4, 5) + uses_later(1);
        self.s = classify(self.n);
        self.n = len(squares(3)) + to_i64(builtins(1.5, -2) + norm(V { x: 3.0, y: 4.0 }));
    }
}

fuse f(root: Leaf) { root.run(); }
