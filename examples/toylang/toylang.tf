// The toy language of "Pass fusion with open recursion"
// (a blog post), as three separate
// traversals that rewrite the tree by moving subtrees up:
//
//   dead_code_elimination   if true then x else y  =>  x
//                           if false then x else y =>  y
//   constant_division       n / m  =>  the quotient  (m <> 0, both literals)
//   remove_redundant_let    let x = e in x  =>  e
//
// `simplify` runs them one after the other (the blog's `Not_fused.pass`):
// `10 / (if true then 2 else 5)` becomes `10 / 2` after the first pass and
// `5` after the second; `10 / (let x = 2 in x)` becomes `10 / 2` (the
// division was looked at before the let was removed).
//
// Each pass is the blog's `pass` on one child slot: a node cannot replace
// itself, so the parent matches the pattern on its child, moves the chosen
// subtree up into the slot, and starts the pass again on the new child
// (`pass consequence`); when nothing matches, the child's own slots are
// handled the same way (`map pass other`). Leaves have nothing to do.

abstract tree Expr {
    traversal dead_code_elimination() {}
    traversal constant_division() {}
    traversal remove_redundant_let() {}
}

// ()
tree Unit : Expr {}

// true, false
tree Boolean : Expr {
    value: bool;
}

// 0, 1, 2, ...
tree Number : Expr {
    value: i64;
}

// a variable
tree Id : Expr {
    name: str;
}

// The whole program: a root above the top expression, so that the
// top expression can be rewritten like any other.
tree Program {
    child body: Expr;

    traversal dead_code_elimination() {
        self.dce_body();
    }
    traversal constant_division() {
        self.fold_body();
    }
    traversal remove_redundant_let() {
        self.rlet_body();
    }

    traversal dce_body() {
        if self.body is If && (self.body as If).conditional is Boolean {
            if ((self.body as If).conditional as Boolean).value {
                self.body = (self.body as If).consequence;
            } else {
                self.body = (self.body as If).alternative;
            }
            self.dce_body();
            return;
        }
        self.body.dead_code_elimination();
    }

    traversal fold_body() {
        if self.body is Divide
            && (self.body as Divide).left is Number
            && (self.body as Divide).right is Number
            && ((self.body as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.body as Divide).left as Number).value
                / ((self.body as Divide).right as Number).value;
            self.body = new Number { value: quotient };
            return;
        }
        self.body.constant_division();
    }

    traversal rlet_body() {
        if self.body is Let
            && (self.body as Let).body is Id
            && ((self.body as Let).body as Id).name == (self.body as Let).id {
            self.body = (self.body as Let).value;
            self.rlet_body();
            return;
        }
        self.body.remove_redundant_let();
    }
}

// e / e
tree Divide : Expr {
    child left: Expr;
    child right: Expr;

    traversal dead_code_elimination() {
        self.dce_left();
        self.dce_right();
    }
    traversal constant_division() {
        self.fold_left();
        self.fold_right();
    }
    traversal remove_redundant_let() {
        self.rlet_left();
        self.rlet_right();
    }

    traversal dce_left() {
        if self.left is If && (self.left as If).conditional is Boolean {
            if ((self.left as If).conditional as Boolean).value {
                self.left = (self.left as If).consequence;
            } else {
                self.left = (self.left as If).alternative;
            }
            self.dce_left();
            return;
        }
        self.left.dead_code_elimination();
    }

    traversal fold_left() {
        if self.left is Divide
            && (self.left as Divide).left is Number
            && (self.left as Divide).right is Number
            && ((self.left as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.left as Divide).left as Number).value
                / ((self.left as Divide).right as Number).value;
            self.left = new Number { value: quotient };
            return;
        }
        self.left.constant_division();
    }

    traversal rlet_left() {
        if self.left is Let
            && (self.left as Let).body is Id
            && ((self.left as Let).body as Id).name == (self.left as Let).id {
            self.left = (self.left as Let).value;
            self.rlet_left();
            return;
        }
        self.left.remove_redundant_let();
    }

    traversal dce_right() {
        if self.right is If && (self.right as If).conditional is Boolean {
            if ((self.right as If).conditional as Boolean).value {
                self.right = (self.right as If).consequence;
            } else {
                self.right = (self.right as If).alternative;
            }
            self.dce_right();
            return;
        }
        self.right.dead_code_elimination();
    }

    traversal fold_right() {
        if self.right is Divide
            && (self.right as Divide).left is Number
            && (self.right as Divide).right is Number
            && ((self.right as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.right as Divide).left as Number).value
                / ((self.right as Divide).right as Number).value;
            self.right = new Number { value: quotient };
            return;
        }
        self.right.constant_division();
    }

    traversal rlet_right() {
        if self.right is Let
            && (self.right as Let).body is Id
            && ((self.right as Let).body as Id).name == (self.right as Let).id {
            self.right = (self.right as Let).value;
            self.rlet_right();
            return;
        }
        self.right.remove_redundant_let();
    }
}

// e; e
tree Sequence : Expr {
    child first: Expr;
    child second: Expr;

    traversal dead_code_elimination() {
        self.dce_first();
        self.dce_second();
    }
    traversal constant_division() {
        self.fold_first();
        self.fold_second();
    }
    traversal remove_redundant_let() {
        self.rlet_first();
        self.rlet_second();
    }

    traversal dce_first() {
        if self.first is If && (self.first as If).conditional is Boolean {
            if ((self.first as If).conditional as Boolean).value {
                self.first = (self.first as If).consequence;
            } else {
                self.first = (self.first as If).alternative;
            }
            self.dce_first();
            return;
        }
        self.first.dead_code_elimination();
    }

    traversal fold_first() {
        if self.first is Divide
            && (self.first as Divide).left is Number
            && (self.first as Divide).right is Number
            && ((self.first as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.first as Divide).left as Number).value
                / ((self.first as Divide).right as Number).value;
            self.first = new Number { value: quotient };
            return;
        }
        self.first.constant_division();
    }

    traversal rlet_first() {
        if self.first is Let
            && (self.first as Let).body is Id
            && ((self.first as Let).body as Id).name == (self.first as Let).id {
            self.first = (self.first as Let).value;
            self.rlet_first();
            return;
        }
        self.first.remove_redundant_let();
    }

    traversal dce_second() {
        if self.second is If && (self.second as If).conditional is Boolean {
            if ((self.second as If).conditional as Boolean).value {
                self.second = (self.second as If).consequence;
            } else {
                self.second = (self.second as If).alternative;
            }
            self.dce_second();
            return;
        }
        self.second.dead_code_elimination();
    }

    traversal fold_second() {
        if self.second is Divide
            && (self.second as Divide).left is Number
            && (self.second as Divide).right is Number
            && ((self.second as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.second as Divide).left as Number).value
                / ((self.second as Divide).right as Number).value;
            self.second = new Number { value: quotient };
            return;
        }
        self.second.constant_division();
    }

    traversal rlet_second() {
        if self.second is Let
            && (self.second as Let).body is Id
            && ((self.second as Let).body as Id).name == (self.second as Let).id {
            self.second = (self.second as Let).value;
            self.rlet_second();
            return;
        }
        self.second.remove_redundant_let();
    }
}

// let id = e in e
tree Let : Expr {
    id: str;
    child value: Expr;
    child body: Expr;

    traversal dead_code_elimination() {
        self.dce_value();
        self.dce_body();
    }
    traversal constant_division() {
        self.fold_value();
        self.fold_body();
    }
    traversal remove_redundant_let() {
        self.rlet_value();
        self.rlet_body();
    }

    traversal dce_value() {
        if self.value is If && (self.value as If).conditional is Boolean {
            if ((self.value as If).conditional as Boolean).value {
                self.value = (self.value as If).consequence;
            } else {
                self.value = (self.value as If).alternative;
            }
            self.dce_value();
            return;
        }
        self.value.dead_code_elimination();
    }

    traversal fold_value() {
        if self.value is Divide
            && (self.value as Divide).left is Number
            && (self.value as Divide).right is Number
            && ((self.value as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.value as Divide).left as Number).value
                / ((self.value as Divide).right as Number).value;
            self.value = new Number { value: quotient };
            return;
        }
        self.value.constant_division();
    }

    traversal rlet_value() {
        if self.value is Let
            && (self.value as Let).body is Id
            && ((self.value as Let).body as Id).name == (self.value as Let).id {
            self.value = (self.value as Let).value;
            self.rlet_value();
            return;
        }
        self.value.remove_redundant_let();
    }

    traversal dce_body() {
        if self.body is If && (self.body as If).conditional is Boolean {
            if ((self.body as If).conditional as Boolean).value {
                self.body = (self.body as If).consequence;
            } else {
                self.body = (self.body as If).alternative;
            }
            self.dce_body();
            return;
        }
        self.body.dead_code_elimination();
    }

    traversal fold_body() {
        if self.body is Divide
            && (self.body as Divide).left is Number
            && (self.body as Divide).right is Number
            && ((self.body as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.body as Divide).left as Number).value
                / ((self.body as Divide).right as Number).value;
            self.body = new Number { value: quotient };
            return;
        }
        self.body.constant_division();
    }

    traversal rlet_body() {
        if self.body is Let
            && (self.body as Let).body is Id
            && ((self.body as Let).body as Id).name == (self.body as Let).id {
            self.body = (self.body as Let).value;
            self.rlet_body();
            return;
        }
        self.body.remove_redundant_let();
    }
}

// if e then e else e
tree If : Expr {
    child conditional: Expr;
    child consequence: Expr;
    child alternative: Expr;

    traversal dead_code_elimination() {
        self.dce_conditional();
        self.dce_consequence();
        self.dce_alternative();
    }
    traversal constant_division() {
        self.fold_conditional();
        self.fold_consequence();
        self.fold_alternative();
    }
    traversal remove_redundant_let() {
        self.rlet_conditional();
        self.rlet_consequence();
        self.rlet_alternative();
    }

    traversal dce_conditional() {
        if self.conditional is If && (self.conditional as If).conditional is Boolean {
            if ((self.conditional as If).conditional as Boolean).value {
                self.conditional = (self.conditional as If).consequence;
            } else {
                self.conditional = (self.conditional as If).alternative;
            }
            self.dce_conditional();
            return;
        }
        self.conditional.dead_code_elimination();
    }

    traversal fold_conditional() {
        if self.conditional is Divide
            && (self.conditional as Divide).left is Number
            && (self.conditional as Divide).right is Number
            && ((self.conditional as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.conditional as Divide).left as Number).value
                / ((self.conditional as Divide).right as Number).value;
            self.conditional = new Number { value: quotient };
            return;
        }
        self.conditional.constant_division();
    }

    traversal rlet_conditional() {
        if self.conditional is Let
            && (self.conditional as Let).body is Id
            && ((self.conditional as Let).body as Id).name == (self.conditional as Let).id {
            self.conditional = (self.conditional as Let).value;
            self.rlet_conditional();
            return;
        }
        self.conditional.remove_redundant_let();
    }

    traversal dce_consequence() {
        if self.consequence is If && (self.consequence as If).conditional is Boolean {
            if ((self.consequence as If).conditional as Boolean).value {
                self.consequence = (self.consequence as If).consequence;
            } else {
                self.consequence = (self.consequence as If).alternative;
            }
            self.dce_consequence();
            return;
        }
        self.consequence.dead_code_elimination();
    }

    traversal fold_consequence() {
        if self.consequence is Divide
            && (self.consequence as Divide).left is Number
            && (self.consequence as Divide).right is Number
            && ((self.consequence as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.consequence as Divide).left as Number).value
                / ((self.consequence as Divide).right as Number).value;
            self.consequence = new Number { value: quotient };
            return;
        }
        self.consequence.constant_division();
    }

    traversal rlet_consequence() {
        if self.consequence is Let
            && (self.consequence as Let).body is Id
            && ((self.consequence as Let).body as Id).name == (self.consequence as Let).id {
            self.consequence = (self.consequence as Let).value;
            self.rlet_consequence();
            return;
        }
        self.consequence.remove_redundant_let();
    }

    traversal dce_alternative() {
        if self.alternative is If && (self.alternative as If).conditional is Boolean {
            if ((self.alternative as If).conditional as Boolean).value {
                self.alternative = (self.alternative as If).consequence;
            } else {
                self.alternative = (self.alternative as If).alternative;
            }
            self.dce_alternative();
            return;
        }
        self.alternative.dead_code_elimination();
    }

    traversal fold_alternative() {
        if self.alternative is Divide
            && (self.alternative as Divide).left is Number
            && (self.alternative as Divide).right is Number
            && ((self.alternative as Divide).right as Number).value != 0 {
            let quotient: i64 = ((self.alternative as Divide).left as Number).value
                / ((self.alternative as Divide).right as Number).value;
            self.alternative = new Number { value: quotient };
            return;
        }
        self.alternative.constant_division();
    }

    traversal rlet_alternative() {
        if self.alternative is Let
            && (self.alternative as Let).body is Id
            && ((self.alternative as Let).body as Id).name == (self.alternative as Let).id {
            self.alternative = (self.alternative as Let).value;
            self.rlet_alternative();
            return;
        }
        self.alternative.remove_redundant_let();
    }
}

fuse simplify(root: Program) {
    root.dead_code_elimination();
    root.constant_division();
    root.remove_redundant_let();
}
