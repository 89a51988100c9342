//! Where generated traversals check the stack, decided from the program
//! before any code is generated (the code is in `stack.rs`; see the
//! crate docs, "Deep trees").
//!
//! Most programs need no check per visit: a traversal's recursion goes one
//! tree level down per call, so its depth is at most the tree's height,
//! which is at most the number of nodes. The entry point reserves
//! `nodes × STACK_PER_LEVEL` once (on the running stack when it has that
//! much left, else on the thread's reusable, lazily committed segment,
//! `treefuse_runtime::stack`) and the
//! visits run unchecked. Two things break the bound:
//!
//! - a cycle of calls on `self` (recursion on one node, as deep as the
//!   data says): such a program keeps a stack-pointer check in every
//!   dispatcher ([`StackScheme::EveryVisit`]);
//! - statements that create nodes (the tree may grow below a running
//!   visit). The visits that are running at one time are on distinct nodes
//!   (each call goes to a child of the node before it, or to a node that
//!   replaces it, and a traversal reaches nothing above its receiver), so
//!   all but the created ones among them are nodes the run started with,
//!   at most `n` of them. Only the visits of created nodes therefore need
//!   a check, and only those that can call further (a created leaf ends
//!   the chain): the bodies and fused functions of the concrete types that
//!   some statement can create and that have children check, at their
//!   start, that at least `n × STACK_PER_LEVEL` plus the reserve is left,
//!   and move to a new segment of that size when it is not
//!   ([`StackScheme::Created`]). Whatever runs after the last check is at
//!   most `n` levels of original nodes and a leaf, which fits. In the AST
//!   case study (`x++` desugared into `x = x + 1`) that is an assignment,
//!   a binary expression and a one-statement list: no check in the
//!   dispatchers, none in the visits of the nodes a program starts with.

use treefuse_sema::{
    FieldKind, ListEdit, ListItem, NewField, NewTree, PathRoot, Program, Stmt, StmtKind, Subtree,
    TypeId,
};

/// Where a program's generated code checks the stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StackScheme {
    /// Nowhere: one reservation per run.
    Reserve,
    /// At the start of the bodies and fused functions of these concrete
    /// types (per type), with the reservation sized from the node count.
    Created(Vec<bool>),
    /// In every dispatcher.
    EveryVisit,
}

/// Whether the recursion of `p`'s traversals can go deeper than its tree
/// has nodes when the run starts: a statement creates nodes, or
/// traversals call each other on `self` in a cycle.
#[cfg(test)]
pub(crate) fn needs_stack_guard(p: &Program) -> bool {
    stack_scheme(p) != StackScheme::Reserve
}

/// The checks `p` needs (see the module docs).
pub(crate) fn stack_scheme(p: &Program) -> StackScheme {
    let mut created = vec![false; p.types.len()];
    // calls[m]: the traversals that some body of `m` calls on `self`.
    let mut calls = vec![Vec::new(); p.methods.len()];
    for b in &p.bodies {
        if let Some(stmts) = &b.body {
            scan(p, stmts, &mut created, &mut calls[b.method.index()]);
        }
    }
    // A self-call cycle: some traversal reaches itself.
    let cycle = (0..calls.len()).any(|start| {
        let mut seen = vec![false; calls.len()];
        let mut work: Vec<usize> = calls[start].clone();
        while let Some(m) = work.pop() {
            if m == start {
                return true;
            }
            if !std::mem::replace(&mut seen[m], true) {
                work.extend(&calls[m]);
            }
        }
        false
    });
    if cycle {
        return StackScheme::EveryVisit;
    }
    // A created leaf only ends a chain of visits.
    let checked: Vec<bool> = created
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            c && p.types[i].fields.iter().any(|f| {
                matches!(
                    p.fields[f.index()].kind,
                    FieldKind::Child(_) | FieldKind::List(_)
                )
            })
        })
        .collect();
    if checked.contains(&true) {
        StackScheme::Created(checked)
    } else {
        StackScheme::Reserve
    }
}

/// Marks every concrete type a node of type `ty` (or of a subtype) can
/// have, and everything below such a node: what a deep copy can create.
fn mark_copy(p: &Program, ty: TypeId, created: &mut [bool]) {
    let mut work = vec![ty];
    let mut seen = vec![false; p.types.len()];
    while let Some(t) = work.pop() {
        for (i, def) in p.types.iter().enumerate() {
            let sub = TypeId(i as u32);
            if seen[i] || !p.is_subtype(sub, t) {
                continue;
            }
            seen[i] = true;
            if !def.is_abstract {
                created[i] = true;
            }
            for f in &def.fields {
                if let FieldKind::Child(c) | FieldKind::List(c) = p.fields[f.index()].kind {
                    work.push(c);
                }
            }
        }
    }
}

fn mark_new(p: &Program, t: &NewTree, created: &mut [bool]) {
    fn field(p: &Program, f: &NewField, created: &mut [bool]) {
        match f {
            NewField::New(t) => mark_new(p, t, created),
            NewField::List(items) => items.iter().for_each(|i| field(p, i, created)),
            NewField::Copy(path) => mark_copy(p, path.ty, created),
            NewField::Data(_) | NewField::Move(_) | NewField::MoveList(_) | NewField::Empty => {}
        }
    }
    created[t.ty.index()] = true;
    t.fields.iter().for_each(|f| field(p, f, created));
}

fn mark_subtree(p: &Program, t: &Subtree, created: &mut [bool]) {
    match t {
        Subtree::New(t) => mark_new(p, t, created),
        Subtree::Copy(path) => mark_copy(p, path.ty, created),
        Subtree::Move(_) => {}
    }
}

fn mark_items(p: &Program, items: &[ListItem], created: &mut [bool]) {
    for i in items {
        if let ListItem::One(t) = i {
            mark_subtree(p, t, created);
        }
    }
}

fn scan(p: &Program, stmts: &[Stmt], created: &mut [bool], self_calls: &mut Vec<usize>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Replace { tree, .. } => mark_new(p, tree, created),
            StmtKind::ReplaceSelf { with } => mark_subtree(p, with, created),
            StmtKind::SpliceSelf { items } => mark_items(p, items, created),
            StmtKind::EditList { edit, .. } => match edit {
                ListEdit::Set(_, t) | ListEdit::Push(t) | ListEdit::Insert(_, t) => {
                    mark_subtree(p, t, created)
                }
                ListEdit::Remove(_) => {}
                ListEdit::Assign(items) => mark_items(p, items, created),
            },
            StmtKind::CopyTo { source, .. } => mark_copy(p, source.ty, created),
            StmtKind::Call {
                receiver, method, ..
            } if receiver.root == PathRoot::SelfNode && receiver.steps.is_empty() => {
                self_calls.push(method.index())
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                scan(p, then_branch, created, self_calls);
                scan(p, else_branch, created, self_calls);
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => scan(p, body, created, self_calls),
            _ => {}
        }
    }
}
