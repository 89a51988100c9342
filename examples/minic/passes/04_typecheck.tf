// Pass 4, typecheck: the `Ty` of every expression, inferred `let` types,
// signatures as `{i64: Sig}`; `TYPE_ERRORS` counts ill-typed expressions
// and statements (an ill-typed operand is counted once, not again by its
// parents).

// What a node is typed in: the signatures, the variables in scope, and
// the function's return type (which only `return` reads). Statements and
// expressions take the same, so a walk passes it on.
record Typing { sigs: {i64: Sig}, vars: {i64: Ty}, ret: Ty }

// An Error type caused here, not inherited from an operand (counted once).
pure fn new_error(result: Ty, l: Ty, r: Ty) -> bool = result == Ty::Error && l != Ty::Error && r != Ty::Error;

// A value of type `got` where a `want` is needed: an error, unless the
// value's own type is already one (counted where it was caused).
pure fn mismatch(got: Ty, want: Ty) -> bool = got != want && got != Ty::Error;

impl Program {
    traversal typecheck() {
        let sigs: {i64: Sig} = {};
        for f in self.funcs {
            f.signature();
            sigs[f.index] = f.sig;
        }
        for f in self.funcs { f.typecheck(sigs); }
    }
}
impl Func {
    traversal signature() {
        let params: {i64: Ty} = {};
        for p in self.params { params[len(params)] = p.ty; }   // in order: 0, 1, ...
        self.sig = Sig { ret: self.ret, params: params };
    }
    traversal typecheck(sigs: {i64: Sig}) {
        let vars: {i64: Ty} = {};
        for p in self.params { vars[p.id] = p.ty; }
        self.body.typecheck(Typing { sigs: sigs, vars: vars, ret: self.ret });
    }
}

// ---- statements: their expressions (the walk), then the checks

impl Stmt { traversal typecheck(t: Typing) walk; }
impl Sugar { traversal typecheck(t: Typing) {} }
impl Block {
    traversal typecheck(t: Typing) {
        let scope = t;
        for s in self.stmts {
            s.typecheck(scope);
            if s is Let { scope.vars[(s as Let).id] = (s as Let).decl; }
        }
    }
}
impl Let {
    traversal typecheck(t: Typing) {
        walk;
        let inferred = self.decl == Ty::Unknown;
        if inferred { self.decl = self.init.ty; }
        if !inferred && mismatch(self.init.ty, self.decl) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Assign {
    traversal typecheck(t: Typing) {
        walk;
        let want = get(t.vars, self.id, Ty::Error);
        if want != Ty::Error && mismatch(self.value.ty, want) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
// The condition of an `if` or a `while` must be a bool.
impl Guarded {
    traversal typecheck(t: Typing) {
        walk;
        if mismatch(self.cond.ty, Ty::Bool) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Return {
    traversal typecheck(t: Typing) {
        walk;
        if mismatch(self.value.ty, t.ret) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}

// ---- expressions: the operands (the walk), then the node's own type

impl Expr { traversal typecheck(t: Typing) walk; }
impl IntLit { traversal typecheck(t: Typing) { self.ty = Ty::Int; } }
impl BoolLit { traversal typecheck(t: Typing) { self.ty = Ty::Bool; } }
impl Var { traversal typecheck(t: Typing) { self.ty = get(t.vars, self.id, Ty::Error); } }
// Arithmetic takes and gives integers, `&&` and `||` bools.
impl Binary {
    traversal typecheck(t: Typing) {
        walk;
        let operands = if self is Logical { Ty::Bool } else { Ty::Int };
        self.ty = if self.l.ty == operands && self.r.ty == operands { operands } else { Ty::Error };
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
// Integers compare with every operator, two values of any one type (but
// Error) with == and !=.
impl Compare {
    traversal typecheck(t: Typing) {
        walk;
        let equality = self.op == CmpOp::Eq || self.op == CmpOp::Ne;
        let comparable = self.l.ty == Ty::Int || (equality && self.l.ty != Ty::Error);
        self.ty = if self.l.ty == self.r.ty && comparable { Ty::Bool } else { Ty::Error };
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
// -e and ~e take and give an integer, !e a bool; an operand of the other
// type is an error (one of type Error or Unknown is not counted).
impl Unary {
    traversal typecheck(t: Typing) {
        walk;
        let want = if self is Not { Ty::Bool } else { Ty::Int };
        let other = if self is Not { Ty::Int } else { Ty::Bool };
        self.ty = if self.e.ty == want { want } else { Ty::Error };
        if self.e.ty == other { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Call {
    // Each argument is checked against its parameter as it is typed.
    traversal typecheck(t: Typing) {
        let ok = contains(t.sigs, self.func);
        let params: {i64: Ty} = if ok { t.sigs[self.func].params } else { {} };
        let i = 0;
        for a in self.args {
            a.typecheck(t);
            if ok && a.ty != Ty::Error && get(params, i, Ty::Error) != a.ty { ok = false; }
            i = i + 1;
        }
        let fits = ok && i == len(params);
        self.ty = if fits { t.sigs[self.func].ret } else { Ty::Error };
        if !fits && contains(t.sigs, self.func) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Cond {
    traversal typecheck(t: Typing) {
        walk;
        self.ty = if self.c.ty == Ty::Bool && self.a.ty == self.b.ty { self.a.ty } else { Ty::Error };
        let caused = new_error(self.ty, self.a.ty, self.b.ty) && self.c.ty != Ty::Error;
        if caused { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
