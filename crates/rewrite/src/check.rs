//! Checking mode: run fused and one by one, compare what is guaranteed.
//!
//! # What fused application guarantees
//!
//! Write *F* for one fused round, *O* for one one-by-one round (rule 1's
//! traversal, then rule 2's, ...), and *fix(X)* for repeating *X* until a
//! round in which no rule fires. Assume every hook is a deterministic
//! function of its node (and of the context), answers something other than
//! `Keep` exactly when it changes the tree, and never undoes another rule.
//!
//! 1. **Fused = hand-fused.** *F* is, by construction, the recursive
//!    function that at each node runs the prepare hooks in list order, walks
//!    the children, and runs the transform hooks in list order, each rule
//!    seeing what the previous ones made of the node
//!    (`crate::middle::hand_fused` is that function written by hand for the
//!    middle-end example; the tests check they agree on random programs).
//! 2. **Soundness.** Every result is reachable from the input by single rule
//!    applications.
//! 3. **Normal forms.** A round in which no rule fires visited every node
//!    (except children a prepare hook skipped) and found nothing to rewrite,
//!    so *fix(F)* and *fix(O)* are normal forms.
//! 4. **Agreement.** For a terminating, confluent rule set that normal form
//!    is unique, hence *fix(F)* = *fix(O)*. This is what
//!    [`CheckMode::Fixpoint`] compares; a mismatch is a concrete witness that
//!    the rules are not confluent (or break the assumptions above).
//! 5. **No single-round equality.** *F* and *O* differ in general: in one
//!    fused round a rule at a parent sees its children after *all* rules ran
//!    on them, while in one-by-one rounds it sees them after the rules
//!    before it only (`x * 0` is folded by algebraic simplification only once
//!    double negation has turned `--x` into `x`). [`CheckMode::SinglePass`]
//!    checks *F* = *O* for rule sets that claim it.
//!
//! The checker copies the tree and compares results with the iterative
//! [`deep_clone`] and [`first_difference`], so it works on trees of any
//! depth, and reports the path (node kinds and child indices) to the first
//! node, in pre-order, where the results differ.

use std::fmt;

use crate::manager::{PassManager, Round, RunError};
use crate::node::PathStep;
use crate::node::{deep_clone, dismantle, first_difference, subtree_at, Kind, Node, PathDisplay};
use crate::rule::{Env, RuleSet};

/// What the checker compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckMode {
    /// Fixpoint of fused rounds == fixpoint of one-by-one rounds
    /// (guaranteed for terminating, confluent rule sets).
    Fixpoint {
        /// Bound on the rounds of each fixpoint computation.
        max_rounds: usize,
    },
    /// One fused round == one one-by-one round (not guaranteed in general).
    SinglePass,
}

/// The fused and one-by-one results differ.
#[derive(Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// What was compared.
    pub mode: CheckMode,
    /// From the root to the first differing node.
    pub path: Vec<PathStep>,
    /// Kind of the fused result's node there.
    pub fused: Kind,
    /// Kind of the one-by-one result's node there.
    pub one_by_one: Kind,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.mode {
            CheckMode::Fixpoint { .. } => {
                "fixpoint of fused rounds and fixpoint of one-by-one rounds"
            }
            CheckMode::SinglePass => "one fused round and one one-by-one round",
        };
        write!(
            f,
            "{what} differ at {}: fused has a {} node, one-by-one a {} node",
            PathDisplay(&self.path),
            self.fused,
            self.one_by_one
        )?;
        if self.fused == self.one_by_one {
            f.write_str(" with different contents")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Mismatch {}

/// Why a check failed.
#[derive(Clone, PartialEq, Eq)]
pub enum CheckError<E> {
    /// The results differ.
    Mismatch(Mismatch),
    /// A run failed (a rule error, the restart budget, a panic, or a
    /// fixpoint bound).
    Run(RunError<E>),
}

impl<E> From<RunError<E>> for CheckError<E> {
    fn from(e: RunError<E>) -> Self {
        CheckError::Run(e)
    }
}

impl<E: fmt::Debug> fmt::Display for CheckError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Mismatch(m) => fmt::Display::fmt(m, f),
            CheckError::Run(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl<E: fmt::Debug> fmt::Debug for CheckError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<E: fmt::Debug> std::error::Error for CheckError<E> {}

impl<X: Env, Rs: RuleSet<X>> PassManager<X, Rs>
where
    X::Ctx: Clone,
{
    /// Runs the rules fused on `tree` (with `ctx`) and one by one on a copy
    /// (with a copy of `ctx`), and compares the trees as `mode` says. On
    /// success `tree` holds the fused result.
    ///
    /// ```
    /// use treefuse_rewrite::{CheckError, CheckMode, PassManager};
    /// use treefuse_rewrite::toy::{parse, rules};
    ///
    /// let mut pm = PassManager::<(), _>::new(rules()).unwrap();
    /// let mut e = parse("10 / (if true then 2 else 5)").unwrap();
    /// pm.check(&mut e, &mut (), CheckMode::Fixpoint { max_rounds: 16 }).unwrap();
    /// assert_eq!(e.to_string(), "5");
    /// // A single fused round differs from a one-by-one round, at the root:
    /// let mut e = parse("10 / (if true then 2 else 5)").unwrap();
    /// match pm.check(&mut e, &mut (), CheckMode::SinglePass) {
    ///     Err(CheckError::Mismatch(m)) => assert!(m.path.is_empty()),
    ///     other => panic!("expected a mismatch, got {other:?}"),
    /// }
    /// ```
    pub fn check<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
        mode: CheckMode,
    ) -> Result<(), CheckError<X::Error>> {
        let mut copy = deep_clone(tree);
        let mut copy_ctx = ctx.clone();
        let runs = match mode {
            CheckMode::SinglePass => self
                .fused(tree, ctx)
                .and_then(|()| self.one_by_one(&mut copy, &mut copy_ctx)),
            CheckMode::Fixpoint { max_rounds } => self
                .fixpoint(tree, ctx, Round::Fused, max_rounds)
                .and_then(|()| {
                    self.fixpoint(&mut copy, &mut copy_ctx, Round::OneByOne, max_rounds)
                }),
        };
        let verdict = match runs {
            Err(e) => Err(CheckError::Run(e)),
            Ok(()) => match first_difference(tree, &copy) {
                None => Ok(()),
                Some(path) => {
                    let kind = |t: &T| subtree_at(t, &path).map(|n| n.dyn_kind());
                    match (kind(tree), kind(&copy)) {
                        (Some(fused), Some(one_by_one)) => Err(CheckError::Mismatch(Mismatch {
                            mode,
                            path,
                            fused,
                            one_by_one,
                        })),
                        _ => unreachable!("first_difference returns paths present in both trees"),
                    }
                }
            },
        };
        dismantle(copy);
        verdict
    }
}
