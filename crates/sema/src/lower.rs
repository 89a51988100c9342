//! Lowering of checked traversal bodies into the shapes the fuser merges.
//!
//! The fuser merges a traversing call with calls of other traversals on
//! the same child (or, in a `for`, on the same element) only when the call
//! is a whole statement, possibly alone under an `if` without `else` (a
//! *guarded call*). Passes naturally choose between calls:
//!
//! ```text
//! if live { s.prune(); } else { s.unreachable(); }
//! ```
//!
//! Such an `if`/`else if`/`else` chain whose every branch is one call on
//! `self.c` or on a `for` variable is rewritten here into guarded calls,
//! each condition evaluated once into a fresh local, in the original order:
//!
//! ```text
//! let b1 = live;          if b1 { s.prune(); }
//! let b2 = !b1 && e2;     if b2 { .. }           // for an `else if e2`
//! if !b1 && !b2 { s.unreachable(); }             // the final `else`
//! ```
//!
//! Each condition is evaluated exactly when the original chain evaluates
//! it (`&&` short-circuits), at most one call runs, and it runs with the
//! same arguments at the same point, so every engine gives the same result
//! on the lowered body; the guards read only frame locals, so a fused call
//! may evaluate them ahead of its other members.

use crate::model::*;
use crate::ops::{BinaryOp, UnaryOp};

/// Rewrites the call chains of `stmts` (and of nested blocks) in place,
/// adding the condition locals to `frame`.
pub(crate) fn split_branch_calls(stmts: &mut Vec<Stmt>, frame: &mut FrameLayout) {
    let mut out = Vec::with_capacity(stmts.len());
    for mut stmt in std::mem::take(stmts) {
        // A whole chain first: lowering its inner `else if` on its own
        // would hide the chain's shape.
        if let Some(chain) = call_chain(&stmt) {
            lower_chain(chain, stmt.span, frame, &mut out);
            continue;
        }
        match &mut stmt.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                split_branch_calls(then_branch, frame);
                split_branch_calls(else_branch, frame);
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. } => split_branch_calls(body, frame),
            _ => {}
        }
        out.push(stmt);
    }
    *stmts = out;
}

/// The branches of an `if`/`else if`/`else` chain with at least one
/// `else`, each branch a single call on a child of `self` or on a node
/// variable: (condition, call) pairs and the final `else` call, if any.
type Chain<'s> = (Vec<(&'s Expr, &'s Stmt)>, Option<&'s Stmt>);

fn call_chain(stmt: &Stmt) -> Option<Chain<'_>> {
    let mut arms = Vec::new();
    let mut at = stmt;
    loop {
        let StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } = &at.kind
        else {
            return None;
        };
        arms.push((cond, single_call(then_branch)?));
        match else_branch.as_slice() {
            [] => return (arms.len() > 1).then_some((arms, None)),
            [next] if matches!(next.kind, StmtKind::If { .. }) => at = next,
            _ => return Some((arms, Some(single_call(else_branch)?))),
        }
    }
}

/// The statement of `block` if it is exactly one call on `self.c` or on
/// a node variable (the receivers the fuser merges).
fn single_call(block: &[Stmt]) -> Option<&Stmt> {
    let [call] = block else { return None };
    let StmtKind::Call { receiver, .. } = &call.kind else {
        return None;
    };
    let mergeable = match receiver.root {
        PathRoot::SelfNode => matches!(receiver.steps[..], [PathStep::Child(_)]),
        PathRoot::Var(_) => receiver.steps.is_empty(),
    };
    mergeable.then_some(call)
}

fn lower_chain(
    chain: Chain<'_>,
    span: treefuse_syntax::Span,
    frame: &mut FrameLayout,
    out: &mut Vec<Stmt>,
) {
    let (arms, last) = chain;
    let bool_expr = |kind: ExprKind, span| Expr {
        kind,
        ty: DataType::Bool,
        span,
    };
    // `none_yet`: no earlier condition held (`!b1 && !b2 ..`).
    let mut none_yet: Option<Expr> = None;
    for (cond, call) in arms {
        let local = LocalId(frame.locals.len() as u32);
        frame.locals.push(("branch".to_string(), DataType::Bool));
        let value = match &none_yet {
            None => cond.clone(),
            Some(before) => bool_expr(
                ExprKind::Binary(
                    BinaryOp::And,
                    Box::new(before.clone()),
                    Box::new(cond.clone()),
                ),
                cond.span,
            ),
        };
        out.push(Stmt {
            kind: StmtKind::Let { local, value },
            span,
        });
        let taken = bool_expr(ExprKind::Local(local), cond.span);
        out.push(guarded(taken.clone(), call));
        let not_taken = bool_expr(ExprKind::Unary(UnaryOp::Not, Box::new(taken)), cond.span);
        none_yet = Some(match none_yet {
            None => not_taken,
            Some(before) => bool_expr(
                ExprKind::Binary(BinaryOp::And, Box::new(before), Box::new(not_taken)),
                cond.span,
            ),
        });
    }
    if let (Some(call), Some(guard)) = (last, none_yet) {
        out.push(guarded(guard, call));
    }
}

/// `if guard { call }`.
fn guarded(guard: Expr, call: &Stmt) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond: guard,
            then_branch: vec![call.clone()],
            else_branch: Vec::new(),
        },
        span: call.span,
    }
}
