//! The semantic layer of treefuse: the checked program model and the
//! checker that builds it from a syntax tree.
//!
//! `check` enforces every static rule of LANGUAGE.md (names, types,
//! inheritance, overrides, access rules, tree-edit rules) and produces a
//! [`Program`] in which every name is resolved. Later stages (access
//! analysis, fusion, interpreter, code generator) consume only this model.
//!
//! Where some rules live:
//!
//! - `impl` blocks (§8.2) are merged into the declarations of the types they
//!   extend before anything is checked (a member from an `impl` is known by
//!   its span lying outside the declaration).
//! - Default walks (§8.1, `body/walk.rs`): the arguments of `walk(args)` are
//!   evaluated once into fresh locals; the copy of a body checked for one
//!   group of concrete types (`WalkPlan`) is owned by the group's nearest
//!   common type and put in the group's dispatch entries.
//! - Subtypes' own defaults for inherited fields (§8.3) are
//!   `TreeType::default_overrides`, read through
//!   `Program::field_default(ty, field)` by `new`, the tree store, `gen` and
//!   the generated `Default`.
//! - `body/pattern.rs`: unreachable patterns are warnings, kept in
//!   `Program::warnings`.
//! - `split.rs`: the split traversals are listed in `Program::splits`, and
//!   `method_named` skips them. They are made for the parameterless
//!   traversals the fuser may split: called on a list's elements after a pass
//!   that reads through the element, with no other pass in that run of calls
//!   replacing those elements.
//! - `value.rs`: records and arrays sit behind one `Arc`; maps are persistent
//!   ordered maps (`imbl::OrdMap`: O(1) copy, O(log n) update), and map
//!   operations are built-ins in `ops.rs`.

#![warn(missing_docs)]

mod body;
pub mod consts;
mod items;
mod lower;
pub mod model;
mod names;
pub mod ops;
mod split;
pub mod value;
pub mod visit;

pub use items::check;
pub use model::*;
pub use value::Value;

/// The names of the language's built-in functions (the checker reports a
/// call of one with arguments it does not take as `call-args`).
pub const BUILTIN_FUNCTIONS: [&str; 22] = [
    "to_f64",
    "to_i64",
    "abs",
    "min",
    "max",
    "sqrt",
    "floor",
    "ceil",
    "len",
    "to_str",
    "substr",
    "get",
    "contains",
    "insert",
    "remove",
    "keys",
    "values",
    "append",
    "concat",
    "slice",
    "insert_at",
    "remove_at",
];

/// Parses and checks a source text in one step.
///
/// With syntax errors, the checker sees a syntax tree with pieces missing
/// (a statement, a member, an item the parser skipped); its reports of
/// something unknown or missing (`unknown-field`, `missing-return`, ...)
/// would then be echoes of the syntax error, so they are left out. Its
/// other findings are independent mistakes and are reported with the
/// syntax errors.
pub fn compile(source: &str) -> Result<Program, Vec<treefuse_syntax::Diagnostic>> {
    compile_map(&treefuse_syntax::SourceMap::single("", source))
}

/// Parses and checks a program of one or several files (LANGUAGE.md §8.2)
/// as one program; spans are offsets into [`treefuse_syntax::SourceMap::text`].
pub fn compile_map(
    sources: &treefuse_syntax::SourceMap,
) -> Result<Program, Vec<treefuse_syntax::Diagnostic>> {
    let (file, mut diags) = treefuse_syntax::parse_map(sources);
    let syntax_errors = !diags.is_empty();
    match check(&file) {
        Ok(program) if !syntax_errors => Ok(program),
        Ok(_) => Err(diags),
        Err(more) => {
            diags.extend(more.into_iter().filter(|d| {
                !(syntax_errors
                    && (d.code.starts_with("unknown-") || d.code.starts_with("missing-")))
            }));
            diags.sort_by_key(|d| d.span.start);
            Err(diags)
        }
    }
}
