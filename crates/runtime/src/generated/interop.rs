//! The JSON glue of generated modules: what converts a generated tree
//! from and to a [`crate::Tree`] (whose iterative reader and writer
//! implement the JSON format of `docs/src/language.md` §4 once for every
//! engine) and is not particular to one program.
//!
//! What is here: the [`Convert`] trait between generated data types and
//! [`Value`] (with its impls for the built-in types), access to the slots
//! of a [`crate::Tree`] node ([`rt_data`], [`rt_child`], [`rt_list`]), and
//! the pre-order numbering of the reachable nodes per hierarchy
//! ([`Numbering`]), by which a generated `Tree::from_runtime` lays the
//! nodes out in its per-hierarchy arenas.
//!
//! A generated module keeps only its own part: the conversions of its
//! record and enum types ([`Convert`] impls), one constructor call per
//! concrete type when reading, and one slot write per field when writing.

use crate::store::{NodeId, SlotRef, Tree};
use std::hash::Hash;
use std::sync::Arc;
use treefuse_sema::value::MapKey;
use treefuse_sema::{Program, Value};

/// A data type of generated code that converts from and to interpreter
/// [`Value`]s. Conversions from a value of the wrong shape give the type's
/// default (a tree read against the program's schema never has one).
pub trait Convert: Sized {
    /// The value of `self`.
    fn to_value(&self) -> Value;
    /// `v` as this type.
    fn from_value(v: &Value) -> Self;
}

/// `v` as an interpreter value (the function form of [`Convert::to_value`],
/// for fields of any data type).
#[inline]
pub fn to_value<T: Convert>(v: &T) -> Value {
    v.to_value()
}

/// `v` as a `T` (the function form of [`Convert::from_value`], with `T`
/// inferred from where the result goes).
#[inline]
pub fn from_value<T: Convert>(v: &Value) -> T {
    T::from_value(v)
}

impl Convert for i64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
    fn from_value(v: &Value) -> Self {
        v.as_int()
    }
}

impl Convert for f64 {
    fn to_value(&self) -> Value {
        Value::Float(*self)
    }
    fn from_value(v: &Value) -> Self {
        v.as_float()
    }
}

impl Convert for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: &Value) -> Self {
        v.as_bool()
    }
}

impl Convert for Arc<str> {
    fn to_value(&self) -> Value {
        Value::Str(treefuse_sema::value::ArcStr::from(&**self))
    }
    fn from_value(v: &Value) -> Self {
        match v {
            Value::Str(s) => Arc::from(s.as_str()),
            _ => Arc::from(""),
        }
    }
}

impl<T: Convert> Convert for Vec<T> {
    fn to_value(&self) -> Value {
        Value::Array(Arc::new(self.iter().map(T::to_value).collect()))
    }
    fn from_value(v: &Value) -> Self {
        match v {
            Value::Array(items) => items.iter().map(T::from_value).collect(),
            _ => Vec::new(),
        }
    }
}

impl<K: Convert + Ord + Hash + Clone + 'static, V: Convert + Clone> Convert
    for super::ValueMap<K, V>
{
    fn to_value(&self) -> Value {
        Value::Map(Arc::new(
            self.iter()
                .filter_map(|(k, x)| Some((MapKey::of(&k.to_value())?, x.to_value())))
                .collect(),
        ))
    }
    fn from_value(v: &Value) -> Self {
        match v {
            Value::Map(m) => m
                .iter()
                .map(|(k, x)| (K::from_value(&k.to_value()), V::from_value(x)))
                .collect(),
            _ => super::ValueMap::new(),
        }
    }
}

/// The fields of a record value, in declaration order (none if `v` is not
/// a record); a generated record's [`Convert::from_value`] reads them
/// one by one with [`next_field`].
pub fn record_fields(v: &Value) -> std::slice::Iter<'_, Value> {
    match v {
        Value::Record(fields) => fields.iter(),
        _ => [].iter(),
    }
}

/// The next field of a record (or the next value of a list of globals or
/// arguments) as a `T`; the default if there is none.
pub fn next_field<'a, T: Convert>(fields: &mut impl Iterator<Item = &'a Value>) -> T {
    T::from_value(fields.next().unwrap_or(&Value::Int(0)))
}

/// The variant index of an enum value (0 if `v` is not an enum).
pub fn enum_index(v: &Value) -> u32 {
    match v {
        Value::Enum(i) => *i,
        _ => 0,
    }
}

/// Data slot `s` of node `n` (0 if it is not a data slot, which a tree of
/// the program's schema never has).
pub fn rt_data(rt: &Tree, n: NodeId, s: u32) -> Value {
    rt.data(n, s)
}

/// Child slot `s` of node `n`, mapped by `map` to its index in the
/// generated tree's arena.
pub fn rt_child(rt: &Tree, n: NodeId, s: u32, map: &[u32]) -> u32 {
    match rt.slot(n, s) {
        SlotRef::Child(c) => map[c.index()],
        _ => u32::MAX,
    }
}

/// Optional child slot `s` of node `n` (LANGUAGE §8.7), mapped by `map`
/// to its index in the generated tree's arena; `None` when empty.
pub fn rt_child_opt(rt: &Tree, n: NodeId, s: u32, map: &[u32]) -> Option<u32> {
    match rt.slot(n, s) {
        SlotRef::Child(c) => Some(map[c.index()]),
        _ => None,
    }
}

/// List slot `s` of node `n`, mapped by `map` to arena indices.
pub fn rt_list(rt: &Tree, n: NodeId, s: u32, map: &[u32]) -> Vec<u32> {
    match rt.slot(n, s) {
        SlotRef::List(items) => items.iter().map(|c| map[c.index()]).collect(),
        _ => Vec::new(),
    }
}

/// The reachable nodes of a [`Tree`] in pre-order, each numbered within
/// its hierarchy: what a generated `Tree::from_runtime` needs to lay the
/// nodes out in its per-hierarchy arenas.
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    /// Per runtime node (by index): its index in its hierarchy's arena
    /// (`u32::MAX` for nodes that are not reachable).
    pub map: Vec<u32>,
    /// Per hierarchy: how many nodes it has.
    pub counts: Vec<u32>,
    /// The reachable nodes in pre-order, the root first.
    pub order: Vec<NodeId>,
}

impl Numbering {
    /// Numbers the nodes reachable from `rt.root`, iteratively;
    /// `hierarchy_of[type]` is the hierarchy of each type of the program
    /// and `hierarchies` their number. An empty tree has no nodes.
    pub fn new(rt: &Tree, hierarchy_of: &[usize], hierarchies: usize) -> Self {
        let mut out = Numbering {
            map: vec![u32::MAX; rt.allocated()],
            counts: vec![0; hierarchies],
            order: Vec::new(),
        };
        if rt.root.index() >= rt.allocated() {
            return out;
        }
        let mut stack = vec![rt.root];
        while let Some(n) = stack.pop() {
            let ty = rt.type_of(n).index();
            let h = hierarchy_of[ty];
            out.map[n.index()] = out.counts[h];
            out.counts[h] += 1;
            out.order.push(n);
            for s in (0..rt.slot_count(n)).rev() {
                match rt.slot(n, s) {
                    SlotRef::Child(c) => stack.push(c),
                    SlotRef::List(items) => stack.extend(items.iter().rev().copied()),
                    SlotRef::Data(_) | SlotRef::Empty => {}
                }
            }
        }
        out
    }
}

/// The checked program of a generated module's `SOURCE`: the schema its
/// JSON layer reads and writes trees with. Panics if the source no
/// longer checks, which cannot happen for the source the module was
/// generated from.
pub fn schema_of(source: &str) -> Program {
    match treefuse_sema::compile(source) {
        Ok(p) => p,
        Err(d) => panic!("the generated module's source no longer checks: {d:?}"),
    }
}

/// Reads a JSON tree whose root is a `root_type` into a [`Tree`]; errors
/// (an unknown type, a malformed or empty document, a node that does not
/// fit the schema) are messages with the JSON path.
pub fn read_runtime_tree(schema: &Program, root_type: &str, text: &str) -> Result<Tree, String> {
    let root = schema
        .type_named(root_type)
        .ok_or_else(|| format!("no tree type `{root_type}`"))?;
    crate::read_tree(schema, root, text).map_err(|e| e.to_string())
}

/// Writes a [`Tree`] as JSON with the globals (as values, in the order of
/// the program's globals) under `"globals"`.
pub fn write_runtime_tree(schema: &Program, rt: &Tree, globals: &[Value]) -> String {
    crate::write_tree(schema, rt, Some(globals), Default::default())
}
