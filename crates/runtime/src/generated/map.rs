//! [`ValueMap`]: the map of generated code (`{K: V}` in the language).
//!
//! A map is a value (LANGUAGE §7.4): assigning or passing it copies it, so
//! it must share structure — an environment handed down a tree is copied
//! once per node, and each copy then grows by a binding or two. A
//! persistent B-tree (`imbl::OrdMap`) does that in O(log n), but every
//! lookup pays for it: a binary search over up to 64 keys, each comparison
//! of two strings a call to `memcmp`, behind reference-counted nodes. Most
//! maps passes build are small, though — the names of one scope, the
//! fields of one record literal — and for those a flat array is faster
//! than any tree, provided copying it stays O(1) in the map's bound.
//!
//! So a map has two forms:
//! - **flat** (up to [`FLAT_MAX`] entries): the entries sorted by key in
//!   one shared array, with a 32-bit hash of each key beside it and a
//!   small open-addressing table from hashes to positions. A lookup
//!   hashes the key once (FxHash) and probes the table, comparing a key
//!   only where the hash matches: for an identifier, a few dozen
//!   instructions where the B-tree spent a few hundred. An update copies
//!   the array only if another map shares it (copy on write), which costs
//!   at most [`FLAT_MAX`] entries: still O(1).
//! - **tree**: an `imbl::OrdMap`, once a map outgrows the flat form; it
//!   turns flat again when removals bring it down to half the bound (the
//!   gap keeps a map that hovers at the bound from converting back and
//!   forth).
//!
//! Both forms iterate in ascending key order, which is what `keys(m)`,
//! `values(m)` and the JSON writer promise; equality compares the
//! entries, whatever the forms.

use std::any::Any;
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

/// The most entries a map holds in the flat form.
pub const FLAT_MAX: usize = 64;

/// A persistent ordered map from `K` to `V`: cloning is O(1), an update
/// copies only what another map shares. See the module docs for its two
/// forms.
pub struct ValueMap<K, V> {
    repr: Repr<K, V>,
}

enum Repr<K, V> {
    Empty,
    Flat(Arc<Flat<K, V>>),
    Tree(imbl::OrdMap<K, V>),
}

/// The flat form: `entries` sorted by key, `hashes[i]` the hash of
/// `entries[i].0`, and `index` an open-addressing table from hashes to
/// entries: slot `h % INDEX_SLOTS` (or the next free one after it) holds
/// `i + 1` for entry `i`, 0 when free. The table is twice as large as
/// the flat form's bound, so a probe meets a free slot soon.
#[derive(Clone)]
struct Flat<K, V> {
    hashes: Vec<u32>,
    entries: Vec<(K, V)>,
    index: [u8; INDEX_SLOTS],
}

/// Slots of a flat map's index.
const INDEX_SLOTS: usize = 2 * FLAT_MAX;

/// Whether keys `a` and `b` are equal. Strings (the usual keys: names)
/// are first compared by pointer, which settles the common case of a name
/// looked up with the very string it was entered with (a tree's names are
/// often interned) without reading the bytes. `Arc<str>`'s own `==` has
/// no such shortcut (the standard library's pointer test needs a sized
/// `T`). The type test is resolved at compile time.
#[inline]
fn same_key<K: Eq + 'static>(a: &K, b: &K) -> bool {
    let strings = (a as &dyn Any)
        .downcast_ref::<Arc<str>>()
        .zip((b as &dyn Any).downcast_ref::<Arc<str>>());
    match strings {
        Some((x, y)) => Arc::ptr_eq(x, y) || x == y,
        None => a == b,
    }
}

/// The room a map's first insertion makes (most maps grow past one
/// entry; growing one by one reallocates three times up to eight).
const FIRST_CAPACITY: usize = 8;

/// The hash the flat form scans for: the high half of FxHash (its low
/// bits mix the input least).
#[inline]
fn hash_of<K: Hash>(k: &K) -> u32 {
    (rustc_hash::FxBuildHasher.hash_one(k) >> 32) as u32
}

impl<K: Eq + 'static, V> Flat<K, V> {
    /// A flat map of `entries`, sorted by key, at most [`FLAT_MAX`].
    fn of(entries: Vec<(K, V)>) -> Self
    where
        K: Hash,
    {
        let mut flat = Flat {
            hashes: entries.iter().map(|(k, _)| hash_of(k)).collect(),
            entries,
            index: [0; INDEX_SLOTS],
        };
        flat.reindex();
        flat
    }

    /// The index of `k`, whose hash is `h`.
    #[inline]
    fn find(&self, h: u32, k: &K) -> Option<usize> {
        let mut slot = h as usize % INDEX_SLOTS;
        loop {
            let i = usize::from(self.index[slot]).checked_sub(1)?;
            if self.hashes[i] == h && same_key(&self.entries[i].0, k) {
                return Some(i);
            }
            slot = (slot + 1) % INDEX_SLOTS;
        }
    }

    /// Enters entry `i`, whose hash is `h`, in the index.
    fn index_entry(&mut self, h: u32, i: usize) {
        let mut slot = h as usize % INDEX_SLOTS;
        while self.index[slot] != 0 {
            slot = (slot + 1) % INDEX_SLOTS;
        }
        // `i < FLAT_MAX`, so `i + 1` fits.
        self.index[slot] = (i + 1) as u8;
    }

    /// Inserts entry `(k, v)` with hash `h` at position `at`.
    fn insert_at(&mut self, at: usize, h: u32, k: K, v: V) {
        // The entries from `at` on move up by one (`at < FLAT_MAX`, so
        // the cast keeps it; branch-free, so that it runs as a few vector
        // operations).
        let at_u8 = at as u8;
        for p in self.index.iter_mut() {
            *p += u8::from(*p > at_u8);
        }
        self.hashes.insert(at, h);
        self.entries.insert(at, (k, v));
        self.index_entry(h, at);
    }

    /// Rebuilds the index from `hashes`.
    fn reindex(&mut self) {
        self.index = [0; INDEX_SLOTS];
        for i in 0..self.hashes.len() {
            self.index_entry(self.hashes[i], i);
        }
    }
}

impl<K, V> ValueMap<K, V> {
    /// The empty map (allocates nothing).
    pub const fn new() -> Self {
        ValueMap { repr: Repr::Empty }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Empty => 0,
            Repr::Flat(f) => f.entries.len(),
            Repr::Tree(m) => m.len(),
        }
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Ord + Hash + Clone + 'static, V: Clone> ValueMap<K, V> {
    /// The value of `k`, if the map has it.
    #[inline]
    pub fn get(&self, k: &K) -> Option<&V> {
        match &self.repr {
            Repr::Empty => None,
            Repr::Flat(f) => f.find(hash_of(k), k).map(|i| &f.entries[i].1),
            Repr::Tree(m) => m.get(k),
        }
    }

    /// Whether the map has `k`.
    #[inline]
    pub fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// Sets `k` to `v` in place (copying what another map shares), and
    /// returns the value `k` had.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match &mut self.repr {
            Repr::Empty => {
                let mut flat = Flat {
                    hashes: Vec::with_capacity(FIRST_CAPACITY),
                    entries: Vec::with_capacity(FIRST_CAPACITY),
                    index: [0; INDEX_SLOTS],
                };
                flat.insert_at(0, hash_of(&k), k, v);
                self.repr = Repr::Flat(Arc::new(flat));
                None
            }
            Repr::Flat(f) => {
                let h = hash_of(&k);
                if let Some(i) = f.find(h, &k) {
                    let f = Arc::make_mut(f);
                    return Some(std::mem::replace(&mut f.entries[i].1, v));
                }
                if f.entries.len() < FLAT_MAX {
                    let at = f.entries.partition_point(|(x, _)| *x < k);
                    Arc::make_mut(f).insert_at(at, h, k, v);
                } else {
                    let mut m: imbl::OrdMap<K, V> = f.entries.iter().cloned().collect();
                    m.insert(k, v);
                    self.repr = Repr::Tree(m);
                }
                None
            }
            Repr::Tree(m) => m.insert(k, v),
        }
    }

    /// Removes `k` in place (copying what another map shares; nothing
    /// when `k` is absent), and returns its value.
    pub fn remove(&mut self, k: &K) -> Option<V> {
        match &mut self.repr {
            Repr::Empty => None,
            Repr::Flat(f) => {
                let i = f.find(hash_of(k), k)?;
                if f.entries.len() == 1 {
                    let old = std::mem::replace(&mut self.repr, Repr::Empty);
                    return match old {
                        Repr::Flat(f) => Some(f.entries[0].1.clone()),
                        _ => None,
                    };
                }
                let f = Arc::make_mut(f);
                f.hashes.remove(i);
                let (_, v) = f.entries.remove(i);
                f.reindex();
                Some(v)
            }
            Repr::Tree(m) => {
                // `imbl` copies the shared nodes on the path before it
                // looks: look first, so that an absent key copies nothing.
                if !m.contains_key(k) {
                    return None;
                }
                let old = m.remove(k);
                if m.len() <= FLAT_MAX / 2 {
                    let entries = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    self.repr = Repr::Flat(Arc::new(Flat::of(entries)));
                }
                old
            }
        }
    }

    /// A copy of the map with `k` set to `v`.
    pub fn update(&self, k: K, v: V) -> Self {
        let mut m = self.clone();
        m.insert(k, v);
        m
    }

    /// A copy of the map without `k`.
    pub fn without(&self, k: &K) -> Self {
        let mut m = self.clone();
        m.remove(k);
        m
    }
}

impl<K: Ord, V> ValueMap<K, V> {
    /// The entries in ascending key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            inner: match &self.repr {
                Repr::Empty => IterRepr::Flat([].iter()),
                Repr::Flat(f) => IterRepr::Flat(f.entries.iter()),
                Repr::Tree(m) => IterRepr::Tree(m.iter()),
            },
        }
    }

    /// The keys in ascending order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// The values in ascending order of their keys.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

/// The entries of a [`ValueMap`] in ascending key order.
pub struct Iter<'a, K, V> {
    inner: IterRepr<'a, K, V>,
}

enum IterRepr<'a, K, V> {
    Flat(std::slice::Iter<'a, (K, V)>),
    Tree(imbl::ordmap::Iter<'a, K, V, imbl::shared_ptr::DefaultSharedPtr>),
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            IterRepr::Flat(it) => it.next().map(|(k, v)| (k, v)),
            IterRepr::Tree(it) => it.next(),
        }
    }
}

impl<'a, K: Ord, V> IntoIterator for &'a ValueMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K, V> Clone for ValueMap<K, V>
where
    K: Clone,
    V: Clone,
{
    fn clone(&self) -> Self {
        ValueMap {
            repr: match &self.repr {
                Repr::Empty => Repr::Empty,
                Repr::Flat(f) => Repr::Flat(Arc::clone(f)),
                Repr::Tree(m) => Repr::Tree(m.clone()),
            },
        }
    }
}

impl<K, V> Default for ValueMap<K, V> {
    fn default() -> Self {
        ValueMap::new()
    }
}

impl<K: Ord + Hash + Clone + 'static, V: Clone> FromIterator<(K, V)> for ValueMap<K, V> {
    /// The map of the pairs; a repeated key keeps its last value.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut m = ValueMap::new();
        for (k, v) in pairs {
            m.insert(k, v);
        }
        m
    }
}

impl<K: Ord, V: PartialEq> PartialEq for ValueMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<K: Ord, V: Eq> Eq for ValueMap<K, V> {}

impl<K: Ord + std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for ValueMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// One step of a random sequence of map operations.
    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, i64),
        Remove(u8),
        /// Keep a copy of the map as it is now (shares its storage).
        Snapshot,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (any::<u8>(), any::<i64>()).prop_map(|(k, v)| Op::Insert(k % 80, v)),
            2 => any::<u8>().prop_map(|k| Op::Remove(k % 80)),
            1 => Just(Op::Snapshot),
        ]
    }

    type Map = ValueMap<Arc<str>, i64>;
    type Model = BTreeMap<Arc<str>, i64>;

    fn key(k: u8) -> Arc<str> {
        Arc::from(format!("k{k}"))
    }

    proptest! {
        /// Every operation agrees with `BTreeMap`, across both forms and
        /// the conversions between them, and a snapshot taken earlier is
        /// never changed by later updates.
        #[test]
        fn behaves_as_an_ordered_map(ops in proptest::collection::vec(op(), 0..400)) {
            let mut m = Map::new();
            let mut model = Model::new();
            let mut snapshots: Vec<(Map, Model)> = Vec::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(m.insert(key(k), v), model.insert(key(k), v));
                    }
                    Op::Remove(k) => {
                        prop_assert_eq!(m.remove(&key(k)), model.remove(&key(k)));
                    }
                    Op::Snapshot => snapshots.push((m.clone(), model.clone())),
                }
                prop_assert_eq!(m.len(), model.len());
                for k in 0..80 {
                    prop_assert_eq!(m.get(&key(k)), model.get(&key(k)));
                }
                prop_assert!(m.iter().eq(model.iter()));
            }
            for (s, model) in &snapshots {
                prop_assert!(s.iter().eq(model.iter()));
                let rebuilt: Map = model.iter().map(|(k, v)| (k.clone(), *v)).collect();
                prop_assert_eq!(s, &rebuilt);
            }
        }
    }

    #[test]
    fn forms_convert_at_their_bounds() {
        let mut m: ValueMap<i64, i64> = ValueMap::new();
        assert!(matches!(m.repr, Repr::Empty));
        for k in 0..FLAT_MAX as i64 {
            m.insert(k, k);
        }
        assert!(matches!(m.repr, Repr::Flat(_)));
        m.insert(-1, 0);
        assert!(matches!(m.repr, Repr::Tree(_)));
        let shared = m.clone();
        while m.len() > FLAT_MAX / 2 {
            let k = *m.keys().next().unwrap_or(&0);
            m.remove(&k);
        }
        assert!(matches!(m.repr, Repr::Flat(_)));
        assert_eq!(shared.len(), FLAT_MAX + 1);
        let keys: Vec<i64> = m.keys().copied().collect();
        assert_eq!(
            keys,
            ((FLAT_MAX as i64 / 2)..FLAT_MAX as i64).collect::<Vec<_>>()
        );
        assert_eq!(m.update(100, 1).len(), m.len() + 1);
        assert_eq!(m.without(&100), m);
    }
}
