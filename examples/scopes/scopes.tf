// Scope resolution, the pass every compiler front end has: an environment
// from names to declaration slots is passed down the tree and grows across
// the statements of a block (a declaration is visible to the statements
// after it, in its block and in blocks nested there); every use of a name
// records the slot of the declaration it refers to, and uses of names that
// are not declared are counted.
//
// The environment is a map value: passing it down costs O(1) and adding a
// declaration O(log n), because maps are persistent (shared structure).

global unresolved: i64 = 0;
global slots: i64 = 0;

tree Program {
    child body: Block;
    traversal resolve() {
        self.body.resolve({}, 0);
    }
}

abstract tree Stmt {
    traversal resolve(env: {str: i64}, depth: i64);
}

tree Block : Stmt {
    child stmts: [Stmt];
    traversal resolve(env: {str: i64}, depth: i64) {
        for s in self.stmts {
            s.resolve(env, depth + 1);
            if s is Decl {
                env[(s as Decl).name] = (s as Decl).slot;
            }
        }
    }
}

// `let name = init;`: the initializer sees the environment before the
// declaration; the declaration gets the next slot.
tree Decl : Stmt {
    child init: Expr;
    name: str;
    slot: i64 = -1;
    depth: i64;
    traversal resolve(env: {str: i64}, depth: i64) {
        self.init.resolve(env);
        self.slot = slots;
        self.depth = depth;
        slots = slots + 1;
    }
}

tree ExprStmt : Stmt {
    child e: Expr;
    traversal resolve(env: {str: i64}, depth: i64) {
        self.e.resolve(env);
    }
}

abstract tree Expr {
    traversal resolve(env: {str: i64});
}

tree Num : Expr {
    v: i64;
    traversal resolve(env: {str: i64}) {}
}

// A use of a name: the slot of the visible declaration, or -1.
tree Var : Expr {
    name: str;
    slot: i64 = -1;
    traversal resolve(env: {str: i64}) {
        self.slot = get(env, self.name, -1);
        if self.slot < 0 {
            unresolved = unresolved + 1;
        }
    }
}

tree Add : Expr {
    child l: Expr;
    child r: Expr;
    traversal resolve(env: {str: i64}) {
        self.l.resolve(env);
        self.r.resolve(env);
    }
}

fuse resolve(root: Program) {
    root.resolve();
}
