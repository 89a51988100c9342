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
            StmtKind::Alias { path, .. } => walk_path(path, f),
            StmtKind::Move { slot, source } => {
                walk_path(&slot.parent, f);
                walk_path(source, f);
            }
            StmtKind::CopyTo { slot, source } => {
                walk_path(&slot.parent, f);
                walk_path(source, f);
            }
            StmtKind::Clear { slot } => walk_path(&slot.parent, f),
            StmtKind::Assign { place, value } => {
                if let PlaceRoot::Field(p, _) = &place.root {
                    walk_path(p, f);
                }
                for p in &place.projections {
                    if let Projection::Index(i) | Projection::Key(i) = p {
                        walk_expr(i, f);
                    }
                }
                walk_expr(value, f);
            }
            StmtKind::Replace { slot, tree } => {
                walk_path(&slot.parent, f);
                walk_new_tree(tree, f);
            }
            StmtKind::ReplaceSelf { with } => walk_subtree(with, f),
            StmtKind::SpliceSelf { items } => walk_list_items(items, f),
            StmtKind::EditList { list, edit } => {
                walk_path(&list.parent, f);
                match edit {
                    ListEdit::Set(i, with) => {
                        walk_expr(i, f);
                        walk_subtree(with, f);
                    }
                    ListEdit::Push(with) => walk_subtree(with, f),
                    ListEdit::Insert(i, with) => {
                        walk_expr(i, f);
                        walk_subtree(with, f);
                    }
                    ListEdit::Remove(i) => walk_expr(i, f),
                    ListEdit::Assign(items) => walk_list_items(items, f),
                }
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                walk_expr(cond, f);
                walk_stmt_exprs(then_branch, f);
                walk_stmt_exprs(else_branch, f);
            }
            StmtKind::ForChildren { list, body, .. } => {
                walk_path(&list.parent, f);
                walk_stmt_exprs(body, f);
            }
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
            StmtKind::While { cond, limit, body } => {
                walk_expr(limit, f);
                walk_expr(cond, f);
                walk_stmt_exprs(body, f);
            }
            StmtKind::Break => {}
        }
    }
}

/// Calls `f` on every statement of `stmts`, nested ones (in `if` branches
/// and loop bodies) included, each before the statements nested in it.
pub fn for_each_stmt<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                for_each_stmt(then_branch, f);
                for_each_stmt(else_branch, f);
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => for_each_stmt(body, f),
            _ => {}
        }
    }
}

/// Whether `pred` holds for some statement of `stmts`, nested ones
/// (in `if` branches and loop bodies) included.
pub fn any_stmt(stmts: &[Stmt], pred: &impl Fn(&Stmt) -> bool) -> bool {
    stmts.iter().any(|s| {
        pred(s)
            || match &s.kind {
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => any_stmt(then_branch, pred) || any_stmt(else_branch, pred),
                StmtKind::ForChildren { body, .. }
                | StmtKind::ForArray { body, .. }
                | StmtKind::ForRange { body, .. }
                | StmtKind::While { body, .. } => any_stmt(body, pred),
                _ => false,
            }
    })
}

/// Calls `f` on the index expressions of a node path (`self.xs[i]`).
pub fn walk_path<'a>(p: &'a NodePath, f: &mut impl FnMut(&'a Expr)) {
    p.index_exprs().for_each(|i| walk_expr(i, f));
}

fn walk_subtree<'a>(t: &'a Subtree, f: &mut impl FnMut(&'a Expr)) {
    match t {
        Subtree::New(tree) => walk_new_tree(tree, f),
        Subtree::Move(p) | Subtree::Copy(p) => walk_path(p, f),
    }
}

fn walk_list_items<'a>(items: &'a [ListItem], f: &mut impl FnMut(&'a Expr)) {
    for item in items {
        match item {
            ListItem::One(t) => walk_subtree(t, f),
            ListItem::Spread(slot) => walk_path(&slot.parent, f),
        }
    }
}

fn walk_new_tree<'a>(tree: &'a NewTree, f: &mut impl FnMut(&'a Expr)) {
    fn field<'a>(nf: &'a NewField, f: &mut impl FnMut(&'a Expr)) {
        match nf {
            NewField::Data(e) => walk_expr(e, f),
            NewField::New(t) => walk_new_tree(t, f),
            NewField::List(items) => items.iter().for_each(|i| field(i, f)),
            NewField::Move(p) | NewField::Copy(p) => walk_path(p, f),
            NewField::MoveList(slot) => walk_path(&slot.parent, f),
            NewField::Empty => {}
        }
    }
    tree.fields.iter().for_each(|nf| field(nf, f));
}

/// Calls `f` on `e` and every sub-expression of it (index expressions of
/// the node paths it reads included).
pub fn walk_expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::InList => {}
        ExprKind::Field(p, _) | ExprKind::Is(p, _) | ExprKind::IsNone(p) => walk_path(p, f),
        ExprKind::ListLen(slot) => walk_path(&slot.parent, f),
        ExprKind::Member(inner, _) | ExprKind::Unary(_, inner) => walk_expr(inner, f),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Builtin(_, args)
        | ExprKind::Call(_, args)
        | ExprKind::Array(args)
        | ExprKind::Record(_, args) => args.iter().for_each(|a| walk_expr(a, f)),
        ExprKind::NodeCall(_, args) => {
            for a in args {
                match a {
                    PureArg::Data(e) => walk_expr(e, f),
                    PureArg::Node(p) => walk_path(p, f),
                }
            }
        }
        ExprKind::If(c, a, b) => {
            walk_expr(c, f);
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Match(x, arms) => {
            walk_expr(x, f);
            arms.iter().for_each(|arm| walk_expr(&arm.body, f));
        }
    }
}
