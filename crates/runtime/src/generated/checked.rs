//! The operations of the language that can fail at run time, as generated
//! code calls them: each takes the [`At`] of the expression and raises the
//! interpreter's message there.

use super::{At, Fail, RuntimeError, ValueMap};
use std::hash::Hash;
use std::sync::Arc;

/// `a / b` on `i64` (wrapping, as the interpreter): an error if `b` is 0.
#[inline]
pub fn div_int(a: i64, b: i64, at: &At) -> Result<i64, Fail> {
    if b == 0 {
        return Err(at.error("integer division or remainder by zero".to_string()));
    }
    Ok(a.wrapping_div(b))
}

/// `a % b` on `i64` (wrapping): an error if `b` is 0.
#[inline]
pub fn rem_int(a: i64, b: i64, at: &At) -> Result<i64, Fail> {
    if b == 0 {
        return Err(at.error("integer division or remainder by zero".to_string()));
    }
    Ok(a.wrapping_rem(b))
}

/// `a << b` (`left`) or `a >> b`: an error unless `0 <= b <= 63`.
#[inline]
pub fn shift_int(a: i64, b: i64, left: bool, at: &At) -> Result<i64, Fail> {
    if !(0..=63).contains(&b) {
        return Err(at.error(format!("shift amount {b} is outside 0..=63")));
    }
    Ok(if left { a << b } else { a >> b })
}

/// `m[k]` on a map: an error if `k` is not in it.
#[inline]
pub fn map_index<K: Ord + Hash + Clone + 'static + std::fmt::Debug, V: Clone>(
    m: &ValueMap<K, V>,
    k: &K,
    at: &At,
) -> Result<V, Fail> {
    map_ref(m, k, at).cloned()
}

/// `m[k]` on a map, borrowed where only part of the value is read
/// (`m[k].member`): an error if `k` is not in it.
#[inline]
pub fn map_ref<'m, K: Ord + Hash + Clone + 'static + std::fmt::Debug, V: Clone>(
    m: &'m ValueMap<K, V>,
    k: &K,
    at: &At,
) -> Result<&'m V, Fail> {
    m.get(k)
        .ok_or_else(|| at.error(format!("the key {k:?} is not in the map")))
}

/// `get_or(m, k, d)`: `m[k]`, or `d` if `k` is not in the map.
#[inline]
pub fn map_get_or<K: Ord + Hash + Clone + 'static, V: Clone>(m: &ValueMap<K, V>, k: &K, d: V) -> V {
    match m.get(k) {
        Some(v) => v.clone(),
        None => d,
    }
}

/// `m = remove(m, k)` in place (an absent key copies nothing).
#[inline]
pub fn map_remove<K: Ord + Hash + Clone + 'static, V: Clone>(m: &mut ValueMap<K, V>, k: &K) {
    m.remove(k);
}

/// `min(a, b)` on integers where it is nested in `max` or holds a `max`
/// (generated code calls `a.min(b)` elsewhere; clippy rejects some nested
/// forms with constant bounds as constant, see `min_max`).
#[inline]
pub fn min_i64(a: i64, b: i64) -> i64 {
    a.min(b)
}

/// `max(a, b)` on integers, nested (see [`min_i64`]).
#[inline]
pub fn max_i64(a: i64, b: i64) -> i64 {
    a.max(b)
}

/// `min(a, b)` on floats, nested (see [`min_i64`]).
#[inline]
pub fn min_f64(a: f64, b: f64) -> f64 {
    a.min(b)
}

/// `max(a, b)` on floats, nested (see [`min_i64`]).
#[inline]
pub fn max_f64(a: f64, b: f64) -> f64 {
    a.max(b)
}

/// `a + b` on strings.
#[inline]
pub fn concat_str(a: &str, b: &str) -> Arc<str> {
    let mut out = String::with_capacity(a.len() + b.len());
    out.push_str(a);
    out.push_str(b);
    Arc::from(out)
}

/// `substr(s, start, end)` in bytes: an error if the range is out of
/// bounds or does not fall on character boundaries.
#[inline]
pub fn substr_checked(s: &str, start: i64, end: i64, at: &At) -> Result<Arc<str>, Fail> {
    match usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(a, b)| s.get(a..b))
    {
        Some(part) => Ok(Arc::from(part)),
        None => Err(at.error(format!(
            "substr({start}, {end}) is out of range or not on a character boundary of a string of {} bytes",
            s.len()
        ))),
    }
}

/// `a[i]` on an array: an error if `i` is out of range.
#[inline]
pub fn checked_index<T: Clone>(a: &[T], i: i64, at: &At) -> Result<T, Fail> {
    match usize::try_from(i).ok().and_then(|k| a.get(k)) {
        Some(x) => Ok(x.clone()),
        None => Err(at.error(format!(
            "index {i} out of range for array of length {}",
            a.len()
        ))),
    }
}

/// The place `a[i]` of an array, to assign: an error if `i` is out of
/// range.
#[inline]
pub fn checked_index_mut<'a, T>(a: &'a mut [T], i: i64, at: &At) -> Result<&'a mut T, Fail> {
    let len = a.len();
    match usize::try_from(i).ok().and_then(|k| a.get_mut(k)) {
        Some(x) => Ok(x),
        None => Err(at.error(format!("index {i} out of range for array of length {len}"))),
    }
}

/// Element `i` of a list child: an error if `i` is out of range.
#[inline]
pub fn list_elem<I: Copy>(items: &[I], i: i64, at: &At) -> Result<I, Fail> {
    match usize::try_from(i).ok().and_then(|k| items.get(k)) {
        Some(&x) => Ok(x),
        None => Err(list_index_error(i, items.len(), at)),
    }
}

/// The node in an optional child slot (LANGUAGE §8.7) named `field`: an
/// error if the slot is empty.
#[inline]
pub fn opt_child<I: Copy>(slot: Option<I>, field: &str, at: &At) -> Result<I, Fail> {
    match slot {
        Some(x) => Ok(x),
        None => Err(empty_child_error(field, at)),
    }
}

/// The error of following the empty optional child `field`.
#[cold]
pub fn empty_child_error(field: &str, at: &At) -> Fail {
    at.error(format!("the optional child `{field}` is empty"))
}

/// The error of reading element `i` of a list child of `len` elements.
#[cold]
pub(crate) fn list_index_error(i: i64, len: usize, at: &At) -> Fail {
    at.error(format!(
        "list index {i} out of range (the list has {len} elements)"
    ))
}

/// The error of a failed cast `(n as T)`: the node is an `actual`.
#[cold]
pub fn cast_error(actual: &str, expected: &str, at: &At) -> Fail {
    at.error(format!(
        "cast failed: the node is a `{actual}`, not a `{expected}`"
    ))
}

/// The error of calling traversal `traversal` on a node of type `ty` that
/// has no body for it (no position: the call site is not known).
#[cold]
pub fn no_traversal(traversal: &'static str, ty: &str) -> Fail {
    Box::new(RuntimeError {
        message: format!("no traversal `{traversal}` for a node of type `{ty}`"),
        context: traversal,
        line: 0,
        col: 0,
    })
}

/// `slice(a, i, j)` (LANGUAGE §8.5): elements `i` up to but not including
/// `j`; an error unless `0 <= i <= j <= len`.
#[inline]
pub fn array_slice<T: Clone>(a: &[T], i: i64, j: i64, at: &At) -> Result<Vec<T>, Fail> {
    let (start, end) = slice_range(a.len(), i, j, at)?;
    Ok(a[start..end].to_vec())
}

/// `a = slice(a, i, j);` in place.
#[inline]
pub fn array_slice_in_place<T>(a: &mut Vec<T>, i: i64, j: i64, at: &At) -> Result<(), Fail> {
    let (start, end) = slice_range(a.len(), i, j, at)?;
    a.truncate(end);
    a.drain(..start);
    Ok(())
}

/// The range of `slice(a, i, j)` on an array of `len` elements.
#[inline]
fn slice_range(len: usize, i: i64, j: i64, at: &At) -> Result<(usize, usize), Fail> {
    match usize::try_from(i).ok().zip(usize::try_from(j).ok()) {
        Some((start, end)) if start <= end && end <= len => Ok((start, end)),
        _ => Err(at.error(format!(
            "slice({i}, {j}) is out of range for array of length {len}"
        ))),
    }
}

/// `a = insert_at(a, i, e);` in place (LANGUAGE §8.5): an error unless
/// `0 <= i <= len`.
#[inline]
pub fn array_insert_at<T>(a: &mut Vec<T>, i: i64, e: T, at: &At) -> Result<(), Fail> {
    match usize::try_from(i).ok().filter(|&k| k <= a.len()) {
        Some(k) => {
            a.insert(k, e);
            Ok(())
        }
        None => Err(at.error(format!(
            "insert position {i} out of range for array of length {}",
            a.len()
        ))),
    }
}

/// `a = remove_at(a, i);` in place (LANGUAGE §8.5): an error unless
/// `0 <= i < len`.
#[inline]
pub fn array_remove_at<T>(a: &mut Vec<T>, i: i64, at: &At) -> Result<(), Fail> {
    match usize::try_from(i).ok().filter(|&k| k < a.len()) {
        Some(k) => {
            a.remove(k);
            Ok(())
        }
        None => Err(at.error(format!(
            "index {i} out of range for array of length {}",
            a.len()
        ))),
    }
}

/// The position of `L.insert(i, ..)` in a list child of `len` elements
/// (LANGUAGE §8.5): an error unless `0 <= i <= len`.
#[inline]
pub fn list_insert_position(len: usize, i: i64, at: &At) -> Result<usize, Fail> {
    match usize::try_from(i).ok().filter(|&k| k <= len) {
        Some(k) => Ok(k),
        None => Err(at.error(format!(
            "list insert position {i} out of range (the list has {len} elements)"
        ))),
    }
}
