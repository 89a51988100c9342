// Parentheses must balance.
global X: i64 = (1 + 2;
