// Each element of a thicket must fit every list that can hold the
// receiver.
abstract tree Stmt { traversal clean() {} }
tree Nop : Stmt { traversal clean() { self = [new Num { v: 1 }, self]; } }
tree Block : Stmt { child stmts: [Stmt]; }
tree Num { v: i64; }
