//! Name tables and the resolution of written data types, shared by the
//! item checker (`items`) and the body checker (`body`), so that neither
//! depends on the other for them.

use crate::model::*;
use indexmap::IndexMap;
use treefuse_syntax::ast;
use treefuse_syntax::Diagnostic;

/// Name tables shared by the item and body checkers.
#[derive(Default)]
pub(crate) struct Names {
    pub records: IndexMap<String, RecordId>,
    pub types: IndexMap<String, TypeId>,
    pub globals: IndexMap<String, GlobalId>,
    pub pure_fns: IndexMap<String, PureFnId>,
    pub enums: IndexMap<String, EnumId>,
}

/// Resolves a written data type.
pub(crate) fn resolve_data_type(
    names: &Names,
    diags: &mut Vec<Diagnostic>,
    t: &ast::TypeExpr,
    what: &str,
) -> Option<DataType> {
    match t {
        ast::TypeExpr::Array(inner, _) => {
            resolve_data_type(names, diags, inner, what).map(|t| DataType::Array(Box::new(t)))
        }
        ast::TypeExpr::Map(k, v, _) => {
            let key = resolve_data_type(names, diags, k, "a map key");
            let value = resolve_data_type(names, diags, v, "a map value");
            let key = key?;
            if !matches!(
                key,
                DataType::Int | DataType::Str | DataType::Bool | DataType::Enum(_)
            ) {
                diags.push(
                    Diagnostic::error(
                        "map-key-type",
                        k.span(),
                        "a map key must be an `i64`, a `str`, a `bool` or an enum",
                    )
                    .with_note(
                        "keys need an exact order; `f64`, records, arrays and maps have none",
                    ),
                );
                return None;
            }
            Some(DataType::Map(Box::new(key), Box::new(value?)))
        }
        ast::TypeExpr::Optional(_, span) => {
            diags.push(
                Diagnostic::error(
                    "optional-type",
                    *span,
                    format!("{what} cannot be optional: only a single child can (`child c: T?`)"),
                )
                .with_note("a data value always has a value; give it a default or use a flag"),
            );
            None
        }
        ast::TypeExpr::Named(n) => match n.name.as_str() {
            "i64" => Some(DataType::Int),
            "f64" => Some(DataType::Float),
            "bool" => Some(DataType::Bool),
            "str" => Some(DataType::Str),
            other => {
                if let Some(&r) = names.records.get(other) {
                    Some(DataType::Record(r))
                } else if let Some(&e) = names.enums.get(other) {
                    Some(DataType::Enum(e))
                } else if names.types.contains_key(other) {
                    diags.push(Diagnostic::error(
                        "data-type",
                        n.span,
                        format!("`{other}` is a tree type, but {what} must have a data type (use `child` for subtrees)"),
                    ));
                    None
                } else {
                    diags.push(Diagnostic::error(
                        "unknown-type",
                        n.span,
                        format!("unknown type `{other}`"),
                    ));
                    None
                }
            }
        },
    }
}
