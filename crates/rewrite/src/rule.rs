//! Rules in open-recursion style and their static composition.
//!
//! # Why open recursion
//!
//! A rule written as a plain recursive function (`fn dce(e) -> e { match e {
//! .. other => map(dce, other) } }`) owns its traversal, so two such rules
//! always mean two traversals. A rule written in open-recursion style does not
//! recurse itself. It receives two continuations:
//!
//! * [`Context::first`]: run the *whole* pipeline (all rules, then the
//!   children) on a node — what a rule calls after rewriting, to keep
//!   simplifying its result;
//! * [`Context::next`]: hand the node, unchanged, to the *remaining* rules —
//!   what a rule calls when it does not match. After the last rule, `next`
//!   rebuilds the node's children with `first` (top-down) and the knot is
//!   tied.
//!
//! The same rule value therefore works alone (pipeline of one rule: a normal
//! recursive pass), fused with others (one traversal), or repeatedly.
//!
//! # Why a cons list of generics
//!
//! A rule list is a type-level list `Chain<A, Chain<B, Chain<C, End>>>`
//! (built from a tuple `(A, B, C)` or with [`rules!`](crate::rules)). The
//! context handed to rule *i* is a small struct whose type names the tail of
//! the list, so `cx.next(node)` is a direct, inlinable call to rule *i + 1*
//! and `cx.first(node)` a direct call to the driver. There is no `dyn`, no
//! boxed closure and no allocation per node: after monomorphisation the
//! fused pipeline compiles to the same shape as a hand-written `match` that
//! tries the rules in turn.

use crate::tree::Rewritable;

/// The handles a rule receives: restart the pipeline (`first`), defer to the
/// remaining rules (`next`), and report that the rule fired.
///
/// Implemented by the engine; rules take it as `&mut impl Context<T>`.
pub trait Context<T> {
    /// Runs the whole pipeline (every rule, from the first, then the
    /// children) on `node` and returns the result. Does not by itself count
    /// as the rule having fired.
    fn first(&mut self, node: T) -> T;

    /// Hands `node` to the remaining rules; after the last rule the node's
    /// children are rebuilt (top-down order) or the node is returned as is
    /// (bottom-up order). A rule that does not match must call this with the
    /// node unchanged.
    fn next(&mut self, node: T) -> T;

    /// Records that the current rule fired (rewrote something). Costs one
    /// counter increment. The pass manager's fixpoint mode stops when a whole
    /// round records no firing, so a rule that changes the tree must report
    /// it (directly or through [`replace`](Context::replace)).
    fn fired(&mut self);

    /// Records that the current rule fired and restarts the pipeline on the
    /// replacement: `cx.replace(n)` is `cx.fired(); cx.first(n)`. This is
    /// the usual way for a matching rule to finish.
    #[inline]
    fn replace(&mut self, node: T) -> T {
        self.fired();
        self.first(node)
    }

    /// Position of the current rule in its rule list (0-based).
    fn rule_index(&self) -> usize;
}

/// One rewrite rule over trees of type `T`, in open-recursion style.
///
/// ```
/// use treefuse_rewrite::{Context, Rule};
/// use treefuse_rewrite::toy::Expr;
///
/// /// `if true then a else b => a`, `if false then a else b => b`
/// struct Dce;
/// impl Rule<Expr> for Dce {
///     fn rewrite(&self, e: Expr, cx: &mut impl Context<Expr>) -> Expr {
///         match e {
///             Expr::If { cond, then, els } if matches!(*cond, Expr::Bool(_)) => {
///                 if *cond == Expr::Bool(true) { cx.replace(*then) } else { cx.replace(*els) }
///             }
///             other => cx.next(other),
///         }
///     }
/// }
/// ```
///
/// # Performance
///
/// The fused pipeline is as fast as a hand-written `match` only when the
/// compiler inlines every rule into the engine's per-node function. Mark
/// `rewrite` `#[inline(always)]` (or at least `#[inline]`): on the toy
/// benchmark, `#[inline]` alone left the rules out of line and cost about
/// 45% more instructions per node than `#[inline(always)]` (measured with
/// cachegrind; see the crate README).
///
/// # Termination
///
/// Within one traversal a replacement is re-examined from the first rule
/// (that is what `first` means), so a rule set that can rewrite a node into
/// itself, or two rules that undo each other, loop inside a single pass (and
/// eventually overflow the stack). The fixpoint bound of the
/// [`PassManager`](crate::PassManager) counts whole rounds and cannot catch
/// that; keep every rule strictly "simplifying".
pub trait Rule<T> {
    /// Rewrites `node`: when the rule matches, return the rewritten node
    /// (normally through [`Context::replace`]); otherwise return
    /// `cx.next(node)`.
    ///
    /// A rule may also call `cx.next` and then post-process what it returns,
    /// or call `cx.first` on parts of the node; any change it makes itself
    /// must be reported with [`Context::fired`].
    fn rewrite(&self, node: T, cx: &mut impl Context<T>) -> T;

    /// Name used in reports and errors. Defaults to the type's name without
    /// its module path.
    fn name(&self) -> &'static str {
        short_type_name::<Self>()
    }
}

impl<T, R: Rule<T> + ?Sized> Rule<T> for &R {
    #[inline(always)]
    fn rewrite(&self, node: T, cx: &mut impl Context<T>) -> T {
        (**self).rewrite(node, cx)
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

fn short_type_name<R: ?Sized>() -> &'static str {
    let full = std::any::type_name::<R>();
    // Strip the module path of the outermost type (keep generic arguments).
    let end = full.find('<').unwrap_or(full.len());
    match full[..end].rfind("::") {
        Some(i) => &full[i + 2..],
        None => full,
    }
}

/// What the engine provides to a rule list: the pipeline restart, the end of
/// the rule list, and the firing counter.
///
/// Implemented by the crate's engine; it appears in [`RuleSet`]'s signature
/// only so that rule lists can be generic over it. Users do not implement
/// or call it.
pub trait Driver<T> {
    /// Runs the whole pipeline on `node`.
    fn first(&mut self, node: T) -> T;
    /// Called when every rule deferred: rebuild the children (top-down) or
    /// return the node (bottom-up).
    fn finish(&mut self, node: T) -> T;
    /// Records that rule number `rule` (in this list) fired.
    fn record_fired(&mut self, rule: usize);
}

/// The context handed to one rule of a list: a driver and the tail of the
/// list.
struct Cx<'a, D, Rest> {
    driver: &'a mut D,
    rest: &'a Rest,
    index: usize,
}

impl<T: Rewritable, D: Driver<T>, Rest: RuleSet<T>> Context<T> for Cx<'_, D, Rest> {
    #[inline(always)]
    fn first(&mut self, node: T) -> T {
        self.driver.first(node)
    }
    #[inline(always)]
    fn next(&mut self, node: T) -> T {
        self.rest.apply(node, self.driver, self.index + 1)
    }
    #[inline(always)]
    fn fired(&mut self) {
        self.driver.record_fired(self.index);
    }
    #[inline(always)]
    fn rule_index(&self) -> usize {
        self.index
    }
}

/// Non-empty link of a rule list: the rule `.0` followed by the list `.1`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Chain<H, Rest>(pub H, pub Rest);

/// The empty rule list: hands the node back to the driver (which rebuilds
/// its children in top-down order).
#[derive(Clone, Copy, Debug, Default)]
pub struct End;

/// A statically composed list of rules ([`Chain`]s ending in [`End`]).
pub trait RuleSet<T: Rewritable> {
    /// Number of rules.
    const LEN: usize;

    /// Runs the list on `node`; `index` is the position of the list's first
    /// rule in the whole pipeline.
    fn apply<D: Driver<T>>(&self, node: T, driver: &mut D, index: usize) -> T;

    /// Calls `f(index, rule)` for each rule with its position, as a
    /// single-rule list, so that the rules can be run one by one.
    fn for_each_rule<V: RuleVisitor<T>>(&self, index: usize, v: &mut V);
}

/// Receives the rules of a [`RuleSet`] one at a time (used to run each rule
/// as its own pass, and to collect names).
pub trait RuleVisitor<T: Rewritable> {
    /// Called for the rule at position `index`.
    fn visit<R: Rule<T>>(&mut self, index: usize, rule: &R);
}

impl<T: Rewritable> RuleSet<T> for End {
    const LEN: usize = 0;
    #[inline(always)]
    fn apply<D: Driver<T>>(&self, node: T, driver: &mut D, _index: usize) -> T {
        driver.finish(node)
    }
    fn for_each_rule<V: RuleVisitor<T>>(&self, _index: usize, _v: &mut V) {}
}

impl<T: Rewritable, H: Rule<T>, Rest: RuleSet<T>> RuleSet<T> for Chain<H, Rest> {
    const LEN: usize = 1 + Rest::LEN;
    #[inline(always)]
    fn apply<D: Driver<T>>(&self, node: T, driver: &mut D, index: usize) -> T {
        let mut cx = Cx {
            driver,
            rest: &self.1,
            index,
        };
        self.0.rewrite(node, &mut cx)
    }
    fn for_each_rule<V: RuleVisitor<T>>(&self, index: usize, v: &mut V) {
        v.visit(index, &self.0);
        self.1.for_each_rule(index + 1, v);
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
///
/// ```
/// use treefuse_rewrite::{rules, PassManager};
/// use treefuse_rewrite::toy::{ConstantDivision, DeadCodeElimination, Expr, RedundantLet};
/// let mut pm = PassManager::new(rules![DeadCodeElimination, ConstantDivision, RedundantLet]);
/// assert_eq!(pm.fused(Expr::divide(Expr::Num(9), Expr::Num(3))), Expr::Num(3));
/// ```
#[macro_export]
macro_rules! rules {
    () => { $crate::End };
    ($head:expr $(, $tail:expr)* $(,)?) => {
        $crate::Chain($head, $crate::rules!($($tail),*))
    };
}
