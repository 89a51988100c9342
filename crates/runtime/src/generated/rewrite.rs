//! Rewriting in place (`docs/src/language.md` §7.1–7.3) in generated code:
//! what a traversal did with its receiver ([`Replaced`]), where the
//! receiver stands ([`Site`]), and the list of a running loop whose
//! elements may replace themselves ([`OpenList`]).

use super::{checked::list_index_error, At, Fail};
use std::sync::Arc;

/// What a traversal that may replace its receiver did with it; the caller
/// puts the replacement where the receiver stood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replaced<I> {
    /// The receiver stays.
    Kept,
    /// `self = SUBTREE;`
    One(I),
    /// A thicket: zero or more nodes (the receiver stands in a list).
    Many(Vec<I>),
}

impl<I> Replaced<I> {
    /// The replacement of a receiver that stands in a single slot or is
    /// the root (a thicket raised an error there instead).
    #[inline]
    pub fn single(self) -> Option<I> {
        match self {
            Replaced::One(x) => Some(x),
            _ => None,
        }
    }
}

/// Where the receiver of a traversal stands, for `in_list()` and
/// thickets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The root of the run.
    Root,
    /// In a list of children.
    Listed,
    /// In a single child slot: the parent's type and the field.
    Child(&'static str, &'static str),
}

/// The error of a thicket replacing a receiver that does not stand in a
/// list.
#[cold]
pub fn thicket_error(site: Site, at: &At) -> Fail {
    let place = match site {
        Site::Root => "it is the root of the run".to_string(),
        Site::Child(ty, field) => format!("it stands in the single child slot `{ty}.{field}`"),
        Site::Listed => "it stands in a list".to_string(),
    };
    at.error(format!(
        "a list value can only replace a node that stands in a list of children, but {place}"
    ))
}

/// A running `for` loop over a list child whose elements may replace
/// themselves. The loop visits the elements of the snapshot (the list
/// when it started); a later call on the loop variable runs on every node
/// now standing where the current element stood (its region). Until the
/// first replacement nothing is copied; then `front` holds the list built
/// so far (its tail is the current region), the elements not reached yet
/// being `snapshot[next..]`, so that a loop over n elements costs
/// O(n + inserted) in all. The tree's slot is written when the loop ends
/// (or leaves), or before a deep copy ([`OpenList::sync`], O(n));
/// meanwhile the owner reads the list from here ([`OpenList::len`] and
/// [`OpenList::elem`] in O(1)).
#[derive(Clone, Debug)]
pub struct OpenList<I> {
    snapshot: Arc<[I]>,
    next: usize,
    front: Option<Vec<I>>,
    region_start: usize,
    stale: bool,
    region: Vec<I>,
}

impl<I: Copy> OpenList<I> {
    /// A loop over `snapshot`, before its first element.
    pub fn new(snapshot: Arc<[I]>) -> Self {
        OpenList {
            snapshot,
            next: 0,
            front: None,
            region_start: 0,
            stale: false,
            region: Vec::new(),
        }
    }

    /// The next original element, or `None` at the end.
    #[inline]
    pub fn advance(&mut self) -> Option<I> {
        let e = *self.snapshot.get(self.next)?;
        self.next += 1;
        match &mut self.front {
            Some(front) => {
                self.region_start = front.len();
                front.push(e);
            }
            None => self.region_start = self.next - 1,
        }
        Some(e)
    }

    /// The length of the list as the program sees it now.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.front {
            Some(front) => front.len() + self.snapshot.len() - self.next,
            None => self.snapshot.len(),
        }
    }

    /// Whether the list as the program sees it now is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` of the list as the program sees it now, or a runtime
    /// error.
    #[inline]
    pub fn elem(&self, i: i64, at: &At) -> Result<I, Fail> {
        let found = usize::try_from(i).ok().and_then(|k| match &self.front {
            Some(front) if k < front.len() => Some(front[k]),
            Some(front) => self.snapshot.get(self.next + (k - front.len())).copied(),
            None => self.snapshot.get(k).copied(),
        });
        match found {
            Some(x) => Ok(x),
            None => Err(list_index_error(i, self.len(), at)),
        }
    }

    /// Takes the current region out of the list, to be visited node by
    /// node ([`OpenList::region_node`], then [`OpenList::put`] each back).
    #[inline]
    pub fn take_region(&mut self) {
        self.region.clear();
        match &mut self.front {
            Some(front) => self.region.extend(front.drain(self.region_start..)),
            None => self.region.push(self.snapshot[self.region_start]),
        }
    }

    /// The node now standing where the current element stood (the first
    /// node of its region), between visits of the region; `None` if the
    /// region is empty.
    #[inline]
    pub fn standing(&self) -> Option<I> {
        match &self.front {
            Some(front) => front.get(self.region_start).copied(),
            None => self.snapshot.get(self.region_start).copied(),
        }
    }

    /// Node `k` of the region taken by [`OpenList::take_region`].
    #[inline]
    pub fn region_node(&self, k: usize) -> Option<I> {
        self.region.get(k).copied()
    }

    /// A call argument for the region node just taken, the `k`-th
    /// (counting from 1): the region's last node takes `value` itself
    /// (leaving an empty value behind), earlier nodes get copies. A region
    /// is nearly always one node, so the arguments of a call on a loop
    /// element are evaluated once and handed over, not copied again.
    #[inline]
    pub fn region_arg<T: Clone + Default>(&self, k: usize, value: &mut T) -> T {
        if k >= self.region.len() {
            std::mem::take(value)
        } else {
            value.clone()
        }
    }

    /// After visiting region node `n`: it stays or is replaced.
    #[inline]
    pub fn put(&mut self, n: I, r: Replaced<I>) {
        match r {
            Replaced::Kept => {
                if let Some(front) = &mut self.front {
                    front.push(n);
                }
            }
            Replaced::One(x) => {
                self.stale = true;
                self.front_mut().push(x);
            }
            Replaced::Many(xs) => {
                self.stale = true;
                self.front_mut().extend(xs);
            }
        }
    }

    /// `front`, made on the first replacement from the elements before
    /// the current region (copied once).
    fn front_mut(&mut self) -> &mut Vec<I> {
        let processed = self.region_start;
        let snapshot = &self.snapshot;
        self.front
            .get_or_insert_with(|| snapshot[..processed].to_vec())
    }

    /// The list as the program sees it now.
    pub fn current(&self) -> Arc<[I]> {
        match &self.front {
            Some(front) => front
                .iter()
                .chain(&self.snapshot[self.next..])
                .copied()
                .collect(),
            None => self.snapshot.clone(),
        }
    }

    /// The list to write into the tree's slot if replacements changed it
    /// since it was last written; `None` when the slot holds it already
    /// (then the owner is not touched, which a split worker's view of the
    /// tree relies on: it renumbers only nodes handed out mutably).
    pub fn sync(&mut self) -> Option<Arc<[I]>> {
        if self.stale {
            self.stale = false;
            Some(self.current())
        } else {
            None
        }
    }

    /// At the end of the loop: the list to write into the tree's slot if
    /// replacements changed it; `None` when the slot holds it already.
    pub fn close(&mut self) -> Option<Arc<[I]>> {
        self.front.is_some().then(|| self.current())
    }
}
