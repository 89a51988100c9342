//! The pass manager: one rule list over a whole node family, run fused, one
//! by one, or to a fixpoint, with checked ordering constraints, statistics,
//! and a defined outcome when a rule fails or panics.
//!
//! A rule list is a value; how it runs is chosen per call or per
//! optimisation level. *Fused* runs the rules in as few traversals as their
//! ordering constraints allow ([`Rule::runs_after_groups_of`] splits the
//! list into groups, MegaPhase style; without such constraints that is one
//! traversal over the whole family). *One by one* gives every rule its own
//! traversal. Both are the same engine with a different range of active
//! rules, so statistics, errors and the checker treat every node type alike.
//!
//! The tree is rewritten in place (`&mut T`). A failing rule stops the pass
//! and leaves the tree whole (partly rewritten: every node is either as it
//! was or as a rule made it); so does a panicking rule, which the manager
//! catches and reports as [`RunError::Panicked`].
//!
//! [`Rule::runs_after_groups_of`]: crate::Rule::runs_after_groups_of

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::engine::{run_traversal, Config, EngineError};
use crate::node::{Kind, Node};
use crate::rule::{Env, IntoRuleSet, RuleInfo, RuleSet};

/// How one round runs the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// As few traversals as the ordering constraints allow (one per group).
    Fused,
    /// Each rule as its own traversal, in list order.
    OneByOne,
}

/// How the pass manager runs a rule list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One fused round.
    Fused,
    /// One one-by-one round.
    OneByOne,
    /// Rounds until one in which no rule fires; at most `max_rounds` (the
    /// confirming quiet round included), else [`RunError::NoFixpoint`].
    Fixpoint {
        /// What one round is.
        round: Round,
        /// Maximum number of rounds.
        max_rounds: usize,
    },
}

/// Optimisation level, mapped to a [`Mode`] (change the mapping with
/// [`PassManager::with_mode_for`]).
///
/// | level | default mode |
/// |-------|------|
/// | `O0`  | [`Mode::Fused`] |
/// | `O1`  | [`Mode::OneByOne`] |
/// | `O2`  | fixpoint of fused rounds, at most 32 |
/// | `O3`  | fixpoint of one-by-one rounds, at most 64 |
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

/// Why a pass stopped. The tree is whole in every case (see the module
/// docs).
#[derive(Clone, PartialEq, Eq)]
pub enum RunError<E> {
    /// A hook returned an error.
    Rule {
        /// The rule.
        rule: &'static str,
        /// The node it was looking at.
        kind: Kind,
        /// The hook's error.
        error: E,
    },
    /// A node was restarted or revisited more often than the budget allows
    /// (the rules probably rewrite in a cycle).
    RestartBudget {
        /// The rule that asked for the restart over the limit.
        rule: &'static str,
        /// The node.
        kind: Kind,
        /// The budget ([`PassManager::with_restart_budget`]).
        limit: u32,
    },
    /// A hook removed or spliced a node that is not an element of a `Vec`.
    NotInList {
        /// The rule.
        rule: &'static str,
        /// The node.
        kind: Kind,
        /// `"Remove"` or `"Splice"`.
        edit: &'static str,
    },
    /// A hook panicked (caught by the manager).
    Panicked {
        /// The panic's message, if it was a string.
        message: String,
    },
    /// The fixpoint bound was hit: rules still fired in the last round.
    NoFixpoint {
        /// Rounds run.
        rounds: usize,
        /// Rules that fired in the last round, with their counts.
        fired_last_round: Vec<(&'static str, u64)>,
    },
}

impl<E: fmt::Debug> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Rule { rule, kind, error } => {
                write!(f, "rule {rule} failed on a {kind} node: {error:?}")
            }
            RunError::RestartBudget { rule, kind, limit } => write!(
                f,
                "rule {rule} restarted a {kind} node more than {limit} times (the rules may rewrite in a cycle; raise the budget with PassManager::with_restart_budget if not)"
            ),
            RunError::NotInList { rule, kind, edit } => write!(
                f,
                "rule {rule} answered {edit} for a {kind} node that is not an element of a Vec"
            ),
            RunError::Panicked { message } => write!(f, "a rule panicked: {message}"),
            RunError::NoFixpoint {
                rounds,
                fired_last_round,
            } => {
                write!(
                    f,
                    "rewriting did not reach a fixpoint within {rounds} rounds; still firing in the last round:"
                )?;
                for (i, (name, n)) in fired_last_round.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{name} ({n}x)")?;
                }
                f.write_str(" (the rules may not terminate, e.g. a rule that reports a change without making one, or two rules that undo each other)")
            }
        }
    }
}

impl<E: fmt::Debug> fmt::Debug for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl<E: fmt::Debug> std::error::Error for RunError<E> {}

/// A rule list whose ordering constraints do not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderError {
    /// Two rules have the same name (constraints name rules).
    DuplicateName {
        /// The name.
        name: &'static str,
    },
    /// A constraint names a rule that is not in the list.
    UnknownRule {
        /// The rule with the constraint.
        rule: &'static str,
        /// The missing rule.
        missing: &'static str,
    },
    /// A rule that must run earlier comes at or after the rule.
    WrongOrder {
        /// The rule with the constraint.
        rule: &'static str,
        /// The rule that must come first.
        must_come_first: &'static str,
        /// Whether the constraint is `runs_after_groups_of`.
        groups: bool,
    },
}

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderError::DuplicateName { name } => write!(
                f,
                "two rules are named {name}; ordering constraints need unique names (override Rule::name)"
            ),
            OrderError::UnknownRule { rule, missing } => write!(
                f,
                "rule {rule} must run after {missing}, which is not in the pass manager's list"
            ),
            OrderError::WrongOrder {
                rule,
                must_come_first,
                groups,
            } => {
                let how = if *groups {
                    "runs_after_groups_of"
                } else {
                    "runs_after"
                };
                write!(
                    f,
                    "rule {rule} must run after {must_come_first} ({how}), but comes before it in the list; move {must_come_first} earlier"
                )
            }
        }
    }
}

impl std::error::Error for OrderError {}

/// Splits the rules into fused groups, checking the constraints.
fn plan_groups(rules: &[RuleInfo]) -> Result<Vec<(usize, usize)>, OrderError> {
    for (i, r) in rules.iter().enumerate() {
        if rules[..i].iter().any(|q| q.name == r.name) {
            return Err(OrderError::DuplicateName { name: r.name });
        }
    }
    let position = |name: &str| rules.iter().position(|q| q.name == name);
    let mut groups = Vec::new();
    let mut start = 0;
    for (i, r) in rules.iter().enumerate() {
        for (list, is_group) in [(r.runs_after, false), (r.runs_after_groups_of, true)] {
            for &other in list {
                match position(other) {
                    None => {
                        return Err(OrderError::UnknownRule {
                            rule: r.name,
                            missing: other,
                        })
                    }
                    Some(j) if j >= i => {
                        return Err(OrderError::WrongOrder {
                            rule: r.name,
                            must_come_first: other,
                            groups: is_group,
                        })
                    }
                    Some(j) => {
                        if is_group && j >= start {
                            groups.push((start, i));
                            start = i;
                        }
                    }
                }
            }
        }
    }
    if start < rules.len() || rules.is_empty() {
        groups.push((start, rules.len()));
    }
    Ok(groups)
}

/// Counters accumulated by a [`PassManager`] since it was built or
/// [reset](PassManager::reset_stats), over every node type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// `(rule name, times fired)` for each rule, in list order.
    pub fired: Vec<(&'static str, u64)>,
    /// Traversals run.
    pub traversals: u64,
    /// Fixpoint rounds run.
    pub rounds: u64,
    /// Node visits, of every type (a restarted or revisited node counts
    /// once per visit).
    pub visits: u64,
}

impl Stats {
    /// Total firings of all rules.
    pub fn total_fired(&self) -> u64 {
        self.fired.iter().map(|(_, n)| n).sum()
    }
}

/// Runs a statically composed rule list over a node family, in environment
/// `X` (user context and error type, see [`Env`]).
///
/// ```
/// use treefuse_rewrite::{OptLevel, PassManager};
/// use treefuse_rewrite::toy::{parse, rules};
///
/// let mut pm = PassManager::<(), _>::new(rules()).unwrap();
/// let mut e = parse("10 / (if true then 2 else 5)").unwrap();
/// pm.fused(&mut e, &mut ()).unwrap();
/// assert_eq!(e.to_string(), "10 / 2");
/// let mut e = parse("10 / (if true then 2 else 5)").unwrap();
/// pm.run_level(&mut e, &mut (), OptLevel::O2).unwrap();
/// assert_eq!(e.to_string(), "5");
/// ```
pub struct PassManager<X: Env, Rs> {
    rules: Rs,
    infos: Vec<RuleInfo>,
    groups: Vec<(usize, usize)>,
    config: Config,
    levels: [Mode; 4],
    fired: Vec<u64>,
    traversals: u64,
    rounds: u64,
    visits: u64,
    _env: std::marker::PhantomData<fn(X) -> X>,
}

impl<X: Env, Rs: RuleSet<X>> PassManager<X, Rs> {
    /// A manager for the given rules (a tuple of up to 12 rules, or a
    /// [`Chain`](crate::Chain) from [`rules!`](crate::rules)); checks the
    /// rules' ordering constraints. Stack growth on, restart budget 64,
    /// default level mapping.
    pub fn new<I: IntoRuleSet<Rules = Rs>>(rules: I) -> Result<Self, OrderError> {
        let rules = rules.into_rule_set();
        let mut infos = Vec::with_capacity(Rs::LEN);
        rules.describe(&mut infos);
        let groups = plan_groups(&infos)?;
        Ok(PassManager {
            rules,
            infos,
            groups,
            config: Config::default(),
            levels: DEFAULT_LEVEL_MODES,
            fired: vec![0; Rs::LEN],
            traversals: 0,
            rounds: 0,
            visits: 0,
            _env: std::marker::PhantomData,
        })
    }

    /// Grows the stack on demand (default: on), so that trees of any depth
    /// are rewritten without overflow; it costs one stack-pointer comparison
    /// per node, and replaced nodes are then dropped iteratively (a
    /// discarded subtree may be deep). Turn it off only for trees of known,
    /// moderate depth.
    pub fn with_stack_growth(mut self, on: bool) -> Self {
        self.config.grow_stack = on;
        self
    }

    /// How often one node may be restarted or revisited in one visit before
    /// the pass stops with [`RunError::RestartBudget`] (default 64).
    pub fn with_restart_budget(mut self, budget: u32) -> Self {
        self.config.restart_budget = budget;
        self
    }

    /// Sets the mode used for `level`.
    pub fn with_mode_for(mut self, level: OptLevel, mode: Mode) -> Self {
        self.levels[level as usize] = mode;
        self
    }

    /// The mode used for `level`.
    pub fn mode_for(&self, level: OptLevel) -> Mode {
        self.levels[level as usize]
    }

    /// The rule list.
    pub fn rules(&self) -> &Rs {
        &self.rules
    }

    /// Names of the rules, in order.
    pub fn rule_names(&self) -> Vec<&'static str> {
        self.infos.iter().map(|r| r.name).collect()
    }

    /// Descriptions of the rules (names, constraints, handled node types).
    pub fn rule_infos(&self) -> &[RuleInfo] {
        &self.infos
    }

    /// The fused groups, as ranges of rule positions: one traversal each in
    /// a fused round.
    pub fn groups(&self) -> &[(usize, usize)] {
        &self.groups
    }

    fn traverse<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
        range: (usize, usize),
    ) -> Result<(), RunError<X::Error>> {
        self.traversals += 1;
        let (rules, fired, config) = (&self.rules, &mut self.fired[..], self.config);
        let r = catch_unwind(AssertUnwindSafe(|| {
            run_traversal::<X, Rs, T>(rules, tree, ctx, fired, range, config)
        }));
        let name = |i: usize| self.infos.get(i).map_or("?", |r| r.name);
        match r {
            Ok(Ok(t)) => {
                self.visits += t.visits;
                Ok(())
            }
            Ok(Err(EngineError::Rule { rule, kind, error })) => Err(RunError::Rule {
                rule: name(rule),
                kind,
                error,
            }),
            Ok(Err(EngineError::Budget { rule, kind, limit })) => Err(RunError::RestartBudget {
                rule: name(rule),
                kind,
                limit,
            }),
            Ok(Err(EngineError::NotInList { rule, kind, edit })) => Err(RunError::NotInList {
                rule: name(rule),
                kind,
                edit,
            }),
            Err(payload) => {
                let message = if let Some(s) = payload.downcast_ref::<&str>() {
                    (*s).to_string()
                } else if let Some(s) = payload.downcast_ref::<String>() {
                    s.clone()
                } else {
                    "(not a string)".to_string()
                };
                Err(RunError::Panicked { message })
            }
        }
    }

    /// One fused round: one traversal per group (one in all unless
    /// `runs_after_groups_of` splits the list).
    pub fn fused<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
    ) -> Result<(), RunError<X::Error>> {
        for g in 0..self.groups.len() {
            let range = self.groups[g];
            self.traverse(tree, ctx, range)?;
        }
        Ok(())
    }

    /// One one-by-one round: each rule its own traversal, in list order.
    pub fn one_by_one<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
    ) -> Result<(), RunError<X::Error>> {
        for i in 0..Rs::LEN {
            self.traverse(tree, ctx, (i, i + 1))?;
        }
        Ok(())
    }

    /// Rounds until a round in which no rule fires, at most `max_rounds`
    /// (the confirming quiet round included).
    pub fn fixpoint<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
        round: Round,
        max_rounds: usize,
    ) -> Result<(), RunError<X::Error>> {
        let mut before = self.fired.clone();
        for round_no in 0..max_rounds {
            self.rounds += 1;
            match round {
                Round::Fused => self.fused(tree, ctx)?,
                Round::OneByOne => self.one_by_one(tree, ctx)?,
            }
            if self.fired == before {
                return Ok(());
            }
            if round_no + 1 < max_rounds {
                before.copy_from_slice(&self.fired);
            }
        }
        // `before` holds the counters from before the last round.
        let fired_last_round = self
            .infos
            .iter()
            .zip(self.fired.iter().zip(&before))
            .filter(|(_, (now, then))| now > then)
            .map(|(info, (now, then))| (info.name, now - then))
            .collect();
        Err(RunError::NoFixpoint {
            rounds: max_rounds,
            fired_last_round,
        })
    }

    /// Runs in the given mode.
    pub fn run<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
        mode: Mode,
    ) -> Result<(), RunError<X::Error>> {
        match mode {
            Mode::Fused => self.fused(tree, ctx),
            Mode::OneByOne => self.one_by_one(tree, ctx),
            Mode::Fixpoint { round, max_rounds } => self.fixpoint(tree, ctx, round, max_rounds),
        }
    }

    /// Runs in the mode chosen for `level`.
    pub fn run_level<T: Node>(
        &mut self,
        tree: &mut T,
        ctx: &mut X::Ctx,
        level: OptLevel,
    ) -> Result<(), RunError<X::Error>> {
        self.run(tree, ctx, self.mode_for(level))
    }

    /// Counters since creation or the last [`reset_stats`](Self::reset_stats).
    pub fn stats(&self) -> Stats {
        Stats {
            fired: self
                .infos
                .iter()
                .map(|r| r.name)
                .zip(self.fired.iter().copied())
                .collect(),
            traversals: self.traversals,
            rounds: self.rounds,
            visits: self.visits,
        }
    }

    /// Total firings since creation or the last reset.
    pub fn total_fired(&self) -> u64 {
        self.fired.iter().sum()
    }

    /// Zeroes the counters.
    pub fn reset_stats(&mut self) {
        self.fired.iter_mut().for_each(|n| *n = 0);
        self.traversals = 0;
        self.rounds = 0;
        self.visits = 0;
    }
}
