//! Function lifting and expression flattening (the paper's Section 4).
//!
//! # Why the module is shaped this way
//!
//! Both passes are the same transformation with a different *target* kind
//! (`'F'` for lifting, `'E'` for flattening): every target node becomes the
//! root of its own group, holding the nodes for which it is the nearest
//! target ancestor; inside the group the target node itself is replaced by a
//! reference node. The paper phrases this as
//! `(1↓Fk)(hd, dp, rf, 2↓∘1↓)⌸ 1↓Fast`: compute each node's key (the path of
//! its nearest target ancestor), group with Key, prepend a header row,
//! re-base depths and turn nested targets into references.
//!
//! Three implementations share one output type, [`Flattened`]:
//!
//! * [`lift_paper`] follows the paper step by step on path vectors (path
//!   matrix, `∧.(=∨0=⊢)` inner product, `⌈.×`, Key). It exists to reproduce
//!   the paper's printed tables and costs `O(N·D + N·T)`.
//! * [`flatten_seq`] and [`flatten_par`] are the column algorithm (in
//!   [`crate::flatten`], re-exported here): one sequential two-pass kernel
//!   (count the members of every group with a stack of open groups, then
//!   write headers and members at their offsets), run on the whole tree or
//!   on contiguous chunks in parallel. The parallel version does the same
//!   work plus `O(chunks * depth)`, so it scales with the cores.
//!
//! The recursive baselines live in [`crate::baseline`].
//!
//! Roots are always group keys (the paper drops the root with `1↓` because
//! it "contains everything"), whatever their kind. Unlike raw Key, a target
//! node without children still gets its (header-only) group, so that every
//! reference row refers to an existing group; on trees where every target
//! has a child, like the paper's, the two agree.

use crate::path::{last_match_index, parent_paths, path_matrix_seq, prefix_match, Matrix};
use crate::prim::key_seq;
use crate::tree::FlatTree;

pub use crate::flatten::{
    flatten_par, flatten_par_grain, flatten_par_into, flatten_par_profiled, flatten_seq,
    flatten_seq_into, Phases,
};

/// What to lift and how to write the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiftSpec<K, V> {
    /// The kind of the nodes to lift (`'F'` or `'E'` in the paper); it is
    /// also the kind of each group's header row.
    pub target: K,
    /// The kind that lifted nodes get where they used to be (`'V'`).
    pub reference: K,
    /// The value of each header row (the paper uses 0).
    pub header_value: V,
}

/// One output row: `(depth, kind, value, origin)`.
pub type Row<K, V> = (u32, K, V, u32);

/// The result of lifting: a forest of groups, one per key node, stored as
/// columns. Each group starts with a header row at depth 0.
///
/// `origin[r]` is the input row a row came from: for a header, the key node
/// (so it names the group, as the paper's path vector does); for a reference
/// row, the lifted node, which is also the key of the group it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flattened<K, V> {
    /// Depth within the group (0 for headers).
    pub depth: Vec<u32>,
    /// Kind (headers have the target kind, lifted nodes the reference kind).
    pub kind: Vec<K>,
    /// Value.
    pub value: Vec<V>,
    /// Input row of origin.
    pub origin: Vec<u32>,
    /// Row where each group starts, ascending.
    pub group_start: Vec<u32>,
}

impl<K: Clone, V: Clone> Flattened<K, V> {
    /// Builds the columns from groups of rows.
    pub fn from_groups(groups: Vec<Vec<Row<K, V>>>) -> Self {
        let total = groups.iter().map(Vec::len).sum();
        let mut f = Flattened {
            depth: Vec::with_capacity(total),
            kind: Vec::with_capacity(total),
            value: Vec::with_capacity(total),
            origin: Vec::with_capacity(total),
            group_start: Vec::with_capacity(groups.len()),
        };
        for g in groups {
            f.group_start.push(f.depth.len() as u32);
            for (d, k, v, o) in g {
                f.depth.push(d);
                f.kind.push(k);
                f.value.push(v);
                f.origin.push(o);
            }
        }
        f
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.depth.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.depth.is_empty()
    }

    /// Number of groups.
    pub fn groups(&self) -> usize {
        self.group_start.len()
    }

    /// The rows of group `g`.
    pub fn group_rows(&self, g: usize) -> std::ops::Range<usize> {
        let s = self.group_start[g] as usize;
        let e = self
            .group_start
            .get(g + 1)
            .map_or(self.len(), |&e| e as usize);
        s..e
    }

    /// The rows of group `g` as tuples.
    pub fn group(&self, g: usize) -> Vec<Row<K, V>> {
        self.group_rows(g)
            .map(|r| {
                (
                    self.depth[r],
                    self.kind[r].clone(),
                    self.value[r].clone(),
                    self.origin[r],
                )
            })
            .collect()
    }

    /// All groups as tuples.
    pub fn to_groups(&self) -> Vec<Vec<Row<K, V>>> {
        (0..self.groups()).map(|g| self.group(g)).collect()
    }

    /// The groups in reverse order (the paper's `⊖`, used by expression
    /// flattening so that right-to-left evaluation order is kept).
    pub fn reverse_groups(&self) -> Self {
        let mut gs = self.to_groups();
        gs.reverse();
        Flattened::from_groups(gs)
    }

    /// Drops header-only groups (what raw Key would not produce).
    pub fn without_empty_groups(&self) -> Self {
        Flattened::from_groups(
            self.to_groups()
                .into_iter()
                .filter(|g| g.len() > 1)
                .collect(),
        )
    }

    /// The result as a flat forest (every group is a tree) plus the origin
    /// column.
    pub fn into_forest(self) -> (FlatTree<K, V>, Vec<u32>) {
        let tree = FlatTree::from_columns(self.depth, self.kind, self.value)
            .expect("lifting produces a valid pre-order forest");
        (tree, self.origin)
    }
}

/// A row of the paper's lifted tables: depth, kind, value and path vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperRow<K, V> {
    /// Depth within the lifted group.
    pub depth: u32,
    /// Kind.
    pub kind: K,
    /// Value.
    pub value: V,
    /// Path vector (the header carries the key's path).
    pub path: Vec<u32>,
}

/// Why [`lift_paper`] cannot run: the paper's formulation assumes a single
/// tree whose root has the target kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaperAssumption {
    /// The input is empty or has more than one root.
    NotOneTree,
    /// The root's kind is not the target kind.
    RootNotTarget,
}

/// The intermediate results of the paper's key computation (Section 3.2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperKeys {
    /// `Fc`: the path matrix.
    pub paths: Matrix<u32>,
    /// `Fp ← ('F'=Ft)⌿Fc`: paths of the target nodes.
    pub target_paths: Matrix<u32>,
    /// `Fcp`: the paths with their last entry removed.
    pub parent_paths: Matrix<u32>,
    /// `Fcp ∧.(=∨0=⊢) ⍉Fp`: which target paths prefix each parent path.
    pub matches: Matrix<bool>,
    /// `Fi ← matches ⌈.× ⍳≢Fp`: row in `Fp` of the nearest target ancestor.
    pub nearest: Vec<u32>,
    /// `Fk ← Fp[Fi;]`: the key (path of the nearest target ancestor).
    pub keys: Matrix<u32>,
}

/// Computes the paper's keys for target kind `target`, step by step.
pub fn paper_keys<K: PartialEq, V>(
    tree: &FlatTree<K, V>,
    target: &K,
) -> Result<PaperKeys, PaperAssumption> {
    if tree.is_empty() || tree.depth().iter().skip(1).any(|&d| d == 0) {
        return Err(PaperAssumption::NotOneTree);
    }
    if tree.kind()[0] != *target {
        return Err(PaperAssumption::RootNotTarget);
    }
    let depth = tree.depth();
    let paths = path_matrix_seq(depth);
    let mask: Vec<bool> = tree.kind().iter().map(|k| k == target).collect();
    let target_paths = paths.select_rows(&mask);
    let parent_paths = parent_paths(&paths, depth);
    let matches = prefix_match(&parent_paths, &target_paths);
    let nearest = last_match_index(&matches);
    let keys = target_paths.take_rows(&nearest);
    Ok(PaperKeys {
        paths,
        target_paths,
        parent_paths,
        matches,
        nearest,
        keys,
    })
}

/// Lifting exactly as the paper writes it:
/// `(1↓Fk)(hd, dp, rf, 2↓∘1↓)⌸ 1↓Fast`, with groups in Key's order of first
/// appearance. Each group is a header `(0, target, header_value, key)`
/// followed by the members with depth `1 + d - d[first]`, targets replaced by
/// the reference kind, and their own path vectors.
pub fn lift_paper<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
) -> Result<Vec<Vec<PaperRow<K, V>>>, PaperAssumption>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let pk = paper_keys(tree, &spec.target)?;
    let keys: Vec<Vec<u32>> = pk.keys.drop_first_row().to_rows();
    let groups = key_seq(&keys);
    Ok(groups
        .iter()
        .map(|(key, members)| {
            let first = members[0] as usize + 1;
            let mut rows = vec![PaperRow {
                depth: 0,
                kind: spec.target.clone(),
                value: spec.header_value.clone(),
                path: key.clone(),
            }];
            rows.extend(members.iter().map(|&m| {
                let i = m as usize + 1;
                PaperRow {
                    depth: 1 + tree.depth()[i] - tree.depth()[first],
                    kind: if tree.kind()[i] == spec.target {
                        spec.reference.clone()
                    } else {
                        tree.kind()[i].clone()
                    },
                    value: tree.value()[i].clone(),
                    path: pk.paths.row(i).to_vec(),
                }
            }));
            rows
        })
        .collect())
}
