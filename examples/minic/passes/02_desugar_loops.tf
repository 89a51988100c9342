// Pass 2, desugar_loops:
//   for (i; c; s) b    =>  { i; while (c) { b s } }
//   do b while (c)     =>  { copy of b; while (c) b }
// The loop replaces itself after its body is desugared.

// Not `impl Code`: the fuser's table of where later passes resume on a
// statement that `desugar_assign` replaced lists every concrete type that
// has `desugar_loops`, and would then list `Program` and `Func` too (two
// fused functions that never run).
impl Program { traversal desugar_loops() walk; }
impl Func { traversal desugar_loops() walk; }
impl Stmt { traversal desugar_loops() walk; }

impl DoWhile {
    traversal desugar_loops() {
        walk;
        self = new Block { stmts: [copy(self.body), new While { cond: self.cond, body: self.body }] };
    }
}
impl For {
    // Only the body: `init` and `step` are simple statements.
    traversal desugar_loops() {
        self.body.desugar_loops();
        self = new Block {
            stmts: [self.init, new While { cond: self.cond, body: new Block { stmts: [self.body, self.step] } }],
        };
    }
}
