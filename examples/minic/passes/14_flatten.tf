// Pass 14, flatten: a block in a statement list is spliced into it (safe:
// names are ids by now: its statements join the enclosing list without
// capturing anything); `;` and effect-free expression statements are
// deleted.

impl Code { traversal flatten() walk; }
impl Sugar { traversal flatten() {} }
impl Block { traversal flatten() { walk; if in_list() { self = self.stmts; } } }
// An expression without effects computes nothing anyone sees.
impl ExprStmt { traversal flatten() { if self.e.effect_free && in_list() { self = []; } } }
impl Nop { traversal flatten() { if in_list() { self = []; } } }
