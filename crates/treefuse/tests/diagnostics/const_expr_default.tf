// Field defaults are constant expressions.
pure fn twice(x: i64) -> i64 = x * 2;
tree Leaf {
    a: i64 = twice(3);
    b: i64 = 7 % 0;
}
