//! The reference interpreter: runs a `fuse` item's calls one after the
//! other, unfused, which is the meaning of a program (LANGUAGE.md).
//!
//! It walks the checked model directly. Traversals recurse on the Rust
//! stack, one host frame per traversal invocation (the fused engine runs
//! a fused call in tail position in a loop instead, see `fused.rs`);
//! `stacker` grows the
//! stack on demand (a check of the remaining stack at each call, a new
//! segment when it runs low), so million-level chains run without an
//! overflow and shallow trees pay almost nothing.
//!
//! Both engines count node visits (LANGUAGE.md §5): one per traversal
//! invocation, or per fused-function invocation in a fused run
//! ([`RunStats::node_visits`]), and where they went, per traversal body
//! and per fused function ([`RunStats::profile`], a [`VisitProfile`]: what
//! `treefuse run --profile` prints). Frame, value, argument and open-loop
//! buffers are recycled through pools in both engines, so a visit rarely
//! asks the allocator for anything.

#![warn(missing_docs)]

mod fused;
mod rewrite;

use rewrite::{OpenList, Site};

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use treefuse_fusion::{FuseLevel, FuseLevelStmt};
use treefuse_runtime::{NodeId, NodeList, Slot, Tree, TreeStore};
use treefuse_sema::ops::{self, BinaryOp, OpError};
use treefuse_sema::*;
use treefuse_syntax::Span;

/// A host-supplied pure function.
pub type HostFn = Box<dyn Fn(&[Value]) -> Result<Value, String> + Send + Sync>;

/// Bodies for `pure fn` declarations without one.
#[derive(Default)]
pub struct Host {
    fns: HashMap<String, HostFn>,
    observer: Option<ProgressObserver>,
}

/// A function told how a run is going (see [`Host::observe`]).
type ProgressObserver = Box<dyn Fn(RunProgress) + Send + Sync>;

/// How far a run of a `fuse` item has come, as told to an observer
/// ([`Host::observe`]) before each call of the item (each fused call on
/// the root, for a fused run) and each round of its `while` loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// Calls of the item started so far (this one included).
    pub calls: u64,
    /// `while` rounds of the item started so far.
    pub rounds: u64,
    /// Node visits so far.
    pub visits: u64,
}

impl Host {
    /// No host functions.
    pub fn new() -> Host {
        Host::default()
    }

    /// Supplies the body of `pure fn name(..)`.
    pub fn define(
        &mut self,
        name: &str,
        f: impl Fn(&[Value]) -> Result<Value, String> + Send + Sync + 'static,
    ) {
        self.fns.insert(name.to_string(), Box::new(f));
    }

    /// Calls `f` as a run goes (see [`RunProgress`]): for progress bars.
    /// It must not take long; it is called once per call of the `fuse`
    /// item, never per node.
    pub fn observe(&mut self, f: impl Fn(RunProgress) + Send + Sync + 'static) {
        self.observer = Some(Box::new(f));
    }

    fn tell(&self, progress: RunProgress) {
        if let Some(f) = &self.observer {
            f(progress);
        }
    }
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host")
            .field("fns", &self.fns.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A runtime error of the program: division by zero, a failed cast, an
/// index out of range, a missing host function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// What went wrong.
    pub message: String,
    /// The traversal (`Type.name`), pure function or fuse item running.
    pub context: String,
    /// The expression or statement that failed.
    pub span: Span,
}

impl RuntimeError {
    /// Renders the error as `file:line:col: in CONTEXT: MESSAGE`.
    pub fn render(&self, file: &str, source: &str) -> String {
        let (line, col) =
            treefuse_syntax::LineIndex::new(source).line_col(source, self.span.start as usize);
        self.render_at(&format!("{file}:{line}:{col}"))
    }

    /// Renders the error as `LOCATION: in CONTEXT: MESSAGE`, where
    /// `location` is the `file:line:col` of [`RuntimeError::span`] (for a
    /// program of several files, from its source map).
    pub fn render_at(&self, location: &str) -> String {
        format!(
            "runtime error: {location}: in {}: {}",
            self.context, self.message
        )
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "runtime error in {}: {}", self.context, self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A [`RuntimeError`] as the executor passes it up: boxed, so that the
/// results of `eval` and `exec` (`Result<Value, Failure>`, `Result<Flow,
/// Failure>`) are two words. With the error inline (56 bytes) every
/// expression's result was written to the stack and read back, often in
/// other widths than it was written (a stall of the store buffer, the
/// hottest instructions of the fused engine's argument evaluation). Boxed,
/// the render run of 10^4 pages went from 137 to 128 ms unfused and from
/// 109 to 97 ms fused. The public entry points unbox it.
type Failure = Box<RuntimeError>;

const _: () = assert!(std::mem::size_of::<Result<Value, Failure>>() == 16);

/// Counts from one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Traversal invocations (LANGUAGE.md §5).
    pub node_visits: u64,
    /// Visits made by each call of the `fuse` item (each fused call on the
    /// root, for a fused run), in the order they ran: a call inside a
    /// `while` loop appears once per iteration.
    pub visits_per_call: Vec<u64>,
    /// The iterations each `while` loop of the item took, in the order the
    /// loops ended (LANGUAGE §7.7).
    pub loop_iterations: Vec<u64>,
    /// The `while` loops of traversals (LANGUAGE §8.6), every one of the
    /// program by source position: how often each was entered and the
    /// iterations it took in all.
    pub traversal_loops: Vec<TraversalLoopStats>,
    /// Where the visits went.
    pub profile: VisitProfile,
    /// What the loops the fuser proved independent did on several threads
    /// ([`Interpreter::split_loops`]; zero otherwise).
    pub split: SplitStats,
}

/// The split loops of a fused run on several threads
/// ([`Interpreter::split_loops`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitStats {
    /// Loops whose chunks ran on the pool's threads and were kept.
    pub split_loops: u64,
    /// Of those, the linked chains (`FusedFunction::linked_chain`) whose
    /// items ran as the elements of a split loop.
    pub split_chains: u64,
    /// Chunks those loops ran in.
    pub chunks: u64,
    /// Node visits made in those chunks: what ran on several threads.
    pub chunk_visits: u64,
    /// Loops that were split but ran again sequentially: a chunk touched
    /// a node of another chunk's (or changed one outside the list), or
    /// failed (the sequential run then raises the error).
    pub rerun: u64,
}

/// The error a worker of a split loop stops with when its view was
/// abandoned (never seen: the loop then runs again sequentially).
fn abandoned() -> Failure {
    Box::new(RuntimeError {
        message: "a parallel chunk touched a node of another chunk".into(),
        context: String::new(),
        span: Span::default(),
    })
}

/// The counts of one `while` loop of a traversal over a run (§8.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraversalLoopStats {
    /// The loop statement in the source.
    pub span: Span,
    /// The traversal body it is written in (`Type.name` by
    /// [`Program::body_name`]).
    pub body: BodyId,
    /// How many times the loop statement was run.
    pub entered: u64,
    /// The iterations it took in all (the body ran this often).
    pub iterations: u64,
}

/// Where the visits of one run went, for finding what a fused schedule
/// spends its visits on (`treefuse run --profile`): every visit is counted
/// once, by the traversal body or the fused function it ran, so the counts
/// add up to [`RunStats::node_visits`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VisitProfile {
    /// Visits that ran a traversal body, indexed by [`BodyId`]: every visit
    /// of an unfused run, and the calls a fused run makes outside its fused
    /// functions (none when everything fused).
    pub by_body: Vec<u64>,
    /// Visits that ran a fused function, indexed by
    /// `treefuse_fusion::FusedFnId`; empty for an unfused run.
    pub by_fused: Vec<u64>,
}

impl VisitProfile {
    /// Zero counts for every body of `program` and `fused_functions` fused
    /// functions.
    pub(crate) fn new(program: &Program, fused_functions: usize) -> VisitProfile {
        VisitProfile {
            by_body: vec![0; program.bodies.len()],
            by_fused: vec![0; fused_functions],
        }
    }
}

/// What a frame belongs to, for error messages.
#[derive(Clone, Copy)]
enum Owner {
    Body(BodyId),
    Pure(PureFnId),
    Fuse(u32),
}

#[derive(Clone)]
struct Frame {
    owner: Owner,
    self_node: NodeId,
    data: Vec<Value>,
    nodes: Vec<NodeId>,
    /// Where `self_node` stands.
    site: Site,
    /// Set when the traversal replaced its receiver (`self = ...`).
    replaced: bool,
    /// The open loop (index into `Interpreter::open_lists`) of each running
    /// `for` over children, by loop variable (its index in `nodes`).
    loops: Vec<(usize, usize)>,
    /// Where the running body's locals start in `data` and its node
    /// variables in `nodes`: 0 for a traversal or pure function of its
    /// own; a fused call keeps all its participants in one frame, each in
    /// a segment of its own (`fused.rs`).
    data_base: u32,
    node_base: u32,
}

/// The frames of the participants of a running call, by participant:
/// one frame for a traversal or pure function (participant 0), one frame
/// with a segment per participant for a fused call (`fused.rs`).
pub(crate) trait ParticipantFrames {
    /// The frame, set to run participant `p`.
    fn at(&mut self, p: usize) -> &mut Frame;
}

impl ParticipantFrames for [Frame] {
    #[inline(always)]
    fn at(&mut self, p: usize) -> &mut Frame {
        &mut self[p]
    }
}

impl Frame {
    /// A frame for `owner` on `self_node` at `site`, with `data` and
    /// `nodes` as its locals and node variables, no open loop, and bases 0.
    fn new(
        owner: Owner,
        self_node: NodeId,
        data: Vec<Value>,
        nodes: Vec<NodeId>,
        site: Site,
    ) -> Frame {
        Frame {
            owner,
            self_node,
            data,
            nodes,
            site,
            replaced: false,
            loops: Vec::new(),
            data_base: 0,
            node_base: 0,
        }
    }

    /// The index in `data` of local `l` of the running body.
    #[inline(always)]
    fn local(&self, l: LocalId) -> usize {
        self.data_base as usize + l.index()
    }

    /// The index in `nodes` of node variable `v` of the running body.
    #[inline(always)]
    fn var(&self, v: NodeVarId) -> usize {
        self.node_base as usize + v.index()
    }
}

// Frames move on every call (into a callee, back to the pools): up to 128
// bytes the compiler moves them inline, without a call to
// `memcpy`.
const _: () = assert!(std::mem::size_of::<Frame>() <= 128);

enum Flow {
    Normal,
    Return,
    /// `break;`: ends the innermost `while` (§8.6).
    Break,
}

/// Bytes of stack that must remain before a traversal call recurses.
const RED_ZONE: usize = 128 * 1024;
/// Size of each extra stack segment.
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// The interpreter state: the program, the host functions, the globals and
/// the visit counter. One interpreter can run several `fuse` items in turn
/// on the same globals.
pub struct Interpreter<'p> {
    program: &'p Program,
    host: &'p Host,
    /// Current values of the globals, indexed by [`GlobalId`].
    pub globals: Vec<Value>,
    visits: u64,
    /// The running `fuse` item's visits by body and fused function.
    profile: VisitProfile,
    /// Recycled frame buffers: a traversal call needs two small vectors
    /// (data locals, node variables); reusing them instead of asking the
    /// allocator each time was the largest single cost in profiles.
    value_pool: Vec<Vec<Value>>,
    node_pool: Vec<Vec<NodeId>>,
    /// Recycled buffers of the fused engine: the frames of fused calls
    /// (one per call, all participants in it) and the per-participant
    /// argument lists of a call it makes (`fused.rs`); without them a
    /// fused visit asked the allocator several times more often than an
    /// unfused one. Boxed: a fused call's frame moves from the pool into
    /// its [`fused`] `Parts`, out of the call's preparation and into the
    /// callee, and 128 bytes copied at each move were 3% of minic's fused
    /// run's instructions and a quarter of its instruction-cache misses.
    /// (The boxes are what moves out of the pool: `vec_box` allowed.)
    #[allow(clippy::vec_box)]
    frame_pool: Vec<Box<Frame>>,
    args_pool: Vec<Vec<Vec<Value>>>,
    /// Recycled open-loop lists of frames (`Frame::loops`).
    loops_pool: Vec<Vec<(usize, usize)>>,
    /// Running `for` loops over lists of children (see `rewrite.rs`).
    open_lists: Vec<OpenList>,
    /// The value of the last `return v` of a pure function, read when its
    /// body ends (kept here rather than in every frame: frames are moved
    /// on every call, and smaller ones move without a `memcpy` call).
    ret: Option<Value>,
    /// Per `while` loop of a traversal that ran in this run, by the start
    /// of its span: (entered, iterations) (§8.6).
    loop_counts: HashMap<u32, (u64, u64)>,
    /// `while` rounds of `fuse` items started (for [`Host::observe`]).
    fuse_rounds: u64,
    /// The grain of split loops, when loops the fuser proved independent
    /// run on the threads of the current rayon pool
    /// ([`Interpreter::split_loops`]).
    grain: Option<usize>,
    /// How each global combines after a split loop (computed with
    /// `grain`).
    reductions: Vec<treefuse_fusion::Reduction>,
    /// In a worker of a split loop whose iterations keep globals private:
    /// which globals it assigned.
    written: Option<Vec<bool>>,
    /// The running item's split loops so far.
    split_stats: SplitStats,
}

/// Most buffers kept for reuse (about the deepest recursion that matters).
const POOL_LIMIT: usize = 1024;

impl<'p> Interpreter<'p> {
    /// An interpreter with globals at their initial values.
    pub fn new(program: &'p Program, host: &'p Host) -> Interpreter<'p> {
        Interpreter {
            program,
            host,
            globals: program.globals.iter().map(|g| g.init.clone()).collect(),
            visits: 0,
            fuse_rounds: 0,
            profile: VisitProfile::default(),
            value_pool: Vec::new(),
            node_pool: Vec::new(),
            frame_pool: Vec::new(),
            args_pool: Vec::new(),
            loops_pool: Vec::new(),
            open_lists: Vec::new(),
            ret: None,
            loop_counts: HashMap::new(),
            grain: None,
            reductions: Vec::new(),
            written: None,
            split_stats: SplitStats::default(),
        }
    }

    /// Runs the merged loops that `treefuse fuse` reports as *may run in
    /// parallel* on the threads of the current rayon pool (the global one,
    /// or the one a caller enters with `ThreadPool::install`), in fused
    /// runs ([`Self::run_fused`]): the outermost such loop running splits
    /// its list into chunks of consecutive elements holding at least
    /// `grain` nodes each (`None`: every loop runs on the calling thread,
    /// the default). The results (tree, node ids, globals, visits, errors)
    /// are the sequential run's: see the `parallel` module of `fused.rs`
    /// for how, and [`RunStats::split`] for what the loops did.
    pub fn split_loops(&mut self, grain: Option<usize>) {
        self.grain = grain;
        self.reductions = match grain {
            Some(_) => treefuse_fusion::reductions(self.program),
            None => Vec::new(),
        };
    }

    /// The counts of every `while` loop of the program's traversals for
    /// the run that just ended, by source position, and clears them for
    /// the next run.
    pub(crate) fn take_loop_stats(&mut self) -> Vec<TraversalLoopStats> {
        let mut out: Vec<TraversalLoopStats> = Vec::new();
        for (i, b) in self.program.bodies.iter().enumerate() {
            if self.program.is_synthetic(b.method) {
                continue;
            }
            let Some(stmts) = &b.body else { continue };
            treefuse_sema::visit::for_each_stmt(stmts, &mut |s| {
                if matches!(s.kind, StmtKind::While { .. }) {
                    out.push(TraversalLoopStats {
                        span: s.span,
                        body: BodyId(i as u32),
                        entered: 0,
                        iterations: 0,
                    });
                }
            });
        }
        out.sort_by_key(|l| (l.span.start, l.span.end));
        out.dedup_by_key(|l| l.span.start);
        for l in &mut out {
            if let Some(&(entered, iterations)) = self.loop_counts.get(&l.span.start) {
                (l.entered, l.iterations) = (entered, iterations);
            }
        }
        self.loop_counts.clear();
        out
    }

    /// Node visits so far.
    pub fn visits(&self) -> u64 {
        self.visits
    }

    /// The frame a `fuse` item's arguments are evaluated in: its extra
    /// parameters, no node variables.
    fn fuse_frame(&self, tree: &Tree, fuse: &Fuse, args: Vec<Value>) -> Frame {
        let index = self
            .program
            .fuses
            .iter()
            .position(|f| f.name == fuse.name)
            .unwrap_or(0);
        Frame::new(
            Owner::Fuse(index as u32),
            tree.root(),
            args,
            Vec::new(),
            Site::Root,
        )
    }

    /// An empty value buffer, recycled when possible.
    fn take_values(&mut self) -> Vec<Value> {
        self.value_pool.pop().unwrap_or_default()
    }

    /// The values of `args`, evaluated in order, in a recycled buffer.
    fn eval_args<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        args: &[Expr],
    ) -> Result<Vec<Value>, Failure> {
        let mut values = self.take_values();
        for a in args {
            values.push(self.eval(tree, frame, a)?);
        }
        Ok(values)
    }

    /// A frame for a traversal body on `node`, its parameters set from
    /// `args` (whose buffer it takes over).
    fn body_frame(
        &mut self,
        body_id: BodyId,
        node: NodeId,
        mut data: Vec<Value>,
        site: Site,
    ) -> Frame {
        if data.capacity() == 0 {
            // A participant that does not take part gets no arguments:
            // give it a recycled buffer rather than a fresh allocation.
            data = self.take_values();
        }
        let layout = &self.program.bodies[body_id.index()].frame;
        data.resize(layout.locals.len(), Value::Int(0));
        let mut nodes = self.node_pool.pop().unwrap_or_default();
        nodes.resize(layout.node_vars.len(), node);
        Frame::new(Owner::Body(body_id), node, data, nodes, site)
    }

    /// The arguments of a call on a region node: a copy of `args` (in a
    /// recycled buffer) while more nodes follow, `args` itself, left
    /// empty, for the last one.
    fn region_args(&mut self, args: &mut Vec<Value>, last: bool) -> Vec<Value> {
        if last {
            return std::mem::take(args);
        }
        let mut copy = self.take_values();
        copy.extend(args.iter().cloned());
        copy
    }

    /// Records that `frame` runs a loop over the open list `index` with
    /// loop variable `var` (a recycled buffer for the frame's first loop).
    fn enter_loop(&mut self, frame: &mut Frame, var: NodeVarId, index: usize) {
        if frame.loops.capacity() == 0 {
            if let Some(loops) = self.loops_pool.pop() {
                frame.loops = loops;
            }
        }
        let slot = frame.var(var);
        frame.loops.push((slot, index));
    }

    /// Returns a value buffer to the pool.
    fn give_values(&mut self, mut values: Vec<Value>) {
        if values.capacity() > 0 && self.value_pool.len() < POOL_LIMIT {
            values.clear();
            self.value_pool.push(values);
        }
    }

    /// Returns a frame's buffers to the pools.
    fn recycle(&mut self, frame: Frame) {
        let (mut data, mut nodes, mut loops) = (frame.data, frame.nodes, frame.loops);
        if loops.capacity() > 0 && self.loops_pool.len() < POOL_LIMIT {
            loops.clear();
            self.loops_pool.push(loops);
        }
        if self.value_pool.len() < POOL_LIMIT {
            data.clear();
            self.value_pool.push(data);
        }
        if self.node_pool.len() < POOL_LIMIT {
            nodes.clear();
            self.node_pool.push(nodes);
        }
    }

    /// Runs the `fuse` item `fuse` on `tree`, with `args` for its extra
    /// parameters, calling its traversals one after another.
    pub fn run_fuse(
        &mut self,
        tree: &mut Tree,
        fuse: &Fuse,
        args: Vec<Value>,
    ) -> Result<RunStats, RuntimeError> {
        self.run_fuse_unfused(tree, fuse, args).map_err(|e| *e)
    }

    fn run_fuse_unfused(
        &mut self,
        tree: &mut Tree,
        fuse: &Fuse,
        args: Vec<Value>,
    ) -> Result<RunStats, Failure> {
        let mut frame = self.fuse_frame(tree, fuse, args);
        self.open_lists.clear();
        self.loop_counts.clear();
        let mut stats = RunStats::default();
        let start = self.visits;
        self.profile = VisitProfile::new(self.program, 0);
        self.run_fuse_level(
            tree,
            &mut frame,
            &fuse.body,
            &fuse.body,
            &mut stats,
            &mut |this, tree, frame, c| {
                let call = &fuse.calls[c];
                let args = call
                    .args
                    .iter()
                    .map(|a| this.eval(tree, frame, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let root = tree.root();
                this.call(tree, root, call.method, args, call.span, frame, Site::Root)
                    .map(|_| ())
            },
        )?;
        stats.node_visits = self.visits - start;
        stats.profile = std::mem::take(&mut self.profile);
        stats.traversal_loops = self.take_loop_stats();
        Ok(stats)
    }

    /// Runs the statements of a `fuse` item, unfused or fused: `run_unit`
    /// runs one call or one chunk (by index); global assignments and
    /// `while` loops are the same in both runs. `source` is the item's
    /// statement list that `stmts` stands for (see
    /// [`FuseLevelStmt::level`]).
    /// Returns [`Flow::Break`] when a `break;` ended the statements (the
    /// caller, a `while`, ends), else [`Flow::Normal`].
    pub(crate) fn run_fuse_level<S, U>(
        &mut self,
        tree: &mut Tree,
        frame: &mut Frame,
        stmts: &[S],
        source: &[FuseStmt],
        stats: &mut RunStats,
        run_unit: &mut U,
    ) -> Result<Flow, Failure>
    where
        S: FuseLevelStmt,
        U: FnMut(&mut Self, &mut Tree, &mut Frame, usize) -> Result<(), Failure>,
    {
        for s in stmts {
            match s.level(source) {
                FuseLevel::Unit(u) => {
                    let before = self.visits;
                    self.host.tell(RunProgress {
                        calls: stats.visits_per_call.len() as u64 + 1,
                        rounds: self.fuse_rounds,
                        visits: self.visits,
                    });
                    run_unit(self, tree, frame, u)?;
                    stats.visits_per_call.push(self.visits - before);
                }
                FuseLevel::SetGlobal { global, value } => {
                    let v = self.eval(tree, frame, value)?;
                    self.globals[global.index()] = v;
                }
                FuseLevel::While {
                    cond,
                    limit,
                    body,
                    source,
                } => {
                    // The limit is evaluated once; `<= 0` runs no
                    // iteration (§8.6).
                    let limit = self.eval(tree, frame, limit)?.as_int();
                    let mut iterations: u64 = 0;
                    while (iterations as i128) < i128::from(limit) {
                        if !matches!(self.eval(tree, frame, cond)?, Value::Bool(true)) {
                            break;
                        }
                        iterations += 1;
                        self.fuse_rounds += 1;
                        if let Flow::Break =
                            self.run_fuse_level(tree, frame, body, source, stats, run_unit)?
                        {
                            break;
                        }
                    }
                    stats.loop_iterations.push(iterations);
                }
                FuseLevel::Break => return Ok(Flow::Break),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs a traversal's `while cond limit n { body }` (§8.6): the limit
    /// is evaluated once (`<= 0`: no iteration), the condition before each
    /// iteration; `break` ends the loop, `return` the traversal.
    /// Runs a `while` loop (§8.6) whose condition and limit are evaluated
    /// in `frames[p]` and whose iterations `iteration` runs (the body as
    /// written, or with its calls fused), counting it in the run's loop
    /// statistics.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn exec_while<F: ParticipantFrames + ?Sized, S: TreeStore>(
        &mut self,
        tree: &mut S,
        frames: &mut F,
        p: usize,
        span: Span,
        cond: &Expr,
        limit: &Expr,
        mut iteration: impl FnMut(&mut Self, &mut S, &mut F) -> Result<Flow, Failure>,
    ) -> Result<Flow, Failure> {
        let limit = self.eval(tree, frames.at(p), limit)?.as_int();
        let mut iterations: i64 = 0;
        let mut flow = Flow::Normal;
        let result = loop {
            if iterations >= limit {
                break Ok(());
            }
            if tree.abandoned() {
                break Err(abandoned());
            }
            match self.eval(tree, frames.at(p), cond) {
                Ok(Value::Bool(true)) => {}
                Ok(_) => break Ok(()),
                Err(e) => break Err(e),
            }
            iterations += 1;
            match iteration(self, tree, frames) {
                Ok(Flow::Normal) => {}
                Ok(Flow::Break) => break Ok(()),
                Ok(Flow::Return) => {
                    flow = Flow::Return;
                    break Ok(());
                }
                Err(e) => break Err(e),
            }
        };
        let counts = self.loop_counts.entry(span.start).or_default();
        counts.0 += 1;
        counts.1 += iterations as u64;
        result.map(|()| flow)
    }

    fn context(&self, owner: Owner) -> String {
        match owner {
            Owner::Body(b) => self.program.body_name(b),
            Owner::Pure(f) => format!("pure fn {}", self.program.pure_fns[f.index()].name),
            Owner::Fuse(i) => format!(
                "fuse {}",
                self.program.fuses.get(i as usize).map_or("?", |f| &f.name)
            ),
        }
    }

    fn error(&self, frame: &Frame, span: Span, message: impl Into<String>) -> Failure {
        Box::new(RuntimeError {
            message: message.into(),
            context: self.context(frame.owner),
            span,
        })
    }

    fn op_error(&self, frame: &Frame, span: Span, e: OpError) -> Failure {
        self.error(frame, span, e.to_string())
    }

    /// Invokes `method` on `node`, which stands at `site`, dispatching on
    /// its concrete type. Returns whether the traversal replaced `node`.
    #[allow(clippy::too_many_arguments)]
    fn call<S: TreeStore>(
        &mut self,
        tree: &mut S,
        node: NodeId,
        method: MethodId,
        args: Vec<Value>,
        span: Span,
        caller: &Frame,
        site: Site,
    ) -> Result<bool, Failure> {
        let ty = tree.type_of(node);
        let Some(body_id) = self.program.dispatch(ty, method) else {
            return Err(self.error(
                caller,
                span,
                format!(
                    "no traversal `{}` for a node of type `{}`",
                    self.program.methods[method.index()].name,
                    self.program.type_name(ty)
                ),
            ));
        };
        if tree.abandoned() {
            return Err(abandoned());
        }
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.visits += 1;
            if let Some(count) = self.profile.by_body.get_mut(body_id.index()) {
                *count += 1;
            }
            let program = self.program;
            let mut frame = self.body_frame(body_id, node, args, site);
            if let Some(stmts) = &program.bodies[body_id.index()].body {
                self.exec_block(tree, &mut frame, stmts)?;
            }
            let replaced = frame.replaced;
            self.recycle(frame);
            Ok(replaced)
        })
    }

    fn exec_block<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        stmts: &[Stmt],
    ) -> Result<Flow, Failure> {
        for s in stmts {
            match self.exec(tree, frame, s)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        s: &Stmt,
    ) -> Result<Flow, Failure> {
        match &s.kind {
            StmtKind::Call {
                receiver,
                method,
                args,
            } => {
                // A call on a loop variable runs on every node that now
                // stands where the element stood.
                if let (PathRoot::Var(v), true) = (receiver.root, receiver.steps.is_empty()) {
                    if let Some(index) = Self::loop_of(frame, v) {
                        let mut args = self.eval_args(tree, frame, args)?;
                        let method = *method;
                        self.on_region(index, |this, n, last| {
                            let args = this.region_args(&mut args, last);
                            this.call(tree, n, method, args, s.span, frame, Site::Listed(index))
                                .map(|_| ())
                        })?;
                        self.give_values(args);
                        return Ok(Flow::Normal);
                    }
                }
                // A call on an empty optional child does nothing, its
                // arguments unevaluated (§8.7).
                let Some(node) = self.path_opt(tree, frame, receiver)? else {
                    return Ok(Flow::Normal);
                };
                let args = self.eval_args(tree, frame, args)?;
                let site = match receiver.steps.last() {
                    None if receiver.root == PathRoot::SelfNode => frame.site,
                    Some(PathStep::Child(f)) if receiver.steps.len() == 1 => {
                        Site::Child(frame.self_node, self.slot_index(*f))
                    }
                    _ => Site::Nowhere,
                };
                let replaced = self.call(tree, node, *method, args, s.span, frame, site)?;
                // `self.f()` that replaced the receiver ends this traversal too.
                if replaced && receiver.root == PathRoot::SelfNode && receiver.steps.is_empty() {
                    frame.replaced = true;
                    return Ok(Flow::Return);
                }
            }
            StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. } => return self.exec_rewrite(tree, frame, s),
            StmtKind::Let { local, value } => {
                let v = self.eval(tree, frame, value)?;
                let i = frame.local(*local);
                frame.data[i] = v;
            }
            StmtKind::Alias { var, path } => {
                let n = self.path(tree, frame, path)?;
                let i = frame.var(*var);
                frame.nodes[i] = n;
            }
            StmtKind::Assign { place, value } => {
                if !self.update_array_in_place(tree, frame, place, value)? {
                    let v = self.eval(tree, frame, value)?;
                    self.assign(tree, frame, place, v, s.span)?;
                }
            }
            StmtKind::Replace { slot, tree: new } => {
                let parent = self.path(tree, frame, &slot.parent)?;
                let built = self.build(tree, frame, new)?;
                let child = self.materialize(tree, &built);
                tree.set_slot(parent, self.slot_index(slot.field), Slot::Child(child));
            }
            StmtKind::Move { slot, source } => {
                let parent = self.path(tree, frame, &slot.parent)?;
                let moved = self.path(tree, frame, source)?;
                tree.set_slot(parent, self.slot_index(slot.field), Slot::Child(moved));
            }
            StmtKind::Clear { slot } => {
                let parent = self.path(tree, frame, &slot.parent)?;
                tree.set_slot(parent, self.slot_index(slot.field), Slot::Empty);
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let branch = if self.eval(tree, frame, cond)?.as_bool() {
                    then_branch
                } else {
                    else_branch
                };
                return self.exec_block(tree, frame, branch);
            }
            StmtKind::ForChildren { var, list, body } => {
                let parent = self.path(tree, frame, &list.parent)?;
                let index = self.open_list(tree, parent, self.slot_index(list.field));
                self.enter_loop(frame, *var, index);
                let mut flow = Flow::Normal;
                let slot = frame.var(*var);
                while let Some(item) = self.advance(index) {
                    frame.nodes[slot] = item;
                    if let Flow::Return = self.exec_block(tree, frame, body)? {
                        flow = Flow::Return;
                        break;
                    }
                }
                frame.loops.pop();
                self.close_list(tree);
                return Ok(flow);
            }
            StmtKind::ForArray { var, array, body } => {
                let array = self.eval(tree, frame, array)?;
                if let Value::Array(items) = array {
                    let slot = frame.local(*var);
                    for item in items.iter() {
                        frame.data[slot] = item.clone();
                        if let Flow::Return = self.exec_block(tree, frame, body)? {
                            return Ok(Flow::Return);
                        }
                    }
                }
            }
            StmtKind::ForRange {
                var,
                start,
                end,
                body,
            } => {
                let start = self.eval(tree, frame, start)?.as_int();
                let end = self.eval(tree, frame, end)?.as_int();
                let slot = frame.local(*var);
                for i in start..end {
                    frame.data[slot] = Value::Int(i);
                    if let Flow::Return = self.exec_block(tree, frame, body)? {
                        return Ok(Flow::Return);
                    }
                }
            }
            StmtKind::Return(value) => {
                if let Some(v) = value {
                    self.ret = Some(self.eval(tree, frame, v)?);
                }
                return Ok(Flow::Return);
            }
            StmtKind::While { cond, limit, body } => {
                return self.exec_while(
                    tree,
                    std::slice::from_mut(frame),
                    0,
                    s.span,
                    cond,
                    limit,
                    |this, tree, frames| this.exec_block(tree, frames.at(0), body),
                );
            }
            StmtKind::Break => return Ok(Flow::Break),
        }
        Ok(Flow::Normal)
    }

    #[inline]
    fn slot_index(&self, field: FieldId) -> u32 {
        self.program.fields[field.index()].slot
    }

    /// Follows a node path, checking casts, list indices and that every
    /// optional child on the way holds a node (§8.7).
    fn path<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        p: &NodePath,
    ) -> Result<NodeId, Failure> {
        self.follow(tree, frame, p, &p.steps)
    }

    /// The node a path reaches, or `None` if its last step is an empty
    /// optional child (which a call, `is T` and `is none` accept, §8.7).
    fn path_opt<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        p: &NodePath,
    ) -> Result<Option<NodeId>, Failure> {
        match self.program.ends_in_optional(p) {
            Some(f) => {
                let parent = self.follow(tree, frame, p, &p.steps[..p.steps.len() - 1])?;
                Ok(tree.child_opt(parent, self.slot_index(f)))
            }
            None => self.path(tree, frame, p).map(Some),
        }
    }

    /// The runtime error of following an empty optional child `f`.
    fn empty_child(&self, frame: &Frame, span: Span, f: FieldId) -> Failure {
        self.error(
            frame,
            span,
            format!(
                "the optional child `{}` is empty",
                self.program.fields[f.index()].name
            ),
        )
    }

    /// Follows `steps` of path `p` from its root.
    fn follow<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        p: &NodePath,
        steps: &[PathStep],
    ) -> Result<NodeId, Failure> {
        let mut n = match p.root {
            PathRoot::SelfNode => frame.self_node,
            PathRoot::Var(v) => frame.nodes[frame.var(v)],
        };
        for step in steps {
            match step {
                PathStep::Child(f) if self.program.is_optional(*f) => {
                    match tree.child_opt(n, self.slot_index(*f)) {
                        Some(c) => n = c,
                        None => return Err(self.empty_child(frame, p.span, *f)),
                    }
                }
                PathStep::Child(f) => n = tree.child(n, self.slot_index(*f)),
                PathStep::Elem(f, i) => {
                    let i = self.eval(tree, frame, &i.0)?.as_int();
                    let items = self.list_of(tree, n, self.slot_index(*f));
                    match usize::try_from(i).ok().and_then(|i| items.get(i)) {
                        Some(&x) => n = x,
                        None => {
                            return Err(self.error(
                                frame,
                                p.span,
                                format!(
                                    "list index {i} out of range (the list has {} elements)",
                                    items.len()
                                ),
                            ))
                        }
                    }
                }
                PathStep::Cast(t) => {
                    let actual = tree.type_of(n);
                    if !self.program.is_subtype(actual, *t) {
                        return Err(self.error(
                            frame,
                            p.span,
                            format!(
                                "cast failed: the node is a `{}`, not a `{}`",
                                self.program.type_name(actual),
                                self.program.type_name(*t)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(n)
    }

    fn assign<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        place: &Place,
        v: Value,
        span: Span,
    ) -> Result<(), Failure> {
        // Evaluate index expressions before borrowing the target mutably.
        let mut indices = Vec::new();
        let mut key = None;
        for p in &place.projections {
            match p {
                Projection::Index(e) => indices.push(self.eval(tree, frame, e)?.as_int()),
                Projection::Key(e) => key = Some(self.eval(tree, frame, e)?),
                Projection::Member(_) => {}
            }
        }
        let node = match &place.root {
            PlaceRoot::Field(path, _) => Some(self.path(tree, frame, path)?),
            _ => None,
        };
        let err_frame_owner = frame.owner;
        let target: &mut Value = match &place.root {
            PlaceRoot::Local(l) => {
                let i = frame.local(*l);
                &mut frame.data[i]
            }
            PlaceRoot::Global(g) => {
                if let Some(written) = &mut self.written {
                    written[g.index()] = true;
                }
                &mut self.globals[g.index()]
            }
            PlaceRoot::Field(_, f) => {
                let slot = self.program.fields[f.index()].slot;
                let n = node.unwrap_or(frame.self_node);
                if place.projections.is_empty() {
                    tree.set_data(n, slot, v);
                    return Ok(());
                }
                // A path into a string, record, array or map: changed
                // where it stands.
                match tree.data_mut(n, slot) {
                    Some(target) => target,
                    None => return Ok(()),
                }
            }
        };
        let mut cur = target;
        let mut next_index = indices.into_iter();
        for p in &place.projections {
            cur = match p {
                Projection::Member(i) => ops::member_mut(cur, *i as usize),
                // The checker makes a key the last projection: the entry is
                // inserted (or found) and then overwritten below.
                Projection::Key(_) => {
                    let k = key.take().unwrap_or(Value::Int(0));
                    ops::entry_mut(cur, &k, Value::Int(0))
                }
                Projection::Index(_) => {
                    let i = next_index.next().unwrap_or(0);
                    match ops::index_mut(cur, i) {
                        Ok(x) => x,
                        Err(e) => {
                            return Err(Box::new(RuntimeError {
                                message: e.to_string(),
                                context: self.context(err_frame_owner),
                                span,
                            }))
                        }
                    }
                }
            };
        }
        *cur = v;
        Ok(())
    }

    /// `x = append(x, e);` (and `concat`, `slice`, `insert_at`,
    /// `remove_at` of `x` itself, LANGUAGE §8.5) where `x` is a local, a
    /// global or a data field: the array is changed where it stands, so
    /// that it is copied only if another value shares its storage, and
    /// appending is amortized O(1). Evaluates as the assignment would (the
    /// path to `x`, then the other arguments, then the built-in), so it
    /// fails exactly where and when that does. `false` if the statement is
    /// not of that shape (nothing was evaluated).
    fn update_array_in_place<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        place: &Place,
        value: &Expr,
    ) -> Result<bool, Failure> {
        let ExprKind::Builtin(b, args) = &value.kind else {
            return Ok(false);
        };
        if !b.updates_array() || !place.projections.is_empty() {
            return Ok(false);
        }
        let Some((first, rest)) = args.split_first() else {
            return Ok(false);
        };
        let node = match (&place.root, &first.kind) {
            (PlaceRoot::Local(l), ExprKind::Local(m)) if l == m => None,
            (PlaceRoot::Global(g), ExprKind::Global(h)) if g == h => None,
            // (Paths with a list index never compare equal: their index
            // expressions are different source expressions.)
            (PlaceRoot::Field(p, f), ExprKind::Field(q, g)) if f == g && p.same_steps(q) => {
                Some(self.path(tree, frame, q)?)
            }
            _ => return Ok(false),
        };
        let mut values = self.take_values();
        for a in rest {
            match self.eval(tree, frame, a) {
                Ok(v) => values.push(v),
                Err(e) => {
                    self.give_values(values);
                    return Err(e);
                }
            }
        }
        let result = match (&place.root, node) {
            (PlaceRoot::Local(l), _) => {
                let i = frame.local(*l);
                ops::array_update(*b, &mut frame.data[i], &values)
            }
            (PlaceRoot::Global(g), _) => {
                if let Some(written) = &mut self.written {
                    written[g.index()] = true;
                }
                ops::array_update(*b, &mut self.globals[g.index()], &values)
            }
            (PlaceRoot::Field(_, f), Some(n)) => {
                let slot = self.slot_index(*f);
                match tree.data_mut(n, slot) {
                    Some(v) => ops::array_update(*b, v, &values),
                    None => Ok(()),
                }
            }
            (PlaceRoot::Field(..), None) => Ok(()),
        };
        self.give_values(values);
        result.map_err(|err| self.op_error(frame, value.span, err))?;
        Ok(true)
    }

    fn build<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        new: &NewTree,
    ) -> Result<Built, Failure> {
        let mut fields = Vec::with_capacity(new.fields.len());
        for nf in &new.fields {
            fields.push(self.build_field(tree, frame, nf)?);
        }
        Ok(Built::Node(new.ty, fields))
    }

    fn build_field<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        nf: &NewField,
    ) -> Result<Built, Failure> {
        Ok(match nf {
            NewField::Data(e) => Built::Data(self.eval(tree, frame, e)?),
            NewField::New(t) => self.build(tree, frame, t)?,
            NewField::Move(p) => Built::Existing(self.path(tree, frame, p)?),
            NewField::List(items) => Built::List(
                items
                    .iter()
                    .map(|i| self.build_field(tree, frame, i))
                    .collect::<Result<_, _>>()?,
            ),
            NewField::MoveList(slot) => {
                let parent = self.path(tree, frame, &slot.parent)?;
                Built::ExistingList(self.list_of(tree, parent, self.slot_index(slot.field)))
            }
            NewField::Copy(p) => {
                let n = self.path(tree, frame, p)?;
                Built::Existing(self.deep_copy(tree, n))
            }
            NewField::Empty => Built::Empty,
        })
    }

    /// Allocates the nodes of a built subtree. Every value and moved node
    /// was computed first, so a runtime error leaves the tree untouched.
    fn materialize<S: TreeStore>(&self, tree: &mut S, built: &Built) -> NodeId {
        match built {
            Built::Node(ty, fields) => {
                let node = tree.alloc(self.program, *ty);
                for (i, f) in fields.iter().enumerate() {
                    let slot = match f {
                        Built::Data(v) => Slot::Data(v.clone()),
                        Built::Node(..) | Built::Existing(_) => {
                            Slot::Child(self.materialize(tree, f))
                        }
                        Built::List(items) => {
                            Slot::List(items.iter().map(|x| self.materialize(tree, x)).collect())
                        }
                        Built::ExistingList(items) => Slot::List(items.clone()),
                        Built::Empty => Slot::Empty,
                    };
                    tree.set_slot(node, i as u32, slot);
                }
                node
            }
            Built::Existing(n) => *n,
            // Not reachable for a node position; the checker guarantees it.
            Built::Data(_) | Built::List(_) | Built::ExistingList(_) | Built::Empty => tree.root(),
        }
    }

    /// Evaluates a data expression: the leaves most expressions are made
    /// of (constants, locals, globals, a field of `self` or of a node
    /// variable) here, inlined, the rest in [`Self::eval_compound`], whose
    /// frame is large and costly to set up.
    #[inline(always)]
    fn eval<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        e: &Expr,
    ) -> Result<Value, Failure> {
        match &e.kind {
            ExprKind::Const(v) => Ok(v.clone()),
            ExprKind::Local(l) => Ok(frame.data[frame.local(*l)].clone()),
            ExprKind::Global(g) => Ok(self.globals[g.index()].clone()),
            ExprKind::Field(p, f) if p.steps.is_empty() => {
                let n = match p.root {
                    PathRoot::SelfNode => frame.self_node,
                    PathRoot::Var(v) => frame.nodes[frame.var(v)],
                };
                Ok(tree.data(n, self.slot_index(*f)))
            }
            _ => self.eval_compound(tree, frame, e),
        }
    }

    /// [`Self::eval`] of any expression.
    #[inline(never)]
    fn eval_compound<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        e: &Expr,
    ) -> Result<Value, Failure> {
        Ok(match &e.kind {
            ExprKind::Const(v) => v.clone(),
            ExprKind::Local(l) => frame.data[frame.local(*l)].clone(),
            ExprKind::Global(g) => self.globals[g.index()].clone(),
            ExprKind::Field(p, f) => {
                let n = self.path(tree, frame, p)?;
                tree.data(n, self.slot_index(*f))
            }
            ExprKind::Member(x, i) => match self.eval(tree, frame, x)? {
                Value::Record(fields) => fields[*i as usize].clone(),
                other => other,
            },
            ExprKind::Index(a, i) => {
                let a = self.eval(tree, frame, a)?;
                let i = self.eval(tree, frame, i)?.as_int();
                ops::index(&a, i).map_err(|err| self.op_error(frame, e.span, err))?
            }
            ExprKind::Unary(op, x) => ops::unary(*op, &self.eval(tree, frame, x)?),
            ExprKind::Binary(op, a, b) => {
                let a = self.eval(tree, frame, a)?;
                match op {
                    BinaryOp::And if !a.as_bool() => Value::Bool(false),
                    BinaryOp::Or if a.as_bool() => Value::Bool(true),
                    _ => {
                        let b = self.eval(tree, frame, b)?;
                        ops::binary(*op, &a, &b).map_err(|err| self.op_error(frame, e.span, err))?
                    }
                }
            }
            ExprKind::Builtin(b, arg_exprs) => {
                let args = self.eval_args(tree, frame, arg_exprs)?;
                let value = ops::builtin(*b, &args);
                self.give_values(args);
                value.map_err(|err| {
                    let message = err.message(self.program.key_variants(arg_exprs));
                    self.error(frame, e.span, message)
                })?
            }
            ExprKind::Call(f, args) => {
                let args = self.eval_args(tree, frame, args)?;
                self.call_pure(tree, frame, *f, args, Vec::new(), e.span)?
            }
            ExprKind::NodeCall(f, args) => {
                // Arguments in written order: values, and the nodes the
                // tree paths reach (LANGUAGE §8.8).
                let mut values = self.take_values();
                let mut nodes = self.node_pool.pop().unwrap_or_default();
                for a in args {
                    match a {
                        PureArg::Data(x) => values.push(self.eval(tree, frame, x)?),
                        PureArg::Node(p) => nodes.push(self.path(tree, frame, p)?),
                    }
                }
                self.sync_all_open_lists(tree);
                self.call_pure(tree, frame, *f, values, nodes, e.span)?
            }
            ExprKind::Array(items) => Value::Array(Arc::new(
                items
                    .iter()
                    .map(|a| self.eval(tree, frame, a))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Record(_, items) => Value::Record(Arc::new(
                items
                    .iter()
                    .map(|a| self.eval(tree, frame, a))
                    .collect::<Result<_, _>>()?,
            )),
            // An empty optional child is of no type (§8.7).
            ExprKind::Is(p, t) => Value::Bool(
                self.path_opt(tree, frame, p)?
                    .is_some_and(|n| self.program.is_subtype(tree.type_of(n), *t)),
            ),
            ExprKind::IsNone(p) => Value::Bool(self.path_opt(tree, frame, p)?.is_none()),
            ExprKind::If(c, a, b) => {
                if self.eval(tree, frame, c)?.as_bool() {
                    self.eval(tree, frame, a)?
                } else {
                    self.eval(tree, frame, b)?
                }
            }
            ExprKind::ListLen(slot) => {
                let parent = self.path(tree, frame, &slot.parent)?;
                Value::Int(
                    self.list_of(tree, parent, self.slot_index(slot.field))
                        .len() as i64,
                )
            }
            ExprKind::InList => Value::Bool(matches!(frame.site, Site::Listed(_))),
            ExprKind::Match(x, arms) => {
                let v = self.eval(tree, frame, x)?;
                match ops::match_arm(&v, arms) {
                    Some(arm) => self.eval(tree, frame, &arm.body)?,
                    // The checker made the arms cover every value.
                    None => return Err(self.error(frame, e.span, "no `match` arm for this value")),
                }
            }
        })
    }

    fn call_pure<S: TreeStore>(
        &mut self,
        tree: &mut S,
        caller: &Frame,
        f: PureFnId,
        args: Vec<Value>,
        nodes: Vec<NodeId>,
        span: Span,
    ) -> Result<Value, Failure> {
        let pf = &self.program.pure_fns[f.index()];
        match &pf.body {
            PureBody::Host => match self.host.fns.get(&pf.name) {
                Some(h) => {
                    let value = h(&args);
                    self.give_values(args);
                    value.map_err(|m| {
                        self.error(
                            caller,
                            span,
                            format!("host function `{}` failed: {m}", pf.name),
                        )
                    })
                }
                None => Err(self.error(
                    caller,
                    span,
                    format!("the host did not supply a body for `pure fn {}`", pf.name),
                )),
            },
            PureBody::Expr(e) => {
                let mut frame = self.pure_frame(f, args, nodes, caller.self_node);
                let value = self.eval(tree, &mut frame, e);
                self.recycle_pure(frame);
                value
            }
            PureBody::Block(stmts) => {
                let mut frame = self.pure_frame(f, args, nodes, caller.self_node);
                // The checker admits only local computation and reads of
                // the nodes passed in (`for` over their lists included) in
                // pure bodies, so running them with the traversal
                // executor is safe.
                self.ret = None;
                let flow = self.exec_block(tree, &mut frame, stmts);
                self.recycle_pure(frame);
                flow?;
                Ok(self.ret.take().unwrap_or(Value::Int(0)))
            }
        }
    }

    /// Returns a pure function frame's buffers to the pools (its node
    /// buffer only if it has one: most pure functions take data only).
    fn recycle_pure(&mut self, frame: Frame) {
        let mut nodes = frame.nodes;
        if nodes.capacity() > 0 && self.node_pool.len() < POOL_LIMIT {
            nodes.clear();
            self.node_pool.push(nodes);
        }
        self.give_values(frame.data);
    }

    /// The frame of a pure function: its data arguments, then its node
    /// arguments (its first node variables, LANGUAGE §8.8).
    fn pure_frame(
        &self,
        f: PureFnId,
        args: Vec<Value>,
        mut nodes: Vec<NodeId>,
        self_node: NodeId,
    ) -> Frame {
        let pf = &self.program.pure_fns[f.index()];
        let mut data = args;
        data.resize(pf.frame.locals.len(), Value::Int(0));
        nodes.resize(pf.frame.node_vars.len(), self_node);
        Frame::new(Owner::Pure(f), self_node, data, nodes, Site::Nowhere)
    }
}

/// A subtree computed by `new`, before its nodes are allocated.
pub(crate) enum Built {
    Data(Value),
    Node(TypeId, Vec<Built>),
    Existing(NodeId),
    List(Vec<Built>),
    ExistingList(NodeList),
    /// An optional child left empty (§8.7).
    Empty,
}
