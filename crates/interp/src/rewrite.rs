//! Rewriting in place (LANGUAGE.md §7.1–7.3) in the interpreter: where
//! the receiver stands ([`Site`]), replacing it, thickets, list edits,
//! copies, and the bookkeeping of `for` loops over lists whose elements
//! replace themselves.
//!
//! # Loops over lists that change under them
//!
//! A `for x in self.list` loop visits the elements of the list as it was
//! when the loop started, but a call on `x` may replace the element by
//! zero or more nodes (a thicket), and a later call on `x` in the same
//! iteration runs on every node now standing where the element stood (its
//! *region*). Each running loop is an [`OpenList`] on a stack: the
//! snapshot of the original elements, the index of the next one, and, once
//! the first replacement happened, the list built so far (`front`, whose
//! tail is the current element's region). Elements not yet reached are
//! `snapshot[next..]`, so an iteration costs O(1) plus what it inserts, and
//! a loop over n elements O(n + inserted) in total; the first edit copies
//! the processed prefix once. The tree's slot is written when the loop
//! ends, or when the owner reads the list during the loop (`len`, an
//! index, a spread: O(n) each).
//!
//! Only the node that owns a list can read or edit it, and while one of
//! its loops runs it calls traversals only on the loop variable, so the
//! loops open on the current node are always the top entries of the stack.

use crate::{Built, Failure, Flow, Frame, Interpreter};
use treefuse_runtime::{NodeId, NodeList, Slot, SlotRef, TreeStore};
use treefuse_sema::*;
use treefuse_syntax::Span;

/// Where the node a traversal runs on stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Site {
    /// The root of the run.
    Root,
    /// A single child slot: (parent, slot index).
    Child(NodeId, u32),
    /// In a list being iterated by the open loop with this stack index; the
    /// node is the one the loop is visiting.
    Listed(usize),
    /// Nowhere (pure function frames).
    Nowhere,
}

/// A running `for` loop over a list child (see the module docs).
#[derive(Clone)]
pub(crate) struct OpenList {
    parent: NodeId,
    slot: u32,
    snapshot: NodeList,
    /// Index in `snapshot` of the next element to visit.
    next: usize,
    /// The list built so far, once an element was replaced.
    front: Option<Vec<NodeId>>,
    /// Where the current element's region starts in `front`.
    region_start: usize,
    /// The tree's slot is older than `front`.
    stale: bool,
    /// The region node being visited and not (yet) replaced.
    visiting: Option<NodeId>,
    /// Where in `front` the nodes of the last replacement start.
    replacement_start: usize,
}

impl OpenList {
    /// The current list: processed part and the elements not reached yet.
    fn current(&self) -> NodeList {
        match &self.front {
            Some(front) => front
                .iter()
                .chain(&self.snapshot[self.next..])
                .copied()
                .collect(),
            None => self.snapshot.clone(),
        }
    }

    /// Switches to an explicit `front`, everything before the current
    /// region copied once.
    fn front_mut(&mut self) -> &mut Vec<NodeId> {
        let processed = self.region_start;
        self.front
            .get_or_insert_with(|| self.snapshot[..processed].to_vec())
    }
}

impl Interpreter<'_> {
    /// The elements of a list child, as the program sees them now.
    pub(crate) fn list_of<S: TreeStore>(
        &mut self,
        tree: &mut S,
        node: NodeId,
        slot: u32,
    ) -> NodeList {
        self.sync_open_lists(tree, node);
        match tree.slot(node, slot) {
            SlotRef::List(items) => items.clone(),
            _ => NodeList::default(),
        }
    }

    /// Writes the lists of `node` that open loops changed into the tree.
    pub(crate) fn sync_open_lists<S: TreeStore>(&mut self, tree: &mut S, node: NodeId) {
        for open in self.open_lists.iter_mut().rev() {
            if open.parent != node {
                break;
            }
            if open.stale {
                tree.set_slot(open.parent, open.slot, Slot::List(open.current()));
                open.stale = false;
            }
        }
    }

    /// Writes the list of every open loop that changed into the tree,
    /// whatever node owns it: before a pure function that reads nodes
    /// (LANGUAGE §8.8), which may read any list below its arguments.
    pub(crate) fn sync_all_open_lists<S: TreeStore>(&mut self, tree: &mut S) {
        for open in self.open_lists.iter_mut() {
            if open.stale {
                tree.set_slot(open.parent, open.slot, Slot::List(open.current()));
                open.stale = false;
            }
        }
    }

    /// Opens a loop over the list in `slot` of `node`; returns its index.
    pub(crate) fn open_list<S: TreeStore>(
        &mut self,
        tree: &mut S,
        node: NodeId,
        slot: u32,
    ) -> usize {
        let snapshot = self.list_of(tree, node, slot);
        self.open_list_with(node, slot, snapshot)
    }

    /// Opens a loop over `snapshot`, elements of the list in `slot` of
    /// `node` (a split loop's chunk: the list is written back only if a
    /// call replaced an element, which a chunk never does).
    pub(crate) fn open_list_with(&mut self, node: NodeId, slot: u32, snapshot: NodeList) -> usize {
        self.open_lists.push(OpenList {
            parent: node,
            slot,
            snapshot,
            next: 0,
            front: None,
            region_start: 0,
            stale: false,
            visiting: None,
            replacement_start: 0,
        });
        self.open_lists.len() - 1
    }

    /// Moves the loop to its next original element; `None` at the end.
    pub(crate) fn advance(&mut self, index: usize) -> Option<NodeId> {
        let open = &mut self.open_lists[index];
        let e = *open.snapshot.get(open.next)?;
        open.next += 1;
        match &mut open.front {
            Some(front) => {
                open.region_start = front.len();
                front.push(e);
            }
            None => open.region_start = open.next - 1,
        }
        Some(e)
    }

    /// Closes the loop (the top of the stack), writing the list if it
    /// changed.
    pub(crate) fn close_list<S: TreeStore>(&mut self, tree: &mut S) {
        if let Some(open) = self.open_lists.pop() {
            if open.front.is_some() {
                tree.set_slot(open.parent, open.slot, Slot::List(open.current()));
            }
        }
    }

    /// The current element of the open loop `index` if no call replaced
    /// an element of its list yet: then the element's region is the
    /// element alone.
    pub(crate) fn unreplaced_element(&self, index: usize) -> Option<NodeId> {
        let open = &self.open_lists[index];
        match open.front {
            None => open.snapshot.get(open.region_start).copied(),
            Some(_) => None,
        }
    }

    /// The first node of the current element's region in the open loop
    /// `index`: the node now standing where the element stood (between
    /// visits, while the region is in the list).
    pub(crate) fn standing(&self, index: usize) -> Option<NodeId> {
        let open = &self.open_lists[index];
        match &open.front {
            Some(front) => front.get(open.region_start).copied(),
            None => open.snapshot.get(open.region_start).copied(),
        }
    }

    /// Marks `node` (of a taken region) as being visited.
    pub(crate) fn begin_region_visit(&mut self, index: usize, node: NodeId) {
        self.open_lists[index].visiting = Some(node);
    }

    /// After visiting a region node: if it was not replaced, it stays.
    pub(crate) fn end_region_visit(&mut self, index: usize) {
        let open = &mut self.open_lists[index];
        if let Some(n) = open.visiting.take() {
            if let Some(front) = &mut open.front {
                front.push(n);
            }
        }
    }

    /// The node being visited in a list is replaced by `nodes`.
    fn replace_listed(&mut self, index: usize, nodes: &[NodeId]) {
        let open = &mut self.open_lists[index];
        open.visiting = None;
        open.stale = true;
        let front = open.front_mut();
        let start = front.len();
        front.extend_from_slice(nodes);
        open.replacement_start = start;
    }

    /// The nodes of the last replacement in the open loop `index`, taken
    /// out of the list to be visited one by one, like a region (a fused
    /// call resuming postponed traversals on them).
    pub(crate) fn take_replacement(&mut self, index: usize) -> Vec<NodeId> {
        let open = &mut self.open_lists[index];
        let start = open.replacement_start;
        open.front_mut().split_off(start)
    }

    /// Runs `visit` on every node of the current element's region, in
    /// order; each may replace itself. `visit` learns whether the node is
    /// the region's last, so it can hand over what it would otherwise copy
    /// for the next node. The region is taken out of the list while it is
    /// visited (nodes that stay are put back by [`Self::end_region_visit`]);
    /// an element no earlier call replaced, the common case, is visited
    /// without copying anything.
    pub(crate) fn on_region(
        &mut self,
        index: usize,
        mut visit: impl FnMut(&mut Self, NodeId, bool) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let open = &mut self.open_lists[index];
        let region = match &mut open.front {
            Some(front) => front.split_off(open.region_start),
            None => {
                let n = open.snapshot[open.region_start];
                self.begin_region_visit(index, n);
                visit(self, n, true)?;
                self.end_region_visit(index);
                return Ok(());
            }
        };
        let last = region.len().saturating_sub(1);
        for (i, n) in region.into_iter().enumerate() {
            self.begin_region_visit(index, n);
            visit(self, n, i == last)?;
            self.end_region_visit(index);
        }
        Ok(())
    }

    /// The open loop of a `for` loop variable in this frame.
    pub(crate) fn loop_of(frame: &Frame, var: NodeVarId) -> Option<usize> {
        let var = frame.var(var);
        frame
            .loops
            .iter()
            .rev()
            .find(|(v, _)| *v == var)
            .map(|(_, i)| *i)
    }

    /// Executes the statements of §7: replacements, thickets, list edits,
    /// copies.
    pub(crate) fn exec_rewrite<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        s: &Stmt,
    ) -> Result<Flow, Failure> {
        match &s.kind {
            StmtKind::ReplaceSelf { with } => {
                let node = self.subtree(tree, frame, with)?;
                self.put_at_site(tree, frame, &[node], false, s.span)?;
                frame.replaced = true;
                Ok(Flow::Return)
            }
            StmtKind::SpliceSelf { items } => {
                if !matches!(frame.site, Site::Listed(_)) {
                    let where_ = match frame.site {
                        Site::Root => "it is the root of the run".to_string(),
                        Site::Child(p, slot) => {
                            let ty = tree.type_of(p);
                            let field = self.program.types[ty.index()].fields[slot as usize];
                            format!(
                                "it stands in the single child slot `{}.{}`",
                                self.program.type_name(ty),
                                self.program.fields[field.index()].name
                            )
                        }
                        _ => "it stands nowhere".to_string(),
                    };
                    return Err(self.error(
                        frame,
                        s.span,
                        format!("a list value can only replace a node that stands in a list of children, but {where_}"),
                    ));
                }
                let nodes = self.list_value(tree, frame, items)?;
                self.put_at_site(tree, frame, &nodes, true, s.span)?;
                frame.replaced = true;
                Ok(Flow::Return)
            }
            StmtKind::EditList { list, edit } => {
                // `push` and `L[i] = ..` edit the list in the tree itself
                // (copied only if shared): amortised O(1), since no loop
                // over this list can be running (the checker's
                // `for-list-write`). Everything is evaluated first, so a
                // runtime error leaves the list as it was.
                let parent = self.path(tree, frame, &list.parent)?;
                let slot = self.slot_index(list.field);
                self.sync_open_lists(tree, parent);
                let new_items: NodeList = match edit {
                    ListEdit::Push(with) => {
                        let node = self.subtree(tree, frame, with)?;
                        if let Some(items) = tree.list_mut(parent, slot) {
                            items.push(node);
                        }
                        return Ok(Flow::Normal);
                    }
                    ListEdit::Set(i, with) => {
                        let i = self.eval(tree, frame, i)?.as_int();
                        let len = match tree.slot(parent, slot) {
                            SlotRef::List(items) => items.len(),
                            _ => 0,
                        };
                        if i < 0 || i as usize >= len {
                            return Err(self.error(
                                frame,
                                s.span,
                                format!(
                                    "list index {i} out of range (the list has {len} elements)"
                                ),
                            ));
                        }
                        let node = self.subtree(tree, frame, with)?;
                        if let Some(items) = tree.list_mut(parent, slot) {
                            items[i as usize] = node;
                        }
                        return Ok(Flow::Normal);
                    }
                    ListEdit::Insert(i, with) => {
                        // The index first, checked (`0 <= i <= len`), then
                        // the subtree, as for `L[i] = ..`.
                        let i = self.eval(tree, frame, i)?.as_int();
                        let len = match tree.slot(parent, slot) {
                            SlotRef::List(items) => items.len(),
                            _ => 0,
                        };
                        if i < 0 || i as usize > len {
                            return Err(self.error(
                                frame,
                                s.span,
                                format!(
                                    "list insert position {i} out of range (the list has {len} elements)"
                                ),
                            ));
                        }
                        let node = self.subtree(tree, frame, with)?;
                        if let Some(items) = tree.list_mut(parent, slot) {
                            items.insert(i as usize, node);
                        }
                        return Ok(Flow::Normal);
                    }
                    ListEdit::Remove(i) => {
                        let i = self.eval(tree, frame, i)?.as_int();
                        let len = match tree.slot(parent, slot) {
                            SlotRef::List(items) => items.len(),
                            _ => 0,
                        };
                        if i < 0 || i as usize >= len {
                            return Err(self.error(
                                frame,
                                s.span,
                                format!(
                                    "list index {i} out of range (the list has {len} elements)"
                                ),
                            ));
                        }
                        if let Some(items) = tree.list_mut(parent, slot) {
                            items.remove(i as usize);
                        }
                        return Ok(Flow::Normal);
                    }
                    ListEdit::Assign(value) => self.list_value(tree, frame, value)?.into(),
                };
                tree.set_slot(parent, slot, Slot::List(new_items));
                Ok(Flow::Normal)
            }
            StmtKind::CopyTo { slot, source } => {
                let parent = self.path(tree, frame, &slot.parent)?;
                let node = self.path(tree, frame, source)?;
                let copy = self.deep_copy(tree, node);
                tree.set_slot(parent, self.slot_index(slot.field), Slot::Child(copy));
                Ok(Flow::Normal)
            }
            _ => Ok(Flow::Normal),
        }
    }

    /// A deep copy of the subtree at `node`, with the lists of open loops
    /// as the program sees them.
    pub(crate) fn deep_copy<S: TreeStore>(&mut self, tree: &mut S, node: NodeId) -> NodeId {
        let owners: Vec<NodeId> = self.open_lists.iter().map(|o| o.parent).collect();
        for owner in owners {
            self.sync_open_lists(tree, owner);
        }
        tree.deep_copy(self.program, node)
    }

    /// The node a subtree denotes, built or copied (nothing in the tree
    /// changes yet, so a runtime error leaves it as it was).
    fn subtree<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        t: &Subtree,
    ) -> Result<NodeId, Failure> {
        Ok(match t {
            Subtree::New(new) => {
                let built = self.build(tree, frame, new)?;
                self.materialize(tree, &built)
            }
            Subtree::Move(p) => self.path(tree, frame, p)?,
            Subtree::Copy(p) => {
                let n = self.path(tree, frame, p)?;
                self.deep_copy(tree, n)
            }
        })
    }

    /// The nodes of a list value, in order. Everything is evaluated before
    /// any node is allocated.
    fn list_value<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &mut Frame,
        items: &[ListItem],
    ) -> Result<Vec<NodeId>, Failure> {
        enum Part {
            Built(Built),
            Node(NodeId),
            Copy(NodeId),
            Many(NodeList),
        }
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            parts.push(match item {
                ListItem::One(Subtree::New(new)) => Part::Built(self.build(tree, frame, new)?),
                ListItem::One(Subtree::Move(p)) => Part::Node(self.path(tree, frame, p)?),
                ListItem::One(Subtree::Copy(p)) => Part::Copy(self.path(tree, frame, p)?),
                ListItem::Spread(slot) => {
                    let parent = self.path(tree, frame, &slot.parent)?;
                    let slot = self.slot_index(slot.field);
                    Part::Many(self.list_of(tree, parent, slot))
                }
            });
        }
        let mut out = Vec::new();
        for part in parts {
            match part {
                Part::Built(b) => out.push(self.materialize(tree, &b)),
                Part::Node(n) => out.push(n),
                Part::Copy(n) => out.push(self.deep_copy(tree, n)),
                Part::Many(ns) => out.extend(ns.iter().copied()),
            }
        }
        Ok(out)
    }

    /// Puts `nodes` where the receiver stands.
    fn put_at_site<S: TreeStore>(
        &mut self,
        tree: &mut S,
        frame: &Frame,
        nodes: &[NodeId],
        thicket: bool,
        span: Span,
    ) -> Result<(), Failure> {
        match frame.site {
            Site::Listed(index) => self.replace_listed(index, nodes),
            Site::Root | Site::Child(..) if thicket => {
                return Err(self.error(
                    frame,
                    span,
                    "a list value can only replace a node in a list",
                ))
            }
            Site::Root => tree.set_root(nodes[0]),
            Site::Child(parent, slot) => tree.set_slot(parent, slot, Slot::Child(nodes[0])),
            Site::Nowhere => {
                return Err(self.error(frame, span, "the receiver stands nowhere"));
            }
        }
        Ok(())
    }
}
