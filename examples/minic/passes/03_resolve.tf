// Pass 3, resolve: names => declaration ids (`NEXT_ID`), calls => function
// indices; scoped `{str: i64}` environments grown across a statement list;
// `RESOLVE_ERRORS` counts names without a declaration.
//
// Declaration ids are local to their function (0, 1, ... in each, as
// rustc's `ItemLocalId`): every later pass keys its maps by id within one
// function only. So `NEXT_ID` is set when a function starts, before it is
// read, and the functions do not depend on each other's numbering: the
// fuser can run them in parallel (`treefuse fuse` says so).

// The names a node sees: the functions (by index) and the variables in
// scope (by declaration id).
record Names { funcs: {str: i64}, vars: {str: i64} }

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
        NEXT_ID = 0;
        let names = Names { funcs: fns, vars: {} };
        for p in self.params {
            p.resolve();
            names.vars[p.name] = p.id;
        }
        self.body.resolve(names);
    }
}

impl Stmt { traversal resolve(n: Names) walk; }
impl Sugar { traversal resolve(n: Names) {} }
impl Expr { traversal resolve(n: Names) walk; }

impl Block {
    traversal resolve(n: Names) {
        let scope = n;
        for s in self.stmts {
            s.resolve(scope);
            if s is Let { scope.vars[(s as Let).name] = (s as Let).id; }
        }
    }
}
impl Let { traversal resolve(n: Names) { walk; self.id = NEXT_ID; NEXT_ID = NEXT_ID + 1; } }
impl Assign {
    traversal resolve(n: Names) {
        walk;
        self.id = get(n.vars, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
}
impl Var {
    traversal resolve(n: Names) {
        self.id = get(n.vars, self.name, -1);
        if self.id < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
    }
}
impl Call {
    traversal resolve(n: Names) {
        self.func = get(n.funcs, self.name, -1);
        if self.func < 0 { RESOLVE_ERRORS = RESOLVE_ERRORS + 1; }
        walk;
    }
}
