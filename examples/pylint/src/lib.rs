//! A Python linter whose rules are treefuse passes.
//!
//! Each `.py` file is parsed by ruff's own parser, copied into the tree
//! types of `lint/python.tf` ([`lower`]), and linted by the `fuse lint`
//! item of `lint/` compiled to Rust by `build.rs` ([`lint`]): fifteen
//! rules, each written as a traversal of its own in `lint/rules/`, run as
//! one fused walk ([`check`]). [`report`] prints the findings the way
//! `ruff check` does. The `treefuse-pylint` binary lints files in
//! parallel; see the crate's README for the rules, the fusion report and
//! the comparison with ruff.

pub mod check;
pub mod host;
pub mod lower;
pub mod noqa;
pub mod report;

/// The linter compiled from `lint/` by `build.rs`: the tree types, the
/// rules unfused and fused, and the entry points `run_lint_fused` and
/// `run_lint_unfused`.
#[allow(missing_docs)]
pub mod lint {
    include!(concat!(env!("OUT_DIR"), "/lint.rs"));
}
