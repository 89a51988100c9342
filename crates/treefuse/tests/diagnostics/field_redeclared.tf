// A subtype may not redeclare an inherited field.
abstract tree Element {
    width: i64;
}
tree Box : Element {
    width: i64 = 3;
}
