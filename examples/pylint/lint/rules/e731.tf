// E731 (pycodestyle lambda-assignment): `f = lambda: ...`.
//
// As ruff's `lambda_assignment`: an assignment of a `lambda` to a single
// plain name (`f = lambda: 0`, `f: T = lambda: 0`; not `a = b = lambda`,
// not `x.f = lambda`, not a tuple target). An annotated assignment directly
// in a class body is allowed (dataclass fields). Reported at the statement.
// `E731_IN_CLASS` tells whether the current scope is a class body: a class
// sets it for its subtree and a function clears it, each restoring it after.
global E731: [Diag] = [];
global E731_IN_CLASS: bool = false;

impl Node { traversal e731() walk; }
impl ClassDef {
    traversal e731() {
        let saved = E731_IN_CLASS;
        E731_IN_CLASS = true;
        walk;
        E731_IN_CLASS = saved;
    }
}
impl FunctionDef {
    traversal e731() {
        let saved = E731_IN_CLASS;
        E731_IN_CLASS = false;
        walk;
        E731_IN_CLASS = saved;
    }
}
impl Assign {
    traversal e731() {
        if len(self.targets) == 1 && self.targets[0] is Name && self.value is Lambda {
            E731 = append(E731, Diag { start: self.start, message: "Do not assign a `lambda` expression, use a `def`" });
        }
        walk;
    }
}
impl AnnAssign {
    traversal e731() {
        if !E731_IN_CLASS && self.target is Name && !(self.value is none) && self.value is Lambda {
            E731 = append(E731, Diag { start: self.start, message: "Do not assign a `lambda` expression, use a `def`" });
        }
        walk;
    }
}
