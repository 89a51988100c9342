//! Generic walks over checked statements and expressions.
//!
//! Analyses (purity checks, access analysis, code generation) need to see
//! every expression of a body; one walker keeps them from each writing
//! their own recursion over every statement form.

use crate::model::*;

/// Calls `f` on every expression in `stmts`, outermost first, including
/// sub-expressions, index expressions of places, and data initializers of
/// `new` trees.
pub fn walk_stmt_exprs<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Call { args, .. } => args.iter().for_each(|a| walk_expr(a, f)),
            StmtKind::Let { value, .. } => walk_expr(value, f),
            StmtKind::Alias { .. } | StmtKind::Move { .. } => {}
            StmtKind::Assign { place, value } => {
                for p in &place.projections {
                    if let Projection::Index(i) = p {
                        walk_expr(i, f);
                    }
                }
                walk_expr(value, f);
            }
            StmtKind::Replace { tree, .. } => walk_new_tree(tree, f),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                walk_expr(cond, f);
                walk_stmt_exprs(then_branch, f);
                walk_stmt_exprs(else_branch, f);
            }
            StmtKind::ForChildren { body, .. } => walk_stmt_exprs(body, f),
            StmtKind::ForArray { array, body, .. } => {
                walk_expr(array, f);
                walk_stmt_exprs(body, f);
            }
            StmtKind::ForRange {
                start, end, body, ..
            } => {
                walk_expr(start, f);
                walk_expr(end, f);
                walk_stmt_exprs(body, f);
            }
            StmtKind::Return(value) => {
                if let Some(v) = value {
                    walk_expr(v, f);
                }
            }
        }
    }
}

fn walk_new_tree<'a>(tree: &'a NewTree, f: &mut impl FnMut(&'a Expr)) {
    fn field<'a>(nf: &'a NewField, f: &mut impl FnMut(&'a Expr)) {
        match nf {
            NewField::Data(e) => walk_expr(e, f),
            NewField::New(t) => walk_new_tree(t, f),
            NewField::List(items) => items.iter().for_each(|i| field(i, f)),
            NewField::Move(_) | NewField::MoveList(_) => {}
        }
    }
    tree.fields.iter().for_each(|nf| field(nf, f));
}

/// Calls `f` on `e` and every sub-expression of it.
pub fn walk_expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Field(..)
        | ExprKind::Is(..) => {}
        ExprKind::Member(inner, _) | ExprKind::Unary(_, inner) => walk_expr(inner, f),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Builtin(_, args)
        | ExprKind::Call(_, args)
        | ExprKind::Array(args)
        | ExprKind::Record(_, args) => args.iter().for_each(|a| walk_expr(a, f)),
        ExprKind::If(c, a, b) => {
            walk_expr(c, f);
            walk_expr(a, f);
            walk_expr(b, f);
        }
    }
}
