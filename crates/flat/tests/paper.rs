//! Reproduces the worked tables of the paper (Sections 3 and 4) for its F
//! (nested function) and E (nested expression) trees.
//!
//! Values are characters; the paper's numeric 0 is written '0' and 7 is
//! '7'. Where the extracted paper text shows a duplicated row (the `Fcp`,
//! `Ecp` and match tables print one row more than there are nodes), the
//! expected tables below follow the paper's definitions, and all the tables
//! derived from them (`Fi`, `Ei`, `Fk`, `Ek`, the Key groups, the lifted
//! and flattened results) match the paper exactly.

use treefuse_flat::baseline::{flatten_functional, flatten_mutation};
use treefuse_flat::lift::{
    flatten_par, flatten_par_grain, flatten_seq, lift_paper, paper_keys, Flattened, LiftSpec,
    PaperRow,
};
use treefuse_flat::path::*;
use treefuse_flat::prim::key_seq;
use treefuse_flat::FlatTree;

fn f_tree() -> FlatTree<char, char> {
    FlatTree::from_columns(
        vec![0, 1, 2, 3, 4, 4, 4, 2, 3],
        "FEFEVPVAN".chars().collect(),
        vec!['f', '0', '0', '0', 'ω', '+', 'ω', '0', '7'],
    )
    .unwrap()
}

fn e_tree() -> FlatTree<char, char> {
    FlatTree::from_columns(
        vec![0, 1, 2, 2, 2, 1, 1, 2, 2, 2],
        "EEVPVPEVPV".chars().collect(),
        vec!['v', '0', 'a', '+', 'b', '÷', '0', 'c', '×', 'd'],
    )
    .unwrap()
}

/// Parses rows like "1 1 0" separated by commas.
fn m(s: &str) -> Vec<Vec<u32>> {
    s.split(',')
        .map(|r| r.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect()
}

fn b(s: &str) -> Vec<Vec<bool>> {
    m(s).into_iter()
        .map(|r| r.into_iter().map(|x| x == 1).collect())
        .collect()
}

fn spec(t: char) -> LiftSpec<char, char> {
    LiftSpec {
        target: t,
        reference: 'V',
        header_value: '0',
    }
}

fn row(depth: u32, kind: char, value: char, path: &str) -> PaperRow<char, char> {
    PaperRow {
        depth,
        kind,
        value,
        path: m(path).pop().unwrap(),
    }
}

#[test]
fn depths_and_boolean_tables() {
    let (fd, ed) = (f_tree(), e_tree());
    assert_eq!(depth_count(fd.depth()), 5);
    assert_eq!(depth_count(ed.depth()), 3);
    let fb = depth_table(fd.depth());
    assert_eq!(
        fb.to_rows(),
        m("1 0 0 0 0,0 1 0 0 0,0 0 1 0 0,0 0 0 1 0,0 0 0 0 1,0 0 0 0 1,0 0 0 0 1,0 0 1 0 0,0 0 0 1 0")
    );
    let eb = depth_table(ed.depth());
    assert_eq!(
        eb.to_rows(),
        m("1 0 0,0 1 0,0 0 1,0 0 1,0 0 1,0 1 0,0 1 0,0 0 1,0 0 1,0 0 1")
    );
    assert_eq!(
        scan_columns(&fb).to_rows(),
        m("1 0 0 0 0,1 1 0 0 0,1 1 1 0 0,1 1 1 1 0,1 1 1 1 1,1 1 1 1 2,1 1 1 1 3,1 1 2 1 3,1 1 2 2 3")
    );
    assert_eq!(
        scan_columns(&eb).to_rows(),
        m("1 0 0,1 1 0,1 1 1,1 1 2,1 1 3,1 2 3,1 3 3,1 3 4,1 3 5,1 3 6")
    );
    assert_eq!(
        depth_mask(fd.depth(), false).to_rows(),
        m("1 0 0 0 0,1 1 0 0 0,1 1 1 0 0,1 1 1 1 0,1 1 1 1 1,1 1 1 1 1,1 1 1 1 1,1 1 1 0 0,1 1 1 1 0")
    );
    assert_eq!(
        depth_mask(ed.depth(), false).to_rows(),
        m("1 0 0,1 1 0,1 1 1,1 1 1,1 1 1,1 1 0,1 1 0,1 1 1,1 1 1,1 1 1")
    );
}

const FC: &str =
    "1 0 0 0 0,1 1 0 0 0,1 1 1 0 0,1 1 1 1 0,1 1 1 1 1,1 1 1 1 2,1 1 1 1 3,1 1 2 0 0,1 1 2 2 0";
const EC: &str = "1 0 0,1 1 0,1 1 1,1 1 2,1 1 3,1 2 0,1 3 0,1 3 4,1 3 5,1 3 6";

#[test]
fn path_matrices() {
    let (fd, ed) = (f_tree(), e_tree());
    assert_eq!(path_matrix_seq(fd.depth()).to_rows(), m(FC));
    assert_eq!(path_matrix_seq(ed.depth()).to_rows(), m(EC));
    for g in [1, 2, 3, 100] {
        assert_eq!(path_matrix_par_grain(fd.depth(), g).to_rows(), m(FC));
        assert_eq!(path_matrix_par_grain(ed.depth(), g).to_rows(), m(EC));
    }
    // Depth from a path vector: ¯1+C⍳0.
    assert_eq!(path_depth(&[1, 1, 2, 0, 0]), 2);
    // P ← 1 1 0 0 0 prefixes C ← 1 1 2 0 0.
    assert!(is_prefix(&[1, 1, 2, 0, 0], &[1, 1, 0, 0, 0]));
    assert!(!is_prefix(&[1, 1, 2, 0, 0], &[1, 2, 0, 0, 0]));
}

#[test]
fn keys_of_f_and_e() {
    let f = paper_keys(&f_tree(), &'F').unwrap();
    assert_eq!(f.target_paths.to_rows(), m("1 0 0 0 0,1 1 1 0 0"));
    assert_eq!(
        f.parent_paths.to_rows(),
        m("0 0 0 0 0,1 0 0 0 0,1 1 0 0 0,1 1 1 0 0,1 1 1 1 0,1 1 1 1 0,1 1 1 1 0,1 1 0 0 0,1 1 2 0 0")
    );
    assert_eq!(
        f.matches.to_rows(),
        b("0 0,1 0,1 0,1 1,1 1,1 1,1 1,1 0,1 0")
    );
    assert_eq!(f.nearest, vec![0, 0, 0, 1, 1, 1, 1, 0, 0]);
    assert_eq!(
        f.keys.to_rows(),
        m("1 0 0 0 0,1 0 0 0 0,1 0 0 0 0,1 1 1 0 0,1 1 1 0 0,1 1 1 0 0,1 1 1 0 0,1 0 0 0 0,1 0 0 0 0")
    );

    let e = paper_keys(&e_tree(), &'E').unwrap();
    assert_eq!(e.target_paths.to_rows(), m("1 0 0,1 1 0,1 3 0"));
    assert_eq!(
        e.parent_paths.to_rows(),
        m("0 0 0,1 0 0,1 1 0,1 1 0,1 1 0,1 0 0,1 0 0,1 3 0,1 3 0,1 3 0")
    );
    assert_eq!(
        e.matches.to_rows(),
        b("0 0 0,1 0 0,1 1 0,1 1 0,1 1 0,1 0 0,1 0 0,1 0 1,1 0 1,1 0 1")
    );
    assert_eq!(e.nearest, vec![0, 0, 1, 1, 1, 0, 0, 2, 2, 2]);
    assert_eq!(
        e.keys.to_rows(),
        m("1 0 0,1 0 0,1 1 0,1 1 0,1 1 0,1 0 0,1 0 0,1 3 0,1 3 0,1 3 0")
    );
}

#[test]
fn ancestor_matrix_and_optimized_key() {
    let f = f_tree();
    let a = ancestor_matrix_seq(f.depth());
    let expected = m(
        "0 0 0 0 0,0 1 0 0 0,0 1 2 0 0,0 1 2 3 0,0 1 2 3 4,0 1 2 3 5,0 1 2 3 6,0 1 7 0 0,0 1 7 8 0",
    );
    assert_eq!(a.to_rows(), expected);
    assert_eq!(ancestor_matrix_par_grain(f.depth(), 2).to_rows(), expected);
    // ⌈/ C × 'F' = T[C] gives the rows of Fp[Fi] directly.
    assert_eq!(
        nearest_of_kind(&a, f.depth(), f.kind(), &'F'),
        vec![0, 0, 0, 2, 2, 2, 2, 0, 0]
    );
    let e = e_tree();
    let a = ancestor_matrix_par(e.depth());
    assert_eq!(
        nearest_of_kind(&a, e.depth(), e.kind(), &'E'),
        vec![0, 0, 1, 1, 1, 0, 0, 6, 6, 6]
    );
}

#[test]
fn key_groups_the_bodies() {
    // (1↓Fk){α ω}⌸1↓Fast
    let t = f_tree();
    let keys = paper_keys(&t, &'F')
        .unwrap()
        .keys
        .drop_first_row()
        .to_rows();
    let g = key_seq(&keys);
    assert_eq!(g.keys, m("1 0 0 0 0,1 1 1 0 0"));
    let rows: Vec<Vec<usize>> = g
        .iter()
        .map(|(_, ix)| ix.iter().map(|&i| i as usize + 1).collect())
        .collect();
    assert_eq!(rows, vec![vec![1, 2, 7, 8], vec![3, 4, 5, 6]]);

    let t = e_tree();
    let keys = paper_keys(&t, &'E')
        .unwrap()
        .keys
        .drop_first_row()
        .to_rows();
    let g = key_seq(&keys);
    assert_eq!(g.keys, m("1 0 0,1 1 0,1 3 0"));
    let rows: Vec<Vec<usize>> = g
        .iter()
        .map(|(_, ix)| ix.iter().map(|&i| i as usize + 1).collect())
        .collect();
    assert_eq!(rows, vec![vec![1, 5, 6], vec![2, 3, 4], vec![7, 8, 9]]);
}

fn lifted_f() -> Vec<Vec<PaperRow<char, char>>> {
    vec![
        vec![
            row(0, 'F', '0', "1 0 0 0 0"),
            row(1, 'E', '0', "1 1 0 0 0"),
            row(2, 'V', '0', "1 1 1 0 0"),
            row(2, 'A', '0', "1 1 2 0 0"),
            row(3, 'N', '7', "1 1 2 2 0"),
        ],
        vec![
            row(0, 'F', '0', "1 1 1 0 0"),
            row(1, 'E', '0', "1 1 1 1 0"),
            row(2, 'V', 'ω', "1 1 1 1 1"),
            row(2, 'P', '+', "1 1 1 1 2"),
            row(2, 'V', 'ω', "1 1 1 1 3"),
        ],
    ]
}

fn flattened_e_reversed() -> Vec<Vec<PaperRow<char, char>>> {
    vec![
        vec![
            row(0, 'E', '0', "1 3 0"),
            row(1, 'V', 'c', "1 3 4"),
            row(1, 'P', '×', "1 3 5"),
            row(1, 'V', 'd', "1 3 6"),
        ],
        vec![
            row(0, 'E', '0', "1 1 0"),
            row(1, 'V', 'a', "1 1 1"),
            row(1, 'P', '+', "1 1 2"),
            row(1, 'V', 'b', "1 1 3"),
        ],
        vec![
            row(0, 'E', '0', "1 0 0"),
            row(1, 'V', '0', "1 1 0"),
            row(1, 'P', '÷', "1 2 0"),
            row(1, 'V', '0', "1 3 0"),
        ],
    ]
}

#[test]
fn function_lifting_table() {
    assert_eq!(lift_paper(&f_tree(), &spec('F')).unwrap(), lifted_f());
}

#[test]
fn expression_flattening_table() {
    let mut groups = lift_paper(&e_tree(), &spec('E')).unwrap();
    groups.reverse(); // ⊖
    assert_eq!(groups, flattened_e_reversed());
}

/// Converts the column result to paper rows, using the path matrix to name
/// each origin row.
fn as_paper(t: &FlatTree<char, char>, f: &Flattened<char, char>) -> Vec<Vec<PaperRow<char, char>>> {
    let paths = path_matrix_seq(t.depth());
    f.to_groups()
        .into_iter()
        .map(|g| {
            g.into_iter()
                .map(|(depth, kind, value, o)| PaperRow {
                    depth,
                    kind,
                    value,
                    path: paths.row(o as usize).to_vec(),
                })
                .collect()
        })
        .collect()
}

#[test]
fn all_implementations_reproduce_the_tables() {
    for (t, s, expected, reverse) in [
        (f_tree(), spec('F'), lifted_f(), false),
        (e_tree(), spec('E'), flattened_e_reversed(), true),
    ] {
        let forest = t.to_forest();
        let results = [
            flatten_seq(&t, &s),
            flatten_par(&t, &s),
            flatten_par_grain(&t, &s, 1),
            flatten_par_grain(&t, &s, 3),
            flatten_functional(&forest, &s).unwrap(),
            flatten_mutation(&forest, &s).unwrap(),
        ];
        for r in results {
            let r = if reverse { r.reverse_groups() } else { r };
            assert_eq!(as_paper(&t, &r), expected);
        }
    }
}

#[test]
fn lifted_output_is_a_valid_forest() {
    let out = flatten_seq(&f_tree(), &spec('F'));
    let (forest, origin) = out.into_forest();
    assert_eq!(forest.roots(), vec![0, 5]);
    assert_eq!(origin, vec![0, 1, 2, 7, 8, 2, 3, 4, 5, 6]);
}
