//! Which merged loops may run their iterations in parallel.
//!
//! A merged loop ([`LoopGroup`]) runs, for each element of a list child,
//! one iteration of every member loop. Run in parallel, the iterations on
//! different elements may interleave in any order, so the loop may run
//! that way only when every iteration commutes with every iteration on
//! another element — of its own loop and of every other member. The
//! analysis already splits each loop's accesses the way this needs
//! ([`treefuse_analysis::LoopAccess`]): what an iteration does through the
//! loop variable stays in the element's subtree, which the subtree of
//! another element never overlaps (the input is a tree); everything else
//! (`iteration`: the rest of the tree, globals, the frame) is what two
//! iterations could meet on. So the test, for every ordered pair of
//! members `x`, `y` (`x == y` included), is that `x`'s `iteration`
//! accesses do not conflict with anything `y`'s loop does (`set`: its
//! element accesses under the list, its header and its iteration), by the
//! fuser's own conflict test ([`ConflictTest`]), under which updates of a
//! commutative counter and writes of an idempotent flag commute: those
//! globals are *reduced*, each worker updating its own copy, combined at
//! the end.
//!
//! Frame variables that each iteration binds afresh (the loop variable,
//! and every variable declared in the body) are private to an iteration
//! and left out; any other frame variable an iteration writes is shared
//! and keeps the loop sequential (`n = n + c.size` in the body). A loop
//! whose calls may replace elements edits the list as it runs and stays
//! sequential too, and so does one whose body may `return` or replace
//! the receiver (`self = ..`): that ends the traversal, and the later
//! iterations never run. So does a loop whose iterations reach into the list's
//! other elements (`self.items[0]` in the body): generated code runs a
//! parallel loop's chunks of elements on views of their own subtrees and
//! of the nodes outside the list, and another chunk's elements are in
//! neither. Creating nodes is allowed: each worker grows the arenas in a
//! buffer of its own, appended in list order after the loop.

use crate::commute::ConflictTest;
use crate::ir::{IndependentCalls, LoopGroup, Parallelism, Participant, Step};
use std::collections::BTreeSet;
use treefuse_analysis::{AccessSet, Analysis, Conflict, FrameVar, LoopAccess};
use treefuse_sema::{visit, GlobalId, Program, Stmt, StmtKind, TypeId};

/// One member loop of a merged loop, as the analysis sees it.
struct MemberLoop<'s> {
    /// Its participant (index into the fused function's participants).
    pub participant: usize,
    /// The whole loop statement's accesses.
    pub set: &'s AccessSet,
    /// Its accesses split by the loop variable.
    pub per_element: &'s LoopAccess,
    /// The loop variable.
    pub var: treefuse_sema::NodeVarId,
    /// The loop body.
    pub body: &'s [Stmt],
    /// Whether a call in the body may replace the element.
    pub replaces: bool,
}

/// Whether the iterations of merged loop `group` of a fused function on
/// `ty` with `participants` may run in parallel (see the module docs), with
/// the reason in words when not.
pub(crate) fn group_parallelism(
    program: &Program,
    analysis: &Analysis<'_>,
    conflicts: &ConflictTest<'_, '_>,
    ty: TypeId,
    participants: &[Participant],
    group: &LoopGroup,
) -> Parallelism {
    match member_loops(program, analysis, ty, participants, group) {
        Some(members) => {
            // `return` and `self = ..` end the traversal: the elements
            // after the iteration that ends it are never visited, so an
            // iteration depends on every one before it.
            if let Some(m) = members.iter().position(|m| {
                visit::any_stmt(m.body, &|s| {
                    matches!(s.kind, StmtKind::Return(_) | StmtKind::ReplaceSelf { .. })
                })
            }) {
                return Parallelism::Sequential {
                    reason: format!(
                        "an iteration of loop p{}#{} may end the traversal (`return` or `self = ..`), and then no later element runs",
                        group.loops[m].0, group.loops[m].1
                    ),
                };
            }
            // A worker sees its own elements' subtrees and the nodes
            // outside the list, never another worker's elements.
            let below = treefuse_automata::Nfa::label(analysis.labels().field(group.field))
                .concat(&treefuse_automata::Nfa::any())
                .with_any_suffix();
            if let Some(m) = members.iter().position(|m| {
                let it = &m.per_element.iteration;
                treefuse_automata::intersection_witness(&it.reads, &below).is_some()
                    || treefuse_automata::intersection_witness(&it.writes, &below).is_some()
            }) {
                return Parallelism::Sequential {
                    reason: format!(
                        "an iteration of loop p{}#{} reaches into the list's elements besides its own (`self.{}[..]`), which a worker's view of its own elements cannot show",
                        group.loops[m].0,
                        group.loops[m].1,
                        program.fields[group.field.index()].name
                    ),
                };
            }
            loop_parallelism(
                program,
                analysis,
                conflicts,
                &members,
                |m| format!("loop p{}#{}", group.loops[m].0, group.loops[m].1),
                |c, p| crate::build::conflict_text(program, c, participants, p),
            )
        }
        None => Parallelism::Sequential {
            reason: "a member loop's accesses are not split by element".into(),
        },
    }
}

/// [`group_parallelism`] of `members`; `describe` names a member loop in
/// the reason and `conflict_text` a conflict in a participant's frame.
fn loop_parallelism(
    program: &Program,
    analysis: &Analysis<'_>,
    conflicts: &ConflictTest<'_, '_>,
    members: &[MemberLoop<'_>],
    describe: impl Fn(usize) -> String,
    conflict_text: impl Fn(&Conflict, usize) -> String,
) -> Parallelism {
    if let Some(m) = members.iter().position(|m| m.replaces) {
        return Parallelism::Sequential {
            reason: format!(
                "{} calls a traversal that may replace the element, which edits the list while the loop runs",
                describe(m)
            ),
        };
    }
    // Each member's accesses without the frame variables its iterations
    // bind afresh.
    let shared: Vec<(AccessSet, AccessSet)> = members
        .iter()
        .map(|m| {
            let private = private_frame_vars(m);
            (
                without_frame_vars(&m.per_element.iteration, &private),
                without_frame_vars(m.set, &private),
            )
        })
        .collect();
    // Globals found write-first in every member that touches them: their
    // conflicts are left out (each worker keeps its own copy).
    let mut private: Vec<GlobalId> = Vec::new();
    'retry: loop {
        for (x, (x_iteration, _)) in shared.iter().enumerate() {
            for (y, (_, y_set)) in shared.iter().enumerate() {
                let same = members[x].participant == members[y].participant;
                let Some(c) = conflicts.conflict_except(x_iteration, y_set, same, &private) else {
                    continue;
                };
                if let Some(g) = conflicts.conflict_global(&c) {
                    if !private.contains(&g)
                        && write_first_everywhere(program, analysis, members, &shared, g)
                    {
                        private.push(g);
                        continue 'retry;
                    }
                }
                let whose = if x == y {
                    format!("two iterations of {}", describe(x))
                } else {
                    format!("an iteration of {} and one of {}", describe(x), describe(y))
                };
                return Parallelism::Sequential {
                    reason: format!(
                        "{whose} on different elements do not commute ({})",
                        conflict_text(&c, members[x].participant)
                    ),
                };
            }
        }
        break;
    }
    private.sort();
    // The globals the iterations write: each commutes (no conflict was
    // found) or is private, so each worker updates its own copy.
    let iterations: Vec<&AccessSet> = shared.iter().map(|(iteration, _)| iteration).collect();
    let mut reduced = globals_written(program, analysis, &iterations);
    reduced.retain(|g| !private.contains(g));
    Parallelism::Parallel { reduced, private }
}

/// Whether every member whose iterations may touch `global` writes it
/// whole before reading it, on every path of an iteration
/// ([`crate::privatize::write_first`]).
fn write_first_everywhere(
    program: &Program,
    analysis: &Analysis<'_>,
    members: &[MemberLoop<'_>],
    shared: &[(AccessSet, AccessSet)],
    global: GlobalId,
) -> bool {
    let prefix = treefuse_automata::Nfa::label(analysis.labels().global(global)).with_any_suffix();
    members.iter().zip(shared).all(|(m, (iteration, _))| {
        let touches = treefuse_automata::intersection_witness(&iteration.global_reads, &prefix)
            .is_some()
            || treefuse_automata::intersection_witness(&iteration.global_writes, &prefix).is_some();
        !touches || crate::privatize::write_first(program, analysis, global, m.body)
    })
}

/// The frame variables each iteration of `m` binds afresh: its loop
/// variable and every variable its body declares.
fn private_frame_vars(m: &MemberLoop<'_>) -> BTreeSet<FrameVar> {
    let mut vars = BTreeSet::from([FrameVar::Node(m.var)]);
    visit::for_each_stmt(m.body, &mut |s| match &s.kind {
        StmtKind::Let { local, .. } => {
            vars.insert(FrameVar::Local(*local));
        }
        StmtKind::Alias { var, .. } | StmtKind::ForChildren { var, .. } => {
            vars.insert(FrameVar::Node(*var));
        }
        StmtKind::ForArray { var, .. } | StmtKind::ForRange { var, .. } => {
            vars.insert(FrameVar::Local(*var));
        }
        _ => {}
    });
    vars
}

fn without_frame_vars(set: &AccessSet, private: &BTreeSet<FrameVar>) -> AccessSet {
    let mut set = set.clone();
    set.frame_reads.retain(|v| !private.contains(v));
    set.frame_writes.retain(|v| !private.contains(v));
    set
}

/// The member loops of `group` in a fused function on `ty` with
/// `participants`; `None` for a loop the analysis did not split by
/// element.
fn member_loops<'s>(
    program: &'s Program,
    analysis: &'s Analysis<'_>,
    ty: TypeId,
    participants: &[Participant],
    group: &LoopGroup,
) -> Option<Vec<MemberLoop<'s>>> {
    let element_type = match program.fields[group.field.index()].kind {
        treefuse_sema::FieldKind::List(t) => t,
        _ => return None,
    };
    group
        .loops
        .iter()
        .map(|&(p, s)| {
            let participant = participants.get(p)?;
            let access = analysis.body_accesses(ty, participant.method)?.get(s)?;
            let stmt = program.bodies[participant.body.index()]
                .body
                .as_deref()?
                .get(s)?;
            let StmtKind::ForChildren { var, body, .. } = &stmt.kind else {
                return None;
            };
            Some(MemberLoop {
                participant: p,
                set: &access.set,
                per_element: access.per_element.as_deref()?,
                var: *var,
                body,
                replaces: body
                    .iter()
                    .filter_map(crate::build::element_call)
                    .any(|m| analysis.may_replace(element_type, m)),
            })
        })
        .collect()
}

/// The runs of consecutive fused calls on distinct children in `steps`
/// (two or more) and whether each may run in parallel: every pair of
/// calls from two different steps must commute (the fuser's conflict test
/// on the two call statements' accesses, guards included). A call's
/// accesses below its own child cannot meet another child's subtree; what
/// else they touch (the receiver's fields, globals) decides.
pub(crate) fn independent_calls(
    program: &Program,
    analysis: &Analysis<'_>,
    conflicts: &ConflictTest<'_, '_>,
    ty: TypeId,
    participants: &[Participant],
    steps: &[Step],
) -> Vec<IndependentCalls> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let field = match step {
            Step::Group(g) => Some(g.field),
            _ => None,
        };
        let distinct = field.is_some_and(|f| {
            run.iter()
                .all(|&j| !matches!(&steps[j], Step::Group(g) if g.field == f))
        });
        if !distinct {
            if run.len() >= 2 {
                runs.push(std::mem::take(&mut run));
            }
            run.clear();
        }
        if field.is_some() {
            run.push(i);
        }
    }
    if run.len() >= 2 {
        runs.push(run);
    }
    let set = |p: usize, s: usize| -> Option<&AccessSet> {
        let method = participants.get(p)?.method;
        Some(&analysis.body_accesses(ty, method)?.get(s)?.set)
    };
    let calls = |i: usize| -> &[(usize, usize)] {
        match &steps[i] {
            Step::Group(g) => &g.calls,
            _ => &[],
        }
    };
    let field_name = |i: usize| match &steps[i] {
        Step::Group(g) => program.fields[g.field.index()].name.as_str(),
        _ => "",
    };
    runs.into_iter()
        .map(|steps_of_run| {
            let mut order = None;
            'pairs: for (k, &i) in steps_of_run.iter().enumerate() {
                for &j in &steps_of_run[k + 1..] {
                    for &(pa, sa) in calls(i) {
                        for &(pb, sb) in calls(j) {
                            let (Some(a), Some(b)) = (set(pa, sa), set(pb, sb)) else {
                                order = Some("a call's accesses are unknown".to_string());
                                break 'pairs;
                            };
                            if let Some(c) = conflicts.conflict_of(a, b, pa == pb) {
                                order = Some(format!(
                                    "p{pa}#{sa} on `self.{}` and p{pb}#{sb} on `self.{}` do not commute ({})",
                                    field_name(i),
                                    field_name(j),
                                    crate::build::conflict_text(program, &c, participants, pa)
                                ));
                                break 'pairs;
                            }
                        }
                    }
                }
            }
            let parallel = match order {
                Some(reason) => Parallelism::Sequential { reason },
                None => {
                    let sets: Vec<&AccessSet> = steps_of_run
                        .iter()
                        .flat_map(|&i| calls(i))
                        .filter_map(|&(p, s)| set(p, s))
                        .collect();
                    Parallelism::Parallel {
                        reduced: globals_written(program, analysis, &sets),
                        private: Vec::new(),
                    }
                }
            };
            IndependentCalls {
                steps: steps_of_run,
                parallel,
            }
        })
        .collect()
}

/// The globals that some set of `sets` may write.
fn globals_written(
    program: &Program,
    analysis: &Analysis<'_>,
    sets: &[&AccessSet],
) -> Vec<GlobalId> {
    (0..program.globals.len())
        .map(|g| GlobalId(g as u32))
        .filter(|&g| {
            let prefix =
                treefuse_automata::Nfa::label(analysis.labels().global(g)).with_any_suffix();
            sets.iter().any(|set| {
                treefuse_automata::intersection_witness(&set.global_writes, &prefix).is_some()
            })
        })
        .collect()
}
