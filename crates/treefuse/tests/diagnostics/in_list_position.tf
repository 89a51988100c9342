// `in_list()` asks where the receiver stands: only in traversals.
pure fn f(x: i64) -> bool = in_list();
