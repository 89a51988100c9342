// A small Python-like syntax tree shared by the rules in `rules/`. The
// program is this directory: `treefuse run examples/rules --fuse lint ...`
// reads every `.tf` file below it as one program (LANGUAGE.md §8.2).

enum CmpOp { Eq, NotEq, Is, IsNot, Lt }

abstract tree Node { line: i64; col: i64; }

abstract tree Expr : Node {}
tree NoneLit : Expr {}
tree BoolLit : Expr { value: bool; }
tree Name : Expr { id: str; }
tree Compare : Expr { op: CmpOp; child left: Expr; child right: Expr; }
tree Call : Expr { child func: Expr; child args: [Expr]; }
tree Lambda : Expr { child body: Expr; }

abstract tree Stmt : Node {}
tree ExprStmt : Stmt { child value: Expr; }
tree Assign : Stmt { target: str; child value: Expr; }
tree If : Stmt { child test: Expr; child body: [Stmt]; child orelse: [Stmt]; }
tree FunctionDef : Stmt { name: str; child body: [Stmt]; }

tree Module : Node { path: str; child body: [Stmt]; }

// Every rule in its own file, run as one fused walk.
fuse lint(root: Module) {
    root.e711();
    root.e712();
    root.e731();
}
