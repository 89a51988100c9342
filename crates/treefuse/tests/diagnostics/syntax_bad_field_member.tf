// Tree members are fields, `child` fields and traversals.
tree Leaf {
    n: i64;
    global g: i64 = 1;
}
