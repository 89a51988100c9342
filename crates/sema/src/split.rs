//! Split traversals: `x.f()` as `x.f$head(); x.f$tail()` (issue 15).
//!
//! A post-order traversal such as minic's `Arith.fold` calls its children
//! first and replaces its receiver last. A pass that, between two calls on
//! a node, reads that node's own fields (minic's `Block.propagate` reads
//! `(s as Let).init` after `s.propagate(..)` and before `s.fold()`) keeps
//! the whole later call out of the earlier call's walk, although only the
//! replacement at its end conflicts with the read. Here every parameterless
//! traversal `f` that is called on a `for` variable somewhere and has a
//! body worth splitting gets two synthetic traversals, `f$head` and
//! `f$tail`, with, on every type, `f` == `f$head; f$tail`:
//!
//! - the head is the longest prefix of `f`'s top-level statements that can
//!   neither leave nor replace the receiver (no `return`, `self = ..` or
//!   thicket, no call on `self`, anywhere inside) and declares no local or
//!   alias at top level (so no local of the head is live in the tail);
//!   the tail is the rest;
//! - when the whole body qualifies and ends with a call `self.c.g()`
//!   (parameterless, `c` a single child) whose own tail is not empty on
//!   some type `c` may hold, the head ends with `self.c.g$head()` and the
//!   tail is `self.c.g$tail()` (minic's `Let.fold` is `self.init.fold()`).
//!
//! So the tail runs on the node the head ran on (the head cannot replace
//! it), the same statements run in the same order, and a run raises the
//! same errors. The fuser decides where to use the parts
//! (`treefuse-fusion`); nothing in the source can name them (`$` is not an
//! identifier character), the unfused engines never run them, and the
//! code generator emits them only where the fused program calls them.

use crate::model::*;
use std::collections::BTreeSet;

/// Adds the split traversals of `program` ([`Program::splits`]).
pub(crate) fn add_split_traversals(program: &mut Program) {
    let plans: Vec<Option<Plan>> = program
        .bodies
        .iter()
        .map(|b| b.body.as_deref().map(|s| plan(program, s)))
        .collect();
    let tails = nonempty_tails(program, &plans);
    // Methods called on a `for` variable somewhere, without arguments.
    let mut element_called = BTreeSet::new();
    for b in &program.bodies {
        element_calls(b.body.as_deref().unwrap_or(&[]), false, &mut element_called);
    }
    // Whether some body of `m` splits into a head and a tail that are not
    // empty (`recursive`: counting those that end in a split call).
    let worth = |m: MethodId, recursive: bool| {
        program.methods[m.index()].params.is_empty()
            && program.bodies.iter().enumerate().any(|(i, b)| {
                b.method == m
                    && tails[i]
                    && plans[i]
                        .as_ref()
                        .is_some_and(|p| p.head > 0 || (recursive && p.recurse.is_some()))
            })
    };
    let relevant = relevant_calls(program);
    let mut split: BTreeSet<MethodId> = element_called
        .into_iter()
        .filter(|&m| relevant.iter().any(|&(f, child)| f == m && worth(m, child)))
        .collect();
    // The callees of recursive splits need their parts too.
    let mut work: Vec<MethodId> = split.iter().copied().collect();
    while let Some(m) = work.pop() {
        for (i, b) in program.bodies.iter().enumerate() {
            if b.method != m || !tails[i] {
                continue;
            }
            if let Some((_, g)) = plans[i].as_ref().and_then(|p| p.recurse) {
                if split.insert(g) {
                    work.push(g);
                }
            }
        }
    }
    if split.is_empty() {
        return;
    }
    // Method ids first: recursive parts call each other.
    let mut splits = Vec::new();
    for &m in &split {
        let base = program.methods[m.index()].clone();
        let mut part = |suffix: &str| {
            program.methods.push(Method {
                name: format!("{}${suffix}", base.name),
                ..base.clone()
            });
            MethodId(program.methods.len() as u32 - 1)
        };
        let (head, tail) = (part("head"), part("tail"));
        splits.push(SplitTraversal {
            whole: m,
            head,
            tail,
            walks: Vec::new(),
        });
    }
    let part_of = |m: MethodId, head: bool| -> Option<MethodId> {
        splits
            .iter()
            .find(|s| s.whole == m)
            .map(|s| if head { s.head } else { s.tail })
    };
    // Bodies, and the dispatch tables pointing to them.
    let mut body_parts: Vec<Option<(BodyId, BodyId)>> = vec![None; program.bodies.len()];
    for i in 0..program.bodies.len() {
        let b = &program.bodies[i];
        let Some(s) = splits.iter().find(|s| s.whole == b.method) else {
            continue;
        };
        let (head_m, tail_m) = (s.head, s.tail);
        let (head, tail) = match (&b.body, &plans[i]) {
            (Some(stmts), Some(p)) => {
                let recurse = p.recurse.filter(|_| tails[i]);
                match recurse.and_then(|(k, g)| Some((k, part_of(g, true)?, part_of(g, false)?))) {
                    Some((k, gh, gt)) => {
                        let mut head = stmts[..k].to_vec();
                        let (mut h, mut t) = (stmts[k].clone(), stmts[k].clone());
                        set_method(&mut h, gh);
                        set_method(&mut t, gt);
                        head.push(h);
                        (Some(head), Some(vec![t]))
                    }
                    None => (
                        Some(stmts[..p.head].to_vec()),
                        Some(stmts[p.head..].to_vec()),
                    ),
                }
            }
            _ => (None, None),
        };
        let mut add = |method: MethodId, body: Option<Vec<Stmt>>| {
            let b = &program.bodies[i];
            program.bodies.push(TraversalBody {
                method,
                owner: b.owner,
                span: b.span,
                frame: b.frame.clone(),
                body,
            });
            BodyId(program.bodies.len() as u32 - 1)
        };
        body_parts[i] = Some((add(head_m, head), add(tail_m, tail)));
    }
    let num_methods = program.methods.len();
    for t in &mut program.types {
        t.vtable.resize(num_methods, None);
        for s in &splits {
            if let Some((h, tl)) = t.vtable[s.whole.index()].and_then(|b| body_parts[b.index()]) {
                t.vtable[s.head.index()] = Some(h);
                t.vtable[s.tail.index()] = Some(tl);
            }
        }
    }
    // Where each head does something: a statement of its own other than a
    // call of a head, or a call of a head that does (a fixpoint).
    let mut walks: BTreeSet<(TypeId, MethodId)> = BTreeSet::new();
    loop {
        let before = walks.len();
        for s in &splits {
            for (ti, t) in program.types.iter().enumerate() {
                let ty = TypeId(ti as u32);
                if t.is_abstract || walks.contains(&(ty, s.head)) {
                    continue;
                }
                let Some(b) = program.dispatch(ty, s.head) else {
                    continue;
                };
                let stmts = program.bodies[b.index()].body.as_deref().unwrap_or(&[]);
                let does = stmts.iter().any(|st| match &st.kind {
                    StmtKind::Call {
                        receiver, method, ..
                    } if splits.iter().any(|o| o.head == *method) => program.types
                        [receiver.ty.index()]
                    .concrete_subtypes
                    .iter()
                    .any(|&c| walks.contains(&(c, *method))),
                    _ => true,
                });
                if does {
                    walks.insert((ty, s.head));
                }
            }
        }
        if walks.len() == before {
            break;
        }
    }
    for s in &mut splits {
        s.walks = walks
            .iter()
            .filter(|(_, m)| *m == s.head)
            .map(|(t, _)| *t)
            .collect();
    }
    program.splits = splits;
}

/// Split only where the fuser may use it, to keep the analysis small:
/// `(f, child)` for a traversal `f` called on the elements of a list `L`
/// by a call of a `fuse` item that comes after another call of the same
/// run of calls (no global assignment or loop boundary between) which
/// reaches a loop over `L` that, after calling a traversal on its
/// variable, reads through it: `child` when it reads below the element
/// (then a recursive split of `f` may help), otherwise only the element's
/// own fields (then only a split inside the element's own body may). Not
/// where another traversal the run calls on `L`'s elements may replace
/// them: the fuser splits only where no other call may.
fn relevant_calls(program: &Program) -> BTreeSet<(MethodId, bool)> {
    let n = program.methods.len();
    // Per method: lists it calls elements of, loops of it that read.
    let mut element_lists: Vec<BTreeSet<FieldId>> = vec![BTreeSet::new(); n];
    let mut reads: Vec<BTreeSet<(FieldId, bool)>> = vec![BTreeSet::new(); n];
    let mut callees: Vec<BTreeSet<MethodId>> = vec![BTreeSet::new(); n];
    for b in &program.bodies {
        let stmts = b.body.as_deref().unwrap_or(&[]);
        let m = b.method.index();
        loops(stmts, &mut element_lists, &mut reads[m]);
        calls(stmts, &mut callees[m]);
    }
    // Methods with a body that may replace its receiver: `self = ..`, a
    // thicket, or a call on `self` of such a method (by name, on any type).
    let mut replaces: BTreeSet<MethodId> = BTreeSet::new();
    loop {
        let before = replaces.len();
        for b in &program.bodies {
            if b.body
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .any(|s| replaces_receiver(s, &replaces))
            {
                replaces.insert(b.method);
            }
        }
        if replaces.len() == before {
            break;
        }
    }
    // Methods reachable from each method, itself included.
    let reach = |m: MethodId| {
        let mut seen = BTreeSet::from([m]);
        let mut work = vec![m];
        while let Some(x) = work.pop() {
            for &y in &callees[x.index()] {
                if seen.insert(y) {
                    work.push(y);
                }
            }
        }
        seen
    };
    let mut out = BTreeSet::new();
    for fuse in &program.fuses {
        let mut runs = Vec::new();
        call_runs(&fuse.body, &mut runs);
        for run in runs {
            let reached: Vec<BTreeSet<MethodId>> =
                run.iter().map(|&c| reach(fuse.calls[c].method)).collect();
            for j in 1..run.len() {
                let earlier: BTreeSet<(FieldId, bool)> = reached[..j]
                    .iter()
                    .flatten()
                    .flat_map(|g| reads[g.index()].iter().copied())
                    .collect();
                for &f in &reached[j] {
                    for &(list, child) in &earlier {
                        // The fuser splits only where no other call on the
                        // element may replace it.
                        let replaced = reached.iter().flatten().any(|&g| {
                            g != f
                                && replaces.contains(&g)
                                && element_lists[g.index()].contains(&list)
                        });
                        if element_lists[f.index()].contains(&list) && !replaced {
                            out.insert((f, child));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether `s` may replace the receiver: `self = ..`, a thicket, or a call
/// on `self` of a method in `replacing`, anywhere inside.
fn replaces_receiver(s: &Stmt, replacing: &BTreeSet<MethodId>) -> bool {
    crate::visit::any_stmt(std::slice::from_ref(s), &|s| match &s.kind {
        StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. } => true,
        StmtKind::Call {
            receiver, method, ..
        } => on_self(receiver) && replacing.contains(method),
        _ => false,
    })
}

fn on_self(receiver: &NodePath) -> bool {
    receiver.root == PathRoot::SelfNode && receiver.steps.is_empty()
}

/// The maximal runs of consecutive calls of a `fuse` item's statements.
fn call_runs(stmts: &[FuseStmt], out: &mut Vec<Vec<usize>>) {
    let mut run = Vec::new();
    for s in stmts {
        match s {
            FuseStmt::Call(c) => run.push(*c),
            FuseStmt::SetGlobal { .. } => out.push(std::mem::take(&mut run)),
            FuseStmt::While { body, .. } => {
                out.push(std::mem::take(&mut run));
                call_runs(body, out);
            }
            FuseStmt::Break { .. } => out.push(std::mem::take(&mut run)),
        }
    }
    out.push(run);
}

/// Every traversal `stmts` call, on any receiver.
fn calls(stmts: &[Stmt], out: &mut BTreeSet<MethodId>) {
    crate::visit::for_each_stmt(stmts, &mut |s| {
        if let StmtKind::Call { method, .. } = &s.kind {
            out.insert(*method);
        }
    });
}

/// The loops `for x in ..L` in `stmts`: the traversals each calls on `x`
/// (`element_lists[f]` gets `L`), and `(L, below)` in `reads` when a
/// statement after a call on `x` reads through `x` (`below`: a path going
/// on to a child of `x`).
fn loops(
    stmts: &[Stmt],
    element_lists: &mut [BTreeSet<FieldId>],
    reads: &mut BTreeSet<(FieldId, bool)>,
) {
    for s in stmts {
        match &s.kind {
            StmtKind::ForChildren { var, list, body } => {
                let mut called = BTreeSet::new();
                element_calls(body, true, &mut called);
                for f in &called {
                    element_lists[f.index()].insert(list.field);
                }
                let on_var = |s: &Stmt| {
                    let mut m = BTreeSet::new();
                    element_calls(std::slice::from_ref(s), true, &mut m);
                    !m.is_empty()
                };
                if let Some(first) = body.iter().position(on_var) {
                    for later in body[first + 1..].iter().filter(|s| !on_var(s)) {
                        crate::visit::walk_stmt_exprs(std::slice::from_ref(later), &mut |e| {
                            let path = match &e.kind {
                                ExprKind::Field(p, _)
                                | ExprKind::Is(p, _)
                                | ExprKind::IsNone(p) => p,
                                // A pure function given the element reads
                                // its whole subtree (LANGUAGE §8.8).
                                ExprKind::NodeCall(_, args) => {
                                    for a in args {
                                        if let PureArg::Node(p) = a {
                                            if p.root == PathRoot::Var(*var) {
                                                reads.insert((list.field, true));
                                            }
                                        }
                                    }
                                    return;
                                }
                                _ => return,
                            };
                            if path.root == PathRoot::Var(*var) {
                                let below =
                                    path.steps.iter().any(|st| !matches!(st, PathStep::Cast(_)));
                                reads.insert((list.field, below));
                            }
                        });
                    }
                }
                loops(body, element_lists, reads);
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                loops(then_branch, element_lists, reads);
                loops(else_branch, element_lists, reads);
            }
            StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => loops(body, element_lists, reads),
            _ => {}
        }
    }
}

/// Where a body splits: its first `head` statements form the head; or,
/// with `recurse = Some((k, g))`, statement `k` (the last) is `self.c.g()`
/// and splits into `g`'s parts.
struct Plan {
    head: usize,
    recurse: Option<(usize, MethodId)>,
}

fn plan(program: &Program, stmts: &[Stmt]) -> Plan {
    let head = stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Let { .. } | StmtKind::Alias { .. }) || leaves(s))
        .unwrap_or(stmts.len());
    let recurse = if head == stmts.len() {
        stmts.last().and_then(|s| match &s.kind {
            StmtKind::Call {
                receiver,
                method,
                args,
            } if args.is_empty()
                && receiver.root == PathRoot::SelfNode
                && matches!(receiver.steps.as_slice(), [PathStep::Child(f)]
                    if matches!(program.fields[f.index()].kind, FieldKind::Child(_))) =>
            {
                Some((stmts.len() - 1, *method))
            }
            _ => None,
        })
    } else {
        None
    };
    Plan { head, recurse }
}

/// Whether `s` may leave or replace the receiver: `return`, `self = ..`, a
/// thicket, or a call on `self` (which may replace it), anywhere inside.
fn leaves(s: &Stmt) -> bool {
    crate::visit::any_stmt(std::slice::from_ref(s), &|s| match &s.kind {
        StmtKind::Return(_) | StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. } => true,
        StmtKind::Call { receiver, .. } => on_self(receiver),
        _ => false,
    })
}

/// Per body: whether its tail is not empty (a fixpoint over recursive
/// splits: `self.c.g()` last has a tail where `g` has one on some
/// concrete type `c` may hold).
fn nonempty_tails(program: &Program, plans: &[Option<Plan>]) -> Vec<bool> {
    let mut tails: Vec<bool> = program
        .bodies
        .iter()
        .zip(plans)
        .map(|(b, p)| {
            p.as_ref()
                .is_some_and(|p| p.head < b.body.as_ref().map_or(0, Vec::len))
        })
        .collect();
    loop {
        let mut changed = false;
        for i in 0..program.bodies.len() {
            if tails[i]
                || !program.methods[program.bodies[i].method.index()]
                    .params
                    .is_empty()
            {
                continue;
            }
            let Some((k, g)) = plans[i].as_ref().and_then(|p| p.recurse) else {
                continue;
            };
            let Some(StmtKind::Call { receiver, .. }) = program.bodies[i]
                .body
                .as_ref()
                .and_then(|s| s.get(k))
                .map(|s| &s.kind)
            else {
                continue;
            };
            if program.methods[g.index()].params.is_empty()
                && program.types[receiver.ty.index()]
                    .concrete_subtypes
                    .iter()
                    .any(|&t| program.dispatch(t, g).is_some_and(|b| tails[b.index()]))
            {
                tails[i] = true;
                changed = true;
            }
        }
        if !changed {
            return tails;
        }
    }
}

/// Collects the methods of calls on `for` variables in `stmts`.
fn element_calls(stmts: &[Stmt], in_loop: bool, out: &mut BTreeSet<MethodId>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Call {
                receiver, method, ..
            } if in_loop
                && matches!(receiver.root, PathRoot::Var(_))
                && receiver.steps.is_empty() =>
            {
                out.insert(*method);
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                element_calls(then_branch, in_loop, out);
                element_calls(else_branch, in_loop, out);
            }
            StmtKind::ForChildren { body, .. } => element_calls(body, true, out),
            StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => element_calls(body, in_loop, out),
            _ => {}
        }
    }
}

fn set_method(s: &mut Stmt, to: MethodId) {
    if let StmtKind::Call { method, .. } = &mut s.kind {
        *method = to;
    }
}
