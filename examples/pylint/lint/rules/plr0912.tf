// PLR0912 too-many-branches: a function with more than 12 (ruff's default
// `max-branches`) branches, reported at its name. As ruff's `num_branches`:
// `if` 1 plus 1 per `elif`/`else`; `for`/`while` 1, plus 1 for an `else`;
// `try` 1 per `except`, plus 1 for `else` and 1 for `finally` (the `try`
// clause itself counts nothing); `match` 1 per case; `with` counts only its
// body. Nested `def` and `class` bodies add nothing to the enclosing count.
global PLR0912: [Diag] = [];
global PLR0912_BRANCHES: i64 = 0;

impl Node { traversal plr0912() walk; }
impl If {
    traversal plr0912() { PLR0912_BRANCHES = PLR0912_BRANCHES + 1 + len(self.clauses); walk; }
}
impl For {
    traversal plr0912() {
        PLR0912_BRANCHES = PLR0912_BRANCHES + 1 + (if len(self.orelse) > 0 { 1 } else { 0 });
        walk;
    }
}
impl While {
    traversal plr0912() {
        PLR0912_BRANCHES = PLR0912_BRANCHES + 1 + (if len(self.orelse) > 0 { 1 } else { 0 });
        walk;
    }
}
impl Try {
    traversal plr0912() {
        PLR0912_BRANCHES = PLR0912_BRANCHES + len(self.handlers)
            + (if len(self.orelse) > 0 { 1 } else { 0 })
            + (if len(self.finalbody) > 0 { 1 } else { 0 });
        walk;
    }
}
impl Match {
    traversal plr0912() { PLR0912_BRANCHES = PLR0912_BRANCHES + len(self.cases); walk; }
}
impl ClassDef {
    traversal plr0912() {
        let outer: i64 = PLR0912_BRANCHES;
        walk;
        PLR0912_BRANCHES = outer;
    }
}
impl FunctionDef {
    traversal plr0912() {
        let outer: i64 = PLR0912_BRANCHES;
        PLR0912_BRANCHES = 0;
        walk;
        if PLR0912_BRANCHES > 12 {
            PLR0912 = append(PLR0912, Diag { start: self.name_start,
                message: "Too many branches (" + to_str(PLR0912_BRANCHES) + " > 12)" });
        }
        PLR0912_BRANCHES = outer;
    }
}
