// A pure function cannot create or copy tree nodes.
abstract tree E {}
tree Num : E { v: i64; }
pure fn f(e: E) -> i64 {
    let c = copy(e);
    let n = new Num { v: 1 };
    return 0;
}
