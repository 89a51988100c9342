//! The options of the parallel entry points (`run_<fuse>_parallel`) of a
//! module generated with `treefuse_codegen::Config::parallel`, and the
//! chunking of a parallel loop's elements.

use std::sync::atomic::{AtomicU64, Ordering};

use super::ColdTable;

/// How a parallel run splits its loops, and what it did.
///
/// A merged loop that the fuser found independent (`treefuse fuse` says
/// "may run in parallel") and that is the outermost such loop running
/// splits its list into chunks of consecutive elements whose subtrees
/// hold at least [`grain`](Parallel::grain) nodes together, and runs the
/// chunks on the threads of the current rayon pool (the global one, or
/// the one a caller entered with `ThreadPool::install`). A list whose
/// elements hold fewer nodes runs sequentially, as every loop inside a
/// chunk does.
#[derive(Debug)]
pub struct Parallel {
    grain: usize,
    sampled_from: usize,
    chunks: AtomicU64,
    split_loops: AtomicU64,
    kept_proofs: AtomicU64,
    split_chains: AtomicU64,
}

impl Parallel {
    /// 2^13 nodes: a chunk's work then dwarfs the cost of a rayon task
    /// (`crates/bench/results/parallel.md` has the measurements).
    pub const DEFAULT_GRAIN: usize = 1 << 13;

    /// Options with chunks of at least `grain` nodes (at least 1).
    pub fn new(grain: usize) -> Parallel {
        Parallel {
            grain: grain.max(1),
            sampled_from: Parallel::DEFAULT_SAMPLED_FROM,
            chunks: AtomicU64::new(0),
            split_loops: AtomicU64::new(0),
            kept_proofs: AtomicU64::new(0),
            split_chains: AtomicU64::new(0),
        }
    }

    /// From this many elements on, a list's split is guessed from a
    /// sample of its elements rather than from all of them
    /// ([`guess_plan`]).
    pub const DEFAULT_SAMPLED_FROM: usize = 512;

    /// The same options, with lists guessed from a sample from `elements`
    /// elements on (at least 2); the plan is proven either way, so this
    /// changes how often and how finely a loop splits, never what it
    /// computes (the tests set it low to run the sampled guess on small
    /// trees).
    pub fn sampled_from(mut self, elements: usize) -> Parallel {
        self.sampled_from = elements.max(2);
        self
    }

    /// The least number of nodes a chunk holds (the last chunk of a list
    /// aside).
    pub fn grain(&self) -> usize {
        self.grain
    }

    /// How many loops ran split into chunks so far.
    pub fn split_loops(&self) -> u64 {
        self.split_loops.load(Ordering::Relaxed)
    }

    /// How many chunks those loops ran (on the pool's threads).
    pub fn chunks(&self) -> u64 {
        self.chunks.load(Ordering::Relaxed)
    }

    /// How many of those loops split as the loop before them over the same
    /// elements did, on its plan grown by the nodes its chunks created,
    /// without checking the tree again: that loop left every chunk closed
    /// and nothing changed the tree in between ([`SplitMemo`]).
    pub fn kept_proofs(&self) -> u64 {
        self.kept_proofs.load(Ordering::Relaxed)
    }

    /// How many of those loops ran the items of a linked chain (a fused
    /// function calling an item child and the next node of the chain,
    /// which the fuser found independent) rather than the elements of a
    /// list.
    pub fn split_chains(&self) -> u64 {
        self.split_chains.load(Ordering::Relaxed)
    }

    /// Records a loop over a chain's items (counted by
    /// [`Parallel::note_split`] as well).
    #[doc(hidden)]
    pub fn note_chain(&self) {
        self.split_chains.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a loop that split on a kept, still proven plan.
    #[doc(hidden)]
    pub fn note_kept_proof(&self) {
        self.kept_proofs.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a loop split into `chunks` chunks.
    #[doc(hidden)]
    pub fn note_split(&self, chunks: usize) {
        self.split_loops.fetch_add(1, Ordering::Relaxed);
        self.chunks.fetch_add(chunks as u64, Ordering::Relaxed);
    }
}

impl Default for Parallel {
    /// [`Parallel::DEFAULT_GRAIN`].
    fn default() -> Parallel {
        Parallel::new(Parallel::DEFAULT_GRAIN)
    }
}

/// The chunks of a list whose elements' subtrees hold `sizes[i]` nodes:
/// the end (exclusive) of each run of consecutive elements holding at
/// least `grain` nodes together; the last run takes what is left, and is
/// merged into the one before when it holds less than half a grain.
pub fn chunk_bounds(sizes: &[usize], grain: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut held = 0usize;
    for (i, &s) in sizes.iter().enumerate() {
        held = held.saturating_add(s);
        if held >= grain {
            ends.push(i + 1);
            held = 0;
        }
    }
    if held > 0 || ends.is_empty() {
        if held < grain / 2 && !ends.is_empty() {
            ends.pop();
        }
        ends.push(sizes.len());
    }
    ends
}

/// The ids one element's subtree holds in one arena: how many, the least
/// and the greatest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdRange {
    /// Nodes counted (a node reached twice counts twice).
    pub count: usize,
    /// The least id (when `count > 0`).
    pub lo: usize,
    /// The greatest id (when `count > 0`).
    pub hi: usize,
}

impl IdRange {
    /// Counts node `id`.
    #[inline]
    pub fn add(&mut self, id: usize) {
        if self.count == 0 {
            self.lo = id;
            self.hi = id;
        } else {
            self.lo = self.lo.min(id);
            self.hi = self.hi.max(id);
        }
        self.count += 1;
    }
}

/// Where a parallel loop's list splits: the chunks' runs of elements and,
/// per arena (`A` of them), the ids each chunk's nodes take.
///
/// An arena's ids of the list lie in one or more *bands*, ranges of ids
/// that follow each other in the arena and that the chunks cut in list
/// order: chunk `k` holds ids `bands[a][b][k]..bands[a][b][k + 1]` of
/// band `b`. A tree read in pre-order has one band per arena; nodes the
/// chunks of an earlier split loop created were appended in list order
/// after the arena's end, which makes a second band
/// ([`SplitPlan::with_growth`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitPlan<const A: usize> {
    /// The end (exclusive) of each chunk's run of elements.
    pub ends: Vec<usize>,
    /// Per arena, its bands, each as `ends.len() + 1` ascending ids: where
    /// each chunk's part of the band starts, then where the band ends.
    /// The bands of an arena are ascending and do not overlap.
    pub bands: [Vec<Vec<usize>>; A],
    /// Nodes per chunk.
    pub nodes: Vec<usize>,
}

/// At most this many bands per arena: a plan that would need more is not
/// kept for the next loop ([`SplitPlan::with_growth`]).
pub const MAX_BANDS: usize = 4;

impl<const A: usize> SplitPlan<A> {
    /// A plan of one band per arena: chunk `k` (ending at element
    /// `ends[k]`) holds the ids `starts[k][a]..starts[k + 1][a]` of arena
    /// `a`; `starts` has one more entry than `ends`.
    pub fn one_band(ends: Vec<usize>, starts: &[[usize; A]]) -> SplitPlan<A> {
        let bands = std::array::from_fn(|a| vec![starts.iter().map(|s| s[a]).collect()]);
        let mut plan = SplitPlan {
            ends,
            bands,
            nodes: Vec::new(),
        };
        plan.count_nodes();
        plan
    }

    fn count_nodes(&mut self) {
        self.nodes = (0..self.ends.len())
            .map(|k| {
                self.bands
                    .iter()
                    .flatten()
                    .map(|b| b[k + 1].saturating_sub(b[k]))
                    .sum()
            })
            .collect();
    }

    /// How many chunks.
    pub fn chunks(&self) -> usize {
        self.ends.len()
    }

    /// Chunk `k`'s ids in each arena, one range per band.
    pub fn chunk_ranges(&self, k: usize) -> [Vec<std::ops::Range<usize>>; A] {
        std::array::from_fn(|a| self.bands[a].iter().map(|b| b[k]..b[k + 1]).collect())
    }

    /// The whole list's ids in each arena, one range per band.
    pub fn list_ranges(&self) -> [Vec<std::ops::Range<usize>>; A] {
        std::array::from_fn(|a| self.bands[a].iter().map(|b| b[0]..b[b.len() - 1]).collect())
    }

    /// Whether every band has one boundary per chunk and one more, in
    /// ascending order, and an arena's bands follow each other without
    /// overlapping, within arenas of `lens[a]` nodes.
    pub fn is_well_formed(&self, lens: [usize; A]) -> bool {
        let n = self.ends.len() + 1;
        self.bands.iter().zip(lens).all(|(bands, len)| {
            let mut at = 0;
            bands.iter().all(|b| {
                let ok = b.len() == n && b[0] >= at && b.windows(2).all(|w| w[0] <= w[1]);
                at = b[n - 1];
                ok && at <= len
            })
        })
    }

    /// The plan for the next loop over the same list after this plan's
    /// chunks created `grown[k][a]` nodes each, appended in chunk order
    /// from `base[a]` (the arenas' lengths at the split): each arena with
    /// new nodes gets a band of them. `None` when an arena would have more
    /// than [`MAX_BANDS`] bands.
    pub fn with_growth(mut self, base: [usize; A], grown: &[[usize; A]]) -> Option<SplitPlan<A>> {
        for a in 0..A {
            if grown.iter().all(|g| g[a] == 0) {
                continue;
            }
            if self.bands[a].len() >= MAX_BANDS {
                return None;
            }
            let mut at = base[a];
            let mut band = Vec::with_capacity(grown.len() + 1);
            band.push(at);
            for g in grown {
                at += g[a];
                band.push(at);
            }
            self.bands[a].push(band);
        }
        self.count_nodes();
        Some(self)
    }
}

/// A split plan with the places (arena index, id) of the list's elements
/// it was made for: what `plan_split` hands `par_loop`, and what a
/// parallel run keeps after the loop, grown by the nodes the chunks
/// created ([`SplitMemo::after_growth`]), to try first on the next
/// parallel loop over the same elements.
///
/// A memo is *proven* while its plan is known to hold for the tree as it
/// is: every chunk closed (each node in a chunk's ids has its children
/// there) and nothing outside the list's ids pointing into them but the
/// list. A plan is proven when `plan_split` checked it; after the loop it
/// stays proven if every node a chunk changed or created has its children
/// in the chunk's grown ids (the generated `par_loop` checks them, the
/// other nodes kept the children they had); the parallel run forgets the
/// proof ([`SplitMemo::unprove`]) as soon as its own code changes a node
/// other than in a data field. A memo that is not proven is only a guess,
/// checked like a new one.
#[derive(Clone, Debug)]
pub struct SplitMemo<const A: usize> {
    places: Vec<(usize, usize)>,
    plan: SplitPlan<A>,
    proven: bool,
}

impl<const A: usize> SplitMemo<A> {
    /// `plan` for the elements at `places`, just proven.
    pub fn new(places: Vec<(usize, usize)>, plan: SplitPlan<A>) -> SplitMemo<A> {
        SplitMemo {
            places,
            plan,
            proven: true,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &SplitPlan<A> {
        &self.plan
    }

    /// The plan, to check it anew.
    pub fn into_plan(self) -> SplitPlan<A> {
        self.plan
    }

    /// The memo, if it was made for the elements at `places`.
    pub fn recall(self, places: &[(usize, usize)]) -> Option<SplitMemo<A>> {
        (self.places == places).then_some(self)
    }

    /// Whether the plan is known to hold for the tree as it is.
    pub fn is_proven(&self) -> bool {
        self.proven
    }

    /// Forgets that the plan holds: the tree changed.
    pub fn unprove(&mut self) {
        self.proven = false;
    }

    /// The memo for the next loop over the same elements, after the
    /// chunks created `grown[k][a]` nodes appended from `base[a]`
    /// ([`SplitPlan::with_growth`]); as proven as this one until the
    /// caller says otherwise.
    pub fn after_growth(self, base: [usize; A], grown: &[[usize; A]]) -> Option<SplitMemo<A>> {
        let SplitMemo {
            places,
            plan,
            proven,
        } = self;
        plan.with_growth(base, grown).map(|plan| SplitMemo {
            places,
            plan,
            proven,
        })
    }
}

/// Whether `id` lies in one of `ranges`.
#[inline]
pub fn in_ranges(ranges: &[std::ops::Range<usize>], id: usize) -> bool {
    ranges.iter().any(|r| r.contains(&id))
}

/// The ids of an arena of `len` nodes outside `ranges` (ascending, not
/// overlapping): the ranges between them, before the first and after
/// the last.
pub fn gaps(ranges: &[std::ops::Range<usize>], len: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut at = 0;
    for r in ranges {
        let lo = r.start.min(len);
        if lo > at {
            out.push(at..lo);
        }
        at = at.max(r.end.min(len));
    }
    if at < len {
        out.push(at..len);
    }
    out
}

/// Plans the split of a list whose element `i` holds `spans[i]`: `None`
/// unless, in every arena, each element's nodes are exactly the ids from
/// its least to its greatest (as many nodes counted as ids in between)
/// and each element's ids follow the previous element's without a gap.
/// A subtree built children before parents in depth-first order (the
/// JSON reader, `Tree::add`) has this shape; it also proves that no node
/// is reached from two elements (its id would lie in both ranges), so
/// the chunks' nodes are disjoint. Chunks hold at least `grain` nodes
/// ([`chunk_bounds`]); `None` as well when there would be only one.
pub fn split_plan<const A: usize>(spans: &[[IdRange; A]], grain: usize) -> Option<SplitPlan<A>> {
    let sizes: Vec<usize> = spans
        .iter()
        .map(|s| s.iter().map(|r| r.count).sum())
        .collect();
    let ends = chunk_bounds(&sizes, grain);
    if ends.len() < 2 {
        return None;
    }
    // Per arena, the next id expected (the first element with nodes there
    // sets where the list starts).
    let mut next: [Option<usize>; A] = [None; A];
    let mut first_of: Vec<[Option<usize>; A]> = Vec::with_capacity(spans.len());
    for s in spans {
        let mut firsts = [None; A];
        for (a, r) in s.iter().enumerate() {
            if r.count == 0 {
                continue;
            }
            if r.hi - r.lo + 1 != r.count || next[a].is_some_and(|n| n != r.lo) {
                return None;
            }
            firsts[a] = Some(r.lo);
            next[a] = Some(r.hi + 1);
        }
        first_of.push(firsts);
    }
    // The start of element `i` in arena `a`: its first id, or where the
    // next element with nodes there starts (the end for none).
    let end: [usize; A] = std::array::from_fn(|a| next[a].unwrap_or(0));
    let mut start_at = vec![end; spans.len() + 1];
    for i in (0..spans.len()).rev() {
        for a in 0..A {
            start_at[i][a] = first_of[i][a].unwrap_or(start_at[i + 1][a]);
        }
    }
    Some(chunked(ends, &start_at))
}

/// The plan of chunks ending at `ends`, element `i` starting at
/// `start_at[i]` in each arena (one more entry: the list's end).
fn chunked<const A: usize>(ends: Vec<usize>, start_at: &[[usize; A]]) -> SplitPlan<A> {
    let mut starts = Vec::with_capacity(ends.len() + 1);
    starts.push(start_at[0]);
    for &e in &ends {
        starts.push(start_at[e]);
    }
    SplitPlan::one_band(ends, &starts)
}

/// Plans the split of a list from where each element's nodes start,
/// without measuring the subtrees: `firsts[i][a]` is the first node of
/// arena `a` that a pre-order walk of element `i` meets (`None` if it has
/// none there) and `end[a]` one past the greatest id of arena `a` in the
/// list's last element that has nodes there. In a tree laid out in pre-order
/// (JSON reading, `Tree::from_runtime`) element `i`'s nodes of arena `a`
/// are then the ids from its first up to the next element's, and the plan
/// gives those ranges; `None` if the starts are not in list order (another
/// layout, or an element listed twice) or there would be only one chunk.
///
/// The plan is a guess: the caller must check that every chunk is closed
/// (each node in a chunk's ranges has its children in them, each element's
/// root in its chunk's) and that nothing outside the list points into it
/// but the list itself, which together prove that each element's subtree
/// lies in its chunk's ranges and is reachable only through the list.
pub fn plan_from_firsts<const A: usize>(
    firsts: &[[Option<usize>; A]],
    end: [Option<usize>; A],
    grain: usize,
) -> Option<SplitPlan<A>> {
    let n = firsts.len();
    // Where each element's block starts per arena; an element without
    // nodes in an arena has an empty block where the next one starts.
    let mut start_at = vec![[0usize; A]; n + 1];
    start_at[n] = std::array::from_fn(|a| end[a].unwrap_or(0));
    for i in (0..n).rev() {
        for a in 0..A {
            let next = start_at[i + 1][a];
            start_at[i][a] = match firsts[i][a] {
                // A block holds at least its first node.
                Some(f) if f < next => f,
                Some(_) => return None,
                None => next,
            };
        }
    }
    let sizes: Vec<usize> = (0..n)
        .map(|i| (0..A).map(|a| start_at[i + 1][a] - start_at[i][a]).sum())
        .collect();
    let ends = chunk_bounds(&sizes, grain);
    if ends.len() < 2 {
        return None;
    }
    Some(chunked(ends, &start_at))
}

/// The blocks of consecutive elements a sampled guess cuts a list into
/// ([`guess_plan`]): the chunks are runs of whole blocks.
const SAMPLE_BLOCKS: usize = 128;

/// Guesses the plan of a split of `count` elements ([`plan_from_firsts`]):
/// `firsts(pending, i)` is where element `i`'s nodes start per arena (a
/// short pre-order walk; `pending` is scratch space the walk may reuse);
/// `span(pending, i)` measures element `i`'s whole subtree, asked only of
/// the last element with nodes in each arena, whose greatest id ends the
/// list's block there. `None` if a walk fails (`None` from either), the
/// starts are not in list order or there would be only one chunk. The
/// generated `plan_split` (list elements) and `plan_chain` (the items of a
/// chain of nodes) share it; as with [`plan_from_firsts`], the caller
/// proves the plan, so a wrong guess costs a split, never a wrong result.
///
/// A list of fewer than [`Parallel::sampled_from`] elements (512 by
/// default) has every element walked, on the current rayon pool's
/// threads. A longer one is cut into at most 128 blocks of consecutive
/// elements and only each block's first element is walked (in
/// parallel), the chunks being runs of whole blocks: where the
/// elements are small (a page of a document, a short function) the walks
/// of all of them cost as much as a light pass. An arena some sampled
/// element has nodes in but a block's first has not is looked for in the
/// block's next elements, in turn (an arena that only some elements use);
/// the list's end in each arena is found walking back from its last
/// element.
pub fn guess_plan<const A: usize>(
    par: &Parallel,
    count: usize,
    firsts: impl Fn(&mut Vec<(usize, usize)>, usize) -> Option<[Option<usize>; A]> + Sync,
    span: impl Fn(&mut Vec<(usize, usize)>, usize) -> Option<[IdRange; A]>,
) -> Option<SplitPlan<A>> {
    use rayon::prelude::*;
    let stride = if count < par.sampled_from {
        1
    } else {
        count.div_ceil(SAMPLE_BLOCKS)
    };
    let samples: Vec<usize> = (0..count).step_by(stride).collect();
    let walked: Vec<[Option<usize>; A]> = samples
        .par_iter()
        .map_init(Vec::new, |pending, &i| firsts(pending, i))
        .collect::<Option<_>>()?;
    let mut pending = Vec::new();
    // Where each block starts in the arenas sampled elements have nodes
    // in: its first element with nodes there.
    let present: [bool; A] = std::array::from_fn(|a| walked.iter().any(|f| f[a].is_some()));
    let mut starts = walked.clone();
    for (j, found) in starts.iter_mut().enumerate() {
        let block_end = samples.get(j + 1).copied().unwrap_or(count);
        let mut i = samples[j] + 1;
        while i < block_end && (0..A).any(|a| present[a] && found[a].is_none()) {
            let more = firsts(&mut pending, i)?;
            for a in 0..A {
                found[a] = found[a].or(more[a]);
            }
            i += 1;
        }
    }
    // Per arena, the last element with nodes there ends the list's block
    // (a walk back from the list's end, met by the last sample with nodes
    // there at the latest); each measured once.
    let mut last_with: [Option<usize>; A] = [None; A];
    let mut i = count;
    let mut j = samples.len();
    while (0..A).any(|a| present[a] && last_with[a].is_none()) && i > 0 {
        i -= 1;
        let found = if j > 0 && samples[j - 1] == i {
            j -= 1;
            walked[j]
        } else {
            firsts(&mut pending, i)?
        };
        for a in 0..A {
            if last_with[a].is_none() && found[a].is_some() {
                last_with[a] = Some(i);
            }
        }
    }
    let mut end = [None; A];
    for &k in last_with.iter().flatten() {
        if (0..A).all(|a| last_with[a] != Some(k) || end[a].is_some()) {
            continue;
        }
        let measured = span(&mut pending, k)?;
        for (a, r) in measured.iter().enumerate() {
            if last_with[a] == Some(k) && r.count > 0 {
                end[a] = Some(r.hi + 1);
            }
        }
    }
    // The blocks as elements, then their ends as the elements'.
    let mut plan = plan_from_firsts(&starts, end, par.grain)?;
    for e in &mut plan.ends {
        *e = samples.get(*e).copied().unwrap_or(count);
    }
    Some(plan)
}

/// One arena as a worker of a parallel loop sees it: its chunk's nodes,
/// mutable, the nodes outside the whole list's, shared with every worker
/// and read-only, and the nodes the worker created, which take ids from
/// the arena's length at the split on (every worker numbers its own from
/// there; after the loop they are appended in list order and the
/// references renumbered, so the ids are the ones the sequential run
/// gives). Ids of other chunks are not there.
///
/// A chunk's nodes are one range of ids per band of the plan
/// ([`SplitPlan`]); the first band's is looked up first, then the created
/// nodes, then the other bands and the shared nodes.
///
/// A chunk's view also remembers which of its nodes it handed out
/// mutably ([`ArenaView::get_mut`]), one bit per node: after the loop only
/// those nodes and the created ones can hold references to created nodes,
/// so only they are renumbered ([`ArenaView::for_each_changed`]).
#[derive(Debug)]
pub struct ArenaView<'a, N> {
    own: OwnRange<'a, N>,
    /// The chunk's ranges of the plan's other bands.
    more: Vec<OwnRange<'a, N>>,
    /// The ids outside the list, ascending: `(first id, nodes)`.
    shared: Vec<(usize, &'a [N])>,
    grown: Vec<N>,
    grown_lo: usize,
}

/// One range of ids of an [`ArenaView`]'s chunk: its nodes, mutable, and
/// which of them were handed out mutably.
#[derive(Debug)]
struct OwnRange<'a, N> {
    nodes: &'a mut [N],
    lo: usize,
    /// Bit `k` set: `nodes[k]` was handed out mutably. Empty for a view of
    /// the whole arena, which is never renumbered.
    touched: Vec<u64>,
}

impl<'a, N> OwnRange<'a, N> {
    fn new(lo: usize, nodes: &'a mut [N]) -> OwnRange<'a, N> {
        let touched = vec![0; nodes.len().div_ceil(64)];
        OwnRange { nodes, lo, touched }
    }

    /// Node `id`, remembered as handed out mutably if `mark`; `None` if
    /// not here.
    #[inline]
    fn get_mut(&mut self, id: usize, mark: bool) -> Option<&mut N> {
        let k = id.wrapping_sub(self.lo);
        let node = self.nodes.get_mut(k)?;
        // Remembered for the renumbering after the loop (nothing for a
        // view of the whole arena, whose `touched` is empty).
        if mark {
            if let Some(w) = self.touched.get_mut(k / 64) {
                *w |= 1 << (k % 64);
            }
        }
        Some(node)
    }

    fn for_each_changed(&mut self, f: &mut impl FnMut(&mut N)) {
        if self.touched.is_empty() {
            self.nodes.iter_mut().for_each(f);
            return;
        }
        for (w, &bits) in self.touched.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let k = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(n) = self.nodes.get_mut(k) {
                    f(n);
                }
            }
        }
    }
}

impl<'a, N> ArenaView<'a, N> {
    /// The whole arena, all of it mutable (a loop that did not split).
    pub fn whole(arena: &'a mut [N]) -> ArenaView<'a, N> {
        let len = arena.len();
        ArenaView {
            own: OwnRange {
                nodes: arena,
                lo: 0,
                touched: Vec::new(),
            },
            more: Vec::new(),
            shared: Vec::new(),
            grown: Vec::new(),
            grown_lo: len,
        }
    }

    /// The node at `id`.
    ///
    /// # Panics
    ///
    /// If `id` is in another worker's chunk or not in the arena. The
    /// fuser lets a loop run in parallel only when no iteration reaches
    /// into the list's other elements (`treefuse_fusion`'s `parallel.rs`)
    /// and the parallel entry points split only trees in which no node is
    /// reached twice ([`split_plan`], and the tree test of the generated
    /// `ParallelRun`), so a run never gets here.
    #[inline(always)]
    pub fn get(&self, id: usize) -> &N {
        // The worker's own chunk first, with one comparison: below
        // `own.lo` the difference wraps around to a huge number. Then the
        // nodes it created, as cheaply: a pass that creates nodes (a
        // desugaring) often has the passes fused with it visit them. Then
        // the chunk's second band: the nodes an earlier split loop created
        // (`SplitPlan::with_growth`), visited as often as the first
        // band's (minic's loops after its desugaring: a call for each cost
        // 17% of what one thread pays over the sequential run). Only these
        // three are inlined into the traversals; the rest is a call.
        if let Some(n) = self.own.nodes.get(id.wrapping_sub(self.own.lo)) {
            return n;
        }
        if let Some(n) = self.grown.get(id.wrapping_sub(self.grown_lo)) {
            return n;
        }
        match self.more.first() {
            Some(r) if id.wrapping_sub(r.lo) < r.nodes.len() => &r.nodes[id - r.lo],
            _ => self.get_elsewhere(id),
        }
    }

    /// [`ArenaView::get`] of a node neither in the first two bands' ranges
    /// nor created by the worker.
    #[inline(never)]
    fn get_elsewhere(&self, id: usize) -> &N {
        // The chunk's other bands.
        for r in self.more.iter().skip(1) {
            if let Some(n) = r.nodes.get(id.wrapping_sub(r.lo)) {
                return n;
            }
        }
        self.get_shared(id)
    }

    /// [`ArenaView::get`] of a node outside the worker's chunk and not
    /// created by it: one outside the list, else a panic. Cold, so that
    /// the worker's own nodes' paths fall through.
    #[cold]
    #[inline(never)]
    fn get_shared(&self, id: usize) -> &N {
        for &(lo, nodes) in &self.shared {
            if let Some(n) = nodes.get(id.wrapping_sub(lo)) {
                return n;
            }
        }
        outside_view(id)
    }

    /// The node at `id`, to change.
    ///
    /// # Panics
    ///
    /// If `id` is neither in the worker's chunk nor created by it: the
    /// fuser lets a loop run in parallel only when its iterations write
    /// nothing outside their own elements' subtrees (see
    /// [`ArenaView::get`]).
    #[inline]
    pub fn get_mut(&mut self, id: usize) -> &mut N {
        self.node_mut(id, true)
    }

    /// The node at `id`, to change one of its data fields only; unlike
    /// [`ArenaView::get_mut`], it is not remembered for the renumbering
    /// after the loop. Generated code calls it for nothing but the
    /// assignment of a data field (no data field holds a node id), so the
    /// node's child slots keep the references they had at the split, which
    /// need no renumbering. Changing a child slot through it would leave a
    /// reference to a created node unrenumbered: a wrong tree, though no
    /// memory unsafety.
    ///
    /// # Panics
    ///
    /// As [`ArenaView::get_mut`].
    #[inline]
    pub fn get_mut_data(&mut self, id: usize) -> &mut N {
        self.node_mut(id, false)
    }

    /// [`ArenaView::get_mut`] (`mark`: remembered for the renumbering) or
    /// [`ArenaView::get_mut_data`]; `mark` is a constant at both calls.
    /// The first band's range and the created nodes are inlined, the rest
    /// a call (as in [`ArenaView::get`]).
    #[inline(always)]
    fn node_mut(&mut self, id: usize, mark: bool) -> &mut N {
        let k = id.wrapping_sub(self.own.lo);
        if k < self.own.nodes.len() {
            if mark {
                if let Some(w) = self.own.touched.get_mut(k / 64) {
                    *w |= 1 << (k % 64);
                }
            }
            return &mut self.own.nodes[k];
        }
        let g = id.wrapping_sub(self.grown_lo);
        if g < self.grown.len() {
            return &mut self.grown[g];
        }
        self.node_mut_elsewhere(id, mark)
    }

    /// [`ArenaView::node_mut`] of a node neither in the first band's
    /// range nor created by the worker.
    #[inline(never)]
    fn node_mut_elsewhere(&mut self, id: usize, mark: bool) -> &mut N {
        for r in &mut self.more {
            if let Some(n) = r.get_mut(id, mark) {
                return n;
            }
        }
        outside_view(id)
    }

    /// Adds a node the worker created; its id (counted from the arena's
    /// length at the split).
    #[inline]
    pub fn push(&mut self, node: N) -> usize {
        self.grown.push(node);
        self.grown_lo + self.grown.len() - 1
    }

    /// How many nodes the worker created.
    pub fn grown_len(&self) -> usize {
        self.grown.len()
    }

    /// Runs `f` on each node of the worker's chunk that it handed out
    /// mutably ([`ArenaView::get_mut`]), once each, and on every node it
    /// created: the only nodes of a split view that can hold a reference
    /// to a created node. The others kept the references they had at the
    /// split, which the split's check found inside the chunk (below the
    /// arena's length then, where created nodes start); only `get_mut`
    /// hands out an own node mutably (the slices are private to this
    /// type, and this method is the only other way to its nodes). A view
    /// of the whole arena (no split) remembers nothing: there `f` sees
    /// every node.
    pub fn for_each_changed(&mut self, mut f: impl FnMut(&mut N)) {
        self.own.for_each_changed(&mut f);
        for r in &mut self.more {
            r.for_each_changed(&mut f);
        }
        self.grown.iter_mut().for_each(f);
    }

    /// The nodes the worker created, in order, to append to the arena.
    pub fn into_grown(self) -> Vec<N> {
        self.grown
    }
}

#[cold]
#[inline(never)]
fn outside_view(id: usize) -> ! {
    panic!(
        "internal error: node {id} is not in this worker's part of the tree (a parallel loop reached a node of another chunk; see treefuse_runtime::generated::ArenaView)"
    )
}

/// Splits `arena` for the chunks of a [`SplitPlan`], given the arena's
/// bands (`SplitPlan::bands[a]`): one view per chunk, holding its range
/// of every band; the ids outside the bands are shared. Bands that are
/// not ascending or run past the arena are clamped (a plan checked with
/// [`SplitPlan::is_well_formed`] has none).
pub fn split_arena<'a, N>(arena: &'a mut [N], bands: &[Vec<usize>]) -> Vec<ArenaView<'a, N>> {
    let chunks = bands.first().map_or(0, |b| b.len().saturating_sub(1));
    if chunks == 0 {
        return Vec::new();
    }
    let len = arena.len();
    let mut rest: &'a mut [N] = arena;
    let mut at = 0usize;
    let mut shared: Vec<(usize, &'a [N])> = Vec::new();
    let mut owns: Vec<Vec<OwnRange<'a, N>>> = (0..chunks).map(|_| Vec::new()).collect();
    // Takes the next `to - at` nodes off `rest` (none if `to` is behind).
    let mut take = |to: usize, at: &mut usize| -> (usize, &'a mut [N]) {
        let to = to.clamp(*at, len);
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(to - *at);
        rest = tail;
        let lo = std::mem::replace(at, to);
        (lo, part)
    };
    for band in bands {
        let (lo, gap) = take(band.first().copied().unwrap_or(at), &mut at);
        if !gap.is_empty() {
            shared.push((lo, gap));
        }
        for (k, own) in owns.iter_mut().enumerate() {
            let end = band.get(k + 1).copied().unwrap_or(at);
            let (lo, part) = take(end, &mut at);
            own.push(OwnRange::new(lo, part));
        }
    }
    let (lo, tail) = take(len, &mut at);
    if !tail.is_empty() {
        shared.push((lo, tail));
    }
    owns.into_iter()
        .map(|mut ranges| {
            // The first band's range is the fast path; an empty one gives
            // way to the next non-empty range.
            let first = ranges.iter().position(|r| !r.nodes.is_empty()).unwrap_or(0);
            // Room for as many created nodes as the chunk holds: a pass
            // that creates nodes (a desugaring) then fills the vector
            // without copying it as it grows. Pages the worker does not
            // fill are never touched, so the room costs address space,
            // not memory.
            let held: usize = ranges.iter().map(|r| r.nodes.len()).sum();
            let own = ranges.remove(first);
            ArenaView {
                own,
                more: ranges.into_iter().filter(|r| !r.nodes.is_empty()).collect(),
                shared: shared.clone(),
                grown: Vec::with_capacity(held),
                grown_lo: len,
            }
        })
        .collect()
}

/// One cold table ([`ColdTable`]) as a worker of a parallel loop sees it:
/// the tree's entries, shared, and those of the nodes the worker created
/// (ids from `grown_lo` on, the arena's length at the split).
#[derive(Debug)]
pub struct ColdView<'a, T> {
    shared: &'a ColdTable<T>,
    grown: ColdTable<T>,
    grown_lo: u32,
}

impl<'a, T: Default> ColdView<'a, T> {
    /// A view of `shared` for a worker whose created nodes start at
    /// `grown_lo`.
    pub fn new(shared: &'a ColdTable<T>, grown_lo: usize) -> ColdView<'a, T> {
        ColdView {
            shared,
            grown: ColdTable::default(),
            grown_lo: u32::try_from(grown_lo).unwrap_or(u32::MAX),
        }
    }

    /// The cold fields of node `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &T {
        if id >= self.grown_lo {
            self.grown.get(id)
        } else {
            self.shared.get(id)
        }
    }

    /// Sets the cold fields of node `id`, a node the worker created (cold
    /// fields are written only when a node is made).
    #[inline]
    pub fn insert(&mut self, id: u32, fields: T) {
        self.grown.insert(id, fields);
    }

    /// The entries of the created nodes, to append to the tree's table.
    pub fn into_grown(self) -> ColdTable<T> {
        self.grown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_hold_a_grain() {
        assert_eq!(chunk_bounds(&[1, 1, 1, 1, 1], 2), vec![2, 4, 5]);
        assert_eq!(chunk_bounds(&[3, 3, 3], 2), vec![1, 2, 3]);
        assert_eq!(chunk_bounds(&[1, 1, 1], 10), vec![3]);
        assert_eq!(chunk_bounds(&[], 10), vec![0]);
        assert_eq!(chunk_bounds(&[4, 4, 1], 4), vec![1, 3]);
    }

    fn span(count: usize, lo: usize) -> IdRange {
        IdRange {
            count,
            lo,
            hi: lo + count.max(1) - 1,
        }
    }

    #[test]
    fn plans_adjacent_ranges_only() {
        // Two arenas; element 1 has no nodes in the second.
        let spans = [
            [span(2, 10), span(1, 0)],
            [span(3, 12), IdRange::default()],
            [span(2, 15), span(2, 1)],
        ];
        let plan = split_plan(&spans, 3).unwrap();
        assert_eq!(plan.ends, vec![1, 2, 3]);
        assert_eq!(
            plan.bands,
            [vec![vec![10, 12, 15, 17]], vec![vec![0, 1, 1, 3]]]
        );
        assert_eq!(plan.nodes, vec![3, 3, 4]);
        // A gap, an overlap, a node counted twice.
        let gap = [[span(2, 10)], [span(2, 13)]];
        assert!(split_plan(&gap, 1).is_none());
        let overlap = [[span(2, 10)], [span(2, 11)]];
        assert!(split_plan(&overlap, 1).is_none());
        let twice = [
            [IdRange {
                count: 3,
                lo: 0,
                hi: 1,
            }],
            [span(1, 2)],
        ];
        assert!(split_plan(&twice, 1).is_none());
    }

    #[test]
    fn plans_from_pre_order_starts() {
        // Three elements over two arenas; element 1 has nothing in the
        // second; the list ends at 17 and 3.
        let firsts = [[Some(10), Some(0)], [Some(12), None], [Some(15), Some(1)]];
        let plan = plan_from_firsts(&firsts, [Some(17), Some(3)], 3).unwrap();
        assert_eq!(plan.ends, vec![1, 2, 3]);
        assert_eq!(
            plan.bands,
            [vec![vec![10, 12, 15, 17]], vec![vec![0, 1, 1, 3]]]
        );
        assert_eq!(plan.nodes, vec![3, 3, 4]);
        // Starts out of order, or an element listed twice.
        let swapped = [[Some(12)], [Some(10)]];
        assert!(plan_from_firsts(&swapped, [Some(14)], 1).is_none());
        let twice = [[Some(10)], [Some(10)]];
        assert!(plan_from_firsts(&twice, [Some(14)], 1).is_none());
        // Everything in one chunk: no plan.
        assert!(plan_from_firsts(&firsts, [Some(17), Some(3)], 100).is_none());
    }

    #[test]
    fn guesses_measure_only_the_last_element_per_arena() {
        // As above: element 2 is the last in both arenas, measured once.
        let firsts = [[Some(10), Some(0)], [Some(12), None], [Some(15), Some(1)]];
        let measured = std::cell::RefCell::new(Vec::new());
        let span = |_: &mut Vec<(usize, usize)>, k: usize| {
            measured.borrow_mut().push(k);
            let mut r = [IdRange::default(); 2];
            for id in 15..17 {
                r[0].add(id);
            }
            r[1].add(1);
            r[1].add(2);
            Some(r)
        };
        let plan = guess_plan(&Parallel::new(3), 3, |_, k| Some(firsts[k]), span).unwrap();
        assert_eq!(plan.ends, vec![1, 2, 3]);
        assert_eq!(
            plan.bands,
            [vec![vec![10, 12, 15, 17]], vec![vec![0, 1, 1, 3]]]
        );
        assert_eq!(*measured.borrow(), vec![2]);
        // A walk that fails fails the guess.
        assert!(guess_plan(
            &Parallel::new(3),
            3,
            |_, k| (k != 1).then_some(firsts[k]),
            span
        )
        .is_none());
        assert!(
            guess_plan::<2>(&Parallel::new(3), 3, |_, k| Some(firsts[k]), |_, _| None).is_none()
        );
    }

    #[test]
    fn long_lists_are_guessed_from_a_sample() {
        // 1000 elements of three nodes each in arena 0 (from id 10); every
        // third, from element 1, also has one node in arena 1 (ids from
        // 0): a block's first element often has none there.
        const N: usize = 1000;
        let in_one = |i: usize| (i % 3 == 1).then_some(i / 3);
        let walks = std::sync::atomic::AtomicUsize::new(0);
        let firsts = |_: &mut Vec<(usize, usize)>, i: usize| {
            walks.fetch_add(1, Ordering::Relaxed);
            (i < N).then_some([Some(10 + 3 * i), in_one(i)])
        };
        let span = |_: &mut Vec<(usize, usize)>, i: usize| {
            let mut r = [IdRange::default(); 2];
            (0..3).for_each(|k| r[0].add(10 + 3 * i + k));
            if let Some(id) = in_one(i) {
                r[1].add(id);
            }
            Some(r)
        };
        let plan = guess_plan(&Parallel::new(400), N, firsts, span).unwrap();
        assert!(
            walks.load(Ordering::Relaxed) < N / 2,
            "every element walked"
        );
        assert!(plan.chunks() >= 2);
        assert_eq!(*plan.ends.last().unwrap(), N);
        let in_arena_1 = (0..N).filter(|&i| in_one(i).is_some()).count();
        let mut start = 0;
        for (k, &e) in plan.ends.iter().enumerate() {
            assert!(e > start);
            // Each chunk's ranges are exactly its elements' nodes.
            assert_eq!(plan.bands[0][0][k], 10 + 3 * start);
            let next_in_one = (start..N).find_map(in_one).unwrap_or(in_arena_1);
            assert_eq!(plan.bands[1][0][k], next_in_one);
            start = e;
        }
        assert_eq!(plan.bands[0][0][plan.chunks()], 10 + 3 * N);
        assert_eq!(plan.bands[1][0][plan.chunks()], in_arena_1);
        assert!(plan.nodes.iter().all(|&n| n >= 400));
        // A failing walk of an element that is not a block's first.
        let failing = |p: &mut Vec<(usize, usize)>, i: usize| {
            if i == N - 2 {
                None
            } else {
                firsts(p, i)
            }
        };
        assert!(guess_plan(&Parallel::new(400), N, failing, span).is_none());
    }

    #[test]
    fn views_see_their_chunk_and_the_shared_rest() {
        let mut arena: Vec<u32> = (0..10).collect();
        let mut views = split_arena(&mut arena, &[vec![2, 5, 8]]);
        assert_eq!(views.len(), 2);
        *views[0].get_mut(3) += 100;
        *views[1].get_mut(7) += 100;
        assert_eq!(*views[0].get(1), 1);
        assert_eq!(*views[1].get(9), 9);
        assert_eq!(*views[0].get(3), 103);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| *views[0].get(6)));
        assert!(r.is_err());
        drop(views);
        assert_eq!(arena[3], 103);
        assert_eq!(arena[7], 107);
    }

    #[test]
    fn workers_number_created_nodes_from_the_arena_end() {
        let mut arena: Vec<u32> = (0..6).collect();
        let mut views = split_arena(&mut arena, &[vec![0, 3, 6]]);
        // Both workers' first new node is id 6; appended in list order,
        // the second worker's land after the first worker's.
        assert_eq!(views[0].push(60), 6);
        assert_eq!(views[0].push(61), 7);
        assert_eq!(views[1].push(70), 6);
        assert_eq!(*views[0].get(7), 61);
        *views[1].get_mut(6) += 1;
        assert_eq!(views[1].grown_len(), 1);
        let mut changed = Vec::new();
        views[1].for_each_changed(|n| changed.push(*n));
        assert_eq!(changed, vec![71]);
        let grown: Vec<Vec<u32>> = views.into_iter().map(ArenaView::into_grown).collect();
        for g in grown {
            arena.extend(g);
        }
        assert_eq!(arena, vec![0, 1, 2, 3, 4, 5, 60, 61, 71]);
    }

    #[test]
    fn a_split_view_renumbers_the_nodes_it_changed_and_created() {
        let mut arena: Vec<u32> = (0..200).collect();
        let mut views = split_arena(&mut arena, &[vec![0, 70, 200]]);
        // Read, but never handed out mutably: not visited.
        assert_eq!(*views[1].get(150), 150);
        // Handed out mutably (twice: visited once), at both ends of the
        // chunk and across a 64-node word.
        *views[1].get_mut(70) += 0;
        *views[1].get_mut(133) += 1000;
        *views[1].get_mut(133) += 1000;
        *views[1].get_mut(134) += 0;
        *views[1].get_mut(199) += 0;
        let created = views[1].push(7);
        assert_eq!(created, 200);
        *views[1].get_mut(created) += 1;
        let mut seen = Vec::new();
        views[1].for_each_changed(|n| seen.push(*n));
        assert_eq!(seen, vec![70, 2133, 134, 199, 8]);
        // The first chunk changed nothing and created nothing.
        let mut none = Vec::new();
        views[0].for_each_changed(|n| none.push(*n));
        assert!(none.is_empty());
        // A view of the whole arena (a loop that did not split) remembers
        // nothing and shows every node.
        drop(views);
        let mut small: Vec<u32> = (0..3).collect();
        let mut whole = ArenaView::whole(&mut small);
        *whole.get_mut(1) += 10;
        let mut all = Vec::new();
        whole.for_each_changed(|n| all.push(*n));
        assert_eq!(all, vec![0, 11, 2]);
    }

    #[test]
    fn views_read_created_and_shared_nodes_off_the_fast_path() {
        let mut arena: Vec<u32> = (0..10).collect();
        let mut views = split_arena(&mut arena, &[vec![2, 5, 8]]);
        let id = views[1].push(42);
        assert_eq!(id, 10);
        // Before the list, after it, created: all readable.
        assert_eq!(*views[1].get(0), 0);
        assert_eq!(*views[1].get(9), 9);
        assert_eq!(*views[1].get(10), 42);
        // Another chunk's node, an id past the created ones: a panic.
        for bad in [2usize, 11, usize::MAX] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| *views[1].get(bad)));
            assert!(r.is_err(), "{bad}");
        }
        // Writing a shared node: a panic.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            *views[1].get_mut(0) += 1;
        }));
        assert!(r.is_err());
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn growth_makes_a_band_per_arena_with_new_nodes() {
        let plan = SplitPlan::one_band(vec![1, 3], &[[0, 0], [4, 2], [9, 5]]);
        assert_eq!(plan.nodes, vec![6, 8]);
        assert!(plan.is_well_formed([9, 5]));
        assert!(!plan.is_well_formed([8, 5]));
        // The chunks created 2 and 3 nodes in arena 0, none in arena 1.
        let next = plan.clone().with_growth([9, 5], &[[2, 0], [3, 0]]).unwrap();
        assert_eq!(next.bands[0], vec![vec![0, 4, 9], vec![9, 11, 14]]);
        assert_eq!(next.bands[1], vec![vec![0, 2, 5]]);
        assert_eq!(next.nodes, vec![8, 11]);
        assert_eq!(next.chunk_ranges(1), [vec![4..9, 11..14], vec![2..5]]);
        assert_eq!(next.list_ranges(), [vec![0..9, 9..14], vec![0..5]]);
        assert!(next.is_well_formed([14, 5]));
        // Overlapping bands are not well formed.
        let mut bad = next.clone();
        bad.bands[0][1] = vec![8, 11, 14];
        assert!(!bad.is_well_formed([14, 5]));
        // No more than MAX_BANDS bands.
        let mut p = Some(plan);
        let mut base = 9;
        for _ in 0..MAX_BANDS {
            p = p.and_then(|p| p.with_growth([base, 5], &[[1, 0], [1, 0]]));
            base += 2;
        }
        assert!(p.is_none());
    }

    #[test]
    fn gaps_are_the_ids_outside_the_ranges() {
        assert_eq!(gaps(&[2..4, 6..8], 10), vec![0..2, 4..6, 8..10]);
        assert_eq!(
            gaps(&[0..4, 4..10], 10),
            Vec::<std::ops::Range<usize>>::new()
        );
        assert_eq!(gaps(&[], 3), vec![0..3]);
        assert!(in_ranges(&[2..4, 6..8], 7));
        assert!(!in_ranges(&[2..4, 6..8], 5));
    }

    #[test]
    fn data_writes_are_not_renumbered() {
        let mut arena: Vec<u32> = (0..8).collect();
        let mut views = split_arena(&mut arena, &[vec![0, 4, 8]]);
        *views[1].get_mut_data(5) += 100;
        *views[1].get_mut(6) += 100;
        let mut changed = Vec::new();
        views[1].for_each_changed(|n| changed.push(*n));
        assert_eq!(changed, vec![106]);
        drop(views);
        assert_eq!(arena[5], 105);
    }

    #[test]
    fn views_of_two_bands() {
        // Ids 0..2 shared, band one 2..4 | 4..6, 6..8 shared, band two
        // 8..9 | 9..11, 11..12 shared.
        let mut arena: Vec<u32> = (0..12).collect();
        let mut views = split_arena(&mut arena, &[vec![2, 4, 6], vec![8, 9, 11]]);
        assert_eq!(views.len(), 2);
        *views[0].get_mut(8) += 100;
        *views[1].get_mut(10) += 100;
        *views[1].get_mut(4) += 100;
        for id in [0, 1, 6, 7, 11] {
            assert_eq!(*views[0].get(id), id as u32);
            assert_eq!(*views[1].get(id), id as u32);
        }
        assert_eq!(*views[0].get(3), 3);
        assert_eq!(*views[1].get(9), 9);
        // Another chunk's nodes, in either band; a shared node to change.
        for bad in [4usize, 9, 10] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| *views[0].get(bad)));
            assert!(r.is_err(), "{bad}");
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            *views[1].get_mut(7) += 1;
        }));
        assert!(r.is_err());
        let id = views[1].push(50);
        assert_eq!(id, 12);
        let mut changed = Vec::new();
        views[1].for_each_changed(|n| changed.push(*n));
        assert_eq!(changed, vec![104, 110, 50]);
        drop(views);
        assert_eq!(arena[8], 108);
        assert_eq!(arena[10], 110);
        assert_eq!(arena[4], 104);
    }

    #[test]
    fn cold_entries_of_created_nodes_shift_into_place() {
        let mut table: ColdTable<u32> = ColdTable::default();
        table.insert(1, 10);
        let mut view = ColdView::new(&table, 4);
        view.insert(4, 40);
        view.insert(5, 50);
        assert_eq!(*view.get(1), 10);
        assert_eq!(*view.get(5), 50);
        let grown = view.into_grown();
        table.append_shifted(grown, 3);
        assert_eq!(*table.get(7), 40);
        assert_eq!(*table.get(8), 50);
        assert_eq!(*table.get(4), 0);
    }
}
