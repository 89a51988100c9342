//! Data-parallel flat trees, after Hsu's *The Key to a Performant Data
//! Parallel Compiler* (Co-dfns).
//!
//! A tree is stored as columns in depth-first pre-order ([`FlatTree`]:
//! depth, kind, value and parent vectors). Passes are compositions of
//! whole-column primitives (scans, compaction, Key, gather/scatter, pointer
//! jumping, down-sweeps) that run in parallel with rayon, with no recursion
//! and no per-node dispatch on a tree walk.
//!
//! | module | contents |
//! | --- | --- |
//! | [`tree`] | [`FlatTree`], validation ([`FlatError`]), conversion to and from the pointer tree [`Node`] |
//! | [`path`] | the paper's path matrix built from the depth vector, its ancestor-index variant, path operations |
//! | [`prim`] | parallel primitives, each with a sequential reference |
//! | [`lift`] | function lifting / expression flattening: the paper's path-based formulation and the output type |
//! | [`flatten`] | the column algorithm for flattening: one two-pass kernel, sequential or on chunks in parallel |
//! | [`baseline`] | the paper's functional and mutation recursive baselines |
//! | [`scaling`] | the thread-scaling benchmark (`flat-bench --scaling`): flat-seq and flat-par with 1 and all threads, interleaved |
//! | [`bench`](mod@bench) | complete-tree generator, the benchmark grid, Markdown and SVG output (used by the `flat-bench` binary) |
//!
//! ```
//! use treefuse_flat::{FlatTree, Node, lift::{flatten_par, LiftSpec}};
//!
//! // v ← (a + b) ÷ (c × d), the paper's E tree.
//! let e = |k, v: char, c| Node::new(k, v, c);
//! let l = |k, v: char| Node::leaf(k, v);
//! let tree = e('E', 'v', vec![
//!     e('E', '0', vec![l('V', 'a'), l('P', '+'), l('V', 'b')]),
//!     l('P', '÷'),
//!     e('E', '0', vec![l('V', 'c'), l('P', '×'), l('V', 'd')]),
//! ]);
//! let flat = FlatTree::from_node(&tree);
//! let spec = LiftSpec { target: 'E', reference: 'V', header_value: '0' };
//! let out = flatten_par(&flat, &spec);
//! assert_eq!(out.groups(), 3);
//! assert_eq!(out.kind, "EVPVEVPVEVPV".chars().collect::<Vec<_>>());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod baseline;
pub mod bench;
pub mod flatten;
pub mod lift;
pub mod path;
pub mod prim;
pub mod scaling;
pub mod tree;

pub use tree::{FlatError, FlatTree, Node, NONE};
