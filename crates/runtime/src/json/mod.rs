//! Trees as JSON (LANGUAGE.md §4), read and written in one streaming
//! pass each, without recursion.
//!
//! Documents nested a million levels deep are valid input, and trees of
//! millions of nodes are common, so neither direction may recurse on the
//! depth or hold the document in memory. [`pull`] is a purpose-built pull
//! parser that tracks line, column and JSON path; [`read`] builds the
//! store from its tokens as they come; [`write`] streams the tree out
//! from an explicit task stack. Every error names its JSON path
//! (`$.content.next[2].width`), and syntax errors their line and column.

mod pull;
#[cfg(test)]
mod pull_tests;
mod read;
mod write;

pub use read::{parse_value, read_tree, read_tree_from};
pub use write::{
    write_globals, write_tree, write_tree_to, write_value, SelectedGlobals, WriteOptions,
};

use std::fmt;

/// A problem with an input tree, located by its JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeInputError {
    /// Where, as a JSON path such as `$.next.content`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TreeInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.message)
    }
}

impl std::error::Error for TreeInputError {}
