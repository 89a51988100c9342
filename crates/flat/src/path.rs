//! The paper's path matrix and its optimized ancestor-index variant.
//!
//! # Why the module is shaped this way
//!
//! Section 3.2 of the paper builds, from the depth vector alone, an `N x D`
//! matrix whose row `i` is a *path vector* identifying node `i`: paths are
//! unique, ordered like the pre-order, and an ancestor's path is a prefix of
//! its descendants' paths (ignoring zero padding). The construction is a
//! composition of outer products and a scan:
//!
//! ```text
//! Fb ← Fd ∘.= ⍳1+⌈/Fd        ⍝ depth_table
//! Fm ← Fd ∘.≥ ⍳1+⌈/Fd        ⍝ depth_mask(false)
//! Fc ← Fm × +⍀Fb             ⍝ path_matrix_seq
//! ```
//!
//! The sequential functions here follow those steps literally (one function
//! per APL expression), so that tests can compare every intermediate matrix
//! with the paper's printed tables. [`path_matrix_par`] computes the same
//! matrix in one blocked parallel pass: a chunk's summary is its vector of
//! per-depth counts, so the scan over rows becomes a scan over per-chunk
//! vectors.
//!
//! Section 6's optimized variant replaces `+⍀` by a max-scan of row indices,
//! `Fm × ⌈⍀ Fb × ⍳N`, so every non-padding entry is the row index of the
//! ancestor at that depth ([`ancestor_matrix_seq`], [`ancestor_matrix_par`]).
//! The nearest ancestor of kind `t` is then `⌈/ C × t = T[C]`
//! ([`nearest_of_kind`]) instead of the general inner product
//! `∧.(=∨0=⊢)` ([`prefix_match`]). Both variants cost `N x D` memory, which
//! is why later Co-dfns work (and [`crate::prim`]) uses a parent vector.

use rayon::prelude::*;

use crate::prim::default_grain;

/// A dense row-major matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix<T> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

impl<T: Clone> Matrix<T> {
    /// A matrix from row-major data.
    ///
    /// # Panics
    /// If `data.len() != rows * cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<T>) -> Self {
        assert_eq!(data.len(), rows * cols, "matrix data has the wrong length");
        Matrix { rows, cols, data }
    }

    /// A matrix from a list of equally long rows (`cols` is needed for the
    /// case of no rows).
    ///
    /// # Panics
    /// If a row's length differs from `cols`.
    pub fn from_rows(cols: usize, rows: &[Vec<T>]) -> Self {
        let mut data = Vec::with_capacity(rows.len() * cols);
        for r in rows {
            assert_eq!(r.len(), cols, "ragged rows");
            data.extend(r.iter().cloned());
        }
        Matrix {
            rows: rows.len(),
            cols,
            data,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> &T {
        &self.data[i * self.cols + j]
    }

    /// The rows as vectors.
    pub fn to_rows(&self) -> Vec<Vec<T>> {
        (0..self.rows).map(|i| self.row(i).to_vec()).collect()
    }

    /// Row-major data.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// `mask ⌿ M`: the rows whose mask is set.
    ///
    /// # Panics
    /// If `mask.len() != self.rows()`.
    pub fn select_rows(&self, mask: &[bool]) -> Self {
        assert_eq!(mask.len(), self.rows, "one mask bit per row");
        let mut data = Vec::new();
        let mut rows = 0;
        for (i, &m) in mask.iter().enumerate() {
            if m {
                data.extend_from_slice(self.row(i));
                rows += 1;
            }
        }
        Matrix {
            rows,
            cols: self.cols,
            data,
        }
    }

    /// `M[idx;]`: the rows at the given indices.
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn take_rows(&self, idx: &[u32]) -> Self {
        let mut data = Vec::with_capacity(idx.len() * self.cols);
        for &i in idx {
            data.extend_from_slice(self.row(i as usize));
        }
        Matrix {
            rows: idx.len(),
            cols: self.cols,
            data,
        }
    }

    /// `1↓M`: drops the first row (no-op on an empty matrix).
    pub fn drop_first_row(&self) -> Self {
        if self.rows == 0 {
            return self.clone();
        }
        Matrix {
            rows: self.rows - 1,
            cols: self.cols,
            data: self.data[self.cols..].to_vec(),
        }
    }
}

/// `1+⌈/d`: the number of columns of the path matrix (0 for no nodes).
pub fn depth_count(depth: &[u32]) -> usize {
    depth.iter().max().map_or(0, |&m| m as usize + 1)
}

/// `d ∘.= ⍳1+⌈/d`: one-hot encoding of the depth vector (the paper's `Fb`).
pub fn depth_table(depth: &[u32]) -> Matrix<u32> {
    let cols = depth_count(depth);
    let data = depth
        .iter()
        .flat_map(|&d| (0..cols).map(move |j| (d as usize == j) as u32))
        .collect();
    Matrix::new(depth.len(), cols, data)
}

/// `d ∘.≥ ⍳1+⌈/d` (or `∘.>` when `strict`): the mask of the path columns
/// that belong to each node (the paper's `Fm`; with `strict`, the mask that
/// also drops the node's own last entry, used for `Fcp`).
pub fn depth_mask(depth: &[u32], strict: bool) -> Matrix<u32> {
    let cols = depth_count(depth);
    let data = depth
        .iter()
        .flat_map(|&d| {
            (0..cols).map(move |j| {
                let j = j as u32;
                (if strict { d > j } else { d >= j }) as u32
            })
        })
        .collect();
    Matrix::new(depth.len(), cols, data)
}

/// `+⍀M`: running sums down each column.
pub fn scan_columns(m: &Matrix<u32>) -> Matrix<u32> {
    let mut data = m.data.clone();
    for i in 1..m.rows {
        for j in 0..m.cols {
            data[i * m.cols + j] += data[(i - 1) * m.cols + j];
        }
    }
    Matrix::new(m.rows, m.cols, data)
}

/// `⌈⍀M`: running maxima down each column.
pub fn max_scan_columns(m: &Matrix<u32>) -> Matrix<u32> {
    let mut data = m.data.clone();
    for i in 1..m.rows {
        for j in 0..m.cols {
            let above = data[(i - 1) * m.cols + j];
            let here = &mut data[i * m.cols + j];
            *here = (*here).max(above);
        }
    }
    Matrix::new(m.rows, m.cols, data)
}

/// `A × B`, point-wise.
///
/// # Panics
/// If the shapes differ.
pub fn times(a: &Matrix<u32>, b: &Matrix<u32>) -> Matrix<u32> {
    assert_eq!((a.rows, a.cols), (b.rows, b.cols), "shape mismatch");
    let data = a.data.iter().zip(&b.data).map(|(x, y)| x * y).collect();
    Matrix::new(a.rows, a.cols, data)
}

/// The path matrix `Fc ← (d∘.≥⍳D) × +⍀ d∘.=⍳D`, computed literally as in
/// the paper (sequential).
pub fn path_matrix_seq(depth: &[u32]) -> Matrix<u32> {
    times(
        &depth_mask(depth, false),
        &scan_columns(&depth_table(depth)),
    )
}

/// The paper's `Fcp ← Fc × d∘.>⍳D`: each path with its own last entry
/// removed, i.e. the path of the node's parent.
pub fn parent_paths(paths: &Matrix<u32>, depth: &[u32]) -> Matrix<u32> {
    times(paths, &depth_mask(depth, true))
}

/// The optimized ancestor-index path matrix `(d∘.≥⍳D) × ⌈⍀ (d∘.=⍳D) × ⍳N`:
/// entry `(i, j)` for `j <= depth[i]` is the row of `i`'s ancestor at depth
/// `j` (so entry `depth[i]` is `i` itself); the rest is 0 (sequential,
/// literal).
pub fn ancestor_matrix_seq(depth: &[u32]) -> Matrix<u32> {
    let b = depth_table(depth);
    let cols = b.cols;
    let weighted: Vec<u32> = b
        .data
        .iter()
        .enumerate()
        .map(|(k, &x)| x * (k / cols.max(1)) as u32)
        .collect();
    let weighted = Matrix::new(b.rows, cols, weighted);
    times(&depth_mask(depth, false), &max_scan_columns(&weighted))
}

/// Shared blocked kernel: per row `i` of depth `d`, `acc[d] = op(acc[d],
/// value(i))`; the row is `acc` masked to columns `<= d` (or `< d` when
/// `strict`).
fn depth_scan_par(
    depth: &[u32],
    strict: bool,
    value: impl Fn(usize) -> u32 + Sync,
    op: impl Fn(u32, u32) -> u32 + Sync,
    grain: usize,
) -> Matrix<u32> {
    let cols = depth_count(depth);
    let grain = grain.max(1);
    let summaries: Vec<Vec<u32>> = depth
        .par_chunks(grain)
        .enumerate()
        .map(|(c, ds)| {
            let mut acc = vec![0u32; cols];
            for (j, &d) in ds.iter().enumerate() {
                acc[d as usize] = op(acc[d as usize], value(c * grain + j));
            }
            acc
        })
        .collect();
    let mut carries = Vec::with_capacity(summaries.len());
    let mut carry = vec![0u32; cols];
    for s in &summaries {
        carries.push(carry.clone());
        for (c, &x) in carry.iter_mut().zip(s) {
            *c = op(*c, x);
        }
    }
    let mut data = vec![0u32; depth.len() * cols];
    if cols > 0 {
        data.par_chunks_mut(grain * cols)
            .zip(depth.par_chunks(grain))
            .zip(carries.into_par_iter())
            .enumerate()
            .for_each(|(c, ((out, ds), mut acc))| {
                for (j, (&d, row)) in ds.iter().zip(out.chunks_mut(cols)).enumerate() {
                    let d = d as usize;
                    acc[d] = op(acc[d], value(c * grain + j));
                    let keep = if strict { d } else { d + 1 };
                    row[..keep].copy_from_slice(&acc[..keep]);
                }
            });
    }
    Matrix::new(depth.len(), cols, data)
}

/// Parallel [`path_matrix_seq`] (one blocked pass; same result).
pub fn path_matrix_par(depth: &[u32]) -> Matrix<u32> {
    path_matrix_par_grain(depth, default_grain(depth.len()))
}

/// [`path_matrix_par`] with an explicit chunk length.
pub fn path_matrix_par_grain(depth: &[u32], grain: usize) -> Matrix<u32> {
    depth_scan_par(depth, false, |_| 1, |a, b| a + b, grain)
}

/// Parallel [`ancestor_matrix_seq`] (one blocked pass; same result).
pub fn ancestor_matrix_par(depth: &[u32]) -> Matrix<u32> {
    ancestor_matrix_par_grain(depth, default_grain(depth.len()))
}

/// [`ancestor_matrix_par`] with an explicit chunk length.
pub fn ancestor_matrix_par_grain(depth: &[u32], grain: usize) -> Matrix<u32> {
    depth_scan_par(depth, false, |i| i as u32, |a, b| a.max(b), grain)
}

/// `C ∧.(=∨0=⊢) ⍉P`: entry `(i, j)` says whether path `P[j]` is a prefix of
/// path `C[i]`, ignoring `P[j]`'s zero padding.
///
/// # Panics
/// If the column counts differ.
pub fn prefix_match(c: &Matrix<u32>, p: &Matrix<u32>) -> Matrix<bool> {
    assert_eq!(c.cols, p.cols, "paths of different lengths");
    let data: Vec<bool> = (0..c.rows)
        .into_par_iter()
        .flat_map_iter(|i| {
            let ci = c.row(i);
            (0..p.rows).map(move |j| ci.iter().zip(p.row(j)).all(|(&x, &y)| x == y || y == 0))
        })
        .collect();
    Matrix::new(c.rows, p.rows, data)
}

/// `M ⌈.× ⍳≢P`: for each row, the largest column index holding a 1 (0 when
/// none, as in the paper).
pub fn last_match_index(m: &Matrix<bool>) -> Vec<u32> {
    (0..m.rows)
        .map(|i| {
            m.row(i)
                .iter()
                .enumerate()
                .map(|(j, &b)| if b { j as u32 } else { 0 })
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Section 6's `⌈/ C × t = T[C]` on the strict part of the ancestor matrix:
/// for each node, the row of its nearest strict ancestor of kind `t`, or 0
/// when none (row 0 is the root, which the paper assumes has kind `t`).
///
/// # Panics
/// If the shapes disagree.
pub fn nearest_of_kind<K: PartialEq + Sync>(
    ancestors: &Matrix<u32>,
    depth: &[u32],
    kinds: &[K],
    t: &K,
) -> Vec<u32> {
    assert_eq!(ancestors.rows, depth.len(), "one depth per row");
    assert_eq!(ancestors.rows, kinds.len(), "one kind per row");
    (0..ancestors.rows)
        .into_par_iter()
        .map(|i| {
            ancestors.row(i)[..depth[i] as usize]
                .iter()
                .map(|&a| if kinds[a as usize] == *t { a } else { 0 })
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Depth of a node from its path vector: the index of its first 0, minus 1
/// (`¯1+C⍳0`); the full length minus 1 when there is no 0.
pub fn path_depth(path: &[u32]) -> usize {
    path.iter()
        .position(|&x| x == 0)
        .unwrap_or(path.len())
        .saturating_sub(1)
}

/// Whether path `p` is a prefix of path `c` ignoring `p`'s padding
/// (`∧/ c (=∨0=⊢) p`): `p` is `c` or one of its ancestors.
pub fn is_prefix(c: &[u32], p: &[u32]) -> bool {
    c.len() == p.len() && c.iter().zip(p).all(|(&x, &y)| x == y || y == 0)
}
