//! Finite automata over interned field labels, for treefuse's access analysis.
//!
//! # What it is for
//!
//! The fusion engine decides whether two statements (or traversing calls) of
//! different traversals may be reordered by asking whether one *may write* a
//! location the other *may read or write*, when both run on the same tree node
//! (Grafter, PLDI'19, §3.2). Locations are *access paths* relative to that
//! node — words over field labels such as `next.content.width` — and the set
//! of paths a statement or a call can touch is a regular language:
//!
//! * a statement contributes a few fixed words, with their prefixes for reads
//!   ([`Nfa::prefix_closure`]) and `*` suffixes when a whole record or subtree
//!   is covered ([`Nfa::with_any_suffix`]);
//! * a traversing call contributes the labelled call graph of everything it
//!   can reach (Algorithm 1): one state per function, an edge per call
//!   labelled with the child traversed (ε for calls on `self`), statement
//!   automata attached to function states ([`Nfa::embed`] plus an ε-edge);
//!   recursion becomes loops and virtual dispatch a union
//!   ([`Nfa::union_all`]);
//! * a conflict exists iff the intersection of a write set and a read (or
//!   write) set is non-empty; [`intersection_witness`] answers that and
//!   returns a shortest conflicting path, which [`format_word`] renders as
//!   `next.content.*` to explain a blocked fusion.
//!
//! # Why it is shaped this way
//!
//! * **Labels are `u32`** ([`Label`]), names live in a separate
//!   [`LabelInterner`]: automata stay small, symbol comparison is an integer
//!   compare, and the crate knows nothing about schemas.
//! * **The alphabet is open.** [`Symbol::Any`] is a symbol of its own, matching
//!   every label, including labels that were never interned; it is not
//!   expanded into a union of known fields. The product combines symbols with
//!   [`Symbol::meet`] (`Label ∧ Any = Label`, `Any ∧ Any = Any`), so a witness
//!   may contain `*`, meaning "any field here".
//! * **NFAs with ε-edges, never determinised.** Access automata are built by
//!   gluing pieces together; ε-edges make that cheap and the Thompson-style
//!   operations obviously correct. The fuser only needs emptiness of
//!   intersections, which is a reachability question on the product and
//!   never needs a DFA. [`Nfa::reduced`] removes ε-edges and useless states
//!   once an automaton is complete.
//! * **Compact, hash-free inner loops.** States are dense `u32` indices with
//!   per-state vectors of ε-successors and of `(Symbol, target)` pairs. The
//!   product search keeps visited pairs in a dense array (a hash map only
//!   for very large products).
//! * **On-the-fly emptiness is the fast path.** [`intersection_witness`] runs
//!   a BFS over the product without building it and stops at the first
//!   accepting pair. The BFS runs in layers by word length, each layer closed
//!   under ε first, so the witness is a shortest common word.
//!   [`Nfa::intersect`] builds the product when the automaton itself is
//!   needed.
//! * **Emptiness alone is cheaper still.** An [`IndexedNfa`] keeps each
//!   state's edges sorted by label, so [`IndexedNfa::intersects`] pairs
//!   only edges that meet instead of every edge with every edge. Most
//!   conflict tests find no common word; the fuser asks it first and runs
//!   the witness search only when there is one to find.
//! * **Summaries are minimized once.** [`Nfa::minimized`] and
//!   [`Nfa::minimized_at`] (`minimize.rs`) give the minimal deterministic
//!   automaton of a language, so an access summary glued from thousands of
//!   states is copied and intersected at the size of its language.
//! * **Structure is cheap to compare.** [`Nfa::fingerprint`] hashes an
//!   automaton's structure for caches keyed by content, and an `Nfa`
//!   carries a *trimmed* hint that lets [`Nfa::trim`] and
//!   [`Nfa::union_trimmed`] skip work (see `nfa.rs`).
//! * **No treefuse dependencies** (only `rustc-hash`), no `unsafe`. The
//!   tests check the crate against independent oracles written without its
//!   code (`tests/oracle.rs`: a derivative-based regular-expression matcher
//!   and raw NFAs); `tests/algorithm1.rs` works Grafter's Algorithm 1
//!   through on a small render-tree program.
//!
//! # Example
//!
//! ```
//! use treefuse_automata::{format_word, intersection_witness, LabelInterner, Nfa};
//!
//! let mut names = LabelInterner::new();
//! let next = names.intern("next");
//! let content = names.intern("content");
//! let width = names.intern("width");
//!
//! // A recursive list traversal writes `width` on every node: next*.width
//! let writes = Nfa::label(next).star().concat(&Nfa::label(width));
//! // Another statement reads the whole `content` record of the next node.
//! let reads = Nfa::word(&[next, content]).with_any_suffix().prefix_closure();
//!
//! // No conflict: `width` is never below `content`.
//! assert!(intersection_witness(&writes, &reads).is_none());
//!
//! // Reading `next` as a whole node (everything below it) does conflict.
//! let reads_node = Nfa::label(next).with_any_suffix();
//! let w = intersection_witness(&writes, &reads_node).unwrap();
//! assert_eq!(format_word(&w, &names), "next.width");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod display;
mod indexed;
mod label;
mod minimize;
mod nfa;
mod search;

pub use indexed::IndexedNfa;
pub use label::{format_word, Label, LabelInterner, Symbol};
pub use nfa::{Nfa, StateId};
pub use search::{intersect_is_empty, intersection_witness};
