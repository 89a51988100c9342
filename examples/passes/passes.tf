// Three passes over a small language, each written as small as its logic
// (LANGUAGE.md §8): default walks do the recursion, `impl` blocks keep
// each pass in one place, subtypes give inherited fields their own
// defaults, and cast aliases name an element by its type.

enum Ty { Unknown, Int, Bool }

global FOLDS: i64 = 0;
global NAMES: i64 = 0;
global DEPTHS: i64 = 0;

abstract tree Node { line: i64; }
abstract tree Expr : Node { ty: Ty; pure_: bool; }
tree IntLit : Expr { ty = Ty::Int; pure_ = true; v: i64; }
tree BoolLit : Expr { ty = Ty::Bool; pure_ = true; b: bool; }
tree Var : Expr { name: str; }
tree Add : Expr { child l: Expr; child r: Expr; }
tree Neg : Expr { child e: Expr; }
abstract tree Stmt : Node {}
tree Let : Stmt { name: str; child value: Expr; }
tree Print : Stmt { child args: [Expr]; }
tree Block : Stmt { child body: [Stmt]; }
tree Func : Node { name: str; child body: Block; }
tree Module : Node { child funcs: [Func]; }

// Every pass walks every node unless a type says otherwise.
impl Node {
    traversal fold() walk;
    traversal depth(d: i64) walk;
    traversal names() walk;
}

// Pass 1: constant folding, post-order (children first, then the node).
impl Add {
    traversal fold() {
        walk;
        if self.l is IntLit && self.r is IntLit {
            FOLDS = FOLDS + 1;
            self = new IntLit { v: (self.l as IntLit).v + (self.r as IntLit).v, line: self.line };
        }
    }
}
impl Neg {
    traversal fold() {
        walk;
        if self.e is IntLit { self = new IntLit { v: 0 - (self.e as IntLit).v }; }
    }
}
impl Print {
    // An empty print becomes an empty block; the walk does not run then.
    traversal fold() {
        if len(self.args) == 0 { self = new Block { body: [] }; }
        walk;
    }
}

// Pass 2: the depth of every expression below its statement. One body on
// the base type serves every expression type, each with its own walk.
impl Expr {
    traversal depth(d: i64) {
        DEPTHS = DEPTHS + d;
        walk(d + 1);
    }
}

// Pass 3: name lengths, of variables and (ten times) of `let`s.
impl Var { traversal names() { NAMES = NAMES + len(self.name); } }
impl Block {
    traversal names() {
        for s in self.body {
            if s is Let {
                let l = (s as Let);
                NAMES = NAMES + 10 * len(l.name);
            }
        }
        walk;
    }
}

fuse all(root: Module) {
    root.fold();
    root.depth(0);
    root.names();
}
