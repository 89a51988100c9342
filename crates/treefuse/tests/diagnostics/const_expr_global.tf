// Global initial values are constant expressions.
pure fn f(x: i64) -> i64 = x + 1;
global A: i64 = f(1);
global B: i64 = 10 / 0;
global C: [i64] = [1, 2];
global D: i64 = C[5];
