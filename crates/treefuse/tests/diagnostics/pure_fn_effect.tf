// Pure functions have no effects: no traversal calls, no global writes.
global counter: i64 = 0;
pure fn f(x: i64) -> i64 {
    counter = x;
    return x;
}
