// A pure function returns its declared type.
pure fn f(x: i64) -> bool {
    return x + 1;
}
pure fn g(x: i64) -> str = x;
