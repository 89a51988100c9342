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
//! Such an `if`/`else if`/`else` chain whose every branch starts with one
//! call on `self.c` or on a `for` variable is rewritten here into guarded
//! calls, each condition evaluated once into a fresh local, in the original
//! order; what follows the call in a branch (its *tail*) runs under the
//! same guard right after it:
//!
//! ```text
//! let b1 = live;          if b1 { s.prune(); }   if b1 { tail1 }
//! let b2 = !b1 && e2;     if b2 { .. }           // for an `else if e2`
//! if !b1 && !b2 { s.unreachable(); }             // the final `else`
//! if !b1 && !b2 { tail3 }
//! ```
//!
//! Each condition is evaluated exactly when the original chain evaluates
//! it (`&&` short-circuits: once an arm is taken, no later condition is
//! evaluated, so a tail that changes what a later condition reads changes
//! nothing), at most one arm runs, and its call and tail run with the same
//! arguments at the same point: the guards are fresh locals, which neither
//! a call (it cannot write its caller's locals) nor a tail (it does not
//! name them) can change. So every engine gives the same result on the
//! lowered body; the guards read only frame locals, so a fused call may
//! evaluate them ahead of its other members. A tail stays one block, so
//! the locals it declares keep their scope.

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
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => split_branch_calls(body, frame),
            _ => {}
        }
        out.push(stmt);
    }
    *stmts = out;
}

/// One arm of a chain: its first statement, a call on a child of `self`
/// or on a node variable, and the statements after it (the tail).
type Arm<'s> = (&'s Stmt, &'s [Stmt]);

/// The branches of an `if`/`else if`/`else` chain with at least one
/// `else`, each branch starting with a call on a child of `self` or on a
/// node variable: (condition, arm) pairs and the final `else` arm, if any.
type Chain<'s> = (Vec<(&'s Expr, Arm<'s>)>, Option<Arm<'s>>);

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
        arms.push((cond, leading_call(then_branch)?));
        match else_branch.as_slice() {
            [] => return (arms.len() > 1).then_some((arms, None)),
            [next] if matches!(next.kind, StmtKind::If { .. }) => at = next,
            _ => return Some((arms, Some(leading_call(else_branch)?))),
        }
    }
}

/// The first statement of `block` if it is a call on `self.c` or on a
/// node variable (the receivers the fuser merges), and the rest.
fn leading_call(block: &[Stmt]) -> Option<Arm<'_>> {
    let (call, tail) = block.split_first()?;
    let StmtKind::Call { receiver, .. } = &call.kind else {
        return None;
    };
    let mergeable = match receiver.root {
        PathRoot::SelfNode => matches!(receiver.steps[..], [PathStep::Child(_)]),
        PathRoot::Var(_) => receiver.steps.is_empty(),
    };
    mergeable.then_some((call, tail))
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
    for (cond, arm) in arms {
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
        push_arm(&taken, arm, frame, out);
        let not_taken = bool_expr(ExprKind::Unary(UnaryOp::Not, Box::new(taken)), cond.span);
        none_yet = Some(match none_yet {
            None => not_taken,
            Some(before) => bool_expr(
                ExprKind::Binary(BinaryOp::And, Box::new(before), Box::new(not_taken)),
                cond.span,
            ),
        });
    }
    if let (Some(arm), Some(guard)) = (last, none_yet) {
        push_arm(&guard, arm, frame, out);
    }
}

/// `if guard { call }`, then `if guard { tail }` when the arm has one
/// (lowered in turn).
fn push_arm(guard: &Expr, (call, tail): Arm<'_>, frame: &mut FrameLayout, out: &mut Vec<Stmt>) {
    out.push(guarded(guard.clone(), vec![call.clone()], call.span));
    if let Some(first) = tail.first() {
        let mut tail = tail.to_vec();
        split_branch_calls(&mut tail, frame);
        out.push(guarded(guard.clone(), tail, first.span));
    }
}

/// `if guard { stmts }`.
fn guarded(guard: Expr, stmts: Vec<Stmt>, span: treefuse_syntax::Span) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond: guard,
            then_branch: stmts,
            else_branch: Vec::new(),
        },
        span,
    }
}
