// Pass 10, propagate (with fold, pass 11, to a fixpoint per function):
// constant and copy propagation with a scoped `{i64: Fact}` environment.
// An assignment kills the variable and its copies; a loop kills what its
// body assigns, before the condition. A `Var` with a known fact replaces
// itself by the constant or the variable it copies, and sets `CHANGED`.

// `env` without what assigning variable `id` invalidates: its own fact
// and every copy of it.
pure fn kill(env: {i64: Fact}, id: i64) -> {i64: Fact} {
    let e: {i64: Fact} = remove(env, id);
    for k in keys(e) {
        if e[k].copy && e[k].src == id { e = remove(e, k); }
    }
    return e;
}

pure fn kill_all(env: {i64: Fact}, ids: {i64: bool}) -> {i64: Fact} {
    for id in keys(ids) { env = kill(env, id); }
    return env;
}

pure fn int_fact(v: i64) -> Fact = Fact { copy: false, v: v, src: -1, name: "", ty: Ty::Int };
pure fn bool_fact(b: bool) -> Fact = Fact { copy: false, v: if b { 1 } else { 0 }, src: -1, name: "", ty: Ty::Bool };

// Propagation exposes folds, folds expose constants: each function runs
// rounds of both until one changes nothing (at most 8), and a round of a
// function walks its body once, the two passes fused. Most functions
// settle in two rounds; a fixpoint over the whole program would walk
// every function as often as the slowest needs.
impl Program { traversal settle() walk; }
impl Func {
    traversal settle() {
        CHANGED = true;
        while CHANGED limit 8 {
            CHANGED = false;
            self.body.propagate({});   // parameters are unknown on entry
            self.body.fold();
        }
    }
}
impl Stmt { traversal propagate(env: {i64: Fact}) walk; }
impl Sugar { traversal propagate(env: {i64: Fact}) {} }
impl Expr { traversal propagate(env: {i64: Fact}) walk; }

impl Block {
    traversal propagate(env: {i64: Fact}) {
        let known = env;
        for s in self.stmts {
            s.propagate(known);
            known = kill_all(known, s.assigned);
            if s is Let {
                let l = (s as Let);
                if l.init is IntLit { known[l.id] = int_fact((l.init as IntLit).v); }
                if l.init is BoolLit { known[l.id] = bool_fact((l.init as BoolLit).v); }
                if l.init is Var && (l.init as Var).id >= 0 && l.init.ty == l.decl {
                    let v = (l.init as Var);
                    known[l.id] = Fact { copy: true, v: 0, src: v.id, name: v.name, ty: l.decl };
                }
            }
            if s is Assign {
                let a = (s as Assign);
                if a.value is IntLit { known[a.id] = int_fact((a.value as IntLit).v); }
                if a.value is BoolLit { known[a.id] = bool_fact((a.value as BoolLit).v); }
            }
        }
    }
}
// The condition and the body run again after the body assigned:
// nothing the body assigns is known inside the loop.
impl While { traversal propagate(env: {i64: Fact}) { walk(kill_all(env, self.assigned)); } }
impl Var {
    traversal propagate(env: {i64: Fact}) {
        if contains(env, self.id) {
            let f = env[self.id];
            CHANGED = true;
            // A copy, a bool or an integer (a replacement ends the traversal).
            if f.copy { self = new Var { name: f.name, id: f.src, ty: f.ty, effect_free: true }; }
            if f.ty == Ty::Bool { self = new BoolLit { v: f.v != 0 }; }
            self = new IntLit { v: f.v };
        }
    }
}
