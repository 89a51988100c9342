//! Runtime data values and the operations on them.
//!
//! Values live here, in the semantic layer, because the checker evaluates
//! constant expressions (global initial values, field defaults) with the
//! very same operator semantics the engines use; one definition of `+` or
//! `/` serves all of them. Strings, arrays, records and maps are immutable
//! and shared (`Arc`); a write to an element copies on write, so sharing
//! is never observable, as LANGUAGE.md requires.
//!
//! A [`Value`] is 16 bytes: every variant holds at most one word (strings
//! are thin [`ArcStr`]s, maps sit behind an `Arc`). The interpreter's tree
//! store does not keep `Value`s for scalar fields: it keeps their 8-byte
//! bits and rebuilds the value from the field's type (treefuse-runtime's
//! `store.rs`); strings, records, arrays and maps stay `Value`s, in a side
//! table.

pub use arcstr::ArcStr;
pub use imbl::OrdMap;
use std::fmt;
use std::sync::Arc;

/// A data value: everything a field, local, parameter or global can hold.
///
/// `repr(u64)` puts every variant's payload in the second word (a `bool`
/// or an enum index too, not in the bytes after the tag), so a value is
/// copied as two words. With the default layout the compiler copied the
/// bytes between tag and word in pieces of other widths than they were
/// written in, which stalls store forwarding where values are passed
/// around most (the interpreter's expression results: minic's run, both
/// engines, 7% faster with this layout).
#[derive(Clone, Debug, PartialEq)]
#[repr(u64)]
pub enum Value {
    /// `i64`.
    Int(i64),
    /// `f64`.
    Float(f64),
    /// `bool`.
    Bool(bool),
    /// `str`.
    Str(ArcStr),
    /// `[T]`.
    Array(Arc<Vec<Value>>),
    /// A record, fields in declaration order.
    Record(Arc<Vec<Value>>),
    /// An enum value: the index of its variant.
    Enum(u32),
    /// `{K: V}`, a persistent ordered map: a copy is O(1) and an update
    /// O(log n), so passing an environment down a tree costs nothing.
    Map(Arc<OrdMap<MapKey, Value>>),
}

const _: () = assert!(std::mem::size_of::<Value>() == 16);
const _: () = assert!(std::mem::size_of::<Option<Value>>() == 16);

/// A map key: the values of the key types `i64`, `str`, `bool` and enums,
/// ordered as LANGUAGE.md §7.4 says (`false < true`, integers numerically,
/// strings by bytes, enums by declaration order). A map has one key type,
/// so the order between the variants never matters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapKey {
    /// A `bool` key.
    Bool(bool),
    /// An `i64` key.
    Int(i64),
    /// A `str` key.
    Str(ArcStr),
    /// An enum key (the variant's index).
    Enum(u32),
}

impl MapKey {
    /// The key of a value of a key type; `None` for other values (the
    /// checker allows only key types as keys).
    pub fn of(v: &Value) -> Option<MapKey> {
        Some(match v {
            Value::Bool(b) => MapKey::Bool(*b),
            Value::Int(i) => MapKey::Int(*i),
            Value::Str(s) => MapKey::Str(s.clone()),
            Value::Enum(e) => MapKey::Enum(*e),
            _ => return None,
        })
    }

    /// The key as a value.
    pub fn to_value(&self) -> Value {
        match self {
            MapKey::Bool(b) => Value::Bool(*b),
            MapKey::Int(i) => Value::Int(*i),
            MapKey::Str(s) => Value::Str(s.clone()),
            MapKey::Enum(e) => Value::Enum(*e),
        }
    }
}

impl Value {
    /// The integer inside; `0` for any other variant (the checker rules
    /// mismatches out, so engines may rely on this being total).
    pub fn as_int(&self) -> i64 {
        match self {
            Value::Int(v) => *v,
            _ => 0,
        }
    }

    /// The float inside, `0.0` otherwise.
    pub fn as_float(&self) -> f64 {
        match self {
            Value::Float(v) => *v,
            _ => 0.0,
        }
    }

    /// The string inside, `""` otherwise.
    pub fn as_str(&self) -> &str {
        match self {
            Value::Str(s) => s,
            _ => "",
        }
    }

    /// The boolean inside, `false` otherwise.
    pub fn as_bool(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// Structural equality where floats compare by bits, so that two runs
    /// that both produce NaN in the same place count as equal.
    pub fn same_as(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits() || a == b,
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y))
            }
            (Value::Record(a), Value::Record(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|((k, x), (l, y))| k == l && x.same_as(y))
            }
            _ => self == other,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Enum(e) => write!(f, "variant #{e}"),
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {v}", k.to_value())?;
                }
                f.write_str("}")
            }
            Value::Array(_) | Value::Record(_) => {
                let (open, close, items): (_, _, &[Value]) = match self {
                    Value::Array(items) => ("[", "]", items),
                    Value::Record(items) => ("{", "}", items),
                    _ => ("", "", &[]),
                };
                f.write_str(open)?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(close)
            }
        }
    }
}
