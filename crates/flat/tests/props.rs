//! Property tests: every parallel primitive and pass against its sequential
//! or recursive reference, on random trees and vectors.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use treefuse_flat::baseline::{flatten_functional, flatten_mutation};
use treefuse_flat::lift::{flatten_par_grain, flatten_seq, lift_paper, LiftSpec, PaperRow};
use treefuse_flat::path::*;
use treefuse_flat::prim::*;
use treefuse_flat::{FlatTree, NONE};

const KINDS: [char; 5] = ['E', 'F', 'V', 'P', 'A'];

/// Builds a tree from random choices: each step goes at most one level
/// deeper (bounded by `max_depth`), or back up; `forest` allows new roots.
fn tree_from(steps: &[(u8, u8)], max_depth: u32, forest: bool) -> FlatTree<char, u32> {
    let mut depth = vec![0u32];
    for &(step, _) in steps {
        let prev = *depth.last().unwrap();
        let lo = if forest { 0 } else { 1 };
        let hi = (prev + 1).min(max_depth).max(lo);
        // Bias towards going deeper so that trees are not all flat.
        let span = hi - lo + 1;
        let d = if step % 3 != 0 {
            hi
        } else {
            lo + (step as u32 / 3) % span
        };
        depth.push(d);
    }
    let kind = std::iter::once((0u8, steps.first().map_or(0, |s| s.1)))
        .chain(steps.iter().copied())
        .map(|(_, k)| KINDS[k as usize % KINDS.len()])
        .collect();
    let n = depth.len() as u32;
    FlatTree::from_columns(depth, kind, (0..n).collect()).unwrap()
}

fn arb_tree(forest: bool) -> impl Strategy<Value = FlatTree<char, u32>> {
    (
        prop::collection::vec((any::<u8>(), any::<u8>()), 0..300),
        1u32..60,
    )
        .prop_map(move |(steps, d)| tree_from(&steps, d, forest))
}

fn spec(t: char) -> LiftSpec<char, u32> {
    LiftSpec {
        target: t,
        reference: 'V',
        header_value: u32::MAX,
    }
}

/// The nearest marked strict ancestor by walking up, as the reference.
fn marks(t: &FlatTree<char, u32>, k: char) -> Vec<bool> {
    t.kind().iter().map(|&x| x == k).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn conversions_round_trip(t in arb_tree(true)) {
        let forest = t.to_forest();
        prop_assert_eq!(&FlatTree::from_forest(&forest), &t);
        let (d, k, v, p) = t.clone().into_parts();
        prop_assert_eq!(&FlatTree::from_parent(p.clone(), k.clone(), v.clone()).unwrap(), &t);
        prop_assert_eq!(&FlatTree::from_parts(d, k, v, p).unwrap(), &t);
        let j = pointer_jump_par(t.parent()).unwrap();
        prop_assert_eq!(&j.depth, &t.depth().to_vec());
        prop_assert_eq!(&j, &Jumped { rounds: j.rounds, ..depth_and_root_seq(t.parent()).unwrap() });
        let h = t.max_depth().unwrap_or(0).max(1);
        prop_assert!(j.rounds <= 2 + (32 - h.leading_zeros()));
    }

    #[test]
    fn flattening_agrees_everywhere(t in arb_tree(true), k in 0usize..5, grain in 1usize..40) {
        let s = spec(KINDS[k]);
        let reference = flatten_seq(&t, &s);
        prop_assert_eq!(&flatten_par_grain(&t, &s, grain), &reference);
        let forest = t.to_forest();
        prop_assert_eq!(&flatten_functional(&forest, &s).unwrap(), &reference);
        prop_assert_eq!(&flatten_mutation(&forest, &s).unwrap(), &reference);
        // The output is a valid forest with one tree per group.
        let groups = reference.groups();
        let (out, origin) = reference.into_forest();
        prop_assert_eq!(out.roots().len(), groups);
        prop_assert_eq!(origin.len(), out.len());
    }

    #[test]
    fn paper_formulation_agrees(t in arb_tree(false), k in 0usize..2) {
        // The paper assumes the root has the target kind.
        let target = KINDS[k];
        let (d, mut kind, v, _) = t.into_parts();
        kind[0] = target;
        let t = FlatTree::from_columns(d, kind, v).unwrap();
        let s = spec(target);
        let paper = lift_paper(&t, &s).unwrap();
        let paths = path_matrix_seq(t.depth());
        let ours: Vec<Vec<PaperRow<char, u32>>> = flatten_seq(&t, &s)
            .without_empty_groups()
            .to_groups()
            .into_iter()
            .map(|g| g.into_iter().map(|(depth, kind, value, o)| PaperRow {
                depth, kind, value, path: paths.row(o as usize).to_vec(),
            }).collect())
            .collect();
        prop_assert_eq!(paper, ours);
    }

    #[test]
    fn path_matrices_agree(t in arb_tree(false), grain in 1usize..50) {
        let d = t.depth();
        let c = path_matrix_seq(d);
        prop_assert_eq!(&path_matrix_par_grain(d, grain), &c);
        let a = ancestor_matrix_seq(d);
        prop_assert_eq!(&ancestor_matrix_par_grain(d, grain), &a);
        let n = t.len();
        // Paths are unique, ordered like pre-order, and prefixes encode
        // ancestry; the ancestor matrix lists the ancestors.
        for i in 0..n {
            prop_assert_eq!(path_depth(c.row(i)), d[i] as usize);
            if i + 1 < n {
                prop_assert!(c.row(i) < c.row(i + 1));
            }
            let mut v = i as u32;
            while v != NONE {
                prop_assert_eq!(*a.get(i, d[v as usize] as usize), v);
                prop_assert!(is_prefix(c.row(i), c.row(v as usize)));
                v = t.parent()[v as usize];
            }
        }
        for i in (0..n).step_by(7) {
            for j in 0..n {
                let mut v = i as u32;
                while v != NONE && v != j as u32 {
                    v = t.parent()[v as usize];
                }
                prop_assert_eq!(is_prefix(c.row(i), c.row(j)), v == j as u32);
            }
        }
        // ⌈/ C × t = T[C] agrees with walking up (0 when none).
        for k in ['E', 'F'] {
            let walk = nearest_marked_ancestor_walk(t.parent(), &marks(&t, k));
            let fast = nearest_of_kind(&a, d, t.kind(), &k);
            let walk0: Vec<u32> = walk.iter().map(|&x| if x == NONE { 0 } else { x }).collect();
            prop_assert_eq!(fast, walk0);
        }
    }

    #[test]
    fn ancestors_and_sweeps(t in arb_tree(true), grain in 1usize..40, k in 0usize..5) {
        let m = marks(&t, KINDS[k]);
        let walk = nearest_marked_ancestor_walk(t.parent(), &m);
        prop_assert_eq!(&nearest_marked_ancestor_seq(&t, &m), &walk);
        prop_assert_eq!(&nearest_marked_ancestor_par(&t, &m), &walk);
        prop_assert_eq!(&nearest_marked_ancestor_jump(t.parent(), &m).unwrap(), &walk);
        let by_grain = down_sweep_par_grain(&t, |_| NONE, |&a, p| if m[p as usize] { p } else { a }, grain);
        prop_assert_eq!(&by_grain, &walk);
        // Depth and root as down-sweeps.
        let dr = down_sweep_par_grain(&t, |r| (0u32, r), |&(d, r), _| (d + 1, r), grain);
        let j = depth_and_root_seq(t.parent()).unwrap();
        prop_assert_eq!(dr.iter().map(|x| x.0).collect::<Vec<_>>(), j.depth);
        prop_assert_eq!(dr.iter().map(|x| x.1).collect::<Vec<_>>(), j.root);
    }

    #[test]
    fn deletion(t in arb_tree(true), k in 0usize..5) {
        let m = marks(&t, KINDS[k]);
        let a = delete_subtrees_seq(&t, &m);
        prop_assert_eq!(&delete_subtrees_par(&t, &m), &a);
        // Survivors are exactly the nodes with no marked ancestor-or-self.
        let walk = nearest_marked_ancestor_walk(t.parent(), &m);
        for i in 0..t.len() {
            let keep = !m[i] && walk[i] == NONE;
            prop_assert_eq!(a.new_index[i] != NONE, keep);
            if keep {
                let j = a.new_index[i] as usize;
                prop_assert_eq!(a.tree.kind()[j], t.kind()[i]);
                prop_assert_eq!(a.tree.value()[j], t.value()[i]);
            }
        }
        let b = splice_out_seq(&t, &m);
        prop_assert_eq!(&splice_out_par(&t, &m), &b);
        let keep: Vec<bool> = m.iter().map(|&x| !x).collect();
        let up = nearest_marked_ancestor_walk(t.parent(), &keep);
        for i in 0..t.len() {
            prop_assert_eq!(b.new_index[i] != NONE, !m[i]);
            if !m[i] {
                let j = b.new_index[i] as usize;
                let p = b.tree.parent()[j];
                prop_assert_eq!(p, if up[i] == NONE { NONE } else { b.new_index[up[i] as usize] });
            }
        }
    }

    #[test]
    fn scans(xs in prop::collection::vec(0u64..1000, 0..500), flags in prop::collection::vec(any::<bool>(), 500), grain in 1usize..64) {
        let add = |a: u64, b: u64| a + b;
        prop_assert_eq!(scan_inclusive_par_grain(&xs, 0, add, grain), scan_inclusive_seq(&xs, add));
        prop_assert_eq!(scan_exclusive_par_grain(&xs, 0, add, grain), scan_exclusive_seq(&xs, 0, add));
        prop_assert_eq!(scan_inclusive_par(&xs, 0, add), scan_inclusive_seq(&xs, add));
        prop_assert_eq!(scan_exclusive_par(&xs, 0, add), scan_exclusive_seq(&xs, 0, add));
        // A non-commutative associative operator: composition of affine maps
        // x -> a*x + b modulo 1009, as pairs.
        let ys: Vec<(u64, u64)> = xs.iter().map(|&x| (x % 7 + 1, x % 11)).collect();
        let comp = |(a1, b1): (u64, u64), (a2, b2): (u64, u64)| ((a1 * a2) % 1009, (a2 * b1 + b2) % 1009);
        prop_assert_eq!(scan_inclusive_par_grain(&ys, (1, 0), comp, grain), scan_inclusive_seq(&ys, comp));
        let starts = &flags[..xs.len()];
        prop_assert_eq!(
            segmented_scan_inclusive_par_grain(&xs, starts, 0, add, grain),
            segmented_scan_inclusive_seq(&xs, starts, add)
        );
        prop_assert_eq!(
            segmented_scan_inclusive_par_grain(&ys, starts, (1, 0), comp, grain),
            segmented_scan_inclusive_seq(&ys, starts, comp)
        );
        prop_assert_eq!(
            segmented_scan_exclusive_par(&xs, starts, 0, add),
            segmented_scan_exclusive_seq(&xs, starts, 0, add)
        );
        prop_assert_eq!(where_par_grain(starts, grain), where_seq(starts));
        prop_assert_eq!(compact_par(&xs, starts), compact_seq(&xs, starts));
        prop_assert_eq!(compact_par_grain(&xs, starts, grain), compact_seq(&xs, starts));
    }

    #[test]
    fn key_and_indexing(keys in prop::collection::vec(0u32..20, 0..400), idx in prop::collection::vec(0u32..450, 0..100)) {
        prop_assert_eq!(key_par(&keys), key_seq(&keys));
        prop_assert_eq!(gather_par(&keys, &idx), gather_seq(&keys, &idx));
        let vals: Vec<u32> = (0..idx.len() as u32).collect();
        let a = scatter_seq(&vals, &idx, 450, NONE);
        let b = scatter_par(&vals, &idx, 450, NONE);
        prop_assert_eq!(a.is_ok(), b.is_ok());
        if let (Ok(a), Ok(b)) = (a, b) {
            prop_assert_eq!(a, b);
        }
        // Groups reproduce the input.
        let g = key_seq(&keys);
        for (k, ix) in g.iter() {
            prop_assert!(ix.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(ix.iter().all(|&i| keys[i as usize] == *k));
        }
        let sizes = g.map_par(|_, ix| ix.len());
        prop_assert_eq!(sizes.iter().sum::<usize>(), keys.len());
    }
}

/// A random parent vector for a forest whose nodes are numbered in a
/// random order (pointer jumping assumes no order).
fn shuffled_forest(n: usize, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        perm.swap(i, rng.gen_range(0..=i));
    }
    let mut parent = vec![NONE; n];
    for i in 1..n {
        if rng.gen_bool(0.98) {
            // Mostly deep chains with some branching.
            let p = if rng.gen_bool(0.7) {
                i - 1
            } else {
                rng.gen_range(0..i)
            };
            parent[perm[i] as usize] = perm[p];
        }
    }
    parent
}

#[test]
fn pointer_jumping_any_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for n in [0, 1, 2, 100, 5_000, 60_000] {
        let parent = shuffled_forest(n, &mut rng);
        let j = pointer_jump_par(&parent).unwrap();
        let r = depth_and_root_seq(&parent).unwrap();
        assert_eq!(j.depth, r.depth);
        assert_eq!(j.root, r.root);
        let m: Vec<bool> = (0..n).map(|_| rng.gen_bool(0.1)).collect();
        assert_eq!(
            nearest_marked_ancestor_jump(&parent, &m).unwrap(),
            nearest_marked_ancestor_walk(&parent, &m)
        );
    }
}

#[test]
fn bad_parent_vectors_are_errors_not_panics() {
    assert_eq!(pointer_jump_par(&[1, 0]), Err(PrimError::Cycle));
    assert_eq!(depth_and_root_seq(&[1, 0]), Err(PrimError::Cycle));
    assert_eq!(pointer_jump_par(&[1, 2, 0]), Err(PrimError::Cycle));
    assert_eq!(pointer_jump_par(&[0]), Err(PrimError::Cycle));
    assert!(matches!(
        pointer_jump_par(&[NONE, 5]),
        Err(PrimError::IndexOutOfRange { position: 1, .. })
    ));
    assert_eq!(
        nearest_marked_ancestor_jump(&[1, 0], &[false, false]),
        Err(PrimError::Cycle)
    );
    assert!(matches!(
        scatter_par(&[1, 2], &[0, 0], 3, 0),
        Err(PrimError::DuplicateIndex { index: 0 })
    ));
    assert!(gather_par(&[1, 2], &[2]).is_err());
}

/// Larger trees so that the default grain yields several chunks.
#[test]
fn large_random_trees_default_grain() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for (n, max_depth) in [(40_000usize, 12u32), (30_000, 3_000)] {
        let steps: Vec<(u8, u8)> = (0..n).map(|_| (rng.gen(), rng.gen())).collect();
        let t = tree_from(&steps, max_depth, false);
        for k in ['E', 'A'] {
            let s = spec(k);
            let reference = flatten_seq(&t, &s);
            assert_eq!(treefuse_flat::lift::flatten_par(&t, &s), reference);
            let m = marks(&t, k);
            assert_eq!(
                nearest_marked_ancestor_par(&t, &m),
                nearest_marked_ancestor_seq(&t, &m)
            );
            assert_eq!(delete_subtrees_par(&t, &m), delete_subtrees_seq(&t, &m));
            assert_eq!(splice_out_par(&t, &m), splice_out_seq(&t, &m));
            if t.max_depth().unwrap_or(0) as usize <= treefuse_flat::baseline::MAX_RECURSION_DEPTH {
                let forest = t.to_forest();
                assert_eq!(flatten_mutation(&forest, &s).unwrap(), reference);
            }
        }
        if max_depth <= 12 {
            assert_eq!(path_matrix_par(t.depth()), path_matrix_seq(t.depth()));
        }
        let j = pointer_jump_par(t.parent()).unwrap();
        assert_eq!(j.depth, t.depth());
    }
}

#[test]
fn baselines_refuse_deep_trees() {
    let n = 5_000u32;
    let t: FlatTree<char, u32> =
        FlatTree::from_columns((0..n).collect(), vec!['A'; n as usize], (0..n).collect()).unwrap();
    let forest = t.to_forest();
    assert!(flatten_functional(&forest, &spec('E')).is_err());
    assert!(flatten_mutation(&forest, &spec('E')).is_err());
    // The column algorithms handle it.
    let r = flatten_seq(&t, &spec('E'));
    assert_eq!(r.groups(), 1);
    assert_eq!(flatten_par_grain(&t, &spec('E'), 64), r);
}
