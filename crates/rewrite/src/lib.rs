//! Rewrite-rule fusion for your own Rust ASTs.
//!
//! Write each rewrite rule on its own, in *open-recursion* style; combine
//! rules statically into one traversal; let a [`PassManager`] run the same
//! rules fused, one by one, or to a fixpoint per optimisation level; and
//! check that fused and unfused runs agree on what they are guaranteed to
//! agree on. This is the approach of "pass fusion with open recursion"
//! (`first`/`next` continuations) and of Scala 3's MegaPhase, which fuses
//! many small "miniphases" into one tree traversal — here with typed,
//! zero-cost composition and a built-in equivalence check.
//!
//! ```
//! use treefuse_rewrite::{CheckMode, Context, PassManager, Rewritable, Rule};
//!
//! // 1. Your AST; the derive finds the children (`Box`/`Vec`/`Option` of Self).
//! #[derive(Clone, Debug, PartialEq, Rewritable)]
//! enum E {
//!     Num(i64),
//!     Neg(Box<E>),
//!     Add(Vec<E>),
//! }
//!
//! // 2. Rules: match and `replace` (restart the pipeline), or defer with `next`.
//! struct DoubleNeg; // --x => x
//! impl Rule<E> for DoubleNeg {
//!     fn rewrite(&self, e: E, cx: &mut impl Context<E>) -> E {
//!         match e {
//!             E::Neg(inner) if matches!(*inner, E::Neg(_)) => match *inner {
//!                 E::Neg(x) => cx.replace(*x),
//!                 other => cx.next(E::Neg(Box::new(other))),
//!             },
//!             other => cx.next(other),
//!         }
//!     }
//! }
//! struct FoldAdd; // add of literals => literal
//! impl Rule<E> for FoldAdd {
//!     fn rewrite(&self, e: E, cx: &mut impl Context<E>) -> E {
//!         match e {
//!             E::Add(xs) if xs.iter().all(|x| matches!(x, E::Num(_))) => {
//!                 let sum = xs.iter().map(|x| if let E::Num(n) = x { *n } else { 0 }).sum();
//!                 cx.replace(E::Num(sum))
//!             }
//!             other => cx.next(other),
//!         }
//!     }
//! }
//!
//! // 3. Compose statically (a tuple) and run.
//! let mut pm = PassManager::new((DoubleNeg, FoldAdd));
//! let e = E::Add(vec![E::Num(1), E::Neg(Box::new(E::Neg(Box::new(E::Num(2)))))]);
//! assert_eq!(pm.fused(e.clone()), E::Add(vec![E::Num(1), E::Num(2)])); // one traversal
//! assert_eq!(pm.fixpoint(e.clone(), treefuse_rewrite::Round::Fused, 8).unwrap(), E::Num(3));
//! // Fused and one-by-one fixpoints agree (the rules are confluent):
//! assert_eq!(pm.check(e, CheckMode::Fixpoint { max_rounds: 8 }).unwrap(), E::Num(3));
//! assert_eq!(pm.rule_names(), ["DoubleNeg", "FoldAdd"]);
//! ```
//!
//! # How it is put together, and why
//!
//! * [`Rewritable`] (derivable) exposes the *direct* children of a node:
//!   rebuild them ([`Rewritable::map_children`], the blog's `map`) or look at
//!   them. The recursion lives in the engine, so one trait serves top-down,
//!   bottom-up, fused and one-rule traversals. See [`tree`].
//! * A [`Rule`] never recurses itself. It gets a [`Context`] with
//!   [`first`](Context::first) (restart the whole fused pipeline on a node),
//!   [`next`](Context::next) (defer to the remaining rules; after the last
//!   one the children are rebuilt) and [`fired`](Context::fired) /
//!   [`replace`](Context::replace) (report a rewrite). See [`rule`].
//! * Rule lists are type-level lists ([`Chain`]`<A, Chain<B, End>>`, built
//!   from tuples or [`rules!`]). Each rule's context type names the rest of
//!   the list, so `next` and `first` are direct calls that the compiler
//!   inlines: no `dyn`, no boxed closures, no allocation per node. The
//!   benchmark (`examples/fusion_bench.rs`) measures the result against a
//!   hand-written fused `match`.
//! * The [`PassManager`] runs one rule list in any [`Mode`]: fused, one by
//!   one (each rule its own traversal, reusing the very same rule values as
//!   single-rule pipelines), or to a bounded fixpoint; [`OptLevel`] picks the
//!   mode. Rules report firing into per-rule counters (one increment per
//!   rewrite), which is how a fixpoint round knows it changed nothing without
//!   comparing trees. See [`manager`].
//! * [`PassManager::check`] runs fused and one-by-one and reports the first
//!   differing node. Exactly what fusion guarantees (and what it does not:
//!   a single fused pass is *not* equal to a single one-by-one round) is
//!   spelled out in [`check`].
//!
//! # Depth
//!
//! The traversal recurses once per tree level (a few small frames per
//! level). By default it runs on the caller's stack, which bounds the depth:
//! in a release build an 8 MiB main-thread stack handled a 30,000-level
//! chain of the toy AST and overflowed at 35,000 (`examples/depth_probe.rs`;
//! debug builds and the 2 MiB of test threads allow less). For deeper trees turn on
//! [`PassManager::with_stack_growth`]: the engine then checks the remaining
//! stack at each level and continues on a fresh heap-allocated segment when
//! it runs low (the `stacker` crate), so any depth that fits in memory
//! works (tested with a 1,000,000-level tree). Your tree's own `Drop`,
//! `Clone` and `PartialEq` are recursive too; [`dismantle`] drops a tree
//! iteratively, and the checker (which uses `Clone`/`PartialEq`) is meant for
//! moderate depths.
//!
//! # The example language
//!
//! [`toy`] is the blog's language with its three rules, a parser, a seeded
//! random program generator and the hand-written baselines used by the tests
//! and the benchmark.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as treefuse_rewrite;

pub mod check;
mod engine;
pub mod manager;
pub mod rule;
pub mod toy;
pub mod tree;

pub use check::{first_difference, subtree_at, CheckError, CheckMode, Mismatch};
pub use engine::Order;
pub use manager::{FixpointError, Mode, OptLevel, PassManager, Round, Stats, DEFAULT_LEVEL_MODES};
pub use rule::{Chain, Context, Driver, End, IntoRuleSet, Rule, RuleSet, RuleVisitor};
pub use tree::{dismantle, node_count, Rewritable};
pub use treefuse_rewrite_derive::Rewritable;
