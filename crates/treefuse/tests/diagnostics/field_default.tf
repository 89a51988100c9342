// field-default: `name = value;` gives an inherited data field a subtype's
// own default; not an own field, not a child.
abstract tree Expr { ty: i64 = 0; child next: Expr; }
tree IntLit : Expr {
    v: i64;
    v = 1;
    next = 2;
    nothing = 3;
}
tree End : Expr {}
