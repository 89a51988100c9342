//! The arena tree store.
//!
//! All nodes of a tree live in two arrays: one 8-byte [`NodeHeader`] per
//! node (its concrete type and where its fields start) and one 8-byte word
//! per field, every node's fields back to back. What a word holds depends
//! on the field, which the checker fixes per type ([`Kind`], laid out once
//! per tree): the bits of an `i64`, `f64`, `bool` or enum value; a child's
//! [`NodeId`] (or [`EMPTY`] for an optional child holding no node); or,
//! for strings, records, arrays, maps and child lists, an index into a
//! side table of [`Value`]s or [`NodeList`]s, one entry per such field of
//! each node, overwritten in place. So a node of scalar fields costs 8
//! bytes a field (16 with a [`Value`] per field before), and the store
//! never holds the tag a `Value` would need: the schema knows it.
//!
//! The words (and the side tables) are kept in chunks of 65,536 (a node's
//! fields never straddle two), because one vector of millions of slots
//! would be copied whole each time it grew: for a moment both copies would
//! be resident, half again the tree's memory. A node is a [`NodeId`]
//! index; children are ids, so a tree is plain data with no `Rc<RefCell>`
//! web, dropping it never recurses, and nodes read in pre-order sit next
//! to each other in memory.
//!
//! Fields are read as a [`SlotRef`] ([`Tree::slot`], [`Tree::data`],
//! [`Tree::child`]) and written whole as a [`Slot`] ([`Tree::set_slot`]);
//! a string, record, array or map field can also be changed where it
//! stands ([`Tree::data_mut`]), and a child list ([`Tree::list_mut`]).
//!
//! Replaced subtrees are not freed: they become unreachable garbage in the
//! arena (aliases may still point at them, as LANGUAGE.md requires), and
//! writing the tree out visits only the reachable part.

use std::borrow::Cow;
use std::sync::Arc;
use treefuse_sema::{DataType, FieldId, FieldKind, Program, TypeId, Value};

/// A node handle: an index into the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The contents of one field of a node, owned: what [`Tree::set_slot`]
/// writes.
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

/// The contents of one field of a node as read from the store
/// ([`Tree::slot`]): a data value is borrowed where the store keeps a
/// [`Value`] (strings, records, arrays, maps) and rebuilt from its bits
/// otherwise.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotRef<'a> {
    /// A data field.
    Data(Cow<'a, Value>),
    /// A single child.
    Child(NodeId),
    /// A list of children.
    List(&'a NodeList),
    /// An optional child slot holding no node (LANGUAGE §8.7).
    Empty,
}

impl SlotRef<'_> {
    /// The slot, owned.
    pub fn into_owned(self) -> Slot {
        match self {
            SlotRef::Data(v) => Slot::Data(v.into_owned()),
            SlotRef::Child(c) => Slot::Child(c),
            SlotRef::List(items) => Slot::List(items.clone()),
            SlotRef::Empty => Slot::Empty,
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

/// What the 8-byte word of a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An `i64`, its bits.
    Int,
    /// An `f64`, its bits.
    Float,
    /// A `bool`, 0 or 1.
    Bool,
    /// An enum value, its variant's index.
    Enum,
    /// Any other data value: an index into [`Tree::boxed`]. Also a
    /// scalar field whose default is not of its own type (a field with no
    /// default starts as `Value::Int(0)`), so every value a slot ever held
    /// reads back as it was.
    Boxed,
    /// A child: its id, or [`EMPTY`].
    Child,
    /// A list of children: an index into [`Tree::lists`].
    List,
}

/// The word of an optional child slot holding no node.
const EMPTY: u64 = u64::MAX;

/// The word of `v` in a field of kind `kind`, if `v` is of that kind's
/// type.
#[inline]
fn encode(kind: Kind, v: &Value) -> Option<u64> {
    match (kind, v) {
        (Kind::Int, Value::Int(i)) => Some(*i as u64),
        (Kind::Float, Value::Float(x)) => Some(x.to_bits()),
        (Kind::Bool, Value::Bool(b)) => Some(u64::from(*b)),
        (Kind::Enum, Value::Enum(e)) => Some(u64::from(*e)),
        _ => None,
    }
}

/// The value of word `w` of a scalar field of kind `kind`.
#[inline]
fn decode(kind: Kind, w: u64) -> Value {
    match kind {
        Kind::Float => Value::Float(f64::from_bits(w)),
        Kind::Bool => Value::Bool(w != 0),
        Kind::Enum => Value::Enum(w as u32),
        _ => Value::Int(w as i64),
    }
}

/// The kinds of every type's fields, by slot: shared by a tree and its
/// copies.
#[derive(Debug, Default)]
struct Layouts {
    per_type: Vec<Box<[Kind]>>,
}

impl Layouts {
    fn new(program: &Program) -> Layouts {
        Layouts {
            per_type: (0..program.types.len())
                .map(|t| {
                    let ty = TypeId(t as u32);
                    program.types[t]
                        .fields
                        .iter()
                        .map(|f| kind_of(program, ty, *f))
                        .collect()
                })
                .collect(),
        }
    }
}

/// The kind of field `f` in type `ty`.
fn kind_of(program: &Program, ty: TypeId, f: FieldId) -> Kind {
    let field = &program.fields[f.index()];
    match &field.kind {
        FieldKind::Child(_) => Kind::Child,
        FieldKind::List(_) => Kind::List,
        FieldKind::Data(dt) => {
            let scalar = match dt {
                DataType::Int => Kind::Int,
                DataType::Float => Kind::Float,
                DataType::Bool => Kind::Bool,
                DataType::Enum(_) => Kind::Enum,
                _ => return Kind::Boxed,
            };
            match encode(scalar, &data_default(program, ty, f)) {
                Some(_) => scalar,
                None => Kind::Boxed,
            }
        }
    }
}

/// The value a fresh node of type `ty` holds in data field `f`.
fn data_default(program: &Program, ty: TypeId, f: FieldId) -> Value {
    program
        .field_default(ty, f)
        .cloned()
        .unwrap_or(Value::Int(0))
}

/// How one field of a fresh node starts.
#[derive(Clone, Debug)]
enum Fresh {
    /// This word.
    Word(u64),
    /// The node's own id (a child not yet set).
    SelfId,
    /// A copy of this value in the side table.
    Boxed(Value),
    /// An empty list in the side table.
    List,
}

/// The fields of a fresh node of each type (see [`Tree::alloc_default`]).
pub struct DefaultSlots {
    layouts: Arc<Layouts>,
    per_type: Vec<Vec<Fresh>>,
}

impl DefaultSlots {
    /// The default slots of every type of `program`.
    pub fn new(program: &Program) -> DefaultSlots {
        let layouts = Arc::new(Layouts::new(program));
        let per_type = (0..program.types.len())
            .map(|t| {
                let ty = TypeId(t as u32);
                program.types[t]
                    .fields
                    .iter()
                    .zip(layouts.per_type[t].iter())
                    .map(|(f, kind)| fresh(program, ty, *f, *kind))
                    .collect()
            })
            .collect();
        DefaultSlots { layouts, per_type }
    }
}

/// Field `f` (of kind `kind`) of a fresh node of type `ty`: the data
/// default, an empty optional child, the node itself for a child not yet
/// set, or an empty list.
fn fresh(program: &Program, ty: TypeId, f: FieldId, kind: Kind) -> Fresh {
    match kind {
        Kind::Child if program.fields[f.index()].optional => Fresh::Word(EMPTY),
        Kind::Child => Fresh::SelfId,
        Kind::List => Fresh::List,
        Kind::Boxed => Fresh::Boxed(data_default(program, ty, f)),
        scalar => Fresh::Word(encode(scalar, &data_default(program, ty, f)).unwrap_or(0)),
    }
}

/// Entries per chunk of [`Tree`]'s words and side tables, as a power of
/// two.
const CHUNK_BITS: u32 = 16;
const CHUNK_LEN: usize = 1 << CHUNK_BITS;

/// A side table: a vector in chunks of [`CHUNK_LEN`], never copied as it
/// grows.
#[derive(Clone, Debug)]
struct Side<T> {
    chunks: Vec<Vec<T>>,
}

impl<T> Default for Side<T> {
    fn default() -> Self {
        Side { chunks: Vec::new() }
    }
}

impl<T> Side<T> {
    /// Appends `item`, returning its index.
    fn push(&mut self, item: T) -> u64 {
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK_LEN) {
            // The first chunk grows as needed (small trees stay small).
            let capacity = if self.chunks.is_empty() { 0 } else { CHUNK_LEN };
            self.chunks.push(Vec::with_capacity(capacity));
        }
        let number = self.chunks.len() - 1;
        let chunk = &mut self.chunks[number];
        chunk.push(item);
        ((number as u64) << CHUNK_BITS) | (chunk.len() - 1) as u64
    }

    #[inline]
    fn get(&self, i: u64) -> &T {
        &self.chunks[(i >> CHUNK_BITS) as usize][i as usize & (CHUNK_LEN - 1)]
    }

    #[inline]
    fn get_mut(&mut self, i: u64) -> &mut T {
        &mut self.chunks[(i >> CHUNK_BITS) as usize][i as usize & (CHUNK_LEN - 1)]
    }

    /// Bytes of the entries, counting capacity.
    fn bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum()
    }
}

/// How [`Tree::take_changes`] moves a node's fields from a chunk's store
/// into the tree.
struct Moves {
    /// Where the chunk's created nodes start in the tree.
    offset: u64,
    /// Where they start in the chunk's numbering.
    base_len: u64,
    /// Left behind in the chunk's store when a list moves out.
    empty_list: NodeList,
}

impl Moves {
    #[inline]
    fn renumber(&self, w: u64) -> u64 {
        if w != EMPTY && w >= self.base_len {
            w - self.base_len + self.offset
        } else {
            w
        }
    }

    /// Moves the fields of node `from` of `own` into node `to` of `tree`
    /// (same type); `fresh`: `to` was just made, its side entries not yet.
    fn node(
        &self,
        layouts: &Layouts,
        own: &mut Tree,
        from: NodeId,
        tree: &mut Tree,
        to: NodeId,
        fresh: bool,
    ) {
        let hf = own.nodes[from.index()];
        let ht = tree.nodes[to.index()];
        let kinds = &layouts.per_type[ht.ty.index()];
        let (cf, af) = Tree::locate(hf.first_slot, 0);
        let (ct, at) = Tree::locate(ht.first_slot, 0);
        for (s, kind) in kinds.iter().enumerate() {
            let w = own.chunks[cf][af + s];
            let word = match kind {
                Kind::Child => self.renumber(w),
                Kind::List => {
                    let slot = own.lists.get_mut(w);
                    let mut items = std::mem::replace(slot, self.empty_list.clone());
                    if items.iter().any(|c| u64::from(c.0) >= self.base_len) {
                        for c in items.make_mut() {
                            c.0 = self.renumber(u64::from(c.0)) as u32;
                        }
                    }
                    if fresh {
                        tree.lists.push(items)
                    } else {
                        let here = tree.chunks[ct][at + s];
                        *tree.lists.get_mut(here) = items;
                        here
                    }
                }
                Kind::Boxed => {
                    let v = std::mem::replace(own.boxed.get_mut(w), Value::Int(0));
                    if fresh {
                        tree.boxed.push(v)
                    } else {
                        let here = tree.chunks[ct][at + s];
                        *tree.boxed.get_mut(here) = v;
                        here
                    }
                }
                _ => w,
            };
            tree.chunks[ct][at + s] = word;
        }
    }
}

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
    /// The field words, in chunks of [`CHUNK_LEN`] (one node's fields in
    /// one chunk, so a chunk may end a few words short; a node with more
    /// fields than that gets a chunk of its own).
    chunks: Vec<Vec<u64>>,
    /// The values of [`Kind::Boxed`] fields.
    boxed: Side<Value>,
    /// The child lists.
    lists: Side<NodeList>,
    /// The kinds of every type's fields (empty until the first node).
    layouts: Arc<Layouts>,
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

    /// Lays the fields out for `program`, before the first node.
    fn lay_out(&mut self, program: &Program) {
        if self.nodes.is_empty() || self.layouts.per_type.len() != program.types.len() {
            self.layouts = Arc::new(Layouts::new(program));
        }
    }

    /// Allocates a node of type `ty` with every field at its default
    /// (children point at the node itself until set).
    pub fn alloc(&mut self, program: &Program, ty: TypeId) -> NodeId {
        self.lay_out(program);
        let id = NodeId(self.nodes.len() as u32);
        let fields = &program.types[ty.index()].fields;
        let layouts = self.layouts.clone();
        let kinds = &layouts.per_type[ty.index()];
        let first_slot = self.room_for(fields.len());
        for (f, kind) in fields.iter().zip(kinds.iter()) {
            let word = self.fresh_word(&fresh(program, ty, *f, *kind), id);
            self.push_word(first_slot, word);
        }
        self.nodes.push(NodeHeader { ty, first_slot });
        id
    }

    /// The word of a fresh field of node `id` (side table entries added).
    #[inline]
    fn fresh_word(&mut self, fresh: &Fresh, id: NodeId) -> u64 {
        match fresh {
            Fresh::Word(w) => *w,
            Fresh::SelfId => u64::from(id.0),
            Fresh::Boxed(v) => self.boxed.push(v.clone()),
            Fresh::List => self.lists.push(NodeList::default()),
        }
    }

    /// Where the next node's `count` words go (see [`NodeHeader`]): the
    /// first slot of the node, in a chunk with room for them.
    fn room_for(&mut self, count: usize) -> u32 {
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
        ((number as u32) << CHUNK_BITS) | self.chunks[number].len() as u32
    }

    /// Appends a word to the chunk of the node whose first slot is
    /// `first`.
    #[inline]
    fn push_word(&mut self, first: u32, word: u64) {
        self.chunks[(first >> CHUNK_BITS) as usize].push(word);
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
        if self.nodes.is_empty() || !Arc::ptr_eq(&self.layouts, &defaults.layouts) {
            self.layouts = defaults.layouts.clone();
        }
        let id = NodeId(self.nodes.len() as u32);
        let fresh = &defaults.per_type[ty.index()];
        let first_slot = self.room_for(fresh.len());
        for f in fresh {
            let word = self.fresh_word(f, id);
            self.push_word(first_slot, word);
        }
        self.nodes.push(NodeHeader { ty, first_slot });
        id
    }

    /// The concrete type of a node.
    #[inline]
    pub fn type_of(&self, n: NodeId) -> TypeId {
        self.nodes[n.index()].ty
    }

    /// The kind and word of slot `slot` of node `n`.
    #[inline(always)]
    fn word(&self, n: NodeId, slot: u32) -> (Kind, u64) {
        let h = self.nodes[n.index()];
        let kind = self.layouts.per_type[h.ty.index()][slot as usize];
        let (c, i) = Tree::locate(h.first_slot, slot);
        (kind, self.chunks[c][i])
    }

    /// The kind of slot `slot` of node `n` and its word, for writing.
    #[inline(always)]
    fn word_mut(&mut self, n: NodeId, slot: u32) -> (Kind, &mut u64) {
        let h = self.nodes[n.index()];
        let kind = self.layouts.per_type[h.ty.index()][slot as usize];
        let (c, i) = Tree::locate(h.first_slot, slot);
        (kind, &mut self.chunks[c][i])
    }

    /// A field of a node by slot index.
    #[inline]
    pub fn slot(&self, n: NodeId, slot: u32) -> SlotRef<'_> {
        let (kind, w) = self.word(n, slot);
        match kind {
            Kind::Child if w == EMPTY => SlotRef::Empty,
            Kind::Child => SlotRef::Child(NodeId(w as u32)),
            Kind::List => SlotRef::List(self.lists.get(w)),
            Kind::Boxed => SlotRef::Data(Cow::Borrowed(self.boxed.get(w))),
            scalar => SlotRef::Data(Cow::Owned(decode(scalar, w))),
        }
    }

    /// The value of data slot `slot` of node `n` (`Value::Int(0)` if it is
    /// not a data slot, which the checker rules out).
    #[inline(always)]
    pub fn data(&self, n: NodeId, slot: u32) -> Value {
        let (kind, w) = self.word(n, slot);
        match kind {
            Kind::Boxed => self.boxed.get(w).clone(),
            Kind::Child | Kind::List => Value::Int(0),
            scalar => decode(scalar, w),
        }
    }

    /// The value of data slot `slot` of node `n`, for changing where it
    /// stands: `Some` for strings, records, arrays and maps (the fields a
    /// path can reach into), `None` for scalars and children, which are
    /// only ever written whole ([`Tree::set_slot`]).
    #[inline]
    pub fn data_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Value> {
        match self.word(n, slot) {
            (Kind::Boxed, w) => Some(self.boxed.get_mut(w)),
            _ => None,
        }
    }

    /// The children of list slot `slot` of node `n`, for editing in place
    /// (copied first if shared); `None` for other slots.
    #[inline]
    pub fn list_mut(&mut self, n: NodeId, slot: u32) -> Option<&mut Vec<NodeId>> {
        match self.word(n, slot) {
            (Kind::List, w) => Some(self.lists.get_mut(w).make_mut()),
            _ => None,
        }
    }

    /// Writes field `slot` of node `n`. The slot must be of the field's
    /// kind (a data value of the field's type, a child or [`Slot::Empty`]
    /// in a child field, a list in a list field), as the checker
    /// guarantees; anything else is ignored (and a bug: debug builds
    /// panic).
    #[inline]
    pub fn set_slot(&mut self, n: NodeId, slot: u32, value: Slot) {
        let (kind, word) = self.word_mut(n, slot);
        match (kind, value) {
            (Kind::Child, Slot::Child(c)) => *word = u64::from(c.0),
            (Kind::Child, Slot::Empty) => *word = EMPTY,
            (Kind::List, Slot::List(items)) => {
                let w = *word;
                *self.lists.get_mut(w) = items;
            }
            (Kind::Boxed, Slot::Data(v)) => {
                let w = *word;
                *self.boxed.get_mut(w) = v;
            }
            (Kind::Child | Kind::List | Kind::Boxed, other) => {
                debug_assert!(false, "{other:?} written into a {kind:?} slot");
            }
            (scalar, Slot::Data(v)) => match encode(scalar, &v) {
                Some(w) => *word = w,
                None => debug_assert!(false, "{v:?} written into a {scalar:?} slot"),
            },
            (scalar, other) => debug_assert!(false, "{other:?} written into a {scalar:?} slot"),
        }
    }

    /// Writes data slot `slot` of node `n`: [`Tree::set_slot`] with a
    /// [`Slot::Data`], the interpreter's assignment to a field.
    #[inline]
    pub fn set_data(&mut self, n: NodeId, slot: u32, value: Value) {
        let (kind, word) = self.word_mut(n, slot);
        if kind == Kind::Boxed {
            let w = *word;
            *self.boxed.get_mut(w) = value;
            return;
        }
        match encode(kind, &value) {
            Some(w) => *word = w,
            None => debug_assert!(false, "{value:?} written into a {kind:?} slot"),
        }
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

    /// The single child in `slot` (the node itself if the slot is not a
    /// child slot, which the checker rules out, or an empty optional
    /// child, which callers check first with [`Tree::child_opt`]).
    #[inline]
    pub fn child(&self, n: NodeId, slot: u32) -> NodeId {
        match self.word(n, slot) {
            (Kind::Child, w) if w != EMPTY => NodeId(w as u32),
            _ => n,
        }
    }

    /// The child in `slot`, `None` if it is an empty optional child
    /// (LANGUAGE §8.7).
    #[inline]
    pub fn child_opt(&self, n: NodeId, slot: u32) -> Option<NodeId> {
        match self.word(n, slot) {
            (Kind::Child, EMPTY) => None,
            (Kind::Child, w) => Some(NodeId(w as u32)),
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
                    SlotRef::Child(c) => stack.push(c),
                    SlotRef::List(items) => stack.extend(items.iter().rev().copied()),
                    SlotRef::Data(_) | SlotRef::Empty => {}
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
        let mut out = Tree {
            layouts: self.layouts.clone(),
            ..Tree::default()
        };
        for n in &order {
            let h = self.nodes[n.index()];
            let count = program.types[h.ty.index()].fields.len() as u32;
            let first_slot = out.room_for(count as usize);
            for s in 0..count {
                let (kind, w) = self.word(*n, s);
                let word = match kind {
                    Kind::Child if w == EMPTY => EMPTY,
                    Kind::Child => u64::from(new_id[w as usize]),
                    Kind::List => out.lists.push(
                        self.lists
                            .get(w)
                            .iter()
                            .map(|c| NodeId(new_id[c.index()]))
                            .collect(),
                    ),
                    Kind::Boxed => out.boxed.push(self.boxed.get(w).clone()),
                    _ => w,
                };
                out.push_word(first_slot, word);
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
                match self.word(c, s) {
                    (Kind::Child, w) if w != EMPTY => {
                        let copy = self.copy_node(program, NodeId(w as u32));
                        self.set_slot(c, s, Slot::Child(copy));
                        stack.push(copy);
                    }
                    (Kind::List, w) => {
                        let items = self.lists.get(w).clone();
                        let copies: Vec<NodeId> =
                            items.iter().map(|&o| self.copy_node(program, o)).collect();
                        stack.extend(copies.iter().rev().copied());
                        self.set_slot(c, s, Slot::List(copies.into()));
                    }
                    // An empty optional child stays empty (§8.7).
                    _ => {}
                }
            }
        }
        root
    }

    /// A new node with the type and slots of node `n` of `other` (children
    /// shared: the words are copied as they are, ids included).
    pub(crate) fn copy_from(&mut self, program: &Program, other: &Tree, n: NodeId) -> NodeId {
        if self.nodes.is_empty() {
            self.layouts = other.layouts.clone();
        }
        let h = other.nodes[n.index()];
        let count = program.types[h.ty.index()].fields.len();
        let id = NodeId(self.nodes.len() as u32);
        let first_slot = self.room_for(count);
        for s in 0..count {
            let (kind, w) = other.word(n, s as u32);
            let word = match kind {
                Kind::List => self.lists.push(other.lists.get(w).clone()),
                Kind::Boxed => self.boxed.push(other.boxed.get(w).clone()),
                _ => w,
            };
            self.push_word(first_slot, word);
        }
        self.nodes.push(NodeHeader {
            ty: h.ty,
            first_slot,
        });
        id
    }

    /// Takes in what a chunk of a split loop did in its own store `own`
    /// (see `split.rs`): each `(id, copy)` of `changed` overwrites node
    /// `id` (of the same type) with the fields of its copy, and the nodes
    /// of `created` are appended, in order. Ids from `base_len` on in
    /// `own`'s fields are created nodes, renumbered to follow this tree's
    /// nodes. Values and lists move; nothing is cloned.
    pub(crate) fn take_changes(
        &mut self,
        mut own: Tree,
        changed: &[(NodeId, NodeId)],
        created: &[NodeId],
        base_len: u32,
    ) {
        let moves = Moves {
            offset: self.nodes.len() as u64,
            base_len: u64::from(base_len),
            empty_list: NodeList::default(),
        };
        let layouts = self.layouts.clone();
        for &n in created {
            let ty = own.nodes[n.index()].ty;
            let count = layouts.per_type[ty.index()].len();
            let first_slot = self.room_for(count);
            let (c, at) = Tree::locate(first_slot, 0);
            self.chunks[c].resize(at + count, 0);
            self.nodes.push(NodeHeader { ty, first_slot });
            let id = NodeId(self.nodes.len() as u32 - 1);
            moves.node(&layouts, &mut own, n, self, id, true);
        }
        for &(id, n) in changed {
            debug_assert_eq!(own.nodes[n.index()].ty, self.nodes[id.index()].ty);
            moves.node(&layouts, &mut own, n, self, id, false);
        }
    }

    /// Pushes the children of node `n` on `stack`, last first (so they
    /// pop in order): a depth-first walk's step, reading words only.
    #[inline]
    pub(crate) fn push_children(&self, n: NodeId, stack: &mut Vec<NodeId>) {
        let h = self.nodes[n.index()];
        let kinds = &self.layouts.per_type[h.ty.index()];
        let (c, at) = Tree::locate(h.first_slot, 0);
        let words = &self.chunks[c][at..at + kinds.len()];
        for (kind, &w) in kinds.iter().zip(words).rev() {
            match kind {
                Kind::Child if w != EMPTY => stack.push(NodeId(w as u32)),
                Kind::List => stack.extend(self.lists.get(w).iter().rev().copied()),
                _ => {}
            }
        }
    }

    /// [`Tree::copy_node`], for the parallel loops' views.
    pub(crate) fn copy_within(&mut self, program: &Program, n: NodeId) -> NodeId {
        self.copy_node(program, n)
    }

    /// A new node with the same type and slots as `n` (children shared).
    fn copy_node(&mut self, program: &Program, n: NodeId) -> NodeId {
        let h = self.nodes[n.index()];
        let count = program.types[h.ty.index()].fields.len();
        let id = NodeId(self.nodes.len() as u32);
        let first_slot = self.room_for(count);
        for s in 0..count {
            let (kind, w) = self.word(n, s as u32);
            let word = match kind {
                Kind::List => {
                    let items = self.lists.get(w).clone();
                    self.lists.push(items)
                }
                Kind::Boxed => {
                    let v = self.boxed.get(w).clone();
                    self.boxed.push(v)
                }
                _ => w,
            };
            self.push_word(first_slot, word);
        }
        self.nodes.push(NodeHeader {
            ty: h.ty,
            first_slot,
        });
        id
    }

    /// Bytes the store holds: node headers, field words, the side tables
    /// and the arrays of child lists, counting capacity and garbage left
    /// by replacements (the store only grows, so this is its peak). What
    /// the boxed values point to (the text of strings, the items of
    /// records, arrays and maps) is not counted.
    pub fn heap_bytes(&self) -> usize {
        let lists: usize = self
            .lists
            .chunks
            .iter()
            .flatten()
            // An `Arc<Vec<_>>`: two counters and the vector, then items.
            .map(|items| 16 + 24 + items.0.capacity() * std::mem::size_of::<NodeId>())
            .sum();
        self.nodes.capacity() * std::mem::size_of::<NodeHeader>()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<u64>())
                .sum::<usize>()
            + self.boxed.bytes()
            + self.lists.bytes()
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
