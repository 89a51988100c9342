// Pure functions may not recurse, directly or through others.
pure fn fact(n: i64) -> i64 = if n <= 1 { 1 } else { n * fact(n - 1) };
pure fn even(n: i64) -> bool = if n == 0 { true } else { odd(n - 1) };
pure fn odd(n: i64) -> bool = if n == 0 { false } else { even(n - 1) };
pure fn fib(n: i64) -> i64 {
    if n < 2 {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}
