//! Out-of-line storage for the *cold* fields of generated tree nodes.
//!
//! A data field that no traversal, pure function or `fuse` item of the
//! program reads or writes (a function's name in an optimizer that never
//! looks at it, a source span, a comment) is still part of the tree: it
//! is read from JSON, written back, built by `new`, copied by `copy` and
//! seen through the typed API. Storing it in the node struct would make
//! every node of the hierarchy that much wider, so that every walk over
//! the arena drags it through the caches. The generated code keeps such
//! fields in a [`ColdTable`] beside the arena instead: one entry, keyed
//! by node id, per node whose concrete type has cold fields.
//!
//! Ids only grow as nodes are added (the arenas are append-only), so the
//! entries are pushed in id order and a lookup is a binary search; the
//! table is read only on the way in and out of a run, never by the
//! traversals themselves.

/// The cold fields of one hierarchy's nodes, by node id (see the module
/// documentation). `T` is the generated struct of the hierarchy's cold
/// fields; a node with no entry (one pushed through the raw `push_*`
/// API) reads as `T::default()`, the blank values.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ColdTable<T> {
    /// `(node id, cold fields)`, ascending by id.
    entries: Vec<(u32, T)>,
    /// What a node without an entry reads as.
    blank: T,
}

impl<T: Default> ColdTable<T> {
    /// The cold fields of node `id` (the blank values if it has none).
    #[inline]
    pub fn get(&self, id: u32) -> &T {
        match self.position(id) {
            Ok(i) => &self.entries[i].1,
            Err(_) => &self.blank,
        }
    }

    /// The cold fields of node `id` for writing (an entry of blank values
    /// is made if it has none).
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        let i = match self.position(id) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (id, T::default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Sets the cold fields of node `id`. A node added after every other
    /// (the usual case) is one push.
    #[inline]
    pub fn insert(&mut self, id: u32, fields: T) {
        match self.entries.last() {
            Some(&(last, _)) if last >= id => *self.get_mut(id) = fields,
            _ => self.entries.push((id, fields)),
        }
    }

    /// Appends the entries of `later`, whose ids all follow this table's,
    /// each id raised by `shift` (the entries of nodes a worker of a
    /// parallel loop created, renumbered as they join the arena).
    pub fn append_shifted(&mut self, later: ColdTable<T>, shift: u32) {
        self.entries.extend(
            later
                .entries
                .into_iter()
                .map(|(id, fields)| (id.saturating_add(shift), fields)),
        );
    }

    /// The number of nodes with an entry.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no node has an entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Room for `additional` more entries without reallocating.
    pub fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    /// The bytes of the entries (what strings, arrays and maps hold on
    /// the heap is not counted), for memory reports.
    pub fn bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<(u32, T)>()
    }

    fn position(&self, id: u32) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&id, |&(n, _)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::ColdTable;

    #[test]
    fn entries_are_found_by_id_and_missing_ones_read_blank() {
        let mut t: ColdTable<String> = ColdTable::default();
        t.insert(3, "c".into());
        t.insert(7, "g".into());
        // Out of order: an earlier id is inserted in place.
        t.insert(5, "e".into());
        assert_eq!(
            (t.get(3), t.get(5), t.get(7)),
            (&"c".into(), &"e".into(), &"g".into())
        );
        assert_eq!(t.get(4), "");
        // Setting an existing entry replaces it.
        t.insert(5, "E".into());
        assert_eq!((t.get(5).as_str(), t.len()), ("E", 3));
        t.get_mut(0).push('a');
        assert_eq!((t.get(0).as_str(), t.len()), ("a", 4));
        assert_eq!(t.bytes(), 4 * std::mem::size_of::<(u32, String)>());
    }
}
