//! Human- and machine-readable reports of a fused program: which fused
//! functions exist, what each `fuse` item's calls became, and why calls on
//! the same child were not merged. Also the dependence graphs as DOT.
//!
//! The text ([`text_report`]) and JSON ([`json_report`]) reports explain
//! every pair of calls left apart (calls on a child, loops over a list,
//! calls on the element inside a merged loop) with its dependence path.
//! [`call_sites`] lists, per fused function, the places that call it with
//! the pairs kept apart there; `treefuse run --profile` prints it for the
//! costliest functions. What the reports say is checked against the
//! analysis by [`crate::unconfirmed_explanations`].

use crate::ir::*;
use treefuse_sema::{FieldId, GlobalId, Program, StmtKind, TypeId};
use treefuse_syntax::{AsSourceMap, SourceMap, Span};

struct Source<'s> {
    map: std::borrow::Cow<'s, SourceMap>,
}

impl<'s> Source<'s> {
    fn new(source: &'s (impl AsSourceMap + ?Sized)) -> Source<'s> {
        Source {
            map: source.as_source_map(),
        }
    }

    /// `line:col`, with the file in front in a program of several files.
    fn at(&self, span: Span) -> String {
        self.map.position(span)
    }

    fn snippet(&self, span: Span) -> String {
        let s = self
            .map
            .text()
            .get(span.range())
            .unwrap_or("")
            .trim_end_matches(';');
        let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() > 60 {
            format!("{}…", one_line.chars().take(59).collect::<String>())
        } else {
            one_line
        }
    }
}

/// A fused function as the reports name it: its type and its participants'
/// traversals in order, `StmtListInner[desugar_inc, fold_constants]`.
pub fn function_name(program: &Program, f: &FusedFunction) -> String {
    let names: Vec<&str> = f
        .participants
        .iter()
        .map(|p| program.methods[p.method.index()].name.as_str())
        .collect();
    format!("{}[{}]", program.type_name(f.ty), names.join(", "))
}

fn stmt_span(program: &Program, f: &FusedFunction, participant: usize, stmt: usize) -> Span {
    program.bodies[f.participants[participant].body.index()]
        .body
        .as_ref()
        .and_then(|b| b.get(stmt))
        .map_or(Span::default(), |s| s.span)
}

/// Source of statement `index` of the body of the `while` loop `w`.
fn while_body_span(program: &Program, f: &FusedFunction, w: &WhileGroup, index: usize) -> Span {
    program.bodies[f.participants[w.participant].body.index()]
        .body
        .as_ref()
        .and_then(|b| match &b.get(w.stmt)?.kind {
            StmtKind::While { body, .. } => body.get(index),
            _ => None,
        })
        .map_or(Span::default(), |s| s.span)
}

/// A fused call in a `while` iteration: the child field, the calls'
/// sources and the targets.
type WhileCall<'w> = (FieldId, Vec<Span>, &'w [(TypeId, FusedFnId)]);

/// The fused calls of one iteration of `w`.
fn while_calls<'w>(program: &Program, f: &FusedFunction, w: &'w WhileGroup) -> Vec<WhileCall<'w>> {
    w.steps
        .iter()
        .filter_map(|ws| match ws {
            WhileStep::Call {
                field,
                calls,
                targets,
            } => Some((
                *field,
                calls
                    .iter()
                    .map(|&i| while_body_span(program, f, w, i))
                    .collect(),
                targets.as_slice(),
            )),
            WhileStep::Stmt(_) => None,
        })
        .collect()
}

/// Which part of a split traversal (`Program::splits`) call `k` of a call
/// step with `targets` runs: the callees' participants are the step's calls
/// in order, so the first callee's `k`-th participant says (every callee
/// runs the same part).
fn split_part(
    program: &Program,
    fused: &FusedProgram,
    targets: &[(TypeId, FusedFnId)],
    k: usize,
) -> Option<&'static str> {
    let &(_, callee) = targets.first()?;
    let method = fused
        .functions
        .get(callee.index())?
        .participants
        .get(k)?
        .method;
    program.splits.iter().find_map(|s| {
        if s.head == method {
            Some("head")
        } else if s.tail == method {
            Some("tail")
        } else {
            None
        }
    })
}

/// One type-guarded call of a merged loop's element (see [`type_guards`]).
struct GuardedCall<'f> {
    /// Index of the fused call among the loop's calls.
    step: usize,
    /// Source of the call.
    span: Span,
    /// `Some("head")` / `Some("tail")` when the call runs only that part of
    /// a split traversal.
    part: Option<&'static str>,
    guard: &'f TypeGuard,
}

impl GuardedCall<'_> {
    /// What the call runs, for the reports: "`s.fold()`" or "the tail of
    /// `s.fold()`".
    fn what(&self, src: &Source) -> String {
        match self.part {
            Some(part) => format!("the {part} of `{}`", src.snippet(self.span)),
            None => format!("`{}`", src.snippet(self.span)),
        }
    }
}

/// The type-guarded calls of merged loop `l` of `f`.
fn type_guards<'f>(
    program: &Program,
    fused: &FusedProgram,
    f: &FusedFunction,
    l: &'f LoopGroup,
) -> Vec<GuardedCall<'f>> {
    let mut out = Vec::new();
    let calls = l.steps.iter().filter_map(|s| match s {
        LoopStep::Call {
            calls,
            guards,
            targets,
        } => Some((calls, guards, targets)),
        LoopStep::Stmt { .. } => None,
    });
    for (c, (calls, guards, targets)) in calls.enumerate() {
        for (k, (&(member, stmt), guard)) in calls.iter().zip(guards).enumerate() {
            let Some(guard) = guard else { continue };
            out.push(GuardedCall {
                step: c,
                span: loop_body_span(program, f, l, member, stmt),
                part: split_part(program, fused, targets, k),
                guard,
            });
        }
    }
    out
}

/// The source of statement `stmt` of the body of member loop `member` of
/// merged loop `l` of `f`.
fn loop_body_span(
    program: &Program,
    f: &FusedFunction,
    l: &LoopGroup,
    member: usize,
    stmt: usize,
) -> Span {
    l.loops
        .get(member)
        .and_then(|&(p, s)| {
            program.bodies[f.participants.get(p)?.body.index()]
                .body
                .as_ref()?
                .get(s)
        })
        .and_then(|s| match &s.kind {
            treefuse_sema::StmtKind::ForChildren { body, .. } => body.get(stmt),
            _ => None,
        })
        .map_or(Span::default(), |s| s.span)
}

/// The statements of a fused `fuse` item, one per line, indented by
/// nesting; each chunk after a split says why it is separate. `source`:
/// the `fuse` item's statements that `stmts` stands for.
#[allow(clippy::too_many_arguments)]
fn entry_text(
    program: &Program,
    fuse: &treefuse_sema::Fuse,
    entry: &FusedEntry,
    stmts: &[EntryStmt],
    source: &[treefuse_sema::FuseStmt],
    src: &Source,
    depth: usize,
    out: &mut String,
) {
    let pad = "  ".repeat(depth);
    for st in stmts {
        match st {
            EntryStmt::Chunk(i) => {
                let chunk = &entry.chunks[*i];
                let names: Vec<&str> = chunk
                    .calls
                    .iter()
                    .map(|&c| program.methods[fuse.calls[c].method.index()].name.as_str())
                    .collect();
                let fns: Vec<String> = chunk
                    .targets
                    .iter()
                    .map(|(_, f)| format!("F{}", f.0))
                    .collect();
                if let Some(why) = &chunk.split {
                    out.push_str(&format!(
                        "{pad}not merged with the call before: {} `{}`: {why}\n",
                        src.at(fuse.calls[chunk.calls[0]].span),
                        src.snippet(fuse.calls[chunk.calls[0]].span),
                    ));
                }
                out.push_str(&format!(
                    "{pad}fused call {} on the root runs {} as {}\n",
                    i + 1,
                    names.join(", "),
                    fns.join(" | ")
                ));
            }
            EntryStmt::SetGlobal { span, .. } => {
                out.push_str(&format!("{pad}{}  {}\n", src.at(*span), src.snippet(*span)));
            }
            EntryStmt::While { body, span, .. } => {
                let FuseLevel::While {
                    limit,
                    source: inner,
                    ..
                } = st.level(source)
                else {
                    continue;
                };
                let head = src.snippet(*span);
                let head = head.split('{').next().unwrap_or("").trim();
                let limit = match &limit.kind {
                    treefuse_sema::ExprKind::Const(treefuse_sema::Value::Int(n)) => n.to_string(),
                    _ => format!("`{}`, evaluated once,", src.snippet(limit.span)),
                };
                out.push_str(&format!(
                    "{pad}{}  {head} (at most {limit} iterations; the calls of one iteration are fused):\n",
                    src.at(*span)
                ));
                entry_text(program, fuse, entry, body, inner, src, depth + 1, out);
            }
            EntryStmt::Break { span } => {
                out.push_str(&format!(
                    "{pad}{}  break; (ends the loop; the calls before it in the iteration are fused)\n",
                    src.at(*span)
                ));
            }
        }
    }
}

/// `p3 walk`, one per participant's statement, with runs of three or more
/// consecutive participants showing the same statement written once:
/// `p0–p19 walk` (a walk fusing twenty passes would otherwise be listed
/// twenty times).
fn participant_runs(stmts: impl Iterator<Item = (usize, String)>) -> Vec<String> {
    let stmts: Vec<(usize, String)> = stmts.collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < stmts.len() {
        let (first, text) = &stmts[i];
        let mut j = i + 1;
        while j < stmts.len() && stmts[j].1 == *text && stmts[j].0 == stmts[j - 1].0 + 1 {
            j += 1;
        }
        if j - i >= 3 {
            out.push(format!("p{first}–p{} {text}", stmts[j - 1].0));
        } else {
            out.extend(stmts[i..j].iter().map(|(p, t)| format!("p{p} {t}")));
        }
        i = j;
    }
    out
}

/// `report` with every line longer than `width` characters broken before
/// it, at a separator of its lists (`; `, `, `) or else at a space, the
/// continuation lines indented four columns deeper than the line. A word
/// longer than the width stays whole. `width` 0 leaves the report as is.
pub fn wrap_report(report: &str, width: usize) -> String {
    if width == 0 {
        return report.to_string();
    }
    let mut out = String::with_capacity(report.len() + report.len() / 16);
    for line in report.lines() {
        let chars: Vec<char> = line.chars().collect();
        if chars.len() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = chars.iter().take_while(|c| **c == ' ').count() + 4;
        let pad: String = " ".repeat(indent);
        let mut rest: &[char] = &chars;
        let mut first = true;
        loop {
            let room = if first {
                width
            } else {
                width.saturating_sub(indent).max(20)
            };
            if rest.len() <= room {
                if !first {
                    out.push_str(&pad);
                }
                out.extend(rest.iter());
                out.push('\n');
                break;
            }
            // The last list separator within the room, else the last space.
            let window = &rest[..=room];
            let cut = (1..window.len())
                .rev()
                .find(|&k| window[k] == ' ' && matches!(window[k - 1], ';' | ','))
                .or_else(|| (1..window.len()).rev().find(|&k| window[k] == ' '))
                .or_else(|| rest.iter().position(|&c| c == ' ').filter(|&k| k > 0));
            let Some(cut) = cut else {
                if !first {
                    out.push_str(&pad);
                }
                out.extend(rest.iter());
                out.push('\n');
                break;
            };
            if !first {
                out.push_str(&pad);
            }
            out.extend(rest[..cut].iter());
            out.push('\n');
            rest = &rest[cut + 1..];
            first = false;
        }
    }
    out
}

/// A text report.
pub fn text_report(
    program: &Program,
    fused: &FusedProgram,
    source: &(impl AsSourceMap + ?Sized),
) -> String {
    let src = Source::new(source);
    let mut out = String::new();
    let mut splits_total = 0;
    for e in &fused.entries {
        out.push_str(&format!("fuse {}:\n", e.fuse));
        let Some(fuse) = program.fuse_named(&e.fuse) else {
            continue;
        };
        splits_total += e.chunks.iter().filter(|c| c.split.is_some()).count();
        entry_text(program, fuse, e, &e.body, &fuse.body, &src, 1, &mut out);
    }
    let blocked_total: usize = fused.functions.iter().map(|f| f.blocked.len()).sum();
    out.push_str(&format!(
        "\n{} fused functions, {} call pairs left unmerged ({} inside fused functions, {} between calls on the root)\n",
        fused.functions.len(),
        blocked_total + splits_total,
        blocked_total,
        splits_total
    ));
    for (i, f) in fused.functions.iter().enumerate() {
        out.push_str(&format!("\nF{i}: {}\n", function_name(program, f)));
        for (k, step) in f.steps.iter().enumerate() {
            match step {
                Step::Stmt { participant, stmt } => {
                    let span = stmt_span(program, f, *participant, *stmt);
                    out.push_str(&format!(
                        "  p{participant}  {:<8} {}\n",
                        src.at(span),
                        src.snippet(span)
                    ));
                }
                Step::Loop(l) => {
                    let loops = participant_runs(
                        l.loops
                            .iter()
                            .map(|(p, s)| (*p, src.snippet(stmt_span(program, f, *p, *s)))),
                    );
                    let calls: usize = l
                        .steps
                        .iter()
                        .filter(|s| matches!(s, LoopStep::Call { .. }))
                        .count();
                    out.push_str(&format!(
                        "  fused loop over `{}` ({} fused call(s) per element): {}\n",
                        program.fields[l.field.index()].name,
                        calls,
                        loops.join("; ")
                    ));
                    out.push_str(&format!(
                        "    iterations: {}\n",
                        parallelism_text(program, l)
                    ));
                    for (p, s) in rebound_loops(l) {
                        out.push_str(&format!(
                            "    rebound: p{p} {} sees, at each step, the node now standing where the element stood (every call on the element leaves one node in its place)\n",
                            src.snippet(stmt_span(program, f, p, s))
                        ));
                    }
                    for g in type_guards(program, fused, f, l) {
                        out.push_str(&format!(
                            "    type guard: fused call {} on the element runs {} {} only where the element is {}: {}\n",
                            g.step + 1,
                            src.at(g.span),
                            g.what(&src),
                            type_names(program, &g.guard.types),
                            g.guard.reason
                        ));
                    }
                }
                Step::While(w) => {
                    let span = stmt_span(program, f, w.participant, w.stmt);
                    out.push_str(&format!(
                        "  p{}  {:<8} {}\n",
                        w.participant,
                        src.at(span),
                        src.snippet(span)
                    ));
                    for (field, spans, targets) in while_calls(program, f, w) {
                        let calls: Vec<String> = spans.iter().map(|s| src.snippet(*s)).collect();
                        let targets: Vec<String> = targets
                            .iter()
                            .map(|(t, id)| format!("{}→F{}", program.type_name(*t), id.0))
                            .collect();
                        out.push_str(&format!(
                            "    fused call on `{}` in each iteration: {}  [{}]\n",
                            program.fields[field.index()].name,
                            calls.join("; "),
                            targets.join(", ")
                        ));
                    }
                }
                Step::Group(g) => {
                    let calls = participant_runs(
                        g.calls
                            .iter()
                            .map(|(p, s)| (*p, src.snippet(stmt_span(program, f, *p, *s)))),
                    );
                    let targets: Vec<String> = g
                        .targets
                        .iter()
                        .map(|(t, id)| format!("{}→F{}", program.type_name(*t), id.0))
                        .collect();
                    out.push_str(&format!(
                        "  fused call on `{}`: {}  [{}]\n",
                        program.fields[g.field.index()].name,
                        calls.join("; "),
                        targets.join(", ")
                    ));
                    for ((p, s), guard) in g.calls.iter().zip(&g.guards) {
                        let Some(guard) = guard else { continue };
                        let span = stmt_span(program, f, *p, *s);
                        out.push_str(&format!(
                            "    type guard: runs {} `{}` here only where `self.{}` is {} as the function starts: {}\n",
                            src.at(span),
                            src.snippet(span),
                            program.fields[g.field.index()].name,
                            type_names(program, &guard.types),
                            guard.reason
                        ));
                    }
                }
            }
            if let Some(run) = f
                .independent_calls
                .iter()
                .find(|r| r.steps.last() == Some(&k))
            {
                out.push_str(&format!(
                    "  fused calls on {}: {}\n",
                    independent_fields(program, f, run),
                    parallelism_words(program, &run.parallel)
                ));
            }
        }
        for r in &f.resume {
            let later: Vec<&str> = f.participants[r.participant + 1..]
                .iter()
                .map(|p| program.methods[p.method.index()].name.as_str())
                .collect();
            let targets: Vec<String> = r
                .targets
                .iter()
                .map(|(t, id)| format!("{}→F{}", program.type_name(*t), id.0))
                .collect();
            out.push_str(&format!(
                "  if p{} replaces the node: {} resume on the replacement  [{}]\n",
                r.participant,
                later.join(", "),
                targets.join(", ")
            ));
        }
        for c in &f.split {
            out.push_str(&format!(
                "  split call: {} `{}` runs as head and tail{}, its head joining {} `{}`: {}\n",
                src.at(c.span),
                src.snippet(c.span),
                split_types(program, &c.types),
                src.at(c.joined_span),
                src.snippet(c.joined_span),
                c.reason
            ));
        }
        for b in &f.blocked {
            out.push_str(&format!("  {}\n", not_merged(&src, b)));
        }
    }
    out
}

/// A pair of calls left apart, as the text report words it.
fn not_merged(src: &Source, b: &Blocked) -> String {
    format!("not merged: {}: {}", pair_of_calls(src, b), b.reason)
}

/// The two calls of a pair left apart, "311:9 `a.f()` and 284:9 `a.g()`".
fn pair_of_calls(src: &Source, b: &Blocked) -> String {
    format!(
        "{} `{}` and {} `{}`",
        src.at(b.first_span),
        src.snippet(b.first_span),
        src.at(b.second_span),
        src.snippet(b.second_span),
    )
}

/// Two calls at a [`CallSite`] that stayed apart, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptApart {
    /// The calls, with their positions: "228:9 `self.next.f()` and 168:9
    /// `self.next.g(x)`", or for a call on the root, the call that did not
    /// merge with the one before it.
    pub calls: String,
    /// Why, as the text report words it.
    pub reason: String,
}

/// One place that calls a fused function, and what kept the calls made
/// there from merging with others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// Where: "F106 on `next`", "F7 on the elements of `items`", "F9 on
    /// the replacement" or "fused call 2 on the root of `optimize`".
    pub site: String,
    /// The pairs of calls left apart there with one of the site's calls on
    /// one side. Empty when the site merged every call it could: the
    /// function is then a walk of its own because its caller is.
    pub kept_apart: Vec<KeptApart>,
}

/// Every place that calls fused function `g` (fused calls on a child or
/// a merged loop's element, resumptions after a replacement, the calls of
/// `fuse` items on the root), in function order, with why the calls made
/// there stayed apart from others on the same node: the answer to "why is
/// this a walk of its own?" for a fused function a profile shows to be
/// expensive (`treefuse run --profile`).
pub fn call_sites(
    program: &Program,
    fused: &FusedProgram,
    source: &(impl AsSourceMap + ?Sized),
    g: FusedFnId,
) -> Vec<CallSite> {
    let src = Source::new(source);
    let calls_g = |targets: &[(TypeId, FusedFnId)]| targets.iter().any(|&(_, f)| f == g);
    let mut out = Vec::new();
    for e in &fused.entries {
        let Some(fuse) = program.fuse_named(&e.fuse) else {
            continue;
        };
        for (i, chunk) in e.chunks.iter().enumerate() {
            if !calls_g(&chunk.targets) {
                continue;
            }
            let kept_apart = match (&chunk.split, chunk.calls.first()) {
                (Some(why), Some(&c)) => vec![KeptApart {
                    calls: format!(
                        "{} `{}` and the call before it",
                        src.at(fuse.calls[c].span),
                        src.snippet(fuse.calls[c].span)
                    ),
                    reason: why.to_string(),
                }],
                _ => Vec::new(),
            };
            out.push(CallSite {
                site: format!("fused call {} on the root of `{}`", i + 1, e.fuse),
                kept_apart,
            });
        }
    }
    for (i, f) in fused.functions.iter().enumerate() {
        // The spans of the calls a site makes pick out its pairs in
        // `f.blocked`, for group and loop steps alike.
        let site = |site: String, spans: &[Span]| CallSite {
            site,
            kept_apart: f
                .blocked
                .iter()
                .filter(|b| spans.contains(&b.first_span) || spans.contains(&b.second_span))
                .map(|b| KeptApart {
                    calls: pair_of_calls(&src, b),
                    reason: b.reason.clone(),
                })
                .collect(),
        };
        for step in &f.steps {
            match step {
                Step::Group(cg) if calls_g(&cg.targets) => {
                    let spans: Vec<Span> = cg
                        .calls
                        .iter()
                        .map(|&(p, s)| stmt_span(program, f, p, s))
                        .collect();
                    let field = &program.fields[cg.field.index()].name;
                    out.push(site(format!("F{i} on `{field}`"), &spans));
                }
                Step::Loop(l) => {
                    for ls in &l.steps {
                        let LoopStep::Call { calls, targets, .. } = ls else {
                            continue;
                        };
                        if !calls_g(targets) {
                            continue;
                        }
                        let spans: Vec<Span> = calls
                            .iter()
                            .map(|&(member, stmt)| loop_body_span(program, f, l, member, stmt))
                            .collect();
                        let field = &program.fields[l.field.index()].name;
                        out.push(site(format!("F{i} on the elements of `{field}`"), &spans));
                    }
                }
                Step::While(w) => {
                    for (field, spans, targets) in while_calls(program, f, w) {
                        if !calls_g(targets) {
                            continue;
                        }
                        let field = &program.fields[field.index()].name;
                        out.push(site(format!("F{i} on `{field}` in a `while` loop"), &spans));
                    }
                }
                Step::Group(_) | Step::Stmt { .. } => {}
            }
        }
        if f.resume.iter().any(|r| calls_g(&r.targets)) {
            out.push(CallSite {
                site: format!("F{i} on the replacement"),
                kept_apart: Vec::new(),
            });
        }
    }
    out
}

/// A JSON report with the same content as [`text_report`].
pub fn json_report(
    program: &Program,
    fused: &FusedProgram,
    source: &(impl AsSourceMap + ?Sized),
) -> serde_json::Value {
    let src = Source::new(source);
    let functions: Vec<serde_json::Value> = fused
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let steps: Vec<serde_json::Value> = f
                .steps
                .iter()
                .map(|s| match s {
                    Step::Stmt { participant, stmt } => {
                        let span = stmt_span(program, f, *participant, *stmt);
                        serde_json::json!({"stmt": {"participant": participant, "index": stmt, "at": src.at(span), "code": src.snippet(span)}})
                    }
                    Step::Loop(l) => serde_json::json!({"loop": {
                        "field": program.fields[l.field.index()].name,
                        "loops": l.loops.iter().map(|(p, s)| serde_json::json!({"participant": p, "index": s})).collect::<Vec<_>>(),
                        "rebound": l.rebound,
                        "parallel": parallelism_json(program, &l.parallel),
                        "steps": l.steps.iter().map(|s| match s {
                            LoopStep::Stmt { member, stmt } => serde_json::json!({"stmt": {"loop": member, "index": stmt}}),
                            LoopStep::Call { calls, targets, guards } => serde_json::json!({"call": {
                                "calls": calls.iter().enumerate().map(|(k, (m, s))| {
                                    let mut call = serde_json::json!({"loop": m, "index": s});
                                    if let Some(part) = split_part(program, fused, targets, k) {
                                        call["part"] = part.into();
                                    }
                                    if let Some(g) = guards.get(k).and_then(Option::as_ref) {
                                        call["only_types"] = g.types.iter().map(|t| program.type_name(*t)).collect::<Vec<_>>().into();
                                        call["why"] = g.reason.clone().into();
                                    }
                                    call
                                }).collect::<Vec<_>>(),
                                "targets": targets.iter().map(|(t, id)| serde_json::json!({"type": program.type_name(*t), "function": id.0})).collect::<Vec<_>>(),
                            }}),
                        }).collect::<Vec<_>>(),
                    }}),
                    Step::While(w) => {
                        let span = stmt_span(program, f, w.participant, w.stmt);
                        serde_json::json!({"while": {
                            "participant": w.participant,
                            "index": w.stmt,
                            "at": src.at(span),
                            "code": src.snippet(span),
                            "steps": w.steps.iter().map(|ws| match ws {
                                WhileStep::Stmt(i) => serde_json::json!({"stmt": {"index": i}}),
                                WhileStep::Call { field, calls, targets } => serde_json::json!({"call": {
                                    "field": program.fields[field.index()].name,
                                    "calls": calls,
                                    "targets": targets.iter().map(|(t, id)| serde_json::json!({"type": program.type_name(*t), "function": id.0})).collect::<Vec<_>>(),
                                }}),
                            }).collect::<Vec<_>>(),
                        }})
                    }
                    Step::Group(g) => serde_json::json!({"group": {
                        "field": program.fields[g.field.index()].name,
                        "calls": g.calls.iter().enumerate().map(|(k, (p, s))| {
                            let mut call = serde_json::json!({"participant": p, "index": s});
                            if let Some(g) = g.guards.get(k).and_then(Option::as_ref) {
                                call["only_types"] = g.types.iter().map(|t| program.type_name(*t)).collect::<Vec<_>>().into();
                                call["why"] = g.reason.clone().into();
                            }
                            call
                        }).collect::<Vec<_>>(),
                        "targets": g.targets.iter().map(|(t, id)| serde_json::json!({"type": program.type_name(*t), "function": id.0})).collect::<Vec<_>>(),
                    }}),
                })
                .collect();
            serde_json::json!({
                "id": i,
                "type": program.type_name(f.ty),
                "traversals": f.participants.iter().map(|p| program.methods[p.method.index()].name.clone()).collect::<Vec<_>>(),
                "steps": steps,
                "independent_calls": f.independent_calls.iter().map(|r| {
                    let mut run = parallelism_json(program, &r.parallel);
                    run["steps"] = r.steps.clone().into();
                    run
                }).collect::<Vec<_>>(),
                "resume": f.resume.iter().map(|r| serde_json::json!({
                    "participant": r.participant,
                    "targets": r.targets.iter().map(|(t, id)| serde_json::json!({"type": program.type_name(*t), "function": id.0})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "split": f.split.iter().map(|c| serde_json::json!({
                    "call": {"participant": c.call.0, "index": c.call.1, "at": src.at(c.span), "code": src.snippet(c.span)},
                    "joined": {"participant": c.joined.0, "index": c.joined.1, "at": src.at(c.joined_span), "code": src.snippet(c.joined_span)},
                    "types": c.types.iter().map(|t| program.type_name(*t)).collect::<Vec<_>>(),
                    "reason": c.reason,
                })).collect::<Vec<_>>(),
                "blocked": f.blocked.iter().map(|b| serde_json::json!({
                    "first": {"at": src.at(b.first_span), "code": src.snippet(b.first_span)},
                    "second": {"at": src.at(b.second_span), "code": src.snippet(b.second_span)},
                    "reason": b.reason,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "entries": fused.entries.iter().map(|e| serde_json::json!({
            "fuse": e.fuse,
            "chunks": e.chunks.iter().map(|c| serde_json::json!({
                "calls": c.calls,
                "split": c.split.as_ref().map(|why| serde_json::json!({
                    "at": src.at(program.fuse_named(&e.fuse).map_or(Span::default(), |f| f.calls[c.calls[0]].span)),
                    "reason": why.to_string(),
                })),
                "targets": c.targets.iter().map(|(t, id)| serde_json::json!({"type": program.type_name(*t), "function": id.0})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "functions": functions,
    })
}

/// The dependence graphs of every fused function as one Graphviz DOT
/// document, a cluster per function.
pub fn dot(
    program: &Program,
    fused: &FusedProgram,
    source: &(impl AsSourceMap + ?Sized),
) -> String {
    let src = Source::new(source);
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = String::from("digraph fused {\n  node [shape=box, fontname=\"monospace\"];\n");
    for (i, f) in fused.functions.iter().enumerate() {
        out.push_str(&format!(
            "  subgraph cluster_{i} {{\n    label=\"F{i}: {}\";\n",
            esc(&function_name(program, f))
        ));
        for (v, (p, s, span)) in f.graph.vertices.iter().enumerate() {
            out.push_str(&format!(
                "    f{i}_{v} [label=\"p{p}#{s} {}: {}\"];\n",
                src.at(*span),
                esc(&src.snippet(*span))
            ));
        }
        for (u, v, why) in &f.graph.edges {
            out.push_str(&format!(
                "    f{i}_{u} -> f{i}_{v} [label=\"{}\"];\n",
                esc(why)
            ));
        }
        // Type guards of calls on a child, as notes on the call.
        for step in &f.steps {
            let Step::Group(g) = step else { continue };
            for ((p, s), guard) in g.calls.iter().zip(&g.guards) {
                let Some(guard) = guard else { continue };
                let Some(v) = f
                    .graph
                    .vertices
                    .iter()
                    .position(|&(vp, vs, _)| (vp, vs) == (*p, *s))
                else {
                    continue;
                };
                out.push_str(&format!(
                    "    f{i}_{v}_guard [shape=note, label=\"here only where self.{} is {} as the function starts\\n{}\"];\n    f{i}_{v} -> f{i}_{v}_guard [style=dashed];\n",
                    esc(&program.fields[g.field.index()].name),
                    esc(&type_names(program, &guard.types)),
                    esc(&guard.reason)
                ));
            }
        }
        // Type guards of merged loops' element calls, as notes on the loop.
        for step in &f.steps {
            let Step::Loop(l) = step else { continue };
            let Some(&(p, s)) = l.loops.first() else {
                continue;
            };
            let Some(v) = f
                .graph
                .vertices
                .iter()
                .position(|&(vp, vs, _)| (vp, vs) == (p, s))
            else {
                continue;
            };
            out.push_str(&format!(
                "    f{i}_{v}_iterations [shape=note, label=\"iterations: {}\"];\n    f{i}_{v} -> f{i}_{v}_iterations [style=dashed];\n",
                esc(&parallelism_text(program, l))
            ));
            for (k, (p, s)) in rebound_loops(l).into_iter().enumerate() {
                out.push_str(&format!(
                    "    f{i}_{v}_rebound{k} [shape=note, label=\"rebound: {}\\nsees the node standing where the element stood\"];\n    f{i}_{v} -> f{i}_{v}_rebound{k} [style=dashed];\n",
                    esc(&src.snippet(stmt_span(program, f, p, s)))
                ));
            }
            for (k, c) in f
                .split
                .iter()
                .filter(|c| l.loops.contains(&c.call))
                .enumerate()
            {
                out.push_str(&format!(
                    "    f{i}_{v}_split{k} [shape=note, label=\"split call: {} as head and tail{}\\n{}\"];\n    f{i}_{v} -> f{i}_{v}_split{k} [style=dashed];\n",
                    esc(&src.snippet(c.span)),
                    esc(&split_types(program, &c.types)),
                    esc(&c.reason)
                ));
            }
            for (k, g) in type_guards(program, fused, f, l).into_iter().enumerate() {
                let types: Vec<&str> = g
                    .guard
                    .types
                    .iter()
                    .map(|t| program.type_name(*t))
                    .collect();
                out.push_str(&format!(
                    "    f{i}_{v}_guard{k} [shape=note, label=\"fused call {}: {} only for {}\\n{}\"];\n    f{i}_{v} -> f{i}_{v}_guard{k} [style=dashed];\n",
                    g.step + 1,
                    esc(&g.what(&src)),
                    esc(&types.join(", ")),
                    esc(&g.guard.reason)
                ));
            }
        }
        out.push_str("  }\n");
    }
    // Each fuse item's fused calls on the root, in order; an edge between
    // two chunks that were kept apart carries the reason.
    for (e_i, e) in fused.entries.iter().enumerate() {
        let Some(fuse) = program.fuse_named(&e.fuse) else {
            continue;
        };
        out.push_str(&format!(
            "  subgraph cluster_entry_{e_i} {{\n    label=\"fuse {}\";\n",
            esc(&e.fuse)
        ));
        for (c, chunk) in e.chunks.iter().enumerate() {
            let names: Vec<&str> = chunk
                .calls
                .iter()
                .map(|&k| program.methods[fuse.calls[k].method.index()].name.as_str())
                .collect();
            out.push_str(&format!(
                "    e{e_i}_{c} [label=\"fused call {}: {}\"];\n",
                c + 1,
                esc(&names.join(", "))
            ));
            if let (Some(why), true) = (&chunk.split, c > 0) {
                out.push_str(&format!(
                    "    e{e_i}_{} -> e{e_i}_{c} [label=\"not merged: {}\"];\n",
                    c - 1,
                    esc(&why.to_string())
                ));
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// ` (where the element is of type `A` or `B`)`: the types for which a
/// split call's head and tail run apart.
fn split_types(program: &Program, types: &[TypeId]) -> String {
    if types.is_empty() {
        return String::new();
    }
    let names: Vec<String> = types
        .iter()
        .map(|t| format!("`{}`", program.type_name(*t)))
        .collect();
    format!(" (apart where the element is {})", names.join(" or "))
}

/// How a merged loop's iterations may run ([`LoopGroup::parallel`]), in
/// words.
fn parallelism_text(program: &Program, l: &LoopGroup) -> String {
    match &l.parallel {
        Parallelism::Parallel { .. } => format!(
            "independent on different elements: {}",
            parallelism_words(program, &l.parallel)
        ),
        Parallelism::Sequential { reason } => format!("in list order: {reason}"),
    }
}

/// Whether some work may run in parallel, in words.
fn parallelism_words(program: &Program, p: &Parallelism) -> String {
    match p {
        Parallelism::Parallel { reduced, private } => {
            let names = |gs: &[GlobalId]| {
                gs.iter()
                    .map(|g| format!("`{}`", program.globals[g.index()].name))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut words = "may run in parallel".to_string();
            if !reduced.is_empty() {
                words += &format!(
                    ", each worker updating its own copy of {} (commutative updates)",
                    names(reduced)
                );
            }
            if !private.is_empty() {
                words += &format!(
                    "{} {} private to each worker (every iteration writes it before reading it; the last value written stays)",
                    if reduced.is_empty() { "," } else { ";" },
                    names(private)
                );
            }
            words
        }
        Parallelism::Sequential { reason } => format!("in order: {reason}"),
    }
}

/// The children of a run of fused calls ([`IndependentCalls`]):
/// `` `l`, `r` ``.
fn independent_fields(program: &Program, f: &FusedFunction, run: &IndependentCalls) -> String {
    run.steps
        .iter()
        .filter_map(|&k| match f.steps.get(k) {
            Some(Step::Group(g)) => Some(format!("`{}`", program.fields[g.field.index()].name)),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The member loops of `l` whose loop variable is rebound
/// ([`LoopGroup::rebound`]), as (participant, statement).
fn rebound_loops(l: &LoopGroup) -> Vec<(usize, usize)> {
    l.rebound
        .iter()
        .filter_map(|&m| l.loops.get(m).copied())
        .collect()
}

/// "`A`, `B`": type names for reports.
fn type_names(program: &Program, types: &[TypeId]) -> String {
    types
        .iter()
        .map(|t| format!("`{}`", program.type_name(*t)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a merged loop or a run of fused calls runs, as JSON:
/// `{"runs": "parallel", "reduced": [globals]}` or `{"runs": "sequential",
/// "why": reason}`.
fn parallelism_json(program: &Program, parallel: &Parallelism) -> serde_json::Value {
    match parallel {
        Parallelism::Parallel { reduced, private } => serde_json::json!({
            "runs": "parallel",
            "reduced": reduced.iter().map(|g| program.globals[g.index()].name.clone()).collect::<Vec<_>>(),
            "private": private.iter().map(|g| program.globals[g.index()].name.clone()).collect::<Vec<_>>(),
        }),
        Parallelism::Sequential { reason } => serde_json::json!({
            "runs": "sequential",
            "why": reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_statement_are_written_once() {
        let stmts = [0, 1, 2, 3, 5, 6]
            .into_iter()
            .map(|p| (p, "walk".to_string()))
            .chain([(7, "x.f()".to_string())]);
        assert_eq!(
            participant_runs(stmts),
            ["p0–p3 walk", "p5 walk", "p6 walk", "p7 x.f()"]
        );
    }

    #[test]
    fn long_lines_wrap_at_list_separators() {
        let line = format!("  fused call on `body`: {}", ["p1 walk"; 12].join("; "));
        let wrapped = wrap_report(&format!("short\n{line}\n"), 40);
        for l in wrapped.lines() {
            assert!(l.chars().count() <= 40, "{l:?}");
        }
        assert!(wrapped.lines().skip(2).all(|l| l.starts_with("      p1")));
        let joined: Vec<&str> = wrapped.lines().map(str::trim).collect();
        assert_eq!(joined[1..].join(" "), line.trim());
        assert_eq!(wrap_report(&line, 0), line);
        let word = "x".repeat(50);
        assert_eq!(wrap_report(&word, 40), format!("{word}\n"));
    }
}
