// Two pure functions with the same name.
pure fn f(x: i64) -> i64 = x;
pure fn f(x: i64) -> i64 = x + 1;
