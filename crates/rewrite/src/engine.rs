//! The traversal engine: ties the two recursive knots of a rule list.
//!
//! `first` (restart) is the engine itself; the end of the rule list calls
//! back into the engine to rebuild the children. The engine is generic over
//! two `const bool`s (order and stack growth) so that each combination is a
//! separate monomorphised loop with no run-time test per node.

use crate::rule::{Chain, Driver, End, Rule, RuleSet, RuleVisitor};
use crate::tree::Rewritable;

/// Where the rules are tried relative to the children.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Rules first; when every rule defers, the children are rebuilt (the
    /// blog's fused pass). A rule's replacement is re-examined from the
    /// first rule; an ancestor is *not* revisited after its children change.
    #[default]
    TopDown,
    /// Children first, then the rules on the rebuilt node; a replacement is
    /// run through the whole pipeline again (children included). For rules
    /// whose patterns look at a node and its descendants, one bottom-up pass
    /// of a terminating rule set already returns a normal form (children are
    /// normal when their parent is tried, and every replacement is
    /// normalised in turn), at the price of re-traversing replacements.
    BottomUp,
}

/// Engine settings shared by every mode of the pass manager.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) order: Order,
    pub(crate) grow_stack: bool,
}

/// Stack kept free before recursing when stack growth is on.
const RED_ZONE: usize = 128 * 1024;
/// Size of each new stack segment when stack growth is on.
const SEGMENT: usize = 4 * 1024 * 1024;

struct Engine<'r, Rs, const BOTTOM_UP: bool, const GROW: bool> {
    rules: &'r Rs,
    fired: &'r mut [u64],
    offset: usize,
}

impl<Rs, const BOTTOM_UP: bool, const GROW: bool> Engine<'_, Rs, BOTTOM_UP, GROW> {
    #[inline(always)]
    fn step<T: Rewritable>(&mut self, node: T) -> T
    where
        Rs: RuleSet<T>,
    {
        let rules = self.rules;
        if BOTTOM_UP {
            let node = node.map_children(&mut |c| self.first(c));
            rules.apply(node, self, 0)
        } else {
            rules.apply(node, self, 0)
        }
    }
}

impl<T: Rewritable, Rs: RuleSet<T>, const BOTTOM_UP: bool, const GROW: bool> Driver<T>
    for Engine<'_, Rs, BOTTOM_UP, GROW>
{
    // Everything between two nodes (rules, `next`, `finish`,
    // `map_children`) should inline; `#[inline]` here measured fewer
    // instructions than `#[inline(always)]` or `#[inline(never)]`.
    #[inline]
    fn first(&mut self, node: T) -> T {
        if GROW {
            stacker::maybe_grow(RED_ZONE, SEGMENT, || self.step(node))
        } else {
            self.step(node)
        }
    }

    #[inline(always)]
    fn finish(&mut self, node: T) -> T {
        if BOTTOM_UP {
            node
        } else {
            node.map_children(&mut |c| self.first(c))
        }
    }

    #[inline(always)]
    fn record_fired(&mut self, rule: usize) {
        self.fired[self.offset + rule] += 1;
    }
}

/// Runs one traversal of `rules` over `node`. Firings of rule *i* of `rules`
/// are counted in `fired[offset + i]`.
pub(crate) fn run_pass<T: Rewritable, Rs: RuleSet<T>>(
    rules: &Rs,
    node: T,
    config: Config,
    fired: &mut [u64],
    offset: usize,
) -> T {
    macro_rules! go {
        ($b:literal, $g:literal) => {
            Engine::<Rs, $b, $g> {
                rules,
                fired,
                offset,
            }
            .first(node)
        };
    }
    match (config.order, config.grow_stack) {
        (Order::TopDown, false) => go!(false, false),
        (Order::TopDown, true) => go!(false, true),
        (Order::BottomUp, false) => go!(true, false),
        (Order::BottomUp, true) => go!(true, true),
    }
}

/// Runs each rule of `rules` as its own full traversal, in order.
pub(crate) fn run_one_by_one<T: Rewritable, Rs: RuleSet<T>>(
    rules: &Rs,
    node: T,
    config: Config,
    fired: &mut [u64],
) -> T {
    struct Each<'f, T> {
        node: Option<T>,
        config: Config,
        fired: &'f mut [u64],
    }
    impl<T: Rewritable> RuleVisitor<T> for Each<'_, T> {
        fn visit<R: Rule<T>>(&mut self, index: usize, rule: &R) {
            if let Some(node) = self.node.take() {
                let single = Chain(rule, End);
                self.node = Some(run_pass(&single, node, self.config, self.fired, index));
            }
        }
    }
    let mut each = Each {
        node: Some(node),
        config,
        fired,
    };
    rules.for_each_rule(0, &mut each);
    match each.node {
        Some(node) => node,
        // `visit` always puts the node back.
        None => unreachable!("one-by-one runner lost its tree"),
    }
}

/// Names of the rules of `rules`, in order.
pub(crate) fn rule_names<T: Rewritable, Rs: RuleSet<T>>(rules: &Rs) -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl<T: Rewritable> RuleVisitor<T> for Names {
        fn visit<R: Rule<T>>(&mut self, _index: usize, rule: &R) {
            self.0.push(rule.name());
        }
    }
    let mut names = Names(Vec::with_capacity(Rs::LEN));
    rules.for_each_rule(0, &mut names);
    names.0
}
