//! Flat trees: node columns in depth-first pre-order.
//!
//! # Why the module is shaped this way
//!
//! The Co-dfns paper stores an AST as a matrix with one row per node in
//! depth-first pre-order and one column per field (depth, kind, value).
//! Every pass then becomes a composition of whole-column operations. This
//! module provides that representation, [`FlatTree`], plus the parent vector
//! that later Co-dfns work switched to, because most data-parallel passes
//! need "who is my parent" in O(1) and the depth vector alone cannot answer
//! that locally.
//!
//! The columns are private and a [`FlatTree`] can only be built through
//! constructors that validate the invariants, so every other module may rely
//! on them without re-checking:
//!
//! * all columns have the same length `n < u32::MAX`;
//! * `depth[0] == 0` and `depth[i + 1] <= depth[i] + 1` (pre-order);
//! * `parent[i] == NONE` exactly when `depth[i] == 0` (a forest: several
//!   roots are allowed, which is what lifting passes produce);
//! * otherwise `parent[i]` is the nearest `j < i` with `depth[j] + 1 ==
//!   depth[i]`, i.e. the columns agree with each other.
//!
//! Bad input yields a [`FlatError`] that names the offending row; nothing in
//! here panics on user data. The ordinary pointer tree [`Node`] is provided
//! for conversion and for the recursive baselines. Conversions use explicit
//! stacks and [`Node`]'s destructor is iterative, so trees of any depth
//! (10^6 levels) neither overflow the stack when built nor when dropped.

use std::fmt;

/// Sentinel index meaning "no node" (the parent of a root, a missing
/// ancestor).
pub const NONE: u32 = u32::MAX;

/// An ordinary pointer tree node: a kind, a value and owned children.
///
/// Dropping, cloning and comparing `Node`s are iterative, so very deep trees
/// can be handled without overflowing the stack (`Debug` output is
/// recursive; do not print very deep trees).
#[derive(Debug)]
pub struct Node<K, V> {
    /// The node's kind (the paper's type column, e.g. `'E'`).
    pub kind: K,
    /// The node's value (the paper's value column, e.g. a name).
    pub value: V,
    /// Children, left to right.
    pub children: Vec<Node<K, V>>,
}

impl<K, V> Node<K, V> {
    /// A node without children.
    pub fn leaf(kind: K, value: V) -> Self {
        Node {
            kind,
            value,
            children: Vec::new(),
        }
    }

    /// A node with the given children.
    pub fn new(kind: K, value: V, children: Vec<Node<K, V>>) -> Self {
        Node {
            kind,
            value,
            children,
        }
    }

    /// Number of nodes in the tree rooted here (iterative).
    pub fn size(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            count += 1;
            stack.extend(n.children.iter());
        }
        count
    }

    /// Largest node depth below this node (the root has depth 0); iterative.
    pub fn max_depth(&self) -> usize {
        let mut best = 0;
        let mut stack = vec![(self, 0usize)];
        while let Some((n, d)) = stack.pop() {
            best = best.max(d);
            stack.extend(n.children.iter().map(|c| (c, d + 1)));
        }
        best
    }
}

impl<K: Clone, V: Clone> Clone for Node<K, V> {
    fn clone(&self) -> Self {
        FlatTree::from_node(self)
            .to_node()
            .expect("a flattened node has exactly one root")
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for Node<K, V> {
    fn eq(&self, other: &Self) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            if a.kind != b.kind || a.value != b.value || a.children.len() != b.children.len() {
                return false;
            }
            stack.extend(a.children.iter().zip(&b.children));
        }
        true
    }
}

impl<K: Eq, V: Eq> Eq for Node<K, V> {}

impl<K, V> Drop for Node<K, V> {
    fn drop(&mut self) {
        // Move all descendants onto a heap stack so that dropping each one
        // only ever drops a node whose children vector is already empty.
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut n) = stack.pop() {
            stack.append(&mut n.children);
        }
    }
}

/// Why a set of columns is not a valid flat tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlatError {
    /// A column's length differs from the depth column's length.
    ColumnLength {
        /// Name of the column.
        column: &'static str,
        /// Length of the depth (or parent) column.
        expected: usize,
        /// Length found.
        found: usize,
    },
    /// More than `u32::MAX - 1` nodes.
    TooManyNodes {
        /// The number of nodes given.
        len: usize,
    },
    /// The first node is not at depth 0.
    FirstDepthNotZero {
        /// Depth found at row 0.
        depth: u32,
    },
    /// A node is more than one level deeper than its predecessor, which no
    /// pre-order traversal can produce.
    DepthJump {
        /// Row of the offending node.
        index: usize,
        /// Depth of the previous row.
        previous: u32,
        /// Depth of this row.
        depth: u32,
    },
    /// The parent column disagrees with the depth column.
    ParentMismatch {
        /// Row of the offending node.
        index: usize,
        /// The parent implied by the depth column (`None` for a root).
        expected: Option<u32>,
        /// The parent stored in the parent column (`None` for [`NONE`]).
        found: Option<u32>,
    },
    /// A parent index does not point to an earlier row.
    ParentNotBefore {
        /// Row of the offending node.
        index: usize,
        /// The parent stored for it.
        parent: u32,
    },
    /// A parent is an earlier row but not on the path from the root to the
    /// previous row, so the rows are not in depth-first pre-order.
    NotPreOrder {
        /// Row of the offending node.
        index: usize,
        /// The parent stored for it.
        parent: u32,
    },
}

impl fmt::Display for FlatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |o: &Option<u32>| match o {
            Some(p) => format!("row {p}"),
            None => "none (a root)".to_string(),
        };
        match self {
            FlatError::ColumnLength {
                column,
                expected,
                found,
            } => write!(
                f,
                "column `{column}` has {found} rows but the tree has {expected} nodes"
            ),
            FlatError::TooManyNodes { len } => write!(
                f,
                "{len} nodes do not fit 32-bit node indices (at most {} allowed)",
                u32::MAX - 1
            ),
            FlatError::FirstDepthNotZero { depth } => {
                write!(
                    f,
                    "row 0 has depth {depth}; a pre-order tree starts at depth 0"
                )
            }
            FlatError::DepthJump {
                index,
                previous,
                depth,
            } => write!(
                f,
                "row {index} has depth {depth} after a row of depth {previous}; \
                 in pre-order a node is at most one level deeper than its predecessor"
            ),
            FlatError::ParentMismatch {
                index,
                expected,
                found,
            } => write!(
                f,
                "row {index}: the parent column says {}, but the depth column implies {}",
                opt(found),
                opt(expected)
            ),
            FlatError::ParentNotBefore { index, parent } => write!(
                f,
                "row {index} has parent {parent}, which is not an earlier row"
            ),
            FlatError::NotPreOrder { index, parent } => write!(
                f,
                "row {index} has parent {parent}, which is not on the path from the root \
                 to row {}; the rows are not in depth-first pre-order",
                index - 1
            ),
        }
    }
}

impl std::error::Error for FlatError {}

/// A tree (or forest) stored as columns in depth-first pre-order.
///
/// See the [module documentation](self) for the invariants, which every
/// constructor checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatTree<K, V> {
    depth: Vec<u32>,
    kind: Vec<K>,
    value: Vec<V>,
    parent: Vec<u32>,
}

fn check_len(column: &'static str, expected: usize, found: usize) -> Result<(), FlatError> {
    if expected == found {
        Ok(())
    } else {
        Err(FlatError::ColumnLength {
            column,
            expected,
            found,
        })
    }
}

fn check_size(len: usize) -> Result<(), FlatError> {
    if len >= NONE as usize {
        Err(FlatError::TooManyNodes { len })
    } else {
        Ok(())
    }
}

/// Checks that `depth` is a valid pre-order depth vector.
pub fn validate_depth(depth: &[u32]) -> Result<(), FlatError> {
    check_size(depth.len())?;
    if let Some(&d0) = depth.first() {
        if d0 != 0 {
            return Err(FlatError::FirstDepthNotZero { depth: d0 });
        }
    }
    for (i, w) in depth.windows(2).enumerate() {
        if w[1] > w[0].saturating_add(1) {
            return Err(FlatError::DepthJump {
                index: i + 1,
                previous: w[0],
                depth: w[1],
            });
        }
    }
    Ok(())
}

/// Computes the parent vector from a valid pre-order depth vector
/// (sequentially, with a stack of the current root path).
///
/// Fails with the same errors as [`validate_depth`].
pub fn parent_from_depth(depth: &[u32]) -> Result<Vec<u32>, FlatError> {
    validate_depth(depth)?;
    let mut parent = Vec::with_capacity(depth.len());
    // path[d] = index of the last node seen at depth d.
    let mut path: Vec<u32> = Vec::new();
    for (i, &d) in depth.iter().enumerate() {
        let d = d as usize;
        path.truncate(d);
        parent.push(if d == 0 { NONE } else { path[d - 1] });
        path.push(i as u32);
    }
    Ok(parent)
}

/// Computes the depth vector from a parent vector, checking that the parent
/// vector describes a forest in depth-first pre-order.
pub fn depth_from_parent(parent: &[u32]) -> Result<Vec<u32>, FlatError> {
    check_size(parent.len())?;
    let mut depth = Vec::with_capacity(parent.len());
    let mut path: Vec<u32> = Vec::new();
    for (i, &p) in parent.iter().enumerate() {
        if p == NONE {
            path.clear();
        } else {
            if p as usize >= i {
                return Err(FlatError::ParentNotBefore {
                    index: i,
                    parent: p,
                });
            }
            // The parent of row i must be on the path to row i-1; since that
            // path is sorted by depth, depth[p] locates it directly.
            let dp = depth[p as usize] as usize;
            if path.get(dp) != Some(&p) {
                return Err(FlatError::NotPreOrder {
                    index: i,
                    parent: p,
                });
            }
            path.truncate(dp + 1);
        }
        depth.push(path.len() as u32);
        path.push(i as u32);
    }
    Ok(depth)
}

impl<K, V> FlatTree<K, V> {
    /// Builds a flat tree from depth, kind and value columns (the paper's
    /// matrix), computing the parent vector.
    pub fn from_columns(depth: Vec<u32>, kind: Vec<K>, value: Vec<V>) -> Result<Self, FlatError> {
        check_len("kind", depth.len(), kind.len())?;
        check_len("value", depth.len(), value.len())?;
        let parent = parent_from_depth(&depth)?;
        Ok(FlatTree {
            depth,
            kind,
            value,
            parent,
        })
    }

    /// Builds a flat tree from all four columns, checking that they agree.
    pub fn from_parts(
        depth: Vec<u32>,
        kind: Vec<K>,
        value: Vec<V>,
        parent: Vec<u32>,
    ) -> Result<Self, FlatError> {
        check_len("kind", depth.len(), kind.len())?;
        check_len("value", depth.len(), value.len())?;
        check_len("parent", depth.len(), parent.len())?;
        let expected = parent_from_depth(&depth)?;
        for (i, (&e, &f)) in expected.iter().zip(&parent).enumerate() {
            if e != f {
                let o = |x: u32| (x != NONE).then_some(x);
                return Err(FlatError::ParentMismatch {
                    index: i,
                    expected: o(e),
                    found: o(f),
                });
            }
        }
        Ok(FlatTree {
            depth,
            kind,
            value,
            parent,
        })
    }

    /// Builds a flat tree from a parent vector (the representation later
    /// Co-dfns work uses), computing the depth vector.
    pub fn from_parent(parent: Vec<u32>, kind: Vec<K>, value: Vec<V>) -> Result<Self, FlatError> {
        check_len("kind", parent.len(), kind.len())?;
        check_len("value", parent.len(), value.len())?;
        let depth = depth_from_parent(&parent)?;
        Ok(FlatTree {
            depth,
            kind,
            value,
            parent,
        })
    }

    /// The empty forest.
    pub fn empty() -> Self {
        FlatTree {
            depth: Vec::new(),
            kind: Vec::new(),
            value: Vec::new(),
            parent: Vec::new(),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.depth.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.depth.is_empty()
    }

    /// The depth column (roots have depth 0).
    pub fn depth(&self) -> &[u32] {
        &self.depth
    }

    /// The kind column.
    pub fn kind(&self) -> &[K] {
        &self.kind
    }

    /// The value column.
    pub fn value(&self) -> &[V] {
        &self.value
    }

    /// The parent vector ([`NONE`] for roots).
    pub fn parent(&self) -> &[u32] {
        &self.parent
    }

    /// Largest depth, or `None` for the empty forest.
    pub fn max_depth(&self) -> Option<u32> {
        self.depth.iter().copied().max()
    }

    /// Indices of the roots (rows at depth 0).
    pub fn roots(&self) -> Vec<u32> {
        (0..self.len() as u32)
            .filter(|&i| self.depth[i as usize] == 0)
            .collect()
    }

    /// Number of nodes in the subtree rooted at each node (sequential, one
    /// backward pass).
    pub fn subtree_sizes(&self) -> Vec<u32> {
        let mut size = vec![1u32; self.len()];
        for i in (0..self.len()).rev() {
            let p = self.parent[i];
            if p != NONE {
                size[p as usize] += size[i];
            }
        }
        size
    }

    /// Takes the columns apart: `(depth, kind, value, parent)`.
    pub fn into_parts(self) -> (Vec<u32>, Vec<K>, Vec<V>, Vec<u32>) {
        (self.depth, self.kind, self.value, self.parent)
    }

    /// Builds a tree from columns the caller guarantees to be consistent.
    /// Only used inside the crate by passes whose output is valid by
    /// construction (and checked in debug builds).
    pub(crate) fn from_trusted(
        depth: Vec<u32>,
        kind: Vec<K>,
        value: Vec<V>,
        parent: Vec<u32>,
    ) -> Self {
        debug_assert_eq!(parent_from_depth(&depth).as_deref(), Ok(&parent[..]));
        FlatTree {
            depth,
            kind,
            value,
            parent,
        }
    }
}

impl<K: Clone, V: Clone> FlatTree<K, V> {
    /// Flattens a pointer tree (explicit stack, any depth).
    pub fn from_node(root: &Node<K, V>) -> Self {
        Self::from_forest(std::slice::from_ref(root))
    }

    /// Flattens a forest of pointer trees, roots in order.
    pub fn from_forest(roots: &[Node<K, V>]) -> Self {
        let mut t = FlatTree::empty();
        let mut stack: Vec<(&Node<K, V>, u32, u32)> =
            roots.iter().rev().map(|r| (r, 0, NONE)).collect();
        while let Some((n, d, p)) = stack.pop() {
            let me = t.depth.len() as u32;
            t.depth.push(d);
            t.kind.push(n.kind.clone());
            t.value.push(n.value.clone());
            t.parent.push(p);
            stack.extend(n.children.iter().rev().map(|c| (c, d + 1, me)));
        }
        assert!(t.len() < NONE as usize, "forest too large for u32 indices");
        t
    }

    /// Rebuilds the pointer forest (one backward pass, no recursion).
    pub fn to_forest(&self) -> Vec<Node<K, V>> {
        let n = self.len();
        // pending[i] collects the children of i, right to left.
        let mut pending: Vec<Vec<Node<K, V>>> = (0..n).map(|_| Vec::new()).collect();
        let mut roots = Vec::new();
        for i in (0..n).rev() {
            let mut children = std::mem::take(&mut pending[i]);
            children.reverse();
            let node = Node::new(self.kind[i].clone(), self.value[i].clone(), children);
            match self.parent[i] {
                NONE => roots.push(node),
                p => pending[p as usize].push(node),
            }
        }
        roots.reverse();
        roots
    }

    /// Rebuilds the pointer tree when there is exactly one root.
    pub fn to_node(&self) -> Option<Node<K, V>> {
        let mut f = self.to_forest();
        if f.len() == 1 {
            f.pop()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Node<char, u32> {
        Node::new(
            'F',
            0,
            vec![
                Node::new('E', 1, vec![Node::leaf('V', 2), Node::leaf('P', 3)]),
                Node::leaf('N', 4),
            ],
        )
    }

    #[test]
    fn round_trip() {
        let t = FlatTree::from_node(&sample());
        assert_eq!(t.depth(), &[0, 1, 2, 2, 1]);
        assert_eq!(t.parent(), &[NONE, 0, 1, 1, 0]);
        assert_eq!(t.kind(), &['F', 'E', 'V', 'P', 'N']);
        assert_eq!(t.subtree_sizes(), vec![5, 3, 1, 1, 1]);
        assert_eq!(t.to_node().unwrap(), sample());
        let t2 = FlatTree::from_parent(t.parent().to_vec(), t.kind().to_vec(), t.value().to_vec());
        assert_eq!(t2.as_ref(), Ok(&t));
    }

    #[test]
    fn errors() {
        assert_eq!(
            FlatTree::from_columns(vec![1], vec!['a'], vec![()]),
            Err(FlatError::FirstDepthNotZero { depth: 1 })
        );
        assert_eq!(
            FlatTree::from_columns(vec![0, 2], vec!['a', 'b'], vec![(), ()]),
            Err(FlatError::DepthJump {
                index: 1,
                previous: 0,
                depth: 2
            })
        );
        assert!(matches!(
            FlatTree::from_columns(vec![0, 1], vec!['a'], vec![(), ()]),
            Err(FlatError::ColumnLength { column: "kind", .. })
        ));
        assert!(matches!(
            FlatTree::from_parts(vec![0, 1, 1], vec!['a'; 3], vec![(); 3], vec![NONE, 0, 1]),
            Err(FlatError::ParentMismatch {
                index: 2,
                expected: Some(0),
                found: Some(1)
            })
        ));
        assert_eq!(
            FlatTree::from_parent(vec![NONE, 2, 0], vec!['a'; 3], vec![(); 3]),
            Err(FlatError::ParentNotBefore {
                index: 1,
                parent: 2
            })
        );
        // 0 -> 1 -> 2, then 3 claims parent 1 (fine), 4 claims parent 2 (closed).
        let e = FlatTree::from_parent(vec![NONE, 0, 1, 1, 2], vec!['a'; 5], vec![(); 5]);
        assert_eq!(
            e,
            Err(FlatError::NotPreOrder {
                index: 4,
                parent: 2
            })
        );
        let msg = e.unwrap_err().to_string();
        assert!(msg.contains("pre-order"), "{msg}");
    }

    #[test]
    fn deep_tree_does_not_overflow() {
        let n = 200_000u32;
        let t: FlatTree<u8, ()> =
            FlatTree::from_columns((0..n).collect(), vec![0; n as usize], vec![(); n as usize])
                .unwrap();
        let node = t.to_node().unwrap();
        assert_eq!(node.size(), n as usize);
        assert_eq!(node.max_depth(), n as usize - 1);
        let back = FlatTree::from_node(&node);
        assert_eq!(back, t);
        let copy = node.clone();
        assert!(copy == node);
        drop(node);
    }

    #[test]
    fn forest() {
        let t = FlatTree::from_columns(vec![0, 1, 0, 0, 1], vec![1u8; 5], vec![(); 5]).unwrap();
        assert_eq!(t.roots(), vec![0, 2, 3]);
        let f = t.to_forest();
        assert_eq!(f.len(), 3);
        assert_eq!(FlatTree::from_forest(&f), t);
    }
}
