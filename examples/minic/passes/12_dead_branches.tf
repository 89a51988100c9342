// Pass 12, dead_branches: `if (true) a else b` => the block `a`;
// `while (false) b` => nothing (deleted from a list, an empty block
// elsewhere).

impl Code { traversal dead_branches() walk; }
impl Sugar { traversal dead_branches() {} }
// Only the branch kept is visited (the replacement ends the traversal).
impl If {
    traversal dead_branches() {
        if self.cond is BoolLit {
            if (self.cond as BoolLit).v {
                self.then_b.dead_branches();
                self = self.then_b;
            }
            self.else_b.dead_branches();
            self = self.else_b;
        }
        self.then_b.dead_branches();
        self.else_b.dead_branches();
    }
}
impl While {
    traversal dead_branches() {
        if self.cond is BoolLit && !(self.cond as BoolLit).v {
            if in_list() { self = []; }
            self = new Block { stmts: [] };
        }
        walk;
    }
}
