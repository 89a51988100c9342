//! The arena tree store.
//!
//! All nodes of a tree live in two arrays: one 8-byte [`NodeHeader`] per
//! node (its concrete type and where its fields start) and the 16-byte
//! [`Slot`]s holding every node's fields back to back. The slots are kept
//! in chunks of 65,536 (a node's fields never straddle two), because one
//! vector of millions of slots would be copied whole each time it grew: for
//! a moment both copies would be resident, half again the tree's memory. A
//! node is a [`NodeId`] index; children are ids, so a tree is plain data
//! with no `Rc<RefCell>` web, dropping it never recurses, and nodes read in
//! pre-order sit next to each other in memory.
//!
//! Replaced subtrees are not freed: they become unreachable garbage in the
//! arena (aliases may still point at them, as LANGUAGE.md requires), and
//! writing the tree out visits only the reachable part.

use std::sync::Arc;
use treefuse_sema::{FieldId, FieldKind, Program, TypeId, Value};

/// A node handle: an index into the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The contents of one field of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    /// A data field.
    Data(Value),
    /// A single child.
    Child(NodeId),
    /// A list of children.
    List(NodeList),
    /// An optional child slot holding no node (LANGUAGE §8.7).
    Empty,
}

impl Slot {
    /// The children of a list slot, for editing in place (copied first if
    /// shared); `None` for other slots.
    pub fn list_mut(&mut self) -> Option<&mut Vec<NodeId>> {
        match self {
            Slot::List(items) => Some(items.make_mut()),
            _ => None,
        }
    }
}

/// The children in a list field: shared, so that a `for` loop iterates
/// over a snapshot without copying, and copied on write, so that `push`
/// on a list nobody else holds is amortised O(1) (LANGUAGE.md §7.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeList(Arc<Vec<NodeId>>);

impl NodeList {
    /// The elements, for editing: copied first if a loop snapshot or
    /// another slot shares them.
    pub fn make_mut(&mut self) -> &mut Vec<NodeId> {
        Arc::make_mut(&mut self.0)
    }
}

impl std::ops::Deref for NodeList {
    type Target = [NodeId];
    fn deref(&self) -> &[NodeId] {
        &self.0
    }
}

impl From<Vec<NodeId>> for NodeList {
    fn from(items: Vec<NodeId>) -> NodeList {
        NodeList(Arc::new(items))
    }
}

impl FromIterator<NodeId> for NodeList {
    fn from_iter<I: IntoIterator<Item = NodeId>>(iter: I) -> NodeList {
        NodeList(Arc::new(iter.into_iter().collect()))
    }
}

/// The slots of a fresh node of each type (see [`Tree::alloc_default`]).
pub struct DefaultSlots {
    per_type: Vec<Vec<Slot>>,
}

impl DefaultSlots {
    /// The default slots of every type of `program`.
    pub fn new(program: &Program) -> DefaultSlots {
        DefaultSlots {
            per_type: (0..program.types.len())
                .map(|t| {
                    let ty = TypeId(t as u32);
                    program.types[t]
                        .fields
                        .iter()
                        .map(|f| default_slot(program, ty, *f, NodeId(0)))
                        .collect()
                })
                .collect(),
        }
    }
}

/// Field `f` of a fresh node `id` of type `ty`: the data default, an
/// empty optional child, the node itself for a child not yet set, or an
/// empty list.
fn default_slot(program: &Program, ty: TypeId, f: FieldId, id: NodeId) -> Slot {
    let field = &program.fields[f.index()];
    match &field.kind {
        FieldKind::Data(_) => Slot::Data(
            program
                .field_default(ty, f)
                .cloned()
                .unwrap_or(Value::Int(0)),
        ),
        FieldKind::Child(_) if field.optional => Slot::Empty,
        FieldKind::Child(_) => Slot::Child(id),
        FieldKind::List(_) => Slot::List(NodeList::default()),
    }
}

/// Slots per chunk of [`Tree`]'s slot store, as a power of two.
const CHUNK_BITS: u32 = 16;
const CHUNK_LEN: usize = 1 << CHUNK_BITS;

/// Per-node header: concrete type and the index of its first slot.
#[derive(Clone, Copy, Debug)]
pub struct NodeHeader {
    /// Concrete type.
    pub ty: TypeId,
    /// Where the node's first field is: chunk number in the high bits,
    /// offset in the chunk in the low [`CHUNK_BITS`].
    pub first_slot: u32,
}

/// A tree: nodes in an arena, and the root.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    nodes: Vec<NodeHeader>,
    /// The slots, in chunks of [`CHUNK_LEN`] (one node's fields in one
    /// chunk, so a chunk may end a few slots short; a node with more
    /// fields than that gets a chunk of its own).
    chunks: Vec<Vec<Slot>>,
    /// The root node.
    pub root: NodeId,
}

impl Tree {
    /// An empty store; add nodes, then set `root`.
    pub fn new() -> Tree {
        Tree::default()
    }

    /// Number of nodes allocated (reachable or not).
    pub fn allocated(&self) -> usize {
        self.nodes.len()
    }

    /// Allocates a node of type `ty` with every field at its default
    /// (children point at the node itself until set).
    pub fn alloc(&mut self, program: &Program, ty: TypeId) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let fields = &program.types[ty.index()].fields;
        let (first_slot, chunk) = self.room_for(fields.len());
        for f in fields {
            chunk.push(default_slot(program, ty, *f, id));
        }
        self.nodes.push(NodeHeader { ty, first_slot });
        id
    }

    /// Where the next node's `count` slots go (see [`NodeHeader`]), and
    /// the chunk to push them on.
    fn room_for(&mut self, count: usize) -> (u32, &mut Vec<Slot>) {
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.len() + count <= CHUNK_LEN);
        if !fits {
            // The first chunk grows as needed (small trees stay small);
            // later ones are allocated whole, never copied.
            let capacity = if self.chunks.is_empty() {
                0
            } else {
                CHUNK_LEN.max(count)
            };
            self.chunks.push(Vec::with_capacity(capacity));
        }
        let number = self.chunks.len() - 1;
        let chunk = &mut self.chunks[number];
        (((number as u32) << CHUNK_BITS) | chunk.len() as u32, chunk)
    }

    /// The chunk and offset of slot `slot` of a node whose first slot is
    /// `first`.
    #[inline]
    fn locate(first: u32, slot: u32) -> (usize, usize) {
        (
            (first >> CHUNK_BITS) as usize,
            (first as usize & (CHUNK_LEN - 1)) + slot as usize,
        )
    }

    /// [`Tree::alloc`] from the node's default slots prepared once per
    /// type ([`DefaultSlots`]): what readers that allocate millions of
    /// nodes use.
    pub fn alloc_default(&mut self, defaults: &DefaultSlots, ty: TypeId) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let slots = &defaults.per_type[ty.index()];
        let (first_slot, chunk) = self.room_for(slots.len());
        chunk.extend(slots.iter().map(|slot| match slot {
            Slot::Child(_) => Slot::Child(id),
            other => other.clone(),
        }));
        self.nodes.push(NodeHeader { ty, first_slot });
        id
    }

    /// The concrete type of a node.
    #[inline]
    pub fn type_of(&self, n: NodeId) -> TypeId {
        self.nodes[n.index()].ty
    }

    /// A field of a node by slot index.
    #[inline]
    pub fn slot(&self, n: NodeId, slot: u32) -> &Slot {
        let (c, i) = Tree::locate(self.nodes[n.index()].first_slot, slot);
        &self.chunks[c][i]
    }

    /// The number of fields (slots) of a node.
    #[inline]
    pub fn slot_count(&self, n: NodeId) -> u32 {
        let first = self.nodes[n.index()].first_slot;
        let (c, start) = Tree::locate(first, 0);
        // The next node's slots follow in the same chunk, or this node
        // ends its chunk.
        let end = match self.nodes.get(n.index() + 1) {
            Some(next) if next.first_slot >> CHUNK_BITS == first >> CHUNK_BITS => {
                Tree::locate(next.first_slot, 0).1
            }
            _ => self.chunks[c].len(),
        };
        (end - start) as u32
    }

    /// A mutable field of a node by slot index.
    #[inline]
    pub fn slot_mut(&mut self, n: NodeId, slot: u32) -> &mut Slot {
        let (c, i) = Tree::locate(self.nodes[n.index()].first_slot, slot);
        &mut self.chunks[c][i]
    }

    /// The single child in `slot` (the node itself if the slot is not a
    /// child slot, which the checker rules out, or an empty optional
    /// child, which callers check first with [`Tree::child_opt`]).
    #[inline]
    pub fn child(&self, n: NodeId, slot: u32) -> NodeId {
        match self.slot(n, slot) {
            Slot::Child(c) => *c,
            _ => n,
        }
    }

    /// The child in `slot`, `None` if it is an empty optional child
    /// (LANGUAGE §8.7).
    #[inline]
    pub fn child_opt(&self, n: NodeId, slot: u32) -> Option<NodeId> {
        match self.slot(n, slot) {
            Slot::Child(c) => Some(*c),
            Slot::Empty => None,
            _ => Some(n),
        }
    }

    /// The nodes reachable from the root, in depth-first pre-order.
    pub fn preorder(&self, program: &Program) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root];
        while let Some(n) = stack.pop() {
            out.push(n);
            let fields = &program.types[self.type_of(n).index()].fields;
            for i in (0..fields.len()).rev() {
                match self.slot(n, i as u32) {
                    Slot::Child(c) => stack.push(*c),
                    Slot::List(items) => stack.extend(items.iter().rev().copied()),
                    Slot::Data(_) | Slot::Empty => {}
                }
            }
        }
        out
    }

    /// Copies the reachable part of the tree into a fresh store, in
    /// pre-order, dropping garbage left by replaced subtrees.
    pub fn compact(&self, program: &Program) -> Tree {
        let order = self.preorder(program);
        let mut new_id = vec![u32::MAX; self.nodes.len()];
        for (i, n) in order.iter().enumerate() {
            new_id[n.index()] = i as u32;
        }
        let mut out = Tree::new();
        for n in &order {
            let h = self.nodes[n.index()];
            let count = program.types[h.ty.index()].fields.len() as u32;
            let (first_slot, chunk) = out.room_for(count as usize);
            for s in 0..count {
                chunk.push(match self.slot(*n, s) {
                    Slot::Data(v) => Slot::Data(v.clone()),
                    Slot::Empty => Slot::Empty,
                    Slot::Child(c) => Slot::Child(NodeId(new_id[c.index()])),
                    Slot::List(items) => {
                        Slot::List(items.iter().map(|c| NodeId(new_id[c.index()])).collect())
                    }
                });
            }
            out.nodes.push(NodeHeader {
                ty: h.ty,
                first_slot,
            });
        }
        out.root = NodeId(0);
        out
    }

    /// Allocates a deep copy of the subtree at `n` (LANGUAGE.md §7.3) and
    /// returns its root. Iterative, so 10^6-deep subtrees are fine.
    pub fn deep_copy(&mut self, program: &Program, n: NodeId) -> NodeId {
        // Each copied node first shares its children with the original;
        // popping it from the stack replaces them by fresh copies.
        let root = self.copy_node(program, n);
        let mut stack = vec![root];
        while let Some(c) = stack.pop() {
            let count = program.types[self.type_of(c).index()].fields.len() as u32;
            for s in 0..count {
                match self.slot(c, s).clone() {
                    Slot::Child(orig) => {
                        let copy = self.copy_node(program, orig);
                        *self.slot_mut(c, s) = Slot::Child(copy);
                        stack.push(copy);
                    }
                    Slot::List(items) => {
                        let copies: Vec<NodeId> =
                            items.iter().map(|&o| self.copy_node(program, o)).collect();
                        stack.extend(copies.iter().rev().copied());
                        *self.slot_mut(c, s) = Slot::List(copies.into());
                    }
                    // An empty optional child stays empty (§8.7).
                    Slot::Data(_) | Slot::Empty => {}
                }
            }
        }
        root
    }

    /// A new node with the same type and slots as `n` (children shared).
    fn copy_node(&mut self, program: &Program, n: NodeId) -> NodeId {
        let h = self.nodes[n.index()];
        let count = program.types[h.ty.index()].fields.len();
        let id = NodeId(self.nodes.len() as u32);
        let (first_slot, _) = self.room_for(count);
        for s in 0..count {
            let slot = self.slot(n, s as u32).clone();
            let (c, _) = Tree::locate(first_slot, 0);
            self.chunks[c].push(slot);
        }
        self.nodes.push(NodeHeader {
            ty: h.ty,
            first_slot,
        });
        id
    }

    /// Bytes the store holds: node headers, field slots and the arrays of
    /// child lists, counting capacity and garbage left by replacements
    /// (the store only grows, so this is its peak). Data values that live
    /// outside their slot (strings, records, arrays, maps) are not counted.
    pub fn heap_bytes(&self) -> usize {
        let lists: usize = self
            .chunks
            .iter()
            .flatten()
            .map(|s| match s {
                // An `Arc<Vec<_>>`: two counters and the vector, then items.
                Slot::List(items) => 16 + 24 + items.0.capacity() * std::mem::size_of::<NodeId>(),
                _ => 0,
            })
            .sum();
        self.nodes.capacity() * std::mem::size_of::<NodeHeader>()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<Slot>())
                .sum::<usize>()
            + lists
    }

    /// Number of nodes reachable from the root.
    pub fn len(&self, program: &Program) -> usize {
        self.preorder(program).len()
    }

    /// Whether no node was ever allocated.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}
