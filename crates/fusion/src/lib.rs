//! Sound, fine-grained fusion of traversals (Grafter, PLDI'19) for the
//! treefuse language: from a checked program and its access analysis to a
//! [`FusedProgram`] that the engines execute.
//!
//! [`fuse_program`] builds type-specific fused functions, memoized by
//! (concrete type, traversal sequence); [`report`] explains what was fused
//! and, for every pair of calls on the same child that was not, the
//! dependence that blocked it.

#![warn(missing_docs)]

mod build;
mod chain;
mod commute;
mod fits;
pub mod ir;
pub mod mask;
mod parallel;
mod privatize;
pub mod report;
mod verify;

pub use build::{fuse_program, FusionOptions};
pub use chain::LinkedChain;
pub use commute::{reductions, Reduction};
pub use ir::*;
pub use mask::{ParticipantMask, WideMask};
pub use verify::unconfirmed_explanations;
