// A pure function has `= expr;`, a block, or `;` (host-supplied).
pure fn f(x: i64) -> i64 x + 1;
