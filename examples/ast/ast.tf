// AST passes: the second case study of the Grafter paper (PLDI'19, §5.2),
// ported faithfully from its C++ baseline (see README.md here).
//
// 19 tree types, six traversals (desugarDecr, desugarInc,
// propagateConstantsAssignments with its helper replaceVarRefWithConst,
// foldConstants, removeUnreachableBranches) with the reference call orders,
// linked statement and function lists (`*ListInner` / `*ListEnd`), and node
// construction with `new`. `optimize` runs the passes in the reference order.
// Unfused, program 1 with F functions takes 244 * F + 5 node visits.
//
// Modelling notes:
// - The reference declares every traversal on `ASTNode` with an empty
//   default body and counts a visit only at the entry of the bodies it
//   defines. Here every call is a visit (LANGUAGE.md §5), so a call whose
//   receiver would only reach the empty default is guarded with an `is` test
//   (for example `if self.stmt is IfStmt { self.stmt.desugar_inc(); }`): the
//   result is the same (the default does nothing) and so is the visit count.
// - The enums `StatementType` and `ExpressionType` always agree with the
//   concrete class in the reference, so `Stmt->StatementType == IF` is
//   `self.stmt is IfStmt`, and so on. `NodeType`, `ChangedFolding`,
//   `ChangedPropagation`, `deleteChildren`, `computeSize` and `print` are
//   never used by the passes and are left out.
// - `ExprOperator { ADD, SUBTRACT }` is the i64 field `operator` (0, 1).
// - `delete` is implicit: replacing a child drops the old subtree.
// - desugarDecr in the reference forgets to set `Id` of the new assignment
//   (it is never triggered: no generator makes a DecrStmt); here every child
//   of a new node must be given, so it gets the variable like desugarInc.
// - `int Value;` left uninitialized when no constant is found is 0 here
//   (it is never read in that case: replaceVarRefWithConst returns at once).
// - The reference's `int` arithmetic is 32-bit; here it is i64 (the
//   generated programs never come near either limit).

global ADD: i64 = 0;
global SUBTRACT: i64 = 1;

// The new value of a folded `l op r` (0 for an unknown operator: the C++
// `NewValue` would be uninitialized).
pure fn apply_op(op: i64, l: i64, r: i64) -> i64 =
    if op == 0 { l + r } else { if op == 1 { l - r } else { 0 } };

abstract tree ASTNode {
    traversal fold_constants() {}
    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {}
    traversal propagate_constants_assignments() {}
    traversal remove_unreachable_branches() {}
    traversal desugar_inc() {}
    traversal desugar_decr() {}
}

// ------------------------------------------------------------ program and functions

tree Program : ASTNode {
    child functions: FunctionList;

    traversal fold_constants() {
        self.functions.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.functions.propagate_constants_assignments();
    }
    traversal remove_unreachable_branches() {
        self.functions.remove_unreachable_branches();
    }
    traversal desugar_inc() {
        self.functions.desugar_inc();
    }
    traversal desugar_decr() {
        self.functions.desugar_decr();
    }
}

abstract tree FunctionList : ASTNode {
    child content: Function;
}

tree FunctionListInner : FunctionList {
    child next: FunctionList;

    traversal fold_constants() {
        self.content.fold_constants();
        self.next.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.content.propagate_constants_assignments();
        self.next.propagate_constants_assignments();
    }
    traversal remove_unreachable_branches() {
        self.content.remove_unreachable_branches();
        self.next.remove_unreachable_branches();
    }
    traversal desugar_inc() {
        self.content.desugar_inc();
        self.next.desugar_inc();
    }
    traversal desugar_decr() {
        self.content.desugar_decr();
        self.next.desugar_decr();
    }
}

tree FunctionListEnd : FunctionList {
    traversal fold_constants() {
        self.content.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.content.propagate_constants_assignments();
    }
    traversal remove_unreachable_branches() {
        self.content.remove_unreachable_branches();
    }
    traversal desugar_inc() {
        self.content.desugar_inc();
    }
    traversal desugar_decr() {
        self.content.desugar_decr();
    }
}

tree Function : ASTNode {
    function_name: str = "not-set";
    child stmt_list: StmtListNode;

    traversal fold_constants() {
        self.stmt_list.fold_constants();
    }
    traversal propagate_constants_assignments() {
        self.stmt_list.propagate_constants_assignments();
    }
    traversal remove_unreachable_branches() {
        self.stmt_list.remove_unreachable_branches();
    }
    traversal desugar_inc() {
        self.stmt_list.desugar_inc();
    }
    traversal desugar_decr() {
        self.stmt_list.desugar_decr();
    }
}

// ------------------------------------------------------------ statement lists

abstract tree StmtListNode : ASTNode {
    child stmt: StatementNode;
}

tree StmtListInner : StmtListNode {
    child next: StmtListNode;

    traversal fold_constants() {
        if self.stmt is AssignStmt || self.stmt is IfStmt {
            self.stmt.fold_constants();
        }
        self.next.fold_constants();
    }

    traversal propagate_constants_assignments() {
        let var_ref_id: i64 = -1;
        let value: i64 = 0;
        if self.stmt is AssignStmt {
            if (self.stmt as AssignStmt).assigned_expr is ConstantExpr {
                var_ref_id = (self.stmt as AssignStmt).id.var_id;
                value = ((self.stmt as AssignStmt).assigned_expr as ConstantExpr).value;
            }
        }
        if self.stmt is IfStmt {
            self.stmt.propagate_constants_assignments();
        }
        self.next.replace_var_ref_with_const(var_ref_id, value);
        self.next.propagate_constants_assignments();
    }

    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {
        if var_ref_id == -1 {
            return;
        }
        if self.stmt is AssignStmt || self.stmt is IfStmt {
            self.stmt.replace_var_ref_with_const(var_ref_id, val);
        }
        if self.stmt is IfStmt {
            return;
        }
        if self.stmt is AssignStmt && (self.stmt as AssignStmt).id.var_id == var_ref_id {
            return;
        }
        self.next.replace_var_ref_with_const(var_ref_id, val);
    }

    traversal remove_unreachable_branches() {
        if self.stmt is IfStmt {
            self.stmt.remove_unreachable_branches();
        }
        self.next.remove_unreachable_branches();
    }

    traversal desugar_inc() {
        if self.stmt is IfStmt {
            self.stmt.desugar_inc();
        }
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
        self.next.desugar_inc();
    }

    traversal desugar_decr() {
        if self.stmt is IfStmt {
            self.stmt.desugar_decr();
        }
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
        self.next.desugar_decr();
    }
}

tree StmtListEnd : StmtListNode {
    traversal fold_constants() {
        if self.stmt is AssignStmt || self.stmt is IfStmt {
            self.stmt.fold_constants();
        }
    }

    traversal propagate_constants_assignments() {
        if self.stmt is IfStmt {
            self.stmt.propagate_constants_assignments();
        }
    }

    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {
        if var_ref_id == -1 {
            return;
        }
        if self.stmt is AssignStmt || self.stmt is IfStmt {
            self.stmt.replace_var_ref_with_const(var_ref_id, val);
        }
    }

    traversal remove_unreachable_branches() {
        if self.stmt is IfStmt {
            self.stmt.remove_unreachable_branches();
        }
    }

    // The end node does not desugar its own statement (as in the reference).
    traversal desugar_inc() {
        if self.stmt is IfStmt {
            self.stmt.desugar_inc();
        }
    }

    traversal desugar_decr() {
        if self.stmt is IfStmt {
            self.stmt.desugar_decr();
        }
    }
}

// ------------------------------------------------------------ expressions

abstract tree ExpressionNode : ASTNode {}

tree BinaryExpr : ExpressionNode {
    child lhs: ExpressionNode;
    child rhs: ExpressionNode;
    operator: i64 = 0;

    traversal fold_constants() {
        if self.lhs is BinaryExpr {
            self.lhs.fold_constants();
        }
        if self.rhs is BinaryExpr {
            self.rhs.fold_constants();
        }
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

    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {
        if self.lhs is BinaryExpr {
            self.lhs.replace_var_ref_with_const(var_ref_id, val);
        }
        if self.rhs is BinaryExpr {
            self.rhs.replace_var_ref_with_const(var_ref_id, val);
        }
        if self.lhs is VarRefExpr && (self.lhs as VarRefExpr).var_id == var_ref_id {
            self.lhs = new ConstantExpr { value: val };
        }
        if self.rhs is VarRefExpr && (self.rhs as VarRefExpr).var_id == var_ref_id {
            self.rhs = new ConstantExpr { value: val };
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
        if self.assigned_expr is BinaryExpr {
            self.assigned_expr.fold_constants();
        }
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

    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {
        if self.assigned_expr is VarRefExpr
            && (self.assigned_expr as VarRefExpr).var_id == var_ref_id {
            self.assigned_expr = new ConstantExpr { value: val };
        }
        if self.assigned_expr is BinaryExpr {
            self.assigned_expr.replace_var_ref_with_const(var_ref_id, val);
        }
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
    child then_part: StmtListNode;
    child else_part: StmtListNode;

    traversal fold_constants() {
        if self.condition is BinaryExpr {
            self.condition.fold_constants();
        }
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

    traversal replace_var_ref_with_const(var_ref_id: i64, val: i64) {
        if self.condition is BinaryExpr {
            self.condition.replace_var_ref_with_const(var_ref_id, val);
        }
        self.then_part.replace_var_ref_with_const(var_ref_id, val);
        self.else_part.replace_var_ref_with_const(var_ref_id, val);
    }

    traversal propagate_constants_assignments() {
        self.then_part.propagate_constants_assignments();
        self.else_part.propagate_constants_assignments();
    }

    traversal remove_unreachable_branches() {
        if self.condition is ConstantExpr {
            if (self.condition as ConstantExpr).value == 0 {
                self.then_part = new StmtListEnd { stmt: new NullStmt {} };
            }
            if (self.condition as ConstantExpr).value != 0 {
                self.else_part = new StmtListEnd { stmt: new NullStmt {} };
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
