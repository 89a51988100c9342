// AST passes with list children: the idiomatic twin of ast.tf.
//
// Same statements and expressions, same passes, same results as ast.tf (the
// tests compare the optimized programs on generated inputs), but functions
// and statements are list children (`[T]`) instead of `*ListInner` /
// `*ListEnd` chains. A statement sits in a `Stmt` slot, so that a pass can
// replace it in place (desugaring); a function body and each branch of an
// `if` is a `Block` of slots, so that a branch can be replaced whole
// (unreachable branches).
//
// Constant propagation. In ast.tf each constant assignment starts its own
// `replaceVarRefWithConst` walk over the rest of its statement list, which
// stops after an `if` or after a new assignment to the same variable. A
// list loop cannot start a walk from the middle of a list, so here one loop
// carries all walks that are still going: the variables and values of the
// constant assignments seen so far (arrays of at most LIVE_MAX entries; more
// live constants at once stop the run with an index-out-of-range error
// rather than give a different result). Walks over different variables
// touch different references, so running them side by side gives the same
// tree as running them one after the other.
//
// Reference quirks kept, so that the results agree:
// - the last statement of a list is not desugared (StmtListEnd does not);
// - an `if` condition that is a bare variable is not replaced (only
//   references inside a binary expression are);
// - a removed branch becomes a block holding one `NullStmt`.
//
// Generate inputs with `treefuse gen-example ast-lists --size F`.

global ADD: i64 = 0;
global SUBTRACT: i64 = 1;

// How many constant assignments may be live at once in one statement list.
global LIVE_MAX: i64 = 64;
global NO_LIVE: [i64] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
];

pure fn apply_op(op: i64, l: i64, r: i64) -> i64 =
    if op == 0 { l + r } else { if op == 1 { l - r } else { 0 } };

// The position of `id` among the first `n` entries of `ids`, or -1.
pure fn index_of(ids: [i64], n: i64, id: i64) -> i64 {
    let found: i64 = -1;
    for i in 0..n {
        if ids[i] == id {
            found = i;
        }
    }
    return found;
}

// `a` without entry `k` of its first `n` (the last entry takes its place).
pure fn remove_at(a: [i64], n: i64, k: i64) -> [i64] {
    let b: [i64] = a;
    b[k] = a[n - 1];
    return b;
}

abstract tree ASTNode {
    traversal fold_constants() {}
    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {}
    traversal propagate_constants_assignments() {}
    traversal remove_unreachable_branches() {}
    traversal desugar_inc() {}
    traversal desugar_decr() {}
}

// ------------------------------------------------------------ program and functions

tree Program : ASTNode {
    child functions: [Function];

    traversal fold_constants() {
        for f in self.functions {
            f.fold_constants();
        }
    }
    traversal propagate_constants_assignments() {
        for f in self.functions {
            f.propagate_constants_assignments();
        }
    }
    traversal remove_unreachable_branches() {
        for f in self.functions {
            f.remove_unreachable_branches();
        }
    }
    traversal desugar_inc() {
        for f in self.functions {
            f.desugar_inc();
        }
    }
    traversal desugar_decr() {
        for f in self.functions {
            f.desugar_decr();
        }
    }
}

tree Function : ASTNode {
    function_name: str = "not-set";
    child body: Block;

    traversal fold_constants() {
        self.body.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.body.propagate_constants_assignments();
    }
    traversal remove_unreachable_branches() {
        self.body.remove_unreachable_branches();
    }
    traversal desugar_inc() {
        self.body.desugar_inc();
    }
    traversal desugar_decr() {
        self.body.desugar_decr();
    }
}

// ------------------------------------------------------------ blocks and slots

tree Block : ASTNode {
    child stmts: [Stmt];

    traversal fold_constants() {
        for s in self.stmts {
            s.fold_constants();
        }
    }

    traversal propagate_constants_assignments() {
        // The walks still going: variables, values, how many.
        let ids: [i64] = NO_LIVE;
        let vals: [i64] = NO_LIVE;
        let n: i64 = 0;
        for s in self.stmts {
            // The walks of earlier constant assignments reach this statement
            // (ast.tf: Next.replaceVarRefWithConst(...) of the earlier
            // StmtListInner nodes)...
            if n > 0 {
                s.replace_var_refs_with_consts(ids, vals, n);
            }
            // ...and stop after an `if` or a new assignment to their variable.
            if s.stmt is IfStmt {
                n = 0;
            }
            if s.stmt is AssignStmt {
                let k: i64 = index_of(ids, n, (s.stmt as AssignStmt).id.var_id);
                if k >= 0 {
                    ids = remove_at(ids, n, k);
                    vals = remove_at(vals, n, k);
                    n = n - 1;
                }
            }
            // A constant assignment starts a walk over the statements after it.
            if s.stmt is AssignStmt && (s.stmt as AssignStmt).assigned_expr is ConstantExpr {
                ids[n] = (s.stmt as AssignStmt).id.var_id;
                vals[n] = ((s.stmt as AssignStmt).assigned_expr as ConstantExpr).value;
                n = n + 1;
            }
            s.propagate_constants_assignments();
        }
    }

    // One or more walks entering this block (a branch of an `if`).
    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {
        for s in self.stmts {
            if n > 0 {
                s.replace_var_refs_with_consts(ids, vals, n);
                if s.stmt is IfStmt {
                    n = 0;
                }
                if s.stmt is AssignStmt {
                    let k: i64 = index_of(ids, n, (s.stmt as AssignStmt).id.var_id);
                    if k >= 0 {
                        ids = remove_at(ids, n, k);
                        vals = remove_at(vals, n, k);
                        n = n - 1;
                    }
                }
            }
        }
    }

    traversal remove_unreachable_branches() {
        for s in self.stmts {
            s.remove_unreachable_branches();
        }
    }

    traversal desugar_inc() {
        let count: i64 = 0;
        for s in self.stmts {
            count = count + 1;
        }
        let i: i64 = 0;
        for s in self.stmts {
            i = i + 1;
            if i < count {
                s.desugar_inc();
            } else {
                s.desugar_inside_inc();
            }
        }
    }

    traversal desugar_decr() {
        let count: i64 = 0;
        for s in self.stmts {
            count = count + 1;
        }
        let i: i64 = 0;
        for s in self.stmts {
            i = i + 1;
            if i < count {
                s.desugar_decr();
            } else {
                s.desugar_inside_decr();
            }
        }
    }
}

// A statement slot of a block.
tree Stmt : ASTNode {
    child stmt: StatementNode;

    traversal fold_constants() {
        self.stmt.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.stmt.propagate_constants_assignments();
    }
    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {
        self.stmt.replace_var_refs_with_consts(ids, vals, n);
    }
    traversal remove_unreachable_branches() {
        self.stmt.remove_unreachable_branches();
    }

    traversal desugar_inc() {
        self.stmt.desugar_inc();
        if self.stmt is IncrStmt {
            let variable: i64 = (self.stmt as IncrStmt).id.var_id;
            self.stmt = new AssignStmt {
                id: new VarRefExpr { var_id: variable },
                assigned_expr: new BinaryExpr {
                    operator: ADD,
                    lhs: new VarRefExpr { var_id: variable },
                    rhs: new ConstantExpr { value: 1 },
                },
            };
        }
    }
    // The last statement of a block: only what is inside it.
    traversal desugar_inside_inc() {
        self.stmt.desugar_inc();
    }

    traversal desugar_decr() {
        self.stmt.desugar_decr();
        if self.stmt is DecrStmt {
            let variable: i64 = (self.stmt as DecrStmt).id.var_id;
            self.stmt = new AssignStmt {
                id: new VarRefExpr { var_id: variable },
                assigned_expr: new BinaryExpr {
                    operator: SUBTRACT,
                    lhs: new VarRefExpr { var_id: variable },
                    rhs: new ConstantExpr { value: 1 },
                },
            };
        }
    }
    traversal desugar_inside_decr() {
        self.stmt.desugar_decr();
    }
}

// ------------------------------------------------------------ expressions

abstract tree ExpressionNode : ASTNode {}

tree BinaryExpr : ExpressionNode {
    child lhs: ExpressionNode;
    child rhs: ExpressionNode;
    operator: i64 = 0;

    traversal fold_constants() {
        self.lhs.fold_constants();
        self.rhs.fold_constants();
        if self.lhs is BinaryExpr
            && (self.lhs as BinaryExpr).lhs is ConstantExpr
            && (self.lhs as BinaryExpr).rhs is ConstantExpr {
            let new_value: i64 = apply_op(
                (self.lhs as BinaryExpr).operator,
                ((self.lhs as BinaryExpr).lhs as ConstantExpr).value,
                ((self.lhs as BinaryExpr).rhs as ConstantExpr).value);
            self.lhs = new ConstantExpr { value: new_value };
        }
        if self.rhs is BinaryExpr
            && (self.rhs as BinaryExpr).lhs is ConstantExpr
            && (self.rhs as BinaryExpr).rhs is ConstantExpr {
            let new_value: i64 = apply_op(
                (self.rhs as BinaryExpr).operator,
                ((self.rhs as BinaryExpr).lhs as ConstantExpr).value,
                ((self.rhs as BinaryExpr).rhs as ConstantExpr).value);
            self.rhs = new ConstantExpr { value: new_value };
        }
    }

    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {
        self.lhs.replace_var_refs_with_consts(ids, vals, n);
        self.rhs.replace_var_refs_with_consts(ids, vals, n);
        if self.lhs is VarRefExpr {
            let k: i64 = index_of(ids, n, (self.lhs as VarRefExpr).var_id);
            if k >= 0 {
                self.lhs = new ConstantExpr { value: vals[k] };
            }
        }
        if self.rhs is VarRefExpr {
            let k: i64 = index_of(ids, n, (self.rhs as VarRefExpr).var_id);
            if k >= 0 {
                self.rhs = new ConstantExpr { value: vals[k] };
            }
        }
    }
}

tree VarRefExpr : ExpressionNode {
    var_id: i64 = 0;
}

tree ConstantExpr : ExpressionNode {
    value: i64 = 0;
}

// ------------------------------------------------------------ statements

abstract tree StatementNode : ASTNode {}

tree AssignStmt : StatementNode {
    child id: VarRefExpr;
    is_mutable: bool = false;
    child assigned_expr: ExpressionNode;

    traversal fold_constants() {
        self.assigned_expr.fold_constants();
        if self.assigned_expr is BinaryExpr
            && (self.assigned_expr as BinaryExpr).lhs is ConstantExpr
            && (self.assigned_expr as BinaryExpr).rhs is ConstantExpr {
            let new_value: i64 = apply_op(
                (self.assigned_expr as BinaryExpr).operator,
                ((self.assigned_expr as BinaryExpr).lhs as ConstantExpr).value,
                ((self.assigned_expr as BinaryExpr).rhs as ConstantExpr).value);
            self.assigned_expr = new ConstantExpr { value: new_value };
        }
    }

    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {
        if self.assigned_expr is VarRefExpr {
            let k: i64 = index_of(ids, n, (self.assigned_expr as VarRefExpr).var_id);
            if k >= 0 {
                self.assigned_expr = new ConstantExpr { value: vals[k] };
            }
        }
        self.assigned_expr.replace_var_refs_with_consts(ids, vals, n);
    }
}

tree IncrStmt : StatementNode {
    child id: VarRefExpr;
}

tree DecrStmt : StatementNode {
    child id: VarRefExpr;
}

tree IfStmt : StatementNode {
    child condition: ExpressionNode;
    child then_part: Block;
    child else_part: Block;

    traversal fold_constants() {
        self.condition.fold_constants();
        self.then_part.fold_constants();
        self.else_part.fold_constants();
        if self.condition is BinaryExpr
            && (self.condition as BinaryExpr).lhs is ConstantExpr
            && (self.condition as BinaryExpr).rhs is ConstantExpr {
            let new_value: i64 = apply_op(
                (self.condition as BinaryExpr).operator,
                ((self.condition as BinaryExpr).lhs as ConstantExpr).value,
                ((self.condition as BinaryExpr).rhs as ConstantExpr).value);
            self.condition = new ConstantExpr { value: new_value };
        }
    }

    traversal replace_var_refs_with_consts(ids: [i64], vals: [i64], n: i64) {
        self.condition.replace_var_refs_with_consts(ids, vals, n);
        self.then_part.replace_var_refs_with_consts(ids, vals, n);
        self.else_part.replace_var_refs_with_consts(ids, vals, n);
    }

    traversal propagate_constants_assignments() {
        self.then_part.propagate_constants_assignments();
        self.else_part.propagate_constants_assignments();
    }

    traversal remove_unreachable_branches() {
        if self.condition is ConstantExpr {
            if (self.condition as ConstantExpr).value == 0 {
                self.then_part = new Block { stmts: [new Stmt { stmt: new NullStmt {} }] };
            }
            if (self.condition as ConstantExpr).value != 0 {
                self.else_part = new Block { stmts: [new Stmt { stmt: new NullStmt {} }] };
            }
        }
        self.else_part.remove_unreachable_branches();
        self.then_part.remove_unreachable_branches();
    }

    traversal desugar_inc() {
        self.then_part.desugar_inc();
        self.else_part.desugar_inc();
    }

    traversal desugar_decr() {
        self.then_part.desugar_decr();
        self.else_part.desugar_decr();
    }
}

tree NullStmt : StatementNode {}

fuse optimize(root: Program) {
    root.desugar_decr();
    root.desugar_inc();
    root.propagate_constants_assignments();
    root.fold_constants();
    root.remove_unreachable_branches();
}
