// E731 (pycodestyle lambda-assignment): `f = lambda: ...`.
//
// As ruff's `lambda_assignment`: an assignment of a `lambda` to a single
// plain name (`f = lambda: 0`, `f: T = lambda: 0`; not `a = b = lambda`,
// not `x.f = lambda`, not a tuple target). An annotated assignment directly
// in a class body is allowed (dataclass fields). Reported at the statement.
// Whether the current scope is a class body travels down as the walk's
// argument: a class passes `true` to its subtree, a function `false`.
global E731: [Diag] = [];

impl Node { traversal e731(in_class: bool) walk; }
impl ClassDef { traversal e731(in_class: bool) { walk(true); } }
impl FunctionDef { traversal e731(in_class: bool) { walk(false); } }
impl Assign {
    traversal e731(in_class: bool) {
        if len(self.targets) == 1 && self.targets[0] is Name && self.value is Lambda {
            E731 = append(E731, Diag { start: self.start, message: "Do not assign a `lambda` expression, use a `def`" });
        }
        walk;
    }
}
impl AnnAssign {
    traversal e731(in_class: bool) {
        if !in_class && self.target is Name && !(self.value is none) && self.value is Lambda {
            E731 = append(E731, Diag { start: self.start, message: "Do not assign a `lambda` expression, use a `def`" });
        }
        walk;
    }
}
