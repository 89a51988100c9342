// Pass 4, typecheck: the `Ty` of every expression, inferred `let` types,
// signatures as `{i64: Sig}`; `TYPE_ERRORS` counts ill-typed expressions
// and statements (an ill-typed operand is counted once, not again by its
// parents). Expressions take no `ret`, so statements call them by name.

// The type of an operator on two operands of type `t` that gives a `t`.
pure fn operator_type(l: Ty, r: Ty, t: Ty) -> Ty = if l == t && r == t { t } else { Ty::Error };

// An Error type caused here, not inherited from an operand (counted once).
pure fn new_error(result: Ty, l: Ty, r: Ty) -> bool = result == Ty::Error && l != Ty::Error && r != Ty::Error;

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
}

// ---- statements

impl Stmt { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {} }
impl Block {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        let scope = env;
        for s in self.stmts {
            s.typecheck(sigs, scope, ret);
            if s is Let { scope[(s as Let).id] = (s as Let).decl; }
        }
    }
}
impl Let {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.init.typecheck(sigs, env);
        if self.decl == Ty::Unknown {
            self.decl = self.init.ty;
        } else if self.init.ty != self.decl && self.init.ty != Ty::Error {
            TYPE_ERRORS = TYPE_ERRORS + 1;
        }
    }
}
impl Assign {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.value.typecheck(sigs, env);
        let t = get(env, self.id, Ty::Error);
        if t != Ty::Error && self.value.ty != Ty::Error && self.value.ty != t { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl If {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.cond.typecheck(sigs, env);
        if self.cond.ty != Ty::Bool && self.cond.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
        self.then_b.typecheck(sigs, env, ret);
        self.else_b.typecheck(sigs, env, ret);
    }
}
impl While {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.cond.typecheck(sigs, env);
        if self.cond.ty != Ty::Bool && self.cond.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
        self.body.typecheck(sigs, env, ret);
    }
}
impl Return {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) {
        self.value.typecheck(sigs, env);
        if self.value.ty != ret && self.value.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl ExprStmt { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) { self.e.typecheck(sigs, env); } }
impl Print { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}, ret: Ty) { self.e.typecheck(sigs, env); } }

// ---- expressions: the operands (the walk), then the node's own type

impl Expr { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) walk; }
impl IntLit { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = Ty::Int; } }
impl BoolLit { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = Ty::Bool; } }
impl Var { traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) { self.ty = get(env, self.id, Ty::Error); } }
impl Arith {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
        self.ty = operator_type(self.l.ty, self.r.ty, Ty::Int);
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Compare {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
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
}
impl Logical {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
        self.ty = operator_type(self.l.ty, self.r.ty, Ty::Bool);
        if new_error(self.ty, self.l.ty, self.r.ty) { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
// -e and ~e take and give an integer, !e a bool.
impl Unary {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
        self.ty = if self.e.ty == Ty::Int { Ty::Int } else { Ty::Error };
        if self.e.ty == Ty::Bool { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Not {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
        self.ty = if self.e.ty == Ty::Bool { Ty::Bool } else { Ty::Error };
        if self.e.ty == Ty::Int { TYPE_ERRORS = TYPE_ERRORS + 1; }
    }
}
impl Call {
    // Each argument is checked against its parameter as it is typed.
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
}
impl Cond {
    traversal typecheck(sigs: {i64: Sig}, env: {i64: Ty}) {
        walk;
        if self.c.ty == Ty::Bool && self.a.ty == self.b.ty {
            self.ty = self.a.ty;
        } else {
            self.ty = Ty::Error;
            if self.c.ty != Ty::Error && self.a.ty != Ty::Error && self.b.ty != Ty::Error { TYPE_ERRORS = TYPE_ERRORS + 1; }
        }
    }
}
