// E741 (pycodestyle ambiguous-variable-name): binding `l`, `I` or `O`.
//
// As ruff, which calls `ambiguous_variable_name` on every name in a store
// context (assignment, augmented and annotated targets, `for`, `with ...
// as`, comprehension and walrus targets, starred targets, `type X = ...`),
// every parameter of a function or lambda, every name of `global` and
// `nonlocal`, and the name of `except ... as NAME`. Not on function, class,
// import, type-parameter or match-capture names (other rules, or none).
// Reported at the name.
global E741: [Diag] = [];

pure fn e741_ambiguous(name: str) -> bool = name == "l" || name == "I" || name == "O";
pure fn e741_message(name: str) -> str = "Ambiguous variable name: `" + name + "`";

impl Node { traversal e741() walk; }
impl Name {
    traversal e741() {
        if self.ctx == ExprContext::Store && e741_ambiguous(self.id) {
            E741 = append(E741, Diag { start: self.start, message: e741_message(self.id) });
        }
    }
}
impl Parameter {
    traversal e741() {
        if e741_ambiguous(self.name) {
            E741 = append(E741, Diag { start: self.name_start, message: e741_message(self.name) });
        }
        walk;
    }
}
impl Identifier {
    traversal e741() {
        if e741_ambiguous(self.id) {
            E741 = append(E741, Diag { start: self.start, message: e741_message(self.id) });
        }
    }
}
impl ExceptHandler {
    traversal e741() {
        if e741_ambiguous(self.name) {
            E741 = append(E741, Diag { start: self.name_start, message: e741_message(self.name) });
        }
        walk;
    }
}
