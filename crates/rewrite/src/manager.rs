//! The pass manager: the same rules fused, one by one, or to a fixpoint.
//!
//! A rule list is a value; how it is run is a separate choice made per call
//! or per optimisation level. That separation is the point of writing rules
//! in open-recursion style (see [`crate::rule`]): the author writes each rule
//! once, and the manager decides whether it gets its own traversal.
//!
//! Firing is reported by the rules themselves ([`Context::fired`] /
//! [`Context::replace`]) into a per-rule counter, so deciding whether a
//! round changed anything costs one counter increment per *firing* and a
//! sum per round — never a tree comparison.
//!
//! [`Context::fired`]: crate::Context::fired
//! [`Context::replace`]: crate::Context::replace

use std::fmt;
use std::marker::PhantomData;

use crate::engine::{rule_names, run_one_by_one, run_pass, Config, Order};
use crate::rule::{IntoRuleSet, RuleSet};
use crate::tree::Rewritable;

/// How one traversal round runs the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// All rules fused into one traversal.
    Fused,
    /// Each rule as its own full traversal, in list order.
    OneByOne,
}

/// How the pass manager runs a rule list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One fused traversal (fastest; see the crate docs for what it
    /// guarantees).
    Fused,
    /// Each rule as its own full traversal, in list order.
    OneByOne,
    /// Rounds of `round` until a round in which no rule fires; at most
    /// `max_rounds` rounds (the confirming quiet round included), after
    /// which [`FixpointError`] is returned.
    Fixpoint {
        /// What one round is.
        round: Round,
        /// Maximum number of rounds, the confirming one included.
        max_rounds: usize,
    },
}

/// Optimisation level, mapped to a [`Mode`] by the pass manager.
///
/// Default mapping (change it with [`PassManager::with_mode_for`]):
///
/// | level | mode |
/// |-------|------|
/// | `O0`  | [`Mode::Fused`] — one traversal, for fast unoptimised builds |
/// | `O1`  | [`Mode::OneByOne`] — each rule sees the previous rules' output everywhere |
/// | `O2`  | fixpoint of fused rounds, at most 32 rounds |
/// | `O3`  | fixpoint of one-by-one rounds, at most 64 rounds |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OptLevel {
    /// No optimisation.
    O0,
    /// Some.
    O1,
    /// Default optimised build.
    O2,
    /// Aggressive.
    O3,
}

impl OptLevel {
    fn index(self) -> usize {
        self as usize
    }
}

/// The default mode for each level (see [`OptLevel`]).
pub const DEFAULT_LEVEL_MODES: [Mode; 4] = [
    Mode::Fused,
    Mode::OneByOne,
    Mode::Fixpoint {
        round: Round::Fused,
        max_rounds: 32,
    },
    Mode::Fixpoint {
        round: Round::OneByOne,
        max_rounds: 64,
    },
];

/// Returned when [`Mode::Fixpoint`] hits its bound: the rules were still
/// firing in the last allowed round.
#[derive(Clone, PartialEq, Eq)]
pub struct FixpointError<T> {
    /// Rounds run (all of them fired).
    pub rounds: usize,
    /// Rules that fired in the last round, with their firing counts.
    pub fired_last_round: Vec<(&'static str, u64)>,
    /// The tree after the last round (a valid, partly rewritten result).
    pub tree: T,
}

impl<T> fmt::Display for FixpointError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rewriting did not reach a fixpoint within {} rounds; still firing in the last round:",
            self.rounds
        )?;
        for (i, (name, n)) in self.fired_last_round.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            write!(f, "{sep}{name} ({n}x)")?;
        }
        write!(
            f,
            " (the rules may not terminate, e.g. a rule that reports `fired` without changing the tree, or two rules that undo each other)"
        )
    }
}

impl<T> fmt::Debug for FixpointError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixpointError")
            .field("rounds", &self.rounds)
            .field("fired_last_round", &self.fired_last_round)
            .finish_non_exhaustive()
    }
}

impl<T> std::error::Error for FixpointError<T> {}

/// Counters accumulated by a [`PassManager`] since it was created or
/// [reset](PassManager::reset_stats).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// `(rule name, times fired)` for each rule, in list order.
    pub fired: Vec<(&'static str, u64)>,
    /// Full traversals run (a one-by-one round counts one per rule).
    pub traversals: u64,
    /// Fixpoint rounds run.
    pub rounds: u64,
}

impl Stats {
    /// Total firings of all rules.
    pub fn total_fired(&self) -> u64 {
        self.fired.iter().map(|(_, n)| n).sum()
    }
}

/// Runs a statically composed rule list over trees of type `T`, fused, one
/// by one or to a fixpoint, and counts what fired.
///
/// ```
/// use treefuse_rewrite::{OptLevel, PassManager};
/// use treefuse_rewrite::toy::{parse, rules};
///
/// let mut pm = PassManager::new(rules());
/// let e = parse("10 / (if true then 2 else 5)").unwrap();
/// assert_eq!(pm.fused(e.clone()).to_string(), "10 / 2");
/// assert_eq!(pm.one_by_one(e.clone()).to_string(), "5");
/// assert_eq!(pm.run_level(e, OptLevel::O2).unwrap().to_string(), "5");
/// ```
pub struct PassManager<T, Rs> {
    rules: Rs,
    config: Config,
    levels: [Mode; 4],
    fired: Vec<u64>,
    traversals: u64,
    rounds: u64,
    _tree: PhantomData<fn(T) -> T>,
}

impl<T: Rewritable, Rs: RuleSet<T>> PassManager<T, Rs> {
    /// A manager for the given rules: a tuple of up to 12 rules, or a
    /// [`Chain`](crate::Chain) from [`rules!`](crate::rules). Top-down order,
    /// no stack growth, default level mapping.
    pub fn new<I: IntoRuleSet<Rules = Rs>>(rules: I) -> Self {
        PassManager {
            rules: rules.into_rule_set(),
            config: Config::default(),
            levels: DEFAULT_LEVEL_MODES,
            fired: vec![0; Rs::LEN],
            traversals: 0,
            rounds: 0,
            _tree: PhantomData,
        }
    }

    /// Sets the traversal order (default [`Order::TopDown`]).
    pub fn with_order(mut self, order: Order) -> Self {
        self.config.order = order;
        self
    }

    /// Grows the stack on demand (with the `stacker` crate) so that trees of
    /// any depth can be rewritten without overflow. Off by default: it adds
    /// a stack-pointer check per node (a few percent on small nodes).
    pub fn with_stack_growth(mut self, on: bool) -> Self {
        self.config.grow_stack = on;
        self
    }

    /// Sets the mode used for `level`.
    pub fn with_mode_for(mut self, level: OptLevel, mode: Mode) -> Self {
        self.levels[level.index()] = mode;
        self
    }

    /// The mode used for `level`.
    pub fn mode_for(&self, level: OptLevel) -> Mode {
        self.levels[level.index()]
    }

    /// The traversal order in use.
    pub fn order(&self) -> Order {
        self.config.order
    }

    /// The rule list.
    pub fn rules(&self) -> &Rs {
        &self.rules
    }

    /// Names of the rules, in order.
    pub fn rule_names(&self) -> Vec<&'static str> {
        rule_names(&self.rules)
    }

    /// Runs all rules fused into one traversal.
    #[inline]
    pub fn fused(&mut self, tree: T) -> T {
        self.traversals += 1;
        run_pass(&self.rules, tree, self.config, &mut self.fired, 0)
    }

    /// Runs each rule as its own full traversal, in list order.
    pub fn one_by_one(&mut self, tree: T) -> T {
        self.traversals += Rs::LEN as u64;
        run_one_by_one(&self.rules, tree, self.config, &mut self.fired)
    }

    /// Runs rounds until a round in which no rule fires, at most
    /// `max_rounds` rounds (the confirming quiet round included).
    pub fn fixpoint(
        &mut self,
        mut tree: T,
        round: Round,
        max_rounds: usize,
    ) -> Result<T, FixpointError<T>> {
        let mut before = self.fired.clone();
        for round_no in 0..max_rounds {
            self.rounds += 1;
            tree = match round {
                Round::Fused => self.fused(tree),
                Round::OneByOne => self.one_by_one(tree),
            };
            if self.fired == before {
                return Ok(tree);
            }
            if round_no + 1 < max_rounds {
                before.copy_from_slice(&self.fired);
            }
        }
        // `before` holds the counters from before the last round.
        let fired_last_round = self
            .rule_names()
            .into_iter()
            .zip(self.fired.iter().zip(&before))
            .filter(|(_, (now, then))| now > then)
            .map(|(name, (now, then))| (name, now - then))
            .collect();
        Err(FixpointError {
            rounds: max_rounds,
            fired_last_round,
            tree,
        })
    }

    /// Runs in the given mode.
    pub fn run(&mut self, tree: T, mode: Mode) -> Result<T, FixpointError<T>> {
        match mode {
            Mode::Fused => Ok(self.fused(tree)),
            Mode::OneByOne => Ok(self.one_by_one(tree)),
            Mode::Fixpoint { round, max_rounds } => self.fixpoint(tree, round, max_rounds),
        }
    }

    /// Runs in the mode chosen for `level`.
    pub fn run_level(&mut self, tree: T, level: OptLevel) -> Result<T, FixpointError<T>> {
        self.run(tree, self.mode_for(level))
    }

    /// Counters since creation or the last [`reset_stats`](Self::reset_stats).
    pub fn stats(&self) -> Stats {
        Stats {
            fired: self
                .rule_names()
                .into_iter()
                .zip(self.fired.iter().copied())
                .collect(),
            traversals: self.traversals,
            rounds: self.rounds,
        }
    }

    /// Total firings since creation or the last reset (cheap).
    pub fn total_fired(&self) -> u64 {
        self.fired.iter().sum()
    }

    /// Zeroes the counters.
    pub fn reset_stats(&mut self) {
        self.fired.iter_mut().for_each(|n| *n = 0);
        self.traversals = 0;
        self.rounds = 0;
    }
}
