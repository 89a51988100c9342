// A pure function given a node cannot call a traversal on it.
abstract tree E { traversal go() {} }
tree Num : E { v: i64; }
pure fn f(e: E) -> i64 {
    e.go();
    return 0;
}
