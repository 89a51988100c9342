// C901 complex-structure: a function whose McCabe complexity exceeds 10
// (ruff's default `max-complexity`), reported at its name as
// "`NAME` is too complex (N > 10)". As ruff's `get_complexity_number`, the
// complexity is 1 plus: 1 per `if`, `elif` (not `else`), `for`, `while`
// and `except`; 1 for a `try`'s `else`; 1 per `match` case, minus 1 when
// the last case is irrefutable (`_`, a bare name, an or-pattern with an
// irrefutable alternative) without a guard; a nested `def` adds its own
// complexity (1 plus its body's); a nested `class` adds its body's.
global C901: [Diag] = [];
global C901_COUNT: i64 = 0;
// Whether the pattern just visited is irrefutable.
global C901_IRREFUTABLE: bool = false;
// Whether the case just visited had an irrefutable pattern and no guard.
global C901_LAST_CASE: bool = false;

impl Node { traversal c901() walk; }
impl If {
    traversal c901() {
        C901_COUNT = C901_COUNT + 1;
        for c in self.clauses { if !(c.test is none) { C901_COUNT = C901_COUNT + 1; } }
        walk;
    }
}
impl For { traversal c901() { C901_COUNT = C901_COUNT + 1; walk; } }
impl While { traversal c901() { C901_COUNT = C901_COUNT + 1; walk; } }
impl Try {
    traversal c901() {
        C901_COUNT = C901_COUNT + len(self.handlers) + (if len(self.orelse) > 0 { 1 } else { 0 });
        walk;
    }
}
impl Match {
    traversal c901() {
        C901_COUNT = C901_COUNT + len(self.cases);
        C901_LAST_CASE = false;
        walk;
        if C901_LAST_CASE { C901_COUNT = C901_COUNT - 1; }
    }
}
impl MatchCase {
    traversal c901() {
        self.pattern.c901();
        let irrefutable: bool = C901_IRREFUTABLE && self.guard is none;
        self.guard.c901();
        for s in self.body { s.c901(); }
        C901_LAST_CASE = irrefutable;
    }
}
impl Pattern { traversal c901() { C901_IRREFUTABLE = false; } }
impl MatchAs {
    traversal c901() {
        // A bare capture (`case x:`) is irrefutable; `P as x` is what P is.
        // The walk comes first and unconditionally, so that it fuses (it
        // visits nothing when there is no pattern).
        walk;
        if self.pattern is none { C901_IRREFUTABLE = true; }
    }
}
impl MatchOr {
    traversal c901() {
        let any: bool = false;
        for p in self.patterns { p.c901(); any = any || C901_IRREFUTABLE; }
        C901_IRREFUTABLE = any;
    }
}
impl FunctionDef {
    traversal c901() {
        let outer: i64 = C901_COUNT;
        C901_COUNT = 0;
        walk;
        let complexity: i64 = C901_COUNT + 1;
        if complexity > 10 {
            C901 = append(C901, Diag { start: self.name_start,
                message: "`" + self.name + "` is too complex (" + to_str(complexity) + " > 10)" });
        }
        C901_COUNT = outer + complexity;
    }
}
