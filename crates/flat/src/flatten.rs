//! The column algorithm for flattening: one sequential two-pass kernel, run
//! on the whole tree ([`flatten_seq`]) or on contiguous chunks in parallel
//! ([`flatten_par`]).
//!
//! # Why the module is shaped this way
//!
//! Flattening is a stable group-by (the paper's Key) of the nodes by their
//! nearest key ancestor, with a header row per group. On a CPU with a few
//! cores it is bound by memory traffic and by the work done per node, so
//! the parallel version must do no more work than the sequential one; then
//! one thread costs what the sequential version costs and `t` threads
//! divide it by up to `t`. Both versions are therefore the *same* kernel:
//!
//! * **Pass 1** ([`count_chunk`]) walks a chunk of rows once, reading only
//!   the depth and kind columns. A small stack holds the open groups (the
//!   key nodes on the path to the current node, deepest on top): a row at
//!   depth `d` closes the groups whose key is at depth `>= d` and becomes a
//!   member of the group on top. Each key gets the next ordinal and a member
//!   count. No parent column, no per-node key column, no `n`-sized count
//!   vector: the only output is one count per key.
//! * **Combine** ([`combine`], sequential, one step per spanning group): in
//!   pre-order, a chunk's rows whose group key lies in an earlier chunk are
//!   members of the groups of the keys among the ancestors of the chunk's
//!   first row. Pass 1 finds those keys lazily, walking up the parent column
//!   only when the current one's subtree ends inside the chunk, so the walks
//!   add `O(n + chunks)` steps in all (plus, per chunk, any run of non-key
//!   ancestors right above its first row), not `O(chunks * depth)`. Their
//!   counts are added to the owning chunk's groups; the rows of each chunk
//!   that belong to such a *spanning* group form one contiguous run of the
//!   output (a *hole* in the owning chunk's range), whose position is now
//!   known. The chunks' output sizes are summed into their output ranges.
//! * **Pass 2** ([`write_chunk`]) walks the chunk again with the same stack,
//!   now holding a write cursor per open group: a key's offset is the
//!   running sum of the group sizes before it (the exclusive scan of the
//!   sizes is fused into this pass), its header and members are written
//!   straight into the chunk's own output range, and members of spanning
//!   groups go to a small per-chunk side buffer.
//! * **Patch** ([`patch_holes`]): the side buffers are copied into the holes
//!   (disjoint slices of the output, in parallel).
//!
//! Every chunk writes only its own disjoint `&mut` range (no atomics, no
//! `unsafe`), the output columns are filled in parallel before pass 2 (so
//! the first touch of their pages is spread over the threads), and nothing
//! is allocated per row. With one chunk, combine and patch have nothing to
//! do and the kernel is exactly [`flatten_seq`].
//!
//! [`flatten_par_profiled`] returns the time of every phase; `flat-bench
//! --phases` prints them.

use rayon::prelude::*;
use std::time::{Duration, Instant};

use crate::lift::{Flattened, LiftSpec};
use crate::prim::{default_grain, split_by_lengths};
use crate::tree::{FlatTree, NONE};

/// A group of the chunk's own that is open at the current row: its key
/// node is an ancestor of (or is) the rows being walked. The innermost one
/// lives in local variables of the passes; the enclosing ones wait on a
/// stack whose bottom is [`Open::NONE`].
#[derive(Debug, Clone, Copy)]
struct Open {
    /// Depth of the key node plus one; 0 for [`Open::NONE`], so that "close
    /// the groups whose key is at depth `>= d`" is `depth1 > d` and never
    /// closes the sentinel.
    depth1: u32,
    /// Pass 1: the key's ordinal in the chunk. Pass 2: the next output row
    /// of the group, relative to the chunk's output range.
    slot: u32,
    /// Pass 1: members counted so far.
    members: u32,
}

impl Open {
    /// No group of the chunk is open: members go to an outside group.
    const NONE: Open = Open {
        depth1: 0,
        slot: 0,
        members: 0,
    };
}

/// What pass 1 learns about one chunk `[start, end)`.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    start: usize,
    end: usize,
    /// Member count of each key of the chunk, by ordinal (pre-order). After
    /// [`combine`], it includes members in later chunks.
    members: Vec<u32>,
    /// The keys among the strict ancestors of `start` that the chunk
    /// reached, as `(node, depth)`, deepest first: the groups of earlier
    /// chunks this chunk can add members to.
    outside_keys: Vec<(u32, u32)>,
    /// Members of each outside key found in this chunk.
    outside_members: Vec<u32>,
    /// The chunk's own keys still open after its last row, as `(depth,
    /// ordinal)`, ascending depth: the only keys of this chunk that later
    /// chunks can add members to.
    open_at_end: Vec<(u32, u32)>,
    /// Rows of the chunk that are members of one of its own keys.
    local_members: usize,
    /// Rows this chunk contributes to the output (its keys' headers and
    /// all their members, wherever they are), set by [`combine`].
    output_rows: usize,
}

/// A run of output rows that one chunk writes into another chunk's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hole {
    /// First output row.
    dest: usize,
    /// Number of rows.
    len: usize,
    /// The chunk that wrote the rows into its side buffer.
    chunk: usize,
    /// Where they start in that side buffer.
    from: usize,
}

/// Time spent in each phase of [`flatten_par_profiled`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Phases {
    /// Pass 1: counting the members of every group (parallel).
    pub count: Duration,
    /// Combining the chunks' spanning groups and output sizes (sequential).
    pub combine: Duration,
    /// Allocating and filling the output columns (parallel).
    pub fill: Duration,
    /// Pass 2: offsets, headers and members (parallel).
    pub write: Duration,
    /// Copying the side buffers into the holes (parallel).
    pub patch: Duration,
}

impl Phases {
    /// The sum of all phases.
    pub fn total(&self) -> Duration {
        self.count + self.combine + self.fill + self.write + self.patch
    }

    /// `(name, duration)` of every phase, in order.
    pub fn named(&self) -> [(&'static str, Duration); 5] {
        [
            ("count", self.count),
            ("combine", self.combine),
            ("fill", self.fill),
            ("write", self.write),
            ("patch", self.patch),
        ]
    }
}

fn is_key<K: PartialEq>(depth: u32, kind: &K, target: &K) -> bool {
    depth == 0 || kind == target
}

/// The key ancestors of a chunk's first row, found lazily from the deepest
/// up by walking the parent column. Pass 1 asks for the next one only when
/// the current one's subtree ends inside the chunk, so over all chunks the
/// walks visit each row at most once as a closed ancestor, plus, per chunk,
/// the non-key rows between its first row's nearest key ancestor and it.
struct KeyAncestors<'t, K> {
    parent: &'t [u32],
    depth: &'t [u32],
    kind: &'t [K],
    target: &'t K,
    /// The next row to look at (`NONE` when the walk is done).
    next: u32,
}

impl<K: PartialEq> Iterator for KeyAncestors<'_, K> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        while let Some(&up) = self.parent.get(self.next as usize) {
            let a = self.next as usize;
            self.next = up;
            if is_key(self.depth[a], &self.kind[a], self.target) {
                return Some((a as u32, self.depth[a]));
            }
        }
        None
    }
}

/// Pass 1 on the rows `[start, end)`: the member count of every key.
#[inline(never)]
pub(crate) fn count_chunk<K: PartialEq, V>(
    tree: &FlatTree<K, V>,
    target: &K,
    start: usize,
    end: usize,
) -> Counted {
    let (depth, kind) = (&tree.depth()[start..end], &tree.kind()[start..end]);
    let mut ancestors = KeyAncestors {
        parent: tree.parent(),
        depth: tree.depth(),
        kind: tree.kind(),
        target,
        next: tree.parent().get(start).copied().unwrap_or(NONE),
    };
    // The outside keys reached so far; the last one is open while
    // `outside_open`.
    let mut outside_keys: Vec<(u32, u32)> = ancestors.next().into_iter().collect();
    let mut outside_members = vec![0u32; outside_keys.len()];
    let mut outside_open = !outside_keys.is_empty();
    let mut stack: Vec<Open> = Vec::new();
    let mut top = Open::NONE;
    let mut members: Vec<u32> = Vec::with_capacity((end - start) / 4);
    let mut roots = 0;
    for (&d, k) in depth.iter().zip(kind) {
        while top.depth1 > d {
            members[top.slot as usize] = top.members;
            top = stack.pop().unwrap_or(Open::NONE);
        }
        if top.depth1 != 0 {
            top.members += 1;
        } else {
            while outside_open && outside_keys.last().is_some_and(|&(_, kd)| kd >= d) {
                match ancestors.next() {
                    Some(key) => {
                        outside_keys.push(key);
                        outside_members.push(0);
                    }
                    None => outside_open = false,
                }
            }
            match outside_members.last_mut() {
                Some(m) if outside_open => *m += 1,
                _ => roots += 1,
            }
        }
        if is_key(d, k, target) {
            stack.push(top);
            top = Open {
                depth1: d + 1,
                slot: members.len() as u32,
                members: 0,
            };
            members.push(0);
        }
    }
    stack.push(top);
    let mut open_at_end = Vec::with_capacity(stack.len());
    for g in stack.into_iter().filter(|g| g.depth1 != 0) {
        open_at_end.push((g.depth1 - 1, g.slot));
        members[g.slot as usize] = g.members;
    }
    let outside_total: usize = outside_members.iter().map(|&m| m as usize).sum();
    Counted {
        start,
        end,
        local_members: (end - start) - roots - outside_total,
        members,
        outside_keys,
        outside_members,
        open_at_end,
        output_rows: 0,
    }
}

/// Adds the members that chunks find in groups of earlier chunks to those
/// groups, sets every chunk's `output_rows`, and lists the holes (with
/// `dest` relative to the owning group's first member, to be completed
/// once the group offsets are known) as `(owner chunk, key ordinal,
/// members before, hole)`.
#[inline(never)]
fn combine(chunks: &mut [Counted], grain: usize) -> Vec<(usize, u32, Hole)> {
    let mut holes = Vec::new();
    for c in 0..chunks.len() {
        let mut from = 0;
        for a in 0..chunks[c].outside_keys.len() {
            let len = chunks[c].outside_members[a];
            if len == 0 {
                continue;
            }
            let (node, d) = chunks[c].outside_keys[a];
            let owner = node as usize / grain;
            let o = &mut chunks[owner];
            // `node` is an ancestor of chunk c's first row and lies in
            // `owner`, so it is on the path to `owner`'s last row.
            let at = o
                .open_at_end
                .binary_search_by_key(&d, |&(depth, _)| depth)
                .expect("an outside key is open at the end of its chunk");
            let ordinal = o.open_at_end[at].1;
            let before = o.members[ordinal as usize];
            o.members[ordinal as usize] += len;
            o.output_rows += len as usize;
            holes.push((
                owner,
                ordinal,
                Hole {
                    dest: before as usize,
                    len: len as usize,
                    chunk: c,
                    from,
                },
            ));
            from += len as usize;
        }
    }
    for ch in chunks.iter_mut() {
        ch.output_rows += ch.members.len() + ch.local_members;
    }
    holes
}

/// The output columns of one chunk (or a side buffer): mutable slices that
/// pass 2 writes by row.
struct Columns<'a, K, V> {
    depth: &'a mut [u32],
    kind: &'a mut [K],
    value: &'a mut [V],
    origin: &'a mut [u32],
}

impl<K, V> Columns<'_, K, V> {
    fn put(&mut self, row: u32, depth: u32, kind: K, value: V, origin: u32) {
        let r = row as usize;
        self.depth[r] = depth;
        self.kind[r] = kind;
        self.value[r] = value;
        self.origin[r] = origin;
    }
}

/// Owned columns: a chunk's side buffer.
struct Rows<K, V> {
    depth: Vec<u32>,
    kind: Vec<K>,
    value: Vec<V>,
    origin: Vec<u32>,
}

impl<K: Clone, V: Clone> Rows<K, V> {
    fn filled(len: usize, kind: &K, value: &V) -> Self {
        Rows {
            depth: vec![0; len],
            kind: vec![kind.clone(); len],
            value: vec![value.clone(); len],
            origin: vec![0; len],
        }
    }

    fn columns(&mut self) -> Columns<'_, K, V> {
        Columns {
            depth: &mut self.depth,
            kind: &mut self.kind,
            value: &mut self.value,
            origin: &mut self.origin,
        }
    }
}

/// Pass 2 on one chunk: writes its headers and the members of its own
/// groups into `out` (the chunk's output range, which starts at output row
/// `base`), the group offsets into `group_start` (one per key of the
/// chunk), and the members of outside groups into the returned side buffer.
#[inline(never)]
fn write_chunk<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
    counted: &Counted,
    base: u32,
    mut out: Columns<'_, K, V>,
    group_start: &mut [u32],
) -> Rows<K, V>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let (start, end) = (counted.start, counted.end);
    let depth = &tree.depth()[start..end];
    let kind = &tree.kind()[start..end];
    let value = &tree.value()[start..end];
    let outside_total: usize = counted.outside_members.iter().map(|&m| m as usize).sum();
    let mut side = Rows::filled(outside_total, &spec.target, &spec.header_value);
    // Side-buffer cursors of the outside keys, in the order pass 1 reached
    // them; `outside` is the current one (all closed when past the end).
    let mut side_cursor: Vec<u32> = Vec::with_capacity(counted.outside_members.len());
    let mut from = 0;
    for &m in &counted.outside_members {
        side_cursor.push(from);
        from += m;
    }
    let mut outside = 0;
    let mut stack: Vec<Open> = Vec::new();
    let mut top = Open::NONE;
    let mut next_row = 0u32;
    let mut ordinal = 0;
    let mut side_cols = side.columns();
    for (j, ((&d, k), v)) in depth.iter().zip(kind).zip(value).enumerate() {
        let i = (start + j) as u32;
        while top.depth1 > d {
            top = stack.pop().unwrap_or(Open::NONE);
        }
        let key = is_key(d, k, &spec.target);
        let kind = if key {
            spec.reference.clone()
        } else {
            k.clone()
        };
        if top.depth1 != 0 {
            out.put(top.slot, d + 1 - top.depth1, kind, v.clone(), i);
            top.slot += 1;
        } else {
            while counted
                .outside_keys
                .get(outside)
                .is_some_and(|&(_, kd)| kd >= d)
            {
                outside += 1;
            }
            if let Some(&(_, kd)) = counted.outside_keys.get(outside) {
                let row = side_cursor[outside];
                side_cursor[outside] += 1;
                side_cols.put(row, d - kd, kind, v.clone(), i);
            }
        }
        if key {
            // The header is written in full: a reused output buffer holds
            // old rows, and every row is written exactly once.
            out.put(
                next_row,
                0,
                spec.target.clone(),
                spec.header_value.clone(),
                i,
            );
            group_start[ordinal] = base + next_row;
            stack.push(top);
            top = Open {
                depth1: d + 1,
                slot: next_row + 1,
                members: 0,
            };
            next_row += 1 + counted.members[ordinal];
            ordinal += 1;
        }
    }
    side
}

/// Cuts `col` into the slices named by `holes` (sorted, disjoint `(dest,
/// len)`), in order.
fn carve<'a, T>(col: &'a mut [T], holes: &[Hole]) -> Vec<&'a mut [T]> {
    let mut lens = Vec::with_capacity(2 * holes.len());
    let mut at = 0;
    for h in holes {
        lens.push(h.dest - at);
        lens.push(h.len);
        at = h.dest + h.len;
    }
    split_by_lengths(col, &lens)
        .into_iter()
        .skip(1)
        .step_by(2)
        .collect()
}

/// Copies the side buffers into their holes, in parallel.
#[inline(never)]
fn patch_holes<K, V>(out: &mut Flattened<K, V>, mut holes: Vec<Hole>, sides: &[Rows<K, V>])
where
    K: Clone + Send + Sync,
    V: Clone + Send + Sync,
{
    if holes.is_empty() {
        return;
    }
    holes.sort_unstable_by_key(|h| h.dest);
    carve(&mut out.depth, &holes)
        .into_par_iter()
        .zip(carve(&mut out.kind, &holes))
        .zip(carve(&mut out.value, &holes))
        .zip(carve(&mut out.origin, &holes))
        .zip(holes.par_iter())
        .for_each(|((((d, k), v), o), h)| {
            let s = &sides[h.chunk];
            let r = h.from..h.from + h.len;
            d.copy_from_slice(&s.depth[r.clone()]);
            k.clone_from_slice(&s.kind[r.clone()]);
            v.clone_from_slice(&s.value[r.clone()]);
            o.copy_from_slice(&s.origin[r]);
        });
}

/// Gives `col` exactly `len` elements. Existing elements are kept as they
/// are (pass 2 and the patch overwrite every row), so a reused buffer costs
/// no pass over memory; a new tail is filled with `x`.
fn set_len<T: Clone>(col: &mut Vec<T>, len: usize, x: T) {
    if col.len() >= len {
        col.truncate(len);
    } else {
        col.resize(len, x);
    }
}

/// [`set_len`], filling a new tail in parallel so that its pages are first
/// touched by all threads.
fn set_len_par<T: Clone + Send + Sync>(col: &mut Vec<T>, len: usize, x: T) {
    if col.len() >= len {
        col.truncate(len);
    } else {
        let missing = len - col.len();
        col.par_extend(rayon::iter::repeat_n(x, missing));
    }
}

/// Sizes all columns of a [`Flattened`] with `rows` rows and `keys` groups,
/// with [`set_len`] or [`set_len_par`].
macro_rules! set_lens {
    ($set:ident, $out:expr, $spec:expr, $rows:expr, $keys:expr) => {{
        $set(&mut $out.depth, $rows, 0);
        $set(&mut $out.kind, $rows, $spec.target.clone());
        $set(&mut $out.value, $rows, $spec.header_value.clone());
        $set(&mut $out.origin, $rows, 0);
        $set(&mut $out.group_start, $keys, 0);
    }};
}

fn empty<K, V>() -> Flattened<K, V> {
    Flattened {
        depth: Vec::new(),
        kind: Vec::new(),
        value: Vec::new(),
        origin: Vec::new(),
        group_start: Vec::new(),
    }
}

/// Flattening on the columns, sequentially: pass 1 and pass 2 of the
/// kernel on the whole tree (see the module documentation).
pub fn flatten_seq<K, V>(tree: &FlatTree<K, V>, spec: &LiftSpec<K, V>) -> Flattened<K, V>
where
    K: Clone + PartialEq,
    V: Clone,
{
    let mut out = empty();
    flatten_seq_into(tree, spec, &mut out);
    out
}

/// [`flatten_seq`] into `out`, reusing its buffers: whatever `out` held is
/// replaced, and when its columns are long enough nothing is allocated or
/// filled (a pass that runs again and again keeps one `out`).
pub fn flatten_seq_into<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
    out: &mut Flattened<K, V>,
) where
    K: Clone + PartialEq,
    V: Clone,
{
    let n = tree.len();
    let counted = count_chunk(tree, &spec.target, 0, n);
    let keys = counted.members.len();
    set_lens!(set_len, out, spec, keys + counted.local_members, keys);
    let cols = Columns {
        depth: &mut out.depth,
        kind: &mut out.kind,
        value: &mut out.value,
        origin: &mut out.origin,
    };
    // One chunk has no outside keys, so its side buffer stays empty.
    write_chunk(tree, spec, &counted, 0, cols, &mut out.group_start);
}

/// Flattening on the columns, in parallel: the kernel of [`flatten_seq`] on
/// chunks of [`default_grain`] rows.
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
    flatten_par_profiled(tree, spec, grain).0
}

/// [`flatten_par_grain`], also returning the time of every phase.
pub fn flatten_par_profiled<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
    grain: usize,
) -> (Flattened<K, V>, Phases)
where
    K: Clone + PartialEq + Send + Sync,
    V: Clone + Send + Sync,
{
    let mut out = empty();
    let phases = flatten_par_into(tree, spec, grain, &mut out);
    (out, phases)
}

/// [`flatten_par_grain`] into `out`, reusing its buffers like
/// [`flatten_seq_into`]; returns the time of every phase.
pub fn flatten_par_into<K, V>(
    tree: &FlatTree<K, V>,
    spec: &LiftSpec<K, V>,
    grain: usize,
    out: &mut Flattened<K, V>,
) -> Phases
where
    K: Clone + PartialEq + Send + Sync,
    V: Clone + Send + Sync,
{
    let n = tree.len();
    let g = grain.max(1);
    let mut phases = Phases::default();
    let mut clock = Instant::now();
    let mut lap = |slot: &mut Duration| {
        let now = Instant::now();
        *slot = now - clock;
        clock = now;
    };

    let mut chunks: Vec<Counted> = (0..n.div_ceil(g))
        .into_par_iter()
        .map(|c| count_chunk(tree, &spec.target, c * g, ((c + 1) * g).min(n)))
        .collect();
    lap(&mut phases.count);

    let pending = combine(&mut chunks, g);
    let row_counts: Vec<usize> = chunks.iter().map(|c| c.output_rows).collect();
    let key_counts: Vec<usize> = chunks.iter().map(|c| c.members.len()).collect();
    let mut bases = Vec::with_capacity(chunks.len());
    let mut first_key = Vec::with_capacity(chunks.len());
    let (mut rows, mut keys) = (0, 0);
    for (&r, &k) in row_counts.iter().zip(&key_counts) {
        bases.push(rows as u32);
        first_key.push(keys);
        rows += r;
        keys += k;
    }
    lap(&mut phases.combine);

    set_lens!(set_len_par, out, spec, rows, keys);
    lap(&mut phases.fill);

    let sides: Vec<Rows<K, V>> = split_by_lengths(&mut out.depth, &row_counts)
        .into_par_iter()
        .zip(split_by_lengths(&mut out.kind, &row_counts))
        .zip(split_by_lengths(&mut out.value, &row_counts))
        .zip(split_by_lengths(&mut out.origin, &row_counts))
        .zip(split_by_lengths(&mut out.group_start, &key_counts))
        .zip(chunks.par_iter().zip(&bases))
        .map(
            |(((((depth, kind), value), origin), starts), (counted, &base))| {
                let cols = Columns {
                    depth,
                    kind,
                    value,
                    origin,
                };
                write_chunk(tree, spec, counted, base, cols, starts)
            },
        )
        .collect();
    lap(&mut phases.write);

    // A hole starts after the members that precede it in its group.
    let holes: Vec<Hole> = pending
        .into_iter()
        .map(|(owner, ordinal, h)| Hole {
            dest: out.group_start[first_key[owner] + ordinal as usize] as usize + 1 + h.dest,
            ..h
        })
        .collect();
    patch_holes(out, holes, &sides);
    lap(&mut phases.patch);
    phases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::flatten_mutation;
    use rand::{Rng, SeedableRng};

    fn spec() -> LiftSpec<char, u32> {
        LiftSpec {
            target: 'E',
            reference: 'V',
            header_value: u32::MAX,
        }
    }

    fn tree(depth: Vec<u32>, kind: Vec<char>) -> FlatTree<char, u32> {
        let n = depth.len() as u32;
        FlatTree::from_columns(depth, kind, (0..n).collect()).expect("valid tree")
    }

    /// A chain of `n` nodes whose kinds repeat `pattern`.
    fn chain(n: u32, pattern: &[char]) -> FlatTree<char, u32> {
        let kind = (0..n as usize)
            .map(|i| pattern[i % pattern.len()])
            .collect();
        tree((0..n).collect(), kind)
    }

    #[test]
    fn deep_chains_in_many_chunks() {
        // All keys, alternating, and a long run of non-keys under the root.
        for pattern in [&['E'][..], &['E', 'A'], &['A']] {
            let t = chain(200_000, pattern);
            let s = spec();
            let reference = flatten_seq(&t, &s);
            for grain in [997, 65_536] {
                assert_eq!(
                    flatten_par_grain(&t, &s, grain),
                    reference,
                    "{pattern:?} {grain}"
                );
            }
        }
    }

    #[test]
    fn large_random_forests_agree_with_the_baseline() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(18);
        for round in 0..6 {
            let n = 20_000 + round * 7_000;
            let mut depth = vec![0u32];
            for _ in 1..n {
                let prev = *depth.last().expect("non-empty");
                // Mostly down or level, sometimes a long climb or a new root.
                let d = match rng.gen_range(0..10) {
                    0..=4 => (prev + 1).min(40),
                    5..=7 => prev,
                    8 => rng.gen_range(0..=prev),
                    _ => 0,
                };
                depth.push(d.max(if round % 2 == 0 { 1 } else { 0 }).min(prev + 1));
            }
            let kinds = ['E', 'A', 'V', 'P'];
            let kind = (0..n).map(|_| kinds[rng.gen_range(0..4)]).collect();
            let t = tree(depth, kind);
            let s = spec();
            let reference = flatten_seq(&t, &s);
            let forest = t.to_forest();
            assert_eq!(flatten_mutation(&forest, &s).expect("shallow"), reference);
            for grain in [1, 13, 512, 4096, n] {
                let (out, phases) = flatten_par_profiled(&t, &s, grain);
                assert_eq!(out, reference, "round {round} grain {grain}");
                assert_eq!(phases.named().len(), 5);
            }
        }
    }

    #[test]
    fn reused_buffers_are_overwritten_completely() {
        let s = spec();
        let big = chain(5_000, &['E', 'A', 'V']);
        let small = tree(vec![0, 1, 2, 1, 0, 1], vec!['E', 'A', 'E', 'V', 'A', 'E']);
        for t in [&small, &big] {
            let reference = flatten_seq(t, &s);
            // Junk of another tree, longer and shorter than needed.
            for other in [&big, &small] {
                let mut junk = flatten_seq(other, &s);
                junk.value.iter_mut().for_each(|v| *v = 7);
                flatten_seq_into(t, &s, &mut junk);
                assert_eq!(junk, reference);
                let mut junk = flatten_seq(other, &s);
                junk.kind.iter_mut().for_each(|k| *k = 'X');
                flatten_par_into(t, &s, 3, &mut junk);
                assert_eq!(junk, reference);
            }
        }
    }

    #[test]
    fn empty_and_single_node() {
        let s = spec();
        let empty: FlatTree<char, u32> = FlatTree::empty();
        assert!(flatten_seq(&empty, &s).is_empty());
        assert!(flatten_par(&empty, &s).is_empty());
        let one = tree(vec![0], vec!['A']);
        let out = flatten_par_grain(&one, &s, 1);
        assert_eq!(out, flatten_seq(&one, &s));
        assert_eq!(out.groups(), 1);
        assert_eq!(out.origin, vec![0]);
    }
}
