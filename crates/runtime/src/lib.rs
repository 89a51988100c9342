//! Trees at run time: the arena store, JSON input and output, and random
//! trees for testing.
//!
//! Every engine (the interpreter now, generated code's test harness later)
//! reads and writes trees through this crate, so the JSON format of
//! LANGUAGE.md §4 is implemented exactly once.

#![warn(missing_docs)]

pub mod diff;
pub mod gen;
pub mod json;
pub mod store;

pub use diff::{diff_globals, diff_trees, Difference};
pub use gen::{random_tree, random_tree_sized, GenOptions, Generated};
pub use json::{parse_value, read_tree, write_tree, TreeInputError, WriteOptions};
pub use store::{NodeId, NodeList, Slot, Tree};
