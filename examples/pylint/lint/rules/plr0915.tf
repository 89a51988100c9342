// PLR0915 too-many-statements: a function with more than 50 (ruff's default
// `max-statements`) statements, reported at its name. As ruff's
// `num_statements` (pylint's conventions): every simple statement counts 1
// except `return` (0); `if` 1 plus 1 per `elif`/`else`; `for` 0 (only its
// bodies count); `while` and `with` 1; `match` 1 plus 1 per case; `try` 1,
// `else` 1, `finally` 2, 1 per `except` and 1 more when there are several.
// A nested `def` counts 1 plus its own statements; a nested `class` counts
// 1 and its body nothing.
global PLR0915: [Diag] = [];
global PLR0915_STMTS: i64 = 0;

impl Node { traversal plr0915() walk; }
// Simple statements (compound ones override this).
impl Stmt { traversal plr0915() { PLR0915_STMTS = PLR0915_STMTS + 1; walk; } }
impl Return { traversal plr0915() walk; }
impl For { traversal plr0915() walk; }
impl If {
    traversal plr0915() { PLR0915_STMTS = PLR0915_STMTS + 1 + len(self.clauses); walk; }
}
impl Match {
    traversal plr0915() { PLR0915_STMTS = PLR0915_STMTS + 1 + len(self.cases); walk; }
}
impl Try {
    traversal plr0915() {
        PLR0915_STMTS = PLR0915_STMTS + 1 + len(self.handlers)
            + (if len(self.handlers) > 1 { 1 } else { 0 })
            + (if len(self.orelse) > 0 { 1 } else { 0 })
            + (if len(self.finalbody) > 0 { 2 } else { 0 });
        walk;
    }
}
impl ClassDef {
    traversal plr0915() {
        let outer: i64 = PLR0915_STMTS;
        walk;
        PLR0915_STMTS = outer + 1;
    }
}
impl FunctionDef {
    traversal plr0915() {
        let outer: i64 = PLR0915_STMTS;
        PLR0915_STMTS = 0;
        walk;
        if PLR0915_STMTS > 50 {
            PLR0915 = append(PLR0915, Diag { start: self.name_start,
                message: "Too many statements (" + to_str(PLR0915_STMTS) + " > 50)" });
        }
        PLR0915_STMTS = outer + 1 + PLR0915_STMTS;
    }
}
