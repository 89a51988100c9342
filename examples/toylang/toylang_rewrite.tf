// The toy language of "Pass fusion with open recursion" with its three
// rules written as the blog writes them: the node that matches a pattern
// replaces itself (LANGUAGE.md §7.1).
//
//   dead_code_elimination   if true then x else y  =>  x
//                           if false then x else y =>  y
//   constant_division       n / m  =>  the quotient  (m <> 0, both literals)
//   remove_redundant_let    let x = e in x  =>  e
//
// Same results as `toylang.tf` (which moves subtrees up from the parent,
// one traversal per child slot): a node that matches rewrites itself;
// for `if` and `let`, the surviving subtree is rewritten first and then
// takes the node's place (the blog's `pass consequence`), and a node that
// does not match passes the rule on to its children (`map pass other`).

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

// The whole program, holding the top expression.
tree Program {
    child body: Expr;
    traversal dead_code_elimination() { self.body.dead_code_elimination(); }
    traversal constant_division() { self.body.constant_division(); }
    traversal remove_redundant_let() { self.body.remove_redundant_let(); }
}

// e / e
tree Divide : Expr {
    child left: Expr;
    child right: Expr;
    traversal dead_code_elimination() {
        self.left.dead_code_elimination();
        self.right.dead_code_elimination();
    }
    // n / m => the quotient
    traversal constant_division() {
        if self.left is Number && self.right is Number && (self.right as Number).value != 0 {
            self = new Number { value: (self.left as Number).value / (self.right as Number).value };
        }
        self.left.constant_division();
        self.right.constant_division();
    }
    traversal remove_redundant_let() {
        self.left.remove_redundant_let();
        self.right.remove_redundant_let();
    }
}

// e; e
tree Sequence : Expr {
    child first: Expr;
    child second: Expr;
    traversal dead_code_elimination() {
        self.first.dead_code_elimination();
        self.second.dead_code_elimination();
    }
    traversal constant_division() {
        self.first.constant_division();
        self.second.constant_division();
    }
    traversal remove_redundant_let() {
        self.first.remove_redundant_let();
        self.second.remove_redundant_let();
    }
}

// let id = e in e
tree Let : Expr {
    id: str;
    child value: Expr;
    child body: Expr;
    traversal dead_code_elimination() {
        self.value.dead_code_elimination();
        self.body.dead_code_elimination();
    }
    traversal constant_division() {
        self.value.constant_division();
        self.body.constant_division();
    }
    // let x = e in x => e
    traversal remove_redundant_let() {
        if self.body is Id && (self.body as Id).name == self.id {
            self.value.remove_redundant_let();
            self = self.value;
        }
        self.value.remove_redundant_let();
        self.body.remove_redundant_let();
    }
}

// if e then e else e
tree If : Expr {
    child conditional: Expr;
    child consequence: Expr;
    child alternative: Expr;
    // if true then x else y => x;  if false then x else y => y
    traversal dead_code_elimination() {
        if self.conditional is Boolean {
            if (self.conditional as Boolean).value {
                self.consequence.dead_code_elimination();
                self = self.consequence;
            } else {
                self.alternative.dead_code_elimination();
                self = self.alternative;
            }
        }
        self.conditional.dead_code_elimination();
        self.consequence.dead_code_elimination();
        self.alternative.dead_code_elimination();
    }
    traversal constant_division() {
        self.conditional.constant_division();
        self.consequence.constant_division();
        self.alternative.constant_division();
    }
    traversal remove_redundant_let() {
        self.conditional.remove_redundant_let();
        self.consequence.remove_redundant_let();
        self.alternative.remove_redundant_let();
    }
}

fuse simplify(root: Program) {
    root.dead_code_elimination();
    root.constant_division();
    root.remove_redundant_let();
}
