//! Checking what the fuser says against the analysis.
//!
//! Users read `treefuse fuse` to learn why calls stayed apart, so every
//! reason must name a dependence that really holds between the statements
//! it names. [`unconfirmed_explanations`] recomputes, for every fused
//! function, each dependence edge of its graph from the two statements'
//! access sets, and checks each dependence path quoted in a refusal
//! against those edges: a report that blamed the wrong pair of statements
//! (or a conflict on the wrong location) would show up here. The random
//! program tests of `treefuse-progen` run it on every generated program.

use crate::commute::ConflictTest;
use crate::ir::{FusedFunction, FusedProgram};
use treefuse_analysis::{AccessSet, Analysis};
use treefuse_sema::Program;

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
    }
    out
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
