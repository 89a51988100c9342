//! What forwarding (`forward.rs`) records and decides, as plain data: the
//! events a fused function's generation reports, the windows of reads a
//! bound call's value replaces, and the slots target lists return. A leaf
//! of the generator, so that the generator's state (`gen.rs`) can hold it
//! without depending on the layer that fills it in.

use proc_macro2::{Ident, TokenStream};
use std::collections::BTreeMap;
use treefuse_fusion::FusedFnId;
use treefuse_sema::{FieldId, TypeId};

/// A fused call's target list.
pub(crate) type Targets = Vec<(TypeId, FusedFnId)>;

/// What the code of a unit does that matters to forwarding.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    /// A read of a slot (by its Rust name) of the hoisted child in the
    /// receiver's field: `t[LOCAL].SLOT`.
    Read(FieldId, String),
    /// Any other use of the hoisted child's local.
    Use(FieldId),
    /// The receiver's child slot itself, read or written (`t[this].FIELD`).
    Slot(FieldId),
    /// Code that may change the slots of any node: rewriting, sites, open
    /// lists, a `&mut` borrow of the tree.
    Mutates,
    /// An assignment to a data slot of the receiver (`t[this].SLOT = v;`).
    Assigns(String),
}

impl Event {
    /// Whether the event keeps the reads of the child in `field` in its
    /// unit and after it as they are.
    pub(crate) fn blocks(&self, field: FieldId) -> bool {
        match self {
            Event::Use(f) | Event::Slot(f) => *f == field,
            Event::Mutates => true,
            Event::Read(..) | Event::Assigns(_) => false,
        }
    }
}

/// A fused call on a child (the first of its unit).
pub(crate) struct Call {
    pub(crate) unit: usize,
    pub(crate) field: FieldId,
    pub(crate) targets: Targets,
    /// A call of a `Step::Group`, whose value can be bound.
    pub(crate) bound: bool,
}

/// The reads of `slot` of the child in `field` that the value of the call
/// in unit `unit` replaces: those in the units before `until`.
#[derive(Clone)]
pub(crate) struct Window {
    pub(crate) unit: usize,
    pub(crate) field: FieldId,
    pub(crate) slot: String,
    pub(crate) until: usize,
    /// The value's name, once the call is bound.
    pub(crate) ret: Option<Ident>,
}

/// A fused function's windows, valid for its generation with the child
/// ids that `hoist` leaves unread (see `Gen::fused_fn_with`).
#[derive(Clone)]
pub(crate) struct Windows {
    pub(crate) hoist: Option<Vec<FieldId>>,
    pub(crate) windows: Vec<Window>,
}

/// What the generation of one fused function reported (see the module
/// docs); reset by every attempt of `Gen::fused_fn_with`.
#[derive(Default)]
pub(crate) struct Record {
    /// A fused function is being generated (other code reports nothing).
    pub(crate) active: bool,
    /// The unit being generated (0: before the first step).
    pub(crate) unit: usize,
    /// Above 0 while code is generated only to be inspected, not emitted.
    pub(crate) quiet: usize,
    /// The next statement is an `if` whose branches are units of their
    /// own.
    pub(crate) pieces: bool,
    pub(crate) events: Vec<(usize, Event)>,
    pub(crate) calls: Vec<Call>,
    /// The attempt's hoisting (`Gen::fused_fn_with`'s `hoist`).
    pub(crate) hoist: Option<Vec<FieldId>>,
    /// Hoisted children the function never assigns.
    pub(crate) kept: Vec<FieldId>,
    /// The windows in force.
    pub(crate) windows: Vec<Window>,
}

impl Record {
    /// The first unit after `from` that blocks the child in `field`.
    pub(crate) fn blocked_after(&self, from: usize, field: FieldId) -> usize {
        self.events
            .iter()
            .filter(|(u, e)| *u > from && e.blocks(field))
            .map(|(u, _)| *u)
            .min()
            .unwrap_or(usize::MAX)
    }

    /// The reads of the child in `field` in the units after `from` and
    /// before `until`.
    pub(crate) fn reads(
        &self,
        from: usize,
        until: usize,
        field: FieldId,
    ) -> impl Iterator<Item = &str> {
        self.events.iter().filter_map(move |(u, e)| match e {
            Event::Read(f, slot) if *f == field && *u > from && *u < until => Some(slot.as_str()),
            _ => None,
        })
    }
}

/// The slot a target list's dispatchers (and its functions) return.
#[derive(Clone)]
pub(crate) struct Forwarded {
    pub(crate) slot: Ident,
    pub(crate) ty: TokenStream,
}

/// What the fused code forwards: per target list and per fused function,
/// and the reads each fused function's bound calls replace.
#[derive(Default)]
pub(crate) struct Forwarding {
    pub(crate) by_targets: BTreeMap<Vec<(TypeId, FusedFnId)>, Forwarded>,
    pub(crate) by_fn: BTreeMap<usize, Forwarded>,
    pub(crate) windows: BTreeMap<usize, Windows>,
}
