//! The AST case's five passes (`optimize` in `examples/ast/ast.tf`) fused
//! by hand: the bar generated fusion of the AST case is measured against
//! (issue 19), as `hand_render.rs` is for the render tree.
//!
//! It works on the same generated `ast::Tree` (same node layout, same
//! arena) so that the comparison isolates the traversal code, and it leaves
//! the same tree as the program: the reachable tree is equal node for node
//! (nodes it creates may land at other arena indices, so the tests compare
//! through the generated JSON writer), the globals are untouched as the
//! passes leave them, and it fails exactly where the program fails (only on
//! an empty tree or a root that is not a `Program`: the passes raise no
//! runtime error, their arithmetic wraps).
//!
//! # The schedule: one forward walk per function
//!
//! Each statement list is walked once, front to back, with a loop (the
//! function list too); each statement is finished when the walk leaves it.
//! At a statement the walk does, in this order:
//!
//! 1. *desugar*: a `StmtListInner`'s `IncrStmt`/`DecrStmt` becomes
//!    `x = x + 1` / `x = x - 1` (the same five new nodes as the program);
//! 2. *propagate*: the constants that reach the statement are substituted
//!    into its expressions, and an assignment `x = c` (in an inner list
//!    node, `x != -1`) starts reaching the following statements;
//! 3. *fold*: its expressions are folded bottom-up;
//! 4. *remove*: an `if` whose condition is now a constant gets its dead
//!    branch replaced by `StmtListEnd { NullStmt }`.
//!
//! The constants that reach a statement are a small map from variable to
//! value (`Pass::env`, a vector scanned linearly: a handful of entries in
//! every generated program). This is what the program's walks amount to:
//! `propagate_constants_assignments` on the node after `x = c` starts a
//! `replace_var_ref_with_const(x, c)` walk that substitutes in every later
//! statement until it has gone through an `IfStmt` (whose condition, if a
//! `BinaryExpr`, and both branches it enters, the branches with the same
//! stopping rules) or through an assignment to `x` (whose right side it
//! substitutes first). So an entry for `x` is removed after an assignment
//! to `x` is substituted, every entry is dropped after an `if`, and an
//! `if`'s branches start with the entries that reach the `if` (the then
//! branch on a copy, the else branch in place, since the entries die at the
//! `if` anyway).
//!
//! # Why this order computes what the program computes
//!
//! - *Desugaring first at each statement* is as if it ran over the whole
//!   tree first: it reads only the statement's own type and variable, and
//!   nothing later passes do changes either.
//! - *Substituting everything at once.* The walks that reach a statement
//!   come from statements before it (in its list or in an enclosing list
//!   before the enclosing `if`), and in the program they all run before the
//!   statement's own propagation, which is the order here. Where a walk
//!   stops depends only on statement types and assigned variables, which no
//!   substitution changes, and walks for different variables rewrite
//!   different `VarRefExpr` nodes (the map has one entry per variable:
//!   a second `x = c` first stops the walk of the first), so they commute.
//!   The program decides whether an assignment starts a walk before any
//!   folding: its right side is a constant after substitution exactly when
//!   it was a `ConstantExpr` or a `VarRefExpr` with a value in the map (a
//!   `BinaryExpr` root is replaced only by folding), which is the test here.
//! - *Folding right after substituting.* No substitution reaches a
//!   statement after the walk has left it, and folding a node depends only
//!   on its subtree after substitution, which is final then. Substitution
//!   and folding are one post-order walk of each expression: a child
//!   `BinaryExpr` is finished (substituted, its children folded) before its
//!   parent decides whether to fold it, as `BinaryExpr::fold_constants`
//!   does. A direct `VarRefExpr` condition of an `if` is not substituted
//!   (`IfStmt::replace_var_ref_with_const` enters only a `BinaryExpr`).
//! - *Removing dead branches before walking them.* The condition is final
//!   after its own substitution and folding (the branches cannot change it),
//!   so the `if` knows its dead branch before walking either branch. The
//!   program walks the dead branch with the first four passes and then
//!   replaces it; nothing of that walk reaches outside the branch (walks
//!   that enter it stop in it, and no pass can fail), so here it is not
//!   walked at all.
//!
//! Node creation order and the garbage left in the arena differ from the
//! program's; the reachable tree does not. The walk recurses only into an
//! `if`'s branches and into expressions (both shallow in the case-study
//! programs), and runs on a stack as deep as the tree has nodes, as the
//! generated entry points do.

use crate::ast::{ASTNodeId, ASTNodeKind, ASTNodeSlots, Globals, Tree};

/// Why the passes cannot run: the program's own runtime errors at the
/// `fuse` item (the passes themselves raise none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoProgram {
    /// The tree has no root node.
    Empty,
    /// The root is not a `Program`.
    NotAProgram,
}

impl std::fmt::Display for NoProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoProgram::Empty => "the tree is empty: it has no root node",
            NoProgram::NotAProgram => "the tree's root is not a `Program`",
        })
    }
}

/// Stack one level of the walk's recursion may take, with a wide margin
/// (an `if` is two frames, an expression level one).
const STACK_PER_LEVEL: usize = 1 << 10;
/// Stack beyond the levels: this module's entry and the host.
const STACK_RESERVE: usize = 1 << 20;

/// Runs `optimize`'s five passes, fused by hand, on `t`.
pub fn run(t: &mut Tree, g: &mut Globals) -> Result<(), NoProgram> {
    if t.is_empty() {
        return Err(NoProgram::Empty);
    }
    let Some(root) = t.root.ast_node() else {
        return Err(NoProgram::NotAProgram);
    };
    if t[root].kind != ASTNodeKind::Program {
        return Err(NoProgram::NotAProgram);
    }
    let need = t
        .node_count()
        .saturating_mul(STACK_PER_LEVEL)
        .saturating_add(STACK_RESERVE);
    let mut pass = Pass {
        add: g.add,
        subtract: g.subtract,
        env: Vec::new(),
        t,
    };
    treefuse_runtime::stack::run_with_stack(need, || pass.functions(root));
    Ok(())
}

/// `apply_op` of the program: the value of a folded `l op r`.
#[inline]
fn apply_op(op: i64, l: i64, r: i64) -> i64 {
    match op {
        0 => l.wrapping_add(r),
        1 => l.wrapping_sub(r),
        _ => 0,
    }
}

/// The state of the walk.
struct Pass<'t> {
    t: &'t mut Tree,
    /// The globals `ADD` and `SUBTRACT` (the desugared operators).
    add: i64,
    subtract: i64,
    /// The constants reaching the statement being walked, as (variable,
    /// value) pairs, at most one per variable. A statement list walked with
    /// `base` owns `env[base..]`; the lists around it own what is below.
    env: Vec<(i64, i64)>,
}

impl Pass<'_> {
    fn push_constant(&mut self, value: i64) -> ASTNodeId {
        self.t.push_ast_node(ASTNodeSlots::constant_expr(value))
    }

    /// A new `StmtListEnd { stmt: NullStmt }`, what replaces a dead branch.
    fn null_list(&mut self) -> ASTNodeId {
        let null = self.t.push_ast_node(ASTNodeSlots::null_stmt());
        self.t.push_ast_node(ASTNodeSlots::stmt_list_end(null))
    }

    /// The value reaching variable `var` in the list that owns
    /// `env[base..]`.
    #[inline]
    fn lookup(&self, base: usize, var: i64) -> Option<i64> {
        if base == self.env.len() {
            return None;
        }
        self.env[base..]
            .iter()
            .find(|&&(v, _)| v == var)
            .map(|&(_, value)| value)
    }

    /// Stops the constant of `var` (an assignment to it was substituted).
    #[inline]
    fn kill(&mut self, base: usize, var: i64) {
        if let Some(k) = self.env[base..].iter().position(|&(v, _)| v == var) {
            self.env.swap_remove(base + k);
        }
    }

    /// The function list, iterated; each function starts with no constants.
    fn functions(&mut self, program: ASTNodeId) {
        let mut list = self.t[program].functions();
        loop {
            let node = &self.t[list];
            let (kind, function, next) = (node.kind, node.content(), node.next());
            let stmts = self.t[function].stmt_list();
            self.stmts(stmts, 0);
            self.env.clear();
            if kind != ASTNodeKind::FunctionListInner {
                return;
            }
            list = next;
        }
    }

    /// Walks a statement list from `list` with the constants `env[base..]`
    /// reaching its first statement (changed in place; the caller drops
    /// them after).
    fn stmts(&mut self, mut list: ASTNodeId, base: usize) {
        loop {
            let node = &self.t[list];
            let (inner, stmt, next) = (
                node.kind == ASTNodeKind::StmtListInner,
                node.stmt(),
                node.next(),
            );
            let s = &self.t[stmt];
            match s.kind {
                ASTNodeKind::AssignStmt => {
                    let (var, rhs) = (self.t[s.id()].var_id(), s.assigned_expr());
                    let constant = self.assigned_expr(stmt, rhs, base);
                    if inner {
                        self.kill(base, var);
                        if let Some(value) = constant {
                            if var != -1 {
                                self.env.push((var, value));
                            }
                        }
                    }
                }
                ASTNodeKind::IfStmt => {
                    self.if_stmt(stmt, base);
                    // Every constant's walk stops at an `if`.
                    self.env.truncate(base);
                }
                // The end node of a list does not desugar its statement.
                ASTNodeKind::IncrStmt if inner => {
                    let var = self.t[s.id()].var_id();
                    self.desugar(list, var, self.add, base);
                }
                ASTNodeKind::DecrStmt if inner => {
                    let var = self.t[s.id()].var_id();
                    self.desugar(list, var, self.subtract, base);
                }
                _ => {}
            }
            if !inner {
                return;
            }
            list = next;
        }
    }

    /// `x++` / `x--` in list node `list` becomes `x = x op 1` (the nodes the
    /// program makes), which is then substituted and folded: knowing its
    /// shape, without reading it back. Its right side is no constant when
    /// propagation looks at it, so it only stops the constant of `x`.
    fn desugar(&mut self, list: ASTNodeId, var: i64, op: i64, base: usize) {
        let t = &mut *self.t;
        let target = t.push_ast_node(ASTNodeSlots::var_ref_expr(var));
        let operand = t.push_ast_node(ASTNodeSlots::var_ref_expr(var));
        let one = t.push_ast_node(ASTNodeSlots::constant_expr(1));
        let sum = t.push_ast_node(ASTNodeSlots::binary_expr(operand, one, op));
        let assign = t.push_ast_node(ASTNodeSlots::assign_stmt(target, false, sum));
        *t[list].stmt_mut() = assign;
        if let Some(value) = self.lookup(base, var) {
            let operand = self.push_constant(value);
            *self.t[sum].lhs_mut() = operand;
            let folded = self.push_constant(apply_op(op, value, 1));
            *self.t[assign].assigned_expr_mut() = folded;
        }
        self.kill(base, var);
    }

    /// Substitutes and folds the right side `rhs` of assignment `stmt`;
    /// returns its value if it is a constant when propagation looks at it
    /// (after substitution, before folding).
    fn assigned_expr(&mut self, stmt: ASTNodeId, rhs: ASTNodeId, base: usize) -> Option<i64> {
        let e = &self.t[rhs];
        match e.kind {
            ASTNodeKind::ConstantExpr => Some(e.value()),
            ASTNodeKind::VarRefExpr => {
                let value = self.lookup(base, e.var_id())?;
                let c = self.push_constant(value);
                *self.t[stmt].assigned_expr_mut() = c;
                Some(value)
            }
            ASTNodeKind::BinaryExpr => {
                if let Some(value) = self.binary(rhs, base) {
                    let c = self.push_constant(value);
                    *self.t[stmt].assigned_expr_mut() = c;
                }
                None
            }
            _ => None,
        }
    }

    /// Substitutes and folds below `BinaryExpr` `b`; returns the value `b`
    /// folds to if both its operands are constants now (its parent folds
    /// it, as in the program).
    fn binary(&mut self, b: ASTNodeId, base: usize) -> Option<i64> {
        let node = &self.t[b];
        let (lhs, rhs, op) = (node.lhs(), node.rhs(), node.operator());
        let l = match self.operand(lhs, base) {
            Operand::Constant(v) => Some(v),
            Operand::Replace(v) => {
                let c = self.push_constant(v);
                *self.t[b].lhs_mut() = c;
                Some(v)
            }
            Operand::Other => None,
        };
        let r = match self.operand(rhs, base) {
            Operand::Constant(v) => Some(v),
            Operand::Replace(v) => {
                let c = self.push_constant(v);
                *self.t[b].rhs_mut() = c;
                Some(v)
            }
            Operand::Other => None,
        };
        Some(apply_op(op, l?, r?))
    }

    /// Substitutes and folds operand `e` of a `BinaryExpr`.
    #[inline(always)]
    fn operand(&mut self, e: ASTNodeId, base: usize) -> Operand {
        let node = &self.t[e];
        let value = match node.kind {
            ASTNodeKind::ConstantExpr => return Operand::Constant(node.value()),
            ASTNodeKind::VarRefExpr => self.lookup(base, node.var_id()),
            ASTNodeKind::BinaryExpr => self.binary(e, base),
            _ => None,
        };
        value.map_or(Operand::Other, Operand::Replace)
    }

    /// Walks `IfStmt` `s` reached by the constants `env[base..]`.
    fn if_stmt(&mut self, s: ASTNodeId, base: usize) {
        let node = &self.t[s];
        let (cond, then_part, else_part) = (node.condition(), node.then_part(), node.else_part);
        let c = &self.t[cond];
        let condition = match c.kind {
            ASTNodeKind::ConstantExpr => Some(c.value()),
            ASTNodeKind::BinaryExpr => {
                let value = self.binary(cond, base);
                if let Some(v) = value {
                    let k = self.push_constant(v);
                    *self.t[s].condition_mut() = k;
                }
                value
            }
            // A `VarRefExpr` condition is neither substituted nor folded.
            _ => None,
        };
        let (then_live, else_live) = match condition {
            Some(0) => (false, true),
            Some(_) => (true, false),
            None => (true, true),
        };
        if then_live {
            // The then branch gets a copy of the constants; the else branch
            // may use them in place (they stop at this `if`).
            let start = self.env.len();
            self.env.extend_from_within(base..start);
            self.stmts(then_part, start);
            self.env.truncate(start);
        } else {
            let end = self.null_list();
            *self.t[s].then_part_mut() = end;
        }
        if else_live {
            self.stmts(else_part, base);
        } else {
            let end = self.null_list();
            self.t[s].else_part = end;
        }
    }
}

/// What walking an operand of a `BinaryExpr` left.
enum Operand {
    /// It was a `ConstantExpr` of this value.
    Constant(i64),
    /// It is to be replaced by a new `ConstantExpr` of this value (a
    /// variable with a known value, or a `BinaryExpr` that folds).
    Replace(i64),
    /// Anything else.
    Other,
}

#[cfg(test)]
mod tests {
    //! The hand-fused passes must compute exactly what the program does:
    //! checked against the generated unfused code on the case-study
    //! programs, on random trees, and on small programs written for the
    //! quirks of `replace_var_ref_with_const`.
    use super::*;
    use crate::ast;

    /// Runs both on copies of `tree`; asserts the same outcome, the same
    /// reachable tree (through the JSON writer, since created nodes may
    /// have other indices) and the same globals. Returns the output JSON.
    fn agree(tree: &Tree, what: &str) -> Option<String> {
        let schema = ast::schema();
        let (mut ut, mut ug) = (tree.clone(), Globals::default());
        let unfused = ast::run_optimize_unfused(&mut ut, &mut ug);
        let (mut ht, mut hg) = (tree.clone(), Globals::default());
        let hand = run(&mut ht, &mut hg);
        assert_eq!(
            unfused.is_ok(),
            hand.is_ok(),
            "{what}: error behaviour differs ({unfused:?} / {hand:?})"
        );
        unfused.ok()?;
        assert_eq!(ug, hg, "{what}: globals differ");
        let (uj, hj) = (
            ast::write_json(&schema, &ut, &ug),
            ast::write_json(&schema, &ht, &hg),
        );
        if uj != hj {
            let diff = treefuse_runtime::diff_trees(
                &schema,
                &ut.to_runtime(&schema),
                &ht.to_runtime(&schema),
                5,
            );
            panic!("{what}: trees differ (unfused left, hand right): {diff:?}");
        }
        Some(uj)
    }

    fn program(json: &str) -> Tree {
        ast::read_json(&ast::schema(), "Program", json).expect("test program reads")
    }

    #[test]
    fn hand_fused_ast_matches_unfused_on_the_case_study_programs() {
        let schema = ast::schema();
        for (variant, size, seed) in [
            (1, 1, 3),
            (1, 2, 5),
            (1, 50, 7),
            (1, 300, 11),
            (3, 1, 3),
            (3, 2, 7),
            (3, 5, 11),
            (3, 20, 13),
            (2, 300, 5),
        ] {
            let json = treefuse_casegen::generate_string("ast", variant, size, seed)
                .expect("the generator accepts these sizes");
            let tree = ast::read_json(&schema, "Program", &json).expect("generated JSON reads");
            let what = format!("program {variant} / {size} (seed {seed})");
            let out = agree(&tree, &what);
            assert!(out.is_some(), "{what}: no runtime error expected");
            if variant != 2 {
                // No condition of programs 1 and 3 folds to a constant, so
                // the hand version skips no dead branch and creates exactly
                // as many nodes as the program (the work is the same).
                let (mut ut, mut ht) = (tree.clone(), tree.clone());
                let (mut ug, mut hg) = (Globals::default(), Globals::default());
                ast::run_optimize_unfused(&mut ut, &mut ug).expect("no runtime error");
                run(&mut ht, &mut hg).expect("no runtime error");
                assert_eq!(ut.node_count(), ht.node_count(), "{what}: nodes created");
            }
        }
    }

    #[test]
    fn hand_fused_ast_matches_unfused_on_random_trees() {
        let schema = ast::schema();
        let root = schema
            .type_named("Program")
            .expect("ast.tf has a Program type");
        let mut changed = 0;
        for seed in 0..600 {
            let options = treefuse_runtime::GenOptions {
                nodes: 20 + (seed as usize % 9) * 30,
                seed,
                ..Default::default()
            };
            let rt =
                treefuse_runtime::random_tree(&schema, root, &options).expect("finite trees exist");
            let tree = Tree::from_runtime(&rt);
            let before = ast::write_json(&schema, &tree, &Globals::default());
            let after = agree(&tree, &format!("random tree seed {seed}"))
                .expect("the passes raise no runtime error");
            if after != before {
                changed += 1;
            }
        }
        assert!(changed > 300, "the passes changed only {changed} trees");
    }

    #[test]
    fn hand_fused_ast_fails_where_the_program_fails() {
        assert_eq!(agree(&Tree::default(), "empty tree"), None);
        assert_eq!(
            run(&mut Tree::default(), &mut Globals::default()),
            Err(NoProgram::Empty)
        );
        // A tree whose root is a function, not a program.
        let mut t = program(
            r#"{"type":"Program","functions":{"type":"FunctionListEnd","content":
                {"type":"Function","stmt_list":{"type":"StmtListEnd","stmt":{"type":"NullStmt"}}}}}"#,
        );
        let function = t[t[t.root.ast_node().expect("a root")].functions()].content();
        t.root = ast::NodeRef::ASTNode(function);
        assert_eq!(agree(&t, "root is a Function"), None);
    }

    fn var(id: i64) -> String {
        format!(r#"{{"type":"VarRefExpr","var_id":{id}}}"#)
    }

    fn constant(value: i64) -> String {
        format!(r#"{{"type":"ConstantExpr","value":{value}}}"#)
    }

    fn add(lhs: &str, rhs: &str) -> String {
        format!(r#"{{"type":"BinaryExpr","operator":0,"lhs":{lhs},"rhs":{rhs}}}"#)
    }

    fn assign(id: i64, expr: &str) -> String {
        format!(
            r#"{{"type":"AssignStmt","id":{},"assigned_expr":{expr}}}"#,
            var(id)
        )
    }

    fn incr(id: i64) -> String {
        format!(r#"{{"type":"IncrStmt","id":{}}}"#, var(id))
    }

    fn if_stmt(condition: &str, then_part: &[String], else_part: &[String]) -> String {
        format!(
            r#"{{"type":"IfStmt","condition":{condition},"then_part":{},"else_part":{}}}"#,
            stmts(then_part),
            stmts(else_part)
        )
    }

    fn stmts(list: &[String]) -> String {
        let (last, init) = list.split_last().expect("a statement");
        let mut s = format!(r#"{{"type":"StmtListEnd","stmt":{last}}}"#);
        for stmt in init.iter().rev() {
            s = format!(r#"{{"type":"StmtListInner","stmt":{stmt},"next":{s}}}"#);
        }
        s
    }

    fn function(body: &[String]) -> String {
        format!(
            r#"{{"type":"Program","functions":{{"type":"FunctionListEnd","content":{{"type":"Function","stmt_list":{}}}}}}}"#,
            stmts(body)
        )
    }

    /// The statements of the single function of `json` (an output), as the
    /// JSON text of each `stmt`.
    fn output_of(body: &[String]) -> String {
        let out = agree(&program(&function(body)), "exact case").expect("no runtime error");
        // Normalise away the globals and whitespace for the comparisons.
        out.split("\"globals\"")
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect()
    }

    fn expected(body: &[String]) -> String {
        let schema = ast::schema();
        let t = program(&function(body));
        ast::write_json(&schema, &t, &Globals::default())
            .split("\"globals\"")
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .collect()
    }

    #[test]
    fn hand_fused_ast_runs_deep_trees() {
        // x1 = 3; x2 = ((x1 + x1) + x1) + ... 100,000 deep, folded to one
        // constant; and 20,000 nested `if`s. (Built as prefix, core and
        // suffix: nesting `format!` calls would take quadratic time.)
        let depth = 100_000;
        let sum = format!(
            "{}{}{}",
            r#"{"type":"BinaryExpr","operator":0,"lhs":"#.repeat(depth),
            var(1),
            format!(r#","rhs":{}}}"#, var(1)).repeat(depth)
        );
        let deep_expr = function(&[assign(1, &constant(3)), assign(2, &sum)]);
        let depth = 20_000;
        let nested = format!(
            "{}{}{}",
            format!(
                r#"{{"type":"IfStmt","condition":{},"then_part":{{"type":"StmtListEnd","stmt":"#,
                add(&var(1), &var(5))
            )
            .repeat(depth),
            assign(4, &var(1)),
            format!(r#"}},"else_part":{}}}"#, stmts(&[incr(1)])).repeat(depth)
        );
        let deep_ifs = function(&[assign(1, &constant(3)), nested]);
        for (json, what) in [(deep_expr, "deep expression"), (deep_ifs, "deep ifs")] {
            let out = std::thread::scope(|s| {
                // A test thread's default stack, as in a user's thread.
                s.spawn(|| agree(&program(&json), what)).join()
            });
            assert!(
                matches!(out, Ok(Some(_))),
                "{what}: no runtime error expected"
            );
        }
    }

    #[test]
    fn a_constant_reaches_into_an_if_and_stops_after_it() {
        // x1 = 2; if (x1 + x2) { x3 = x1 } else { x1 = 5; x4 = x1 }; x5 = x1
        let out = output_of(&[
            assign(1, &constant(2)),
            if_stmt(
                &add(&var(1), &var(2)),
                &[assign(3, &var(1)), assign(6, &var(3))],
                &[assign(1, &constant(5)), assign(4, &var(1))],
            ),
            assign(5, &var(1)),
        ]);
        let want = expected(&[
            assign(1, &constant(2)),
            if_stmt(
                &add(&constant(2), &var(2)),
                &[assign(3, &constant(2)), assign(6, &constant(2))],
                &[assign(1, &constant(5)), assign(4, &constant(5))],
            ),
            assign(5, &var(1)),
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn a_reassignment_is_substituted_then_stops_the_constant() {
        // x1 = 2; x1 = x1 + 1 (folded to 3, but no new constant); x2 = x1;
        // x1++ at the end of the list stays an increment.
        let out = output_of(&[
            assign(1, &constant(2)),
            assign(1, &add(&var(1), &constant(1))),
            assign(2, &var(1)),
            incr(1),
        ]);
        let want = expected(&[
            assign(1, &constant(2)),
            assign(1, &constant(3)),
            assign(2, &var(1)),
            incr(1),
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn a_constant_condition_drops_its_dead_branch() {
        // x1 = 0; x2++ (x2 = x2 + 1); if (x1 + 0) { x3 = 1 } else { x3 = x1 }
        let out = output_of(&[
            assign(1, &constant(0)),
            incr(2),
            if_stmt(
                &add(&var(1), &constant(0)),
                &[assign(3, &constant(1))],
                &[assign(3, &var(1))],
            ),
            assign(9, &constant(9)),
        ]);
        let want = expected(&[
            assign(1, &constant(0)),
            assign(2, &add(&var(2), &constant(1))),
            if_stmt(
                &constant(0),
                &[r#"{"type":"NullStmt"}"#.to_string()],
                &[assign(3, &constant(0))],
            ),
            assign(9, &constant(9)),
        ]);
        assert_eq!(out, want);
    }
}
