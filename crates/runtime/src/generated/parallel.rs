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
    chunks: AtomicU64,
    split_loops: AtomicU64,
}

impl Parallel {
    /// 2^13 nodes: a chunk's work then dwarfs the cost of a rayon task
    /// (`crates/bench/results/parallel.md` has the measurements).
    pub const DEFAULT_GRAIN: usize = 1 << 13;

    /// Options with chunks of at least `grain` nodes (at least 1).
    pub fn new(grain: usize) -> Parallel {
        Parallel {
            grain: grain.max(1),
            chunks: AtomicU64::new(0),
            split_loops: AtomicU64::new(0),
        }
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

/// Where a parallel loop's list splits, per arena (`A` of them): the
/// elements' subtrees checked to be contiguous, disjoint and adjacent id
/// ranges in list order (see [`split_plan`]).
#[derive(Clone, Debug)]
pub struct SplitPlan<const A: usize> {
    /// The end (exclusive) of each chunk's run of elements.
    pub ends: Vec<usize>,
    /// Per chunk, the first id of its nodes in each arena; then one more
    /// entry, the end (exclusive) of the list's nodes.
    pub starts: Vec<[usize; A]>,
    /// Nodes per chunk.
    pub nodes: Vec<usize>,
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
    Some(chunked(ends, &start_at, &sizes))
}

/// The plan of chunks ending at `ends`, element `i` starting at
/// `start_at[i]` in each arena (one more entry: the list's end) and
/// holding `sizes[i]` nodes.
fn chunked<const A: usize>(
    ends: Vec<usize>,
    start_at: &[[usize; A]],
    sizes: &[usize],
) -> SplitPlan<A> {
    let mut starts = Vec::with_capacity(ends.len() + 1);
    let mut nodes = Vec::with_capacity(ends.len());
    let mut begin = 0;
    for &e in &ends {
        starts.push(start_at[begin]);
        nodes.push(sizes[begin..e].iter().sum());
        begin = e;
    }
    starts.push(start_at[sizes.len()]);
    SplitPlan {
        ends,
        starts,
        nodes,
    }
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
    Some(chunked(ends, &start_at, &sizes))
}

/// One arena as a worker of a parallel loop sees it: its chunk's nodes,
/// mutable, the nodes before and after the whole list's, shared with
/// every worker and read-only, and the nodes the worker created, which
/// take ids from the arena's length at the split on (every worker
/// numbers its own from there; after the loop they are appended in list
/// order and the references renumbered, so the ids are the ones the
/// sequential run gives). Ids of other chunks are not there.
///
/// A chunk's view also remembers which of its nodes it handed out
/// mutably ([`ArenaView::get_mut`]), one bit per node: after the loop only
/// those nodes and the created ones can hold references to created nodes,
/// so only they are renumbered ([`ArenaView::for_each_changed`]).
#[derive(Debug)]
pub struct ArenaView<'a, N> {
    own: &'a mut [N],
    own_lo: usize,
    before: &'a [N],
    after: &'a [N],
    after_lo: usize,
    grown: Vec<N>,
    grown_lo: usize,
    /// Bit `k` set: `own[k]` was handed out mutably. Empty for a view of
    /// the whole arena, which is never renumbered.
    touched: Vec<u64>,
}

impl<'a, N> ArenaView<'a, N> {
    /// The whole arena, all of it mutable (a loop that did not split).
    pub fn whole(arena: &'a mut [N]) -> ArenaView<'a, N> {
        let len = arena.len();
        ArenaView {
            own: arena,
            own_lo: 0,
            before: &[],
            after: &[],
            after_lo: len,
            grown: Vec::new(),
            grown_lo: len,
            touched: Vec::new(),
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
    #[inline]
    pub fn get(&self, id: usize) -> &N {
        // The worker's own chunk first, with one comparison: below
        // `own_lo` the difference wraps around to a huge number. Then the
        // nodes it created, as cheaply: a pass that creates nodes (a
        // desugaring) often has the passes fused with it visit them.
        if let Some(n) = self.own.get(id.wrapping_sub(self.own_lo)) {
            return n;
        }
        match self.grown.get(id.wrapping_sub(self.grown_lo)) {
            Some(n) => n,
            None => self.get_shared(id),
        }
    }

    /// [`ArenaView::get`] of a node neither in the worker's chunk nor
    /// created by it: one outside the list, else a panic. Cold, so that
    /// the worker's own nodes' path falls through.
    #[cold]
    #[inline(never)]
    fn get_shared(&self, id: usize) -> &N {
        let found = if id < self.own_lo {
            self.before.get(id)
        } else {
            id.checked_sub(self.after_lo)
                .filter(|_| id < self.grown_lo)
                .and_then(|k| self.after.get(k))
        };
        match found {
            Some(n) => n,
            None => outside_view(id),
        }
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
        let k = id.wrapping_sub(self.own_lo);
        if k < self.own.len() {
            // Remembered for the renumbering after the loop (nothing for
            // a view of the whole arena, whose `touched` is empty).
            if let Some(w) = self.touched.get_mut(k / 64) {
                *w |= 1 << (k % 64);
            }
            return &mut self.own[k];
        }
        match self.grown.get_mut(id.wrapping_sub(self.grown_lo)) {
            Some(n) => n,
            None => outside_view(id),
        }
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
    /// hands out an own node mutably (the slice is private to this type,
    /// and this method is the only other way to its nodes). A view of the
    /// whole arena (no split) remembers nothing: there `f` sees every
    /// node.
    pub fn for_each_changed(&mut self, mut f: impl FnMut(&mut N)) {
        if self.touched.is_empty() {
            self.own.iter_mut().for_each(&mut f);
        } else {
            for (w, &bits) in self.touched.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let k = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if let Some(n) = self.own.get_mut(k) {
                        f(n);
                    }
                }
            }
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

/// Splits `arena` for the chunks of a [`SplitPlan`]: `starts[k]` is where
/// chunk `k`'s ids begin (one more entry: where the list's end), every id
/// below `starts[0]` and from the end on shared.
pub fn split_arena<'a, N>(arena: &'a mut [N], starts: &[usize]) -> Vec<ArenaView<'a, N>> {
    let (Some(&lo), Some(&end)) = (starts.first(), starts.last()) else {
        return Vec::new();
    };
    let len = arena.len();
    let (before, rest) = arena.split_at_mut(lo.min(len));
    let (mut list, after) = rest.split_at_mut(end.saturating_sub(lo).min(rest.len()));
    let (before, after): (&'a [N], &'a [N]) = (before, after);
    let mut views = Vec::with_capacity(starts.len().saturating_sub(1));
    for w in starts.windows(2) {
        let n = w[1].saturating_sub(w[0]).min(list.len());
        let (own, rest) = std::mem::take(&mut list).split_at_mut(n);
        list = rest;
        views.push(ArenaView {
            own,
            own_lo: w[0],
            before,
            after,
            after_lo: end,
            grown: Vec::new(),
            grown_lo: len,
            touched: vec![0; n.div_ceil(64)],
        });
    }
    views
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
        assert_eq!(plan.starts, vec![[10, 0], [12, 1], [15, 1], [17, 3]]);
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
        assert_eq!(plan.starts, vec![[10, 0], [12, 1], [15, 1], [17, 3]]);
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
    fn views_see_their_chunk_and_the_shared_rest() {
        let mut arena: Vec<u32> = (0..10).collect();
        let mut views = split_arena(&mut arena, &[2, 5, 8]);
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
        let mut views = split_arena(&mut arena, &[0, 3, 6]);
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
        let mut views = split_arena(&mut arena, &[0, 70, 200]);
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
        let mut views = split_arena(&mut arena, &[2, 5, 8]);
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
