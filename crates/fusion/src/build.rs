//! Finding the fused program: dependence graphs, greedy grouping of calls
//! on the same child, topological scheduling, memoized fused functions.
//!
//! This follows Grafter (PLDI'19, §3.3). For a node of concrete type `T`
//! and a sequence of traversals `m1..mk` invoked on it, the vertices are
//! the top-level statements of each `mi`'s body on `T`. Edges keep the
//! unfused order wherever it matters:
//! * two statements conflict (write/read, read/write or write/write on a
//!   tree path, a global, or, within one participant, a frame variable),
//!   judged on the access automata of `treefuse-analysis`, where a call's
//!   set covers every traversal it reaches;
//! * within a participant, a statement that may `return` is a barrier:
//!   nothing of that participant moves across it.
//!
//! * a statement that may replace the node (`self = ...`, a thicket, a
//!   call on `self` that may) comes before every statement of the later
//!   participants: when it replaces, they are postponed and resume on the
//!   replacement at the end of the fused function ([`Resume`]).
//!
//! Calls of any participants on the same child are then merged greedily,
//! in source order, whenever the merged graph stays acyclic and the
//! cut-offs allow; the merged call runs the fused function of the callee
//! sequence, built the same way, once per distinct (type, sequence) pair.
//! Loops over the same list are merged greedily too, then regrouped
//! (`Builder::regroup_loops`): a loop whose calls walk below the element
//! moves to another group where that makes fewer walks, or gathers more
//! calls into one, as long as the grouping stays legal. A loop after one
//! that may replace elements joins it when it only calls the element with
//! frame-only inputs, or when every region is one node and its loop
//! variable can be rebound to it (`Builder::region_followers`).
//! A call alone under an `if` (a *guarded call*) joins groups too: its
//! guard is evaluated when the group runs, which is sound because the
//! vertex's access set covers the guard's reads as well as the call's.
//! In merged loops, calls on the element kept apart by a statement
//! `if x is U { .. }` between them are merged for the element types the
//! test excludes (*type-guarded participation*, [`TypeGuard`],
//! `Builder::type_split`).
//! Other statements that contain calls (inside `for`, several statements
//! under `if`, calls on `self`) are kept whole and run unfused: sound, and
//! fusing them is future work.
//!
//! A merge is refused when the merged graph turns cyclic, when a member's
//! arguments (evaluated when the fused call starts) would read what an
//! earlier member writes, or when a cut-off ([`FusionOptions`]:
//! `max_group`, `max_repeat`) is hit; each refusal is kept with its reason
//! for the reports. Beyond the greedy merge:
//! * *Split calls* ([`SplitCall`]): in merged loops, a call `x.f()` of a
//!   traversal the checker split (`f$head`/`f$tail`,
//!   `treefuse_sema::split`) that is kept apart from an earlier call
//!   through a path runs as `x.f$head()`, joining that call, and
//!   `x.f$tail()` at the whole call's place; only where that lets the head
//!   join, the head does something on a type the calls stay apart for, and
//!   no other call on the element may replace it.
//! * Regrouping (`Builder::regroup_loops`, above) moves a loop whose calls
//!   walk below the element to the group where they share the most walks:
//!   that is what keeps minic's table loops from keeping the other passes
//!   out of the body walk.
//! * *Type-guarded calls on a child* ([`FusedFunction::typed_child`],
//!   `Builder::child_type_split`): for calls on a child, per concrete type
//!   of the node standing in the slot when the fused function starts,
//!   where statements whose `is` tests on the slot fail for that type are
//!   all that orders the calls.
//! * A traversal's `while` loop is one vertex; inside it, consecutive calls
//!   on the same child run as one fused call per iteration
//!   ([`WhileGroup`]).
//!
//! Fused functions are memoized by (type, sequence), and the conflict
//! between two statements' access sets by the pair (`ConflictTest` in
//! `commute.rs`), since the same statements meet in the fused functions of
//! many sequences.
//!
//! Runtime errors need no edges of their own: every statement instance
//! runs with the same inputs as in the unfused program (all dependences
//! are kept), so a failing instance fails in both, and a fused run stops at
//! the first failure it meets.

use crate::ir::*;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use treefuse_analysis::{AccessSet, Analysis, Conflict, FrameVar, Location};
use treefuse_sema::*;

/// The cut-offs that bound fusion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusionOptions {
    /// Most calls merged into one group (and so most participants of a
    /// fused function).
    pub max_group: usize,
    /// Most occurrences of one traversal in one group.
    pub max_repeat: usize,
}

impl Default for FusionOptions {
    /// No cap on the calls per group: a linter runs dozens to hundreds of
    /// rules in one `fuse` item, and any cap splits them into several
    /// walks (16 split a 20-rule linter in two). Fusion costs time about
    /// linear in the calls merged (see the book's "How fusion scales"),
    /// and the engines' participant masks grow with the widest fused
    /// function ([`crate::mask`]). `max_repeat` 2: the AST passes run one
    /// traversal twice in a group.
    fn default() -> Self {
        FusionOptions {
            max_group: usize::MAX,
            max_repeat: 2,
        }
    }
}

impl FusionOptions {
    /// The cut-offs in words, for refusals ("at most 16 calls per group,
    /// 2 of one traversal"; "at most 2 calls of one traversal" without a
    /// cap on calls), with the options that set them when `flags`.
    pub fn describe(&self, flags: bool) -> String {
        let (group, repeat) = if flags {
            (" (--max-group)", " (--max-repeat)")
        } else {
            ("", "")
        };
        if self.max_group == usize::MAX {
            format!("at most {} calls of one traversal{repeat}", self.max_repeat)
        } else {
            format!(
                "at most {} calls per group{group}, {} of one traversal{repeat}",
                self.max_group, self.max_repeat
            )
        }
    }
}

/// Computes the fused program for every `fuse` item of `program`.
///
/// Cut-offs below 1 count as 1.
pub fn fuse_program(
    program: &Program,
    analysis: &Analysis,
    options: &FusionOptions,
) -> FusedProgram {
    let options = &FusionOptions {
        max_group: options.max_group.max(1),
        max_repeat: options.max_repeat.max(1),
    };
    let mut b = Builder {
        program,
        analysis,
        options,
        conflicts: crate::commute::ConflictTest::new(program, analysis),
        splices: may_splice(program),
        ends_early: ends_early(program),
        functions: Vec::new(),
        index: HashMap::new(),
        work: Vec::new(),
        interleaving: RefCell::default(),
    };
    let mut entries = Vec::new();
    for fuse in &program.fuses {
        entries.push(b.entry(fuse));
    }
    while let Some(id) = b.work.pop() {
        b.build(id);
    }
    FusedProgram {
        functions: b.functions,
        entries,
    }
}

struct Builder<'a, 'p> {
    program: &'p Program,
    analysis: &'a Analysis<'p>,
    options: &'a FusionOptions,
    conflicts: crate::commute::ConflictTest<'a, 'p>,
    /// The (concrete type, traversal) pairs that may replace their receiver
    /// by a thicket ([`may_splice`]).
    splices: BTreeSet<(TypeId, MethodId)>,
    /// Per traversal: whether some body of it contains `return`
    /// ([`ends_early`]).
    ends_early: Vec<bool>,
    functions: Vec<FusedFunction>,
    index: HashMap<(TypeId, Vec<MethodId>), FusedFnId>,
    work: Vec<FusedFnId>,
    /// [`Self::interleave_obstacle`] of the loop vertices of the function
    /// being built, by (address of its vertices, first, second, whether
    /// the second follows regions): the greedy and regrouping searches ask
    /// again for every pair of each candidate group, which for a walk of
    /// L passes over one list is O(L³) questions about O(L²) pairs.
    /// Emptied as each function's build starts.
    interleaving: RefCell<InterleavingMemo>,
}

/// Why two loops may not interleave (`Some(None)`: they may), by first
/// loop, second loop and whether the second follows regions, for the
/// vertices at one address: the searches ask about each pair many times.
/// A dense table over the loop vertices only (`loop_index`), so its size
/// follows the loops, not every pair of statements.
#[derive(Default)]
struct InterleavingMemo {
    vertices: usize,
    n: usize,
    /// Per vertex, its index among the loop vertices (`usize::MAX`: not a
    /// loop).
    loop_index: Vec<usize>,
    loops: usize,
    /// Per vertex, whether it is a loop that may replace its elements
    /// ([`Builder::loop_replaces`]).
    replaces: Vec<bool>,
    table: Vec<Option<Option<String>>>,
}

impl Blocked {
    /// The pair of statements `a` (earlier) and `b` left apart.
    fn between(a: &Vertex, b: &Vertex, reason: String) -> Blocked {
        Blocked {
            first: (a.participant, a.stmt),
            second: (b.participant, b.stmt),
            first_span: a.span,
            second_span: b.span,
            reason,
        }
    }
}

/// A vertex of a dependence graph under construction.
struct Vertex<'s> {
    participant: usize,
    stmt: usize,
    span: treefuse_syntax::Span,
    set: &'s AccessSet,
    /// How `set`'s accesses may begin: rules out most pairs at once.
    opening: std::rc::Rc<crate::commute::SetOpening>,
    /// `Some((field, method))` for a top-level call `self.field.method(..)`.
    call: Option<(FieldId, MethodId)>,
    /// `Some(list field)` for a loop `for x in self.list { .. }` whose body
    /// makes traversing calls only directly on `x` (possibly guarded).
    lp: Option<FieldId>,
    /// For a loop: per-element and other accesses of one iteration.
    per_element: Option<&'s treefuse_analysis::LoopAccess>,
    /// For a loop: the access sets of its body statements.
    blocks: Option<&'s Vec<treefuse_analysis::StmtAccess>>,
    /// For a loop: how `per_element`'s `iteration`, `header` and `other`
    /// accesses may begin (the quick test of the interleaving check).
    loop_openings: Option<[std::rc::Rc<crate::commute::SetOpening>; 3]>,
    /// Whether the statement may replace the receiver (`self = ...`, a
    /// thicket, or a call on `self` that may).
    replaces: bool,
}

/// A member loop of a merged loop: (participant, vertex, body, loop variable).
type Member<'v, 's> = (usize, &'v Vertex<'s>, &'s [Stmt], NodeVarId);

/// A statement of a merged loop's body, a vertex of the per-element
/// dependence graph.
struct Ev<'s> {
    member: usize,
    participant: usize,
    stmt: usize,
    set: &'s AccessSet,
    call: Option<MethodId>,
    inputs: Option<AccessSet>,
    /// `Some(U)` for `if x is U .. { .. }` without `else` (`x` the loop
    /// variable): it does nothing unless the element is a `U`.
    type_test: Option<TypeId>,
    /// For the two vertices of a split call `x.f()` (run as `x.f$head()`
    /// then `x.f$tail()`, `Program::splits`): `Some(true)` for the head,
    /// `Some(false)` for the tail.
    part: Option<bool>,
}

/// The per-element dependence graph of merged loops and the greedy
/// grouping of their calls on the element ([`Builder::element_graph`]).
struct ElementGraph<'s> {
    evs: Vec<Ev<'s>>,
    edges: Vec<(usize, usize)>,
    succ: Vec<Vec<usize>>,
    /// Per body statement, the id of its call group (a statement's own
    /// index unless it is a call merged with an earlier one).
    group: Vec<usize>,
    /// Pairs of calls on the element left apart, with why.
    refused: BTreeMap<(usize, usize), String>,
    /// The calls split into head and tail, as (member, body statement),
    /// with the call whose fused call the head joined.
    split: Vec<((usize, usize), usize)>,
}

/// Where each call group of a merged loop runs, per concrete element type
/// ([`Builder::type_split`]).
struct TypeSplit {
    /// The element's concrete types.
    types: Vec<TypeId>,
    /// Per type (parallel to `types`): group id -> the group id of the call
    /// step where that group's calls run for this type.
    site_of: Vec<BTreeMap<usize, usize>>,
}

impl TypeSplit {
    /// The group id of the call step where the calls of group `g` run for
    /// type `t` (index into `types`); a group that never moves (not a call
    /// group on the split node) runs at its own.
    fn site(&self, t: usize, g: usize) -> usize {
        self.site_of[t].get(&g).copied().unwrap_or(g)
    }

    /// The element types for which the calls `a` and `b` (vertices of the
    /// element graph whose grouping is `group`) run at different call
    /// steps.
    fn apart(&self, group: &[usize], a: usize, b: usize) -> Vec<TypeId> {
        self.types
            .iter()
            .enumerate()
            .filter(|(t, _)| self.site(*t, group[a]) != self.site(*t, group[b]))
            .map(|(_, &ty)| ty)
            .collect()
    }
}

/// A dependence graph as [`Builder::split_by_type`] sees it: the calls on
/// one node (a merged loop's element, or a child of the fused function's
/// node) that may move between call steps by that node's concrete type,
/// and everything else at a fixed place.
struct SplitGraph<'a, 's> {
    /// Per vertex: the traversal it calls on the node, if it is such a call.
    calls: Vec<Option<MethodId>>,
    /// Per vertex: its accesses.
    sets: Vec<&'s AccessSet>,
    /// Per vertex: what a call's arguments and guard read (`None`: unknown).
    inputs: Vec<Option<&'a AccessSet>>,
    /// Dependence edges.
    edges: &'a [(usize, usize)],
    /// Per type, per vertex: whether the vertex does nothing for that type
    /// (its dependences vanish).
    dead: Vec<Vec<bool>>,
    /// Per vertex that is not a call on the node: the position of its step
    /// in the schedule (members of one fused call or merged loop share it).
    pos: Vec<usize>,
    /// Per vertex: whether it is a call that may replace the node.
    replaces: Vec<bool>,
}

impl Builder<'_, '_> {
    /// The fused function for `methods` on concrete type `ty`, created on
    /// first request.
    fn function(&mut self, ty: TypeId, methods: Vec<MethodId>) -> FusedFnId {
        if let Some(&id) = self.index.get(&(ty, methods.clone())) {
            return id;
        }
        let id = FusedFnId(self.functions.len() as u32);
        let participants = methods
            .iter()
            .filter_map(|&m| {
                self.program
                    .dispatch(ty, m)
                    .map(|body| Participant { method: m, body })
            })
            .collect();
        self.functions.push(FusedFunction {
            ty,
            participants,
            steps: Vec::new(),
            blocked: Vec::new(),
            split: Vec::new(),
            graph: DependenceGraph::default(),
            resume: Vec::new(),
            typed_child: None,
            independent_calls: Vec::new(),
        });
        self.index.insert((ty, methods), id);
        self.work.push(id);
        id
    }

    fn within_cutoffs(&self, methods: &[MethodId]) -> bool {
        if methods.len() > self.options.max_group {
            return false;
        }
        let mut sorted = methods.to_vec();
        sorted.sort_unstable();
        sorted
            .chunk_by(|a, b| a == b)
            .all(|run| run.len() <= self.options.max_repeat)
    }

    /// Why loop `a` (earlier) and loop `b` over the same list may not run
    /// interleaved element by element, or `None` if they may: an iteration
    /// of `a` on a later element must commute with one of `b` on an
    /// earlier element, and they can only meet through what is not below
    /// their own elements. (The order on one element is kept by the element
    /// schedule.) `b_follows_regions`: an earlier merged loop may replace
    /// elements and `b` walks the regions instead of reading the edited
    /// list (see [`Self::later_loops_follow_regions`]).
    fn interleave_obstacle(
        &self,
        a: &Vertex,
        b: &Vertex,
        b_follows_regions: bool,
        participants: &[Participant],
    ) -> Option<String> {
        let (Some(pa), Some(pb)) = (a.per_element, b.per_element) else {
            return Some("the loops cannot run element by element".into());
        };
        let same = a.participant == b.participant;
        // A `return` in either loop of one participant ends both loops at
        // once; interleaved, the other loop would already have run (or not
        // yet run) on other elements.
        if same && (a.set.returns || b.set.returns) {
            return Some("a `return` in a loop of one traversal ends both loops at once; interleaved, the other loop's iterations would run in a different number".into());
        }
        // `a`'s header reads the list once, before every iteration of both
        // loops (unfused and fused alike), so it need not commute with what
        // `b` does through its elements, replacing them included (the
        // fused loop runs `b` on the nodes that stand where each element
        // stood, LANGUAGE.md §7.2). When `b` follows the regions of
        // elements an earlier loop replaced, its own header (which, unfused,
        // reads the edited list) is that walk, so `a`'s edits of the list
        // need not commute with it either.
        let b_other = if b_follows_regions {
            &pb.iteration
        } else {
            &pb.other
        };
        // The quick test each `conflict_of` below starts with, on openings
        // computed once per loop: most pairs of loops stop here.
        if let (Some([a_iteration, a_header, _]), Some([b_iteration, _, b_rest])) =
            (&a.loop_openings, &b.loop_openings)
        {
            let b_other_opening = if b_follows_regions {
                b_iteration
            } else {
                b_rest
            };
            if !a_iteration.may_conflict(&b.opening, same)
                && !a_header.may_conflict(b_other_opening, same)
                && !a.opening.may_conflict(b_other_opening, same)
            {
                return None;
            }
        }
        let conflict = self
            .conflicts
            .conflict_of(&pa.iteration, b.set, same)
            .or_else(|| self.conflicts.conflict_of(&pa.header, b_other, same))
            .or_else(|| self.conflicts.conflict_of(a.set, b_other, same))?;
        Some(format!(
            "an iteration of one loop does not commute with an iteration of the other on another element ({})",
            self.conflict_text(&conflict, participants, a.participant)
        ))
    }

    /// For merged loops `members` (vertex indices in unfused order), why
    /// some pair may not run interleaved, or `None`.
    fn members_obstacle(
        &self,
        vertices: &[Vertex],
        members: &[usize],
        participants: &[Participant],
    ) -> Option<String> {
        self.members_obstacle_pair(vertices, members, participants)
            .map(|(_, _, why)| why)
    }

    /// [`Self::members_obstacle`] with the two member loops (vertex
    /// indices) that may not run interleaved.
    fn members_obstacle_pair(
        &self,
        vertices: &[Vertex],
        members: &[usize],
        participants: &[Participant],
    ) -> Option<(usize, usize, String)> {
        let mut memo = self.interleaving_memo(vertices, participants);
        let first_replacing = members.iter().position(|&x| memo.replaces[x]);
        for (k, &x) in members.iter().enumerate() {
            for (j, &y) in members[k + 1..].iter().enumerate() {
                let follows = first_replacing.is_some_and(|r| r < k + 1 + j);
                let (lx, ly) = (memo.loop_index[x], memo.loop_index[y]);
                let why = if lx == usize::MAX || ly == usize::MAX {
                    self.interleave_obstacle(&vertices[x], &vertices[y], follows, participants)
                } else {
                    let slot = (lx * memo.loops + ly) * 2 + usize::from(follows);
                    match memo.table[slot].get_or_insert_with(|| {
                        self.interleave_obstacle(&vertices[x], &vertices[y], follows, participants)
                    }) {
                        None => continue,
                        Some(why) => Some(why.clone()),
                    }
                };
                if let Some(why) = why {
                    return Some((x, y, why));
                }
            }
        }
        None
    }

    /// The memo of [`Self::members_obstacle_pair`] for `vertices`, made
    /// afresh when they are not the ones it was made for. Borrowed for a
    /// whole search: `interleave_obstacle` does not use it.
    fn interleaving_memo(
        &self,
        vertices: &[Vertex],
        participants: &[Participant],
    ) -> std::cell::RefMut<'_, InterleavingMemo> {
        let mut memo = self.interleaving.borrow_mut();
        let address = vertices.as_ptr() as usize;
        let n = vertices.len();
        if memo.vertices != address || memo.n != n {
            let mut loop_index = vec![usize::MAX; n];
            let mut loops = 0;
            for (v, index) in loop_index.iter_mut().enumerate() {
                if vertices[v].lp.is_some() {
                    *index = loops;
                    loops += 1;
                }
            }
            *memo = InterleavingMemo {
                vertices: address,
                n,
                loop_index,
                loops,
                replaces: vertices
                    .iter()
                    .map(|v| self.loop_replaces(v, participants))
                    .collect(),
                table: vec![None; loops * loops * 2],
            };
        }
        memo
    }

    /// A conflict in words ([`conflict_text`]).
    fn conflict_text(
        &self,
        c: &Conflict,
        participants: &[Participant],
        participant: usize,
    ) -> String {
        conflict_text(self.program, c, participants, participant)
    }

    /// Whether the call statement `stmt` (`self.c.f(..)`, `x.f(..)`,
    /// possibly guarded) on a node of static type `ty` may replace its
    /// receiver.
    fn call_replaces(&self, ty: TypeId, method: MethodId) -> bool {
        self.analysis.may_replace(ty, method)
    }

    /// Whether loop vertex `v` calls, on its elements, a traversal that may
    /// replace them.
    fn loop_replaces(&self, v: &Vertex, participants: &[Participant]) -> bool {
        let Some(field) = v.lp else { return false };
        let FieldKind::List(elem) = self.program.fields[field.index()].kind else {
            return false;
        };
        self.loop_body(v, participants).is_some_and(|body| {
            body.iter()
                .filter_map(element_call)
                .any(|m| self.call_replaces(elem, m))
        })
    }

    /// The body of loop vertex `v` (`for x in self.list { body }`).
    fn loop_body<'b>(&'b self, v: &Vertex, participants: &[Participant]) -> Option<&'b [Stmt]> {
        let stmt = participants
            .get(v.participant)
            .and_then(|p| self.program.bodies[p.body.index()].body.as_deref())
            .and_then(|b| b.get(v.stmt))?;
        match &stmt.kind {
            StmtKind::ForChildren { body, .. } => Some(body),
            _ => None,
        }
    }

    /// Whether merged loops `members` (vertex indices in unfused order)
    /// may share one iteration although some may replace elements (see
    /// [`Self::region_followers`]).
    fn later_loops_follow_regions(
        &self,
        vertices: &[Vertex],
        members: &[usize],
        participants: &[Participant],
    ) -> bool {
        self.region_followers(&Self::loop_members(
            self.program,
            vertices,
            members,
            participants,
        ))
        .is_some()
    }

    /// Whether a call of `method` on an element of static type `elem_ty`
    /// may leave anything but one node in the element's place.
    fn call_splices(&self, elem_ty: TypeId, method: MethodId) -> bool {
        self.program.types[elem_ty.index()]
            .concrete_subtypes
            .iter()
            .any(|&t| self.splices.contains(&(t, method)))
    }

    /// Whether merged loops `members` (in unfused order) may share one
    /// iteration although some may replace elements, and if so, the members
    /// whose loop variable must be *rebound* ([`LoopGroup::rebound`]).
    ///
    /// Unfused, a loop after a replacing one iterates over the edited
    /// list: the nodes of each element's *region* (what stands where the
    /// element stood), in order. The merged loop runs a later loop's calls
    /// on the loop variable on every node of the element's region (the
    /// fused call resumes postponed traversals on the replacement). That is
    /// the same work in the same order when
    /// * the later loop's body is nothing but such calls, with arguments
    ///   (and guards) that read only its frame, so that one evaluation per
    ///   element serves every node of the region; or
    /// * the later loop comes after every loop that may replace elements,
    ///   and no call on the element in any member may splice: every region
    ///   is then exactly one node, the one the later loop visits in the
    ///   element's place. Its whole body runs once per element with its
    ///   loop variable bound, at each step, to the node now standing there
    ///   (rebound); none of its calls replaces, so that node stays put for
    ///   the rest of its iteration.
    ///
    /// `None` if some later loop fits neither. (Iterations on different
    /// elements must commute in any case, [`Self::interleave_obstacle`].)
    fn region_followers(&self, members: &[Member]) -> Option<Vec<usize>> {
        let elem_ty = members.first().and_then(|m| match m.1.lp {
            Some(f) => match self.program.fields[f.index()].kind {
                FieldKind::List(t) => Some(t),
                _ => None,
            },
            None => None,
        });
        let Some(elem_ty) = elem_ty else {
            return Some(Vec::new());
        };
        let replacing = |body: &[Stmt]| {
            body.iter()
                .filter_map(element_call)
                .any(|m| self.call_replaces(elem_ty, m))
        };
        let Some(first) = members.iter().position(|m| replacing(m.2)) else {
            return Some(Vec::new());
        };
        let last = members
            .iter()
            .rposition(|m| replacing(m.2))
            .unwrap_or(first);
        let single_node_regions = || {
            members.iter().all(|m| {
                m.2.iter()
                    .filter_map(element_call)
                    .all(|c| !self.call_splices(elem_ty, c))
            })
        };
        let mut rebound = Vec::new();
        for (k, m) in members.iter().enumerate().skip(first + 1) {
            let only_calls =
                m.2.iter()
                    .all(|s| element_call(s).is_some() && inputs_read_only_the_frame(s));
            if only_calls {
                continue;
            }
            if k > last && single_node_regions() {
                rebound.push(k);
            } else {
                return None;
            }
        }
        Some(rebound)
    }

    /// Whether loops `members` (vertex indices in unfused order) over one
    /// list may run as one merged loop: later loops follow the regions of
    /// an earlier replacing loop where that is needed, and every pair may
    /// run interleaved element by element.
    fn loops_may_merge(
        &self,
        vertices: &[Vertex],
        members: &[usize],
        participants: &[Participant],
    ) -> bool {
        self.later_loops_follow_regions(vertices, members, participants)
            && self
                .members_obstacle(vertices, members, participants)
                .is_none()
    }

    /// [`Self::loops_may_merge`] for the union of loop groups `ga` and
    /// `gb` of `group`, each of which passed it when it formed (the greedy
    /// merge). When no member may replace elements, no later loop follows
    /// regions and each pair's answer does not depend on the other members,
    /// so only the pairs across the two groups are asked; otherwise the
    /// whole union is.
    fn loops_may_join(
        &self,
        vertices: &[Vertex],
        grouping: &Grouping,
        (ga, gb): (usize, usize),
        participants: &[Participant],
    ) -> bool {
        let (a, b) = (&grouping.members[ga], &grouping.members[gb]);
        let replacing = {
            let memo = self.interleaving_memo(vertices, participants);
            a.iter().chain(b).any(|&x| memo.replaces[x])
        };
        if replacing {
            return self.loops_may_merge(vertices, &grouping.union(ga, gb), participants);
        }
        // (With no replacing loop, no loop follows regions.)
        a.iter().all(|&x| {
            b.iter().all(|&y| {
                let pair = [x.min(y), x.max(y)];
                self.members_obstacle_pair(vertices, &pair, participants)
                    .is_none()
            })
        })
    }

    /// Whether traversal `method`, called on a node of static type `ty`,
    /// may visit other nodes (some body it dispatches to makes a call): a
    /// *deep* call, which walks (part of) the subtree, as opposed to one
    /// that only looks at the node (`f.signature()`).
    fn visits_beyond(&self, ty: TypeId, method: MethodId) -> bool {
        self.program.types[ty.index()]
            .concrete_subtypes
            .iter()
            .filter_map(|&t| self.program.dispatch(t, method))
            .any(|b| {
                self.program.bodies[b.index()]
                    .body
                    .as_deref()
                    .is_some_and(|stmts| {
                        visit::any_stmt(stmts, &|s| matches!(s.kind, StmtKind::Call { .. }))
                    })
            })
    }

    /// Improves the greedy grouping of loops over the same list, which
    /// takes every loop into the first group it fits: a loop that could
    /// run in either of two groups may sit in the one where its calls on
    /// the element share nothing (`desugar_assign` with the loop that
    /// builds `resolve`'s function table) while the other group walks every
    /// element anyway (`resolve`'s body loop, which must wait for the whole
    /// table). Moves one loop with deep calls on the element (see
    /// [`Self::visits_beyond`]) at a time into another group over the same
    /// list when the new grouping is legal, as the greedy merge checks it
    /// (an acyclic schedule, [`Self::loops_may_merge`] for both groups), and
    /// strictly lowers (1) the number of element walks, fused calls on the
    /// element with a deep call, of the two groups and then (2) raises the
    /// sum over the two groups of the square of their deep calls, which
    /// gathers the walks where most calls share them. Each move strictly
    /// improves that pair of numbers over the whole list, so the search
    /// ends; loops and groups are tried in source order, so it is
    /// deterministic. Every grouping it yields satisfies the conditions a
    /// greedy merge checks, so it is as sound as the greedy one.
    fn regroup_loops(
        &self,
        vertices: &[Vertex],
        succ: &[Vec<usize>],
        participants: &[Participant],
        loops: &[usize],
        group: &mut Vec<usize>,
    ) {
        let n = vertices.len();
        let element_type =
            |v: usize| match vertices[v].lp.map(|f| &self.program.fields[f.index()].kind) {
                Some(FieldKind::List(t)) => Some(*t),
                _ => None,
            };
        let deep: Vec<usize> = (0..n)
            .map(
                |v| match (element_type(v), self.loop_body(&vertices[v], participants)) {
                    (Some(t), Some(body)) => body
                        .iter()
                        .filter_map(element_call)
                        .filter(|&m| self.visits_beyond(t, m))
                        .count(),
                    _ => 0,
                },
            )
            .collect();
        let movable: Vec<usize> = loops.iter().copied().filter(|&v| deep[v] > 0).collect();
        if movable.is_empty() {
            return;
        }
        let members =
            |g: &[usize], id: usize| -> Vec<usize> { (0..n).filter(|&v| g[v] == id).collect() };
        // (walks, deep calls) of a loop group.
        let cost = |loops: &[usize]| -> (usize, usize) {
            let Some(elem_ty) = loops.first().and_then(|&v| element_type(v)) else {
                return (0, 0);
            };
            let graph = self.element_graph(&Self::loop_members(
                self.program,
                vertices,
                loops,
                participants,
            ));
            let walks: BTreeSet<usize> = (0..graph.evs.len())
                .filter(|&e| {
                    graph.evs[e]
                        .call
                        .is_some_and(|m| self.visits_beyond(elem_ty, m))
                })
                .map(|e| graph.group[e])
                .collect();
            (walks.len(), loops.iter().map(|&v| deep[v]).sum())
        };
        let mut moves_left = loops.len() * loops.len();
        'search: while moves_left > 0 {
            for &x in &movable {
                let from = group[x];
                let targets: BTreeSet<usize> = loops
                    .iter()
                    .filter(|&&y| vertices[y].lp == vertices[x].lp && group[y] != from)
                    .map(|&y| group[y])
                    .collect();
                for to in targets {
                    let mut moved = group.clone();
                    moved[x] = to;
                    if schedule(succ, &moved).is_none() {
                        continue;
                    }
                    let (new_from, new_to) = (members(&moved, from), members(&moved, to));
                    if !self.loops_may_merge(vertices, &new_to, participants)
                        || !self.loops_may_merge(vertices, &new_from, participants)
                    {
                        continue;
                    }
                    let score = |a: (usize, usize), b: (usize, usize)| {
                        (a.0 + b.0, std::cmp::Reverse(a.1 * a.1 + b.1 * b.1))
                    };
                    let before = score(cost(&members(group, from)), cost(&members(group, to)));
                    let after = score(cost(&new_from), cost(&new_to));
                    if after < before {
                        *group = moved;
                        moves_left -= 1;
                        continue 'search;
                    }
                }
            }
            break;
        }
    }

    /// Why loops `a` and `b` over the same list were not merged: an
    /// iteration of one does not commute with an iteration of the other on
    /// another element, or a dependence path through other statements runs
    /// between them.
    fn explain_loops(
        &self,
        vertices: &[Vertex],
        edges: &[(usize, usize, String)],
        group: &[usize],
        participants: &[Participant],
        a: usize,
        b: usize,
    ) -> String {
        let members = |g: usize| (0..vertices.len()).filter(move |&v| group[v] == g);
        let mut union: Vec<usize> = members(group[a]).chain(members(group[b])).collect();
        union.sort_unstable();
        if !self.later_loops_follow_regions(vertices, &union, participants) {
            return "an earlier loop calls a traversal that may replace its elements, and a later loop's body is not only calls on the loop variable with arguments that read only its frame, while a call on the element may splice it into a thicket or a replacing loop comes after it: it must iterate over the edited list (LANGUAGE.md §7.2)".to_string();
        }
        // The two loops' own obstacle first: the reason must name a
        // dependence between them, not between other loops of their
        // groups.
        let mut pair = [a, b];
        pair.sort_unstable();
        if let Some(why) = self.members_obstacle(vertices, &pair, participants) {
            return why;
        }
        // Regrouping may separate two loops that could run together on
        // their own because of the other loops in their groups: name the
        // two loops that cannot interleave.
        if let Some((x, y, why)) = self.members_obstacle_pair(vertices, &union, participants) {
            let name = |v: usize| format!("p{}#{}", vertices[v].participant, vertices[v].stmt);
            return format!(
                "each runs in a fused loop where its calls on the element share a walk with more calls, and those two fused loops cannot run as one: loops {} and {} of them cannot interleave: {why}",
                name(x),
                name(y)
            );
        }
        explain_path(vertices, edges, group, a, b)
            .unwrap_or_else(|| "not merged (a conflicting grouping was chosen first)".into())
    }

    /// The member loops (vertex indices `loops`) of a merged loop.
    fn loop_members<'v, 's>(
        program: &'s Program,
        vertices: &'v [Vertex<'s>],
        loops: &[usize],
        participants: &[Participant],
    ) -> Vec<Member<'v, 's>> {
        loops
            .iter()
            .filter_map(|&u| {
                let body = program.bodies[participants[vertices[u].participant].body.index()]
                    .body
                    .as_deref()?;
                match &body.get(vertices[u].stmt)?.kind {
                    StmtKind::ForChildren { var, body, .. } => {
                        Some((vertices[u].participant, &vertices[u], body.as_slice(), *var))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The per-element dependence graph of merged loops `members` and the
    /// greedy grouping of their calls on the element (in source order,
    /// whenever the merged graph stays acyclic, the later calls' arguments
    /// read nothing the earlier ones write and the cut-offs allow), with
    /// why each refused pair was refused. Pure: [`Self::regroup_loops`]
    /// uses it to count the walks a candidate loop group makes.
    ///
    /// A call `x.f()` of a split traversal (`Program::splits`) that stays
    /// apart from an earlier call through a path is tried as two calls,
    /// `x.f$head()` and `x.f$tail()`: kept split when that lets its head
    /// join an earlier fused call (minic's `s.fold()` after
    /// `s.propagate(..)` and the reads of `(s as Let).init`), whole
    /// otherwise, since a split adds the tail's visits.
    fn element_graph<'s>(&self, members: &[Member<'_, 's>]) -> ElementGraph<'s> {
        let whole = self.element_graph_split(members, &BTreeSet::new());
        let elem_ty = members.first().and_then(|m| m.1.lp).and_then(|f| {
            match self.program.fields[f.index()].kind {
                FieldKind::List(t) => Some(t),
                _ => None,
            }
        });
        // Only where no other call on the element may replace it: then the
        // element's region is the element alone whenever a part runs, and
        // the tail runs on the node the head ran on. (With a region of
        // several nodes, a call statement runs on each node in turn, and
        // running every head before every tail would interleave them.)
        let replaced_by_other = |e: &Ev| {
            whole.evs.iter().any(|o| {
                (o.member, o.stmt) != (e.member, e.stmt)
                    && o.call
                        .zip(elem_ty)
                        .is_some_and(|(m, t)| self.call_replaces(t, m))
            })
        };
        let Some(elem_ty) = elem_ty else {
            return whole;
        };
        // A whole call statement `x.f()` of a split traversal, with the
        // access sets of its parts.
        let splittable = |e: &Ev| {
            e.part.is_none()
                && e.call.is_some_and(|m| self.program.split_of(m).is_some())
                && matches!(members[e.member].2[e.stmt].kind, StmtKind::Call { .. })
                && members[e.member]
                    .1
                    .blocks
                    .is_some_and(|b| b[e.stmt].split.is_some())
                && !replaced_by_other(e)
        };
        if !whole
            .refused
            .keys()
            .any(|&(_, b)| splittable(&whole.evs[b]))
        {
            return whole;
        }
        // The element types for which each refused pair stays apart (the
        // type split may merge it for the others).
        let n = whole.evs.len();
        let order = schedule(&whole.succ, &whole.group).unwrap_or_else(|| (0..n).collect());
        let types = self.type_split(&whole.evs, &whole.edges, &whole.group, &order, elem_ty);
        let apart = |a: usize, b: usize| types.apart(&whole.group, a, b);
        // Later calls refused through a path, whose statement has parts,
        // and whose head does something on a type they stay apart for (a
        // head that does nothing there saves no walk).
        let candidates: BTreeSet<(usize, usize)> = whole
            .refused
            .keys()
            .filter(|&&(a, b)| {
                let e = &whole.evs[b];
                splittable(e)
                    && e.call
                        .and_then(|m| self.program.split_of(m))
                        .is_some_and(|s| apart(a, b).iter().any(|t| s.walks.contains(t)))
            })
            .map(|&(_, b)| (whole.evs[b].member, whole.evs[b].stmt))
            .collect();
        if candidates.is_empty() {
            return whole;
        }
        let trial = self.element_graph_split(members, &candidates);
        // Keep the splits whose head joined an earlier fused call.
        let useful: BTreeSet<(usize, usize)> = trial.split.iter().map(|&(c, _)| c).collect();
        if useful.is_empty() {
            return whole;
        }
        if useful == candidates {
            return trial;
        }
        let second = self.element_graph_split(members, &useful);
        if second.split.is_empty() {
            whole
        } else {
            second
        }
    }

    /// [`Self::element_graph`] with the calls at `split` (member, body
    /// statement) as head and tail.
    fn element_graph_split<'s>(
        &self,
        members: &[Member<'_, 's>],
        split: &BTreeSet<(usize, usize)>,
    ) -> ElementGraph<'s> {
        let analysis = self.analysis;
        // Members whose loop variable is rebound to the node standing in the
        // element's place: their type tests may see another node than the
        // element the loop found, so none of their statements is dropped
        // for a type, and each of their statements comes after every call
        // that may replace the element.
        let rebound = self.region_followers(members).unwrap_or_default();
        let elem_ty = members.first().and_then(|m| m.1.lp).and_then(|f| {
            match self.program.fields[f.index()].kind {
                FieldKind::List(t) => Some(t),
                _ => None,
            }
        });
        let mut evs: Vec<Ev> = Vec::new();
        for (m, (participant, vertex, body, var)) in members.iter().enumerate() {
            let Some(sets) = vertex.blocks else { continue };
            for (j, (stmt, set)) in body.iter().zip(sets).enumerate() {
                let parts = split
                    .contains(&(m, j))
                    .then(|| {
                        let s = self.program.split_of(element_call(stmt)?)?;
                        Some((s, set.split.as_deref()?))
                    })
                    .flatten();
                if let Some((s, [head, tail])) = parts {
                    for (part, method, set) in [(true, s.head, head), (false, s.tail, tail)] {
                        evs.push(Ev {
                            member: m,
                            participant: *participant,
                            stmt: j,
                            set,
                            call: Some(method),
                            inputs: input_reads(stmt, analysis),
                            type_test: None,
                            part: Some(part),
                        });
                    }
                    continue;
                }
                evs.push(Ev {
                    member: m,
                    participant: *participant,
                    stmt: j,
                    set: &set.set,
                    call: element_call(stmt),
                    inputs: input_reads(stmt, analysis),
                    type_test: element_type_test(stmt, *var).filter(|_| !rebound.contains(&m)),
                    part: None,
                });
            }
        }
        let n = evs.len();
        let replaces: Vec<bool> = evs
            .iter()
            .map(|e| {
                !rebound.is_empty()
                    && e.call
                        .zip(elem_ty)
                        .is_some_and(|(c, t)| self.call_replaces(t, c))
            })
            .collect();
        // Only the pairs whose accesses may meet, or that the other
        // reasons below order (within a participant; after a replacing
        // call, the events of rebound members), are tested, in ascending
        // order as a scan of every pair would meet them.
        let mut pairs = crate::commute::candidate_pairs(
            &evs.iter()
                .map(|e| self.conflicts.opening(e.set))
                .collect::<Vec<_>>()
                .iter()
                .map(|o| &**o)
                .collect::<Vec<_>>(),
            &evs.iter().map(|e| e.participant).collect::<Vec<_>>(),
        );
        for u in (0..n).filter(|&u| replaces[u]) {
            pairs.extend(
                (u + 1..n)
                    .filter(|&v| rebound.contains(&evs[v].member))
                    .map(|v| (u, v)),
            );
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut edges = Vec::new();
        for (u, v) in pairs {
            let same = evs[u].participant == evs[v].participant;
            // A split call's head runs before its tail.
            let parts_of_one = evs[u].part == Some(true)
                && evs[v].part == Some(false)
                && (evs[u].member, evs[u].stmt) == (evs[v].member, evs[v].stmt);
            if parts_of_one
                || (same && (evs[u].set.returns || evs[v].set.returns))
                || (replaces[u] && rebound.contains(&evs[v].member))
                || self
                    .conflicts
                    .conflict_of(evs[u].set, evs[v].set, same)
                    .is_some()
            {
                edges.push((u, v));
            }
        }
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (u, v) in &edges {
            succ[*u].push(*v);
        }
        let mut grouping = Grouping::singletons(n);
        let calls: Vec<usize> = (0..n).filter(|&v| evs[v].call.is_some()).collect();
        let mut refused: BTreeMap<(usize, usize), String> = BTreeMap::new();
        for (i, &a) in calls.iter().enumerate() {
            for &b in &calls[i + 1..] {
                let (ga, gb) = (grouping.group[a], grouping.group[b]);
                if ga == gb {
                    continue;
                }
                let methods: Vec<MethodId> = grouping.members[ga]
                    .iter()
                    .chain(&grouping.members[gb])
                    .filter_map(|&v| evs[v].call)
                    .collect();
                let inputs_ok = grouping.cross_edges(&succ, ga, gb).all(|(u, v)| {
                    evs[v]
                        .inputs
                        .as_ref()
                        .is_some_and(|r| self.conflicts.conflict(evs[u].set, r, false).is_none())
                });
                let reason = if !inputs_ok {
                    "the later call's arguments read what an earlier call on the element may write"
                        .to_string()
                } else if !self.within_cutoffs(&methods) {
                    format!("cut-off: {}", self.options.describe(true))
                } else if !grouping.merge_keeps_acyclic(&succ, ga, gb) {
                    element_path(&succ, a, b)
                        .map(|v| {
                            format!(
                                "statement {} of the loop body of p{} depends on the earlier call and the later call depends on it (for example a read of the element's fields after the earlier call that the later call may change), so they cannot run as one call",
                                evs[v].stmt + 1,
                                evs[v].participant
                            )
                        })
                        .unwrap_or_else(|| "merging would reverse a dependence between the loop bodies".into())
                } else {
                    grouping.merge(ga, gb);
                    continue;
                };
                refused.entry((a, b)).or_insert(reason);
            }
        }
        let group = grouping.group;
        let split = (0..n)
            .filter(|&h| evs[h].part == Some(true) && group[h] != h)
            .map(|h| ((evs[h].member, evs[h].stmt), group[h]))
            .collect();
        ElementGraph {
            evs,
            edges,
            succ,
            group,
            refused,
            split,
        }
    }

    /// The per-element schedule of merged loops: a dependence graph over
    /// all their body statements (relative to `self`, the element being
    /// the list's label), calls on the element merged like calls on a
    /// child, in topological order.
    ///
    /// Also returns, for every pair of element calls left in different
    /// fused calls, why (the report must show every pair kept apart).
    fn element_schedule(
        &mut self,
        members: &[Member],
        elem_ty: TypeId,
    ) -> (Vec<LoopStep>, Vec<Blocked>, Vec<SplitCall>) {
        let ElementGraph {
            evs,
            edges,
            succ,
            group,
            refused,
            split: split_calls,
        } = self.element_graph(members);
        let n = evs.len();
        let order = schedule(&succ, &group).unwrap_or_else(|| (0..n).collect());
        let split = self.type_split(&evs, &edges, &group, &order, elem_ty);
        let apart_types = |a: usize, b: usize| split.apart(&group, a, b);
        let mut blocked = Vec::new();
        for ((a, b), reason) in refused {
            let (ea, eb) = (&evs[a], &evs[b]);
            // The head and tail of one split call are reported as a split.
            if group[a] == group[b] || (ea.member, ea.stmt) == (eb.member, eb.stmt) {
                continue;
            }
            let reason = match (ea.part, eb.part) {
                (Some(true), _) | (_, Some(true)) => format!("(the head of a split call) {reason}"),
                (Some(false), _) | (_, Some(false)) => {
                    format!("(the tail of a split call) {reason}")
                }
                _ => reason,
            };
            // Pairs kept apart only for some element types say so.
            let apart = apart_types(a, b);
            let reason = if apart.len() < split.types.len() {
                format!(
                    "calls on the loop element kept apart: {reason} (only where the element is {}; merged for its other types)",
                    self.type_list(&apart)
                )
            } else {
                format!("calls on the loop element kept apart: {reason}")
            };
            blocked.push(Blocked {
                first: (ea.participant, members[ea.member].1.stmt),
                second: (eb.participant, members[eb.member].1.stmt),
                first_span: members[ea.member].2[ea.stmt].span,
                second_span: members[eb.member].2[eb.stmt].span,
                reason,
            });
        }
        let splits = split_calls
            .iter()
            .filter_map(|&((m, j), joined)| {
                let head = evs.iter().position(|e| {
                    e.part == Some(true) && (e.member, e.stmt) == (m, j)
                })?;
                let tail = evs.iter().position(|e| {
                    e.part == Some(false) && (e.member, e.stmt) == (m, j)
                })?;
                let apart = apart_types(head, tail);
                let ej = &evs[joined];
                Some(SplitCall {
                    call: (evs[head].participant, members[m].1.stmt),
                    span: members[m].2[j].span,
                    joined: (ej.participant, members[ej.member].1.stmt),
                    joined_span: members[ej.member].2[ej.stmt].span,
                    types: apart.clone(),
                    reason: format!(
                        "a statement between the calls depends on the later call only through its tail (what it does after its last call on a child): its head joins the earlier call's walk, its tail runs after that statement{}",
                        if apart.len() < split.types.len() {
                            format!(
                                " where the element is {}; for its other types the tail joins the head",
                                self.type_list(&apart)
                            )
                        } else {
                            String::new()
                        }
                    ),
                })
            })
            .collect();
        let mut steps = Vec::new();
        let mut emitted = BTreeSet::new();
        for v in order {
            if evs[v].call.is_none() {
                steps.push(LoopStep::Stmt {
                    member: evs[v].member,
                    stmt: evs[v].stmt,
                });
            } else if emitted.insert(group[v]) {
                // The calls of every group that runs here for some type.
                let here = |u: usize| {
                    evs[u].call.is_some() && split.site_of.iter().any(|s| s[&group[u]] == group[v])
                };
                let members: Vec<usize> = (0..n).filter(|&u| here(u)).collect();
                if members.is_empty() {
                    continue;
                }
                let methods: Vec<MethodId> = members.iter().filter_map(|&u| evs[u].call).collect();
                let targets = self.targets(elem_ty, &methods);
                let guards = self.step_guards(
                    &split,
                    &group,
                    &members,
                    group[v],
                    ("the element", "the element", "a statement of the loop body"),
                );
                steps.push(LoopStep::Call {
                    calls: members
                        .iter()
                        .map(|&u| (evs[u].member, evs[u].stmt))
                        .collect(),
                    targets,
                    guards,
                });
            }
        }
        (steps, blocked, splits)
    }

    /// The type guards of the calls `members` (vertices of a graph whose
    /// grouping is `group`) of the call step of group `site`, parallel to
    /// `members`; empty if none is guarded. `subject` is what the types are
    /// of, `callee` what the calls are made on, `between` what keeps a
    /// call apart, in words.
    fn step_guards(
        &self,
        split: &TypeSplit,
        group: &[usize],
        members: &[usize],
        site: usize,
        (subject, callee, between): (&str, &str, &str),
    ) -> Vec<Option<TypeGuard>> {
        let guards: Vec<Option<TypeGuard>> = members
            .iter()
            .map(|&u| {
                let types: Vec<TypeId> = split
                    .types
                    .iter()
                    .enumerate()
                    .filter(|(t, _)| split.site(*t, group[u]) == site)
                    .map(|(_, &ty)| ty)
                    .collect();
                (types.len() < split.types.len()).then(|| {
                    let others: Vec<TypeId> = split
                        .types
                        .iter()
                        .copied()
                        .filter(|t| !types.contains(t))
                        .collect();
                    let reason = if group[u] == site {
                        format!(
                            "where {subject} is {}, it joins an earlier fused call on {callee}",
                            self.type_list(&others)
                        )
                    } else {
                        format!(
                            "where {subject} is {}, {between} between the calls depends on both, so it runs later, at its own call; for the other types that statement is under an `is` test that fails",
                            self.type_list(&others)
                        )
                    };
                    TypeGuard { types, reason }
                })
            })
            .collect();
        if guards.iter().all(Option::is_none) {
            Vec::new()
        } else {
            guards
        }
    }

    /// `Let`, `Let` or `Assign`, `A`, `B` or `C`: type names for reports.
    fn type_list(&self, types: &[TypeId]) -> String {
        let names: Vec<String> = types
            .iter()
            .map(|&t| format!("`{}`", self.program.type_name(t)))
            .collect();
        match names.split_last() {
            None => "of no type".into(),
            Some((last, [])) => format!("of type {last}"),
            Some((last, rest)) => format!("of type {} or {last}", rest.join(", ")),
        }
    }

    /// Type-guarded participation in merged loops: where, for each
    /// concrete type of the element, each group of calls on the element
    /// runs (`site_of[type][group]`, a group id of `group` whose call step
    /// it joins; itself unless it moved).
    ///
    /// For a type `T`, a body statement `if x is U { .. }` (no `else`; `x`
    /// the loop variable, which denotes the element as the loop found it,
    /// so the test's outcome is fixed for the iteration) with `T` not a
    /// subtype of `U` does nothing: its dependences vanish. A later call
    /// group moves, for `T`, into an earlier call step when the order in
    /// which `T`'s iteration then runs its statements keeps every
    /// dependence that is live for `T` (and the arguments of the moved
    /// calls, evaluated at the earlier step, read nothing its other calls
    /// write). Only where no call before a step whose calls vary by type may
    /// replace the element: the node called there is then the element the
    /// loop found, whose type decides.
    fn type_split(
        &self,
        evs: &[Ev],
        edges: &[(usize, usize)],
        group: &[usize],
        order: &[usize],
        elem_ty: TypeId,
    ) -> TypeSplit {
        let types = self.program.types[elem_ty.index()]
            .concrete_subtypes
            .clone();
        let mut pos = vec![0usize; evs.len()];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        let dead: Vec<Vec<bool>> = types
            .iter()
            .map(|&t| {
                evs.iter()
                    .map(|e| {
                        e.call.is_none()
                            && e.type_test.is_some_and(|u| !self.program.is_subtype(t, u))
                    })
                    .collect()
            })
            .collect();
        let graph = SplitGraph {
            calls: evs.iter().map(|e| e.call).collect(),
            sets: evs.iter().map(|e| e.set).collect(),
            inputs: evs.iter().map(|e| e.inputs.as_ref()).collect(),
            edges,
            dead,
            pos,
            replaces: evs
                .iter()
                .map(|e| e.call.is_some_and(|m| self.call_replaces(elem_ty, m)))
                .collect(),
        };
        self.split_by_type(&graph, types, group, order)
    }

    /// The greedy core of [`Self::type_split`] and
    /// [`Self::child_type_split`]: for each concrete type (index into
    /// `types`) of the node the calls of `graph` are made on, moves later
    /// call groups into earlier call steps where that type's run keeps
    /// every dependence live for it (`graph.dead` drops the others).
    fn split_by_type(
        &self,
        graph: &SplitGraph,
        types: Vec<TypeId>,
        group: &[usize],
        order: &[usize],
    ) -> TypeSplit {
        let n = graph.calls.len();
        // Call groups (by group id) in schedule order, with their positions.
        let mut sites: Vec<usize> = Vec::new();
        let mut site_pos: BTreeMap<usize, usize> = BTreeMap::new();
        for (i, &v) in order.iter().enumerate() {
            if graph.calls[v].is_some() && !site_pos.contains_key(&group[v]) {
                site_pos.insert(group[v], i);
                sites.push(group[v]);
            }
        }
        let identity: BTreeMap<usize, usize> = sites.iter().map(|&g| (g, g)).collect();
        let mut site_of: Vec<BTreeMap<usize, usize>> = vec![identity; types.len()];
        let dead = &graph.dead;
        let at = |s: &BTreeMap<usize, usize>, v: usize| {
            if graph.calls[v].is_some() {
                site_pos[&s[&group[v]]]
            } else {
                graph.pos[v]
            }
        };
        // Whether type `t`'s run keeps its live dependences.
        let keeps_order = |t: usize, s: &BTreeMap<usize, usize>| {
            graph.edges.iter().all(|&(u, v)| {
                if dead[t][u] || dead[t][v] {
                    return true;
                }
                let (pu, pv) = (at(s, u), at(s, v));
                if pu == pv && graph.calls[u].is_none() && graph.calls[v].is_none() {
                    // Two members of one step that does not move (a fused
                    // call on another child, merged loops): grouped before.
                    true
                } else if pu == pv {
                    // One fused call: `v`'s arguments are evaluated first.
                    graph.inputs[v]
                        .is_some_and(|r| self.conflicts.conflict(graph.sets[u], r, false).is_none())
                } else {
                    pu < pv
                }
            })
        };
        // Cut-offs per call step, and no replacement before a step whose
        // calls vary by type.
        let steps_ok = |site_of: &[BTreeMap<usize, usize>]| {
            let at_site = |g: usize, t: usize| site_of[t][&g];
            for &k in &sites {
                let methods: Vec<MethodId> = (0..n)
                    .filter(|&u| {
                        graph.calls[u].is_some()
                            && (0..types.len()).any(|t| at_site(group[u], t) == k)
                    })
                    .filter_map(|u| graph.calls[u])
                    .collect();
                if !self.within_cutoffs(&methods) {
                    return false;
                }
                let varies = sites.iter().any(|&g| {
                    let here = (0..types.len()).filter(|&t| at_site(g, t) == k).count();
                    here != 0 && here != types.len()
                });
                if !varies {
                    continue;
                }
                let replaced_before = (0..n).any(|u| {
                    graph.replaces[u]
                        && (0..types.len()).any(|t| site_pos[&at_site(group[u], t)] < site_pos[&k])
                });
                if replaced_before {
                    return false;
                }
            }
            true
        };
        if types.len() > 1 {
            for j in 1..sites.len() {
                for i in 0..j {
                    for t in 0..types.len() {
                        let (gi, gj) = (sites[i], sites[j]);
                        if site_of[t][&gj] != gj || site_of[t][&gi] != gi {
                            continue;
                        }
                        let mut trial = site_of.clone();
                        trial[t].insert(gj, gi);
                        if keeps_order(t, &trial[t]) && steps_ok(&trial) {
                            site_of = trial;
                        }
                    }
                }
            }
        }
        TypeSplit { types, site_of }
    }

    /// Type-guarded participation in fused calls on a child of the fused
    /// function's node: for the first child field (in statement order)
    /// where it moves a call, where each group of calls on that field runs
    /// per concrete type of the node standing in it when the function
    /// starts.
    ///
    /// For a start type `T`, [`Self::dead_for_child_type`] finds the
    /// statements `if .. self.c is U .. { .. }` (no `else`) whose guard is
    /// false whenever the unfused run reaches them: it follows the types
    /// the slot may hold through every participant's statements in unfused
    /// order. Those do nothing for `T`, so their dependences vanish, and a
    /// later call group joins an earlier one where `T`'s run keeps every
    /// live dependence ([`Self::split_by_type`]). Only on fields where no
    /// call on the child may replace it: calls on `c` then never write the
    /// slot, statements that do keep their order (they do not move), so a
    /// dead statement's guard, which reads only the slot, sees the node it
    /// sees unfused.
    #[allow(clippy::too_many_arguments)]
    fn child_type_split(
        &self,
        participants: &[Participant],
        vertices: &[Vertex],
        edges: &[(usize, usize)],
        inputs: &[Option<AccessSet>],
        group: &[usize],
        order: &[usize],
    ) -> Option<(FieldId, TypeSplit)> {
        let mut fields: Vec<FieldId> = Vec::new();
        for v in vertices {
            if let Some((f, _)) = v.call {
                if !fields.contains(&f) {
                    fields.push(f);
                }
            }
        }
        let mut first: BTreeMap<usize, usize> = BTreeMap::new();
        for (i, &v) in order.iter().enumerate() {
            first.entry(group[v]).or_insert(i);
        }
        for field in fields {
            let on_field = |v: &Vertex| v.call.filter(|c| c.0 == field).map(|c| c.1);
            let groups: BTreeSet<usize> = (0..vertices.len())
                .filter(|&v| on_field(&vertices[v]).is_some())
                .map(|v| group[v])
                .collect();
            let FieldKind::Child(child_ty) = self.program.fields[field.index()].kind else {
                continue;
            };
            // An optional child may be empty as the function starts: no
            // type to split by (§8.7).
            if self.program.is_optional(field) {
                continue;
            }
            let types = self.program.types[child_ty.index()]
                .concrete_subtypes
                .clone();
            if groups.len() < 2 || types.len() < 2 {
                continue;
            }
            if vertices
                .iter()
                .any(|v| on_field(v).is_some_and(|m| self.call_replaces(child_ty, m)))
            {
                continue;
            }
            // Calls of traversals that may end early (`return`) are often
            // switched off: merging them into another call saves no visit
            // then, and makes the callee carry them. Their groups stay put.
            let fixed: BTreeSet<usize> = (0..vertices.len())
                .filter(|&v| on_field(&vertices[v]).is_some_and(|m| self.ends_early[m.index()]))
                .map(|v| group[v])
                .collect();
            if groups.difference(&fixed).count() < 2 {
                continue;
            }
            let dead: Vec<Vec<bool>> = types
                .iter()
                .map(|&t| self.dead_for_child_type(participants, vertices, field, t, &types))
                .collect();
            if dead.iter().all(|d| d.iter().all(|x| !x)) {
                continue;
            }
            let graph = SplitGraph {
                calls: (0..vertices.len())
                    .map(|v| on_field(&vertices[v]).filter(|_| !fixed.contains(&group[v])))
                    .collect(),
                sets: vertices.iter().map(|v| v.set).collect(),
                inputs: inputs.iter().map(Option::as_ref).collect(),
                edges,
                dead,
                pos: (0..vertices.len()).map(|v| first[&group[v]]).collect(),
                replaces: vec![false; vertices.len()],
            };
            let split = self.split_by_type(&graph, types, group, order);
            if split
                .site_of
                .iter()
                .any(|s| s.iter().any(|(g, site)| g != site))
            {
                return Some((field, split));
            }
        }
        None
    }

    /// Per vertex: whether it is a statement `if cond { .. }` (no `else`,
    /// not a call on a child) that does nothing when the node in child
    /// `field` is a `start` as the fused function starts: `cond` is false
    /// by its tests of `self.field` alone (evaluated left to right, so what
    /// follows a false `&&` operand is never evaluated) on every type the
    /// slot may hold when the unfused run reaches it. The types flow through
    /// the participants' statements in unfused order: `self.field = new X
    /// {..}` (alone or as the last slot write of an `if`'s statements) sets
    /// them, any other statement that may write the slot, or replace the
    /// node, makes them unknown, and a participant's `return`s join their
    /// types into what the next participant starts with.
    fn dead_for_child_type(
        &self,
        participants: &[Participant],
        vertices: &[Vertex],
        field: FieldId,
        start: TypeId,
        types: &[TypeId],
    ) -> Vec<bool> {
        let slot = [self.analysis.labels().field(field)];
        let all: BTreeSet<TypeId> = types.iter().copied().collect();
        let mut state: BTreeSet<TypeId> = BTreeSet::from([start]);
        let mut exits: BTreeSet<TypeId> = BTreeSet::new();
        let mut current = None;
        let mut dead = vec![false; vertices.len()];
        for (i, v) in vertices.iter().enumerate() {
            if current != Some(v.participant) {
                state.append(&mut exits);
                current = Some(v.participant);
            }
            let Some(stmt) = self.program.bodies[participants[v.participant].body.index()]
                .body
                .as_deref()
                .and_then(|b| b.get(v.stmt))
            else {
                continue;
            };
            if v.call.is_none() {
                if let StmtKind::If {
                    cond, else_branch, ..
                } = &stmt.kind
                {
                    if else_branch.is_empty() && self.child_test(cond, field, &state) == Some(false)
                    {
                        dead[i] = true;
                        continue;
                    }
                }
            }
            let before = state.clone();
            if v.replaces {
                state = all.clone();
            } else if v.set.writes.accepts(&slot) {
                state = self
                    .slot_replaced_with(stmt, field, &state)
                    .unwrap_or_else(|| all.clone());
            }
            if v.set.returns {
                exits.extend(before);
                exits.extend(state.iter().copied());
            }
        }
        dead
    }

    /// The value of `e` when the node in child `field` has one of the
    /// types in `state`, if its tests of that child alone decide it (`&&`
    /// and `||` short-circuit left to right, so an undecided left operand
    /// leaves the whole undecided).
    fn child_test(&self, e: &Expr, field: FieldId, state: &BTreeSet<TypeId>) -> Option<bool> {
        use treefuse_sema::ops::{BinaryOp, UnaryOp};
        match &e.kind {
            ExprKind::Binary(BinaryOp::And, l, r) => match self.child_test(l, field, state)? {
                false => Some(false),
                true => self.child_test(r, field, state),
            },
            ExprKind::Binary(BinaryOp::Or, l, r) => match self.child_test(l, field, state)? {
                true => Some(true),
                false => self.child_test(r, field, state),
            },
            ExprKind::Unary(UnaryOp::Not, x) => self.child_test(x, field, state).map(|b| !b),
            ExprKind::Is(path, u)
                if path.root == PathRoot::SelfNode
                    && matches!(path.steps[..], [PathStep::Child(f)] if f == field) =>
            {
                let inside = state
                    .iter()
                    .filter(|&&t| self.program.is_subtype(t, *u))
                    .count();
                match inside {
                    0 => Some(false),
                    k if k == state.len() => Some(true),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The types child `field` may hold after `stmt`, which may write its
    /// slot, when it held one of `state` before; `None` if unknown.
    /// Recognized: `self.field = new X {..}`, and `if cond { .. }` (no
    /// `else`) whose statements are `let`s, data assignments and such
    /// replacements, the last of which decides.
    fn slot_replaced_with(
        &self,
        stmt: &Stmt,
        field: FieldId,
        state: &BTreeSet<TypeId>,
    ) -> Option<BTreeSet<TypeId>> {
        let replaced = |s: &Stmt| match &s.kind {
            StmtKind::Replace { slot, tree }
                if slot.field == field
                    && slot.parent.root == PathRoot::SelfNode
                    && slot
                        .parent
                        .steps
                        .iter()
                        .all(|p| matches!(p, PathStep::Cast(_))) =>
            {
                Some(tree.ty)
            }
            _ => None,
        };
        if let Some(t) = replaced(stmt) {
            return Some(BTreeSet::from([t]));
        }
        let StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } = &stmt.kind
        else {
            return None;
        };
        if !else_branch.is_empty() {
            return None;
        }
        let mut last = None;
        for s in then_branch {
            match (&s.kind, replaced(s)) {
                (_, Some(t)) => last = Some(t),
                (StmtKind::Let { .. } | StmtKind::Assign { .. }, None) => {}
                _ => return None,
            }
        }
        let last = last?;
        Some(match self.child_test(cond, field, state) {
            Some(true) => BTreeSet::from([last]),
            Some(false) => state.clone(),
            None => {
                let mut s = state.clone();
                s.insert(last);
                s
            }
        })
    }

    fn entry(&mut self, fuse: &Fuse) -> FusedEntry {
        let mut chunks = Vec::new();
        let body = self.entry_stmts(fuse, &fuse.body, &mut chunks);
        FusedEntry {
            fuse: fuse.name.clone(),
            chunks,
            body,
        }
    }

    /// The entry statements of one statement list of a `fuse` item:
    /// maximal runs of consecutive calls are cut into chunks; global
    /// assignments and loops stay statements (a chunk never crosses them,
    /// so every call sees the globals as the unfused run does).
    fn entry_stmts(
        &mut self,
        fuse: &Fuse,
        stmts: &[FuseStmt],
        chunks: &mut Vec<EntryChunk>,
    ) -> Vec<EntryStmt> {
        let mut out = Vec::new();
        let mut run: Vec<usize> = Vec::new();
        for (stmt, s) in stmts.iter().enumerate() {
            match s {
                FuseStmt::Call(c) => {
                    run.push(*c);
                    continue;
                }
                FuseStmt::SetGlobal { span, .. } => {
                    self.flush_calls(fuse, &mut run, chunks, &mut out);
                    out.push(EntryStmt::SetGlobal { stmt, span: *span });
                }
                FuseStmt::While { body, span, .. } => {
                    self.flush_calls(fuse, &mut run, chunks, &mut out);
                    let body = self.entry_stmts(fuse, body, chunks);
                    out.push(EntryStmt::While {
                        stmt,
                        body,
                        span: *span,
                    });
                }
                FuseStmt::Break { span } => {
                    self.flush_calls(fuse, &mut run, chunks, &mut out);
                    out.push(EntryStmt::Break { span: *span });
                }
            }
        }
        self.flush_calls(fuse, &mut run, chunks, &mut out);
        out
    }

    /// Cuts a run of consecutive calls into chunks, each one fused call on
    /// the root, and records why each chunk after the first is separate.
    fn flush_calls(
        &mut self,
        fuse: &Fuse,
        run: &mut Vec<usize>,
        chunks: &mut Vec<EntryChunk>,
        out: &mut Vec<EntryStmt>,
    ) {
        let mut current: Vec<usize> = Vec::new();
        let mut split = None;
        for j in std::mem::take(run) {
            if !current.is_empty() {
                if let Some(why) = self.chunk_split(fuse, &current, j) {
                    self.push_chunk(
                        fuse,
                        std::mem::take(&mut current),
                        split.take(),
                        chunks,
                        out,
                    );
                    split = Some(why);
                }
            }
            current.push(j);
        }
        if !current.is_empty() {
            self.push_chunk(fuse, current, split, chunks, out);
        }
    }

    fn push_chunk(
        &mut self,
        fuse: &Fuse,
        calls: Vec<usize>,
        split: Option<ChunkSplit>,
        chunks: &mut Vec<EntryChunk>,
        out: &mut Vec<EntryStmt>,
    ) {
        let methods: Vec<MethodId> = calls.iter().map(|&c| fuse.calls[c].method).collect();
        let targets = self.targets(fuse.root_type, &methods);
        out.push(EntryStmt::Chunk(chunks.len()));
        chunks.push(EntryChunk {
            calls,
            targets,
            split,
        });
    }

    /// Why call `next` cannot join the chunk `current`, if it cannot.
    fn chunk_split(&self, fuse: &Fuse, current: &[usize], next: usize) -> Option<ChunkSplit> {
        // A call that may replace the root is the last of its chunk: later
        // calls run on the new root.
        if let Some(&last) = current.last() {
            if self.call_replaces(fuse.root_type, fuse.calls[last].method) {
                return Some(ChunkSplit::AfterReplacingCall { replacer: last });
            }
        }
        let mut methods: Vec<MethodId> = current.iter().map(|&c| fuse.calls[c].method).collect();
        methods.push(fuse.calls[next].method);
        if methods.len() > self.options.max_group {
            return Some(ChunkSplit::MaxGroup(self.options.max_group));
        }
        if !self.within_cutoffs(&methods) {
            return Some(ChunkSplit::MaxRepeat(self.options.max_repeat));
        }
        // Arguments are evaluated when the fused call starts, before any
        // call of the chunk runs; a global they read must not be written by
        // an earlier call of the chunk. Checked per global.
        let mut read = BTreeSet::new();
        for a in &fuse.calls[next].args {
            visit::walk_expr(a, &mut |e| {
                if let ExprKind::Global(g) = e.kind {
                    read.insert(g);
                }
            });
        }
        for &g in &read {
            let global =
                treefuse_automata::Nfa::label(self.analysis.labels().global(g)).with_any_suffix();
            for &c in current {
                let writes = self
                    .analysis
                    .static_summary(fuse.root_type, fuse.calls[c].method)
                    .map(|s| &s.global_writes);
                if writes
                    .is_some_and(|w| treefuse_automata::intersection_witness(w, &global).is_some())
                {
                    return Some(ChunkSplit::ArgumentReadsGlobal {
                        writer: c,
                        global: self.program.globals[g.index()].name.clone(),
                    });
                }
            }
        }
        None
    }

    /// The fused form of top-level statement `k` of a participant's `body`
    /// when it is a `while` loop in whose body some run of consecutive
    /// calls on one child merges ([`WhileGroup`]); `None` otherwise (the
    /// loop then runs as a plain statement). Neighbouring calls on the
    /// same child that stay apart are recorded in `blocked` with the
    /// reason.
    fn while_group(
        &mut self,
        body: &[Stmt],
        participant: usize,
        k: usize,
        blocked: &mut Vec<Blocked>,
    ) -> Option<WhileGroup> {
        let StmtKind::While {
            body: loop_body, ..
        } = &body.get(k)?.kind
        else {
            return None;
        };
        let mut steps = Vec::new();
        let mut run: Vec<(usize, FieldId, MethodId)> = Vec::new();
        let mut merged = false;
        for (i, s) in loop_body.iter().enumerate() {
            let Some((field, method)) = plain_child_call(s) else {
                merged |= self.flush_while_run(&mut run, &mut steps);
                steps.push(WhileStep::Stmt(i));
                continue;
            };
            if let Some(&(_, prev_field, _)) = run.last() {
                if prev_field == field {
                    match self.while_run_split(&run, s, field, method) {
                        None => {
                            run.push((i, field, method));
                            continue;
                        }
                        Some((writer, reason)) => blocked.push(Blocked {
                            first: (participant, k),
                            second: (participant, k),
                            first_span: loop_body[run[writer].0].span,
                            second_span: s.span,
                            reason,
                        }),
                    }
                }
                merged |= self.flush_while_run(&mut run, &mut steps);
            }
            run.push((i, field, method));
        }
        merged |= self.flush_while_run(&mut run, &mut steps);
        merged.then_some(WhileGroup {
            participant,
            stmt: k,
            steps,
        })
    }

    /// Ends a run of calls of a `while` body: one fused call for two calls
    /// or more (returns `true`), the plain statement for one.
    fn flush_while_run(
        &mut self,
        run: &mut Vec<(usize, FieldId, MethodId)>,
        steps: &mut Vec<WhileStep>,
    ) -> bool {
        let run = std::mem::take(run);
        match run[..] {
            [] => false,
            [(i, ..)] => {
                steps.push(WhileStep::Stmt(i));
                false
            }
            [(_, field, _), ..] => {
                let FieldKind::Child(child_ty) = self.program.fields[field.index()].kind else {
                    steps.extend(run.iter().map(|&(i, ..)| WhileStep::Stmt(i)));
                    return false;
                };
                let methods: Vec<MethodId> = run.iter().map(|&(_, _, m)| m).collect();
                let targets = self.targets(child_ty, &methods);
                steps.push(WhileStep::Call {
                    field,
                    calls: run.iter().map(|&(i, ..)| i).collect(),
                    targets,
                });
                true
            }
        }
    }

    /// Why the call statement `next` (`self.field.method(..)`) cannot join
    /// the `run` of calls on the same child before it in a `while` body,
    /// if it cannot: the cut-offs, or arguments that read what an earlier
    /// call of the run may write (they are evaluated before the fused call
    /// starts).
    fn while_run_split(
        &self,
        run: &[(usize, FieldId, MethodId)],
        next: &Stmt,
        field: FieldId,
        method: MethodId,
    ) -> Option<(usize, String)> {
        let last = run.len() - 1;
        let mut methods: Vec<MethodId> = run.iter().map(|&(_, _, m)| m).collect();
        methods.push(method);
        if methods.len() > self.options.max_group {
            return Some((
                last,
                ChunkSplit::MaxGroup(self.options.max_group).to_string(),
            ));
        }
        if !self.within_cutoffs(&methods) {
            return Some((
                last,
                ChunkSplit::MaxRepeat(self.options.max_repeat).to_string(),
            ));
        }
        let StmtKind::Call { args, .. } = &next.kind else {
            return Some((last, "not a call statement".into()));
        };
        let child = &self.program.fields[field.index()].name;
        let child_ty = match self.program.fields[field.index()].kind {
            FieldKind::Child(t) => t,
            _ => return Some((last, format!("`self.{child}` is not a single child"))),
        };
        // The earliest call of the run that may write the tree below (or
        // replace) the child, and the earliest that may write a global.
        let summary = |m: MethodId| self.analysis.static_summary(child_ty, m);
        let tree_writer = run
            .iter()
            .position(|&(_, _, m)| summary(m).is_none_or(|s| !s.writes.is_empty()));
        let mut why: Option<(usize, String)> = None;
        // A path below `self.c` (or `self` whole, or any path through a
        // node variable) may see what an earlier call of the run changes.
        let through_child = |path: &NodePath, whole: bool| {
            path.root != PathRoot::SelfNode
                || (whole && path.steps.is_empty())
                || matches!(path.steps.first(), Some(PathStep::Child(f)) if *f == field)
        };
        for a in args {
            visit::walk_expr(a, &mut |e| {
                if why.is_some() {
                    return;
                }
                let touches = match &e.kind {
                    ExprKind::Field(p, _) | ExprKind::Is(p, _) | ExprKind::IsNone(p) => {
                        through_child(p, false)
                    }
                    ExprKind::ListLen(slot) => through_child(&slot.parent, false),
                    ExprKind::NodeCall(_, node_args) => node_args.iter().any(|n| match n {
                        PureArg::Node(p) => through_child(p, true),
                        PureArg::Data(_) => false,
                    }),
                    ExprKind::Global(g) => {
                        let global =
                            treefuse_automata::Nfa::label(self.analysis.labels().global(*g))
                                .with_any_suffix();
                        let writer = run.iter().position(|&(_, _, m)| {
                            summary(m).is_none_or(|s| {
                                treefuse_automata::intersection_witness(&s.global_writes, &global)
                                    .is_some()
                            })
                        });
                        if let Some(w) = writer {
                            why = Some((w, format!(
                                "its arguments read global `{}`, which the earlier call may write; arguments are evaluated before the fused call starts",
                                self.program.globals[g.index()].name
                            )));
                        }
                        false
                    }
                    _ => false,
                };
                if let Some(w) = tree_writer.filter(|_| touches) {
                    why = Some((w, format!(
                        "its arguments read `self.{child}` or below it (or go through a node variable), which the earlier call may change; arguments are evaluated before the fused call starts"
                    )));
                }
            });
        }
        why
    }

    fn targets(&mut self, static_ty: TypeId, methods: &[MethodId]) -> Vec<(TypeId, FusedFnId)> {
        self.program.types[static_ty.index()]
            .concrete_subtypes
            .clone()
            .into_iter()
            .map(|c| (c, self.function(c, methods.to_vec())))
            .collect()
    }

    fn build(&mut self, id: FusedFnId) {
        *self.interleaving.borrow_mut() = InterleavingMemo::default();
        let ty = self.functions[id.index()].ty;
        let participants = self.functions[id.index()].participants.clone();
        let program = self.program;
        let analysis = self.analysis;
        let mut vertices: Vec<Vertex> = Vec::new();
        for (p, part) in participants.iter().enumerate() {
            let body = &program.bodies[part.body.index()];
            let Some(stmts) = &body.body else { continue };
            let Some(accesses) = analysis.body_accesses(ty, part.method) else {
                continue;
            };
            for (k, (stmt, access)) in stmts.iter().zip(accesses).enumerate() {
                let call = child_call(stmt);
                vertices.push(Vertex {
                    participant: p,
                    stmt: k,
                    span: stmt.span,
                    set: &access.set,
                    opening: self.conflicts.opening(&access.set),
                    call,
                    lp: child_loop(stmt, access),
                    per_element: access.per_element.as_deref(),
                    blocks: access.blocks.first(),
                    loop_openings: access.per_element.as_deref().map(|l| {
                        [&l.iteration, &l.header, &l.other].map(|s| self.conflicts.opening(s))
                    }),
                    replaces: stmt_replaces_receiver(stmt, ty, analysis),
                });
            }
        }
        // Dependence edges, each with its reason (only between pairs whose
        // accesses may meet, and within participants).
        let n = vertices.len();
        let mut edges: Vec<(usize, usize, String)> = Vec::new();
        let candidates = crate::commute::candidate_pairs(
            &vertices.iter().map(|v| &*v.opening).collect::<Vec<_>>(),
            &vertices.iter().map(|v| v.participant).collect::<Vec<_>>(),
        );
        {
            for (u, v) in candidates {
                let (a, b) = (&vertices[u], &vertices[v]);
                let same = a.participant == b.participant;
                if same && (a.set.returns || b.set.returns) {
                    edges.push((
                        u,
                        v,
                        "control: `return` keeps its participant's order".into(),
                    ));
                    continue;
                }
                if !a.opening.may_conflict(&b.opening, same) {
                    continue;
                }
                if let Some(c) = self.conflicts.conflict_of(a.set, b.set, same) {
                    edges.push((u, v, self.conflict_text(&c, &participants, a.participant)));
                }
            }
        }
        // A participant that replaces the node ends there, and every later
        // participant must then run on the new node (LANGUAGE.md §7.1):
        // none of their statements may run before a statement that may
        // replace. The fused function *postpones* them when the
        // replacement happens and runs them on the new node(s) at its end
        // (`FusedFunction::resume`), which is their unfused order, since
        // every earlier participant's statements will have run by then.
        for u in 0..n {
            if !vertices[u].replaces {
                continue;
            }
            for v in 0..n {
                if vertices[v].participant > vertices[u].participant
                    && !edges.iter().any(|(a, b, _)| *a == u && *b == v)
                {
                    let method = participants[vertices[u].participant].method;
                    edges.push((
                        u,
                        v,
                        format!(
                            "`{}` may replace the `{}` node here; later traversals run on the new node, after it",
                            program.methods[method.index()].name,
                            program.type_name(ty)
                        ),
                    ));
                }
            }
        }
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (u, v, _) in &edges {
            succ[*u].push(*v);
        }
        // Where postponed participants resume: for each participant that
        // may replace the node with participants after it, the fused
        // functions of those later participants, per concrete type the
        // replacement may have.
        let mut resume = Vec::new();
        for p in 0..participants.len().saturating_sub(1) {
            if !vertices.iter().any(|v| v.participant == p && v.replaces) {
                continue;
            }
            let later: Vec<MethodId> = participants[p + 1..].iter().map(|x| x.method).collect();
            let types: Vec<TypeId> = (0..program.types.len())
                .map(|t| TypeId(t as u32))
                .filter(|&t| !program.types[t.index()].is_abstract)
                .filter(|&t| later.iter().all(|&m| program.dispatch(t, m).is_some()))
                .collect();
            let targets = types
                .into_iter()
                .map(|t| (t, self.function(t, later.clone())))
                .collect();
            resume.push(Resume {
                participant: p,
                targets,
            });
        }
        // What each call's arguments and guard read, evaluated ahead of the
        // other members of a fused call (`None`: not expressible, assume
        // anything).
        let inputs: Vec<Option<AccessSet>> = vertices
            .iter()
            .map(|v| {
                let stmts = program.bodies[participants[v.participant].body.index()]
                    .body
                    .as_deref()
                    .unwrap_or(&[]);
                stmts.get(v.stmt).and_then(|s| input_reads(s, analysis))
            })
            .collect();
        // Greedy grouping of calls on the same child.
        let mut grouping = Grouping::singletons(n);
        let calls: Vec<usize> = (0..n).filter(|&v| vertices[v].call.is_some()).collect();
        for (i, &a) in calls.iter().enumerate() {
            for &b in &calls[i + 1..] {
                let (ga, gb) = (grouping.group[a], grouping.group[b]);
                if ga == gb || vertices[a].call.map(|c| c.0) != vertices[b].call.map(|c| c.0) {
                    continue;
                }
                let methods: Vec<MethodId> = grouping.members[ga]
                    .iter()
                    .chain(&grouping.members[gb])
                    .filter_map(|&v| vertices[v].call.map(|c| c.1))
                    .collect();
                // Within a fused call, every member's arguments (and guard)
                // are evaluated before any member runs. That is only the
                // unfused order if no member reads, there, what an earlier
                // member writes; inputs that read only the frame are safe
                // (a call cannot write its caller's frame). Edges within
                // either group were checked when it formed.
                let inputs_ok =
                    grouping
                        .cross_edges(&succ, ga, gb)
                        .all(|(u, v)| match &inputs[v] {
                            Some(reads) => self
                                .conflicts
                                .conflict(vertices[u].set, reads, false)
                                .is_none(),
                            None => false,
                        });
                if inputs_ok
                    && self.within_cutoffs(&methods)
                    && grouping.merge_keeps_acyclic(&succ, ga, gb)
                {
                    grouping.merge(ga, gb);
                }
            }
        }
        // Greedy merging of loops over the same list of children.
        let loops: Vec<usize> = (0..n).filter(|&v| vertices[v].lp.is_some()).collect();
        for (i, &a) in loops.iter().enumerate() {
            for &b in &loops[i + 1..] {
                let (ga, gb) = (grouping.group[a], grouping.group[b]);
                if ga == gb || vertices[a].lp != vertices[b].lp {
                    continue;
                }
                if self.loops_may_join(&vertices, &grouping, (ga, gb), &participants)
                    && grouping.merge_keeps_acyclic(&succ, ga, gb)
                {
                    grouping.merge(ga, gb);
                }
            }
        }
        let mut group = grouping.group;
        self.regroup_loops(&vertices, &succ, &participants, &loops, &mut group);
        let order = schedule(&succ, &group).unwrap_or_else(|| (0..n).collect());
        let edge_pairs: Vec<(usize, usize)> = edges.iter().map(|(u, v, _)| (*u, *v)).collect();
        let child_split = self.child_type_split(
            &participants,
            &vertices,
            &edge_pairs,
            &inputs,
            &group,
            &order,
        );
        // Steps in schedule order; a group appears once, where its first
        // member is scheduled (with a type split on its field: the calls of
        // every group that runs there for some type).
        let mut steps = Vec::new();
        let mut element_blocked = Vec::new();
        // Calls on the same child inside a `while` loop left apart.
        let mut loop_blocked: Vec<Blocked> = Vec::new();
        let mut split_calls = Vec::new();
        let mut emitted = BTreeSet::new();
        for v in order {
            let vx = &vertices[v];
            match vx.call {
                Some((field, _)) if !emitted.contains(&group[v]) => {
                    emitted.insert(group[v]);
                    let split = child_split
                        .as_ref()
                        .filter(|(f, _)| *f == field)
                        .map(|(_, s)| s);
                    let members: Vec<usize> = match split {
                        Some(split) => (0..n)
                            .filter(|&u| {
                                vertices[u].call.is_some_and(|c| c.0 == field)
                                    && (0..split.types.len())
                                        .any(|t| split.site(t, group[u]) == group[v])
                            })
                            .collect(),
                        None => (0..n).filter(|&u| group[u] == group[v]).collect(),
                    };
                    if members.is_empty() {
                        continue;
                    }
                    let field_name = format!("`self.{}`", program.fields[field.index()].name);
                    let guards = match split {
                        Some(split) => self.step_guards(
                            split,
                            &group,
                            &members,
                            group[v],
                            (
                                &format!("{field_name} as the function starts"),
                                &field_name,
                                "a statement",
                            ),
                        ),
                        None => Vec::new(),
                    };
                    let methods: Vec<MethodId> = members
                        .iter()
                        .filter_map(|&u| vertices[u].call.map(|c| c.1))
                        .collect();
                    let child_ty = match program.fields[field.index()].kind {
                        FieldKind::Child(t) => t,
                        _ => continue,
                    };
                    let targets = self.targets(child_ty, &methods);
                    steps.push(Step::Group(CallGroup {
                        field,
                        calls: members
                            .iter()
                            .map(|&u| (vertices[u].participant, vertices[u].stmt))
                            .collect(),
                        targets,
                        guards,
                    }));
                }
                Some(_) => {}
                None if vx.lp.is_some() => {
                    if !emitted.insert(group[v]) {
                        continue;
                    }
                    let Some(field) = vx.lp else { continue };
                    let FieldKind::List(elem_ty) = program.fields[field.index()].kind else {
                        continue;
                    };
                    let member_vertices: Vec<usize> =
                        (0..n).filter(|&u| group[u] == group[v]).collect();
                    let members =
                        Self::loop_members(program, &vertices, &member_vertices, &participants);
                    let (loop_steps, kept_apart, split) = self.element_schedule(&members, elem_ty);
                    element_blocked.extend(kept_apart);
                    split_calls.extend(split);
                    let rebound = self.region_followers(&members).unwrap_or_default();
                    let mut group = LoopGroup {
                        field,
                        loops: member_vertices
                            .iter()
                            .map(|&u| (vertices[u].participant, vertices[u].stmt))
                            .collect(),
                        steps: loop_steps,
                        rebound,
                        parallel: Parallelism::Parallel {
                            reduced: Vec::new(),
                            private: Vec::new(),
                        },
                    };
                    group.parallel = crate::parallel::group_parallelism(
                        program,
                        analysis,
                        &self.conflicts,
                        ty,
                        &participants,
                        &group,
                    );
                    steps.push(Step::Loop(group));
                }
                None => {
                    let body = program.bodies[participants[vx.participant].body.index()]
                        .body
                        .as_deref()
                        .unwrap_or(&[]);
                    steps.push(
                        match self.while_group(body, vx.participant, vx.stmt, &mut loop_blocked) {
                            Some(w) => Step::While(w),
                            None => Step::Stmt {
                                participant: vx.participant,
                                stmt: vx.stmt,
                            },
                        },
                    )
                }
            }
        }
        // Explanations for calls on the same child left apart (element
        // calls of merged loops kept apart come first).
        let mut blocked = element_blocked;
        blocked.append(&mut loop_blocked);
        for (i, &a) in calls.iter().enumerate() {
            for &b in &calls[i + 1..] {
                if group[a] == group[b]
                    || vertices[a].call.map(|c| c.0) != vertices[b].call.map(|c| c.0)
                {
                    continue;
                }
                let mut reason = explain(
                    &vertices,
                    &edges,
                    &inputs,
                    &group,
                    a,
                    b,
                    &participants,
                    self,
                );
                // Pairs a type split on their field merges for some types
                // of the child say so; pairs it merges for all are merged.
                if let Some((field, split)) = &child_split {
                    if vertices[a].call.is_some_and(|c| c.0 == *field) {
                        let apart = split.apart(&group, a, b);
                        if apart.is_empty() {
                            continue;
                        }
                        if apart.len() < split.types.len() {
                            reason = format!(
                                "{reason} (only where `self.{}` is {} as the function starts; merged for its other types)",
                                program.fields[field.index()].name,
                                self.type_list(&apart)
                            );
                        }
                    }
                }
                blocked.push(Blocked::between(&vertices[a], &vertices[b], reason));
            }
        }
        // And for loops over the same list left apart.
        for (i, &a) in loops.iter().enumerate() {
            for &b in &loops[i + 1..] {
                if group[a] == group[b] || vertices[a].lp != vertices[b].lp {
                    continue;
                }
                let reason = self.explain_loops(&vertices, &edges, &group, &participants, a, b);
                blocked.push(Blocked::between(&vertices[a], &vertices[b], reason));
            }
        }
        // And for calls on the same child or list that were never
        // candidates: a statement that calls traversals below `self` in a
        // shape the fuser does not take apart.
        let targets: Vec<BTreeSet<CallTarget>> = vertices
            .iter()
            .map(|v| {
                let stmt = &program.bodies[participants[v.participant].body.index()]
                    .body
                    .as_deref()
                    .unwrap_or(&[])[v.stmt];
                let mut t = BTreeSet::new();
                call_targets(std::slice::from_ref(stmt), &mut t);
                t
            })
            .collect();
        // Only pairs that share a target which is not a fusion candidate in
        // both can need a reason: found from the vertices that have each
        // target without being its candidate (few), not from every pair.
        let is_candidate = |v: &Vertex, t: &CallTarget| match t {
            CallTarget::Child(f) => v.call.is_some_and(|c| c.0 == *f),
            CallTarget::List(f) => v.lp == Some(*f),
        };
        let mut having: BTreeMap<&CallTarget, Vec<usize>> = BTreeMap::new();
        for (v, ts) in targets.iter().enumerate() {
            for t in ts {
                having.entry(t).or_default().push(v);
            }
        }
        let mut uncandidate_pairs: Vec<(usize, usize)> = Vec::new();
        for (t, vs) in &having {
            for &odd in vs.iter().filter(|&&v| !is_candidate(&vertices[v], t)) {
                for &other in vs.iter().filter(|&&v| v != odd) {
                    uncandidate_pairs.push((odd.min(other), odd.max(other)));
                }
            }
        }
        uncandidate_pairs.sort_unstable();
        uncandidate_pairs.dedup();
        for (a, b) in uncandidate_pairs {
            let shared = targets[a]
                .intersection(&targets[b])
                .find(|t| !(is_candidate(&vertices[a], t) && is_candidate(&vertices[b], t)));
            let Some(target) = shared else { continue };
            let candidate = |v: &Vertex| is_candidate(v, target);
            let which = match (candidate(&vertices[a]), candidate(&vertices[b])) {
                (true, _) => "the later statement",
                (_, true) => "the earlier statement",
                _ => "each statement",
            };
            // A `while` loop (§8.6) is one statement for the fuser: its
            // iterations run one after another as the unfused run makes
            // them.
            let in_while = |v: usize| {
                !candidate(&vertices[v])
                    && matches!(
                        program.bodies[participants[vertices[v].participant].body.index()]
                            .body
                            .as_deref()
                            .and_then(|b| b.get(vertices[v].stmt))
                            .map(|s| &s.kind),
                        Some(StmtKind::While { .. })
                    )
            };
            let reason = match target {
                CallTarget::Child(f) if in_while(a) || in_while(b) => format!(
                    "{which} calls a traversal on `self.{}` inside a `while` loop, which the fuser keeps whole: its iterations run one after another, with their calls, as in the unfused run",
                    program.fields[f.index()].name
                ),
                CallTarget::List(f) if in_while(a) || in_while(b) => format!(
                    "{which} loops over `self.{}` inside a `while` loop, which the fuser keeps whole: its iterations run one after another, with their calls, as in the unfused run",
                    program.fields[f.index()].name
                ),
                CallTarget::Child(f) => format!(
                    "{which} calls a traversal on `self.{}` inside a statement the fuser does not take apart (calls on a child are fused only as whole statements `self.c.f(..)` or `if e {{ self.c.f(..); }}`)",
                    program.fields[f.index()].name
                ),
                CallTarget::List(f) => format!(
                    "{which} loops over `self.{}` making calls that are not whole statements `x.f(..)` or `if e {{ x.f(..); }}` on the loop variable (for example an `if .. else` choosing between two calls), so it is not fused element by element",
                    program.fields[f.index()].name
                ),
            };
            blocked.push(Blocked::between(&vertices[a], &vertices[b], reason));
        }
        let graph = DependenceGraph {
            vertices: vertices
                .iter()
                .map(|v| (v.participant, v.stmt, v.span))
                .collect(),
            edges,
        };
        let independent_calls = crate::parallel::independent_calls(
            program,
            analysis,
            &self.conflicts,
            ty,
            &participants,
            &steps,
        );
        let f = &mut self.functions[id.index()];
        f.independent_calls = independent_calls;
        f.steps = steps;
        f.blocked = blocked;
        f.split = split_calls;
        f.graph = graph;
        f.resume = resume;
        f.typed_child = child_split.map(|(field, _)| field);
    }
}

/// Per traversal (by index): whether some body of it contains `return`, so
/// that it is often switched off at run time.
fn ends_early(program: &Program) -> Vec<bool> {
    let mut out = vec![false; program.methods.len()];
    for b in &program.bodies {
        if let Some(stmts) = b.body.as_deref() {
            if visit::any_stmt(stmts, &|s| matches!(s.kind, StmtKind::Return(_))) {
                out[b.method.index()] = true;
            }
        }
    }
    out
}

/// The (concrete type, traversal) pairs that may replace their receiver by
/// a thicket (`self = [..]`, `self = self.list`), directly or through a call
/// on `self`: a fixpoint over the program's dispatch tables. Any other
/// replacement leaves exactly one node in the receiver's place.
fn may_splice(program: &Program) -> BTreeSet<(TypeId, MethodId)> {
    let functions: Vec<(TypeId, MethodId, &[Stmt])> = program
        .concrete_functions()
        .filter_map(|(ty, m, b)| Some((ty, m, program.bodies[b.index()].body.as_deref()?)))
        .collect();
    let mut splices: BTreeSet<(TypeId, MethodId)> = BTreeSet::new();
    loop {
        let before = splices.len();
        for &(ty, m, body) in &functions {
            if splices.contains(&(ty, m)) {
                continue;
            }
            let found = visit::any_stmt(body, &|s| match &s.kind {
                StmtKind::SpliceSelf { .. } => true,
                StmtKind::Call {
                    receiver, method, ..
                } => {
                    receiver.root == PathRoot::SelfNode
                        && receiver.fields().next().is_none()
                        && splices.contains(&(ty, *method))
                }
                _ => false,
            });
            if found {
                splices.insert((ty, m));
            }
        }
        if splices.len() == before {
            return splices;
        }
    }
}

/// Whether `stmt`, run on a node of concrete type `ty`, may replace that
/// node: it contains `self = ...` or a thicket, or calls a traversal on
/// `self` that may.
fn stmt_replaces_receiver(stmt: &Stmt, ty: TypeId, analysis: &Analysis) -> bool {
    visit::any_stmt(std::slice::from_ref(stmt), &|s| match &s.kind {
        StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. } => true,
        StmtKind::Call {
            receiver, method, ..
        } => {
            receiver.root == PathRoot::SelfNode
                && receiver.steps.is_empty()
                && analysis.may_replace_concrete(ty, *method)
        }
        _ => false,
    })
}

/// `Some((field, method))` if `stmt` is a traversing call on a child of
/// `self`, `self.c.m(..)`, or such a call alone under a guard,
/// `if e { self.c.m(..); }` (a guarded call: when the group runs, a false
/// guard drops the call from the fused call's mask).
pub(crate) fn child_call(stmt: &Stmt) -> Option<(FieldId, MethodId)> {
    match &stmt.kind {
        StmtKind::Call {
            receiver, method, ..
        } if receiver.root == PathRoot::SelfNode => match receiver.steps[..] {
            [PathStep::Child(f)] => Some((f, *method)),
            _ => None,
        },
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } if else_branch.is_empty()
            && then_branch.len() == 1
            && !matches!(then_branch[0].kind, StmtKind::If { .. }) =>
        {
            child_call(&then_branch[0])
        }
        _ => None,
    }
}

/// `self.c.m(args);` as a plain statement (no guard): the child field and
/// the traversal.
fn plain_child_call(stmt: &Stmt) -> Option<(FieldId, MethodId)> {
    match &stmt.kind {
        StmtKind::Call { .. } => child_call(stmt),
        _ => None,
    }
}

/// The reads of the arguments (and guard) of a call statement as an access
/// set relative to `self`; `None` if they go through an alias or loop
/// variable.
fn input_reads(stmt: &Stmt, analysis: &Analysis) -> Option<AccessSet> {
    use treefuse_automata::Nfa;
    let labels = analysis.labels();
    let mut set = AccessSet::empty();
    let mut ok = true;
    let mut add = |e: &Expr, set: &mut AccessSet| {
        visit::walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Field(path, _) | ExprKind::Is(path, _) | ExprKind::IsNone(path)
                if path.root == PathRoot::SelfNode =>
            {
                let mut word: Vec<_> = path.fields().map(|f| labels.field(f)).collect();
                // A field read covers a record value whole (`.*`); an `is`
                // test reads only the node's type tag (the path itself),
                // `is none` the slot (the path's last label).
                let reads = if let ExprKind::Field(_, f) = &x.kind {
                    word.push(labels.field(*f));
                    Nfa::word(&word).with_any_suffix().prefix_closure()
                } else {
                    Nfa::word(&word).prefix_closure()
                };
                set.reads = set.reads.union(&reads);
            }
            ExprKind::Field(..) | ExprKind::Is(..) | ExprKind::IsNone(_) => ok = false,
            ExprKind::Global(g) => {
                let reads = Nfa::label(labels.global(*g)).with_any_suffix();
                set.global_reads = set.global_reads.union(&reads);
            }
            // `len(L)` reads the list; a pure function over nodes
            // (LANGUAGE §8.8) reads the whole subtree below each node
            // argument.
            ExprKind::ListLen(slot) if slot.parent.root == PathRoot::SelfNode => {
                let mut word: Vec<_> = slot.parent.fields().map(|f| labels.field(f)).collect();
                word.push(labels.field(slot.field));
                set.reads = set.reads.union(&Nfa::word(&word).prefix_closure());
            }
            ExprKind::NodeCall(_, args) => {
                for a in args {
                    if let PureArg::Node(path) = a {
                        if path.root != PathRoot::SelfNode {
                            ok = false;
                            continue;
                        }
                        let word: Vec<_> = path.fields().map(|f| labels.field(f)).collect();
                        let reads = Nfa::word(&word).with_any_suffix().prefix_closure();
                        set.reads = set.reads.union(&reads);
                    }
                }
            }
            ExprKind::ListLen(_) => ok = false,
            _ => {}
        })
    };
    match &stmt.kind {
        StmtKind::Call { args, .. } => args.iter().for_each(|a| add(a, &mut set)),
        StmtKind::If {
            cond, then_branch, ..
        } => {
            add(cond, &mut set);
            if let Some(StmtKind::Call { args, .. }) = then_branch.first().map(|s| &s.kind) {
                args.iter().for_each(|a| add(a, &mut set));
            }
        }
        _ => return None,
    }
    ok.then(|| set.reduced())
}

/// Whether the arguments (and the guard) of a call statement read only
/// constants, locals and parameters.
fn inputs_read_only_the_frame(stmt: &Stmt) -> bool {
    let mut ok = true;
    let mut check = |e: &Expr| {
        visit::walk_expr(e, &mut |x| {
            ok &= !matches!(
                x.kind,
                ExprKind::Field(..)
                    | ExprKind::Global(_)
                    | ExprKind::Is(..)
                    | ExprKind::IsNone(_)
                    | ExprKind::ListLen(_)
                    | ExprKind::NodeCall(..)
            );
        })
    };
    match &stmt.kind {
        StmtKind::Call { args, .. } => args.iter().for_each(&mut check),
        StmtKind::If {
            cond, then_branch, ..
        } => {
            check(cond);
            if let Some(StmtKind::Call { args, .. }) = then_branch.first().map(|s| &s.kind) {
                args.iter().for_each(&mut check);
            }
        }
        _ => ok = false,
    }
    ok
}

/// Where a statement calls traversals below `self`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CallTarget {
    /// On the child `self.c`.
    Child(FieldId),
    /// On elements of `self.list`, in a `for` over it.
    List(FieldId),
}

/// Every child and list of `self` that `stmts` call traversals on,
/// wherever the calls sit (under conditions, in loops).
fn call_targets(stmts: &[Stmt], out: &mut BTreeSet<CallTarget>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Call { receiver, .. } if receiver.root == PathRoot::SelfNode => {
                if let [PathStep::Child(f), ..] = receiver.steps[..] {
                    out.insert(CallTarget::Child(f));
                }
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                call_targets(then_branch, out);
                call_targets(else_branch, out);
            }
            StmtKind::ForChildren { list, body, .. } => {
                let on_own_list =
                    list.parent.root == PathRoot::SelfNode && list.parent.steps.is_empty();
                if on_own_list
                    && visit::any_stmt(body, &|s| matches!(s.kind, StmtKind::Call { .. }))
                {
                    out.insert(CallTarget::List(list.field));
                }
                call_targets(body, out);
            }
            StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => call_targets(body, out),
            _ => {}
        }
    }
}

/// `Some(list field)` if `stmt` is `for x in self.list { .. }` whose body
/// makes traversing calls only as whole statements `x.f(..)` or
/// `if e { x.f(..); }`.
pub(crate) fn child_loop(stmt: &Stmt, access: &treefuse_analysis::StmtAccess) -> Option<FieldId> {
    let StmtKind::ForChildren { list, body, .. } = &stmt.kind else {
        return None;
    };
    if list.parent.root != PathRoot::SelfNode || !list.parent.steps.is_empty() {
        return None;
    }
    let sets = access.blocks.first()?;
    access.per_element.as_ref()?;
    let ok = body
        .iter()
        .zip(sets)
        .all(|(s, set)| element_call(s).is_some() || !set.set.has_calls);
    (ok && sets.len() == body.len()).then_some(list.field)
}

/// `Some(U)` if `stmt` is `if x is U { .. }` or `if x is U && .. { .. }`
/// without `else`, `x` being the loop variable `var`: when the element is
/// not a `U`, the statement evaluates the test (which reads only the type of
/// the element as the loop found it, fixed for the iteration) and nothing
/// else.
fn element_type_test(stmt: &Stmt, var: NodeVarId) -> Option<TypeId> {
    let StmtKind::If {
        cond, else_branch, ..
    } = &stmt.kind
    else {
        return None;
    };
    if !else_branch.is_empty() {
        return None;
    }
    let mut e = cond;
    loop {
        match &e.kind {
            ExprKind::Binary(treefuse_sema::ops::BinaryOp::And, l, _) => e = l,
            ExprKind::Is(path, u) if path.root == PathRoot::Var(var) && path.steps.is_empty() => {
                return Some(*u)
            }
            _ => return None,
        }
    }
}

/// The traversal called on the loop variable by a body statement
/// `x.f(..)` or `if e { x.f(..); }`.
pub(crate) fn element_call(stmt: &Stmt) -> Option<MethodId> {
    let on_var = |s: &Stmt| match &s.kind {
        StmtKind::Call {
            receiver, method, ..
        } if matches!(receiver.root, PathRoot::Var(_)) && receiver.steps.is_empty() => {
            Some(*method)
        }
        _ => None,
    };
    match &stmt.kind {
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } if else_branch.is_empty() && then_branch.len() == 1 => on_var(&then_branch[0]),
        _ => on_var(stmt),
    }
}

/// A conflict in words; a frame variable (which only conflicts
/// within one participant) by its name in `participant`'s body.
pub(crate) fn conflict_text(
    program: &Program,
    c: &Conflict,
    participants: &[Participant],
    participant: usize,
) -> String {
    let frame = participants
        .get(participant)
        .map(|p| &program.bodies[p.body.index()].frame);
    let name = match (&c.location, frame) {
        (Location::Frame(FrameVar::Local(l)), Some(f)) => {
            f.locals.get(l.index()).map(|(n, _)| format!("local `{n}`"))
        }
        (Location::Frame(FrameVar::Node(v)), Some(f)) => f
            .node_vars
            .get(v.index())
            .map(|n| format!("node variable `{}`", n.name)),
        _ => None,
    };
    match name {
        Some(name) => Conflict {
            witness: name,
            ..c.clone()
        }
        .to_string(),
        None => c.to_string(),
    }
}

/// The members of each group of a grouping (`group[v]`: the
/// representative of `v`'s group, a vertex of the group), in vertex order,
/// laid out flat by a counting sort: [`schedule`] runs once per candidate
/// move of the loop regrouping, so this allocates a fixed number of
/// vectors, not one per group.
struct GroupMembers {
    /// `members[start[g]..start[g + 1]]` are the members of group `g`
    /// (empty when `g` represents no group).
    start: Vec<usize>,
    members: Vec<usize>,
}

impl GroupMembers {
    fn new(group: &[usize]) -> GroupMembers {
        let n = group.len();
        let mut start = vec![0usize; n + 1];
        for &g in group {
            start[g + 1] += 1;
        }
        for g in 0..n {
            start[g + 1] += start[g];
        }
        let mut fill = start.clone();
        let mut members = vec![0usize; n];
        for (v, &g) in group.iter().enumerate() {
            members[fill[g]] = v;
            fill[g] += 1;
        }
        GroupMembers { start, members }
    }
}

/// The grouping a greedy merge builds: every vertex starts alone, and
/// groups only ever merge. Each group's members are kept (sorted), so a
/// candidate merge costs in proportion to the two groups and what they
/// reach, not to the whole graph: a walk fusing R passes makes O(R)
/// merge attempts per child, and a cost linear in the graph at each would
/// make the fuser quadratic in the passes.
struct Grouping {
    /// `group[v]`: the representative of `v`'s group (one of its members).
    group: Vec<usize>,
    /// By representative: the group's members in vertex order (empty for a
    /// vertex that represents no group).
    members: Vec<Vec<usize>>,
    /// Marks of the search in [`Grouping::merge_keeps_acyclic`], by group:
    /// equal to `epoch` when seen in the current search.
    seen: Vec<u32>,
    epoch: u32,
}

impl Grouping {
    fn singletons(n: usize) -> Grouping {
        Grouping {
            group: (0..n).collect(),
            members: (0..n).map(|v| vec![v]).collect(),
            seen: vec![0; n],
            epoch: 0,
        }
    }

    /// The members of groups `ga` and `gb` together, in vertex order.
    fn union(&self, ga: usize, gb: usize) -> Vec<usize> {
        let (a, b) = (&self.members[ga], &self.members[gb]);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if j == b.len() || (i < a.len() && a[i] < b[j]) {
                out.push(a[i]);
                i += 1;
            } else {
                out.push(b[j]);
                j += 1;
            }
        }
        out
    }

    /// Merges group `gb` into group `ga`.
    fn merge(&mut self, ga: usize, gb: usize) {
        let union = self.union(ga, gb);
        for &v in &self.members[gb] {
            self.group[v] = ga;
        }
        self.members[gb].clear();
        self.members[ga] = union;
    }

    /// The edges `(u, v)` of `succ` between groups `ga` and `gb`, in
    /// either direction: when two groups merge, the only pairs of members
    /// not already checked together.
    fn cross_edges<'a>(
        &'a self,
        succ: &'a [Vec<usize>],
        ga: usize,
        gb: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.members[ga]
            .iter()
            .chain(&self.members[gb])
            .flat_map(move |&u| succ[u].iter().map(move |&v| (u, v)))
            .filter(move |&(u, v)| {
                let (gu, gv) = (self.group[u], self.group[v]);
                (gu == ga && gv == gb) || (gu == gb && gv == ga)
            })
    }

    /// Whether merging groups `ga` and `gb` keeps the graph of groups
    /// acyclic, given that it is acyclic now: the same answer as
    /// `schedule` of the merged grouping being `Some`, without building
    /// the condensed graph. Any cycle after the merge passes through the
    /// merged group (the others are unchanged), so it leaves it for some
    /// other group and comes back: the test searches the groups reachable
    /// from the two merged ones and fails if one of them reaches back. The
    /// greedy merges start from single vertices of a graph whose edges all
    /// go forward in vertex order, and accept only merges that pass, so
    /// the premise holds at every test.
    fn merge_keeps_acyclic(&mut self, succ: &[Vec<usize>], ga: usize, gb: usize) -> bool {
        self.epoch += 1;
        let epoch = self.epoch;
        let merged = |g: usize| g == ga || g == gb;
        let mut stack = Vec::new();
        for &v in self.members[ga].iter().chain(&self.members[gb]) {
            for &s in &succ[v] {
                let h = self.group[s];
                if !merged(h) && self.seen[h] != epoch {
                    self.seen[h] = epoch;
                    stack.push(h);
                }
            }
        }
        while let Some(g) = stack.pop() {
            for &v in &self.members[g] {
                for &s in &succ[v] {
                    let h = self.group[s];
                    if merged(h) {
                        return false;
                    }
                    if self.seen[h] != epoch {
                        self.seen[h] = epoch;
                        stack.push(h);
                    }
                }
            }
        }
        true
    }
}

/// A topological order of the vertices in which every group is
/// contiguous, preferring source order; `None` if the grouping makes the
/// graph cyclic.
fn schedule(succ: &[Vec<usize>], group: &[usize]) -> Option<Vec<usize>> {
    let n = succ.len();
    // The smallest member of a group stands for its position.
    let GroupMembers { start, members } = GroupMembers::new(group);
    // Condensed graph over group representatives: the distinct successor
    // groups of each group, flat (a stamp per target group drops repeats).
    let mut first_succ = vec![0usize; n + 1];
    let mut gsucc: Vec<usize> = Vec::new();
    let mut stamp = vec![usize::MAX; n];
    for g in 0..n {
        first_succ[g] = gsucc.len();
        for &u in &members[start[g]..start[g + 1]] {
            for &v in &succ[u] {
                let h = group[v];
                if h != g && stamp[h] != g {
                    stamp[h] = g;
                    gsucc.push(h);
                }
            }
        }
    }
    first_succ[n] = gsucc.len();
    let mut indegree = vec![0usize; n];
    for &h in &gsucc {
        indegree[h] += 1;
    }
    let is_rep = |g: usize| start[g + 1] > start[g];
    let reps = (0..n).filter(|&g| is_rep(g)).count();
    let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..n)
        .filter(|&g| is_rep(g) && indegree[g] == 0)
        .map(|g| Reverse((members[start[g]], g)))
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut done = 0;
    // Which successors become ready first does not matter: the heap
    // orders them, and all of a group's edges are removed before the next
    // pop.
    while let Some(Reverse((_, g))) = ready.pop() {
        done += 1;
        order.extend_from_slice(&members[start[g]..start[g + 1]]);
        for &h in &gsucc[first_succ[g]..first_succ[g + 1]] {
            indegree[h] -= 1;
            if indegree[h] == 0 {
                ready.push(Reverse((members[start[h]], h)));
            }
        }
    }
    (done == reps).then_some(order)
}

/// Why calls `a` and `b` (vertex indices) ended up in different groups:
/// the reason the grouping itself applied (cut-offs; a member's arguments
/// or guard reading what an earlier member writes, `inputs` as in the
/// grouping), else the dependence path that would make the merge cyclic.
#[allow(clippy::too_many_arguments)]
fn explain(
    vertices: &[Vertex],
    edges: &[(usize, usize, String)],
    inputs: &[Option<AccessSet>],
    group: &[usize],
    a: usize,
    b: usize,
    participants: &[Participant],
    builder: &Builder,
) -> String {
    let in_union = |v: usize| group[v] == group[a] || group[v] == group[b];
    let mut methods: Vec<MethodId> = (0..vertices.len())
        .filter(|&v| in_union(v))
        .filter_map(|v| vertices[v].call.map(|c| c.1))
        .collect();
    methods.sort();
    if !builder.within_cutoffs(&methods) {
        return format!(
            "merging would exceed the cut-offs ({})",
            builder.options.describe(false)
        );
    }
    // The grouping's own test: within the merged call every member's
    // inputs are evaluated before any member runs. Name the edge only
    // when that test is what fails; an edge through the calls' bodies
    // alone is what merging handles (the callee orders them).
    for (u, v, _) in edges {
        let crosses = (group[*u] == group[a] && group[*v] == group[b])
            || (group[*u] == group[b] && group[*v] == group[a]);
        if !crosses {
            continue;
        }
        let conflict = match &inputs[*v] {
            Some(reads) => match builder.conflicts.conflict(vertices[*u].set, reads, false) {
                Some(c) => builder.conflict_text(&c, participants, vertices[*u].participant),
                None => continue,
            },
            None => "its inputs read the tree in a way the analysis does not model".into(),
        };
        return format!(
            "the later call's arguments or guard read what the earlier one may write ({}#{} -> {}#{}: {conflict}); they must be evaluated after it runs",
            vertices[*u].participant, vertices[*u].stmt, vertices[*v].participant, vertices[*v].stmt
        );
    }
    explain_path(vertices, edges, group, a, b)
        .unwrap_or_else(|| "not merged (a conflicting grouping was chosen first)".into())
}

/// A dependence path from `a`'s group to `b`'s group through another
/// vertex (or the reverse): what makes merging them cyclic.
fn explain_path(
    vertices: &[Vertex],
    edges: &[(usize, usize, String)],
    group: &[usize],
    a: usize,
    b: usize,
) -> Option<String> {
    for (from, to) in [(a, b), (b, a)] {
        if let Some(path) = group_path(vertices.len(), edges, group, group[from], group[to]) {
            let describe = |(u, v, why): &(usize, usize, String)| {
                format!(
                    "{}#{} -> {}#{} ({why})",
                    vertices[*u].participant,
                    vertices[*u].stmt,
                    vertices[*v].participant,
                    vertices[*v].stmt
                )
            };
            let chain: Vec<String> = path.iter().map(|&e| describe(&edges[e])).collect();
            return Some(format!(
                "a dependence path runs between them through other statements: {}",
                chain.join(", then ")
            ));
        }
    }
    None
}

/// Edges (indices) of a shortest path of length at least two between two
/// groups, through vertices outside both.
fn group_path(
    n: usize,
    edges: &[(usize, usize, String)],
    group: &[usize],
    from: usize,
    to: usize,
) -> Option<Vec<usize>> {
    use std::collections::VecDeque;
    let mut prev: Vec<Option<usize>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    for (i, (u, v, _)) in edges.iter().enumerate() {
        if group[*u] == from && group[*v] != from && group[*v] != to && !seen[*v] {
            seen[*v] = true;
            prev[*v] = Some(i);
            queue.push_back(*v);
        }
    }
    while let Some(x) = queue.pop_front() {
        for (i, (u, v, _)) in edges.iter().enumerate() {
            if *u != x {
                continue;
            }
            if group[*v] == to {
                let mut path = vec![i];
                let mut cur = x;
                while let Some(e) = prev[cur] {
                    path.push(e);
                    let (pu, _, _) = &edges[e];
                    if group[*pu] == from {
                        break;
                    }
                    cur = *pu;
                }
                path.reverse();
                return Some(path);
            }
            if group[*v] != from && !seen[*v] {
                seen[*v] = true;
                prev[*v] = Some(i);
                queue.push_back(*v);
            }
        }
    }
    None
}

/// A vertex other than `a` and `b` on a dependence path from `a` to `b` in
/// the graph `succ` (edges point from earlier to later statements).
fn element_path(succ: &[Vec<usize>], a: usize, b: usize) -> Option<usize> {
    let from_a = reachable(succ, a);
    (0..succ.len()).find(|&v| v != a && v != b && from_a[v] && reachable(succ, v)[b])
}

/// Per vertex, whether a path of at least one edge leads to it from
/// `from`.
pub(crate) fn reachable(succ: &[Vec<usize>], from: usize) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut stack = vec![from];
    while let Some(u) = stack.pop() {
        for &v in &succ[u] {
            if !seen[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::{schedule, Grouping};
    use proptest::prelude::*;

    /// A random graph whose edges go forward in vertex order (as the
    /// fuser's dependence graphs do) and a random sequence of merges.
    fn graph_and_merges() -> impl Strategy<Value = (Vec<Vec<usize>>, Vec<(usize, usize)>)> {
        (2usize..24).prop_flat_map(|n| {
            let edges = proptest::collection::vec((0..n, 0..n), 0..3 * n);
            let merges = proptest::collection::vec((0..n, 0..n), 0..2 * n);
            (edges, merges).prop_map(move |(edges, merges)| {
                let mut succ = vec![Vec::new(); n];
                for (a, b) in edges {
                    if a < b {
                        succ[a].push(b);
                    }
                }
                (succ, merges)
            })
        })
    }

    proptest! {
        /// The greedy merges' incremental test agrees with the full
        /// topological sort on every merge they try, and the members they
        /// keep agree with the grouping.
        #[test]
        fn merge_keeps_acyclic_agrees_with_schedule((succ, merges) in graph_and_merges()) {
            let n = succ.len();
            let mut grouping = Grouping::singletons(n);
            for (a, b) in merges {
                let (ga, gb) = (grouping.group[a], grouping.group[b]);
                if ga == gb {
                    continue;
                }
                let merged: Vec<usize> = grouping
                    .group
                    .iter()
                    .map(|&g| if g == gb { ga } else { g })
                    .collect();
                let expected = schedule(&succ, &merged).is_some();
                prop_assert_eq!(grouping.merge_keeps_acyclic(&succ, ga, gb), expected);
                let crossing: Vec<(usize, usize)> = (0..n)
                    .flat_map(|u| succ[u].iter().map(move |&v| (u, v)))
                    .filter(|&(u, v)| {
                        let (gu, gv) = (grouping.group[u], grouping.group[v]);
                        (gu == ga && gv == gb) || (gu == gb && gv == ga)
                    })
                    .collect();
                let mut found: Vec<(usize, usize)> = grouping.cross_edges(&succ, ga, gb).collect();
                found.sort_unstable();
                let mut crossing = crossing;
                crossing.sort_unstable();
                prop_assert_eq!(found, crossing);
                if expected {
                    grouping.merge(ga, gb);
                    prop_assert_eq!(&grouping.group, &merged);
                    for g in 0..n {
                        let members: Vec<usize> = (0..n).filter(|&v| merged[v] == g).collect();
                        prop_assert_eq!(&grouping.members[g], &members);
                    }
                }
            }
        }
    }
}
