// Two globals with the same name.
global LIMIT: i64 = 1;
global LIMIT: i64 = 2;
