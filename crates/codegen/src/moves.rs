//! Last uses of locals: reads after which a local is dead, so the
//! generated code may move its value instead of cloning it.
//!
//! Strings, arrays, maps and records are values in the language; the
//! generated code clones them on every read of a local (`x.clone()`). A
//! read after which no path reads the local again before it is written
//! can hand over the value itself: an array or record is not copied, and
//! a map keeps a reference count of one, so a later `insert`/`remove` on
//! it updates it in place instead of copying the path it changes
//! (a `ValueMap` copies only what is shared). This is what a person writing
//! the Rust by hand does for `let e = env;`, `e = kill(e, id);` and
//! `return e;`.
//!
//! The analysis is a backward liveness pass over the structured body
//! (`if` branches joined, loop bodies iterated to a fixpoint). A read is
//! a last use only if it is the statement's only read of that local (the
//! statement's other reads would see a moved value) and the local is not
//! live after the statement. A local iterated in place by an enclosing
//! `for` (borrowed by the loop's iterator) is live throughout the loop
//! body, so it is never moved there.
//!
//! A fused function runs a participant's statements in an order of its
//! own, which keeps every conflict on the participant's frame (a write of
//! a local against its reads and writes) but may swap two statements that
//! only read a local. The code generator knows that order (the fused
//! function's steps), so [`last_uses_scheduled`] runs the liveness pass
//! over the participant's top-level statements in the order the steps run
//! them. Inside loops merged with other participants' loops the body's
//! statements interleave element by element, so there (and wherever the
//! steps do not name each statement once) the older rule holds
//! ([`last_uses_reordered`]): a read moves only if every other read of
//! the local sits in a statement that writes it, or the moving read does:
//! the moving statement is then ordered against every other reader as
//! written. Parameters that the fused function passes on to participants
//! it resumes are never moved. A `return` (or `self = ..`, or a splice)
//! in a fused participant does not leave the generated function: it
//! switches the participant off and jumps to the end of its top-level
//! statement, and the Rust compiler, which cannot see that the flags
//! guarding the participant's later statements are off, checks them as
//! reachable; so what is live after that statement, and in a loop at the
//! start of its body, stays live across the jump ([`Exit`]). For the
//! same reason a participant with an active flag runs each top-level
//! statement under `if active_k`, which rustc sees as possibly skipped: a
//! local assigned there is not dead before it ([`top_level`]). Every frame
//! may move a local into the value assigned to that same local
//! (`x = f(x, ..)`, see [`self_assign_read`]).
//!
//! A wrong answer here cannot change what a program computes: the Rust
//! compiler rejects a use of a moved value, so the price would be
//! generated code that does not compile (the lint batch builds hundreds of
//! generated programs to catch that).

use std::collections::{HashMap, HashSet};
use treefuse_sema::ops::Builtin;
use treefuse_sema::visit::{walk_expr, walk_path, walk_stmt_exprs};
use treefuse_sema::*;

/// The reads of whole locals (`ExprKind::Local` expressions, by address)
/// in `body` that may move the local's value.
pub(crate) fn last_uses(body: &[Stmt]) -> HashSet<*const Expr> {
    let mut out = HashSet::new();
    let mut live = HashSet::new();
    block(body, &mut live, &mut Some(&mut out), &Exit::Function);
    out
}

/// Where control goes after a `return`, a `self = ..` or a splice, for
/// liveness: what is live there is live after the statement.
enum Exit {
    /// Out of the generated function (unfused code): nothing is live.
    Function,
    /// To the end of the participant's top-level statement (fused code:
    /// the participant's flag goes off and a `break` leaves the statement's
    /// labeled block). The statements after it are still reachable for
    /// the Rust compiler, which cannot see that the flag guarding them is
    /// off, so a value they read must not move before the jump. The set is
    /// what is live after the top-level statement, and inside a loop also
    /// what is live at the start of its body (an element loop merged with
    /// other participants' loops goes on with the next element).
    Statement(HashSet<LocalId>),
}

/// [`last_uses`] for a participant's body in a fused function, the
/// top-level statements in the order written: a `return` leaves only the
/// statement it is in ([`Exit::Statement`]), and with `guarded` (the
/// participant has an active flag) each top-level statement may be skipped
/// ([`top_level`]).
fn last_uses_fused(body: &[Stmt], guarded: bool) -> HashSet<*const Expr> {
    let mut out = HashSet::new();
    let mut live = HashSet::new();
    for s in body.iter().rev() {
        top_level(s, &mut live, &mut out, guarded);
    }
    out
}

/// The backward step over one top-level statement of a fused participant.
/// A participant with an active flag (`guarded`) runs each top-level
/// statement under `if active_k { .. }`, and the Rust compiler checks the
/// path where the flag is off too: a local the statement assigns is not
/// dead before it for rustc, so what is live after the statement stays
/// live before it.
fn top_level(s: &Stmt, live: &mut HashSet<LocalId>, out: &mut HashSet<*const Expr>, guarded: bool) {
    let after = live.clone();
    stmt(s, live, &mut Some(out), &Exit::Statement(after.clone()));
    if guarded {
        live.extend(after);
    }
}

/// [`last_uses`] for a participant of a fused function, whose statements
/// may run in another order (see the module docs); `kept` are locals that
/// must not move.
pub(crate) fn last_uses_reordered(
    body: &[Stmt],
    kept: &HashSet<LocalId>,
    guarded: bool,
) -> HashSet<*const Expr> {
    let mut reads = Vec::new();
    reads_by_statement(body, &mut reads);
    let own_write: HashMap<*const Expr, bool> = reads.iter().map(|&(_, e, w)| (e, w)).collect();
    last_uses_fused(body, guarded)
        .into_iter()
        .filter(|e| {
            let Some(&(local, _, writes)) = reads.iter().find(|r| r.1 == *e) else {
                return false;
            };
            !kept.contains(&local)
                && (writes
                    || reads
                        .iter()
                        .filter(|r| r.0 == local && r.1 != *e)
                        .all(|r| own_write[&r.1]))
        })
        .collect()
}

/// [`last_uses`] for a participant of a fused function whose top-level
/// statements run in `order` (indices into `body`, each once), the order
/// the fused schedule emits them in: liveness then follows that order
/// instead of assuming any reordering. The bodies of loops in `merged`
/// (top-level indices) are interleaved with other loops' bodies element
/// by element, so reads inside them keep the rule of
/// [`last_uses_reordered`]; `kept` are locals that must not move. A
/// statement emitted at more than one place (a type-guarded call, made at
/// one fused call or another by the type of its receiver) counts where it
/// comes last, and its own reads never move. `guarded`: the participant
/// has an active flag, so each of its statements may be skipped (see
/// [`top_level`]). Falls back to [`last_uses_reordered`] when `order` does
/// not cover the body's statements.
pub(crate) fn last_uses_scheduled(
    body: &[Stmt],
    order: &[usize],
    merged: &HashSet<usize>,
    kept: &HashSet<LocalId>,
    guarded: bool,
) -> HashSet<*const Expr> {
    let mut seen = HashSet::new();
    let mut twice = HashSet::new();
    let mut order: Vec<usize> = order
        .iter()
        .rev()
        .copied()
        .filter(|&i| {
            if seen.insert(i) {
                return true;
            }
            twice.insert(i);
            false
        })
        .collect();
    order.reverse();
    let mut read_twice: HashSet<*const Expr> = HashSet::new();
    for &i in &twice {
        if let Some(s) = body.get(i) {
            let mut reads = Vec::new();
            reads_by_statement(std::slice::from_ref(s), &mut reads);
            read_twice.extend(reads.into_iter().map(|r| r.1));
        }
    }
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    if !sorted.iter().copied().eq(0..body.len()) {
        let mut out = last_uses_reordered(body, kept, guarded);
        out.retain(|e| !read_twice.contains(e));
        return out;
    }
    let conservative = last_uses_reordered(body, kept, guarded);
    let mut inside_merged: HashSet<*const Expr> = HashSet::new();
    for &i in merged {
        if let Some(s) = body.get(i) {
            let mut reads = Vec::new();
            reads_by_statement(std::slice::from_ref(s), &mut reads);
            inside_merged.extend(reads.into_iter().map(|r| r.1));
        }
    }
    let mut out = HashSet::new();
    let mut live = HashSet::new();
    for &i in order.iter().rev() {
        top_level(&body[i], &mut live, &mut out, guarded);
    }
    let mut reads = Vec::new();
    reads_by_statement(body, &mut reads);
    out.into_iter()
        .filter(|e| {
            let Some(&(local, _, _)) = reads.iter().find(|r| r.1 == *e) else {
                return false;
            };
            !kept.contains(&local)
                && !read_twice.contains(e)
                && (!inside_merged.contains(e) || conservative.contains(e))
        })
        .collect()
}

/// Every read of a local in `stmts`: the local, the read, and whether the
/// innermost statement around the read writes the local (anywhere in it,
/// for `if` and loops).
fn reads_by_statement(stmts: &[Stmt], out: &mut Vec<(LocalId, *const Expr, bool)>) {
    for s in stmts {
        let mut written = HashSet::new();
        writes(s, &mut written);
        let direct: Vec<&Expr> = match &s.kind {
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                reads_by_statement(then_branch, out);
                reads_by_statement(else_branch, out);
                vec![cond]
            }
            StmtKind::ForArray { array, body, .. } => {
                reads_by_statement(body, out);
                vec![array]
            }
            StmtKind::ForRange {
                start, end, body, ..
            } => {
                reads_by_statement(body, out);
                vec![start, end]
            }
            StmtKind::ForChildren { list, body, .. } => {
                reads_by_statement(body, out);
                let mut v = Vec::new();
                walk_path(&list.parent, &mut |e| v.push(e));
                v
            }
            StmtKind::While { cond, limit, body } => {
                reads_by_statement(body, out);
                vec![limit, cond]
            }
            _ => exprs_of(s),
        };
        for e in direct {
            walk_expr(e, &mut |x| {
                if let ExprKind::Local(l) = x.kind {
                    out.push((l, x as *const Expr, written.contains(&l)));
                }
            });
        }
    }
}

/// The locals `s` assigns or declares, nested statements included.
fn writes(s: &Stmt, out: &mut HashSet<LocalId>) {
    match &s.kind {
        StmtKind::Let { local, .. } => {
            out.insert(*local);
        }
        StmtKind::Assign { place, .. } => {
            if let PlaceRoot::Local(l) = place.root {
                out.insert(l);
            }
        }
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .iter()
            .chain(else_branch)
            .for_each(|s| writes(s, out)),
        StmtKind::ForArray { var, body, .. } | StmtKind::ForRange { var, body, .. } => {
            out.insert(*var);
            body.iter().for_each(|s| writes(s, out));
        }
        StmtKind::ForChildren { body, .. } | StmtKind::While { body, .. } => {
            body.iter().for_each(|s| writes(s, out))
        }
        _ => {}
    }
}

/// The one read of local `target` in `value`, if it reads it exactly
/// once: `target = value` may move the old value into that read, since
/// the assignment overwrites the local right after `value` is computed.
pub(crate) fn self_assign_read(target: LocalId, value: &Expr) -> Option<*const Expr> {
    let mut reads = Vec::new();
    walk_expr(value, &mut |e| {
        if matches!(e.kind, ExprKind::Local(l) if l == target) {
            reads.push(e as *const Expr);
        }
    });
    match reads.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

type Out<'a, 'b> = Option<&'a mut HashSet<*const Expr>>;

fn block(stmts: &[Stmt], live: &mut HashSet<LocalId>, out: &mut Out, exit: &Exit) {
    for s in stmts.iter().rev() {
        stmt(s, live, out, exit);
    }
}

/// The local whose value a `for` over `array` iterates in place, if any
/// (an array held in a local, or the keys or values of a map in one).
fn iterated_local(array: &Expr) -> Option<LocalId> {
    match &array.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Member(x, _) => iterated_local(x),
        ExprKind::Builtin(Builtin::MapKeys | Builtin::MapValues, args) => {
            args.first().and_then(iterated_local)
        }
        _ => None,
    }
}

/// A loop whose body runs zero or more times after its header: the live
/// set at the body's start is a fixpoint of the body's transfer over
/// "live after the loop, or at the start of the next iteration". `pinned`
/// stays live throughout the body; `bound` is rebound by every iteration.
fn looped(
    body: &[Stmt],
    live: &mut HashSet<LocalId>,
    out: &mut Out,
    pinned: Option<LocalId>,
    bound: Option<LocalId>,
    exit: &Exit,
) {
    let after = live.clone();
    // In fused code a `return` in the body may go on with the next
    // element (see [`Exit::Statement`]).
    let inner_exit = |entry: &HashSet<LocalId>| match exit {
        Exit::Function => Exit::Function,
        Exit::Statement(end) => {
            let mut l: HashSet<LocalId> = end.union(&after).chain(entry).copied().collect();
            l.extend(pinned);
            Exit::Statement(l)
        }
    };
    let mut entry: HashSet<LocalId> = HashSet::new();
    loop {
        let mut l: HashSet<LocalId> = after.union(&entry).copied().collect();
        l.extend(pinned);
        block(body, &mut l, &mut None, &inner_exit(&entry));
        if let Some(b) = bound {
            l.remove(&b);
        }
        if l.is_subset(&entry) {
            break;
        }
        entry.extend(l);
    }
    let mut l: HashSet<LocalId> = after.union(&entry).copied().collect();
    l.extend(pinned);
    block(body, &mut l, out, &inner_exit(&entry));
    live.extend(entry);
}

thread_local! {
    /// Per enclosing `while` being analysed, innermost last: what is live
    /// right after it, so live at a `break;` in its body.
    static BREAK_LIVE: std::cell::RefCell<Vec<HashSet<LocalId>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`looped`] for a `while` body: `pinned` (what the condition reads)
/// stays live throughout the body, no variable is rebound.
fn looped_while(
    body: &[Stmt],
    live: &mut HashSet<LocalId>,
    out: &mut Out,
    pinned: &HashSet<LocalId>,
    exit: &Exit,
) {
    let after = live.clone();
    let inner_exit = |entry: &HashSet<LocalId>| match exit {
        Exit::Function => Exit::Function,
        Exit::Statement(end) => {
            let mut l: HashSet<LocalId> = end.union(&after).chain(entry).copied().collect();
            l.extend(pinned);
            Exit::Statement(l)
        }
    };
    let mut entry: HashSet<LocalId> = HashSet::new();
    loop {
        let mut l: HashSet<LocalId> = after.union(&entry).copied().collect();
        l.extend(pinned);
        block(body, &mut l, &mut None, &inner_exit(&entry));
        if l.is_subset(&entry) {
            break;
        }
        entry.extend(l);
    }
    let mut l: HashSet<LocalId> = after.union(&entry).copied().collect();
    l.extend(pinned);
    block(body, &mut l, out, &inner_exit(&entry));
    live.extend(entry);
}

fn stmt(s: &Stmt, live: &mut HashSet<LocalId>, out: &mut Out, exit: &Exit) {
    match &s.kind {
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            let mut other = live.clone();
            block(then_branch, live, out, exit);
            block(else_branch, &mut other, out, exit);
            live.extend(other);
            uses(&[cond], live, out);
        }
        StmtKind::ForArray { var, array, body } => {
            let pinned = iterated_local(array);
            looped(body, live, out, pinned, Some(*var), exit);
            // A map's keys or values are iterated from the map itself:
            // it must stay where it is while the loop runs.
            if matches!(
                array.kind,
                ExprKind::Builtin(Builtin::MapKeys | Builtin::MapValues, _)
            ) {
                live.extend(pinned);
            }
            uses(&[array], live, out);
        }
        StmtKind::ForRange {
            var,
            start,
            end,
            body,
        } => {
            looped(body, live, out, None, Some(*var), exit);
            uses(&[start, end], live, out);
        }
        StmtKind::ForChildren { list, body, .. } => {
            looped(body, live, out, None, None, exit);
            let mut reads = Vec::new();
            walk_path(&list.parent, &mut |e| reads.push(e));
            uses(&reads, live, out);
        }
        // `while c limit n { .. }`: `n` once, then `c` before each
        // iteration. What `c` reads stays live throughout the body (it is
        // read again after it) and is never moved; a `break` in the body
        // goes on after the loop, where `live` (as it is now) holds.
        StmtKind::While { cond, limit, body } => {
            let mut cond_reads = HashSet::new();
            uses(&[cond], &mut cond_reads, &mut None);
            BREAK_LIVE.with(|b| b.borrow_mut().push(live.clone()));
            looped_while(body, live, out, &cond_reads, exit);
            BREAK_LIVE.with(|b| b.borrow_mut().pop());
            live.extend(cond_reads);
            uses(&[limit], live, out);
        }
        StmtKind::Break => {
            if let Some(after) = BREAK_LIVE.with(|b| b.borrow().last().cloned()) {
                live.clone_from(&after);
            }
        }
        StmtKind::Return(_) | StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. } => {
            match exit {
                Exit::Function => live.clear(),
                Exit::Statement(after) => live.clone_from(after),
            }
            uses(&exprs_of(s), live, out);
        }
        StmtKind::Let { local, .. } => {
            live.remove(local);
            uses(&exprs_of(s), live, out);
        }
        StmtKind::Assign { place, .. } => {
            if let PlaceRoot::Local(l) = place.root {
                if place.projections.is_empty() {
                    live.remove(&l);
                } else {
                    // Updated in place: read as well as written.
                    live.insert(l);
                }
            }
            uses(&exprs_of(s), live, out);
        }
        _ => uses(&exprs_of(s), live, out),
    }
}

/// The top-level expressions a simple statement evaluates (with the index
/// expressions of a call's receiver, which `walk_stmt_exprs` leaves out).
fn exprs_of(s: &Stmt) -> Vec<&Expr> {
    let mut all = Vec::new();
    walk_stmt_exprs(std::slice::from_ref(s), &mut |e| all.push(e));
    if let StmtKind::Call { receiver, .. } = &s.kind {
        walk_path(receiver, &mut |e| all.push(e));
    }
    all
}

/// Records the reads among `exprs` (and their sub-expressions, which may
/// repeat in `exprs`: counted once by address) that are last uses, given
/// the set live after them, and adds every local they read to it.
fn uses(exprs: &[&Expr], live: &mut HashSet<LocalId>, out: &mut Out) {
    let mut seen: HashSet<*const Expr> = HashSet::new();
    let mut reads: Vec<(LocalId, *const Expr)> = Vec::new();
    for e in exprs {
        walk_expr(e, &mut |x| {
            if let ExprKind::Local(l) = x.kind {
                if seen.insert(x as *const Expr) {
                    reads.push((l, x as *const Expr));
                }
            }
        });
    }
    let mut count: HashMap<LocalId, usize> = HashMap::new();
    for (l, _) in &reads {
        *count.entry(*l).or_default() += 1;
    }
    if let Some(out) = out {
        for (l, e) in &reads {
            if count[l] == 1 && !live.contains(l) {
                out.insert(*e);
            }
        }
    }
    live.extend(reads.iter().map(|(l, _)| *l));
}
