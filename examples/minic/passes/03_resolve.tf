// Pass 3, resolve: names => declaration ids (`NEXT_ID`), calls => function
// indices; scoped `{str: i64}` environments grown across a statement list;
// `RESOLVE_ERRORS` counts names without a declaration.

impl Program {
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
}
impl Param { traversal resolve() { self.id = NEXT_ID; NEXT_ID = NEXT_ID + 1; } }
impl Func {
    traversal resolve(fns: {str: i64}) {
        let env: {str: i64} = {};
        for p in self.params {
            p.resolve();
            env[p.name] = p.id;
        }
        self.body.resolve(fns, env);
    }
}

impl Stmt { traversal resolve(fns: {str: i64}, env: {str: i64}) walk; }
impl Sugar { traversal resolve(fns: {str: i64}, env: {str: i64}) {} }
impl Expr { traversal resolve(fns: {str: i64}, env: {str: i64}) walk; }

impl Block {
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        let scope = env;
        for s in self.stmts {
            s.resolve(fns, scope);
            if s is Let { scope[(s as Let).name] = (s as Let).id; }
        }
    }
}
impl Let {
    traversal resolve(fns: {str: i64}, env: {str: i64}) { walk; self.id = NEXT_ID; NEXT_ID = NEXT_ID + 1; }
}
impl Assign {
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        walk;
        self.id = get(env, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
}
impl Var {
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.id = get(env, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
}
impl Call {
    traversal resolve(fns: {str: i64}, env: {str: i64}) {
        self.func = get(fns, self.name, -1);
        if self.func < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
        walk;
    }
}
