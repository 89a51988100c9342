// Every path of a pure function's block must return.
pure fn sign(x: i64) -> i64 {
    if x < 0 {
        return -1;
    } else if x > 0 {
        return 1;
    }
}
pure fn sum(xs: [i64]) -> i64 {
    let s = 0;
    for x in xs {
        return s;
    }
}
