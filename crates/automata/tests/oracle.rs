//! Property tests against independent oracles.
//!
//! Two oracles, both written without any code from the crate:
//!
//! * a regular-expression AST with a Brzozowski-derivative matcher, which
//!   gives exact membership, exact prefix membership (a word is a prefix of
//!   the language iff its derivative is non-empty) and exact emptiness;
//! * raw NFAs (random edge lists with ε-edges and wildcards) with a
//!   depth-first membership search and a fixpoint emptiness test for the
//!   product of two of them.
//!
//! Automata use labels 0, 1, 2 and the wildcard; words are enumerated over
//! labels 0..=3, where 3 stands for "some other label", so the open alphabet
//! is exercised too.

use std::collections::HashSet;

use proptest::prelude::*;
use treefuse_automata::{intersection_witness, IndexedNfa, Label, Nfa, Symbol};

const LABELS: u32 = 3;
const ALPHABET: u32 = 4;
const MAX_LEN: usize = 4;
/// Longer words for the intersection properties, the ones the fuser relies on.
const LONG_LEN: usize = 5;
/// The wildcard in raw automata.
const ANY: u32 = 99;

/// Every word over `0..ALPHABET` of length at most `max_len`.
fn words(max_len: usize) -> Vec<Vec<Label>> {
    let mut all = vec![Vec::new()];
    let mut last = vec![Vec::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for w in &last {
            for l in 0..ALPHABET {
                let mut v: Vec<Label> = w.clone();
                v.push(Label(l));
                next.push(v);
            }
        }
        all.extend(next.iter().cloned());
        last = next;
    }
    all
}

/// All instantiations of a witness worth checking: wildcards replaced by the
/// fresh label 3, and by label 0.
fn instantiations(w: &[Symbol]) -> Vec<Vec<Label>> {
    [Label(3), Label(0)]
        .iter()
        .map(|&fill| {
            w.iter()
                .map(|s| match *s {
                    Symbol::Label(l) => l,
                    Symbol::Any => fill,
                })
                .collect()
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Regex oracle
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Re {
    Empty,
    Eps,
    Lab(u32),
    Any,
    Union(Box<Re>, Box<Re>),
    Concat(Box<Re>, Box<Re>),
    Star(Box<Re>),
}

fn union(a: Re, b: Re) -> Re {
    match (a, b) {
        (Re::Empty, r) | (r, Re::Empty) => r,
        (a, b) => Re::Union(Box::new(a), Box::new(b)),
    }
}

fn concat(a: Re, b: Re) -> Re {
    match (a, b) {
        (Re::Empty, _) | (_, Re::Empty) => Re::Empty,
        (Re::Eps, r) | (r, Re::Eps) => r,
        (a, b) => Re::Concat(Box::new(a), Box::new(b)),
    }
}

fn nullable(r: &Re) -> bool {
    match r {
        Re::Empty | Re::Lab(_) | Re::Any => false,
        Re::Eps | Re::Star(_) => true,
        Re::Union(a, b) => nullable(a) || nullable(b),
        Re::Concat(a, b) => nullable(a) && nullable(b),
    }
}

fn lang_empty(r: &Re) -> bool {
    match r {
        Re::Empty => true,
        Re::Eps | Re::Lab(_) | Re::Any | Re::Star(_) => false,
        Re::Union(a, b) => lang_empty(a) && lang_empty(b),
        Re::Concat(a, b) => lang_empty(a) || lang_empty(b),
    }
}

fn deriv(r: &Re, x: u32) -> Re {
    match r {
        Re::Empty | Re::Eps => Re::Empty,
        Re::Lab(l) => {
            if *l == x {
                Re::Eps
            } else {
                Re::Empty
            }
        }
        Re::Any => Re::Eps,
        Re::Union(a, b) => union(deriv(a, x), deriv(b, x)),
        Re::Concat(a, b) => {
            let d = concat(deriv(a, x), (**b).clone());
            if nullable(a) {
                union(d, deriv(b, x))
            } else {
                d
            }
        }
        Re::Star(a) => concat(deriv(a, x), r.clone()),
    }
}

fn deriv_word(r: &Re, w: &[Label]) -> Re {
    w.iter().fold(r.clone(), |r, l| deriv(&r, l.0))
}

fn re_matches(r: &Re, w: &[Label]) -> bool {
    nullable(&deriv_word(r, w))
}

fn re_is_prefix(r: &Re, w: &[Label]) -> bool {
    !lang_empty(&deriv_word(r, w))
}

fn re_has_prefix_in(r: &Re, w: &[Label]) -> bool {
    (0..=w.len()).any(|k| re_matches(r, &w[..k]))
}

/// Compiles with the crate's constructors and regular operations.
fn compile(r: &Re) -> Nfa {
    match r {
        Re::Empty => Nfa::empty(),
        Re::Eps => Nfa::epsilon(),
        Re::Lab(l) => Nfa::label(Label(*l)),
        Re::Any => Nfa::any(),
        Re::Union(a, b) => compile(a).union(&compile(b)),
        Re::Concat(a, b) => compile(a).concat(&compile(b)),
        Re::Star(a) => compile(a).star(),
    }
}

fn re_strategy() -> impl Strategy<Value = Re> {
    let leaf = prop_oneof![
        1 => Just(Re::Empty),
        2 => Just(Re::Eps),
        6 => (0..LABELS).prop_map(Re::Lab),
        2 => Just(Re::Any),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Union(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Concat(Box::new(a), Box::new(b))),
            inner.prop_map(|a| Re::Star(Box::new(a))),
        ]
    })
}

/// Checks `nfa` against a membership predicate on all short words.
fn check_lang(
    nfa: &Nfa,
    expect: impl Fn(&[Label]) -> bool,
    what: &str,
) -> Result<(), TestCaseError> {
    check_lang_upto(nfa, expect, what, MAX_LEN)
}

fn check_lang_upto(
    nfa: &Nfa,
    expect: impl Fn(&[Label]) -> bool,
    what: &str,
    max_len: usize,
) -> Result<(), TestCaseError> {
    for w in words(max_len) {
        prop_assert_eq!(nfa.accepts(&w), expect(&w), "{} on {:?}\n{}", what, w, nfa);
    }
    Ok(())
}

/// Checks `witness` (from a search on a language described by `member`,
/// exactly empty iff `empty`) is accepted and of minimum length.
fn check_witness(
    witness: Option<Vec<Symbol>>,
    member: impl Fn(&[Label]) -> bool,
    empty: Option<bool>,
) -> Result<(), TestCaseError> {
    match witness {
        None => {
            if let Some(e) = empty {
                prop_assert!(e, "no witness for a non-empty language");
            }
            for w in words(MAX_LEN) {
                prop_assert!(!member(&w), "no witness, yet {:?} is accepted", w);
            }
        }
        Some(wit) => {
            if let Some(e) = empty {
                prop_assert!(!e, "witness {:?} for an empty language", wit);
            }
            for inst in instantiations(&wit) {
                prop_assert!(member(&inst), "witness {:?} not accepted", inst);
            }
            for w in words(MAX_LEN.min(wit.len().saturating_sub(1))) {
                if w.len() < wit.len() {
                    prop_assert!(!member(&w), "{:?} is shorter than witness {:?}", w, wit);
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Raw NFA oracle
// ---------------------------------------------------------------------------

/// A random automaton as a bare edge list. Symbols: `None` = ε,
/// `Some(ANY)` = wildcard, `Some(l)` = label `l`.
#[derive(Clone, Debug)]
struct Raw {
    states: u32,
    edges: Vec<(u32, Option<u32>, u32)>,
    accepting: Vec<u32>,
}

fn raw_strategy() -> impl Strategy<Value = Raw> {
    raw_strategy_sized(6, 12)
}

/// Raw automata of up to `max_states` states and `max_edges` edges.
fn raw_strategy_sized(max_states: u32, max_edges: usize) -> impl Strategy<Value = Raw> {
    (1u32..=max_states).prop_flat_map(move |n| {
        let sym = prop_oneof![
            2 => Just(None),
            6 => (0..LABELS).prop_map(Some),
            1 => Just(Some(ANY)),
        ];
        (
            proptest::collection::vec((0..n, sym, 0..n), 0..=max_edges),
            proptest::collection::vec(0..n, 0..=2),
        )
            .prop_map(move |(edges, accepting)| Raw {
                states: n,
                edges,
                accepting,
            })
    })
}

fn raw_sym_matches(s: u32, l: Label) -> bool {
    s == ANY || s == l.0
}

/// Depth-first membership: is there a run from `state` reading `w[pos..]`?
fn raw_accepts(r: &Raw, w: &[Label]) -> bool {
    fn go(r: &Raw, w: &[Label], state: u32, pos: usize, seen: &mut HashSet<(u32, usize)>) -> bool {
        if !seen.insert((state, pos)) {
            return false;
        }
        if pos == w.len() && r.accepting.contains(&state) {
            return true;
        }
        r.edges.iter().any(|&(f, s, t)| {
            f == state
                && match s {
                    None => go(r, w, t, pos, seen),
                    Some(s) => {
                        pos < w.len() && raw_sym_matches(s, w[pos]) && go(r, w, t, pos + 1, seen)
                    }
                }
        })
    }
    go(r, w, 0, 0, &mut HashSet::new())
}

/// Exact emptiness of `L(a) ∩ L(b)` by a fixpoint over reachable state
/// pairs, reading concrete labels 0..=3 (which suffice: label 3 behaves like
/// every label outside the automata).
fn raw_product_empty(a: &Raw, b: &Raw) -> bool {
    let mut reach: HashSet<(u32, u32)> = HashSet::new();
    reach.insert((0, 0));
    loop {
        let mut added = Vec::new();
        for &(p, q) in &reach {
            for &(f, s, t) in &a.edges {
                if f == p && s.is_none() {
                    added.push((t, q));
                }
            }
            for &(f, s, t) in &b.edges {
                if f == q && s.is_none() {
                    added.push((p, t));
                }
            }
            for &(fa, sa, ta) in &a.edges {
                for &(fb, sb, tb) in &b.edges {
                    if fa == p && fb == q {
                        if let (Some(sa), Some(sb)) = (sa, sb) {
                            if (0..ALPHABET).any(|l| {
                                raw_sym_matches(sa, Label(l)) && raw_sym_matches(sb, Label(l))
                            }) {
                                added.push((ta, tb));
                            }
                        }
                    }
                }
            }
        }
        let before = reach.len();
        reach.extend(added);
        if reach.len() == before {
            break;
        }
    }
    !reach
        .iter()
        .any(|(p, q)| a.accepting.contains(p) && b.accepting.contains(q))
}

fn raw_empty(a: &Raw) -> bool {
    let univ = Raw {
        states: 1,
        edges: vec![(0, Some(ANY), 0)],
        accepting: vec![0],
    };
    raw_product_empty(a, &univ)
}

/// Builds with the crate's builder API.
fn build(r: &Raw) -> Nfa {
    let mut n = Nfa::new();
    for _ in 1..r.states {
        n.add_state();
    }
    for &(f, s, t) in &r.edges {
        let sym = s.map(|s| {
            if s == ANY {
                Symbol::Any
            } else {
                Symbol::Label(Label(s))
            }
        });
        n.add_transition(f, sym, t);
    }
    for &a in &r.accepting {
        n.set_accepting(a, true);
    }
    n
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn regex_compile_matches(r in re_strategy()) {
        let n = compile(&r);
        check_lang(&n, |w| re_matches(&r, w), "compile")?;
        check_lang(&n.remove_epsilons(), |w| re_matches(&r, w), "remove_epsilons")?;
        check_lang(&n.trim(), |w| re_matches(&r, w), "trim")?;
        prop_assert_eq!(n.is_empty(), lang_empty(&r));
        prop_assert_eq!(n.trim().is_empty(), lang_empty(&r));
        check_witness(n.shortest_witness(), |w| re_matches(&r, w), Some(lang_empty(&r)))?;
        check_witness(n.reduced().shortest_witness(), |w| re_matches(&r, w), Some(lang_empty(&r)))?;
        let red = n.reduced();
        prop_assert!(red.num_states() <= n.num_states());
        for s in 0..red.num_states() as u32 {
            prop_assert!(red.epsilon_transitions(s).is_empty());
        }
    }

    #[test]
    fn regex_binary_ops(a in re_strategy(), b in re_strategy()) {
        let (na, nb) = (compile(&a), compile(&b));
        check_lang(&na.union(&nb), |w| re_matches(&a, w) || re_matches(&b, w), "union")?;
        let ab = Re::Concat(Box::new(a.clone()), Box::new(b.clone()));
        check_lang(&na.concat(&nb), |w| re_matches(&ab, w), "concat")?;
        check_lang(
            &Nfa::union_all([&na, &nb, &na]),
            |w| re_matches(&a, w) || re_matches(&b, w),
            "union_all",
        )?;
    }

    #[test]
    fn regex_unary_ops(r in re_strategy()) {
        let n = compile(&r);
        let star = Re::Star(Box::new(r.clone()));
        check_lang(&n.star(), |w| re_matches(&star, w), "star")?;
        let plus = Re::Concat(Box::new(r.clone()), Box::new(star.clone()));
        check_lang(&n.plus(), |w| re_matches(&plus, w), "plus")?;
        check_lang(&n.optional(), |w| w.is_empty() || re_matches(&r, w), "optional")?;
        check_lang(&n.prefix_closure(), |w| re_is_prefix(&r, w), "prefix_closure")?;
        check_lang(&n.minimized(), |w| re_matches(&r, w), "minimized")?;
        check_lang(
            &n.with_any_suffix().prefix_closure().minimized(),
            |w| re_is_prefix(&r, w) || re_has_prefix_in(&r, w),
            "with_any_suffix.prefix_closure.minimized",
        )?;
        check_lang(&n.with_any_suffix(), |w| re_has_prefix_in(&r, w), "with_any_suffix")?;
        check_lang(
            &n.with_any_suffix().prefix_closure(),
            |w| re_is_prefix(&r, w) || re_has_prefix_in(&r, w),
            "with_any_suffix.prefix_closure",
        )?;
    }

    #[test]
    fn regex_intersection(a in re_strategy(), b in re_strategy()) {
        let (na, nb) = (compile(&a), compile(&b));
        let both = |w: &[Label]| re_matches(&a, w) && re_matches(&b, w);
        let prod = Nfa::intersect(&na, &nb);
        check_lang_upto(&prod, both, "intersect", LONG_LEN)?;
        let fast = intersection_witness(&na, &nb);
        prop_assert_eq!(fast.is_none(), prod.is_empty());
        prop_assert_eq!(
            fast.as_ref().map(Vec::len),
            prod.shortest_witness().as_ref().map(Vec::len)
        );
        check_witness(fast, both, None)?;
        // Same on reduced operands, and on the typical access-set shapes.
        check_witness(intersection_witness(&na.reduced(), &nb.reduced()), both, None)?;
        let (pa, sb) = (na.prefix_closure(), nb.with_any_suffix());
        check_witness(
            intersection_witness(&pa, &sb),
            |w| re_is_prefix(&a, w) && re_has_prefix_in(&b, w),
            Some(Nfa::intersect(&pa, &sb).is_empty()),
        )?;
    }

    #[test]
    fn raw_nfa_ops(a in raw_strategy(), b in raw_strategy()) {
        let (na, nb) = (build(&a), build(&b));
        check_lang(&na, |w| raw_accepts(&a, w), "build")?;
        check_lang(&na.remove_epsilons(), |w| raw_accepts(&a, w), "remove_epsilons")?;
        check_lang(&na.trim(), |w| raw_accepts(&a, w), "trim")?;
        let minimal = na.minimized();
        check_lang_upto(&minimal, |w| raw_accepts(&a, w), "minimized", LONG_LEN)?;
        prop_assert_eq!(&minimal, &minimal.minimized());
        prop_assert_eq!(&minimal, &na.reduced().minimized(), "equal languages, equal automata");
        prop_assert_eq!(na.is_empty(), raw_empty(&a));
        check_witness(na.shortest_witness(), |w| raw_accepts(&a, w), Some(raw_empty(&a)))?;
        check_lang(&na.prefix_closure(), |w| {
            // w is a prefix of L iff L ∩ w·*^* ≠ ∅.
            !raw_product_empty(&a, &word_then_anything(w))
        }, "prefix_closure")?;
        check_lang(&na.with_any_suffix(), |w| (0..=w.len()).any(|k| raw_accepts(&a, &w[..k])), "with_any_suffix")?;

        let both = |w: &[Label]| raw_accepts(&a, w) && raw_accepts(&b, w);
        let empty = raw_product_empty(&a, &b);
        check_lang_upto(&Nfa::intersect(&na, &nb), both, "intersect", LONG_LEN)?;
        prop_assert_eq!(Nfa::intersect(&na, &nb).is_empty(), empty);
        check_witness(intersection_witness(&na, &nb), both, Some(empty))?;
        check_witness(intersection_witness(&na.reduced(), &nb), both, Some(empty))?;
    }

    /// The fast emptiness test says "no common word" exactly when the
    /// witness search and the oracle do, on automata with many edges per
    /// state (runs of one label, wildcards, ε-edges, duplicates).
    #[test]
    fn indexed_emptiness(a in raw_strategy_sized(10, 48), b in raw_strategy_sized(10, 48)) {
        let (na, nb) = (build(&a), build(&b));
        let empty = raw_product_empty(&a, &b);
        prop_assert_eq!(intersection_witness(&na, &nb).is_none(), empty);
        let (ia, ib) = (IndexedNfa::new(&na), IndexedNfa::new(&nb));
        prop_assert_eq!(ia.intersects(&ib), !empty);
        prop_assert_eq!(ib.intersects(&ia), !empty);
        let (ra, rb) = (na.reduced(), nb.reduced());
        prop_assert_eq!(IndexedNfa::new(&ra).intersects(&IndexedNfa::new(&rb)), !empty);
        prop_assert_eq!(IndexedNfa::new(&ra).intersects(&ib), !empty);
    }

    #[test]
    fn indexed_emptiness_small(a in raw_strategy(), b in raw_strategy()) {
        let (na, nb) = (build(&a), build(&b));
        let empty = raw_product_empty(&a, &b);
        prop_assert_eq!(IndexedNfa::new(&na).intersects(&IndexedNfa::new(&nb)), !empty);
    }

    #[test]
    fn indexed_emptiness_of_access_shapes(a in re_strategy(), b in re_strategy()) {
        let (na, nb) = (compile(&a), compile(&b));
        for (x, y) in [
            (na.clone(), nb.clone()),
            (na.reduced(), nb.reduced()),
            (na.prefix_closure(), nb.with_any_suffix()),
            (na.with_any_suffix().reduced(), nb.prefix_closure().reduced()),
        ] {
            let expected = intersection_witness(&x, &y).is_some();
            prop_assert_eq!(IndexedNfa::new(&x).intersects(&IndexedNfa::new(&y)), expected);
        }
    }
}

/// The raw automaton for `w · *^*`.
fn word_then_anything(w: &[Label]) -> Raw {
    let n = w.len() as u32;
    let mut edges: Vec<(u32, Option<u32>, u32)> = w
        .iter()
        .enumerate()
        .map(|(i, l)| (i as u32, Some(l.0), i as u32 + 1))
        .collect();
    edges.push((n, Some(ANY), n));
    Raw {
        states: n + 1,
        edges,
        accepting: vec![n],
    }
}
