//! Access analysis for treefuse: what each statement and each traversing
//! call may read and write, as automata over field labels, and the
//! conflict test the fuser uses to decide whether two of them may be
//! reordered (Grafter, PLDI'19, §3.2).
//!
//! # Model
//!
//! * **Labels** ([`Labels`]): one per tree field (keyed by `FieldId`,
//!   named `Owner.field`), one per record member (`Record.member`), one
//!   pseudo-root per global (`global:NAME`). A list field's label stands for
//!   any of its elements.
//! * **Access sets** ([`AccessSet`]): tree reads and writes as automata of
//!   paths relative to the node the code runs on, global reads and writes as
//!   automata of paths starting at a global's label, frame variables
//!   (locals, parameters, aliases, loop variables) as plain sets, and the
//!   flags `may_fail`, `returns`, `has_calls`.
//! * **Statement rules**: reading a path reads every prefix of it (child
//!   slots are read to navigate, the node's type tag is the path itself);
//!   a record or array value covers everything below it (`.*`); `is` tests
//!   and casts read the node path; aliases are expanded to the path they
//!   were bound to; a loop variable of `for x in self.list` is the list
//!   label; `new`, moves and replacement write the whole subtree of the
//!   slot and of the move source; `a[i] = e` writes all of `a`; pure and
//!   host function calls read their arguments only.
//! * **Call summaries** (Algorithm 1, [`Analysis::summary`]): for every
//!   (concrete type, traversal) pair, everything the call and all the
//!   traversals it reaches may access, relative to the receiver. Built once
//!   for the whole program as one call-graph automaton (see `summary.rs`):
//!   a state per concrete function, statement automata attached by ε,
//!   calls as edges labelled with the receiver's path. Virtual calls on a
//!   child are a union over the concrete subtypes of the child's static
//!   type ([`Analysis::static_summary`]); `self.f()` dispatches on the
//!   caller's own concrete type; recursion becomes loops. A call on a
//!   node in a single child slot uses the *slot variant* of a callee with
//!   a thicket of its receiver (`self = [..]`): the thicket raises a
//!   runtime error there before writing anything, so its writes are left
//!   out (the rest of the summary is the same).
//! * **Relocated nodes**: an alias or loop variable denotes a node bound
//!   earlier; a move (`self.c = self.c.d`, or `new` with moved children) in
//!   the same activation, including in the traversals it calls, can move
//!   that node to another path. When a move may relocate a prefix `p` of a
//!   bound node's path, accesses through it are taken as `p.*.…`.
//! * **Loops** ([`LoopAccess`], in [`StmtAccess::per_element`]): one
//!   iteration of a `for x in self.list` body split into what it does
//!   through `x` (relative to the element) and everything else, so that the
//!   fuser can tell whether two loops over the same list may become one.
//! * **Conflicts** ([`conflict`], [`Analysis::conflict`]): write/read,
//!   read/write and write/write intersections, with a shortest witness path
//!   ([`Labels::format`], or [`Labels::format_short`] for bare field names).
//! * **Reports**: [`format_access`] renders a set as a few example paths;
//!   [`Analysis::describe`] a whole [`AccessSet`]. The `analyze` example
//!   prints every summary and the conflicts between the calls of each
//!   `fuse` item.
//!
//! # Where the analysis is conservative
//!
//! Every approximation below adds paths (more conflicts), never removes
//! any; the soundness tests (`tests/soundness.rs`) check this against a
//! tracing walker that runs traversals unfused on random trees: those of
//! the examples, of hand-written schemas (`tests/programs`) and of random
//! traversal bodies.
//!
//! * Path- and flow-insensitive: both branches of an `if` count, a loop body
//!   counts once for all iterations, and a statement's set is everything it
//!   may touch in any order.
//! * All elements of a list are one label: `items.v` of element 1 conflicts
//!   with `items.v` of element 2.
//! * Arrays are read and written whole (`a[i] = e` writes all of `a`); a
//!   record read or written whole covers all its members.
//! * A call on a child uses the union over all concrete subtypes of the
//!   child's *static* type, even under `if self.c is T`; only `self.f()`
//!   dispatches on the exact concrete type.
//! * Reads are prefix-closed: navigating reads every child slot on the way
//!   and the type tag (`ε` relative to the node reached). Replacing or
//!   moving a slot writes its whole subtree.
//! * Bound nodes (aliases, loop variables) are taken at the path they were
//!   bound to; when any move in the same activation (or in a traversal it
//!   calls) may relocate a prefix `p` of that path, at any point of the
//!   body, accesses through them become `p.*…`. A move whose slot is itself
//!   below a bound node counts as relocating everything below the first
//!   child of `self` on that node's path. A node detached by a replacement is
//!   still reported at its old path.
//! * `may_fail` is syntactic: any integer division or remainder, any
//!   indexing, any cast, any host function, any pure function whose body
//!   contains one of these.
//!
//! # Example
//!
//! ```
//! use treefuse_analysis::{Analysis, ConflictKind};
//!
//! let src = std::fs::read_to_string(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../examples/figure2/figure2.tf"
//! ))
//! .unwrap();
//! let program = treefuse_sema::compile(&src).unwrap();
//! let a = Analysis::new(&program);
//! let element = program.type_named("Element").unwrap();
//! let width = program.method_named(element, "compute_width").unwrap();
//! let height = program.method_named(element, "compute_height").unwrap();
//! // `root.compute_width(); root.compute_height();` on the same node:
//! let w = a.static_summary(element, width).unwrap();
//! let h = a.static_summary(element, height).unwrap();
//! let c = a.conflict(w, h, false).unwrap();
//! assert_eq!(c.kind, ConflictKind::WriteRead);
//! assert_eq!(c.witness, "Element.width");
//! println!("compute_width writes {}", a.format_access(&w.writes));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod access;
mod explain;
mod labels;
mod stmt;
mod summary;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use treefuse_automata::{Label, Nfa};
use treefuse_sema::{BodyId, Fuse, MethodId, Program, Stmt, TypeId};

pub use access::{
    conflict, conflict_with, frame_conflict, global_access_pairs, AccessSet, Conflict,
    ConflictKind, FrameVar, Location, LoopAccess, StmtAccess,
};
pub use explain::{format_access, format_access_short, MAX_WORDS};
pub use labels::Labels;

/// Whether each pure function may raise a runtime error (indexed by
/// `PureFnId`): it divides, takes a remainder, shifts, indexes, calls a
/// failing built-in or a pure function that may fail, or is supplied by the
/// host. Code generators return plain values from the others.
pub fn pure_fns_may_fail(program: &Program) -> Vec<bool> {
    stmt::pure_fails(program)
}

use stmt::{BodyCtx, CallSite, Own};

/// Everything computed for one concrete function.
#[derive(Clone, Debug)]
struct Function {
    ty: TypeId,
    method: MethodId,
    body: BodyId,
    summary: AccessSet,
    relocations: Nfa,
    stmts: Vec<StmtAccess>,
    /// Whether the call may replace its receiver (`self = ...`, here or in
    /// a traversal it calls on `self`).
    replaces: bool,
}

/// The access analysis of one program: labels, call summaries of every
/// concrete function and of every traversal on every static type, and
/// access sets of every statement of every concrete function. Computed
/// once by [`Analysis::new`]; every query afterwards is a lookup.
#[derive(Debug)]
pub struct Analysis<'p> {
    program: &'p Program,
    labels: Labels,
    index: HashMap<(TypeId, MethodId), usize>,
    functions: Vec<Function>,
    statics: HashMap<(TypeId, MethodId), AccessSet>,
    static_replaces: HashMap<(TypeId, MethodId), bool>,
}

fn body_stmts(program: &Program, b: BodyId) -> &[Stmt] {
    program.bodies[b.index()].body.as_deref().unwrap_or(&[])
}

fn all_calls(own: &[Own]) -> Vec<&CallSite> {
    own.iter().flat_map(|o| o.calls.iter()).collect()
}

impl<'p> Analysis<'p> {
    /// Analyses `program`: statement access sets and call summaries of
    /// every (concrete type, traversal) pair that has a body.
    pub fn new(program: &'p Program) -> Analysis<'p> {
        let labels = Labels::new(program);
        let pure_fails = stmt::pure_fails(program);

        // The concrete functions.
        let keys: Vec<(TypeId, MethodId, BodyId)> = program.concrete_functions().collect();
        let index: HashMap<(TypeId, MethodId), usize> = keys
            .iter()
            .enumerate()
            .map(|(i, &(ty, m, _))| ((ty, m), i))
            .collect();
        let targets = |caller: TypeId, site: &CallSite| -> Vec<usize> {
            if site.self_call {
                return index
                    .get(&(caller, site.method))
                    .copied()
                    .into_iter()
                    .collect();
            }
            program.types[site.ty.index()]
                .concrete_subtypes
                .iter()
                .filter_map(|&c| index.get(&(c, site.method)).copied())
                .collect()
        };
        let own_of = |relocs: Option<&[Nfa]>| -> Vec<Vec<Own>> {
            keys.iter()
                .enumerate()
                .map(|(i, &(_, _, b))| {
                    let stmts = body_stmts(program, b);
                    let ctx = BodyCtx::new(
                        program,
                        &labels,
                        &program.bodies[b.index()].frame,
                        stmts,
                        relocs.map(|r| &r[i]),
                        &pure_fails,
                    );
                    ctx.block(stmts)
                })
                .collect()
        };
        // Summaries of every function (and of the `extra` variants of some,
        // each (function, own statements), calling the usual callees): the
        // functions' first, then the variants'.
        let graph_summaries = |own: &[Vec<Own>],
                               extra: &[(usize, Vec<Own>)],
                               pick: &dyn Fn(&Own) -> &Nfa|
         -> Vec<Nfa> {
            let all: Vec<(usize, &Vec<Own>)> = own
                .iter()
                .enumerate()
                .chain(extra.iter().map(|(i, o)| (*i, o)))
                .collect();
            let unions: Vec<Nfa> = all
                .iter()
                .map(|(_, stmts)| Nfa::union_all(stmts.iter().map(pick)).reduced())
                .collect();
            let nodes: Vec<summary::Node> = all
                .iter()
                .enumerate()
                .map(|(n, (i, stmts))| summary::Node {
                    own: &unions[n],
                    calls: all_calls(stmts)
                        .into_iter()
                        .map(|c| (c, targets(keys[*i].0, c)))
                        .collect(),
                })
                .collect();
            let (g, states) = summary::call_graph(&nodes);
            summary::summaries(&g, &states)
        };

        // Phase 1: which slots may be relocated by moves during each
        // function's activation (with unrelocated alias roots).
        let own0 = own_of(None);
        let relocations = graph_summaries(&own0, &[], &|o: &Own| &o.relocs);
        drop(own0);

        // Phase 2: own statement accesses with relocation-aware roots.
        let own = own_of(Some(&relocations));
        let reads = graph_summaries(&own, &[], &|o: &Own| &o.set.reads);
        // A function with a thicket of its receiver (`self = [..]`, §7.2)
        // called on a node in a single child slot: the thicket raises a
        // runtime error there before writing anything (`in_list()` is
        // false, so `if in_list() { self = self.list; }` does nothing), so
        // its writes at such a site are its other statements' and its
        // callees' (the *slot* variant; calls on `self` and everything
        // else keep the full summaries). minic's `Func` reads
        // `self.body.returns` between `self.body.unreachable()` and
        // `self.body.flatten()`, which splices a `Block` only in a list.
        let in_slot: Vec<(usize, Vec<Own>)> = (0..keys.len())
            .filter(|&i| stmt::splices_receiver(body_stmts(program, keys[i].2)))
            .map(|i| {
                let b = keys[i].2;
                let stmts = body_stmts(program, b);
                let mut ctx = BodyCtx::new(
                    program,
                    &labels,
                    &program.bodies[b.index()].frame,
                    stmts,
                    Some(&relocations[i]),
                    &pure_fails,
                );
                ctx.in_slot = true;
                (i, ctx.block(stmts))
            })
            .collect();
        let mut writes = graph_summaries(&own, &in_slot, &|o: &Own| &o.set.writes);
        let slot_writes: HashMap<usize, Nfa> = in_slot
            .iter()
            .map(|(i, _)| *i)
            .zip(writes.split_off(keys.len()))
            .collect();
        drop(in_slot);

        // Which functions may replace their receiver: a `self = ...` of
        // their own, or a call on `self` of one that may.
        let mut replaces: Vec<bool> = keys
            .iter()
            .map(|&(_, _, b)| stmt::replaces_receiver(body_stmts(program, b)))
            .collect();
        loop {
            let mut changed = false;
            for i in 0..keys.len() {
                if !replaces[i]
                    && all_calls(&own[i])
                        .iter()
                        .any(|c| c.self_call && targets(keys[i].0, c).iter().any(|&t| replaces[t]))
                {
                    replaces[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }

        // Globals and failures: union over the reachable functions.
        let succ: Vec<Vec<usize>> = own
            .iter()
            .enumerate()
            .map(|(i, stmts)| {
                all_calls(stmts)
                    .into_iter()
                    .flat_map(|c| targets(keys[i].0, c))
                    .collect()
            })
            .collect();
        let mut summaries = Vec::with_capacity(keys.len());
        // Reachability by a search from each function, with one stamp array
        // for all searches and the reached functions listed as found (in
        // increasing order, as the unions below expect): linear in what
        // each function reaches, not in the program's size per function.
        let mut stamp = vec![usize::MAX; keys.len()];
        for i in 0..keys.len() {
            let mut reached = vec![i];
            let mut stack = vec![i];
            stamp[i] = i;
            while let Some(j) = stack.pop() {
                for &k in &succ[j] {
                    if stamp[k] != i {
                        stamp[k] = i;
                        reached.push(k);
                        stack.push(k);
                    }
                }
            }
            reached.sort_unstable();
            let reach = || reached.iter().copied();
            let gr: Vec<&Nfa> = reach()
                .flat_map(|j| own[j].iter().map(|o| &o.set.global_reads))
                .collect();
            let gw: Vec<&Nfa> = reach()
                .flat_map(|j| own[j].iter().map(|o| &o.set.global_writes))
                .collect();
            summaries.push(AccessSet {
                reads: reads[i].clone(),
                writes: writes[i].clone(),
                global_reads: Nfa::union_all(gr).reduced(),
                global_writes: Nfa::union_all(gw).reduced(),
                frame_reads: Default::default(),
                frame_writes: Default::default(),
                may_fail: reach().any(|j| own[j].iter().any(|o| o.set.may_fail)),
                returns: false,
                has_calls: !succ[i].is_empty(),
            });
        }

        // Slot variants of the functions with a thicket of their receiver.
        let slot_summaries: HashMap<usize, AccessSet> = slot_writes
            .into_iter()
            .map(|(i, w)| {
                (
                    i,
                    AccessSet {
                        writes: w,
                        ..summaries[i].clone()
                    },
                )
            })
            .collect();

        // Static summaries: union over the concrete subtypes (and the slot
        // variants' union where some subtype has one).
        let mut statics = HashMap::new();
        let mut statics_in_slot: HashMap<(TypeId, MethodId), AccessSet> = HashMap::new();
        let mut static_replaces = HashMap::new();
        for (ti, t) in program.types.iter().enumerate() {
            let ty = TypeId(ti as u32);
            for mi in 0..program.methods.len() {
                let m = MethodId(mi as u32);
                let parts: Vec<&AccessSet> = t
                    .concrete_subtypes
                    .iter()
                    .filter_map(|&c| index.get(&(c, m)).map(|&i| &summaries[i]))
                    .collect();
                if parts.is_empty() {
                    continue;
                }
                static_replaces.insert(
                    (ty, m),
                    t.concrete_subtypes
                        .iter()
                        .any(|&c| index.get(&(c, m)).is_some_and(|&i| replaces[i])),
                );
                let u = if parts.len() == 1 {
                    parts[0].clone()
                } else {
                    access::minimal_union(&parts)
                };
                statics.insert((ty, m), u);
                let slot_parts: Vec<&AccessSet> = t
                    .concrete_subtypes
                    .iter()
                    .filter_map(|&c| {
                        let i = *index.get(&(c, m))?;
                        Some(slot_summaries.get(&i).unwrap_or(&summaries[i]))
                    })
                    .collect();
                if t.concrete_subtypes.iter().any(|&c| {
                    index
                        .get(&(c, m))
                        .is_some_and(|i| slot_summaries.contains_key(i))
                }) {
                    statics_in_slot.insert((ty, m), access::minimal_union(&slot_parts));
                }
            }
        }

        // Full statement sets: own accesses plus the callees' summaries
        // under the receiver's path (computed once per receiver and callee).
        type CalleeKey = (stmt::ReceiverKey, bool, Result<usize, (TypeId, MethodId)>);
        let cache: RefCell<HashMap<CalleeKey, Option<Rc<AccessSet>>>> = Default::default();
        let callee = |caller: TypeId, site: &CallSite| -> Option<Rc<AccessSet>> {
            let target = if site.self_call {
                Ok(*index.get(&(caller, site.method))?)
            } else {
                Err((site.ty, site.method))
            };
            let key = (site.key.clone(), site.in_slot, target);
            if let Some(hit) = cache.borrow().get(&key) {
                return hit.clone();
            }
            let s = match target {
                Ok(i) => Some(&summaries[i]),
                Err(k) if site.in_slot => statics_in_slot.get(&k).or_else(|| statics.get(&k)),
                Err(k) => statics.get(&k),
            };
            let under = s.map(|s| {
                Rc::new(if site.key.1 {
                    s.under_nfa(&site.receiver)
                } else {
                    // Summaries are reduced: prepend the word directly.
                    let mut w = site.key.0.clone();
                    w.extend_from_slice(&site.key.2);
                    AccessSet {
                        reads: s.reads.prepend(&w, true),
                        writes: s.writes.prepend(&w, false),
                        global_reads: s.global_reads.clone(),
                        global_writes: s.global_writes.clone(),
                        frame_reads: Default::default(),
                        frame_writes: Default::default(),
                        may_fail: s.may_fail,
                        returns: false,
                        has_calls: true,
                    }
                })
            });
            cache.borrow_mut().insert(key, under.clone());
            under
        };
        // A call on `self` whose traversal may replace the receiver ends the
        // caller too: it counts as a `return`.
        let self_call_replaces = |caller: TypeId, site: &CallSite| -> bool {
            site.self_call
                && index
                    .get(&(caller, site.method))
                    .is_some_and(|&i| replaces[i])
        };
        // Own accesses plus those of the callees at `calls`.
        fn with_callees(
            o: &Own,
            calls: &[CallSite],
            caller: TypeId,
            callee: &dyn Fn(TypeId, &CallSite) -> Option<Rc<AccessSet>>,
        ) -> AccessSet {
            let parts: Vec<Rc<AccessSet>> =
                calls.iter().filter_map(|c| callee(caller, c)).collect();
            if parts.is_empty() {
                o.set.clone()
            } else {
                let all: Vec<&AccessSet> = std::iter::once(&o.set)
                    .chain(parts.iter().map(|p| &**p))
                    .collect();
                let mut u = access::union_sets(&all);
                u.frame_reads = o.set.frame_reads.clone();
                u.frame_writes = o.set.frame_writes.clone();
                u.returns = o.set.returns;
                u
            }
        }
        fn full(
            o: &Own,
            caller: TypeId,
            callee: &dyn Fn(TypeId, &CallSite) -> Option<Rc<AccessSet>>,
            ends: &dyn Fn(TypeId, &CallSite) -> bool,
            program: &Program,
        ) -> StmtAccess {
            let blocks = o
                .blocks
                .iter()
                .map(|b| {
                    b.iter()
                        .map(|x| full(x, caller, callee, ends, program))
                        .collect()
                })
                .collect();
            let set = with_callees(o, &o.calls, caller, callee);
            // The parts of a split call: the same statement calling the head,
            // then the tail, instead.
            let split = match o.calls.as_slice() {
                [site] if o.blocks.is_empty() && site.on_var => {
                    program.split_of(site.method).map(|s| {
                        let part = |m: MethodId| {
                            let site = CallSite {
                                method: m,
                                ..site.clone()
                            };
                            with_callees(o, std::slice::from_ref(&site), caller, callee)
                        };
                        Box::new([part(s.head), part(s.tail)])
                    })
                }
                _ => None,
            };
            let mut set = set;
            set.returns |= o.calls.iter().any(|c| ends(caller, c));
            let per_element = o.split.as_ref().map(|l| {
                // Element side: own tree paths and the tree paths of calls
                // on the loop variable (relative to the element).
                let mut el: Vec<AccessSet> = l.element.iter().map(|x| x.set.clone()).collect();
                let mut ot: Vec<AccessSet> = l.other.iter().map(|x| x.set.clone()).collect();
                for x in &l.element {
                    for site in x.calls.iter().filter(|c| !c.skip) {
                        if let Some(c) = callee(caller, site) {
                            el.push(AccessSet {
                                reads: c.reads.clone(),
                                writes: c.writes.clone(),
                                ..AccessSet::empty()
                            });
                        }
                    }
                }
                // Other side: everything of calls not on the loop variable,
                // and the globals and failures of calls on it.
                for x in &l.other {
                    for site in &x.calls {
                        let Some(c) = callee(caller, site) else {
                            continue;
                        };
                        ot.push(if site.skip {
                            AccessSet {
                                global_reads: c.global_reads.clone(),
                                global_writes: c.global_writes.clone(),
                                may_fail: c.may_fail,
                                ..AccessSet::empty()
                            }
                        } else {
                            (*c).clone()
                        });
                    }
                }
                let refs = |v: &[AccessSet]| access::union_sets(&v.iter().collect::<Vec<_>>());
                let mut iteration = refs(&ot);
                // Each iteration binds the loop variable.
                iteration.frame_writes.insert(FrameVar::Node(l.var));
                let header = AccessSet {
                    reads: l.header_reads.clone(),
                    ..AccessSet::empty()
                };
                ot.push(header.clone());
                let mut element = refs(&el);
                (element.may_fail, element.returns) = (false, false);
                let mut other = refs(&ot);
                other.frame_writes.insert(FrameVar::Node(l.var));
                Box::new(LoopAccess {
                    element,
                    other,
                    iteration,
                    header,
                })
            });
            StmtAccess {
                set,
                blocks,
                per_element,
                split,
            }
        }
        let functions = keys
            .iter()
            .enumerate()
            .map(|(i, &(ty, method, body))| Function {
                ty,
                method,
                body,
                summary: summaries[i].clone(),
                relocations: relocations[i].clone(),
                stmts: own[i]
                    .iter()
                    .map(|o| full(o, ty, &callee, &self_call_replaces, program))
                    .collect(),
                replaces: replaces[i],
            })
            .collect();
        Analysis {
            program,
            labels,
            index,
            functions,
            statics,
            static_replaces,
        }
    }

    /// The analysed program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The label alphabet.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// Every concrete function `(concrete type, traversal, body)` analysed.
    pub fn functions(&self) -> impl Iterator<Item = (TypeId, MethodId, BodyId)> + '_ {
        self.functions.iter().map(|f| (f.ty, f.method, f.body))
    }

    fn function(&self, concrete: TypeId, method: MethodId) -> Option<&Function> {
        self.index
            .get(&(concrete, method))
            .map(|&i| &self.functions[i])
    }

    /// Everything a call of `method` on a node of exactly type `concrete`
    /// may access, relative to that node, every transitively reachable
    /// traversal included. Frame sets are empty (the callee's frame is its
    /// own; argument reads belong to the call statement); `returns` is
    /// false. `None` if the traversal has no body on that type.
    pub fn summary(&self, concrete: TypeId, method: MethodId) -> Option<&AccessSet> {
        self.function(concrete, method).map(|f| &f.summary)
    }

    /// Everything a call of `method` on a node of static type `ty` may
    /// access: the union of [`summary`](Analysis::summary) over the concrete
    /// subtypes of `ty`. `None` if no concrete subtype has the traversal.
    pub fn static_summary(&self, ty: TypeId, method: MethodId) -> Option<&AccessSet> {
        self.statics.get(&(ty, method))
    }

    /// The access sets of the top-level statements of the body that runs
    /// for `method` on a node of exactly type `concrete`, relative to that
    /// node. A traversing call's set includes its callees' summaries under
    /// the receiver's path (`self.c.f()`: `c` followed by the summary of
    /// `f` on `c`'s static type; `self.f()`: the summary for `concrete`).
    pub fn body_accesses(&self, concrete: TypeId, method: MethodId) -> Option<&[StmtAccess]> {
        self.function(concrete, method).map(|f| f.stmts.as_slice())
    }

    /// Whether a call of `method` on a node of static type `ty` may replace
    /// that node (`self = ...` in the traversal or in one it calls on
    /// `self`, LANGUAGE.md §7.1): the caller's slot or list is written, and
    /// later calls on the same place must run on the new node(s).
    pub fn may_replace(&self, ty: TypeId, method: MethodId) -> bool {
        self.static_replaces
            .get(&(ty, method))
            .copied()
            .unwrap_or(false)
    }

    /// [`Analysis::may_replace`] for a node of exactly type `concrete`.
    pub fn may_replace_concrete(&self, concrete: TypeId, method: MethodId) -> bool {
        self.function(concrete, method).is_some_and(|f| f.replaces)
    }

    /// Child slots (as paths relative to the receiver) whose subtrees a
    /// move may relocate while `method` runs on a node of type `concrete`,
    /// including in the traversals it calls.
    pub fn relocations(&self, concrete: TypeId, method: MethodId) -> Option<&Nfa> {
        self.function(concrete, method).map(|f| &f.relocations)
    }

    /// A call of `method` on the node at `prefix` below the common node
    /// (empty for `self.f()`), whose static type is `ty`: the static
    /// summary with every tree path under `prefix`, the prefix itself read.
    pub fn call_access(&self, prefix: &[Label], ty: TypeId, method: MethodId) -> Option<AccessSet> {
        self.static_summary(ty, method).map(|s| s.under(prefix))
    }

    /// The accesses of each call of a `fuse` item, relative to the root:
    /// the static summary of the traversal on the root type, plus the
    /// reads of the arguments (globals, the item's parameters as frame
    /// variables of the item).
    pub fn fuse_accesses(&self, fuse: &Fuse) -> Vec<AccessSet> {
        let pure_fails = stmt::pure_fails(self.program);
        let ctx = BodyCtx::new(
            self.program,
            &self.labels,
            &fuse.frame,
            &[],
            None,
            &pure_fails,
        );
        fuse.calls
            .iter()
            .map(|c| {
                let mut set = ctx.args_access(&c.args);
                if let Some(s) = self.static_summary(fuse.root_type, c.method) {
                    let keep = (set.frame_reads.clone(), set.frame_writes.clone());
                    set = set.union(s).reduced();
                    (set.frame_reads, set.frame_writes) = keep;
                }
                set.has_calls = true;
                set
            })
            .collect()
    }

    /// [`conflict`] with this program's labels.
    pub fn conflict(
        &self,
        first: &AccessSet,
        second: &AccessSet,
        same_frame: bool,
    ) -> Option<Conflict> {
        access::conflict(first, second, &self.labels, same_frame)
    }

    /// [`format_access`] with this program's labels.
    pub fn format_access(&self, nfa: &Nfa) -> String {
        explain::format_access(nfa, &self.labels)
    }

    /// A one-line description of an access set:
    /// `reads {…}; writes {…}; globals r {…} w {…}` plus the flags.
    pub fn describe(&self, set: &AccessSet) -> String {
        let mut s = format!(
            "reads {}; writes {}",
            self.format_access(&set.reads),
            self.format_access(&set.writes)
        );
        if !set.global_reads.is_empty() || !set.global_writes.is_empty() {
            s.push_str(&format!(
                "; globals read {} written {}",
                self.format_access(&set.global_reads),
                self.format_access(&set.global_writes)
            ));
        }
        for (flag, name) in [
            (set.may_fail, "may fail"),
            (set.returns, "returns"),
            (set.has_calls, "calls"),
        ] {
            if flag {
                s.push_str("; ");
                s.push_str(name);
            }
        }
        s
    }
}
