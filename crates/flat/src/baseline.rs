//! The paper's two recursive baselines for flattening (Section 6).
//!
//! # Why the module is shaped this way
//!
//! The paper compares its Key-based algorithm with the two ways compilers
//! usually write this pass over a pointer tree:
//!
//! * [`flatten_functional`]: pure recursion. Each call returns, for its
//!   subtree, the rows it contributes to the enclosing group and the list of
//!   groups lifted out of it; parents build fresh vectors by concatenating
//!   their children's results. Clear and local, but rows are copied once per
//!   level on their way up.
//! * [`flatten_mutation`]: recursion with an accumulator. A pre-order walk
//!   threads a `&mut` list of group buffers and pushes each row straight
//!   into its group's buffer; no copying up the stack, but the result
//!   depends on the traversal order.
//!
//! Both produce exactly the same [`Flattened`] as [`crate::lift::flatten_seq`]
//! (same group order, same origins), which the property tests check. Being
//! recursive, they use one stack frame per tree level; they refuse trees
//! deeper than [`MAX_RECURSION_DEPTH`] with [`TooDeep`] instead of
//! overflowing the stack. (The benchmark grid is at most 31 deep.)

use crate::lift::{Flattened, LiftSpec, Row};
use crate::tree::Node;

/// Deepest tree the recursive baselines accept (fits a 2 MiB thread stack).
pub const MAX_RECURSION_DEPTH: usize = 1000;

/// The tree is too deep for a recursive baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// The limit that was exceeded ([`MAX_RECURSION_DEPTH`]).
    pub limit: usize,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tree deeper than {} levels; the recursive baselines would risk a stack overflow",
            self.limit
        )
    }
}

impl std::error::Error for TooDeep {}

fn check(level: usize) -> Result<(), TooDeep> {
    if level > MAX_RECURSION_DEPTH {
        Err(TooDeep {
            limit: MAX_RECURSION_DEPTH,
        })
    } else {
        Ok(())
    }
}

/// Groups of rows, as the baselines build them.
type RowGroups<K, V> = Vec<Vec<Row<K, V>>>;

/// What a subtree hands back to its parent in the functional baseline.
struct Part<K, V> {
    /// Rows for the enclosing group.
    rows: Vec<Row<K, V>>,
    /// Groups lifted out of the subtree, in pre-order of their keys.
    groups: Vec<Vec<Row<K, V>>>,
    /// Number of nodes in the subtree (to number the next sibling).
    size: u32,
}

/// Pure functional recursive flattening of a forest: see the module
/// documentation.
pub fn flatten_functional<K, V>(
    forest: &[Node<K, V>],
    spec: &LiftSpec<K, V>,
) -> Result<Flattened<K, V>, TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let mut groups = Vec::new();
    let mut next = 0u32;
    for root in forest {
        let (gs, size) = fun_group(root, next, 0, spec)?;
        groups.extend(gs);
        next += size;
    }
    Ok(Flattened::from_groups(groups))
}

/// The group headed by `node` (numbered `id`) followed by all groups nested
/// in it, and the subtree size.
fn fun_group<K, V>(
    node: &Node<K, V>,
    id: u32,
    level: usize,
    spec: &LiftSpec<K, V>,
) -> Result<(RowGroups<K, V>, u32), TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    check(level)?;
    let children = fun_children(node, id, 1, level, spec)?;
    let size = 1 + children.iter().map(|p| p.size).sum::<u32>();
    let header = (0, spec.target.clone(), spec.header_value.clone(), id);
    let own: Vec<Row<K, V>> = std::iter::once(header)
        .chain(children.iter().flat_map(|p| p.rows.iter().cloned()))
        .collect();
    let groups = std::iter::once(own)
        .chain(children.into_iter().flat_map(|p| p.groups))
        .collect();
    Ok((groups, size))
}

fn fun_children<K, V>(
    node: &Node<K, V>,
    id: u32,
    rel: u32,
    level: usize,
    spec: &LiftSpec<K, V>,
) -> Result<Vec<Part<K, V>>, TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let mut next = id + 1;
    let mut parts = Vec::with_capacity(node.children.len());
    for c in &node.children {
        let p = fun_member(c, next, rel, level + 1, spec)?;
        next += p.size;
        parts.push(p);
    }
    Ok(parts)
}

fn fun_member<K, V>(
    node: &Node<K, V>,
    id: u32,
    rel: u32,
    level: usize,
    spec: &LiftSpec<K, V>,
) -> Result<Part<K, V>, TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    check(level)?;
    if node.kind == spec.target {
        let (groups, size) = fun_group(node, id, level, spec)?;
        Ok(Part {
            rows: vec![(rel, spec.reference.clone(), node.value.clone(), id)],
            groups,
            size,
        })
    } else {
        let children = fun_children(node, id, rel + 1, level, spec)?;
        let me = (rel, node.kind.clone(), node.value.clone(), id);
        let rows = std::iter::once(me)
            .chain(children.iter().flat_map(|p| p.rows.iter().cloned()))
            .collect();
        let size = 1 + children.iter().map(|p| p.size).sum::<u32>();
        let groups = children.into_iter().flat_map(|p| p.groups).collect();
        Ok(Part { rows, groups, size })
    }
}

/// Accumulator (mutation) recursive flattening of a forest: see the module
/// documentation.
pub fn flatten_mutation<K, V>(
    forest: &[Node<K, V>],
    spec: &LiftSpec<K, V>,
) -> Result<Flattened<K, V>, TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let mut acc = Acc {
        groups: Vec::new(),
        next: 0,
    };
    for root in forest {
        let id = acc.next;
        acc.next += 1;
        let g = acc.open(id, spec);
        for c in &root.children {
            mut_visit(c, 1, g, 1, spec, &mut acc)?;
        }
    }
    Ok(Flattened::from_groups(acc.groups))
}

/// The accumulator threaded through [`flatten_mutation`].
struct Acc<K, V> {
    groups: Vec<Vec<Row<K, V>>>,
    next: u32,
}

impl<K: Clone, V: Clone> Acc<K, V> {
    /// Opens the group of key node `id` and returns its buffer index.
    fn open(&mut self, id: u32, spec: &LiftSpec<K, V>) -> usize {
        self.groups.push(vec![(
            0,
            spec.target.clone(),
            spec.header_value.clone(),
            id,
        )]);
        self.groups.len() - 1
    }
}

fn mut_visit<K, V>(
    node: &Node<K, V>,
    rel: u32,
    group: usize,
    level: usize,
    spec: &LiftSpec<K, V>,
    acc: &mut Acc<K, V>,
) -> Result<(), TooDeep>
where
    K: Clone + PartialEq,
    V: Clone,
{
    check(level)?;
    let id = acc.next;
    acc.next += 1;
    if node.kind == spec.target {
        acc.groups[group].push((rel, spec.reference.clone(), node.value.clone(), id));
        let g = acc.open(id, spec);
        for c in &node.children {
            mut_visit(c, 1, g, level + 1, spec, acc)?;
        }
    } else {
        acc.groups[group].push((rel, node.kind.clone(), node.value.clone(), id));
        for c in &node.children {
            mut_visit(c, rel + 1, group, level + 1, spec, acc)?;
        }
    }
    Ok(())
}
