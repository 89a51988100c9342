// PLR0911 too-many-return-statements: a function with more than 6 (ruff's
// default `max-returns`) `return` statements, reported at its name.
// As ruff's `ReturnStatementVisitor`: every `return` of the body counts,
// at any depth of compound statements, except those inside a nested `def`
// or `class` (which do not add to the enclosing function's count).
global PLR0911: [Diag] = [];
global PLR0911_RETURNS: i64 = 0;

impl Node { traversal plr0911() walk; }
impl Return { traversal plr0911() { PLR0911_RETURNS = PLR0911_RETURNS + 1; walk; } }
impl ClassDef {
    traversal plr0911() {
        let outer: i64 = PLR0911_RETURNS;
        walk;
        PLR0911_RETURNS = outer;
    }
}
impl FunctionDef {
    traversal plr0911() {
        let outer: i64 = PLR0911_RETURNS;
        PLR0911_RETURNS = 0;
        walk;
        if PLR0911_RETURNS > 6 {
            PLR0911 = append(PLR0911, Diag { start: self.name_start,
                message: "Too many return statements (" + to_str(PLR0911_RETURNS) + " > 6)" });
        }
        PLR0911_RETURNS = outer;
    }
}
