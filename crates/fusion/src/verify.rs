//! Checking what the fuser says against the analysis.
//!
//! Users read `treefuse fuse` to learn why calls stayed apart, so every
//! reason must name a dependence that really holds between the statements
//! it names. [`unconfirmed_explanations`] recomputes, for every fused
//! function, each dependence edge of its graph from the two statements'
//! access sets, and checks each dependence path quoted in a refusal
//! against those edges: a report that blamed the wrong pair of statements
//! (or a conflict on the wrong location) would show up here. Refusals
//! about loops over one list, whose dependences are not edges of that
//! graph, are checked against the loops' per-element accesses and the
//! graph of the merged loop's body statements (`check_loop_refusals`),
//! and whether merged loops and fused calls on distinct children may run
//! in parallel is asked afresh.
//! The random program tests of `treefuse-progen` run it on every
//! generated program.

use crate::commute::ConflictTest;
use crate::ir::{Blocked, FusedFunction, FusedProgram, LoopGroup, Step};
use treefuse_analysis::{AccessSet, Analysis, Conflict, Location, StmtAccess};
use treefuse_sema::{Program, Stmt, StmtKind};
use treefuse_syntax::Span;

/// The explanations in `fused` (dependence-graph edges of fused functions
/// and the paths refusals quote) that the analysis does not confirm, each
/// described in a sentence; empty when all are confirmed.
///
/// An edge `u -> v` with a conflict as its reason is confirmed when the
/// conflict test of the fuser, run afresh on the access sets of the two
/// statements, finds a conflict of the same kind on the same location
/// (for frame variables: of the same kind). An edge that keeps a
/// participant's order around a `return` is confirmed when the two
/// statements belong to one participant and one of them may return; one
/// that orders later participants after a replacement is taken as
/// written. A path quoted in a refusal is confirmed when each of its steps
/// is an edge of the function's graph with the same reason.
pub fn unconfirmed_explanations(
    program: &Program,
    analysis: &Analysis<'_>,
    fused: &FusedProgram,
) -> Vec<String> {
    let conflicts = ConflictTest::new(program, analysis);
    let mut out = Vec::new();
    for (i, f) in fused.functions.iter().enumerate() {
        let set = |participant: usize, stmt: usize| -> Option<&AccessSet> {
            let method = f.participants.get(participant)?.method;
            analysis
                .body_accesses(f.ty, method)?
                .get(stmt)
                .map(|a| &a.set)
        };
        for (u, v, why) in &f.graph.edges {
            let (Some(&(pu, su, _)), Some(&(pv, sv, _))) =
                (f.graph.vertices.get(*u), f.graph.vertices.get(*v))
            else {
                out.push(format!("F{i}: edge {u} -> {v} names no vertex"));
                continue;
            };
            let (Some(a), Some(b)) = (set(pu, su), set(pv, sv)) else {
                out.push(format!("F{i}: p{pu}#{su} or p{pv}#{sv} has no access set"));
                continue;
            };
            if why.starts_with("control:") {
                if pu != pv || !(a.returns || b.returns) {
                    out.push(format!(
                        "F{i}: p{pu}#{su} -> p{pv}#{sv}: \"{why}\", but no statement of one participant returns"
                    ));
                }
                continue;
            }
            if why.contains("may replace the") {
                continue;
            }
            match conflicts.conflict(a, b, pu == pv) {
                None => out.push(format!(
                    "F{i}: p{pu}#{su} -> p{pv}#{sv}: \"{why}\", but the analysis finds no conflict"
                )),
                Some(c) => {
                    let confirmed = match c.location {
                        treefuse_analysis::Location::Frame(_) => {
                            why.starts_with(&format!("{} conflict on ", c.kind))
                        }
                        _ => *why == c.to_string(),
                    };
                    if !confirmed {
                        out.push(format!(
                            "F{i}: p{pu}#{su} -> p{pv}#{sv}: \"{why}\", but the analysis finds \"{c}\""
                        ));
                    }
                }
            }
        }
        for b in &f.blocked {
            check_quoted_path(i, f, &b.reason, &mut out);
        }
        check_loop_refusals(i, f, program, analysis, &conflicts, &mut out);
    }
    out
}

/// Checks the refusals about loops over one list, whose dependences are
/// not edges of the function's graph:
///
/// - two loops left apart because "an iteration of one loop does not
///   commute with an iteration of the other on another element (C)" (or,
///   inside the reason about loops of two merged groups, "loops P#S and
///   Q#T of them cannot interleave: ... (C)"): one of the tests of the
///   interleaving check, run afresh on the two loops' per-element access
///   sets, finds conflict C;
/// - two calls on the loop element kept apart because "statement N of the
///   loop body of pP depends on the earlier call and the later call
///   depends on it": in the graph of the merged loop's body statements
///   whose edges the analysis confirms (conflicts, the order a `return`
///   keeps, replaced elements before the loops that follow their
///   regions), the earlier call reaches statement N of a loop of `pP` and
///   that statement reaches the later call.
fn check_loop_refusals(
    i: usize,
    f: &FusedFunction,
    program: &Program,
    analysis: &Analysis<'_>,
    conflicts: &ConflictTest<'_, '_>,
    out: &mut Vec<String>,
) {
    let statement = |(p, s): (usize, usize)| -> Option<&StmtAccess> {
        let method = f.participants.get(p)?.method;
        analysis.body_accesses(f.ty, method)?.get(s)
    };
    // A conflict found afresh matches the quoted one as the dependence
    // edges do: frame variables by kind (the report names them), the rest
    // by the whole text.
    let matches = |c: &Conflict, quoted: &str| match c.location {
        Location::Frame(_) => quoted.starts_with(&format!("{} conflict on ", c.kind)),
        _ => quoted == c.to_string(),
    };
    for b in &f.blocked {
        if let Some((first, second, quoted)) = interleaving_claim(b) {
            let (Some(x), Some(y)) = (statement(first), statement(second)) else {
                out.push(format!("F{i}: a loop refusal names no loop: {}", b.reason));
                continue;
            };
            let (Some(px), Some(py)) = (x.per_element.as_deref(), y.per_element.as_deref()) else {
                out.push(format!(
                    "F{i}: a loop refusal names a statement that is not a loop: {}",
                    b.reason
                ));
                continue;
            };
            let same = first.0 == second.0;
            // Either way the later loop may walk the list: over the edited
            // list (`other`) or the regions of replaced elements
            // (`iteration`).
            let found = [&py.other, &py.iteration].iter().any(|y_other| {
                [
                    conflicts.conflict_of(&px.iteration, &y.set, same),
                    conflicts.conflict_of(&px.header, y_other, same),
                    conflicts.conflict_of(&x.set, y_other, same),
                ]
                .iter()
                .flatten()
                .any(|c| matches(c, quoted))
            });
            if !found {
                out.push(format!(
                    "F{i}: loops p{}#{} and p{}#{}: \"{quoted}\", but the analysis finds no such conflict between their iterations",
                    first.0, first.1, second.0, second.1
                ));
            }
        }
    }
    let again = crate::parallel::independent_calls(
        program,
        analysis,
        conflicts,
        f.ty,
        &f.participants,
        &f.steps,
    );
    if again != f.independent_calls {
        out.push(format!(
            "F{i}: the fused calls on distinct children say {:?}, but the analysis finds {again:?}",
            f.independent_calls
        ));
    }
    for step in &f.steps {
        if let Step::Loop(group) = step {
            check_element_refusals(i, f, group, program, analysis, conflicts, out);
            // Whether the loop may run in parallel, asked afresh.
            let again = crate::parallel::group_parallelism(
                program,
                analysis,
                conflicts,
                f.ty,
                &f.participants,
                group,
            );
            if again != group.parallel {
                out.push(format!(
                    "F{i}: the loop over field #{} says {:?}, but the analysis finds {again:?}",
                    group.field.index(),
                    group.parallel
                ));
            }
        }
    }
}

/// A statement of a fused function: (participant, statement index).
type StmtPosition = (usize, usize);

/// The two loops and the quoted conflict of an interleaving refusal, if
/// `b` is one.
fn interleaving_claim(b: &Blocked) -> Option<(StmtPosition, StmtPosition, &str)> {
    const MARK: &str = " on another element (";
    let start = b.reason.rfind(MARK)? + MARK.len();
    let quoted = b.reason.get(start..)?.strip_suffix(')')?;
    if b.reason
        .starts_with("an iteration of one loop does not commute")
    {
        return Some((b.first, b.second, quoted));
    }
    // "... loops P#S and Q#T of them cannot interleave: an iteration ..."
    let (head, _) = b.reason.split_once(" of them cannot interleave: ")?;
    let (x, y) = head.rsplit_once("loops ")?.1.split_once(" and ")?;
    let vertex = |s: &str| -> Option<(usize, usize)> {
        let (p, k) = s.strip_prefix('p')?.split_once('#')?;
        Some((p.parse().ok()?, k.parse().ok()?))
    };
    Some((vertex(x)?, vertex(y)?, quoted))
}

/// The element refusals of merged loop `group` that name an intermediate
/// statement (see [`check_loop_refusals`]).
fn check_element_refusals(
    i: usize,
    f: &FusedFunction,
    group: &LoopGroup,
    program: &Program,
    analysis: &Analysis<'_>,
    conflicts: &ConflictTest<'_, '_>,
    out: &mut Vec<String>,
) {
    // The body statements of the member loops in unfused order: (member,
    // index in the body, statement, accesses).
    let mut evs: Vec<(usize, usize, &Stmt, &StmtAccess)> = Vec::new();
    for (m, &(p, s)) in group.loops.iter().enumerate() {
        let Some(participant) = f.participants.get(p) else {
            continue;
        };
        let body = program.bodies[participant.body.index()].body.as_deref();
        let Some(StmtKind::ForChildren { body, .. }) = body.and_then(|b| b.get(s)).map(|s| &s.kind)
        else {
            continue;
        };
        let Some(sets) = analysis
            .body_accesses(f.ty, participant.method)
            .and_then(|a| a.get(s))
            .and_then(|a| a.blocks.first())
        else {
            continue;
        };
        for (j, (stmt, set)) in body.iter().zip(sets).enumerate() {
            evs.push((m, j, stmt, set));
        }
    }
    let element_type = match program.fields[group.field.index()].kind {
        treefuse_sema::FieldKind::List(t) => Some(t),
        _ => None,
    };
    let participant_of = |m: usize| group.loops[m].0;
    let n = evs.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for u in 0..n {
        let replaces = crate::build::element_call(evs[u].2)
            .zip(element_type)
            .is_some_and(|(c, t)| analysis.may_replace(t, c));
        for v in u + 1..n {
            let same = participant_of(evs[u].0) == participant_of(evs[v].0);
            let (a, b) = (&evs[u].3.set, &evs[v].3.set);
            if (same && (a.returns || b.returns))
                || (replaces && group.rebound.contains(&evs[v].0))
                || conflicts.conflict_of(a, b, same).is_some()
            {
                succ[u].push(v);
            }
        }
    }
    let reach = |from: usize| crate::build::reachable(&succ, from);
    const CLAIM: &str = " depends on the earlier call and the later call depends on it";
    for b in &f.blocked {
        let Some(rest) = b
            .reason
            .strip_prefix("calls on the loop element kept apart: ")
        else {
            continue;
        };
        let rest = rest
            .strip_prefix("(the head of a split call) ")
            .or_else(|| rest.strip_prefix("(the tail of a split call) "))
            .unwrap_or(rest);
        let Some(claim) = rest
            .strip_prefix("statement ")
            .and_then(|r| r.split_once(CLAIM))
        else {
            continue;
        };
        let event = |(p, s): (usize, usize), span: Span| {
            evs.iter()
                .position(|&(m, _, stmt, _)| group.loops[m] == (p, s) && stmt.span == span)
        };
        let (Some(x), Some(y)) = (event(b.first, b.first_span), event(b.second, b.second_span))
        else {
            // Not a refusal of this merged loop.
            continue;
        };
        let middle = (|| {
            let (number, participant) = claim.0.split_once(" of the loop body of p")?;
            Some((
                number.parse::<usize>().ok()?.checked_sub(1)?,
                participant.parse::<usize>().ok()?,
            ))
        })();
        let Some((j, p)) = middle else {
            out.push(format!(
                "F{i}: cannot read the element refusal \"{}\"",
                b.reason
            ));
            continue;
        };
        let from_x = reach(x);
        let confirmed = (0..n).any(|s| {
            let (m, k, _, _) = evs[s];
            k == j && participant_of(m) == p && s != x && s != y && from_x[s] && reach(s)[y]
        });
        if !confirmed {
            out.push(format!(
                "F{i}: \"{}\", but in the analysis the earlier call reaches no such statement that reaches the later call",
                b.reason
            ));
        }
    }
}

/// Checks the steps of a dependence path quoted in `reason` (`P#S -> Q#T
/// (why), then ...`) against the edges of `f`'s graph.
fn check_quoted_path(i: usize, f: &FusedFunction, reason: &str, out: &mut Vec<String>) {
    const PATH: &str = "a dependence path runs between them through other statements: ";
    let Some(start) = reason.find(PATH) else {
        return;
    };
    for step in reason[start + PATH.len()..].split(", then ") {
        let parsed = (|| {
            let (from, rest) = step.split_once(" -> ")?;
            // `(why)`, possibly followed by ` (where it applies)`.
            let (to, why) = rest.split_once(" (")?;
            let why = match why.split_once(") (") {
                Some((why, _)) => why,
                None => why.strip_suffix(')')?,
            };
            let vertex = |s: &str| -> Option<(usize, usize)> {
                let (p, k) = s.split_once('#')?;
                Some((p.parse().ok()?, k.parse().ok()?))
            };
            Some((vertex(from)?, vertex(to)?, why))
        })();
        let Some((from, to, why)) = parsed else {
            out.push(format!("F{i}: cannot read the path step \"{step}\""));
            continue;
        };
        let index = |(p, s): (usize, usize)| {
            f.graph
                .vertices
                .iter()
                .position(|&(vp, vs, _)| vp == p && vs == s)
        };
        // A path of an element graph (merged loops) names events of the
        // loop bodies, not top-level statements: checked by the loop
        // tests, not here.
        let (Some(u), Some(v)) = (index(from), index(to)) else {
            continue;
        };
        if !f
            .graph
            .edges
            .iter()
            .any(|(a, b, w)| *a == u && *b == v && w == why)
        {
            out.push(format!(
                "F{i}: the quoted step \"{step}\" is not an edge of the dependence graph"
            ));
        }
    }
}
