//! The fused IR: what a fused program is, independent of how it was found.
//!
//! A [`FusedFunction`] runs several traversals ("participants") on one node
//! of one concrete type at once. Its [`Step`]s are the participants'
//! top-level statements in a dependence-respecting order, where traversing
//! calls of several participants on the same child have been merged into
//! one [`Step::Group`]: one fused call on that child, dispatched on the
//! child's concrete type to another fused function. Each participant has
//! its own frame and its own *active* flag, cleared when it executes
//! `return`, so participants truncate independently; a group passes the
//! flags of its calls down as a mask. Both engines (the interpreter and
//! generated Rust) execute exactly this structure.
//!
//! The IR is plain data (ids, indices, names, spans; a `fuse` item's
//! statements by position, see [`EntryStmt`]) with serde derives, so that
//! `treefuse run` can keep it in its fusion cache (`treefuse::cache`,
//! whose `FORMAT_VERSION` is to be bumped with any change to these types);
//! [`FusedProgram::check_fits`] checks a stored one against the program.

use crate::mask::ParticipantMask;
use serde::{Deserialize, Serialize};
use treefuse_sema::{BodyId, Expr, FieldId, FuseStmt, GlobalId, MethodId, TypeId};
use treefuse_syntax::Span;

/// Index of a fused function in [`FusedProgram::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FusedFnId(pub u32);

impl FusedFnId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A whole fused program: the fused functions and, per `fuse` item, how
/// its calls are run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FusedProgram {
    /// Every fused function, reachable from some entry.
    pub functions: Vec<FusedFunction>,
    /// One entry per `fuse` item of the program, in order.
    pub entries: Vec<FusedEntry>,
}

/// How one `fuse` item runs: its calls, split into chunks that each run as
/// one fused call on the root, and the item's statements around them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FusedEntry {
    /// The `fuse` item's name.
    pub fuse: String,
    /// Every chunk of the item, in written order (indexed by
    /// [`EntryStmt::Chunk`]). A chunk never spans a global assignment or a
    /// loop boundary.
    pub chunks: Vec<EntryChunk>,
    /// The item's statements with consecutive calls replaced by chunks.
    pub body: Vec<EntryStmt>,
}

/// A statement of a fused `fuse` item.
///
/// Global assignments and loops refer to the item's own statements by
/// position instead of copying their expressions, so the fused IR holds
/// only ids, indices, names and spans (and can be stored: the fusion
/// cache of `treefuse run`). A list of entry statements is built from one
/// statement list of the item ([`treefuse_sema::Fuse::body`], or the body
/// of one of its `while` loops), its *source*: `stmt` indexes that list,
/// and a `while`'s `body` was built from the source `while`'s body.
/// [`FuseLevelStmt::level`] resolves them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryStmt {
    /// Run a chunk: index into [`FusedEntry::chunks`].
    Chunk(usize),
    /// `g = e;`: the source's statement `stmt`, a [`FuseStmt::SetGlobal`].
    SetGlobal {
        /// Index of the statement in the source list.
        stmt: usize,
        /// The statement.
        span: Span,
    },
    /// `while cond limit N { body }`, the source's statement `stmt` (a
    /// [`FuseStmt::While`]); the calls of one iteration are fused.
    While {
        /// Index of the statement in the source list.
        stmt: usize,
        /// The loop body, built from the source loop's body.
        body: Vec<EntryStmt>,
        /// The whole loop.
        span: Span,
    },
    /// `break;`: ends the innermost `while` (LANGUAGE §8.6).
    Break {
        /// The statement.
        span: Span,
    },
}

/// Calls of a `fuse` item run together as one fused call on the root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryChunk {
    /// Indices into the item's calls, in order.
    pub calls: Vec<usize>,
    /// The fused function to run, per concrete type of the root.
    pub targets: Vec<(TypeId, FusedFnId)>,
    /// Why this chunk was not merged into the chunk of the call just before
    /// it, when a call comes just before it in the same statement list.
    pub split: Option<ChunkSplit>,
}

/// Why two consecutive calls of a `fuse` item run as separate fused calls
/// on the root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChunkSplit {
    /// Merging would exceed `--max-group` (calls in one fused call).
    MaxGroup(usize),
    /// Merging would run a traversal more than `--max-repeat` times in one
    /// fused call.
    MaxRepeat(usize),
    /// The call's arguments read a global that an earlier call of the chunk
    /// may write; arguments are evaluated before the fused call starts.
    ArgumentReadsGlobal {
        /// The earlier call (index into the item's calls).
        writer: usize,
        /// The global's name.
        global: String,
    },
    /// The previous call may replace the root (`self = ...`, LANGUAGE.md
    /// §7.1): this call must run on the new root.
    AfterReplacingCall {
        /// The replacing call (index into the item's calls).
        replacer: usize,
    },
}

impl std::fmt::Display for ChunkSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChunkSplit::MaxGroup(n) => {
                write!(f, "cut-off: at most {n} calls per fused call (--max-group)")
            }
            ChunkSplit::MaxRepeat(n) => write!(
                f,
                "cut-off: at most {n} calls of one traversal per fused call (--max-repeat)"
            ),
            ChunkSplit::ArgumentReadsGlobal { writer, global } => write!(
                f,
                "its arguments read global `{global}`, which call {} may write",
                writer + 1
            ),
            ChunkSplit::AfterReplacingCall { replacer } => write!(
                f,
                "call {} may replace the root (`self = ...`), so this call runs on the new root",
                replacer + 1
            ),
        }
    }
}

/// One participant of a fused function: a traversal and the body that
/// runs for it on the function's concrete type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participant {
    /// The traversal.
    pub method: MethodId,
    /// Its body on this concrete type.
    pub body: BodyId,
}

/// Several traversals run together on a node of one concrete type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FusedFunction {
    /// The concrete type of the node.
    pub ty: TypeId,
    /// The traversals, in the order the unfused program would run them.
    pub participants: Vec<Participant>,
    /// The fused schedule.
    pub steps: Vec<Step>,
    /// Why some calls on the same child were not merged.
    pub blocked: Vec<Blocked>,
    /// Calls on a merged loop's element run as head and tail
    /// (`Program::splits`).
    pub split: Vec<SplitCall>,
    /// The dependence graph the schedule respects.
    pub graph: DependenceGraph,
    /// For each participant that may replace the node while participants
    /// follow it: where those later participants resume. When the
    /// participant replaces the node, the later ones have not run yet (the
    /// schedule puts all their statements after every statement that may
    /// replace); they are switched off until the end of the function and
    /// then run, with the arguments they were given, as one fused call on
    /// each node that now stands where this one stood.
    pub resume: Vec<Resume>,
    /// The child field whose node, as it stands when the function starts,
    /// decides by its concrete type which calls of the groups on that
    /// field take part where ([`CallGroup::guards`]). A statement
    /// `if self.c is U { .. }` does nothing while the node in `c` is not a
    /// `U`; which statements those are follows from the node's type at the
    /// start and the statements that may replace it
    /// (`Builder::child_type_split`). `None` when no group has guards.
    pub typed_child: Option<FieldId>,
    /// Runs of consecutive fused calls on distinct children (`self.l`,
    /// `self.r`) and whether each run's calls may run in parallel.
    pub independent_calls: Vec<IndependentCalls>,
}

/// Consecutive [`Step::Group`]s of a fused function, each on another
/// child, and whether they may run in parallel: every call of one commutes
/// with every call of the others (what a call does below its own child
/// never meets the other children's subtrees; the rest must commute,
/// updates of commuting globals aside).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndependentCalls {
    /// Indices into [`FusedFunction::steps`], consecutive.
    pub steps: Vec<usize>,
    /// Whether they may run in parallel, or the dependence that orders
    /// them.
    pub parallel: Parallelism,
}

/// Where the participants after a replacing participant run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    /// The participant that may replace the node.
    pub participant: usize,
    /// The fused function of the participants after it (in order; the
    /// mask bit `k` is participant `participant + 1 + k`), per concrete
    /// type of the replacement.
    pub targets: Vec<(TypeId, FusedFnId)>,
}

/// The dependence graph of a fused function: one vertex per top-level
/// statement of each participant, an edge wherever two statements must keep
/// their unfused order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependenceGraph {
    /// Vertices as (participant, statement index, source span).
    pub vertices: Vec<(usize, usize, Span)>,
    /// Edges `(from, to, why)` between vertex indices.
    pub edges: Vec<(usize, usize, String)>,
}

/// One step of a fused function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Run top-level statement `stmt` of participant `participant` (in its
    /// own frame), unless that participant has returned.
    Stmt {
        /// Participant index.
        participant: usize,
        /// Index into the participant body's top-level statements.
        stmt: usize,
    },
    /// Run several traversing calls on the child in `field` as one fused
    /// call: each call whose participant is still active evaluates its
    /// arguments in its own frame; the callee is chosen by the child's
    /// concrete type.
    Group(CallGroup),
    /// Loops of several participants over the same list of children, run
    /// as one loop: for each element (of the list as it is when the loop
    /// starts), the live calls of every member loop's body run as one
    /// fused call on the element.
    Loop(LoopGroup),
    /// A top-level `while` loop of one participant (LANGUAGE.md §8.6): one
    /// statement for the schedule, whose iterations run with consecutive
    /// calls on the same child merged into one fused call.
    While(WhileGroup),
}

/// A participant's top-level `while` loop whose iterations fuse their
/// calls.
///
/// The schedule keeps the loop whole (one vertex, whose access set covers
/// every iteration), so it runs where the unfused run would; inside one
/// iteration, a run of consecutive statements `self.c.f(args);` on the
/// same child runs as one fused call on that child, exactly as a
/// [`CallGroup`] of one participant: the callee is the fused function of
/// the run's traversals in order. Every call's arguments are evaluated
/// before the fused call starts, so a call joins the run only when its
/// arguments read nothing the earlier calls of the run may write (no path
/// through `self.c`, no global they may write); the cut-offs bound a run
/// as they bound a group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhileGroup {
    /// The participant whose statement the loop is.
    pub participant: usize,
    /// Index of the `while` among the participant body's top-level
    /// statements.
    pub stmt: usize,
    /// What one iteration runs, in order.
    pub steps: Vec<WhileStep>,
}

/// One step of an iteration of a [`WhileGroup`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WhileStep {
    /// Statement `index` of the loop body, run as the unfused run runs it.
    Stmt(usize),
    /// Consecutive call statements of the loop body (indices, in order) on
    /// the child in `field`, as one fused call.
    Call {
        /// The child field of `self`.
        field: FieldId,
        /// Indices of the call statements in the loop body.
        calls: Vec<usize>,
        /// The callee per concrete type of the child.
        targets: Vec<(TypeId, FusedFnId)>,
    },
}

/// `for` loops over the same list child, merged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopGroup {
    /// The list field of `self`.
    pub field: FieldId,
    /// The loops, as (participant, statement index), in unfused order.
    pub loops: Vec<(usize, usize)>,
    /// What runs for each element, in order: the loops' body statements,
    /// with calls on the element merged into fused calls.
    pub steps: Vec<LoopStep>,
    /// Member loops (indices into [`LoopGroup::loops`]) whose loop variable
    /// denotes, at each of their steps, the node now standing where the
    /// element stood: loops after every member that may replace elements,
    /// whose bodies do more than call the element. Unfused, such a loop
    /// iterates over the list the earlier loops edited; the fuser merges it
    /// only when no call on the element may splice (a thicket), so each
    /// element's region is one node, the one that loop would visit in the
    /// element's place (LANGUAGE.md §7.2). Empty in every other merged loop.
    pub rebound: Vec<usize>,
    /// Whether the iterations on different elements may run in parallel.
    pub parallel: Parallelism,
}

/// Whether a merged loop's iterations may run in parallel: each iteration
/// commutes with every iteration on another element (what it does through
/// the element stays in the element's subtree; nothing else it does
/// conflicts with what another iteration does, commutative updates of
/// globals aside). The engines may run such a loop on several threads; a
/// sequential one runs in list order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Parallelism {
    /// Iterations on different elements are independent.
    Parallel {
        /// Globals the iterations update commutatively (a counter, an
        /// idempotent flag): each worker updates its own copy and the
        /// copies are combined after the loop.
        reduced: Vec<GlobalId>,
        /// Globals every iteration writes whole before it reads them
        /// (write-first, see `privatize.rs`): each worker keeps its own
        /// copy, and after the loop the global takes the copy of the last
        /// worker (in list order) that wrote it. Empty for calls on
        /// distinct children.
        #[serde(default)]
        private: Vec<GlobalId>,
    },
    /// Iterations must run in list order.
    Sequential {
        /// The dependence that forbids parallelism, in words.
        reason: String,
    },
}

/// One step of a merged loop's iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoopStep {
    /// Body statement `stmt` of member loop `member` (an index into
    /// [`LoopGroup::loops`]), run in that loop's participant frame unless
    /// the participant has returned.
    Stmt {
        /// Member loop.
        member: usize,
        /// Index into the loop body.
        stmt: usize,
    },
    /// Calls on the element (each possibly under a guard) from the member
    /// loops' bodies, as one fused call.
    Call {
        /// (member loop, body statement) pairs in unfused order.
        calls: Vec<(usize, usize)>,
        /// The callee per concrete type of the element.
        targets: Vec<(TypeId, FusedFnId)>,
        /// Type-guarded participation, parallel to `calls` (or empty: every
        /// call takes part whatever the element's type): a call with a
        /// guard takes part here only when the element's concrete type is
        /// one of the guard's types. For the other types it runs at
        /// another call step of the same iteration (see [`TypeGuard`]).
        guards: Vec<Option<TypeGuard>>,
    },
}

/// The concrete types of a loop element (or, in a [`CallGroup`], of the
/// child as it stood when the fused function started) for which a call
/// takes part in a fused call on it.
///
/// Statements of the loop body between two calls on the element that
/// depend on both keep the calls apart, but a statement under `if x is T`
/// (`x` the loop variable, which denotes the element as the loop found it,
/// so its type is fixed for the iteration) does nothing when the element is
/// not a `T`. For the element types where nothing between the calls is
/// live, the later call joins the earlier call's fused call (its guard
/// there lists those types); for the others it runs at its own call step
/// (whose guard lists the rest). The callee per type is built for every
/// call of the step; a call whose guard excludes the element's type is
/// simply inactive in it, and a step where no call takes part makes no
/// visit. Guards are only used where no earlier call of the iteration may
/// replace the element, so the node called is the element the loop found.
///
/// On a child slot the node can change between group steps (`self.c = new
/// ..`), so there the type that decides is that of the node standing in
/// the slot when the fused function started ([`FusedFunction::typed_child`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeGuard {
    /// Concrete types of the element for which the call takes part here.
    pub types: Vec<TypeId>,
    /// Why the call takes part only for these types, in words.
    pub reason: String,
}

/// The calls (bit `k` for `calls[k]`) of a call step with `guards` that
/// take part when the element's concrete type is `ty`.
pub fn admitted<M: ParticipantMask>(guards: &[Option<TypeGuard>], ty: TypeId) -> M {
    let mut m = M::ALL;
    for (k, g) in guards.iter().enumerate() {
        if g.as_ref().is_some_and(|g| !g.types.contains(&ty)) {
            m.remove(k);
        }
    }
    m
}

/// Traversing calls on the same child, merged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallGroup {
    /// The child field of `self` the calls are made on.
    pub field: FieldId,
    /// The calls, as (participant, statement index), in unfused order. The
    /// statement is either the call or an `if` whose only statement is the
    /// call (then the guard decides whether the call takes part).
    pub calls: Vec<(usize, usize)>,
    /// The callee per concrete type of the child; its participants are the
    /// calls' traversals in the same order.
    pub targets: Vec<(TypeId, FusedFnId)>,
    /// Type-guarded participation, parallel to `calls` (or empty: every
    /// call takes part whatever the child's type): a call with a guard
    /// takes part here only when the node that stood in `field` when the
    /// fused function started was of one of the guard's types
    /// ([`FusedFunction::typed_child`]); for the other types it runs at
    /// another group step on the same child.
    pub guards: Vec<Option<TypeGuard>>,
}

/// A call `x.f()` on a merged loop's element run as `x.f$head()` and
/// `x.f$tail()` (`treefuse_sema::SplitTraversal`): on every type, the head
/// is `f`'s statements up to its last call on a child and never replaces
/// the node, the tail is the rest; the head joins an earlier call's fused
/// call on the element, the tail runs where the whole call would.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitCall {
    /// The loop (participant, statement) whose body makes the call.
    pub call: (usize, usize),
    /// Source of the call.
    pub span: Span,
    /// The loop of the call whose fused call the head joined.
    pub joined: (usize, usize),
    /// Source of that call.
    pub joined_span: Span,
    /// Element types for which head and tail run at different call steps
    /// (for the others the tail joins the head again).
    pub types: Vec<TypeId>,
    /// Why, in words.
    pub reason: String,
}

/// A pair of calls on the same child that stayed apart, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    /// The earlier call (participant, statement).
    pub first: (usize, usize),
    /// The later call.
    pub second: (usize, usize),
    /// Source of the earlier call.
    pub first_span: Span,
    /// Source of the later call.
    pub second_span: Span,
    /// The reason, in words, with the conflicting access path.
    pub reason: String,
}

impl FusedProgram {
    /// The entry of the `fuse` item called `name`.
    pub fn entry(&self, name: &str) -> Option<&FusedEntry> {
        self.entries.iter().find(|e| e.fuse == name)
    }

    /// The most participants of one fused function (and calls of one
    /// chunk): the width the engines' [`ParticipantMask`]s need.
    pub fn widest(&self) -> usize {
        let functions = self.functions.iter().map(|f| f.participants.len());
        let chunks = self
            .entries
            .iter()
            .flat_map(|e| e.chunks.iter().map(|c| c.calls.len()));
        functions.chain(chunks).max().unwrap_or(0)
    }
}

/// Looks up the target for a concrete type in a dispatch list.
pub fn target_for(targets: &[(TypeId, FusedFnId)], ty: TypeId) -> Option<FusedFnId> {
    targets.iter().find(|(t, _)| *t == ty).map(|(_, f)| *f)
}

/// One statement of a `fuse` item, seen the same way whether it comes from
/// the checked item ([`FuseStmt`], whose units are single calls) or from
/// its fused entry ([`EntryStmt`], whose units are chunks), so that each
/// engine has one walker for both runs.
#[derive(Clone, Copy, Debug)]
pub enum FuseLevel<'a, S> {
    /// A call (unfused) or a chunk (fused), by index.
    Unit(usize),
    /// `g = e;`
    SetGlobal {
        /// The global.
        global: GlobalId,
        /// The new value.
        value: &'a Expr,
    },
    /// `while cond limit N { body }`
    While {
        /// Read before each iteration.
        cond: &'a Expr,
        /// Evaluated once, before the first iteration (`<= 0`: none).
        limit: &'a Expr,
        /// The loop body.
        body: &'a [S],
        /// The item's statements `body` stands for (the source loop's
        /// body): what to pass to [`FuseLevelStmt::level`] for the
        /// statements of `body`.
        source: &'a [FuseStmt],
    },
    /// `break;`
    Break,
}

/// Statements of a `fuse` item, unfused or fused (see [`FuseLevel`]).
pub trait FuseLevelStmt: Sized {
    /// This statement as a [`FuseLevel`]. `source` is the statement list of
    /// the `fuse` item that this statement's list stands for: for the
    /// item's top level, [`treefuse_sema::Fuse::body`]; inside a `while`,
    /// the `source` its [`FuseLevel::While`] gave. (A [`FuseStmt`] is its
    /// own source; an [`EntryStmt`] reads its expressions there.)
    ///
    /// # Panics
    ///
    /// For an [`EntryStmt`] whose `stmt` is not a statement of the same
    /// kind in `source`: a fused entry of another program
    /// ([`FusedProgram::check_fits`] rules that out for a stored one).
    fn level<'a>(&'a self, source: &'a [FuseStmt]) -> FuseLevel<'a, Self>;
}

impl FuseLevelStmt for FuseStmt {
    fn level<'a>(&'a self, _source: &'a [FuseStmt]) -> FuseLevel<'a, Self> {
        match self {
            FuseStmt::Call(c) => FuseLevel::Unit(*c),
            FuseStmt::SetGlobal { global, value, .. } => FuseLevel::SetGlobal {
                global: *global,
                value,
            },
            FuseStmt::While {
                cond, limit, body, ..
            } => FuseLevel::While {
                cond,
                limit,
                body,
                source: body,
            },
            FuseStmt::Break { .. } => FuseLevel::Break,
        }
    }
}

impl FuseLevelStmt for EntryStmt {
    fn level<'a>(&'a self, source: &'a [FuseStmt]) -> FuseLevel<'a, Self> {
        match self {
            EntryStmt::Chunk(c) => FuseLevel::Unit(*c),
            EntryStmt::SetGlobal { stmt, .. } => match source.get(*stmt) {
                Some(FuseStmt::SetGlobal { global, value, .. }) => FuseLevel::SetGlobal {
                    global: *global,
                    value,
                },
                _ => panic!("{}", MISMATCH),
            },
            EntryStmt::While { stmt, body, .. } => match source.get(*stmt) {
                Some(FuseStmt::While {
                    cond,
                    limit,
                    body: inner,
                    ..
                }) => FuseLevel::While {
                    cond,
                    limit,
                    body,
                    source: inner,
                },
                _ => panic!("{}", MISMATCH),
            },
            EntryStmt::Break { .. } => FuseLevel::Break,
        }
    }
}

const MISMATCH: &str = "a fused entry statement does not name a statement of its `fuse` item: \
    the fused program was made for another program";
