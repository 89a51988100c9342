//! Rules: typed hooks per node type, composed statically.
//!
//! A rule is a value (usually a unit struct) with
//!
//! * one [`Hook`] implementation per node type it cares about, each with a
//!   pre-order [`prepare`](Hook::prepare) and a post-order
//!   [`transform`](Hook::transform) method (both default to "keep"), and
//! * one [`Rule`] implementation that lists those types
//!   ([`Rule::Handles`], a tuple such as `(Expr, Stmt)`), names the rule and
//!   declares its ordering constraints.
//!
//! The engine is generic over the node type it is visiting; for each rule it
//! asks the rule's `Handles` list whether the node's type is in it
//! ([`Handles`] compares `TypeId`s, which the compiler folds to constants),
//! so a rule costs nothing at node types it does not handle and its hook is
//! a direct, inlinable call at the types it does. Rule lists are type-level
//! lists ([`Chain`]`<A, Chain<B, End>>`, from tuples or [`rules!`]); no
//! `dyn`, no allocation per node.
//!
//! A hook gets the node in place (`&mut`) and a [`Cx`] (the user context
//! `&mut Ctx`, the ancestors' kinds, whether the node is a list element),
//! and answers with an [`Edit`]: keep, changed in place, replace, restart,
//! revisit, remove, or splice. Hooks are fallible with the user's error type
//! ([`Env::Error`]).

use std::any::Any;
use std::convert::Infallible;

use crate::node::{drop_node, Graveyard, Kind, Node};

/// The environment of a pass: the user context threaded through every hook
/// and the error type hooks may fail with.
///
/// `()` is the environment with no context and no errors. Rules that need
/// neither are written generically (`impl<X: Env> Hook<Expr, X> for R`) and
/// run in any environment.
pub trait Env: 'static {
    /// The user context, handed to every hook as `cx.ctx()`.
    type Ctx;
    /// What a hook may fail with.
    type Error;
}

impl Env for () {
    type Ctx = ();
    type Error = Infallible;
}

/// What a hook did with its node.
///
/// After `Keep`, `Changed` and `Replace` the *remaining* rules of the phase
/// run on the (new) node; nothing is walked again. `Restart` runs the
/// phase's hooks again from the first rule on the new node (the
/// open-recursion `first`); `Revisit` walks the new node completely
/// (prepare hooks, children, transform hooks), for a freshly built subtree
/// that has not been seen yet. Every variant but `Keep` counts as the rule
/// firing.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit<N> {
    /// The node is unchanged.
    Keep,
    /// The hook changed the node in place.
    Changed,
    /// Replace the node; the remaining rules continue on the new node.
    Replace(N),
    /// Replace the node and run the phase's hooks again from the first rule
    /// (bounded by the pass manager's restart budget).
    Restart(N),
    /// Replace the node and visit it from scratch: prepare hooks, children,
    /// transform hooks (bounded by the restart budget).
    Revisit(N),
    /// Remove the node from its list (only for elements of a `Vec`).
    Remove,
    /// Replace the node by these nodes in its list (only for elements of a
    /// `Vec`; a one-element splice is also allowed elsewhere, as a
    /// replacement). In a prepare hook the new elements are visited as if
    /// they had been in the list (every prepare hook from the first,
    /// children, transform hooks; nested splices count against the restart
    /// budget); in a transform hook they are made of visited nodes, and the
    /// remaining transform hooks run on each of them.
    Splice(Vec<N>),
}

impl<N> Edit<N> {
    /// Name of the variant, for error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Edit::Keep => "Keep",
            Edit::Changed => "Changed",
            Edit::Replace(_) => "Replace",
            Edit::Restart(_) => "Restart",
            Edit::Revisit(_) => "Revisit",
            Edit::Remove => "Remove",
            Edit::Splice(_) => "Splice",
        }
    }
}

/// What a hook sees besides its node.
pub struct Cx<'a, X: Env> {
    pub(crate) ctx: &'a mut X::Ctx,
    pub(crate) ancestors: &'a [Kind],
    pub(crate) in_list: bool,
    pub(crate) skip_children: bool,
    pub(crate) rule: usize,
}

impl<X: Env> Cx<'_, X> {
    /// The user context.
    #[inline(always)]
    pub fn ctx(&mut self) -> &mut X::Ctx {
        self.ctx
    }

    /// Kinds of the ancestors, root first, parent last. Empty unless some
    /// rule of the pass manager sets [`Rule::NEEDS_ANCESTORS`] (keeping the
    /// ancestor stack costs a push and a pop per node).
    #[inline(always)]
    pub fn ancestors(&self) -> &[Kind] {
        self.ancestors
    }

    /// The parent's kind (see [`ancestors`](Cx::ancestors)).
    #[inline(always)]
    pub fn parent(&self) -> Option<Kind> {
        self.ancestors.last().copied()
    }

    /// Whether the node is an element of a `Vec` (so that
    /// [`Edit::Remove`] and [`Edit::Splice`] are allowed).
    #[inline(always)]
    pub fn in_list(&self) -> bool {
        self.in_list
    }

    /// From a prepare hook: do not walk this node's children (transform
    /// hooks still run).
    #[inline(always)]
    pub fn skip_children(&mut self) {
        self.skip_children = true;
    }

    /// Position of the running rule in the pass manager's list.
    #[inline(always)]
    pub fn rule_index(&self) -> usize {
        self.rule
    }
}

/// A rule's hooks for node type `N` in environment `X`. Both default to
/// [`Edit::Keep`]; implement the ones the rule needs.
///
/// Mark them `#[inline(always)]` (or at least `#[inline]`): the fused
/// traversal is as fast as a hand-written one only when every hook inlines
/// into the engine's per-node code.
pub trait Hook<N: Node, X: Env> {
    /// Pre-order: runs before the node's children are walked.
    #[inline(always)]
    fn prepare(&self, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
        let _ = (node, cx);
        Ok(Edit::Keep)
    }

    /// Post-order: runs after the node's children were walked.
    #[inline(always)]
    fn transform(&self, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
        let _ = (node, cx);
        Ok(Edit::Keep)
    }
}

/// A rewrite rule in environment `X`: which node types it has hooks for,
/// its name, and its ordering constraints.
///
/// ```
/// use treefuse_rewrite::{Cx, Edit, Env, Hook, Rule};
/// use treefuse_rewrite::toy::Expr;
///
/// /// `if true then a else b => a`, `if false then a else b => b`
/// struct Dce;
/// impl<X: Env> Rule<X> for Dce {
///     type Handles = (Expr,);
/// }
/// impl<X: Env> Hook<Expr, X> for Dce {
///     fn prepare(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
///         Ok(match e {
///             Expr::If { cond, then, els } => match **cond {
///                 Expr::Bool(true) => Edit::Restart(std::mem::take(&mut **then)),
///                 Expr::Bool(false) => Edit::Restart(std::mem::take(&mut **els)),
///                 _ => Edit::Keep,
///             },
///             _ => Edit::Keep,
///         })
///     }
/// }
/// ```
pub trait Rule<X: Env> {
    /// The node types this rule has [`Hook`]s for: a tuple of up to eight
    /// types, e.g. `(Expr,)` or `(Stmt, Function)`.
    type Handles: Handles<Self, X>;

    /// Whether the rule reads [`Cx::ancestors`]. The engine keeps the
    /// ancestor stack only if some rule of the pass manager needs it.
    const NEEDS_ANCESTORS: bool = false;

    /// Name used in statistics, errors and ordering constraints. Defaults to
    /// the type's name without its module path.
    fn name(&self) -> &'static str {
        short_type_name::<Self>()
    }

    /// Rules that must come before this one in the pass manager's list
    /// (checked when the pass manager is built).
    fn runs_after(&self) -> &'static [&'static str] {
        &[]
    }

    /// Rules that must have finished their traversal before this one starts:
    /// they must come earlier in the list *and* this rule is not fused with
    /// them (Scala's MegaPhase `runsAfterGroupsOf`). The pass manager splits
    /// the fused traversal into groups accordingly.
    fn runs_after_groups_of(&self) -> &'static [&'static str] {
        &[]
    }
}

pub(crate) fn short_type_name<R: ?Sized>() -> &'static str {
    let full = std::any::type_name::<R>();
    let end = full.find('<').unwrap_or(full.len());
    match full[..end].rfind("::") {
        Some(i) => &full[i + 2..],
        None => full,
    }
}

/// The list of node types a rule handles (see [`Rule::Handles`]):
/// implemented for tuples of up to eight node types.
pub trait Handles<R: ?Sized, X: Env> {
    /// Runs the rule's prepare hook if `N` is in the list.
    fn prepare<N: Node>(rule: &R, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error>;
    /// Runs the rule's transform hook if `N` is in the list.
    fn transform<N: Node>(rule: &R, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error>;
    /// Names of the types in the list.
    fn type_names() -> Vec<&'static str>;
}

/// Moves a value of type `A` into type `B`, which the caller knows is the
/// same type.
#[inline(always)]
fn same_type<A: 'static, B: 'static>(a: A) -> B {
    let mut slot = Some(a);
    match (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<B>>()
        .and_then(Option::take)
    {
        Some(b) => b,
        None => unreachable!("same_type called with two different types"),
    }
}

/// An `Edit<A>` as an `Edit<N>`, when `A` and `N` are the same type.
#[inline(always)]
fn retype<A: 'static, N: 'static, E>(r: Result<Edit<A>, E>) -> Result<Edit<N>, E> {
    match r {
        Ok(Edit::Keep) => Ok(Edit::Keep),
        Ok(Edit::Changed) => Ok(Edit::Changed),
        Ok(Edit::Remove) => Ok(Edit::Remove),
        Ok(Edit::Replace(a)) => Ok(Edit::Replace(same_type(a))),
        Ok(Edit::Restart(a)) => Ok(Edit::Restart(same_type(a))),
        Ok(Edit::Revisit(a)) => Ok(Edit::Revisit(same_type(a))),
        Ok(Edit::Splice(v)) => Ok(Edit::Splice(same_type(v))),
        Err(e) => Err(e),
    }
}

impl<R: ?Sized, X: Env> Handles<R, X> for () {
    #[inline(always)]
    fn prepare<N: Node>(_: &R, _: &mut N, _: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
        Ok(Edit::Keep)
    }
    #[inline(always)]
    fn transform<N: Node>(_: &R, _: &mut N, _: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
        Ok(Edit::Keep)
    }
    fn type_names() -> Vec<&'static str> {
        Vec::new()
    }
}

macro_rules! tuple_handles {
    ($($t:ident)+) => {
        impl<R: ?Sized $(+ Hook<$t, X>)+, X: Env, $($t: Node),+> Handles<R, X> for ($($t,)+) {
            #[inline(always)]
            fn prepare<N: Node>(rule: &R, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
                $(
                    if let Some(n) = (node as &mut dyn Any).downcast_mut::<$t>() {
                        return retype(<R as Hook<$t, X>>::prepare(rule, n, cx));
                    }
                )+
                Ok(Edit::Keep)
            }
            #[inline(always)]
            fn transform<N: Node>(rule: &R, node: &mut N, cx: &mut Cx<'_, X>) -> Result<Edit<N>, X::Error> {
                $(
                    if let Some(n) = (node as &mut dyn Any).downcast_mut::<$t>() {
                        return retype(<R as Hook<$t, X>>::transform(rule, n, cx));
                    }
                )+
                Ok(Edit::Keep)
            }
            fn type_names() -> Vec<&'static str> {
                vec![$($t::TYPE_NAME),+]
            }
        }
    };
}

tuple_handles!(A);
tuple_handles!(A B);
tuple_handles!(A B C);
tuple_handles!(A B C D);
tuple_handles!(A B C D E);
tuple_handles!(A B C D E F);
tuple_handles!(A B C D E F G);
tuple_handles!(A B C D E F G H);

/// Non-empty link of a rule list: the rule `.0` followed by the list `.1`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Chain<H, Rest>(pub H, pub Rest);

/// The empty rule list.
#[derive(Clone, Copy, Debug, Default)]
pub struct End;

/// Description of one rule of a list, for checks and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// [`Rule::name`].
    pub name: &'static str,
    /// [`Rule::runs_after`].
    pub runs_after: &'static [&'static str],
    /// [`Rule::runs_after_groups_of`].
    pub runs_after_groups_of: &'static [&'static str],
    /// The node types the rule handles.
    pub handles: Vec<&'static str>,
}

/// How a phase (all prepare hooks, or all transform hooks) ended on a node.
pub enum Flow<N> {
    /// Every rule ran; the node is in place.
    Done,
    /// A rule asked for the phase to start again from the first rule.
    Restart(usize),
    /// A rule asked for the node to be visited from scratch.
    Revisit(usize),
    /// A rule removed the node (rule index).
    Remove(usize),
    /// A rule replaced the node by a list (rule index).
    Splice(Vec<N>, usize),
    /// A rule failed (rule index, error).
    Fail(usize),
}

/// The part of the engine a rule list needs while it runs a phase.
pub struct PhaseState<'a, X: Env> {
    pub(crate) ctx: &'a mut X::Ctx,
    pub(crate) ancestors: &'a [Kind],
    pub(crate) in_list: bool,
    pub(crate) skip_children: bool,
    pub(crate) fired: &'a mut [u64],
    pub(crate) error: &'a mut Option<X::Error>,
    /// Rules `lo..hi` of the list run; the others are skipped.
    pub(crate) lo: usize,
    pub(crate) hi: usize,
    /// Whether replaced nodes are dropped iteratively (see `retire`).
    pub(crate) deep_drop: bool,
    pub(crate) graveyard: &'a mut Graveyard,
}

impl<X: Env> PhaseState<'_, X> {
    /// Drops a node a rule replaced: iteratively when deep trees are
    /// expected (a discarded subtree may be as deep as the tree), plainly
    /// otherwise.
    #[inline(always)]
    pub(crate) fn retire<N: Node>(&mut self, old: N) {
        if self.deep_drop {
            drop_node(old, self.graveyard);
        } else {
            drop(old);
        }
    }
}

/// A statically composed list of rules ([`Chain`]s ending in [`End`]).
/// Implemented by the crate; users build lists from tuples or [`rules!`].
pub trait RuleSet<X: Env> {
    /// Number of rules.
    const LEN: usize;
    /// Whether some rule reads the ancestors.
    const NEEDS_ANCESTORS: bool;

    /// Runs the prepare hooks (`PRE`) or the transform hooks of the rules
    /// from position `from` on (and inside `st.lo..st.hi`) on `node`;
    /// `index` is the position of this list's first rule. `ALL` says that
    /// every rule runs (`from` is 0 and the range is the whole list), so
    /// that the common case tests nothing per rule.
    fn run_phase<N: Node, const PRE: bool, const ALL: bool>(
        &self,
        index: usize,
        from: usize,
        node: &mut N,
        st: &mut PhaseState<'_, X>,
    ) -> Flow<N>;

    /// Appends a description of every rule.
    fn describe(&self, out: &mut Vec<RuleInfo>);
}

impl<X: Env> RuleSet<X> for End {
    const LEN: usize = 0;
    const NEEDS_ANCESTORS: bool = false;
    #[inline(always)]
    fn run_phase<N: Node, const PRE: bool, const ALL: bool>(
        &self,
        _: usize,
        _: usize,
        _: &mut N,
        _: &mut PhaseState<'_, X>,
    ) -> Flow<N> {
        Flow::Done
    }
    fn describe(&self, _: &mut Vec<RuleInfo>) {}
}

impl<X: Env, H: Rule<X>, Rest: RuleSet<X>> RuleSet<X> for Chain<H, Rest> {
    const LEN: usize = 1 + Rest::LEN;
    const NEEDS_ANCESTORS: bool = H::NEEDS_ANCESTORS || Rest::NEEDS_ANCESTORS;

    #[inline(always)]
    fn run_phase<N: Node, const PRE: bool, const ALL: bool>(
        &self,
        index: usize,
        from: usize,
        node: &mut N,
        st: &mut PhaseState<'_, X>,
    ) -> Flow<N> {
        if ALL || (index >= from && index >= st.lo && index < st.hi) {
            let mut cx = Cx::<X> {
                ctx: st.ctx,
                ancestors: st.ancestors,
                in_list: st.in_list,
                skip_children: false,
                rule: index,
            };
            let r = if PRE {
                H::Handles::prepare(&self.0, node, &mut cx)
            } else {
                H::Handles::transform(&self.0, node, &mut cx)
            };
            st.skip_children |= cx.skip_children;
            match r {
                Ok(Edit::Keep) => {}
                Ok(Edit::Changed) => st.fired[index] += 1,
                Ok(Edit::Replace(m)) => {
                    st.fired[index] += 1;
                    st.retire(std::mem::replace(node, m));
                }
                Ok(Edit::Restart(m)) => {
                    st.fired[index] += 1;
                    st.retire(std::mem::replace(node, m));
                    return Flow::Restart(index);
                }
                Ok(Edit::Revisit(m)) => {
                    st.fired[index] += 1;
                    st.retire(std::mem::replace(node, m));
                    return Flow::Revisit(index);
                }
                Ok(Edit::Remove) => {
                    st.fired[index] += 1;
                    return Flow::Remove(index);
                }
                Ok(Edit::Splice(v)) => {
                    st.fired[index] += 1;
                    return Flow::Splice(v, index);
                }
                Err(e) => {
                    *st.error = Some(e);
                    return Flow::Fail(index);
                }
            }
        }
        self.1.run_phase::<N, PRE, ALL>(index + 1, from, node, st)
    }

    fn describe(&self, out: &mut Vec<RuleInfo>) {
        out.push(RuleInfo {
            name: self.0.name(),
            runs_after: self.0.runs_after(),
            runs_after_groups_of: self.0.runs_after_groups_of(),
            handles: <H::Handles as Handles<H, X>>::type_names(),
        });
        self.1.describe(out);
    }
}

/// Conversion of a tuple of rules (up to 12) or a ready [`Chain`] into a
/// rule list.
pub trait IntoRuleSet {
    /// The resulting [`Chain`] type.
    type Rules;
    /// Converts.
    fn into_rule_set(self) -> Self::Rules;
}

impl<H, Rest> IntoRuleSet for Chain<H, Rest> {
    type Rules = Self;
    fn into_rule_set(self) -> Self {
        self
    }
}

impl IntoRuleSet for End {
    type Rules = Self;
    fn into_rule_set(self) -> Self {
        self
    }
}

macro_rules! tuple_into_rule_set {
    ($($name:ident)+) => {
        impl<$($name),+> IntoRuleSet for ($($name,)+) {
            type Rules = tuple_into_rule_set!(@ty $($name)+);
            #[allow(non_snake_case)]
            fn into_rule_set(self) -> Self::Rules {
                let ($($name,)+) = self;
                tuple_into_rule_set!(@val $($name)+)
            }
        }
    };
    (@ty $head:ident $($tail:ident)*) => { Chain<$head, tuple_into_rule_set!(@ty $($tail)*)> };
    (@ty) => { End };
    (@val $head:ident $($tail:ident)*) => { Chain($head, tuple_into_rule_set!(@val $($tail)*)) };
    (@val) => { End };
}

tuple_into_rule_set!(A);
tuple_into_rule_set!(A B);
tuple_into_rule_set!(A B C);
tuple_into_rule_set!(A B C D);
tuple_into_rule_set!(A B C D E);
tuple_into_rule_set!(A B C D E F);
tuple_into_rule_set!(A B C D E F G);
tuple_into_rule_set!(A B C D E F G H);
tuple_into_rule_set!(A B C D E F G H I);
tuple_into_rule_set!(A B C D E F G H I J);
tuple_into_rule_set!(A B C D E F G H I J K);
tuple_into_rule_set!(A B C D E F G H I J K L);

/// Builds a rule list of any length: `rules![a, b, c]` is
/// `Chain(a, Chain(b, Chain(c, End)))`.
#[macro_export]
macro_rules! rules {
    () => { $crate::End };
    ($head:expr $(, $tail:expr)* $(,)?) => {
        $crate::Chain($head, $crate::rules!($($tail),*))
    };
}
