//! Child results forwarded to the caller: a fused call on a child returns
//! the final value of one data slot of the child, which its caller reads
//! right after the call (`self.next.max_width` after
//! `self.next.resolve_flex_widths()`), so the caller uses the returned
//! value instead of indexing the child's arena again (a bounds check, two
//! loads and a register the call must preserve), as hand-written code
//! returns a list's aggregate.
//!
//! The rule follows the fused IR as the generator walks it, not the code
//! it produced: the generator reports what it does, and the decisions
//! come from those reports. A fused function's code is cut into
//! **units**: one per step of its schedule (`FusedFunction::steps`: a
//! participant's top-level statement, a `while` loop, a loop over a list)
//! and one per call of a group of fused calls on a child; an `if` that is
//! the top-level statement of an always active participant is cut further
//! after its condition and first branch and after each `else` branch
//! (the branches exclude each other, so a change in a later branch does
//! not reach the reads of an earlier one). While a unit is generated,
//! `body.rs` and `items.rs` report to the function's [`Record`] what the
//! code does with the receiver's children whose ids are read once at the
//! start (`let next_id = t[this].next;`, see `Gen::fused_fn`):
//!
//! - [`Event::Read`]: a read of a slot of such a child (`t[next_id].SLOT`),
//!   reported where a path becomes a slot read (`Gen::slot_read`);
//! - [`Event::Use`]: any other use of its local (an alias, an argument,
//!   a cast, a call on it, a write through it), reported where a path
//!   stops at the local;
//! - [`Event::Slot`]: the receiver's child slot itself (`t[this].next`): a
//!   fused call on the child, an assignment or replacement of it;
//! - [`Event::Mutates`]: code that may change slots where the rule cannot
//!   follow: rewriting, sites, open lists, a `&mut` borrow of the tree.
//!
//! A unit with [`Event::Use`] or [`Event::Slot`] for a child, or with
//! [`Event::Mutates`], **blocks** the child: its reads from that unit on
//! may see values other than the call's.
//! Code generated only to be inspected is not reported (`Gen::quietly`).
//!
//! Which slot: [`Gen::plan_forwarding`] generates every fused function once
//! without forwarding; each fused call on a hoisted child that the
//! function never assigns votes for the slots of the child read in the
//! units after the call's, up to the first unit that blocks the child. A
//! target list returns its most read slot if it is a copyable data slot
//! that every function of the list assigns (`t[this].SLOT = ..`, reported
//! by `Gen::assign` as [`Event::Assigns`]; returning a slot the callee
//! does not compute would cost it the load the caller saves), and a
//! function in several lists returns one slot only.
//!
//! Which reads: for each call of a `Step::Group` whose target list returns
//! a slot, the reads of that slot in the units after the call's, up to the
//! first unit that blocks the child (its [`Window`]), provided the
//! function uses the child's local only to read slots (no [`Event::Use`]
//! anywhere: an alias could write the slot under another name). The
//! functions are then generated again with the windows set: the callee
//! ends with `Ok(t[this].SLOT)` (the value the caller would read: the
//! dispatcher returns right after it), the caller binds the call's value
//! (`let RET = { call };`, the slot's current value when the call is
//! skipped; `_` when no read follows) and `Gen::slot_read` emits `RET`
//! for the reads in the window. Both generations cut and report the same
//! units (only reads in windows differ), so the plan's units are the
//! final code's; windows hold only for the hoisting they were planned
//! with (`Gen::fused_fn_with` may try several). A blocking unit is left
//! whole: a loop or branch that may change the slot keeps its reads, even
//! those before the change.
//!
//! Programs that rewrite in place, take sites or resume participants are
//! left as they were.

use proc_macro2::Ident;
use std::collections::{BTreeMap, BTreeSet};
use treefuse_fusion::FusedFnId;
use treefuse_sema::{FieldId, TypeId};

use crate::forward_record::{Call, Event, Forwarded, Forwarding, Record, Targets, Window, Windows};
use crate::gen::Gen;

impl Gen<'_> {
    /// Starts recording the generation of fused function `fi` with
    /// hoisting `hoist`, with its planned windows if they are for it.
    pub(crate) fn fwd_begin(&self, fi: usize, hoist: Option<&[FieldId]>) {
        let hoist = hoist.map(<[FieldId]>::to_vec);
        let windows = match self.forwarding.borrow().windows.get(&fi) {
            Some(w) if w.hoist == hoist => w.windows.clone(),
            _ => Vec::new(),
        };
        *self.fwd.borrow_mut() = Record {
            active: true,
            hoist,
            windows,
            ..Record::default()
        };
    }

    /// Starts the next unit.
    pub(crate) fn fwd_unit(&self) {
        self.fwd.borrow_mut().unit += 1;
    }

    /// Makes the branches of the next statement, if it is an `if`, units
    /// of their own: the condition and the first branch, then each
    /// `else` (where the statement is a participant's top-level statement
    /// outside a guard, see the module docs).
    pub(crate) fn fwd_pieces(&self) {
        self.fwd.borrow_mut().pieces = true;
    }

    /// Whether the statement being generated is cut by [`Self::fwd_pieces`].
    pub(crate) fn fwd_take_pieces(&self) -> bool {
        std::mem::take(&mut self.fwd.borrow_mut().pieces)
    }

    /// Reports `e` in the current unit.
    pub(crate) fn fwd_event(&self, e: Event) {
        let mut r = self.fwd.borrow_mut();
        if r.active && r.quiet == 0 {
            let unit = r.unit;
            r.events.push((unit, e));
        }
    }

    /// Runs `f`, whose code is only inspected, without reporting.
    pub(crate) fn quietly<R>(&self, f: impl FnOnce() -> R) -> R {
        self.fwd.borrow_mut().quiet += 1;
        let r = f();
        self.fwd.borrow_mut().quiet -= 1;
        r
    }

    /// Reports a fused call on child `field` in the current unit.
    pub(crate) fn fwd_call(&self, field: FieldId, targets: &[(TypeId, FusedFnId)], bound: bool) {
        let mut r = self.fwd.borrow_mut();
        let unit = r.unit;
        if !r.calls.iter().any(|c| c.unit == unit) {
            r.calls.push(Call {
                unit,
                field,
                targets: targets.to_vec(),
                bound,
            });
        }
    }

    /// Names `ret` the value of the call of the current unit if reads
    /// follow that it replaces; false if nothing reads it.
    pub(crate) fn fwd_bind(&self, ret: &Ident) -> bool {
        let mut r = self.fwd.borrow_mut();
        let unit = r.unit;
        match r.windows.iter_mut().find(|w| w.unit == unit) {
            Some(w) => {
                w.ret = Some(ret.clone());
                true
            }
            None => false,
        }
    }

    /// Reports a read of slot `slot` of the hoisted child in `field`; the
    /// call's value that replaces it, if the read is in a window.
    pub(crate) fn fwd_read(&self, field: FieldId, slot: &Ident) -> Option<Ident> {
        let ret = {
            let r = self.fwd.borrow();
            r.windows
                .iter()
                .filter(|_| r.active)
                .find(|w| {
                    w.field == field && *slot == w.slot && w.unit < r.unit && r.unit < w.until
                })
                .and_then(|w| w.ret.clone())
        };
        self.fwd_event(Event::Read(field, slot.to_string()));
        ret
    }

    /// Ends the attempt, whose hoisted children are `children`.
    pub(crate) fn fwd_end(&self, children: &[crate::gen::HoistedChild]) {
        let mut r = self.fwd.borrow_mut();
        r.active = false;
        r.kept = children
            .iter()
            .filter(|h| !h.written)
            .map(|h| h.field)
            .collect();
    }

    /// Decides which slot each target list's fused calls return and
    /// which reads their values replace (see the module docs), from the
    /// fused functions generated without.
    pub(crate) fn plan_forwarding(&self) {
        use treefuse_sema::FieldKind;
        *self.forwarding.borrow_mut() = Forwarding::default();
        let fused = &self.fused.functions;
        let rewrites = (0..fused.len()).any(|fi| {
            self.rw.fused_replaces[fi] || self.rw.fused_site[fi] || !fused[fi].resume.is_empty()
        });
        if rewrites {
            return;
        }
        let mut records = Vec::with_capacity(fused.len());
        let mut votes: BTreeMap<Targets, BTreeMap<String, usize>> = BTreeMap::new();
        let mut assigns: Vec<BTreeSet<String>> = Vec::with_capacity(fused.len());
        for (fi, f) in fused.iter().enumerate() {
            self.fused_fn(fi, f);
            let rec = std::mem::take(&mut *self.fwd.borrow_mut());
            assigns.push(
                rec.events
                    .iter()
                    .filter_map(|(_, e)| match e {
                        Event::Assigns(slot) => Some(slot.clone()),
                        _ => None,
                    })
                    .collect(),
            );
            for c in rec.calls.iter().filter(|c| rec.kept.contains(&c.field)) {
                let until = rec.blocked_after(c.unit, c.field);
                let v = votes.entry(c.targets.clone()).or_default();
                for slot in rec.reads(c.unit, until, c.field) {
                    *v.entry(slot.to_string()).or_default() += 1;
                }
            }
            records.push(rec);
        }
        // Per target list: its most read copyable data slot that all its
        // functions assign (returning a slot the callee does not compute
        // costs it a load that the caller's read would have cost).
        let mut chosen: BTreeMap<Targets, Forwarded> = BTreeMap::new();
        for (targets, v) in votes {
            let Some((first_ty, _)) = targets.first() else {
                continue;
            };
            let h = self.hier(*first_ty);
            let best = v
                .iter()
                .filter(|(slot, _)| {
                    targets
                        .iter()
                        .all(|(_, f)| assigns[f.index()].contains(*slot))
                })
                .filter_map(|(slot, n)| {
                    let s = h.slots.iter().find(|s| s.name == slot)?;
                    let f = s.fields.first()?;
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Data(d) if crate::gen::is_copy(d) => {
                            Some((*n, slot, s.name.clone(), self.data_type(d)))
                        }
                        _ => None,
                    }
                })
                .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(a.1)));
            if let Some((_, _, slot, ty)) = best {
                chosen.insert(targets, Forwarded { slot, ty });
            }
        }
        // A function returns a slot when every list it is in returns that
        // slot, and a list when all its functions do: drop lists until
        // both hold.
        let lists: Vec<&Vec<_>> = self
            .fused_disp
            .keys()
            .chain(self.fused_disp_known.keys().map(|(targets, _)| targets))
            .collect();
        let mut by_fn: BTreeMap<usize, Forwarded>;
        loop {
            let mut fns: BTreeMap<usize, Option<Forwarded>> = BTreeMap::new();
            for targets in &lists {
                let fw = chosen.get(*targets);
                for (_, f) in targets.iter() {
                    let e = fns.entry(f.index()).or_insert_with(|| fw.cloned());
                    if !matches!((&*e, fw), (Some(a), Some(b)) if a.slot == b.slot) {
                        *e = None;
                    }
                }
            }
            by_fn = fns
                .into_iter()
                .filter_map(|(f, fw)| Some((f, fw?)))
                .collect();
            let before = chosen.len();
            chosen.retain(|targets, fw| {
                targets
                    .iter()
                    .all(|(_, f)| by_fn.get(&f.index()).is_some_and(|g| g.slot == fw.slot))
            });
            if chosen.len() == before {
                break;
            }
        }
        // The reads each bound call replaces. A child whose local the
        // function uses otherwise (an alias may write its slots under
        // another name), or assigns, keeps its reads.
        let mut windows = BTreeMap::new();
        for (fi, rec) in records.into_iter().enumerate() {
            let mut list = Vec::new();
            for c in rec.calls.iter().filter(|c| c.bound) {
                let Some(fw) = chosen.get(&c.targets) else {
                    continue;
                };
                let used_otherwise = rec.events.iter().any(|(_, e)| *e == Event::Use(c.field));
                if !rec.kept.contains(&c.field) || used_otherwise {
                    continue;
                }
                let until = rec.blocked_after(c.unit, c.field);
                let slot = fw.slot.to_string();
                if rec.reads(c.unit, until, c.field).any(|s| s == slot) {
                    list.push(Window {
                        unit: c.unit,
                        field: c.field,
                        slot,
                        until,
                        ret: None,
                    });
                }
            }
            if !list.is_empty() {
                windows.insert(
                    fi,
                    Windows {
                        hoist: rec.hoist,
                        windows: list,
                    },
                );
            }
        }
        *self.forwarding.borrow_mut() = Forwarding {
            by_targets: chosen,
            by_fn,
            windows,
        };
    }
}
