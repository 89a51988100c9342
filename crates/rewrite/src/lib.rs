//! Rewrite-rule fusion for your own Rust ASTs, over whole node families.
//!
//! Write each rewrite rule on its own, against the node types it cares
//! about; let a [`PassManager`] run all rules in one fused traversal over
//! every type of your AST (`Program`, `Function`, `Stmt`, `Expr`, ...), or
//! one by one, or to a fixpoint; and check that fused and one-by-one runs
//! agree on what they are guaranteed to agree on. This is Scala 3's
//! MegaPhase (miniphases with `prepareForX`/`transformX` hooks fused into
//! one tree walk) and the "pass fusion with open recursion" technique
//! (`Edit::Restart` is its `first`), with statically dispatched, inlined
//! composition.
//!
//! ```
//! use treefuse_rewrite::{Cx, Edit, Env, Hook, PassManager, Rewritable, Rule};
//!
//! // 1. The AST: a family of node types. The derive finds the children
//! //    (family types inside Box/Vec/Option).
//! #[derive(Clone, Debug, PartialEq, Rewritable)]
//! #[rewrite(family(Stmt, Expr))]
//! enum Stmt {
//!     Print(Expr),
//!     Block(Vec<Stmt>),
//! }
//! #[derive(Clone, Debug, PartialEq, Default, Rewritable)]
//! #[rewrite(family(Stmt, Expr))]
//! enum Expr {
//!     #[default]
//!     Zero,
//!     Num(i64),
//!     Neg(Box<Expr>),
//! }
//!
//! // 2. Rules, each with hooks for the types it handles.
//! struct DoubleNeg; // --x => x
//! impl<X: Env> Rule<X> for DoubleNeg {
//!     type Handles = (Expr,);
//! }
//! impl<X: Env> Hook<Expr, X> for DoubleNeg {
//!     fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
//!         Ok(match e {
//!             Expr::Neg(a) => match &mut **a {
//!                 Expr::Neg(x) => Edit::Replace(std::mem::take(&mut **x)),
//!                 _ => Edit::Keep,
//!             },
//!             _ => Edit::Keep,
//!         })
//!     }
//! }
//! struct Flatten; // a block inside a list => its statements, spliced in
//! impl<X: Env> Rule<X> for Flatten {
//!     type Handles = (Stmt,);
//! }
//! impl<X: Env> Hook<Stmt, X> for Flatten {
//!     fn transform(&self, s: &mut Stmt, cx: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
//!         Ok(match s {
//!             Stmt::Block(body) if cx.in_list() => Edit::Splice(std::mem::take(body)),
//!             _ => Edit::Keep,
//!         })
//!     }
//! }
//!
//! // 3. Compose statically (a tuple) and run: one traversal of both types.
//! let mut pm = PassManager::<(), _>::new((DoubleNeg, Flatten)).unwrap();
//! let neg2 = |x| Expr::Neg(Box::new(Expr::Neg(Box::new(x))));
//! let mut prog = Stmt::Block(vec![
//!     Stmt::Print(neg2(Expr::Num(1))),
//!     Stmt::Block(vec![Stmt::Print(Expr::Num(2)), Stmt::Block(vec![Stmt::Print(neg2(Expr::Num(3)))])]),
//! ]);
//! pm.fused(&mut prog, &mut ()).unwrap();
//! assert_eq!(prog, Stmt::Block(vec![
//!     Stmt::Print(Expr::Num(1)), Stmt::Print(Expr::Num(2)), Stmt::Print(Expr::Num(3)),
//! ]));
//! assert_eq!(pm.stats().fired, [("DoubleNeg", 2), ("Flatten", 2)]);
//! assert_eq!(pm.stats().traversals, 1);
//! ```
//!
//! # How it is put together, and why
//!
//! * [`node`]: every type of the family implements [`Node`] (derived):
//!   walk the direct children in place, generically over a [`Walker`], with
//!   `Vec`s of nodes handed over whole so rules can edit lists; plus the
//!   shallow operations from which the iterative [`dismantle`],
//!   [`deep_clone`], [`deep_eq`] and [`first_difference`] are built.
//! * [`rule`]: a rule implements [`Hook<N, X>`](Hook) for each node type
//!   `N` it handles (pre-order `prepare`, post-order `transform`, both
//!   fallible, both defaulting to "keep") and [`Rule`] to list those types,
//!   name itself and declare what must run before it. Hooks answer with an
//!   [`Edit`]. The environment `X` ([`Env`]) fixes the user context type
//!   (`cx.ctx()`) and the error type.
//! * The engine (private) walks the family once per
//!   traversal; dispatch to a rule's hook is decided per node type at
//!   compile time, so a rule costs nothing at types it does not handle.
//! * [`manager`]: [`PassManager`] checks the ordering constraints when it is
//!   built, runs [`Mode`]s, counts [`Stats`], catches panics, and stops
//!   with a [`RunError`] and the tree whole when a rule fails.
//! * [`check`]: [`PassManager::check`] runs fused and one-by-one and reports
//!   the path to the first difference. What fusion guarantees is spelled
//!   out there.
//!
//! # Depth
//!
//! The walk recurses once per tree level. Stack growth is on by default:
//! each node costs one stack-pointer comparison, and when the stack runs low
//! the walk continues on a fresh heap-allocated segment (`stacker`), so any
//! depth that fits in memory works (the tests rewrite 10^6-level chains in
//! every mode). Derived `Drop`, `Clone` and `PartialEq` recurse too: use
//! [`dismantle`] (or [`DeepTree`]), [`deep_clone`] and [`deep_eq`] on deep
//! trees.
//!
//! # Examples
//!
//! [`middle`] is a compiler middle end over a three-family AST with six
//! rules (the crate's flagship example, benchmarked by
//! `examples/middle_end.rs`); [`toy`] is the open-recursion blog's language
//! with its three rules.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as treefuse_rewrite;

pub mod check;
mod engine;
pub mod manager;
pub mod middle;
pub mod node;
pub mod rule;
pub mod toy;

pub use check::{CheckError, CheckMode, Mismatch};
pub use manager::{
    Mode, OptLevel, OrderError, PassManager, Round, RunError, Stats, DEFAULT_LEVEL_MODES,
};
pub use node::{
    deep_clone, deep_eq, dismantle, first_difference, node_count, subtree_at, take_child, DeepTree,
    DynNode, Explode, Graveyard, Kind, Node, NodeList, PathDisplay, PathStep, Walker,
};
pub use rule::{
    Chain, Cx, Edit, End, Env, Flow, Handles, Hook, IntoRuleSet, PhaseState, Rule, RuleInfo,
    RuleSet,
};
pub use treefuse_rewrite_derive::Rewritable;
