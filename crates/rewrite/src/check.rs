//! Checking mode: run fused and one by one, compare what is guaranteed.
//!
//! # What fused application guarantees
//!
//! Write *F* for one fused traversal, *O* for one one-by-one round (rule 1's
//! pass, then rule 2's, ...), and *fix(X)* for repeating *X* until a round
//! in which no rule fires. Assume every rule is a deterministic function of
//! the node it is given, that it reports [`fired`](crate::Context::fired)
//! exactly when it changes the node, and that it calls `next` with the node
//! unchanged when it does not match.
//!
//! 1. **Fused = hand-fused.** *F* is, by construction, the recursive function
//!    that at each node tries the rules in list order, restarts on a
//!    replacement, and otherwise rebuilds the children (the blog's
//!    `Manually_fused.pass`). The toy example's property test checks this.
//! 2. **Soundness.** *F*, *O* and their fixpoints only ever replace a subtree
//!    by what a rule produced for it, so each result is reachable from the
//!    input by a finite sequence of single rule applications.
//! 3. **Normal forms.** A round in which no rule fires has visited every node
//!    (except subtrees a rule chose to skip without reporting a firing) and
//!    found no rule that matches, so the result of *fix(F)* or *fix(O)* is a
//!    normal form of the rule set.
//! 4. **Agreement.** If the rule set is terminating and confluent on the
//!    input, that normal form is unique, hence *fix(F)* = *fix(O)* (for either
//!    traversal order). This is what [`CheckMode::Fixpoint`] compares; a
//!    mismatch is a concrete witness that the rules are *not* confluent (two
//!    different normal forms of one input), or that a rule breaks the
//!    assumptions above.
//! 5. **No single-round equality.** *F* and *O* differ in general, in both
//!    directions of "more reduced": for `10 / (if true then 2 else 5)` the
//!    fused pass gives `10 / 2` (the division was tried before its divisor
//!    was simplified and is not revisited) while one-by-one gives `5`. Only
//!    rule sets whose rules never create redexes for one another satisfy
//!    *F* = *O*; [`CheckMode::SinglePass`] checks that stronger, opt-in
//!    claim.
//!
//! The checker reports the *first* differing node: the path of child indices
//! (in [`Rewritable::for_each_child`] order) from the root to the first node,
//! in pre-order, whose own contents (not counting its children) differ, or
//! whose children differ in number.
//!
//! The comparison uses the tree's `Clone` and `PartialEq`; derived
//! implementations of those recurse once per level, so the checker is meant
//! for trees of moderate depth (thousands of levels), like a debug mode.

use std::fmt;

use crate::manager::{FixpointError, PassManager, Round};
use crate::rule::RuleSet;
use crate::tree::Rewritable;

/// What the checker compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckMode {
    /// fixpoint of fused rounds == fixpoint of one-by-one rounds.
    /// Guaranteed for terminating, confluent rule sets (see the module docs).
    Fixpoint {
        /// Bound on the rounds of each fixpoint computation.
        max_rounds: usize,
    },
    /// One fused traversal == one one-by-one round. *Not* guaranteed in
    /// general (the blog's first example differs); only for rule sets that
    /// never create work for one another.
    SinglePass,
}

/// The fused and one-by-one results differ.
#[derive(Clone, PartialEq, Eq)]
pub struct Mismatch<T> {
    /// What was compared.
    pub mode: CheckMode,
    /// Child indices from the root to the first differing node.
    pub path: Vec<usize>,
    /// The fused result's subtree at `path`.
    pub fused: T,
    /// The one-by-one result's subtree at `path`.
    pub one_by_one: T,
}

impl<T: fmt::Debug> fmt::Display for Mismatch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.mode {
            CheckMode::Fixpoint { .. } => {
                "fixpoint of fused rounds and fixpoint of one-by-one rounds"
            }
            CheckMode::SinglePass => "one fused traversal and one one-by-one round",
        };
        write!(
            f,
            "{what} differ at {}: fused gives {:?}, one-by-one gives {:?}",
            PathDisplay(&self.path),
            self.fused,
            self.one_by_one
        )
    }
}

impl<T: fmt::Debug> fmt::Debug for Mismatch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<T: fmt::Debug> std::error::Error for Mismatch<T> {}

struct PathDisplay<'a>(&'a [usize]);

impl fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("root")?;
        for i in self.0 {
            write!(f, "/{i}")?;
        }
        Ok(())
    }
}

/// Why a check failed.
#[derive(Clone, PartialEq, Eq)]
pub enum CheckError<T> {
    /// The results differ.
    Mismatch(Mismatch<T>),
    /// A fixpoint computation hit its bound.
    NoFixpoint(FixpointError<T>),
}

impl<T: fmt::Debug> fmt::Display for CheckError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Mismatch(m) => fmt::Display::fmt(m, f),
            CheckError::NoFixpoint(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for CheckError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<T: fmt::Debug> std::error::Error for CheckError<T> {}

/// The path (child indices, see [`Rewritable::for_each_child`]) to the first
/// node, in pre-order, where `a` and `b` differ; `None` if they are equal.
///
/// A node "differs" when its own contents differ (variant or non-child
/// fields) or its children differ in number; otherwise the search descends
/// into the first differing child.
///
/// ```
/// use treefuse_rewrite::first_difference;
/// use treefuse_rewrite::toy::parse;
/// let a = parse("1 / (2 / 3)").unwrap();
/// let b = parse("1 / (2 / 4)").unwrap();
/// assert_eq!(first_difference(&a, &b), Some(vec![1, 1]));
/// assert_eq!(first_difference(&a, &a.clone()), None);
/// ```
pub fn first_difference<T: Rewritable + PartialEq + Clone>(a: &T, b: &T) -> Option<Vec<usize>> {
    if a == b {
        return None;
    }
    let mut path = Vec::new();
    let (mut x, mut y) = (a, b);
    loop {
        // Invariant: x != y.
        let mut xs = Vec::new();
        x.for_each_child(&mut |c| xs.push(c));
        let mut ys = Vec::new();
        y.for_each_child(&mut |c| ys.push(c));
        if xs.len() != ys.len() {
            return Some(path);
        }
        let Some(i) = xs.iter().zip(&ys).position(|(p, q)| p != q) else {
            // Children equal, so the node itself differs.
            return Some(path);
        };
        // Does x differ from y only in its children? Give x y's children.
        let mut k = 0;
        let grafted = x.clone().map_children(&mut |_| {
            let c = ys[k].clone();
            k += 1;
            c
        });
        if grafted != *y {
            return Some(path);
        }
        path.push(i);
        x = xs[i];
        y = ys[i];
    }
}

/// The subtree at `path` (child indices), if any.
pub fn subtree_at<'a, T: Rewritable>(tree: &'a T, path: &[usize]) -> Option<&'a T> {
    let mut t = tree;
    for &i in path {
        t = t.child(i)?;
    }
    Some(t)
}

impl<T, Rs> PassManager<T, Rs>
where
    T: Rewritable + Clone + PartialEq,
    Rs: RuleSet<T>,
{
    /// Runs the rules fused and one by one on copies of `tree` and compares
    /// what `mode` says should agree. Returns the fused result (of one
    /// traversal for [`CheckMode::SinglePass`], of the fixpoint for
    /// [`CheckMode::Fixpoint`]) when they do.
    ///
    /// ```
    /// use treefuse_rewrite::{CheckError, CheckMode, PassManager};
    /// use treefuse_rewrite::toy::{parse, rules};
    ///
    /// let mut pm = PassManager::new(rules());
    /// let e = parse("10 / (if true then 2 else 5)").unwrap();
    /// // The guaranteed property holds:
    /// let r = pm.check(e.clone(), CheckMode::Fixpoint { max_rounds: 16 }).unwrap();
    /// assert_eq!(r.to_string(), "5");
    /// // The single-pass one does not (the blog's example), at the root:
    /// match pm.check(e, CheckMode::SinglePass) {
    ///     Err(CheckError::Mismatch(m)) => assert!(m.path.is_empty()),
    ///     _ => panic!("expected a mismatch"),
    /// }
    /// ```
    pub fn check(&mut self, tree: T, mode: CheckMode) -> Result<T, CheckError<T>> {
        let copy = tree.clone();
        let (fused, one) = match mode {
            CheckMode::SinglePass => (self.fused(tree), self.one_by_one(copy)),
            CheckMode::Fixpoint { max_rounds } => {
                let fused = self
                    .fixpoint(tree, Round::Fused, max_rounds)
                    .map_err(CheckError::NoFixpoint)?;
                let one = self
                    .fixpoint(copy, Round::OneByOne, max_rounds)
                    .map_err(CheckError::NoFixpoint)?;
                (fused, one)
            }
        };
        match first_difference(&fused, &one) {
            None => Ok(fused),
            Some(path) => {
                let f = subtree_at(&fused, &path).cloned();
                let o = subtree_at(&one, &path).cloned();
                match (f, o) {
                    (Some(f), Some(o)) => Err(CheckError::Mismatch(Mismatch {
                        mode,
                        path,
                        fused: f,
                        one_by_one: o,
                    })),
                    // `first_difference` only returns paths present in both.
                    _ => unreachable!("difference path not present in both trees"),
                }
            }
        }
    }
}
