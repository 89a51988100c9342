// Pure functions read only their arguments.
global SCALE: i64 = 3;
pure fn f(x: i64) -> i64 = x * SCALE;
