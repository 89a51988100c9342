//! Data-parallel primitives, each with a sequential reference.
//!
//! # Why the module is shaped this way
//!
//! The paper builds every pass from a handful of array primitives (scan,
//! compress, Key, indexing) so that passes are parallel by construction.
//! Here each primitive comes as a pair: a plain sequential `_seq` function
//! that is the obviously-correct reference, and a `_par` function built on
//! rayon. The tests check every `_par` against its `_seq` on random input.
//!
//! All parallel algorithms use the same *blocked* pattern: cut the input into
//! contiguous chunks, compute a small summary per chunk in parallel, combine
//! the summaries sequentially (one entry per chunk), then finish each chunk
//! in parallel. This does O(n) work, unlike textbook tree-shaped scans, which
//! matters on a CPU with few cores. The chunk length ("grain") is chosen from
//! the input length and the thread count; the `_grain` variants take it
//! explicitly so that tests can force many chunks on small inputs.
//!
//! Two tree primitives use the pre-order layout directly:
//! [`down_sweep_par`] computes any top-down ("inherited") attribute, e.g. the
//! nearest ancestor of a kind, in one blocked pass: within a chunk a node's
//! parent is either in the chunk or is an ancestor of the chunk's first node,
//! and those ancestors (at most `depth` of them) are resolved per chunk by
//! walking up once. [`pointer_jump_par`] instead works on any parent vector,
//! in any order, in O(log depth) rounds (the classic PRAM technique).
//!
//! No `unsafe` is used: parallel writes go to disjoint `&mut` chunks, and the
//! only true scatter ([`scatter_par`]) claims destinations with atomics.

use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::tree::{FlatTree, NONE};

/// Errors of the primitives that take indices from the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrimError {
    /// An index is not smaller than the length it indexes.
    IndexOutOfRange {
        /// Position in the index vector.
        position: usize,
        /// The offending index.
        index: u32,
        /// The length indexed into.
        len: usize,
    },
    /// Two items were scattered to the same destination.
    DuplicateIndex {
        /// The destination written twice.
        index: u32,
    },
    /// The parent vector contains a cycle, so it is not a forest.
    Cycle,
}

impl std::fmt::Display for PrimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PrimError::IndexOutOfRange {
                position,
                index,
                len,
            } => write!(
                f,
                "index {index} at position {position} is out of range for length {len}"
            ),
            PrimError::DuplicateIndex { index } => {
                write!(f, "destination {index} is written more than once")
            }
            PrimError::Cycle => write!(f, "the parent vector contains a cycle"),
        }
    }
}

impl std::error::Error for PrimError {}

/// The default chunk length for an input of length `n`: about eight chunks
/// per rayon thread, and never less than 4096 items.
pub fn default_grain(n: usize) -> usize {
    let t = rayon::current_num_threads().max(1);
    n.div_ceil(t * 8).max(4096)
}

/// Splits `out` into consecutive mutable pieces of the given lengths.
pub(crate) fn split_by_lengths<'a, T>(mut out: &'a mut [T], lens: &[usize]) -> Vec<&'a mut [T]> {
    let mut pieces = Vec::with_capacity(lens.len());
    for &l in lens {
        let (a, b) = std::mem::take(&mut out).split_at_mut(l);
        pieces.push(a);
        out = b;
    }
    pieces
}

/// A vector of `len` copies of `x`, written in parallel so that its pages
/// are first touched by all threads (a plain `vec![x; len]` is one
/// sequential memset). Used to initialise outputs that chunks then
/// overwrite in place.
pub(crate) fn filled_par<T: Clone + Send + Sync>(x: T, len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    v.par_extend(rayon::iter::repeat_n(x, len));
    v
}

/// The number of set flags in every chunk of `grain` flags.
fn set_per_chunk(mask: &[bool], grain: usize) -> Vec<usize> {
    mask.par_chunks(grain)
        .map(|c| c.iter().filter(|&&b| b).count())
        .collect()
}

// ---------------------------------------------------------------- scans

/// Inclusive scan: `out[i] = xs[0] op ... op xs[i]` (sequential reference).
pub fn scan_inclusive_seq<T: Copy>(xs: &[T], op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(xs.len());
    let mut it = xs.iter();
    if let Some(&first) = it.next() {
        let mut acc = first;
        out.push(acc);
        for &x in it {
            acc = op(acc, x);
            out.push(acc);
        }
    }
    out
}

/// Exclusive scan: `out[0] = identity`, `out[i] = xs[0] op ... op xs[i-1]`
/// (sequential reference).
pub fn scan_exclusive_seq<T: Copy>(xs: &[T], identity: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(xs.len());
    let mut acc = identity;
    for &x in xs {
        out.push(acc);
        acc = op(acc, x);
    }
    out
}

fn scan_par_impl<T, F>(xs: &[T], identity: T, op: &F, grain: usize, inclusive: bool) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    let grain = grain.max(1);
    let totals: Vec<T> = xs
        .par_chunks(grain)
        .map(|c| c.iter().fold(identity, |a, &b| op(a, b)))
        .collect();
    let carries = scan_exclusive_seq(&totals, identity, op);
    let mut out = filled_par(identity, xs.len());
    out.par_chunks_mut(grain)
        .zip(xs.par_chunks(grain))
        .zip(carries.par_iter())
        .for_each(|((o, x), &carry)| {
            let mut acc = carry;
            for (o, &x) in o.iter_mut().zip(x) {
                if inclusive {
                    acc = op(acc, x);
                    *o = acc;
                } else {
                    *o = acc;
                    acc = op(acc, x);
                }
            }
        });
    out
}

/// Parallel inclusive scan. `op` must be associative with `identity` as its
/// identity element.
pub fn scan_inclusive_par<T, F>(xs: &[T], identity: T, op: F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    scan_par_impl(xs, identity, &op, default_grain(xs.len()), true)
}

/// [`scan_inclusive_par`] with an explicit chunk length.
pub fn scan_inclusive_par_grain<T, F>(xs: &[T], identity: T, op: F, grain: usize) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    scan_par_impl(xs, identity, &op, grain, true)
}

/// Parallel exclusive scan (see [`scan_exclusive_seq`]).
pub fn scan_exclusive_par<T, F>(xs: &[T], identity: T, op: F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    scan_par_impl(xs, identity, &op, default_grain(xs.len()), false)
}

/// [`scan_exclusive_par`] with an explicit chunk length.
pub fn scan_exclusive_par_grain<T, F>(xs: &[T], identity: T, op: F, grain: usize) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    scan_par_impl(xs, identity, &op, grain, false)
}

/// Segmented inclusive scan: the scan restarts at every `i` with
/// `starts[i]` (and at 0). Sequential reference.
///
/// # Panics
/// If `starts.len() != xs.len()`.
pub fn segmented_scan_inclusive_seq<T: Copy>(
    xs: &[T],
    starts: &[bool],
    op: impl Fn(T, T) -> T,
) -> Vec<T> {
    assert_eq!(xs.len(), starts.len(), "segment flags must match the input");
    let mut out: Vec<T> = Vec::with_capacity(xs.len());
    for (i, (&x, &s)) in xs.iter().zip(starts).enumerate() {
        let v = if i == 0 || s { x } else { op(out[i - 1], x) };
        out.push(v);
    }
    out
}

/// Segmented exclusive scan: `identity` at every segment start, otherwise
/// the inclusive result of the previous element. Sequential reference.
///
/// # Panics
/// If `starts.len() != xs.len()`.
pub fn segmented_scan_exclusive_seq<T: Copy>(
    xs: &[T],
    starts: &[bool],
    identity: T,
    op: impl Fn(T, T) -> T,
) -> Vec<T> {
    let inc = segmented_scan_inclusive_seq(xs, starts, op);
    (0..xs.len())
        .map(|i| {
            if i == 0 || starts[i] {
                identity
            } else {
                inc[i - 1]
            }
        })
        .collect()
}

/// Parallel segmented inclusive scan (see [`segmented_scan_inclusive_seq`]).
///
/// # Panics
/// If `starts.len() != xs.len()`.
pub fn segmented_scan_inclusive_par<T, F>(xs: &[T], starts: &[bool], identity: T, op: F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    segmented_scan_inclusive_par_grain(xs, starts, identity, op, default_grain(xs.len()))
}

/// [`segmented_scan_inclusive_par`] with an explicit chunk length.
///
/// # Panics
/// If `starts.len() != xs.len()`.
pub fn segmented_scan_inclusive_par_grain<T, F>(
    xs: &[T],
    starts: &[bool],
    identity: T,
    op: F,
    grain: usize,
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    assert_eq!(xs.len(), starts.len(), "segment flags must match the input");
    let grain = grain.max(1);
    // Summary of a chunk: (does it contain a segment start, fold since the
    // last start or since the chunk's beginning).
    let sums: Vec<(bool, T)> = xs
        .par_chunks(grain)
        .zip(starts.par_chunks(grain))
        .map(|(x, s)| {
            let mut acc = identity;
            let mut any = false;
            for (&x, &s) in x.iter().zip(s) {
                if s {
                    any = true;
                    acc = x;
                } else {
                    acc = op(acc, x);
                }
            }
            (any, acc)
        })
        .collect();
    let mut carries = Vec::with_capacity(sums.len());
    let mut carry = identity;
    for &(any, acc) in &sums {
        carries.push(carry);
        carry = if any { acc } else { op(carry, acc) };
    }
    let mut out = vec![identity; xs.len()];
    out.par_chunks_mut(grain)
        .zip(xs.par_chunks(grain).zip(starts.par_chunks(grain)))
        .zip(carries.par_iter())
        .for_each(|((o, (x, s)), &carry)| {
            let mut acc = carry;
            for ((o, &x), &s) in o.iter_mut().zip(x).zip(s) {
                acc = if s { x } else { op(acc, x) };
                *o = acc;
            }
        });
    out
}

/// Parallel segmented exclusive scan (see [`segmented_scan_exclusive_seq`]).
///
/// # Panics
/// If `starts.len() != xs.len()`.
pub fn segmented_scan_exclusive_par<T, F>(xs: &[T], starts: &[bool], identity: T, op: F) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(T, T) -> T + Sync,
{
    let inc = segmented_scan_inclusive_par(xs, starts, identity, op);
    (0..xs.len())
        .into_par_iter()
        .map(|i| {
            if i == 0 || starts[i] {
                identity
            } else {
                inc[i - 1]
            }
        })
        .collect()
}

// ---------------------------------------------------------- compaction

/// Indices `i` with `mask[i]`, ascending (APL's `⍸`). Sequential reference.
pub fn where_seq(mask: &[bool]) -> Vec<u32> {
    (0..mask.len() as u32)
        .filter(|&i| mask[i as usize])
        .collect()
}

/// Parallel [`where_seq`]: count per chunk, scan the counts, fill each
/// chunk's disjoint slice of the output.
pub fn where_par(mask: &[bool]) -> Vec<u32> {
    where_par_grain(mask, default_grain(mask.len()))
}

/// [`where_par`] with an explicit chunk length.
pub fn where_par_grain(mask: &[bool], grain: usize) -> Vec<u32> {
    let grain = grain.max(1);
    let counts = set_per_chunk(mask, grain);
    let mut out = filled_par(0u32, counts.iter().sum());
    split_by_lengths(&mut out, &counts)
        .into_par_iter()
        .zip(mask.par_chunks(grain))
        .enumerate()
        .for_each(|(c, (o, m))| {
            let base = (c * grain) as u32;
            let mut k = 0;
            for (j, &b) in m.iter().enumerate() {
                if b {
                    o[k] = base + j as u32;
                    k += 1;
                }
            }
        });
    out
}

/// Mask compaction (APL's `⌿`): the items whose mask is set, in order.
/// Sequential reference.
///
/// # Panics
/// If `mask.len() != xs.len()`.
pub fn compact_seq<T: Clone>(xs: &[T], mask: &[bool]) -> Vec<T> {
    assert_eq!(xs.len(), mask.len(), "mask must match the input");
    xs.iter()
        .zip(mask)
        .filter(|(_, &m)| m)
        .map(|(x, _)| x.clone())
        .collect()
}

/// Parallel mask compaction, the usual two passes: count the kept items
/// of every chunk, then each chunk copies its kept items into its own
/// piece of the output (no index vector, no gather).
///
/// # Panics
/// If `mask.len() != xs.len()`.
pub fn compact_par<T: Clone + Send + Sync>(xs: &[T], mask: &[bool]) -> Vec<T> {
    compact_par_grain(xs, mask, default_grain(xs.len()))
}

/// [`compact_par`] with an explicit chunk length.
///
/// # Panics
/// If `mask.len() != xs.len()`.
pub fn compact_par_grain<T: Clone + Send + Sync>(xs: &[T], mask: &[bool], grain: usize) -> Vec<T> {
    assert_eq!(xs.len(), mask.len(), "mask must match the input");
    let grain = grain.max(1);
    let counts = set_per_chunk(mask, grain);
    let total = counts.iter().sum();
    // Any item will do as the filler: every slot is overwritten.
    let Some(filler) = xs.first().filter(|_| total > 0) else {
        return Vec::new();
    };
    let mut out = filled_par(filler.clone(), total);
    split_by_lengths(&mut out, &counts)
        .into_par_iter()
        .zip(xs.par_chunks(grain).zip(mask.par_chunks(grain)))
        .for_each(|(o, (x, m))| {
            let kept = x.iter().zip(m).filter(|(_, &keep)| keep);
            for (o, (x, _)) in o.iter_mut().zip(kept) {
                *o = x.clone();
            }
        });
    out
}

// ------------------------------------------------------------ gather/scatter

/// `out[j] = src[idx[j]]` (APL's `src[idx]`). Sequential reference.
pub fn gather_seq<T: Clone>(src: &[T], idx: &[u32]) -> Result<Vec<T>, PrimError> {
    idx.iter()
        .enumerate()
        .map(|(position, &i)| {
            src.get(i as usize)
                .cloned()
                .ok_or(PrimError::IndexOutOfRange {
                    position,
                    index: i,
                    len: src.len(),
                })
        })
        .collect()
}

/// Parallel gather. On bad input it reports the *first* out-of-range
/// position, like [`gather_seq`] (a plain parallel `collect` into a
/// `Result` would report whichever failure a thread met first).
///
/// The indices are checked chunk by chunk with a plain loop per chunk;
/// rayon's per-item `position_first` cost 17 ns per index on this crate's
/// benchmark machine, four times the gather itself. Only when a bad index
/// exists is the first one searched for, sequentially.
pub fn gather_par<T: Clone + Send + Sync>(src: &[T], idx: &[u32]) -> Result<Vec<T>, PrimError> {
    let len = src.len();
    let bad = |i: &u32| *i as usize >= len;
    if idx
        .par_chunks(default_grain(idx.len()))
        .any(|c| c.iter().any(bad))
    {
        if let Some(position) = idx.iter().position(bad) {
            return Err(PrimError::IndexOutOfRange {
                position,
                index: idx[position],
                len,
            });
        }
    }
    Ok(idx.par_iter().map(|&i| src[i as usize].clone()).collect())
}

/// `out[idx[j]] = values[j]` into a vector of length `len` whose other
/// entries are `fill`. Each destination may be written at most once.
/// Sequential reference.
///
/// # Panics
/// If `values.len() != idx.len()`.
pub fn scatter_seq<T: Clone>(
    values: &[T],
    idx: &[u32],
    len: usize,
    fill: T,
) -> Result<Vec<T>, PrimError> {
    assert_eq!(values.len(), idx.len(), "one index per value");
    let mut out = vec![fill; len];
    let mut seen = vec![false; len];
    for (position, (v, &i)) in values.iter().zip(idx).enumerate() {
        let slot = i as usize;
        if slot >= len {
            return Err(PrimError::IndexOutOfRange {
                position,
                index: i,
                len,
            });
        }
        if std::mem::replace(&mut seen[slot], true) {
            return Err(PrimError::DuplicateIndex { index: i });
        }
        out[slot] = v.clone();
    }
    Ok(out)
}

/// Parallel scatter: destinations are claimed with an atomic
/// compare-and-swap (which also detects duplicates), then the output is
/// gathered. When several indices are bad, which one is reported may differ
/// from [`scatter_seq`].
///
/// # Panics
/// If `values.len() != idx.len()`.
pub fn scatter_par<T: Clone + Send + Sync>(
    values: &[T],
    idx: &[u32],
    len: usize,
    fill: T,
) -> Result<Vec<T>, PrimError> {
    assert_eq!(values.len(), idx.len(), "one index per value");
    let inverse = inverse_permutation_par(idx, len)?;
    Ok(inverse
        .par_iter()
        .map(|&s| {
            if s == NONE {
                fill.clone()
            } else {
                values[s as usize].clone()
            }
        })
        .collect())
}

/// For an injective `idx` into `0..len`, the vector `inv` with
/// `inv[idx[j]] = j` and [`NONE`] elsewhere (parallel, atomics).
pub fn inverse_permutation_par(idx: &[u32], len: usize) -> Result<Vec<u32>, PrimError> {
    let inv: Vec<AtomicU32> = (0..len)
        .into_par_iter()
        .map(|_| AtomicU32::new(NONE))
        .collect();
    idx.par_iter().enumerate().try_for_each(|(position, &i)| {
        let slot = inv.get(i as usize).ok_or(PrimError::IndexOutOfRange {
            position,
            index: i,
            len,
        })?;
        slot.compare_exchange(NONE, position as u32, Ordering::Relaxed, Ordering::Relaxed)
            .map(|_| ())
            .map_err(|_| PrimError::DuplicateIndex { index: i })
    })?;
    Ok(inv.into_par_iter().map(AtomicU32::into_inner).collect())
}

// ------------------------------------------------------------------- Key

/// The result of the Key operator (`⌸`): the distinct keys in order of first
/// appearance, and for each, the positions holding it, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups<K> {
    /// Distinct keys, in order of first appearance.
    pub keys: Vec<K>,
    /// `offsets[g]..offsets[g + 1]` is group `g`'s range in `indices`.
    pub offsets: Vec<usize>,
    /// Positions of the items, grouped, each group ascending (stable).
    pub indices: Vec<u32>,
}

impl<K> Groups<K> {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Group `g`: its key and the positions of its items.
    pub fn group(&self, g: usize) -> (&K, &[u32]) {
        (
            &self.keys[g],
            &self.indices[self.offsets[g]..self.offsets[g + 1]],
        )
    }

    /// Iterates over `(key, positions)` pairs in group order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &[u32])> + '_ {
        (0..self.len()).map(|g| self.group(g))
    }

    /// Applies `f` to every group in parallel (the `f` of `f⌸`).
    pub fn map_par<R, F>(&self, f: F) -> Vec<R>
    where
        K: Sync,
        R: Send,
        F: Fn(&K, &[u32]) -> R + Sync,
    {
        (0..self.len())
            .into_par_iter()
            .map(|g| {
                let (k, ix) = self.group(g);
                f(k, ix)
            })
            .collect()
    }
}

/// Key (`⌸`) for any hashable keys, sequential reference: a stable group-by
/// with groups in order of first appearance.
pub fn key_seq<K: Hash + Eq + Clone>(keys: &[K]) -> Groups<K> {
    let mut group_of: HashMap<&K, usize> = HashMap::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut distinct = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let g = *group_of.entry(k).or_insert_with(|| {
            distinct.push(k.clone());
            members.push(Vec::new());
            members.len() - 1
        });
        members[g].push(i as u32);
    }
    let mut offsets = vec![0];
    let mut indices = Vec::with_capacity(keys.len());
    for m in members {
        indices.extend(m);
        offsets.push(indices.len());
    }
    Groups {
        keys: distinct,
        offsets,
        indices,
    }
}

/// Parallel Key for integer keys: a parallel sort of `(key, position)`
/// pairs (stable because the position breaks ties), then the groups are
/// reordered by their first position.
pub fn key_par(keys: &[u32]) -> Groups<u32> {
    let mut pairs: Vec<u64> = keys
        .par_iter()
        .enumerate()
        .map(|(i, &k)| ((k as u64) << 32) | i as u64)
        .collect();
    pairs.par_sort_unstable();
    let starts_mask: Vec<bool> = (0..pairs.len())
        .into_par_iter()
        .map(|j| j == 0 || (pairs[j] >> 32) != (pairs[j - 1] >> 32))
        .collect();
    let starts = where_par(&starts_mask);
    // Order groups by their first position.
    let mut order: Vec<(u32, u32)> = starts
        .par_iter()
        .enumerate()
        .map(|(g, &s)| (pairs[s as usize] as u32, g as u32))
        .collect();
    order.par_sort_unstable();
    let bound = |g: usize| {
        if g + 1 < starts.len() {
            starts[g + 1] as usize
        } else {
            pairs.len()
        }
    };
    let lens: Vec<usize> = order
        .iter()
        .map(|&(_, g)| bound(g as usize) - starts[g as usize] as usize)
        .collect();
    let mut offsets = Vec::with_capacity(lens.len() + 1);
    offsets.push(0);
    for &l in &lens {
        offsets.push(offsets.last().copied().unwrap_or(0) + l);
    }
    let mut indices = vec![0u32; pairs.len()];
    split_by_lengths(&mut indices, &lens)
        .into_par_iter()
        .zip(order.par_iter())
        .for_each(|(o, &(_, g))| {
            let s = starts[g as usize] as usize;
            for (o, &p) in o.iter_mut().zip(&pairs[s..]) {
                *o = p as u32;
            }
        });
    let keys_out = order
        .iter()
        .map(|&(_, g)| (pairs[starts[g as usize] as usize] >> 32) as u32)
        .collect();
    Groups {
        keys: keys_out,
        offsets,
        indices,
    }
}

// ------------------------------------------------------- pointer jumping

/// Depth of every node and the root above it, from a parent vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jumped {
    /// Number of edges from the node up to its root.
    pub depth: Vec<u32>,
    /// The root of the node's tree.
    pub root: Vec<u32>,
    /// Rounds of pointer jumping used (0 for the sequential reference).
    pub rounds: u32,
}

fn check_parents(parent: &[u32]) -> Result<(), PrimError> {
    let n = parent.len();
    match parent.iter().position(|&p| p != NONE && p as usize >= n) {
        Some(position) => Err(PrimError::IndexOutOfRange {
            position,
            index: parent[position],
            len: n,
        }),
        None => Ok(()),
    }
}

/// Depth and root of every node of a forest given by any parent vector
/// (no order assumed). Sequential reference: walks up with memoisation.
pub fn depth_and_root_seq(parent: &[u32]) -> Result<Jumped, PrimError> {
    check_parents(parent)?;
    let n = parent.len();
    let mut depth = vec![NONE; n];
    let mut root = vec![NONE; n];
    let mut path = Vec::new();
    for start in 0..n {
        let mut v = start;
        // Climb until a node with known depth or a root; detect cycles by
        // bounding the climb.
        while depth[v] == NONE && parent[v] != NONE {
            path.push(v);
            if path.len() > n {
                return Err(PrimError::Cycle);
            }
            v = parent[v] as usize;
        }
        if depth[v] == NONE {
            depth[v] = 0;
            root[v] = v as u32;
        }
        let (mut d, r) = (depth[v], root[v]);
        while let Some(u) = path.pop() {
            d += 1;
            depth[u] = d;
            root[u] = r;
        }
    }
    Ok(Jumped {
        depth,
        root,
        rounds: 0,
    })
}

/// Parallel depth and root by pointer jumping: every node keeps a pointer
/// and a distance, and each round replaces both by those of the node pointed
/// to, doubling the distance covered, so a forest of height `h` needs
/// about `log2(h) + 1` rounds. Each round is one parallel map.
pub fn pointer_jump_par(parent: &[u32]) -> Result<Jumped, PrimError> {
    check_parents(parent)?;
    let n = parent.len();
    // Packed (pointer << 32) | distance, so one load fetches both.
    let mut cur: Vec<u64> = parent
        .par_iter()
        .enumerate()
        .map(|(i, &p)| {
            if p == NONE {
                (i as u64) << 32
            } else {
                ((p as u64) << 32) | 1
            }
        })
        .collect();
    let mut next = vec![0u64; n];
    let mut rounds = 0;
    let limit = 2 + usize::BITS - n.leading_zeros();
    loop {
        let changed = next
            .par_iter_mut()
            .zip(cur.par_iter())
            .map(|(nx, &v)| {
                let w = cur[(v >> 32) as usize];
                if w >> 32 == v >> 32 {
                    *nx = v;
                    false
                } else {
                    *nx = (w & !0xffff_ffff) | ((v as u32).wrapping_add(w as u32)) as u64;
                    true
                }
            })
            .reduce(|| false, |a, b| a || b);
        std::mem::swap(&mut cur, &mut next);
        if !changed {
            break;
        }
        rounds += 1;
        if rounds > limit {
            return Err(PrimError::Cycle);
        }
    }
    // A converged pointer must point at a real root; otherwise a cycle
    // (of power-of-two length) collapsed onto itself.
    if cur.par_iter().any(|&v| parent[(v >> 32) as usize] != NONE) {
        return Err(PrimError::Cycle);
    }
    let (depth, root) = cur
        .par_iter()
        .map(|&v| (v as u32, (v >> 32) as u32))
        .unzip();
    Ok(Jumped {
        depth,
        root,
        rounds,
    })
}

// ---------------------------------------------------- top-down sweeps

/// Computes an inherited attribute top-down, sequentially: roots get
/// `init(root)`, every other node `step(&attr[parent], parent)`.
pub fn down_sweep_seq<K, V, T, I, S>(tree: &FlatTree<K, V>, init: I, step: S) -> Vec<T>
where
    T: Clone,
    I: Fn(u32) -> T,
    S: Fn(&T, u32) -> T,
{
    let parent = tree.parent();
    let mut out: Vec<T> = Vec::with_capacity(parent.len());
    for (i, &p) in parent.iter().enumerate() {
        let v = if p == NONE {
            init(i as u32)
        } else {
            step(&out[p as usize], p)
        };
        out.push(v);
    }
    out
}

/// Parallel [`down_sweep_seq`] in one blocked pass.
///
/// Each chunk `[s, e)` first walks up from `s` to collect the strict
/// ancestors of `s` (at most `depth[s]` nodes) and computes their
/// attributes top-down; in pre-order every node of the chunk whose parent
/// lies before `s` has one of those ancestors as its parent. The chunk is
/// then swept sequentially, writing its own piece of the output in place.
/// Work is O(n + chunks * depth). `init(0)` is also called once to fill the
/// output before the sweep, so `init` should be cheap and pure.
pub fn down_sweep_par<K, V, T, I, S>(tree: &FlatTree<K, V>, init: I, step: S) -> Vec<T>
where
    K: Sync,
    V: Sync,
    T: Clone + Send + Sync,
    I: Fn(u32) -> T + Sync,
    S: Fn(&T, u32) -> T + Sync,
{
    down_sweep_par_grain(tree, init, step, default_grain(tree.len()))
}

/// [`down_sweep_par`] with an explicit chunk length.
pub fn down_sweep_par_grain<K, V, T, I, S>(
    tree: &FlatTree<K, V>,
    init: I,
    step: S,
    grain: usize,
) -> Vec<T>
where
    K: Sync,
    V: Sync,
    T: Clone + Send + Sync,
    I: Fn(u32) -> T + Sync,
    S: Fn(&T, u32) -> T + Sync,
{
    let grain = grain.max(1);
    let parent = tree.parent();
    let depth = tree.depth();
    if parent.is_empty() {
        return Vec::new();
    }
    // Every slot is overwritten below; the fill (in parallel, so that all
    // threads first-touch their pages) only makes the vector initialised,
    // and lets each chunk write its own piece in place instead of the
    // pieces being concatenated sequentially.
    let mut out = filled_par(init(0), parent.len());
    out.par_chunks_mut(grain)
        .zip(parent.par_chunks(grain))
        .enumerate()
        .for_each(|(c, (out, par))| {
            let s = c * grain;
            let table = ancestor_table(parent, depth, s, &init, &step);
            for (j, &p) in par.iter().enumerate() {
                let v = if p == NONE {
                    init((s + j) as u32)
                } else if p as usize >= s {
                    step(&out[p as usize - s], p)
                } else {
                    step(&table[depth[p as usize] as usize], p)
                };
                out[j] = v;
            }
        });
    out
}

/// Attributes of the strict ancestors of node `s`, indexed by depth.
fn ancestor_table<T: Clone>(
    parent: &[u32],
    depth: &[u32],
    s: usize,
    init: &impl Fn(u32) -> T,
    step: &impl Fn(&T, u32) -> T,
) -> Vec<T> {
    if s >= parent.len() {
        return Vec::new();
    }
    let mut chain = Vec::with_capacity(depth[s] as usize);
    let mut v = parent[s];
    while v != NONE {
        chain.push(v);
        v = parent[v as usize];
    }
    chain.reverse();
    let mut table: Vec<T> = Vec::with_capacity(chain.len());
    for (d, &a) in chain.iter().enumerate() {
        let t = if d == 0 {
            init(a)
        } else {
            step(&table[d - 1], chain[d - 1])
        };
        table.push(t);
    }
    table
}

/// Nearest strict ancestor with `mark` set, or [`NONE`]. Reference that
/// simply walks up from every node (O(n * depth)).
///
/// # Panics
/// If `mark.len() != parent.len()` or a parent index is out of range.
pub fn nearest_marked_ancestor_walk(parent: &[u32], mark: &[bool]) -> Vec<u32> {
    assert_eq!(parent.len(), mark.len(), "one mark per node");
    (0..parent.len())
        .map(|i| {
            let mut v = parent[i];
            while v != NONE && !mark[v as usize] {
                v = parent[v as usize];
            }
            v
        })
        .collect()
}

/// Nearest strict ancestor with `mark` set, or [`NONE`]: one sequential
/// forward pass over the pre-order columns.
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn nearest_marked_ancestor_seq<K, V>(tree: &FlatTree<K, V>, mark: &[bool]) -> Vec<u32> {
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    down_sweep_seq(tree, |_| NONE, |&a, p| if mark[p as usize] { p } else { a })
}

/// Parallel nearest marked strict ancestor ([`down_sweep_par`]).
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn nearest_marked_ancestor_par<K: Sync, V: Sync>(
    tree: &FlatTree<K, V>,
    mark: &[bool],
) -> Vec<u32> {
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    down_sweep_par(tree, |_| NONE, |&a, p| if mark[p as usize] { p } else { a })
}

/// Nearest marked strict ancestor by pointer jumping: works on any parent
/// vector (no pre-order needed) in O(log depth) parallel rounds. Each node
/// points at its parent; a node whose target is unmarked jumps to the
/// target's target until it reaches a marked node or a root.
pub fn nearest_marked_ancestor_jump(parent: &[u32], mark: &[bool]) -> Result<Vec<u32>, PrimError> {
    assert_eq!(parent.len(), mark.len(), "one mark per node");
    check_parents(parent)?;
    let n = parent.len();
    // ptr = candidate ancestor (NONE when exhausted); done when ptr is NONE
    // or marked.
    let mut cur: Vec<u32> = parent.to_vec();
    let mut next = vec![NONE; n];
    let limit = 2 + usize::BITS - n.leading_zeros();
    let mut rounds = 0;
    loop {
        let changed = next
            .par_iter_mut()
            .zip(cur.par_iter())
            .map(|(nx, &p)| {
                if p == NONE || mark[p as usize] {
                    *nx = p;
                    false
                } else {
                    *nx = cur[p as usize];
                    true
                }
            })
            .reduce(|| false, |a, b| a || b);
        std::mem::swap(&mut cur, &mut next);
        if !changed {
            return Ok(cur);
        }
        rounds += 1;
        if rounds > limit {
            return Err(PrimError::Cycle);
        }
    }
}

/// Nearest strict ancestor whose kind is `k` (parallel), or [`NONE`].
pub fn nearest_ancestor_of_kind_par<K, V>(tree: &FlatTree<K, V>, k: K) -> Vec<u32>
where
    K: PartialEq + Sync,
    V: Sync,
{
    let mark: Vec<bool> = tree.kind().par_iter().map(|x| *x == k).collect();
    nearest_marked_ancestor_par(tree, &mark)
}

// ------------------------------------------------------------ deletion

/// Result of deleting nodes: the new tree and, for every old row, its new
/// row or [`NONE`] when deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted<K, V> {
    /// The tree after deletion, renumbered.
    pub tree: FlatTree<K, V>,
    /// Old row -> new row, or [`NONE`].
    pub new_index: Vec<u32>,
}

/// Deletes every marked node together with its whole subtree and renumbers
/// the rest (sequential reference).
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn delete_subtrees_seq<K: Clone, V: Clone>(
    tree: &FlatTree<K, V>,
    mark: &[bool],
) -> Deleted<K, V> {
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    let dead = down_sweep_seq(tree, |r| mark[r as usize], |&d, p| d || mark[p as usize]);
    let keep: Vec<bool> = dead.iter().zip(mark).map(|(&d, &m)| !d && !m).collect();
    rebuild_seq(tree, &keep, |old, new_index| {
        let p = tree.parent()[old];
        if p == NONE {
            NONE
        } else {
            new_index[p as usize]
        }
    })
}

/// Parallel [`delete_subtrees_seq`]: a down-sweep marks deleted subtrees,
/// a scan renumbers, gathers build the new columns.
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn delete_subtrees_par<K, V>(tree: &FlatTree<K, V>, mark: &[bool]) -> Deleted<K, V>
where
    K: Clone + Send + Sync,
    V: Clone + Send + Sync,
{
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    let dead = down_sweep_par(tree, |r| mark[r as usize], |&d, p| d || mark[p as usize]);
    let keep: Vec<bool> = dead
        .par_iter()
        .zip(mark.par_iter())
        .map(|(&d, &m)| !d && !m)
        .collect();
    let new_index = renumber_par(&keep);
    let rows = where_par(&keep);
    let parent: Vec<u32> = rows
        .par_iter()
        .map(|&o| match tree.parent()[o as usize] {
            NONE => NONE,
            p => new_index[p as usize],
        })
        .collect();
    let depth = rows.par_iter().map(|&o| tree.depth()[o as usize]).collect();
    finish_par(tree, rows, depth, parent, new_index)
}

/// Deletes only the marked nodes; their children move up to the nearest
/// surviving ancestor (or become roots), depths shrink accordingly
/// (sequential reference).
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn splice_out_seq<K: Clone, V: Clone>(tree: &FlatTree<K, V>, mark: &[bool]) -> Deleted<K, V> {
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    let keep: Vec<bool> = mark.iter().map(|&m| !m).collect();
    let anc = nearest_marked_ancestor_seq(tree, &keep);
    rebuild_seq(tree, &keep, |old, new_index| match anc[old] {
        NONE => NONE,
        a => new_index[a as usize],
    })
}

/// Parallel [`splice_out_seq`]: the new parent is the nearest kept strict
/// ancestor and the new depth the number of kept strict ancestors, both
/// from one down-sweep.
///
/// # Panics
/// If `mark.len() != tree.len()`.
pub fn splice_out_par<K, V>(tree: &FlatTree<K, V>, mark: &[bool]) -> Deleted<K, V>
where
    K: Clone + Send + Sync,
    V: Clone + Send + Sync,
{
    assert_eq!(tree.len(), mark.len(), "one mark per node");
    let info: Vec<(u32, u32)> = down_sweep_par(
        tree,
        |_| (NONE, 0),
        |&(a, d), p| {
            if mark[p as usize] {
                (a, d)
            } else {
                (p, d + 1)
            }
        },
    );
    let keep: Vec<bool> = mark.par_iter().map(|&m| !m).collect();
    let new_index = renumber_par(&keep);
    let rows = where_par(&keep);
    let (depth, parent): (Vec<u32>, Vec<u32>) = rows
        .par_iter()
        .map(|&o| {
            let (a, d) = info[o as usize];
            (
                d,
                if a == NONE {
                    NONE
                } else {
                    new_index[a as usize]
                },
            )
        })
        .unzip();
    finish_par(tree, rows, depth, parent, new_index)
}

/// Old row -> new row after keeping `keep` (exclusive scan), [`NONE`] for
/// dropped rows: one two-pass blocked scan straight on the flags.
fn renumber_par(keep: &[bool]) -> Vec<u32> {
    let grain = default_grain(keep.len());
    let counts = set_per_chunk(keep, grain);
    let bases = scan_exclusive_seq(&counts, 0, |a, b| a + b);
    let mut out = filled_par(NONE, keep.len());
    out.par_chunks_mut(grain)
        .zip(keep.par_chunks(grain))
        .zip(bases.par_iter())
        .for_each(|((o, k), &base)| {
            let numbered = o.iter_mut().zip(k).filter(|(_, &k)| k);
            for (j, (o, _)) in numbered.enumerate() {
                *o = (base + j) as u32;
            }
        });
    out
}

fn finish_par<K, V>(
    tree: &FlatTree<K, V>,
    rows: Vec<u32>,
    depth: Vec<u32>,
    parent: Vec<u32>,
    new_index: Vec<u32>,
) -> Deleted<K, V>
where
    K: Clone + Send + Sync,
    V: Clone + Send + Sync,
{
    let kind = rows
        .par_iter()
        .map(|&o| tree.kind()[o as usize].clone())
        .collect();
    let value = rows
        .par_iter()
        .map(|&o| tree.value()[o as usize].clone())
        .collect();
    Deleted {
        tree: FlatTree::from_trusted(depth, kind, value, parent),
        new_index,
    }
}

fn rebuild_seq<K: Clone, V: Clone>(
    tree: &FlatTree<K, V>,
    keep: &[bool],
    new_parent: impl Fn(usize, &[u32]) -> u32,
) -> Deleted<K, V> {
    let mut new_index = vec![NONE; tree.len()];
    let (mut depth, mut kind, mut value, mut parent) = (vec![], vec![], vec![], vec![]);
    for old in 0..tree.len() {
        if !keep[old] {
            continue;
        }
        new_index[old] = depth.len() as u32;
        let p = new_parent(old, &new_index);
        depth.push(if p == NONE { 0 } else { depth[p as usize] + 1 });
        parent.push(p);
        kind.push(tree.kind()[old].clone());
        value.push(tree.value()[old].clone());
    }
    Deleted {
        tree: FlatTree::from_trusted(depth, kind, value, parent),
        new_index,
    }
}
