// minic: the middle end of a small C-like language, written as a compiler
// author would write it, one pass per traversal (examples/minic/README.md).
//
//   int f(int n) { let s = 0; for (let i = 0; i < n; i++) { s += i * 8; } return s; }
//
// Functions, blocks, `let` (typed or inferred), assignment, compound
// assignment, `++`/`--`, `if`, `while`, `do-while`, `for`, `return`,
// `print`, calls, and integer, comparison and boolean operators.
//
// This file holds the tree types, the globals and the pipeline; each pass
// is a file of `passes/` (LANGUAGE.md §8): `impl` blocks add its
// traversals to the types, and a default walk (`walk`) does the recursion
// wherever a type has nothing else to do.

enum Ty { Unknown, Int, Bool, Error }
enum ArithOp { Add, Sub, Mul, Div, Mod, Shl, Shr, BitAnd, BitOr, BitXor }
enum CmpOp { Lt, Le, Gt, Ge, Eq, Ne }
enum LogicOp { And, Or }

// A function's signature, indexed by the position of the function in the
// program (parameters by position: arrays cannot grow, so a map).
record Sig { ret: Ty, params: {i64: Ty} }

// What propagation knows about a variable: a constant (`v`, a bool as
// 0/1) or a copy of the variable `src` (named `name`).
record Fact { copy: bool, v: i64, src: i64, name: str, ty: Ty }

global RESOLVE_ERRORS: i64 = 0;   // names without a declaration
global TYPE_ERRORS: i64 = 0;      // ill-typed expressions and statements
global MISSING_RETURNS: i64 = 0;  // functions that may end without `return`
global NEXT_ID: i64 = 0;          // the next declaration id
global FOLDS: i64 = 0;            // nodes replaced by fold and simplify
global MAX_FRAME: i64 = 0;        // the largest frame, in slots
global CHANGED: bool = false;     // propagate or fold replaced a node in this round of a function

// ------------------------------------------------------------ program, functions

// The program, its functions and its statements: what a pass over
// statements walks through (`impl Code { traversal flatten() walk; }`).
// Parameters and expressions are no `Code`: such a walk never visits them.
abstract tree Code {}
tree Program : Code { child funcs: [Func]; }
tree Param { name: str; ty: Ty; id: i64 = -1; slot: i64 = -1; }
tree Func : Code { name: str; ret: Ty; child params: [Param]; child body: Block; index: i64 = -1; sig: Sig; frame: i64; }

// ------------------------------------------------------------ statements

// What passes record on a statement: the variables it may assign
// (collect_assigned), whether every path through it returns (unreachable),
// and the slots in use at its deepest point (allocate).
abstract tree Stmt : Code { assigned: {i64: bool}; returns: bool; high: i64; }
tree Block : Stmt { child stmts: [Stmt]; }   // { s1 s2 ... }: a scope
// let name: decl = init;  (decl Unknown: inferred from init)
tree Let : Stmt { name: str; decl: Ty; id: i64 = -1; slot: i64 = -1; child init: Expr; }
tree Assign : Stmt { name: str; id: i64 = -1; slot: i64 = -1; child value: Expr; }   // name = value;

// The sugar the first two passes remove: later passes never look into it.
abstract tree Sugar : Stmt {}
tree CompoundAssign : Sugar { name: str; op: ArithOp; child value: Expr; }   // name op= value;
abstract tree Step : Sugar { name: str; }   // name++; and name--; (one rule desugars both)
tree Incr : Step {}   // name++;
tree Decr : Step {}   // name--;

// `if` and `while`: statements that test a condition (which must be a bool).
abstract tree Guarded : Stmt { child cond: Expr; }
// if (cond) then_b else else_b  (no else: an empty block)
tree If : Guarded { child then_b: Block; child else_b: Block; }
tree While : Guarded { child body: Block; }                         // while (cond) body
tree DoWhile : Sugar { child body: Block; child cond: Expr; }       // do body while (cond);
// for (init; cond; step) body  (`init` is scoped to the loop)
tree For : Sugar { child init: Stmt; child cond: Expr; child step: Stmt; child body: Block; }
tree Return : Stmt { child value: Expr; }   // return value;
tree ExprStmt : Stmt { child e: Expr; }     // e;  (a call, usually)
tree Print : Stmt { child e: Expr; }        // print(e);
tree Nop : Stmt {}                          // ;

// ------------------------------------------------------------ expressions

abstract tree Expr { ty: Ty; effect_free: bool; }   // effect_free: no call, cannot fail (effects)
tree IntLit : Expr { ty = Ty::Int; effect_free = true; v: i64; }
tree BoolLit : Expr { ty = Ty::Bool; effect_free = true; v: bool; }
tree Var : Expr { name: str; id: i64 = -1; slot: i64 = -1; }
abstract tree Binary : Expr { child l: Expr; child r: Expr; }
tree Arith : Binary { op: ArithOp; }     // l op r on integers
tree Compare : Binary { op: CmpOp; }     // l op r: integers (or, for == and !=, two values of one type) to bool
tree Logical : Binary { op: LogicOp; }   // l && r, l || r (short-circuit)
abstract tree Unary : Expr { child e: Expr; }
tree Neg : Unary {}      // -e
tree Not : Unary {}      // !e (boolean)
tree BitNot : Unary {}   // ~e (bitwise)
tree Call : Expr { name: str; func: i64 = -1; child args: [Expr]; }   // name(args)
tree Cond : Expr { child c: Expr; child a: Expr; child b: Expr; }     // c ? a : b

// ------------------------------------------------------------ the pipeline

fuse optimize(root: Program) {
    root.desugar_assign();
    root.desugar_loops();
    root.resolve();
    root.typecheck();
    root.effects();
    root.fold();
    root.simplify();
    root.strength_reduce();
    root.collect_assigned();
    root.settle();                 // propagate and fold, to a fixpoint per function
    root.dead_branches();
    root.unreachable();
    root.flatten();
    root.allocate();
}
