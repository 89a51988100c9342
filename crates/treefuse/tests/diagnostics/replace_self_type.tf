// The replacement must fit every slot that can hold the receiver: an
// `Add` can stand in `Assign.value: Expr`, where a `Nop` cannot.
abstract tree Expr { traversal fold() {} }
tree Num : Expr { v: i64; }
tree Add : Expr {
    child l: Expr;
    child r: Expr;
    traversal fold() { self = new Nop {}; }
}
abstract tree Stmt {}
tree Nop : Stmt {}
tree Assign : Stmt { child value: Expr; }
