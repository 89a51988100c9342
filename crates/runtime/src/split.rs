//! Running the iterations of one loop over a list of children on several
//! threads, on one [`Tree`]: what the interpreter's `--threads` does with
//! the loops the fuser proved independent.
//!
//! The fuser's proof assumes the input is a tree (no node reachable from
//! two elements, nothing outside the list pointing into an element's
//! subtree); an interpreter run may have built any graph by the time the
//! loop starts. So the split is checked while it runs instead of before:
//!
//! - [`LoopSplit::plan`] walks each element's subtree in list order and
//!   gives every node it meets the element that reached it first (its
//!   *owner*), then cuts the list into chunks of consecutive elements
//!   holding at least a grain of nodes each.
//! - A worker runs its chunk on a [`ChunkView`]: the tree as it was before
//!   the loop, read-only and shared by every worker, with the nodes of its
//!   own chunk copied into a store of its own the first time it changes
//!   one, and the nodes it creates numbered from the tree's end. Touching
//!   a node another chunk owns, or changing a node no chunk owns,
//!   *abandons* the view ([`TreeStore::abandoned`]): the worker stops, and
//!   the caller runs the whole loop again sequentially on the tree, which
//!   no worker changed.
//! - When every chunk ran through without abandoning or failing,
//!   [`ChunkChanges::apply`] writes each chunk's changed nodes into the
//!   tree and appends the nodes it created, in list order, renumbering
//!   the references to them: the ids and contents are then the sequential
//!   run's, since each chunk read only its own nodes (as the sequential
//!   run leaves them for it: no other chunk touched them) and nodes
//!   nobody changed.
//!
//! The workers' copies are what make this safe Rust without locks: no
//! worker ever writes memory another one reads. Checking every access
//! costs a comparison on the owner table per node access in a worker,
//! small against what the interpreter does per access.

use crate::store::{NodeId, Slot, SlotRef, Tree};
use std::ops::Range;
use treefuse_sema::{Program, TypeId, Value};

/// The operations an engine runs a traversal with: what [`Tree`] offers,
/// and what a worker's [`ChunkView`] offers in its place.
pub trait TreeStore {
    /// The root node.
    fn root(&self) -> NodeId;
    /// Makes `n` the root.
    fn set_root(&mut self, n: NodeId);
    /// See [`Tree::type_of`].
    fn type_of(&self, n: NodeId) -> TypeId;
    /// See [`Tree::slot`].
    fn slot(&self, n: NodeId, slot: u32) -> SlotRef<'_>;
    /// See [`Tree::data`].
    fn data(&self, n: NodeId, slot: u32) -> Value;
    /// See [`Tree::data_mut`].
    fn data_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Value>;
    /// See [`Tree::list_mut`].
    fn list_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Vec<NodeId>>;
    /// See [`Tree::set_slot`].
    fn set_slot(&mut self, n: NodeId, slot: u32, value: Slot);
    /// See [`Tree::set_data`].
    fn set_data(&mut self, n: NodeId, slot: u32, value: Value);
    /// See [`Tree::child`].
    fn child(&self, n: NodeId, slot: u32) -> NodeId;
    /// See [`Tree::child_opt`].
    fn child_opt(&self, n: NodeId, slot: u32) -> Option<NodeId>;
    /// See [`Tree::alloc`].
    fn alloc(&mut self, program: &Program, ty: TypeId) -> NodeId;
    /// See [`Tree::deep_copy`].
    fn deep_copy(&mut self, program: &Program, n: NodeId) -> NodeId;
    /// Whether the run must stop: a worker's view met a node its chunk
    /// may not touch, so what it computes no longer counts. Engines check
    /// it at each visit and loop round. Never true of a [`Tree`].
    fn abandoned(&self) -> bool;
    /// The store as a whole tree, which a loop may split; `None` for a
    /// worker's view (loops inside a chunk run sequentially).
    fn as_tree(&mut self) -> Option<&mut Tree>;
}

impl TreeStore for Tree {
    #[inline(always)]
    fn root(&self) -> NodeId {
        self.root
    }
    #[inline(always)]
    fn set_root(&mut self, n: NodeId) {
        self.root = n;
    }
    #[inline(always)]
    fn type_of(&self, n: NodeId) -> TypeId {
        Tree::type_of(self, n)
    }
    #[inline(always)]
    fn slot(&self, n: NodeId, slot: u32) -> SlotRef<'_> {
        Tree::slot(self, n, slot)
    }
    #[inline(always)]
    fn data(&self, n: NodeId, slot: u32) -> Value {
        Tree::data(self, n, slot)
    }
    #[inline(always)]
    fn data_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Value> {
        Tree::data_mut(self, n, slot)
    }
    #[inline(always)]
    fn list_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Vec<NodeId>> {
        Tree::list_mut(self, n, slot)
    }
    #[inline(always)]
    fn set_slot(&mut self, n: NodeId, slot: u32, value: Slot) {
        Tree::set_slot(self, n, slot, value)
    }
    #[inline(always)]
    fn set_data(&mut self, n: NodeId, slot: u32, value: Value) {
        Tree::set_data(self, n, slot, value)
    }
    #[inline(always)]
    fn child(&self, n: NodeId, slot: u32) -> NodeId {
        Tree::child(self, n, slot)
    }
    #[inline(always)]
    fn child_opt(&self, n: NodeId, slot: u32) -> Option<NodeId> {
        Tree::child_opt(self, n, slot)
    }
    #[inline(always)]
    fn alloc(&mut self, program: &Program, ty: TypeId) -> NodeId {
        Tree::alloc(self, program, ty)
    }
    #[inline(always)]
    fn deep_copy(&mut self, program: &Program, n: NodeId) -> NodeId {
        Tree::deep_copy(self, program, n)
    }
    #[inline(always)]
    fn abandoned(&self) -> bool {
        false
    }
    #[inline(always)]
    fn as_tree(&mut self) -> Option<&mut Tree> {
        Some(self)
    }
}

/// No element owns the node.
const UNOWNED: u32 = u32::MAX;

/// The most chunks a split loop makes per thread of the current rayon
/// pool ([`LoopSplit::plan`]): enough for the threads to even out
/// chunks of unequal cost, few enough that forking a worker per chunk
/// stays cheap (the AST port's chain of 10^4 functions in the interpreter
/// on two threads: 2,000 chunks of at least 1,024 nodes ran 1.11-1.28x
/// faster than one thread, 139 chunks of at least 16,384 nodes
/// 1.35-1.48x).
const CHUNKS_PER_THREAD: usize = 8;

/// A list's elements cut into chunks, and which element owns each node
/// of the tree (see the module docs).
#[derive(Debug)]
pub struct LoopSplit {
    /// The tree's node count when the loop started: ids from here on are
    /// created by the workers.
    base_len: u32,
    /// Per node of the tree: the element that owns it (its index in the
    /// list, [`UNOWNED`] if none) and its rank in the walk, which numbers
    /// each chunk's nodes consecutively.
    owner: Vec<(u32, u32)>,
    /// Per chunk: its elements (indices into the list) and the ranks of
    /// its nodes.
    chunks: Vec<(Range<u32>, Range<u32>)>,
}

impl LoopSplit {
    /// Splits the loop over `items` (the elements of a list of `tree`)
    /// into chunks of consecutive elements whose subtrees hold at least
    /// `grain` nodes each, and at most eight chunks per thread of the
    /// current rayon pool (larger chunks for a long list); `None` when
    /// that makes fewer than two chunks.
    pub fn plan(tree: &Tree, items: &[NodeId], grain: usize) -> Option<Self> {
        if items.len() < 2 || !holds_at_least(tree, items, grain.saturating_add(grain / 2)) {
            return None;
        }
        let mut owner = vec![(UNOWNED, 0u32); tree.allocated()];
        let mut sizes = Vec::with_capacity(items.len());
        let mut rank = 0u32;
        let mut stack = Vec::new();
        for (i, &item) in items.iter().enumerate() {
            let before = rank;
            stack.push(item);
            while let Some(n) = stack.pop() {
                let Some(o) = owner.get_mut(n.index()) else {
                    continue;
                };
                if o.0 != UNOWNED {
                    // Reached before (from this element or an earlier
                    // one): a worker of another chunk that touches it
                    // abandons its view.
                    continue;
                }
                *o = (i as u32, rank);
                rank += 1;
                tree.push_children(n, &mut stack);
            }
            sizes.push((rank - before) as usize);
        }
        // An element whose nodes an earlier one reached counts as one
        // node, so that every element is in a chunk.
        let weights: Vec<usize> = sizes.iter().map(|&s| s.max(1)).collect();
        // At most `CHUNKS_PER_THREAD` chunks per thread of the pool: each
        // chunk forks an interpreter and a view, so a long list cut at a
        // small grain spends more on chunks than they save.
        let total: usize = weights.iter().sum();
        let most = CHUNKS_PER_THREAD * rayon::current_num_threads().max(1);
        let grain = grain.max(1).max(total.div_ceil(most));
        let ends = crate::generated::chunk_bounds(&weights, grain);
        if ends.len() < 2 {
            return None;
        }
        let mut chunks = Vec::with_capacity(ends.len());
        let (mut first, mut first_rank) = (0usize, 0u32);
        for end in ends {
            let nodes: usize = sizes[first..end].iter().sum();
            let last_rank = first_rank + nodes as u32;
            chunks.push((first as u32..end as u32, first_rank..last_rank));
            (first, first_rank) = (end, last_rank);
        }
        Some(LoopSplit {
            base_len: tree.allocated() as u32,
            owner,
            chunks,
        })
    }

    /// Whether some element's walk reached node `n` (which a chunk may
    /// then change): an engine that read `n` before the loop, as the
    /// interpreter reads the nodes of a linked chain whose items it
    /// splits, must not split when it is.
    pub fn owns(&self, n: NodeId) -> bool {
        self.owner.get(n.index()).is_some_and(|o| o.0 != UNOWNED)
    }

    /// Number of chunks (at least two).
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// The elements of chunk `k`, as indices into the list.
    pub fn elements(&self, k: usize) -> Range<usize> {
        let r = &self.chunks[k].0;
        r.start as usize..r.end as usize
    }

    /// Chunk `k`'s view of `tree` (the tree the split was planned on).
    pub fn view<'a>(&'a self, tree: &'a Tree, program: &'a Program, k: usize) -> ChunkView<'a> {
        let (elements, ranks) = self.chunks[k].clone();
        ChunkView {
            base: tree,
            program,
            split: self,
            elements,
            first_rank: ranks.start,
            copied: vec![u32::MAX; (ranks.end - ranks.start) as usize],
            changed: Vec::new(),
            created: Vec::new(),
            own: Tree::new(),
            abandoned: std::cell::Cell::new(false),
        }
    }
}

/// Whether the subtrees of `items` reach at least `nodes` nodes, a node
/// reached twice counting twice; the walk stops there, so it costs at
/// most `nodes` steps. Two chunks of at least a grain each need a grain
/// and a half of nodes ([`crate::generated::chunk_bounds`] merges a last
/// chunk under half a grain into the one before), so a list whose
/// subtrees hold fewer is refused before [`LoopSplit::plan`] sets up its
/// table of every node's owner: without this test, every inner loop of a
/// loop that did not split (a short list of large elements) paid a pass
/// over the whole tree's table.
fn holds_at_least(tree: &Tree, items: &[NodeId], nodes: usize) -> bool {
    let mut stack: Vec<NodeId> = Vec::new();
    let mut seen = 0usize;
    for &item in items {
        stack.push(item);
        while let Some(n) = stack.pop() {
            if n.index() >= tree.allocated() {
                continue;
            }
            seen += 1;
            if seen >= nodes {
                return true;
            }
            tree.push_children(n, &mut stack);
        }
    }
    false
}

/// Where a node of a [`ChunkView`] is kept.
enum Place {
    /// In the shared tree, unchanged (`true`: the chunk owns it).
    Base(bool),
    /// In the view's own store, at this id.
    Own(NodeId),
    /// A node the chunk may not touch.
    Foreign,
}

/// One chunk's view of the tree (see the module docs): the tree before
/// the loop, the chunk's changed nodes and the nodes it created, and
/// whether it met a node it may not touch.
pub struct ChunkView<'a> {
    base: &'a Tree,
    program: &'a Program,
    split: &'a LoopSplit,
    /// The chunk's elements (indices into the list).
    elements: Range<u32>,
    /// Rank of the chunk's first node ([`LoopSplit::owner`]).
    first_rank: u32,
    /// Per node of the chunk, by rank: its copy in `own`, or `u32::MAX`.
    copied: Vec<u32>,
    /// The chunk's changed nodes: (id in the tree, id in `own`).
    changed: Vec<(NodeId, NodeId)>,
    /// The nodes the chunk created, in order, by their id in `own`; the
    /// `k`-th is known to the program as `base_len + k`.
    created: Vec<NodeId>,
    /// Copies of changed nodes and created nodes; their fields hold ids
    /// as the program knows them (the tree's, or `base_len + k`).
    own: Tree,
    /// Set when the chunk touched a node it may not.
    abandoned: std::cell::Cell<bool>,
}

impl ChunkView<'_> {
    /// Where node `n` is kept (and whether the chunk may change it).
    #[inline]
    fn place(&self, n: NodeId) -> Place {
        let base_len = self.split.base_len;
        if n.0 >= base_len {
            return match self.created.get((n.0 - base_len) as usize) {
                Some(&own) => Place::Own(own),
                None => Place::Foreign,
            };
        }
        let (element, rank) = self.split.owner[n.index()];
        if element == UNOWNED {
            return Place::Base(false);
        }
        if !self.elements.contains(&element) {
            return Place::Foreign;
        }
        match self.copied[(rank - self.first_rank) as usize] {
            u32::MAX => Place::Base(true),
            own => Place::Own(NodeId(own)),
        }
    }

    /// The store and id to read node `n` from; a node of another chunk
    /// abandons the view (and reads as the tree has it before the loop).
    #[inline]
    fn read(&self, n: NodeId) -> (&Tree, NodeId) {
        match self.place(n) {
            Place::Own(own) => (&self.own, own),
            Place::Base(_) => (self.base, n),
            Place::Foreign => {
                self.abandoned.set(true);
                // An id of another worker's created node may be past the
                // tree's end: read the root instead (the run is void).
                if n.0 >= self.split.base_len {
                    (self.base, self.base.root)
                } else {
                    (self.base, n)
                }
            }
        }
    }

    /// The id in `own` of node `n`, copied there first if needed, for
    /// changing it; a node the chunk does not own abandons the view (the
    /// change is made on a copy nobody keeps).
    fn write(&mut self, n: NodeId) -> NodeId {
        let from = match self.place(n) {
            Place::Own(own) => return own,
            Place::Base(true) => n,
            Place::Base(false) | Place::Foreign => {
                self.abandoned.set(true);
                if n.0 >= self.split.base_len {
                    self.base.root
                } else {
                    n
                }
            }
        };
        let own = self.own.copy_from(self.program, self.base, from);
        let (element, rank) = self.split.owner[from.index()];
        if self.elements.contains(&element) && !self.abandoned.get() {
            self.copied[(rank - self.first_rank) as usize] = own.0;
            self.changed.push((from, own));
        }
        own
    }

    /// What the chunk did, for [`ChunkChanges::apply`].
    pub fn into_changes(self) -> ChunkChanges {
        ChunkChanges {
            base_len: self.split.base_len,
            changed: self.changed,
            created: self.created,
            own: self.own,
        }
    }
}

impl TreeStore for ChunkView<'_> {
    #[inline]
    fn root(&self) -> NodeId {
        self.base.root
    }
    #[inline]
    fn set_root(&mut self, _: NodeId) {
        // A chunk never replaces the root: the sequential run must.
        self.abandoned.set(true);
    }
    #[inline]
    fn type_of(&self, n: NodeId) -> TypeId {
        let (t, n) = self.read(n);
        t.type_of(n)
    }
    #[inline]
    fn slot(&self, n: NodeId, slot: u32) -> SlotRef<'_> {
        let (t, n) = self.read(n);
        t.slot(n, slot)
    }
    #[inline]
    fn data(&self, n: NodeId, slot: u32) -> Value {
        let (t, n) = self.read(n);
        t.data(n, slot)
    }
    #[inline]
    fn data_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Value> {
        let own = self.write(n);
        self.own.data_mut(own, slot)
    }
    #[inline]
    fn list_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Vec<NodeId>> {
        let own = self.write(n);
        self.own.list_mut(own, slot)
    }
    #[inline]
    fn set_slot(&mut self, n: NodeId, slot: u32, value: Slot) {
        let own = self.write(n);
        self.own.set_slot(own, slot, value)
    }
    #[inline]
    fn set_data(&mut self, n: NodeId, slot: u32, value: Value) {
        let own = self.write(n);
        self.own.set_data(own, slot, value)
    }
    // `Tree::child` answers the node itself for a slot that holds no
    // child: here the id the program knows, not the copy's.
    #[inline]
    fn child(&self, n: NodeId, slot: u32) -> NodeId {
        match self.slot(n, slot) {
            SlotRef::Child(c) => c,
            _ => n,
        }
    }
    #[inline]
    fn child_opt(&self, n: NodeId, slot: u32) -> Option<NodeId> {
        match self.slot(n, slot) {
            SlotRef::Child(c) => Some(c),
            SlotRef::Empty => None,
            _ => Some(n),
        }
    }
    #[inline]
    fn alloc(&mut self, program: &Program, ty: TypeId) -> NodeId {
        let id = NodeId(self.split.base_len + self.created.len() as u32);
        let own = self.own.alloc(program, ty);
        // A fresh child points at its node until set: at the id the
        // program knows it by.
        let count = program.types[ty.index()].fields.len() as u32;
        for s in 0..count {
            if let SlotRef::Child(c) = self.own.slot(own, s) {
                if c == own {
                    self.own.set_slot(own, s, Slot::Child(id));
                }
            }
        }
        self.created.push(own);
        id
    }
    #[inline]
    fn deep_copy(&mut self, program: &Program, n: NodeId) -> NodeId {
        // Each copy first shares its children with the original; popping
        // it from the stack replaces them by fresh copies (as
        // `Tree::deep_copy`, through the view).
        let root = self.copy_node(program, n);
        let mut stack = vec![root];
        while let Some(c) = stack.pop() {
            let count = program.types[self.type_of(c).index()].fields.len() as u32;
            for s in 0..count {
                match self.slot(c, s) {
                    SlotRef::Child(child) => {
                        let copy = self.copy_node(program, child);
                        self.set_slot(c, s, Slot::Child(copy));
                        stack.push(copy);
                    }
                    SlotRef::List(items) => {
                        let items = items.clone();
                        let copies: Vec<NodeId> =
                            items.iter().map(|&o| self.copy_node(program, o)).collect();
                        stack.extend(copies.iter().rev().copied());
                        self.set_slot(c, s, Slot::List(copies.into()));
                    }
                    SlotRef::Data(_) | SlotRef::Empty => {}
                }
            }
        }
        root
    }
    #[inline]
    fn abandoned(&self) -> bool {
        self.abandoned.get()
    }
    #[inline]
    fn as_tree(&mut self) -> Option<&mut Tree> {
        None
    }
}

impl ChunkView<'_> {
    /// A created node with the type and slots of `n` (children shared).
    fn copy_node(&mut self, program: &Program, n: NodeId) -> NodeId {
        let ty = self.type_of(n);
        let id = NodeId(self.split.base_len + self.created.len() as u32);
        let (t, from) = self.read(n);
        let own = if std::ptr::eq(t, &self.own) {
            self.own.copy_within(program, from)
        } else {
            self.own.copy_from(program, self.base, from)
        };
        debug_assert_eq!(self.own.type_of(own), ty);
        self.created.push(own);
        id
    }
}

/// What one chunk changed and created, to be written into the tree after
/// the loop ([`ChunkView::into_changes`]).
#[derive(Debug)]
pub struct ChunkChanges {
    base_len: u32,
    changed: Vec<(NodeId, NodeId)>,
    created: Vec<NodeId>,
    own: Tree,
}

impl ChunkChanges {
    /// Writes the changes into `tree`: the created nodes appended (the
    /// chunks must be applied in list order, so that they get the ids
    /// the sequential run gives them) and the changed nodes overwritten,
    /// references to created nodes renumbered.
    pub fn apply(self, tree: &mut Tree) {
        tree.take_changes(self.own, &self.changed, &self.created, self.base_len);
    }

    /// Nodes the chunk created.
    pub fn created(&self) -> usize {
        self.created.len()
    }
}

#[cfg(test)]
mod tests;
