// A data field needs a type.
tree Leaf {
    n: ;
    m: i64;
}
