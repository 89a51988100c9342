//! Runtime data values and the operations on them.
//!
//! Values live here, in the semantic layer, because the checker evaluates
//! constant expressions (global initial values, field defaults) with the
//! very same operator semantics the engines use; one definition of `+` or
//! `/` serves all of them. Strings, arrays and records are immutable and
//! shared (`Arc`); a write to an element copies on write, so sharing is
//! never observable, as LANGUAGE.md requires.

use std::fmt;
use std::sync::Arc;

/// A data value: everything a field, local, parameter or global can hold.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `i64`.
    Int(i64),
    /// `f64`.
    Float(f64),
    /// `bool`.
    Bool(bool),
    /// `str`.
    Str(Arc<str>),
    /// `[T]`.
    Array(Arc<Vec<Value>>),
    /// A record, fields in declaration order.
    Record(Arc<Vec<Value>>),
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
            (Value::Array(a), Value::Array(b)) | (Value::Record(a), Value::Record(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y))
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
            Value::Array(items) | Value::Record(items) => {
                let (open, close) = if matches!(self, Value::Array(_)) {
                    ("[", "]")
                } else {
                    ("{", "}")
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
