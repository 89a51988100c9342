//! The meaning of operators and built-in functions.
//!
//! The checker resolves every overloaded operator to one of these
//! monomorphic operations, so engines never inspect operand types at run
//! time, and the interpreter, the constant evaluator and (by construction)
//! the code generator share one definition of arithmetic: wrapping `i64`,
//! IEEE `f64`, and division or remainder by zero as an error.

use crate::model::MatchArm;
use crate::value::{MapKey, Value};
use imbl::OrdMap;
use std::sync::Arc;

/// A unary operation, resolved by operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Wrapping `i64` negation.
    NegInt,
    /// `f64` negation.
    NegFloat,
    /// Boolean not.
    Not,
    /// Bitwise not of an `i64` (`!x`).
    NotInt,
}

/// A binary operation, resolved by operand type. `And`/`Or` are listed for
/// completeness but engines short-circuit them before calling [`binary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinaryOp {
    AddInt,
    SubInt,
    MulInt,
    DivInt,
    RemInt,
    AddFloat,
    SubFloat,
    MulFloat,
    DivFloat,
    RemFloat,
    LtInt,
    LeInt,
    GtInt,
    GeInt,
    LtFloat,
    LeFloat,
    GtFloat,
    GeFloat,
    /// Structural equality on any data type.
    Eq,
    /// Structural inequality on any data type.
    Ne,
    And,
    Or,
    BitAndInt,
    BitOrInt,
    BitXorInt,
    /// `<<`; an amount outside `0..=63` is an error.
    ShlInt,
    /// Arithmetic `>>`; an amount outside `0..=63` is an error.
    ShrInt,
    /// String concatenation.
    ConcatStr,
    LtStr,
    LeStr,
    GtStr,
    GeStr,
}

impl BinaryOp {
    /// Whether evaluating the operation can fail (division by zero, a
    /// shift amount out of range).
    pub fn can_fail(self) -> bool {
        matches!(
            self,
            BinaryOp::DivInt | BinaryOp::RemInt | BinaryOp::ShlInt | BinaryOp::ShrInt
        )
    }
}

/// Built-in functions, resolved by argument types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    ToF64,
    ToI64,
    AbsInt,
    AbsFloat,
    MinInt,
    MinFloat,
    MaxInt,
    MaxFloat,
    Sqrt,
    Floor,
    Ceil,
    LenStr,
    LenArray,
    ToStrInt,
    ToStrBool,
    /// As Rust's `Display` writes an `f64`.
    ToStrFloat,
    /// `substr(s, start, end)` by byte offsets; out of range or not on a
    /// character boundary is an error.
    Substr,
    /// A map value `{k1: v1, ...}`: arguments are keys and values in
    /// turn; a later repeated key wins.
    MapFrom,
    /// `m[k]`; an absent key is an error.
    MapIndex,
    /// `get(m, k, default)`.
    MapGetOr,
    /// `contains(m, k)`.
    MapContains,
    /// `len(m)`.
    LenMap,
    /// `insert(m, k, v)`: a new map.
    MapInsert,
    /// `remove(m, k)`: a new map (an absent key is no error).
    MapRemove,
    /// `keys(m)`, ascending.
    MapKeys,
    /// `values(m)`, in ascending key order.
    MapValues,
    /// `append(a, e)`: a new array with `e` after the elements of `a`
    /// (LANGUAGE §8.5).
    ArrayAppend,
    /// `concat(a, b)`: the elements of `a`, then those of `b`.
    ArrayConcat,
    /// `slice(a, i, j)`: elements `i` up to but not including `j`; an error
    /// unless `0 <= i <= j <= len(a)`.
    ArraySlice,
    /// `insert_at(a, i, e)`: `e` before element `i`; an error unless
    /// `0 <= i <= len(a)`.
    ArrayInsertAt,
    /// `remove_at(a, i)`: without element `i`; an error unless
    /// `0 <= i < len(a)`.
    ArrayRemoveAt,
}

impl Builtin {
    /// Whether evaluating the built-in can fail.
    pub fn can_fail(self) -> bool {
        matches!(
            self,
            Builtin::Substr
                | Builtin::MapIndex
                | Builtin::ArraySlice
                | Builtin::ArrayInsertAt
                | Builtin::ArrayRemoveAt
        )
    }

    /// Whether the built-in takes an array as its first argument and
    /// returns the array changed (`append`, `concat`, `slice`,
    /// `insert_at`, `remove_at`): `x = f(x, ..);` can then update `x` in
    /// place ([`array_update`]).
    pub fn updates_array(self) -> bool {
        matches!(
            self,
            Builtin::ArrayAppend
                | Builtin::ArrayConcat
                | Builtin::ArraySlice
                | Builtin::ArrayInsertAt
                | Builtin::ArrayRemoveAt
        )
    }
}

/// An error raised while evaluating an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpError {
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// Array index outside `0..len`.
    IndexOutOfRange {
        /// The index used.
        index: i64,
        /// The array's length.
        len: usize,
    },
    /// A shift amount outside `0..=63`.
    ShiftOutOfRange(i64),
    /// `m[k]` with `k` not in `m`: the key that was looked up.
    KeyAbsent(MapKey),
    /// `slice(a, i, j)` unless `0 <= i <= j <= len`.
    SliceOutOfRange {
        /// The start index.
        start: i64,
        /// The end index.
        end: i64,
        /// The array's length.
        len: usize,
    },
    /// `insert_at(a, i, e)` unless `0 <= i <= len`.
    InsertOutOfRange {
        /// The position used.
        index: i64,
        /// The array's length.
        len: usize,
    },
    /// `substr` with offsets out of range or not on character boundaries.
    Substr {
        /// The start offset.
        start: i64,
        /// The end offset.
        end: i64,
        /// The string's length in bytes.
        len: usize,
    },
}

/// The message of `m[k]` on an absent key, naming the key as generated
/// Rust writes it with `{:?}`: integers and booleans plainly, strings
/// quoted with Rust's escapes, enum values by their variant's name (taken
/// from `variants`, the key enum's variant names; without them, by index).
pub fn key_absent_message(key: &MapKey, variants: Option<&[String]>) -> String {
    let text = match key {
        MapKey::Int(i) => i.to_string(),
        MapKey::Bool(b) => b.to_string(),
        MapKey::Str(s) => format!("{:?}", &**s),
        MapKey::Enum(e) => match variants.and_then(|v| v.get(*e as usize)) {
            Some(name) => name.clone(),
            None => format!("variant #{e}"),
        },
    };
    format!("the key {text} is not in the map")
}

impl OpError {
    /// The message, with an enum key named by its variant: `variants` are
    /// the variant names of the enum a [`OpError::KeyAbsent`] key belongs
    /// to (the engines know it from the key expression's type).
    pub fn message(&self, variants: Option<&[String]>) -> String {
        match self {
            OpError::KeyAbsent(key) => key_absent_message(key, variants),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpError::DivisionByZero => f.write_str("integer division or remainder by zero"),
            OpError::IndexOutOfRange { index, len } => {
                write!(f, "index {index} out of range for array of length {len}")
            }
            OpError::KeyAbsent(key) => f.write_str(&key_absent_message(key, None)),
            OpError::SliceOutOfRange { start, end, len } => write!(
                f,
                "slice({start}, {end}) is out of range for array of length {len}"
            ),
            OpError::InsertOutOfRange { index, len } => write!(
                f,
                "insert position {index} out of range for array of length {len}"
            ),
            OpError::ShiftOutOfRange(n) => {
                write!(f, "shift amount {n} is outside 0..=63")
            }
            OpError::Substr { start, end, len } => write!(
                f,
                "substr({start}, {end}) is out of range or not on a character boundary of a string of {len} bytes"
            ),
        }
    }
}

/// Applies a unary operation.
pub fn unary(op: UnaryOp, v: &Value) -> Value {
    match op {
        UnaryOp::NegInt => Value::Int(v.as_int().wrapping_neg()),
        UnaryOp::NegFloat => Value::Float(-v.as_float()),
        UnaryOp::Not => Value::Bool(!v.as_bool()),
        UnaryOp::NotInt => Value::Int(!v.as_int()),
    }
}

/// Applies a binary operation (including non-short-circuit `&&`/`||`).
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, OpError> {
    use BinaryOp::*;
    let (i, j) = (a.as_int(), b.as_int());
    let (x, y) = (a.as_float(), b.as_float());
    Ok(match op {
        AddInt => Value::Int(i.wrapping_add(j)),
        SubInt => Value::Int(i.wrapping_sub(j)),
        MulInt => Value::Int(i.wrapping_mul(j)),
        DivInt => {
            if j == 0 {
                return Err(OpError::DivisionByZero);
            }
            Value::Int(i.wrapping_div(j))
        }
        RemInt => {
            if j == 0 {
                return Err(OpError::DivisionByZero);
            }
            Value::Int(i.wrapping_rem(j))
        }
        AddFloat => Value::Float(x + y),
        SubFloat => Value::Float(x - y),
        MulFloat => Value::Float(x * y),
        DivFloat => Value::Float(x / y),
        RemFloat => Value::Float(x % y),
        LtInt => Value::Bool(i < j),
        LeInt => Value::Bool(i <= j),
        GtInt => Value::Bool(i > j),
        GeInt => Value::Bool(i >= j),
        LtFloat => Value::Bool(x < y),
        LeFloat => Value::Bool(x <= y),
        GtFloat => Value::Bool(x > y),
        GeFloat => Value::Bool(x >= y),
        Eq => Value::Bool(a == b),
        Ne => Value::Bool(a != b),
        And => Value::Bool(a.as_bool() && b.as_bool()),
        Or => Value::Bool(a.as_bool() || b.as_bool()),
        BitAndInt => Value::Int(i & j),
        BitOrInt => Value::Int(i | j),
        BitXorInt => Value::Int(i ^ j),
        ShlInt => Value::Int(i << shift_amount(j)?),
        ShrInt => Value::Int(i >> shift_amount(j)?),
        ConcatStr => {
            let (s, t) = (a.as_str(), b.as_str());
            let mut out = String::with_capacity(s.len() + t.len());
            out.push_str(s);
            out.push_str(t);
            Value::Str(out.into())
        }
        LtStr => Value::Bool(a.as_str() < b.as_str()),
        LeStr => Value::Bool(a.as_str() <= b.as_str()),
        GtStr => Value::Bool(a.as_str() > b.as_str()),
        GeStr => Value::Bool(a.as_str() >= b.as_str()),
    })
}

/// A checked shift amount: `0..=63`.
pub fn shift_amount(n: i64) -> Result<u32, OpError> {
    if (0..=63).contains(&n) {
        Ok(n as u32)
    } else {
        Err(OpError::ShiftOutOfRange(n))
    }
}

/// `substr(s, start, end)`: the bytes `start..end` of `s`, which must be in
/// range and on character boundaries.
pub fn substr(s: &str, start: i64, end: i64) -> Result<&str, OpError> {
    usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(a, b)| s.get(a..b))
        .ok_or(OpError::Substr {
            start,
            end,
            len: s.len(),
        })
}

/// Applies a built-in function to already-checked arguments.
pub fn builtin(f: Builtin, args: &[Value]) -> Result<Value, OpError> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Int(0));
    Ok(match f {
        Builtin::ToF64 => Value::Float(arg(0).as_int() as f64),
        // `as` truncates toward zero and saturates; NaN becomes 0.
        Builtin::ToI64 => Value::Int(arg(0).as_float() as i64),
        Builtin::AbsInt => Value::Int(arg(0).as_int().wrapping_abs()),
        Builtin::AbsFloat => Value::Float(arg(0).as_float().abs()),
        Builtin::MinInt => Value::Int(arg(0).as_int().min(arg(1).as_int())),
        Builtin::MaxInt => Value::Int(arg(0).as_int().max(arg(1).as_int())),
        Builtin::MinFloat => Value::Float(arg(0).as_float().min(arg(1).as_float())),
        Builtin::MaxFloat => Value::Float(arg(0).as_float().max(arg(1).as_float())),
        Builtin::Sqrt => Value::Float(arg(0).as_float().sqrt()),
        Builtin::Floor => Value::Float(arg(0).as_float().floor()),
        Builtin::Ceil => Value::Float(arg(0).as_float().ceil()),
        Builtin::LenStr => match &args[0] {
            Value::Str(s) => Value::Int(s.len() as i64),
            _ => Value::Int(0),
        },
        Builtin::LenArray => match &args[0] {
            Value::Array(a) => Value::Int(a.len() as i64),
            _ => Value::Int(0),
        },
        Builtin::ToStrInt => Value::Str(arg(0).as_int().to_string().into()),
        Builtin::ToStrBool => Value::Str(arg(0).as_bool().to_string().into()),
        Builtin::ToStrFloat => Value::Str(arg(0).as_float().to_string().into()),
        Builtin::Substr => {
            let s = arg(0);
            Value::Str(substr(s.as_str(), arg(1).as_int(), arg(2).as_int())?.into())
        }
        Builtin::MapFrom => {
            let mut m = OrdMap::new();
            for pair in args.chunks(2) {
                if let [k, v] = pair {
                    if let Some(k) = MapKey::of(k) {
                        m.insert(k, v.clone());
                    }
                }
            }
            Value::Map(Arc::new(m))
        }
        Builtin::MapIndex => match map_entry(&arg(0), &arg(1)) {
            Some(v) => v.clone(),
            None => {
                let key = MapKey::of(&arg(1)).unwrap_or(MapKey::Int(arg(1).as_int()));
                return Err(OpError::KeyAbsent(key));
            }
        },
        Builtin::MapGetOr => map_entry(&arg(0), &arg(1))
            .cloned()
            .unwrap_or_else(|| arg(2)),
        Builtin::MapContains => Value::Bool(map_entry(&arg(0), &arg(1)).is_some()),
        Builtin::LenMap => match args.first() {
            Some(Value::Map(m)) => Value::Int(m.len() as i64),
            _ => Value::Int(0),
        },
        Builtin::MapInsert => match (arg(0), MapKey::of(&arg(1))) {
            (Value::Map(m), Some(k)) => Value::Map(Arc::new(m.update(k, arg(2)))),
            (other, _) => other,
        },
        Builtin::MapRemove => match (arg(0), MapKey::of(&arg(1))) {
            (Value::Map(m), Some(k)) => Value::Map(Arc::new(m.without(&k))),
            (other, _) => other,
        },
        Builtin::MapKeys | Builtin::MapValues => match args.first() {
            Some(Value::Map(m)) => Value::Array(Arc::new(if f == Builtin::MapKeys {
                m.keys().map(MapKey::to_value).collect()
            } else {
                m.values().cloned().collect()
            })),
            _ => Value::Array(Arc::default()),
        },
        Builtin::ArrayAppend
        | Builtin::ArrayConcat
        | Builtin::ArraySlice
        | Builtin::ArrayInsertAt
        | Builtin::ArrayRemoveAt => {
            let mut a = arg(0);
            array_update(f, &mut a, args.get(1..).unwrap_or(&[]))?;
            a
        }
    })
}

/// Applies an array built-in ([`Builtin::updates_array`]) to `array` in
/// place, with `rest` its other arguments: `array` becomes the value the
/// built-in returns. The elements are copied only if the array's storage
/// is shared (copy on write), so `x = append(x, e);` on an `x` that holds
/// the only reference is amortized O(1). On an error `array` is unchanged.
pub fn array_update(f: Builtin, array: &mut Value, rest: &[Value]) -> Result<(), OpError> {
    let Value::Array(items) = array else {
        return Ok(());
    };
    let int = |i: usize| rest.get(i).map_or(0, Value::as_int);
    let len = items.len();
    match f {
        Builtin::ArrayAppend => {
            if let Some(e) = rest.first() {
                Arc::make_mut(items).push(e.clone());
            }
        }
        Builtin::ArrayConcat => {
            if let Some(Value::Array(b)) = rest.first() {
                if !b.is_empty() {
                    Arc::make_mut(items).extend(b.iter().cloned());
                }
            }
        }
        Builtin::ArraySlice => {
            let (start, end) = (int(0), int(1));
            let range = usize::try_from(start)
                .ok()
                .zip(usize::try_from(end).ok())
                .filter(|&(i, j)| i <= j && j <= len)
                .ok_or(OpError::SliceOutOfRange { start, end, len })?;
            if range != (0, len) {
                match Arc::get_mut(items) {
                    Some(v) => {
                        v.truncate(range.1);
                        v.drain(..range.0);
                    }
                    None => *items = Arc::new(items[range.0..range.1].to_vec()),
                }
            }
        }
        Builtin::ArrayInsertAt => {
            let index = int(0);
            let i = usize::try_from(index)
                .ok()
                .filter(|&i| i <= len)
                .ok_or(OpError::InsertOutOfRange { index, len })?;
            let e = rest.get(1).cloned().unwrap_or(Value::Int(0));
            Arc::make_mut(items).insert(i, e);
        }
        Builtin::ArrayRemoveAt => {
            let index = int(0);
            let i = usize::try_from(index)
                .ok()
                .filter(|&i| i < len)
                .ok_or(OpError::IndexOutOfRange { index, len })?;
            Arc::make_mut(items).remove(i);
        }
        _ => {}
    }
    Ok(())
}

/// The value stored under key `k` in map `m`.
fn map_entry<'a>(m: &'a Value, k: &Value) -> Option<&'a Value> {
    match (m, MapKey::of(k)) {
        (Value::Map(m), Some(k)) => m.get(&k),
        _ => None,
    }
}

/// A mutable reference to `map[key]`, inserting `zero` first if the key is
/// absent (`m[k] = v;` inserts or updates); copy on write as for arrays.
pub fn entry_mut<'a>(map: &'a mut Value, key: &Value, zero: Value) -> &'a mut Value {
    match (map, MapKey::of(key)) {
        (Value::Map(m), Some(k)) => Arc::make_mut(m).entry(k).or_insert(zero),
        (other, _) => other,
    }
}

/// The arm of a `match` that a value takes: the first whose patterns
/// contain it, or the final `_` arm.
pub fn match_arm<'a>(v: &Value, arms: &'a [MatchArm]) -> Option<&'a MatchArm> {
    arms.iter()
        .find(|arm| arm.patterns.is_empty() || arm.patterns.contains(v))
}

/// Reads `array[index]`.
pub fn index(array: &Value, index: i64) -> Result<Value, OpError> {
    match array {
        Value::Array(items) => usize::try_from(index)
            .ok()
            .and_then(|i| items.get(i))
            .cloned()
            .ok_or(OpError::IndexOutOfRange {
                index,
                len: items.len(),
            }),
        _ => Err(OpError::IndexOutOfRange { index, len: 0 }),
    }
}

/// A mutable reference to `array[index]`, copying the array first if it is
/// shared (copy on write keeps value semantics).
pub fn index_mut(array: &mut Value, index: i64) -> Result<&mut Value, OpError> {
    match array {
        Value::Array(items) => {
            let len = items.len();
            let i = usize::try_from(index)
                .ok()
                .filter(|&i| i < len)
                .ok_or(OpError::IndexOutOfRange { index, len })?;
            Ok(&mut Arc::make_mut(items)[i])
        }
        _ => Err(OpError::IndexOutOfRange { index, len: 0 }),
    }
}

/// A mutable reference to member `i` of a record (copy on write).
pub fn member_mut(record: &mut Value, i: usize) -> &mut Value {
    match record {
        Value::Record(fields) => &mut Arc::make_mut(fields)[i],
        other => other,
    }
}
