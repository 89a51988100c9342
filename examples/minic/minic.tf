// minic: the middle end of a small C-like language, written as a compiler
// author would write it, one pass per traversal (examples/minic/README.md).
//
//   int f(int n) { let s = 0; for (let i = 0; i < n; i++) { s += i * 8; } return s; }
//
// Functions, blocks, `let` (typed or inferred), assignment, compound
// assignment, `++`/`--`, `if`, `while`, `do-while`, `for`, `return`,
// `print`, calls, and integer, comparison and boolean operators.
//
// The pipeline (`fuse optimize`), each pass written on its own:
//
//   desugar_assign    x += e, x++, x--          =>  x = x + e, ...
//   desugar_loops     for (i; c; s) b           =>  { i; while (c) { b s } }
//                     do b while (c)            =>  { copy of b; while (c) b }
//   resolve           names => declaration ids, scoped map environments
//   typecheck         Ty of every expression, TYPE_ERRORS
//   effects           `effect_free`: no call, cannot fail
//   fold              constant folding (nodes replace themselves)
//   simplify          algebraic identities: x + 0, x * 1, !!b, !(a < b), ...
//   strength_reduce   x * 2^k  =>  x << k
//   collect_assigned  the variables each statement may assign
//   propagate, fold   constant and copy propagation, scoped, then folding
//                     again, repeated while either changes something
//   dead_branches     if (true) a else b  =>  a;  while (false) b  =>  nothing
//   unreachable       statements after a `return` are deleted (thickets)
//   flatten           nested blocks spliced into their list, `;` and pure
//                     expression statements deleted (thickets)
//   allocate          stack slots for parameters and lets, frame sizes

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
global CHANGED: bool = false;     // propagate or fold replaced a node this round

// ------------------------------------------------------------ helpers

pure fn arith(op: ArithOp, a: i64, b: i64) -> i64 = match op {
    ArithOp::Add => a + b,
    ArithOp::Sub => a - b,
    ArithOp::Mul => a * b,
    ArithOp::Div => a / b,
    ArithOp::Mod => a % b,
    ArithOp::Shl => a << b,
    ArithOp::Shr => a >> b,
    ArithOp::BitAnd => a & b,
    ArithOp::BitOr => a | b,
    ArithOp::BitXor => a ^ b,
};

// Whether `a op b` is defined for this right operand (no division by zero,
// no shift outside 0..=63): only then may it be folded or called pure.
pure fn defined(op: ArithOp, b: i64) -> bool = match op {
    ArithOp::Div | ArithOp::Mod => b != 0,
    ArithOp::Shl | ArithOp::Shr => b >= 0 && b <= 63,
    _ => true,
};

pure fn compare(op: CmpOp, a: i64, b: i64) -> bool = match op {
    CmpOp::Lt => a < b,
    CmpOp::Le => a <= b,
    CmpOp::Gt => a > b,
    CmpOp::Ge => a >= b,
    CmpOp::Eq => a == b,
    CmpOp::Ne => a != b,
};

pure fn negate(op: CmpOp) -> CmpOp = match op {
    CmpOp::Lt => CmpOp::Ge,
    CmpOp::Le => CmpOp::Gt,
    CmpOp::Gt => CmpOp::Le,
    CmpOp::Ge => CmpOp::Lt,
    CmpOp::Eq => CmpOp::Ne,
    CmpOp::Ne => CmpOp::Eq,
};

// The type of an operator on two operands of type `t` that gives a `t`.
pure fn operator_type(l: Ty, r: Ty, t: Ty) -> Ty = if l == t && r == t { t } else { Ty::Error };

// An Error type caused here, not inherited from an operand (counted once).
pure fn new_error(result: Ty, l: Ty, r: Ty) -> bool = result == Ty::Error && l != Ty::Error && r != Ty::Error;

// k when v == 2^k (1 <= k <= 62), else -1.
pure fn log2_exact(v: i64) -> i64 {
    let k: i64 = -1;
    for i in 1..63 {
        if v == 1 << i { k = i; }
    }
    return k;
}

// `env` without what assigning variable `id` invalidates: its own fact
// and every copy of it.
pure fn kill(env: {i64: Fact}, id: i64) -> {i64: Fact} {
    let e: {i64: Fact} = remove(env, id);
    for k in keys(e) {
        if e[k].copy && e[k].src == id { e = remove(e, k); }
    }
    return e;
}

pure fn int_fact(v: i64) -> Fact = Fact { copy: false, v: v, src: -1, name: "", ty: Ty::Int };
pure fn bool_fact(b: bool) -> Fact = Fact { copy: false, v: if b { 1 } else { 0 }, src: -1, name: "", ty: Ty::Bool };

pure fn kill_all(env: {i64: Fact}, ids: {i64: bool}) -> {i64: Fact} {
    let e: {i64: Fact} = env;
    for id in keys(ids) { e = kill(e, id); }
    return e;
}

pure fn union(a: {i64: bool}, b: {i64: bool}) -> {i64: bool} {
    let u: {i64: bool} = a;
    for k in keys(b) { u[k] = true; }
    return u;
}

// ------------------------------------------------------------ program, functions

tree Program {
    child funcs: [Func];

    traversal desugar_assign() { for f in self.funcs { f.desugar_assign(); } }
    traversal desugar_loops() { for f in self.funcs { f.desugar_loops(); } }
    traversal resolve() {
        let fns: {str: i64} = {};
        let i = 0;
        for f in self.funcs {
            f.index = i;
            fns[f.name] = i;
            i = i + 1;
        }
        for f in self.funcs { f.resolve(fns); }
    }
    traversal typecheck() {
        let sigs: {i64: Sig} = {};
        for f in self.funcs {
            f.signature();
            sigs[f.index] = f.sig;
        }
        for f in self.funcs { f.typecheck(sigs); }
    }
    traversal effects() { for f in self.funcs { f.effects(); } }
    traversal fold() { for f in self.funcs { f.fold(); } }
    traversal simplify() { for f in self.funcs { f.simplify(); } }
    traversal strength_reduce() { for f in self.funcs { f.strength_reduce(); } }
    traversal collect_assigned() { for f in self.funcs { f.collect_assigned(); } }
    traversal propagate() { for f in self.funcs { f.propagate(); } }
    traversal dead_branches() { for f in self.funcs { f.dead_branches(); } }
    traversal unreachable() { for f in self.funcs { f.unreachable(); } }
    traversal flatten() { for f in self.funcs { f.flatten(); } }
    traversal allocate() { for f in self.funcs { f.allocate(); } }
}

tree Param {
    name: str;
    ty: Ty;
    id: i64 = -1;
    slot: i64 = -1;
    traversal resolve() {
        self.id = NEXT_ID;
        NEXT_ID = NEXT_ID + 1;
    }
}

tree Func {
    name: str;
    ret: Ty;
    child params: [Param];
    child body: Block;
    index: i64 = -1;
    sig: Sig;
    frame: i64;

    traversal desugar_assign() { self.body.desugar_assign(); }
    traversal desugar_loops() { self.body.desugar_loops(); }
    traversal resolve(fns: {str: i64}) {
        let env: {str: i64} = {};
        for p in self.params {
            p.resolve();
            env[p.name] = p.id;
        }
        self.body.resolve(fns, env);
    }
    traversal signature() {
        let params: {i64: Ty} = {};
        let i = 0;
        for p in self.params {
            params[i] = p.ty;
            i = i + 1;
        }
        self.sig = Sig { ret: self.ret, params: params };
    }
    traversal typecheck(sigs: {i64: Sig}) {
        let env: {i64: Ty} = {};
        for p in self.params { env[p.id] = p.ty; }
        self.body.typecheck(sigs, env, self.ret);
    }
    traversal effects() { self.body.effects(); }
    traversal fold() { self.body.fold(); }
    traversal simplify() { self.body.simplify(); }
    traversal strength_reduce() { self.body.strength_reduce(); }
    traversal collect_assigned() { self.body.collect_assigned(); }
    traversal propagate() {
        // Parameters are unknown on entry.
        self.body.propagate({});
    }
    traversal dead_branches() { self.body.dead_branches(); }
    traversal unreachable() {
        self.body.unreachable();
        if !self.body.returns { MISSING_RETURNS = MISSING_RETURNS + 1; }
    }
    traversal flatten() { self.body.flatten(); }
    traversal allocate() {
        let env: {i64: i64} = {};
        let n = 0;
        for p in self.params {
            p.slot = n;
            env[p.id] = n;
            n = n + 1;
        }
        self.body.allocate(env, n);
        self.frame = self.body.high;
        MAX_FRAME = max(MAX_FRAME, self.frame);
    }
}

// ------------------------------------------------------------ statements

abstract tree Stmt {
    assigned: {i64: bool};   // variables this statement may assign (collect_assigned)
    returns: bool;           // every path through it returns (unreachable)
    high: i64;               // slots in use at its deepest point (allocate)

    traversal desugar_assign() {}
    traversal desugar_loops() {}
    traversal resolve(fns: {str: i64}, env: {str: i64}) {}
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {}
    traversal effects() {}
    traversal fold() {}
    traversal simplify() {}
    traversal strength_reduce() {}
    traversal collect_assigned() {}
    traversal propagate(env: {i64: Fact}) {}
    traversal dead_branches() {}
    traversal unreachable() {}
    traversal drop_dead() { self = []; }
    traversal flatten() {}
    traversal allocate(env: {i64: i64}, next: i64) { self.high = next; }
}

// { s1 s2 ... }: a scope.
tree Block : Stmt {
    child stmts: [Stmt];

    traversal desugar_assign() { for s in self.stmts { s.desugar_assign(); } }
    traversal desugar_loops() { for s in self.stmts { s.desugar_loops(); } }
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        let scope = env;
        for s in self.stmts {
            s.resolve(fns, scope);
            if s is Let { scope[(s as Let).name] = (s as Let).id; }
        }
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        let scope = env;
        for s in self.stmts {
            s.typecheck(sigs, scope, ret);
            if s is Let { scope[(s as Let).id] = (s as Let).decl; }
        }
    }
    traversal effects() { for s in self.stmts { s.effects(); } }
    traversal fold() { for s in self.stmts { s.fold(); } }
    traversal simplify() { for s in self.stmts { s.simplify(); } }
    traversal strength_reduce() { for s in self.stmts { s.strength_reduce(); } }
    traversal collect_assigned() {
        let a: {i64: bool} = {};
        for s in self.stmts {
            s.collect_assigned();
            a = union(a, s.assigned);
        }
        self.assigned = a;
    }
    traversal propagate(env: {i64: Fact}) {
        let known = env;
        for s in self.stmts {
            s.propagate(known);
            known = kill_all(known, s.assigned);
            if s is Let {
                if (s as Let).init is IntLit {
                    known[(s as Let).id] = int_fact(((s as Let).init as IntLit).v);
                } else if (s as Let).init is BoolLit {
                    known[(s as Let).id] = bool_fact(((s as Let).init as BoolLit).v);
                } else if (s as Let).init is Var && ((s as Let).init as Var).id >= 0
                        && (s as Let).init.ty == (s as Let).decl {
                    known[(s as Let).id] = Fact {
                        copy: true,
                        v: 0,
                        src: ((s as Let).init as Var).id,
                        name: ((s as Let).init as Var).name,
                        ty: (s as Let).decl,
                    };
                }
            }
            if s is Assign {
                if (s as Assign).value is IntLit {
                    known[(s as Assign).id] = int_fact(((s as Assign).value as IntLit).v);
                } else if (s as Assign).value is BoolLit {
                    known[(s as Assign).id] = bool_fact(((s as Assign).value as BoolLit).v);
                }
            }
        }
    }
    traversal dead_branches() { for s in self.stmts { s.dead_branches(); } }
    traversal unreachable() {
        let dead = false;
        for s in self.stmts {
            if dead {
                s.drop_dead();
            } else {
                s.unreachable();
                dead = s.returns;
            }
        }
        self.returns = dead;
    }
    traversal flatten() {
        for s in self.stmts { s.flatten(); }
        // Names are resolved to ids: a nested block's statements can join
        // the enclosing list without capturing anything.
        if in_list() { self = self.stmts; }
    }
    traversal allocate(env: {i64: i64}, next: i64) {
        let scope = env;
        let top = next;
        let high = next;
        for s in self.stmts {
            s.allocate(scope, top);
            high = max(high, s.high);
            if s is Let {
                scope[(s as Let).id] = top;
                top = top + 1;
                high = max(high, top);
            }
        }
        self.high = high;
    }
}

// let name: decl = init;  (decl Unknown: inferred from init)
tree Let : Stmt {
    name: str;
    decl: Ty;
    id: i64 = -1;
    slot: i64 = -1;
    child init: Expr;

    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.init.resolve(fns, env);
        self.id = NEXT_ID;
        NEXT_ID = NEXT_ID + 1;
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.init.typecheck(sigs, env);
        if self.decl == Ty::Unknown {
            self.decl = self.init.ty;
        } else if self.init.ty != self.decl && self.init.ty != Ty::Error {
            TYPE_ERRORS = TYPE_ERRORS + 1;
        }
    }
    traversal effects() { self.init.effects(); }
    traversal fold() { self.init.fold(); }
    traversal simplify() { self.init.simplify(); }
    traversal strength_reduce() { self.init.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.init.propagate(env); }
    traversal allocate(env: {i64: i64}, next: i64) {
        self.init.allocate(env);
        self.slot = next;
        self.high = next;
    }
}

// name = value;
tree Assign : Stmt {
    name: str;
    id: i64 = -1;
    slot: i64 = -1;
    child value: Expr;

    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.value.resolve(fns, env);
        self.id = get(env, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.value.typecheck(sigs, env);
        let t = get(env, self.id, Ty::Error);
        if t != Ty::Error && self.value.ty != Ty::Error && self.value.ty != t {
            TYPE_ERRORS = TYPE_ERRORS + 1;
        }
    }
    traversal effects() { self.value.effects(); }
    traversal fold() { self.value.fold(); }
    traversal simplify() { self.value.simplify(); }
    traversal strength_reduce() { self.value.strength_reduce(); }
    traversal collect_assigned() { self.assigned = {self.id: true}; }
    traversal propagate(env: {i64: Fact}) { self.value.propagate(env); }
    traversal allocate(env: {i64: i64}, next: i64) {
        self.value.allocate(env);
        self.slot = get(env, self.id, -1);
        self.high = next;
    }
}

// name op= value;  (sugar)
tree CompoundAssign : Stmt {
    name: str;
    op: ArithOp;
    child value: Expr;
    traversal desugar_assign() {
        self = new Assign {
            name: self.name,
            value: new Arith { op: self.op, l: new Var { name: self.name }, r: self.value },
        };
    }
}

// name++;  (sugar)
tree Incr : Stmt {
    name: str;
    traversal desugar_assign() {
        self = new Assign {
            name: self.name,
            value: new Arith { op: ArithOp::Add, l: new Var { name: self.name }, r: new IntLit { v: 1 } },
        };
    }
}

// name--;  (sugar)
tree Decr : Stmt {
    name: str;
    traversal desugar_assign() {
        self = new Assign {
            name: self.name,
            value: new Arith { op: ArithOp::Sub, l: new Var { name: self.name }, r: new IntLit { v: 1 } },
        };
    }
}

// if (cond) then_b else else_b  (no else: an empty block)
tree If : Stmt {
    child cond: Expr;
    child then_b: Block;
    child else_b: Block;

    traversal desugar_assign() { self.then_b.desugar_assign(); self.else_b.desugar_assign(); }
    traversal desugar_loops() { self.then_b.desugar_loops(); self.else_b.desugar_loops(); }
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.cond.resolve(fns, env);
        self.then_b.resolve(fns, env);
        self.else_b.resolve(fns, env);
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.cond.typecheck(sigs, env);
        if self.cond.ty != Ty::Bool && self.cond.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
        self.then_b.typecheck(sigs, env, ret);
        self.else_b.typecheck(sigs, env, ret);
    }
    traversal effects() { self.cond.effects(); self.then_b.effects(); self.else_b.effects(); }
    traversal fold() { self.cond.fold(); self.then_b.fold(); self.else_b.fold(); }
    traversal simplify() { self.cond.simplify(); self.then_b.simplify(); self.else_b.simplify(); }
    traversal strength_reduce() {
        self.cond.strength_reduce();
        self.then_b.strength_reduce();
        self.else_b.strength_reduce();
    }
    traversal collect_assigned() {
        self.then_b.collect_assigned();
        self.else_b.collect_assigned();
        self.assigned = union(self.then_b.assigned, self.else_b.assigned);
    }
    traversal propagate(env: {i64: Fact}) {
        self.cond.propagate(env);
        self.then_b.propagate(env);
        self.else_b.propagate(env);
    }
    traversal dead_branches() {
        if self.cond is BoolLit {
            if (self.cond as BoolLit).v {
                self.then_b.dead_branches();
                self = self.then_b;
            } else {
                self.else_b.dead_branches();
                self = self.else_b;
            }
        }
        self.then_b.dead_branches();
        self.else_b.dead_branches();
    }
    traversal unreachable() {
        self.then_b.unreachable();
        self.else_b.unreachable();
        self.returns = self.then_b.returns && self.else_b.returns;
    }
    traversal flatten() { self.then_b.flatten(); self.else_b.flatten(); }
    traversal allocate(env: {i64: i64}, next: i64) {
        self.cond.allocate(env);
        self.then_b.allocate(env, next);
        self.else_b.allocate(env, next);
        self.high = max(self.then_b.high, self.else_b.high);
    }
}

// while (cond) body
tree While : Stmt {
    child cond: Expr;
    child body: Block;

    traversal desugar_assign() { self.body.desugar_assign(); }
    traversal desugar_loops() { self.body.desugar_loops(); }
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.cond.resolve(fns, env);
        self.body.resolve(fns, env);
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.cond.typecheck(sigs, env);
        if self.cond.ty != Ty::Bool && self.cond.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
        self.body.typecheck(sigs, env, ret);
    }
    traversal effects() { self.cond.effects(); self.body.effects(); }
    traversal fold() { self.cond.fold(); self.body.fold(); }
    traversal simplify() { self.cond.simplify(); self.body.simplify(); }
    traversal strength_reduce() { self.cond.strength_reduce(); self.body.strength_reduce(); }
    traversal collect_assigned() {
        self.body.collect_assigned();
        self.assigned = self.body.assigned;
    }
    traversal propagate(env: {i64: Fact}) {
        // The condition and the body run again after the body assigned:
        // nothing the body assigns is known inside the loop.
        let inner = kill_all(env, self.assigned);
        self.cond.propagate(inner);
        self.body.propagate(inner);
    }
    traversal dead_branches() {
        if self.cond is BoolLit && !(self.cond as BoolLit).v {
            if in_list() { self = []; }
            self = new Block { stmts: [] };
        }
        self.body.dead_branches();
    }
    traversal unreachable() {
        // The body may run zero times.
        self.body.unreachable();
        self.returns = false;
    }
    traversal flatten() { self.body.flatten(); }
    traversal allocate(env: {i64: i64}, next: i64) {
        self.cond.allocate(env);
        self.body.allocate(env, next);
        self.high = self.body.high;
    }
}

// do body while (cond);  (sugar)
tree DoWhile : Stmt {
    child body: Block;
    child cond: Expr;
    traversal desugar_assign() { self.body.desugar_assign(); }
    traversal desugar_loops() {
        self.body.desugar_loops();
        self = new Block { stmts: [copy(self.body), new While { cond: self.cond, body: self.body }] };
    }
}

// for (init; cond; step) body  (sugar; `init` is scoped to the loop)
tree For : Stmt {
    child init: Stmt;
    child cond: Expr;
    child step: Stmt;
    child body: Block;
    traversal desugar_assign() {
        self.init.desugar_assign();
        self.step.desugar_assign();
        self.body.desugar_assign();
    }
    traversal desugar_loops() {
        self.body.desugar_loops();
        self = new Block {
            stmts: [self.init, new While { cond: self.cond, body: new Block { stmts: [self.body, self.step] } }],
        };
    }
}

// return value;
tree Return : Stmt {
    child value: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) { self.value.resolve(fns, env); }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.value.typecheck(sigs, env);
        if self.value.ty != ret && self.value.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal effects() { self.value.effects(); }
    traversal fold() { self.value.fold(); }
    traversal simplify() { self.value.simplify(); }
    traversal strength_reduce() { self.value.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.value.propagate(env); }
    traversal unreachable() { self.returns = true; }
    traversal allocate(env: {i64: i64}, next: i64) { self.value.allocate(env); self.high = next; }
}

// e;  (a call, usually)
tree ExprStmt : Stmt {
    child e: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) { self.e.resolve(fns, env); }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) { self.e.typecheck(sigs, env); }
    traversal effects() { self.e.effects(); }
    traversal fold() { self.e.fold(); }
    traversal simplify() { self.e.simplify(); }
    traversal strength_reduce() { self.e.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.e.propagate(env); }
    traversal flatten() {
        // An expression without effects computes nothing anyone sees.
        if self.e.effect_free && in_list() { self = []; }
    }
    traversal allocate(env: {i64: i64}, next: i64) { self.e.allocate(env); self.high = next; }
}

// print(e);
tree Print : Stmt {
    child e: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) { self.e.resolve(fns, env); }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) { self.e.typecheck(sigs, env); }
    traversal effects() { self.e.effects(); }
    traversal fold() { self.e.fold(); }
    traversal simplify() { self.e.simplify(); }
    traversal strength_reduce() { self.e.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.e.propagate(env); }
    traversal allocate(env: {i64: i64}, next: i64) { self.e.allocate(env); self.high = next; }
}

// ;
tree Nop : Stmt {
    traversal flatten() { if in_list() { self = []; } }
}

// ------------------------------------------------------------ expressions

abstract tree Expr {
    ty: Ty;
    effect_free: bool;   // no call, cannot fail (effects)

    traversal resolve(fns: {str: i64}, env: {str: i64}) {}
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {}
    traversal effects() { self.effect_free = true; }
    traversal fold() {}
    traversal simplify() {}
    traversal strength_reduce() {}
    traversal propagate(env: {i64: Fact}) {}
    traversal allocate(env: {i64: i64}) {}
}

tree IntLit : Expr {
    v: i64;
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = Ty::Int; }
}

tree BoolLit : Expr {
    v: bool;
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = Ty::Bool; }
}

tree Var : Expr {
    name: str;
    id: i64 = -1;
    slot: i64 = -1;
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.id = get(env, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = get(env, self.id, Ty::Error); }
    traversal propagate(env: {i64: Fact}) {
        if contains(env, self.id) {
            let f = env[self.id];
            CHANGED = true;
            if f.copy {
                self = new Var { name: f.name, id: f.src, ty: f.ty, effect_free: true };
            } else if f.ty == Ty::Bool {
                self = new BoolLit { v: f.v != 0, ty: Ty::Bool, effect_free: true };
            } else {
                self = new IntLit { v: f.v, ty: Ty::Int, effect_free: true };
            }
        }
    }
    traversal allocate(env: {i64: i64}) { self.slot = get(env, self.id, -1); }
}

abstract tree Binary : Expr {
    child l: Expr;
    child r: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.l.resolve(fns, env);
        self.r.resolve(fns, env);
    }
    traversal effects() {
        self.l.effects();
        self.r.effects();
        self.effect_free = self.l.effect_free && self.r.effect_free;
    }
    traversal fold() { self.l.fold(); self.r.fold(); }
    traversal simplify() { self.l.simplify(); self.r.simplify(); }
    traversal strength_reduce() { self.l.strength_reduce(); self.r.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.l.propagate(env); self.r.propagate(env); }
    traversal allocate(env: {i64: i64}) { self.l.allocate(env); self.r.allocate(env); }
}

// l op r on integers
tree Arith : Binary {
    op: ArithOp;
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.l.typecheck(sigs, env);
        self.r.typecheck(sigs, env);
        self.ty = operator_type(self.l.ty, self.r.ty, Ty::Int);
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal effects() {
        self.l.effects();
        self.r.effects();
        // Division and shifts can fail unless the right operand is a
        // literal for which they are defined.
        let safe = match self.op {
            ArithOp::Div | ArithOp::Mod | ArithOp::Shl | ArithOp::Shr =>
                self.r is IntLit && defined(self.op, (self.r as IntLit).v),
            _ => true,
        };
        self.effect_free = self.l.effect_free && self.r.effect_free && safe;
    }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is IntLit && self.r is IntLit && defined(self.op, (self.r as IntLit).v) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new IntLit {
                v: arith(self.op, (self.l as IntLit).v, (self.r as IntLit).v),
                ty: Ty::Int,
                effect_free: true,
            };
        }
    }
    traversal simplify() {
        self.l.simplify();
        self.r.simplify();
        let lk = self.l is IntLit;
        let rk = self.r is IntLit;
        let a = if lk { (self.l as IntLit).v } else { 0 };
        let b = if rk { (self.r as IntLit).v } else { 0 };
        let op = self.op;
        // x + 0, x - 0, x | 0, x ^ 0, x << 0, x >> 0, x * 1, x / 1  =>  x
        if rk && b == 0 && (op == ArithOp::Add || op == ArithOp::Sub || op == ArithOp::BitOr
                || op == ArithOp::BitXor || op == ArithOp::Shl || op == ArithOp::Shr) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = self.l;
        }
        if rk && b == 1 && (op == ArithOp::Mul || op == ArithOp::Div) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = self.l;
        }
        // 0 + x, 0 | x, 0 ^ x, 1 * x  =>  x
        if lk && a == 0 && (op == ArithOp::Add || op == ArithOp::BitOr || op == ArithOp::BitXor) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = self.r;
        }
        if lk && a == 1 && op == ArithOp::Mul {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = self.r;
        }
        // x * 0, 0 * x, x & 0, 0 & x  =>  0, when x has no effect
        if (op == ArithOp::Mul || op == ArithOp::BitAnd) && ((rk && b == 0 && self.l.effect_free) || (lk && a == 0 && self.r.effect_free)) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new IntLit { v: 0, ty: Ty::Int, effect_free: true };
        }
    }
    traversal strength_reduce() {
        self.l.strength_reduce();
        self.r.strength_reduce();
        if self.op == ArithOp::Mul {
            if self.r is IntLit && log2_exact((self.r as IntLit).v) > 0 {
                self = new Arith {
                    op: ArithOp::Shl,
                    l: self.l,
                    r: new IntLit { v: log2_exact((self.r as IntLit).v), ty: Ty::Int, effect_free: true },
                    ty: Ty::Int,
                    effect_free: self.effect_free,
                };
            } else if self.l is IntLit && log2_exact((self.l as IntLit).v) > 0 {
                self = new Arith {
                    op: ArithOp::Shl,
                    l: self.r,
                    r: new IntLit { v: log2_exact((self.l as IntLit).v), ty: Ty::Int, effect_free: true },
                    ty: Ty::Int,
                    effect_free: self.effect_free,
                };
            }
        }
    }
}

// l op r: integers (or, for == and !=, two values of one type) to bool
tree Compare : Binary {
    op: CmpOp;
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.l.typecheck(sigs, env);
        self.r.typecheck(sigs, env);
        let equality = self.op == CmpOp::Eq || self.op == CmpOp::Ne;
        if self.l.ty == Ty::Error || self.r.ty == Ty::Error {
            self.ty = Ty::Error;
        } else if (self.l.ty == Ty::Int && self.r.ty == Ty::Int) || (equality && self.l.ty == self.r.ty) {
            self.ty = Ty::Bool;
        } else {
            self.ty = Ty::Error;
            TYPE_ERRORS = TYPE_ERRORS + 1;
        }
    }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is IntLit && self.r is IntLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new BoolLit {
                v: compare(self.op, (self.l as IntLit).v, (self.r as IntLit).v),
                ty: Ty::Bool,
                effect_free: true,
            };
        }
        if self.l is BoolLit && self.r is BoolLit && (self.op == CmpOp::Eq || self.op == CmpOp::Ne) {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new BoolLit {
                v: ((self.l as BoolLit).v == (self.r as BoolLit).v) == (self.op == CmpOp::Eq),
                ty: Ty::Bool,
                effect_free: true,
            };
        }
    }
}

// l && r, l || r (short-circuit)
tree Logical : Binary {
    op: LogicOp;
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.l.typecheck(sigs, env);
        self.r.typecheck(sigs, env);
        self.ty = operator_type(self.l.ty, self.r.ty, Ty::Bool);
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal fold() {
        self.l.fold();
        self.r.fold();
        if self.l is BoolLit && self.r is BoolLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            let a = (self.l as BoolLit).v;
            let b = (self.r as BoolLit).v;
            self = new BoolLit {
                v: if self.op == LogicOp::And { a && b } else { a || b },
                ty: Ty::Bool,
                effect_free: true,
            };
        }
    }
    traversal simplify() {
        self.l.simplify();
        self.r.simplify();
        if self.l is BoolLit {
            // true && r => r, false || r => r; false && r => false, true || r => true
            FOLDS = FOLDS + 1;
            CHANGED = true;
            if (self.l as BoolLit).v == (self.op == LogicOp::And) {
                self = self.r;
            } else {
                self = self.l;
            }
        }
        if self.r is BoolLit && (self.r as BoolLit).v == (self.op == LogicOp::And) {
            // l && true => l, l || false => l
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = self.l;
        }
    }
}

abstract tree Unary : Expr {
    child e: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) { self.e.resolve(fns, env); }
    traversal effects() { self.e.effects(); self.effect_free = self.e.effect_free; }
    traversal fold() { self.e.fold(); }
    traversal simplify() { self.e.simplify(); }
    traversal strength_reduce() { self.e.strength_reduce(); }
    traversal propagate(env: {i64: Fact}) { self.e.propagate(env); }
    traversal allocate(env: {i64: i64}) { self.e.allocate(env); }
}

// -e
tree Neg : Unary {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.e.typecheck(sigs, env);
        self.ty = if self.e.ty == Ty::Int { Ty::Int } else { Ty::Error };
        if self.e.ty == Ty::Bool { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal fold() {
        self.e.fold();
        if self.e is IntLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new IntLit { v: 0 - (self.e as IntLit).v, ty: Ty::Int, effect_free: true };
        }
    }
    traversal simplify() {
        self.e.simplify();
        if self.e is Neg {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = (self.e as Neg).e;
        }
    }
}

// !e (boolean)
tree Not : Unary {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.e.typecheck(sigs, env);
        self.ty = if self.e.ty == Ty::Bool { Ty::Bool } else { Ty::Error };
        if self.e.ty == Ty::Int { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal fold() {
        self.e.fold();
        if self.e is BoolLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new BoolLit { v: !(self.e as BoolLit).v, ty: Ty::Bool, effect_free: true };
        }
    }
    traversal simplify() {
        self.e.simplify();
        if self.e is Not {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = (self.e as Not).e;
        }
        if self.e is Compare && self.e.ty == Ty::Bool {
            // !(a < b) => a >= b (on integers; == and != on bools too)
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new Compare {
                op: negate((self.e as Compare).op),
                l: (self.e as Compare).l,
                r: (self.e as Compare).r,
                ty: Ty::Bool,
                effect_free: self.e.effect_free,
            };
        }
    }
}

// ~e (bitwise)
tree BitNot : Unary {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.e.typecheck(sigs, env);
        self.ty = if self.e.ty == Ty::Int { Ty::Int } else { Ty::Error };
        if self.e.ty == Ty::Bool { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
    traversal fold() {
        self.e.fold();
        if self.e is IntLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            self = new IntLit { v: !(self.e as IntLit).v, ty: Ty::Int, effect_free: true };
        }
    }
}

// name(args)
tree Call : Expr {
    name: str;
    func: i64 = -1;
    child args: [Expr];
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.func = get(fns, self.name, -1);
        if self.func < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
        for a in self.args { a.resolve(fns, env); }
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        let ok = contains(sigs, self.func);
        let params: {i64: Ty} = if ok { sigs[self.func].params } else { {} };
        let i = 0;
        for a in self.args {
            a.typecheck(sigs, env);
            if ok && a.ty != Ty::Error && get(params, i, Ty::Error) != a.ty { ok = false; }
            i = i + 1;
        }
        if ok && i == len(params) {
            self.ty = sigs[self.func].ret;
        } else {
            self.ty = Ty::Error;
            if contains(sigs, self.func) { TYPE_ERRORS = TYPE_ERRORS + 1; }
        }
    }
    traversal effects() {
        for a in self.args { a.effects(); }
        self.effect_free = false;
    }
    traversal fold() { for a in self.args { a.fold(); } }
    traversal simplify() { for a in self.args { a.simplify(); } }
    traversal strength_reduce() { for a in self.args { a.strength_reduce(); } }
    traversal propagate(env: {i64: Fact}) { for a in self.args { a.propagate(env); } }
    traversal allocate(env: {i64: i64}) { for a in self.args { a.allocate(env); } }
}

// c ? a : b
tree Cond : Expr {
    child c: Expr;
    child a: Expr;
    child b: Expr;
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.c.resolve(fns, env);
        self.a.resolve(fns, env);
        self.b.resolve(fns, env);
    }
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        self.c.typecheck(sigs, env);
        self.a.typecheck(sigs, env);
        self.b.typecheck(sigs, env);
        if self.c.ty == Ty::Bool && self.a.ty == self.b.ty {
            self.ty = self.a.ty;
        } else {
            self.ty = Ty::Error;
            if self.c.ty != Ty::Error && self.a.ty != Ty::Error && self.b.ty != Ty::Error {
                TYPE_ERRORS = TYPE_ERRORS + 1;
            }
        }
    }
    traversal effects() {
        self.c.effects();
        self.a.effects();
        self.b.effects();
        self.effect_free = self.c.effect_free && self.a.effect_free && self.b.effect_free;
    }
    traversal fold() {
        self.c.fold();
        if self.c is BoolLit {
            FOLDS = FOLDS + 1;
            CHANGED = true;
            if (self.c as BoolLit).v {
                self.a.fold();
                self = self.a;
            } else {
                self.b.fold();
                self = self.b;
            }
        }
        self.a.fold();
        self.b.fold();
    }
    traversal simplify() { self.c.simplify(); self.a.simplify(); self.b.simplify(); }
    traversal strength_reduce() {
        self.c.strength_reduce();
        self.a.strength_reduce();
        self.b.strength_reduce();
    }
    traversal propagate(env: {i64: Fact}) {
        self.c.propagate(env);
        self.a.propagate(env);
        self.b.propagate(env);
    }
    traversal allocate(env: {i64: i64}) { self.c.allocate(env); self.a.allocate(env); self.b.allocate(env); }
}

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
    // Propagation exposes folds, folds expose constants: to a fixpoint.
    CHANGED = true;
    while CHANGED limit 8 {
        CHANGED = false;
        root.propagate();
        root.fold();
    }
    root.dead_branches();
    root.unreachable();
    root.flatten();
    root.allocate();
}
