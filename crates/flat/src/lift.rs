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
//! * [`flatten_seq`] is the column algorithm on the parent vector, run
//!   sequentially: one pass for keys and group sizes, a scan for group
//!   offsets, one scatter pass. No recursion.
//! * [`flatten_par`] is the same algorithm made parallel with the blocked
//!   pattern of [`crate::prim`]: per chunk, keys (a down-sweep) and each
//!   node's rank within its group are computed locally; the only cross-chunk
//!   information is the member counts of the at most `depth` groups that
//!   span a chunk boundary, combined in a short sequential step; a parallel
//!   scan gives group offsets; an atomic scatter writes each row's origin
//!   and one parallel gather pass builds the other columns. Relative to
//!   `flatten_seq` it touches about 1.5x as much memory (rank and origin
//!   columns), so on one thread it is slower; it wins with more threads.
//!
//! The recursive baselines live in [`crate::baseline`].
//!
//! Roots are always group keys (the paper drops the root with `1↓` because
//! it "contains everything"), whatever their kind. Unlike raw Key, a target
//! node without children still gets its (header-only) group, so that every
//! reference row refers to an existing group; on trees where every target
//! has a child, like the paper's, the two agree.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::path::{last_match_index, parent_paths, path_matrix_seq, prefix_match, Matrix};
use crate::prim::{default_grain, key_seq, scan_exclusive_seq, split_by_lengths};
use crate::tree::{FlatTree, NONE};

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

fn is_key<K: PartialEq, V>(tree: &FlatTree<K, V>, target: &K, i: usize) -> bool {
    tree.depth()[i] == 0 || tree.kind()[i] == *target
}

/// Flattening on the columns, sequentially and without recursion.
pub fn flatten_seq<K, V>(tree: &FlatTree<K, V>, spec: &LiftSpec<K, V>) -> Flattened<K, V>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let n = tree.len();
    let (parent, depth) = (tree.parent(), tree.depth());
    let key_of = |i: usize| is_key(tree, &spec.target, i);
    // Pass 1: nearest key ancestor and group sizes.
    let mut key = vec![NONE; n];
    let mut count = vec![0u32; n];
    for i in 0..n {
        let p = parent[i];
        if p != NONE {
            let k = if key_of(p as usize) {
                p
            } else {
                key[p as usize]
            };
            key[i] = k;
            count[k as usize] += 1;
        }
    }
    // Offsets of the groups (a scan), reusing `count` as the write cursor.
    let mut group_start = Vec::new();
    let mut total = 0u32;
    for (i, c) in count.iter_mut().enumerate() {
        if key_of(i) {
            group_start.push(total);
            let size = 1 + *c;
            *c = total;
            total += size;
        }
    }
    let total = total as usize;
    let mut out = Flattened {
        depth: vec![0; total],
        kind: vec![spec.target.clone(); total],
        value: vec![spec.header_value.clone(); total],
        origin: vec![0; total],
        group_start,
    };
    // Pass 2: scatter headers and members.
    for i in 0..n {
        let me_key = key_of(i);
        if me_key {
            let h = count[i] as usize;
            out.origin[h] = i as u32;
            count[i] += 1;
        }
        let k = key[i];
        if k != NONE {
            let pos = count[k as usize] as usize;
            count[k as usize] += 1;
            out.depth[pos] = depth[i] - depth[k as usize];
            out.kind[pos] = if me_key {
                spec.reference.clone()
            } else {
                tree.kind()[i].clone()
            };
            out.value[pos] = tree.value()[i].clone();
            out.origin[pos] = i as u32;
        }
    }
    out
}

/// Flattening on the columns, in parallel (see the module documentation).
pub fn flatten_par<K, V>(tree: &FlatTree<K, V>, spec: &LiftSpec<K, V>) -> Flattened<K, V>
where
    K: Clone + PartialEq + Send + Sync,
    V: Clone + Send + Sync,
{
    flatten_par_grain(tree, spec, default_grain(tree.len()))
}

/// [`flatten_par`] with an explicit chunk length.
pub fn flatten_par_grain<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
    grain: usize,
) -> Flattened<K, V>
where
    K: Clone + PartialEq + Send + Sync,
    V: Clone + Send + Sync,
{
    let n = tree.len();
    let g = grain.max(1);
    let (parent, depth) = (tree.parent(), tree.depth());
    let key_of = |i: usize| is_key(tree, &spec.target, i);

    // Phase 1 (parallel per chunk): key, rank within the group, and member
    // counts of groups whose key lies in the chunk. Groups whose key lies
    // before the chunk are ancestors of the chunk's first node; their counts
    // are kept per depth and returned.
    let mut key = vec![NONE; n];
    let mut rank = vec![0u32; n];
    let mut count = vec![0u32; n];
    let spans: Vec<Vec<(u32, u32)>> = key
        .par_chunks_mut(g)
        .zip(rank.par_chunks_mut(g))
        .zip(count.par_chunks_mut(g))
        .enumerate()
        .map(|(c, ((kk, rr), cc))| {
            let s = c * g;
            let mut chain = Vec::new();
            let mut v = parent[s];
            while v != NONE {
                chain.push(v);
                v = parent[v as usize];
            }
            chain.reverse();
            // nearest[d]: nearest key ancestor-or-self of chain[d].
            let mut nearest: Vec<u32> = Vec::with_capacity(chain.len());
            for (d, &a) in chain.iter().enumerate() {
                let k = if key_of(a as usize) {
                    a
                } else {
                    nearest[d - 1]
                };
                nearest.push(k);
            }
            let mut outside = vec![0u32; chain.len()];
            for j in 0..kk.len() {
                let p = parent[s + j];
                if p == NONE {
                    continue;
                }
                let pu = p as usize;
                let k = if pu >= s {
                    if key_of(pu) {
                        p
                    } else {
                        kk[pu - s]
                    }
                } else {
                    nearest[depth[pu] as usize]
                };
                kk[j] = k;
                let ku = k as usize;
                if ku >= s {
                    rr[j] = cc[ku - s];
                    cc[ku - s] += 1;
                } else {
                    let d = depth[ku] as usize;
                    rr[j] = outside[d];
                    outside[d] += 1;
                }
            }
            chain
                .iter()
                .zip(&outside)
                .filter(|(_, &cnt)| cnt > 0)
                .map(|(&a, &cnt)| (a, cnt))
                .collect()
        })
        .collect();

    // Phase 2 (sequential, at most `depth` entries per chunk): members of a
    // spanning group that precede each chunk, and the groups' total sizes.
    let mut carries: Vec<Vec<u32>> = Vec::with_capacity(spans.len());
    for span in &spans {
        let mut carry = Vec::new();
        for &(k, cnt) in span {
            let d = depth[k as usize] as usize;
            if carry.len() <= d {
                carry.resize(d + 1, 0);
            }
            carry[d] = count[k as usize];
            count[k as usize] += cnt;
        }
        carries.push(carry);
    }

    // Phase 3: group offsets, by a blocked exclusive scan of the group sizes
    // done in place on `count`.
    let sums: Vec<(u32, usize)> = count
        .par_chunks(g)
        .enumerate()
        .map(|(c, cc)| {
            let s = c * g;
            cc.iter().enumerate().fold((0, 0), |(size, keys), (j, &x)| {
                if key_of(s + j) {
                    (size + 1 + x, keys + 1)
                } else {
                    (size, keys)
                }
            })
        })
        .collect();
    let sizes: Vec<u32> = sums.iter().map(|x| x.0).collect();
    let key_counts: Vec<usize> = sums.iter().map(|x| x.1).collect();
    let bases = scan_exclusive_seq(&sizes, 0u32, |a, b| a + b);
    let total = sizes.iter().sum::<u32>() as usize;
    let mut group_start = vec![0u32; key_counts.iter().sum()];
    let mut offset = count;
    offset
        .par_chunks_mut(g)
        .zip(bases.par_iter())
        .zip(split_by_lengths(&mut group_start, &key_counts))
        .enumerate()
        .for_each(|(c, ((cc, &base), starts))| {
            let s = c * g;
            let mut acc = base;
            let mut next = 0;
            for (j, x) in cc.iter_mut().enumerate() {
                let size = if key_of(s + j) {
                    starts[next] = acc;
                    next += 1;
                    1 + *x
                } else {
                    0
                };
                *x = acc;
                acc += size;
            }
        });

    // Phase 4: scatter each input row's index to its output row. The
    // destinations are distinct, so relaxed atomic stores suffice (no
    // `unsafe`); headers are recognised later by `offset[i] == row`.
    let origin: Vec<AtomicU32> = (0..total)
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    key.par_chunks(g)
        .zip(rank.par_chunks(g))
        .zip(carries.par_iter())
        .enumerate()
        .for_each(|(c, ((kk, rr), carry))| {
            let s = c * g;
            for (j, (&k, &r)) in kk.iter().zip(rr).enumerate() {
                let i = s + j;
                if key_of(i) {
                    origin[offset[i] as usize].store(i as u32, Ordering::Relaxed);
                }
                if k != NONE {
                    let ku = k as usize;
                    let before = if ku < s { carry[depth[ku] as usize] } else { 0 };
                    let pos = offset[ku] + 1 + before + r;
                    origin[pos as usize].store(i as u32, Ordering::Relaxed);
                }
            }
        });
    drop(rank);
    // Same size and alignment: collected in place, no new allocation.
    let origin: Vec<u32> = origin.into_iter().map(AtomicU32::into_inner).collect();

    // Phase 5: one parallel pass builds the other three columns, each task
    // writing its own contiguous pieces.
    let mut out = Flattened {
        depth: vec![0u32; total],
        kind: vec![spec.target.clone(); total],
        value: vec![spec.header_value.clone(); total],
        origin,
        group_start,
    };
    out.depth
        .par_chunks_mut(g)
        .zip(out.kind.par_chunks_mut(g))
        .zip(out.value.par_chunks_mut(g))
        .zip(out.origin.par_chunks(g))
        .enumerate()
        .for_each(|(c, (((dd, kk), vv), oo))| {
            let base = c * g;
            for (q, (((d, k), v), &i)) in dd.iter_mut().zip(kk).zip(vv).zip(oo).enumerate() {
                let i = i as usize;
                let me_key = key_of(i);
                if me_key && offset[i] as usize == base + q {
                    continue; // a header: already (0, target, header value)
                }
                *d = depth[i] - depth[key[i] as usize];
                *k = if me_key {
                    spec.reference.clone()
                } else {
                    tree.kind()[i].clone()
                };
                *v = tree.value()[i].clone();
            }
        });
    out
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
