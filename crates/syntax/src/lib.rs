//! Syntax of the treefuse traversal language: tokens, the syntax tree with
//! spans, the parser, and diagnostics rendering.
//!
//! This crate knows nothing about meaning. [`parse`] always returns a
//! syntax tree (partial when there were errors) and every diagnostic it
//! found, so that a single run reports several independent mistakes.

#![warn(missing_docs)]

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod sources;
pub mod span;

pub use diag::{render, render_map, Diagnostic};
pub use parser::{parse, parse_map};
pub use sources::{AsSourceMap, Location, SourceMap};
pub use span::{LineIndex, Span};
