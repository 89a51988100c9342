//! The traversal engine: one walk over a whole node family, running every
//! active rule's hooks at each node.
//!
//! Per node: the prepare hooks of the active rules in list order, then the
//! children (through the derived [`Node::walk_children`], which calls back
//! into the engine's [`Walker`] methods with each child's static type), then
//! the transform hooks. What a hook answers ([`Edit`](crate::Edit)) decides
//! what runs next:
//!
//! * `Keep`, `Changed`, `Replace`: the remaining rules of the phase run on
//!   the (new) node. Nothing is walked again: a replacement built in a
//!   transform hook is made of children that were already visited.
//! * `Restart`: the phase starts again from the first rule, in a loop (not
//!   by recursion), counted against the per-node restart budget.
//! * `Revisit`: the node is visited from scratch (prepare, children,
//!   transform), also a loop counted against the budget.
//! * `Remove`, `Splice`: only for list elements. A list (`Vec<N>`) is
//!   walked in place; removals and splices are collected and applied in one
//!   pass when the list is done, so the tree stays whole while rules run.
//!   Elements spliced in by a prepare hook are visited like any element
//!   (from the first rule; nested splices count against the budget);
//!   elements spliced in by a transform hook continue with the remaining
//!   transform hooks (see [`Edit::Splice`](crate::Edit::Splice)).
//!
//! The engine is monomorphised per rule list, node type, stack-growth
//! setting and "all rules active" (`const bool`s), so that the per-node
//! code is a straight line of inlined hooks: in a fused traversal of the
//! whole list, no rule is tested for being active. With stack growth on, each node costs one comparison of
//! the stack pointer; when the stack runs low the walk continues on a fresh
//! segment (`stacker`).
//!
//! Errors do not unwind through the walk as values: the engine keeps the
//! error aside and returns a zero-sized [`Stopped`] up the stack.

use crate::node::{drop_node, Graveyard, Kind, Node, Walker};
use crate::rule::{Env, Flow, PhaseState, RuleSet};

/// Stack kept free before recursing, when stack growth is on.
const RED_ZONE: usize = 1024 * 1024;
/// Size of each new stack segment, when stack growth is on.
const SEGMENT: usize = 16 * 1024 * 1024;

/// Engine settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) grow_stack: bool,
    pub(crate) restart_budget: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            grow_stack: true,
            restart_budget: 64,
        }
    }
}

/// Why a traversal stopped, with rule positions (the manager turns them
/// into names).
#[derive(Debug)]
pub(crate) enum EngineError<E> {
    Rule {
        rule: usize,
        kind: Kind,
        error: E,
    },
    Budget {
        rule: usize,
        kind: Kind,
        limit: u32,
    },
    NotInList {
        rule: usize,
        kind: Kind,
        edit: &'static str,
    },
}

/// The walk stopped; the reason is kept in the engine.
pub(crate) struct Stopped;

/// What became of a node.
enum Outcome<N> {
    Kept,
    Removed,
    Spliced(Vec<N>),
}

struct Engine<'r, X: Env, Rs, const GROW: bool, const FULL: bool> {
    rules: &'r Rs,
    ctx: &'r mut X::Ctx,
    fired: &'r mut [u64],
    lo: usize,
    hi: usize,
    ancestors: Vec<Kind>,
    error: Option<X::Error>,
    failure: Option<EngineError<()>>,
    budget: u32,
    /// How many prepare-order splices are being visited inside each other.
    splice_depth: u32,
    visits: u64,
    stack_low: usize,
    graveyard: Graveyard,
}

/// An address near the top of the current stack (stacks grow down on every
/// platform `stacker` supports).
#[inline(always)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::ptr::addr_of!(marker) as usize
}

/// The address below which the current stack segment has less than
/// `RED_ZONE` left (0 where `stacker` cannot tell: then no checks).
fn stack_low() -> usize {
    match stacker::remaining_stack() {
        Some(left) => (stack_pointer().saturating_sub(left)).saturating_add(RED_ZONE),
        None => 0,
    }
}

impl<X: Env, Rs: RuleSet<X>, const GROW: bool, const FULL: bool> Engine<'_, X, Rs, GROW, FULL> {
    #[inline(always)]
    fn phase<N: Node, const PRE: bool>(
        &mut self,
        node: &mut N,
        from: usize,
        in_list: bool,
    ) -> (Flow<N>, bool) {
        let rules = self.rules;
        let mut st = PhaseState::<X> {
            ctx: &mut *self.ctx,
            ancestors: if Rs::NEEDS_ANCESTORS {
                &self.ancestors
            } else {
                &[]
            },
            in_list,
            skip_children: false,
            fired: &mut *self.fired,
            error: &mut self.error,
            lo: self.lo,
            hi: self.hi,
            deep_drop: GROW,
            graveyard: &mut self.graveyard,
        };
        // The common case: every rule of the list, from the first.
        let flow = if FULL && from == 0 {
            rules.run_phase::<N, PRE, true>(0, 0, node, &mut st)
        } else {
            rules.run_phase::<N, PRE, false>(0, from, node, &mut st)
        };
        (flow, st.skip_children)
    }

    #[cold]
    fn fail(&mut self, e: EngineError<()>) -> Stopped {
        self.failure = Some(e);
        Stopped
    }

    #[inline(always)]
    fn count_restart<N: Node>(
        &mut self,
        restarts: &mut u32,
        rule: usize,
        node: &N,
    ) -> Result<(), Stopped> {
        *restarts += 1;
        if *restarts > self.budget {
            let e = EngineError::Budget {
                rule,
                kind: node.kind(),
                limit: self.budget,
            };
            return Err(self.fail(e));
        }
        Ok(())
    }

    /// Drops a node that left the tree (see `PhaseState::retire`).
    #[inline(always)]
    fn retire<N: Node>(&mut self, old: N) {
        if GROW {
            drop_node(old, &mut self.graveyard);
        } else {
            drop(old);
        }
    }

    /// Visits one node: prepare hooks from rule `from` (when `pre`),
    /// children, transform hooks (from `from` when not `pre`).
    #[inline(always)]
    fn visit_node<N: Node, const IN_LIST: bool>(
        &mut self,
        node: &mut N,
        start_pre: bool,
        start_from: usize,
    ) -> Result<Outcome<N>, Stopped> {
        self.visits += 1;
        let mut restarts = 0u32;
        let mut pre = start_pre;
        let mut from = start_from;
        loop {
            if pre {
                let skip = loop {
                    let (flow, skip) = self.phase::<N, true>(node, from, IN_LIST);
                    match flow {
                        Flow::Done => break skip,
                        Flow::Restart(r) | Flow::Revisit(r) => {
                            self.count_restart(&mut restarts, r, node)?;
                            from = 0;
                        }
                        Flow::Remove(r) => {
                            if IN_LIST {
                                return Ok(Outcome::Removed);
                            }
                            return Err(self.not_in_list(r, node, "Remove"));
                        }
                        Flow::Splice(mut v, r) => {
                            if IN_LIST {
                                // Fresh elements: visited as if they had
                                // been in the list, from the first rule;
                                // nested splices count as restarts.
                                let mut depth = self.splice_depth;
                                self.count_restart(&mut depth, r, node)?;
                                self.splice_depth += 1;
                                let visited = self.list_from(&mut v, true, 0);
                                self.splice_depth -= 1;
                                visited?;
                                return Ok(Outcome::Spliced(v));
                            }
                            self.splice_in_place(node, v, r)?;
                            from = r + 1;
                        }
                        Flow::Fail(r) => return Err(self.rule_failed(r, node)),
                    }
                };
                if !skip {
                    self.descend(node)?;
                }
                from = 0;
            }
            loop {
                match self.phase::<N, false>(node, from, IN_LIST).0 {
                    Flow::Done => return Ok(Outcome::Kept),
                    Flow::Restart(r) => {
                        self.count_restart(&mut restarts, r, node)?;
                        from = 0;
                    }
                    Flow::Revisit(r) => {
                        self.count_restart(&mut restarts, r, node)?;
                        pre = true;
                        from = 0;
                        break;
                    }
                    Flow::Remove(r) => {
                        if IN_LIST {
                            return Ok(Outcome::Removed);
                        }
                        return Err(self.not_in_list(r, node, "Remove"));
                    }
                    Flow::Splice(mut v, r) => {
                        if IN_LIST {
                            self.list_from(&mut v, false, r + 1)?;
                            return Ok(Outcome::Spliced(v));
                        }
                        self.splice_in_place(node, v, r)?;
                        from = r + 1;
                    }
                    Flow::Fail(r) => return Err(self.rule_failed(r, node)),
                }
            }
        }
    }

    /// A splice answered for a node that is not a list element: a
    /// one-element splice replaces the node, others are an error.
    #[cold]
    fn splice_in_place<N: Node>(
        &mut self,
        node: &mut N,
        mut v: Vec<N>,
        rule: usize,
    ) -> Result<(), Stopped> {
        match (v.pop(), v.is_empty()) {
            (Some(one), true) => {
                let old = std::mem::replace(node, one);
                self.retire(old);
                Ok(())
            }
            _ => Err(self.not_in_list(rule, node, "Splice")),
        }
    }

    #[cold]
    fn not_in_list<N: Node>(&mut self, rule: usize, node: &N, edit: &'static str) -> Stopped {
        let e = EngineError::NotInList {
            rule,
            kind: node.kind(),
            edit,
        };
        self.fail(e)
    }

    #[cold]
    fn rule_failed<N: Node>(&mut self, rule: usize, node: &N) -> Stopped {
        let e = EngineError::Rule {
            rule,
            kind: node.kind(),
            error: (),
        };
        self.fail(e)
    }

    /// Walks the node's children, on a new stack segment if the stack runs
    /// low.
    #[inline(always)]
    fn descend<N: Node>(&mut self, node: &mut N) -> Result<(), Stopped> {
        if Rs::NEEDS_ANCESTORS {
            self.ancestors.push(node.kind());
        }
        let r = if GROW && stack_pointer() < self.stack_low {
            self.descend_on_new_segment(node)
        } else {
            node.walk_children(self)
        };
        if Rs::NEEDS_ANCESTORS {
            self.ancestors.pop();
        }
        r
    }

    #[cold]
    #[inline(never)]
    fn descend_on_new_segment<N: Node>(&mut self, node: &mut N) -> Result<(), Stopped> {
        let saved = self.stack_low;
        let r = stacker::maybe_grow(RED_ZONE, SEGMENT, || {
            self.stack_low = stack_low();
            node.walk_children(self)
        });
        self.stack_low = saved;
        r
    }

    /// Visits the elements of `list` starting at the given phase and rule,
    /// then applies their removals and splices in one pass.
    fn list_from<N: Node>(
        &mut self,
        list: &mut Vec<N>,
        pre: bool,
        from: usize,
    ) -> Result<(), Stopped> {
        let mut edits: Vec<(usize, Option<Vec<N>>)> = Vec::new();
        for (i, element) in list.iter_mut().enumerate() {
            match self.visit_node::<N, true>(element, pre, from)? {
                Outcome::Kept => {}
                Outcome::Removed => edits.push((i, None)),
                Outcome::Spliced(v) => edits.push((i, Some(v))),
            }
        }
        if !edits.is_empty() {
            self.apply_edits(list, edits);
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_edits<N: Node>(&mut self, list: &mut Vec<N>, edits: Vec<(usize, Option<Vec<N>>)>) {
        let inserted: usize = edits
            .iter()
            .filter_map(|(_, v)| v.as_ref())
            .map(Vec::len)
            .sum();
        let old = std::mem::take(list);
        let mut out = Vec::with_capacity(old.len() - edits.len() + inserted);
        let mut edits = edits.into_iter().peekable();
        for (i, x) in old.into_iter().enumerate() {
            if edits.peek().is_some_and(|(j, _)| *j == i) {
                if let Some((_, replacement)) = edits.next() {
                    self.retire(x);
                    if let Some(v) = replacement {
                        out.extend(v);
                    }
                }
            } else {
                out.push(x);
            }
        }
        *list = out;
    }
}

impl<X: Env, Rs: RuleSet<X>, const GROW: bool, const FULL: bool> Walker
    for Engine<'_, X, Rs, GROW, FULL>
{
    type Stop = Stopped;

    #[inline]
    fn visit<N: Node>(&mut self, node: &mut N) -> Result<(), Stopped> {
        match self.visit_node::<N, false>(node, true, 0)? {
            Outcome::Kept => Ok(()),
            // `visit_node::<_, false>` reports removals and splices as errors.
            Outcome::Removed | Outcome::Spliced(_) => Ok(()),
        }
    }

    #[inline]
    fn visit_list<N: Node>(&mut self, list: &mut Vec<N>) -> Result<(), Stopped> {
        self.list_from(list, true, 0)
    }
}

/// What one traversal did.
pub(crate) struct Traversal {
    pub(crate) visits: u64,
}

/// Runs one traversal of rules `lo..hi` of `rules` over `tree`, in place.
/// Firings of rule *i* are counted in `fired[i]`.
pub(crate) fn run_traversal<X: Env, Rs: RuleSet<X>, T: Node>(
    rules: &Rs,
    tree: &mut T,
    ctx: &mut X::Ctx,
    fired: &mut [u64],
    (lo, hi): (usize, usize),
    config: Config,
) -> Result<Traversal, EngineError<X::Error>> {
    macro_rules! go {
        ($grow:literal, $full:literal) => {{
            let mut engine = Engine::<X, Rs, $grow, $full> {
                rules,
                ctx,
                fired,
                lo,
                hi,
                ancestors: Vec::new(),
                error: None,
                failure: None,
                budget: config.restart_budget,
                splice_depth: 0,
                visits: 0,
                stack_low: if $grow { stack_low() } else { 0 },
                graveyard: Vec::new(),
            };
            let r = engine.visit(tree);
            let visits = engine.visits;
            match (r, engine.failure, engine.error) {
                (Ok(()), _, _) => Ok(Traversal { visits }),
                (Err(Stopped), Some(EngineError::Rule { rule, kind, .. }), Some(error)) => {
                    Err(EngineError::Rule { rule, kind, error })
                }
                (Err(Stopped), Some(EngineError::Budget { rule, kind, limit }), _) => {
                    Err(EngineError::Budget { rule, kind, limit })
                }
                (Err(Stopped), Some(EngineError::NotInList { rule, kind, edit }), _) => {
                    Err(EngineError::NotInList { rule, kind, edit })
                }
                (Err(Stopped), _, _) => unreachable!("the engine stopped without recording why"),
            }
        }};
    }
    match (config.grow_stack, lo == 0 && hi == Rs::LEN) {
        (true, true) => go!(true, true),
        (true, false) => go!(true, false),
        (false, true) => go!(false, true),
        (false, false) => go!(false, false),
    }
}
