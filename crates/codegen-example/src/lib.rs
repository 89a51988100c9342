//! The example programs of the repository compiled to Rust by
//! `treefuse-codegen` from `build.rs` (see `build.rs`): each module holds
//! the tree types, the unfused and fused traversals and the JSON layer of
//! one program. `tests/differential.rs` checks them against the
//! interpreter: output (tree and globals), runtime errors with message and
//! position, and visits, on hand-made, random, 10⁶-deep and empty trees.
//!
//! Besides the examples: `programs/features.tf` (host functions and
//! every data construct), programs whose names collide with the generated
//! code's own (`names.tf`, `type_names.tf`, `type_c.tf`, `traversal_t.tf`,
//! `python_names.tf`), and the fuzzer's random programs of
//! `RANDOM_SEEDS` in `build.rs` (every construct, rewriting in place
//! included), each under its generator's names and under hostile ones
//! (`treefuse_progen::generate_hostile`).

#![warn(missing_docs)]

macro_rules! generated {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        #[deny(warnings)]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), "/", stringify!($name), ".rs"));
        }
    )*};
}

generated! {
    /// `examples/figure2/figure2.tf`: the Grafter paper's Figure 2.
    figure2,
    /// `examples/render/render.tf`: the render tree.
    render,
    /// `examples/render/render_lists.tf`: the render tree with lists.
    render_lists,
    /// `examples/ast/ast.tf`: the AST optimizer.
    ast,
    /// `examples/ast/ast_lists.tf`: the AST optimizer with lists.
    ast_lists,
    /// `examples/toylang/toylang.tf`: the toy language.
    toylang,
    /// `examples/toylang/toylang_rewrite.tf`: the toy language's rules as nodes replacing themselves.
    toylang_rewrite,
    /// `examples/rewriting/splice.tf`: a loop deleting or expanding list elements.
    splice,
    /// `examples/treefold/treefold.tf`: trace-tree folding to a fixpoint.
    treefold,
    /// `examples/minic/`: the mini-C middle end (a directory program, one file per pass).
    minic,
    /// `examples/fusion-rules/regions.tf`: a loop after one replacing elements, merged whole.
    regions,
    /// `examples/rewriting/cleanup.tf`: dead statements, block flattening, declarations inserted.
    cleanup,
    /// `programs/features.tf`: host functions, records, arrays, errors.
    features,
    /// `examples/figure2/figure2.tf` without the JSON layer.
    figure2_plain,
    /// `programs/data.tf`: maps, enums and `match`, bits and strings.
    data,
    /// `programs/names.tf`: fields, locals, types and functions named like the generated code's own identifiers.
    names,
    /// `programs/type_names.tf`: a hierarchy root named `Root`, types named `Tree` and `Node`.
    type_names,
    /// `programs/grow.tf`: a chain that grows below its running visits.
    grow,
    /// `programs/cold.tf`: fields no traversal touches, stored out of line.
    cold,
    /// `programs/moves.tf`: a value moved where a fused participant replaces its node, and read after.
    moves,
    /// `programs/arrays.tf`: array built-ins, list inserts and removes, pure functions over nodes.
    arrays,
    /// `examples/arrays/appends.tf`: `x = append(x, e);` on a local, a field and a global.
    appends,
    /// `programs/loops.tf`: `while` loops and `break` in traversals and fuse items (LANGUAGE §8.6).
    loops,
    /// `examples/passes/passes.tf`: default walks, `impl` blocks, subtype defaults, cast aliases.
    passes,
    /// `examples/rules`: a program of several files, one lint rule each.
    rules,
    /// `programs/optional.tf`: optional children (calls, `is none`, emptying, filling, moves, copies, failing reads).
    optional,
    /// `programs/wide.tf`: seventy passes that may `return` in one fused walk (128-bit participant masks).
    wide,
    /// `programs/widest.tf`: a hundred and forty passes in one fused walk (`WideMask<3>` participant masks).
    widest,
    /// `programs/type_c.tf`: a tree type named `C`, like the generated functions' const parameter.
    type_c,
    /// `programs/traversal_t.tf`: traversals and a pure function named `t`, `cx` and `n`.
    traversal_t,
    /// `programs/python_names.tf`: names of Python's AST and of Rust's prelude (`Set`, `Box`, `Ok`, `u32`, ...).
    python_names,
}

/// The case studies compiled with parallel entry points
/// (`treefuse_codegen::Config::parallel`): `run_<fuse>_parallel` besides
/// the sequential ones, the traversals generic over `TreeAccess`.
pub mod parallel {
    macro_rules! generated_parallel {
        ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
            #[$doc]
            #[deny(warnings)]
            pub mod $name {
                include!(concat!(env!("OUT_DIR"), "/parallel/", stringify!($name), ".rs"));
            }
        )*};
    }

    generated_parallel! {
        /// `examples/ast/ast_lists.tf`.
        ast_lists,
        /// `examples/render/render_lists.tf`.
        render_lists,
        /// `examples/ast/ast.tf`: the faithful port (a chain of functions).
        ast,
        /// `examples/render/render.tf`: the faithful port (a chain of pages).
        render,
        /// `examples/minic/`.
        minic,
        /// `programs/chain.tf`: a linked chain whose items run in parallel.
        chain,
        /// `programs/write_first.tf`: a global private to each worker.
        write_first,
        /// `programs/kept_plan.tf`: two loops over the same items, a change of the tree between.
        kept_plan,
        /// `programs/type_c.tf`: a tree type named like the visit-counting const parameter.
        type_c,
    }
}

/// The host functions of `programs/features.tf` (`pure fn` without a body),
/// which its generated module calls as `crate::host::NAME`.
pub mod host {
    use std::sync::Arc;

    /// `pure fn scale(a: i64) -> i64`.
    pub fn scale(a: i64) -> i64 {
        a.wrapping_mul(3).wrapping_rem(11)
    }

    /// `pure fn label(n: i64) -> str`.
    pub fn label(n: i64) -> Arc<str> {
        Arc::from(format!("n{n}"))
    }
}

/// `(line:col, "CONTEXT: MESSAGE")` of a rendered runtime error of the
/// interpreter or of generated code (`runtime error: [FILE:]LINE:COL: in
/// CONTEXT: MESSAGE`), for comparing errors of different engines.
pub fn error_position_and_message(rendered: &str) -> (String, String) {
    let rest = rendered.trim_start_matches("runtime error: ");
    let (location, after) = rest.split_once(": in ").unwrap_or((rest, ""));
    let at: Vec<&str> = location.rsplitn(3, ':').collect();
    let at = format!("{}:{}", at.get(1).unwrap_or(&""), at.first().unwrap_or(&""));
    (at, after.to_string())
}

/// The hand-computed rewriting cases of the interpreter's tests
/// (`crates/treefuse/tests/rewriting/NAME.tf`, LANGUAGE.md §7.1–7.3), one
/// generated module each.
pub mod rewriting {
    /// One compiled case.
    pub struct Case {
        /// The file stem (`NAME`).
        pub name: &'static str,
        /// Its source.
        pub source: &'static str,
        /// Its generated engines.
        pub run: super::random::RunFn,
    }

    include!(concat!(env!("OUT_DIR"), "/rewriting_cases.rs"));
}

/// Random programs of the soundness fuzzer's generator
/// (`treefuse_progen::generate`, every construct including rewriting in
/// place), each also under hostile names
/// (`treefuse_progen::generate_hostile`), compiled in one batch.
pub mod random {
    /// Runs a `fuse` item by name: schema, item, fused?, input tree,
    /// arguments; returns the output JSON and visits, or the error message.
    pub type RunFn = fn(
        &treefuse_runtime::sema::Program,
        &str,
        bool,
        &treefuse_runtime::Tree,
        &[treefuse_runtime::sema::Value],
    ) -> Option<Result<(String, u64), String>>;

    /// Runs a `fuse` item by name fused and in parallel: schema, item,
    /// input tree, arguments, options; as [`RunFn`].
    pub type ParallelRunFn = fn(
        &treefuse_runtime::sema::Program,
        &str,
        &treefuse_runtime::Tree,
        &[treefuse_runtime::sema::Value],
        &treefuse_runtime::generated::Parallel,
    ) -> Option<Result<(String, u64), String>>;

    /// One compiled random program.
    pub struct Random {
        /// The generator seed.
        pub seed: u64,
        /// Under hostile names (`treefuse_progen::generate_hostile`).
        pub hostile: bool,
        /// Its source.
        pub source: &'static str,
        /// Its generated engines.
        pub run: RunFn,
        /// Its parallel entry points (plain names only).
        pub run_parallel: Option<ParallelRunFn>,
    }

    include!(concat!(env!("OUT_DIR"), "/random_programs.rs"));
}
