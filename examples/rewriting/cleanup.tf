// Statement-list clean-up, three passes a compiler runs after constant
// folding, each written on its own (LANGUAGE.md §7.1–7.2):
//
// - `prune`: dead-statement removal. `nop;` disappears, an `if` whose
//   condition is a constant is replaced by the block of the branch taken,
//   and the statements after a `return` in the same block are deleted.
// - `flatten`: block flattening. A block standing in a statement list is
//   replaced by its own statements (a thicket splice).
// - `declare`: a variable assigned before any `let` of it in its function
//   gets a declaration inserted just before that first assignment
//   (`x = e;` becomes `let x = 0; x = e;`); the names seen so far live in a
//   map global, reset per function.
//
// `fuse cleanup` runs them in that order. `removed` and `inserted` count
// the statements deleted and the declarations inserted.

global removed: i64 = 0;
global inserted: i64 = 0;
global declared: {str: bool} = {};

abstract tree Expr {}
tree Num : Expr { v: i64; }
tree Var : Expr { name: str; }
tree Add : Expr { child l: Expr; child r: Expr; }

abstract tree Stmt {
    traversal prune() {}
    traversal flatten() {}
    traversal declare() {}
    // A statement after a `return` of its block.
    traversal unreachable() {
        removed = removed + 1;
        self = [];
    }
}

tree Nop : Stmt {
    traversal prune() {
        removed = removed + 1;
        self = [];
    }
}

tree Let : Stmt {
    name: str;
    child init: Expr;
    traversal declare() { declared[self.name] = true; }
}

tree Assign : Stmt {
    name: str;
    child value: Expr;
    traversal declare() {
        if !contains(declared, self.name) {
            declared[self.name] = true;
            inserted = inserted + 1;
            self = [new Let { name: self.name, init: new Num { v: 0 } }, self];
        }
    }
}

tree Return : Stmt {
    child value: Expr;
}

tree If : Stmt {
    child cond: Expr;
    child then: Block;
    child els: Block;
    traversal prune() {
        self.then.prune();
        self.els.prune();
        if self.cond is Num {
            removed = removed + 1;
            if (self.cond as Num).v != 0 { self = self.then; } else { self = self.els; }
        }
    }
    traversal flatten() {
        self.then.flatten();
        self.els.flatten();
    }
    traversal declare() {
        self.then.declare();
        self.els.declare();
    }
}

tree Block : Stmt {
    child stmts: [Stmt];
    traversal prune() {
        let live: bool = true;
        for s in self.stmts {
            if live { s.prune(); } else { s.unreachable(); }
            if s is Return { live = false; }
        }
    }
    traversal flatten() {
        for s in self.stmts { s.flatten(); }
        if in_list() { self = self.stmts; }
    }
    traversal declare() {
        for s in self.stmts { s.declare(); }
    }
}

tree Func {
    name: str;
    child body: Block;
    traversal prune() { self.body.prune(); }
    traversal flatten() { self.body.flatten(); }
    traversal declare() {
        declared = {};
        self.body.declare();
    }
}

tree Program {
    child funcs: [Func];
    traversal prune() { for f in self.funcs { f.prune(); } }
    traversal flatten() { for f in self.funcs { f.flatten(); } }
    traversal declare() { for f in self.funcs { f.declare(); } }
}

fuse cleanup(root: Program) {
    root.prune();
    root.flatten();
    root.declare();
}
