//! The generator: program model and fused IR in, Rust tokens out.

use crate::names::{ident, snake, Names};
use crate::options::CodegenOptions;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use treefuse_fusion::{FusedFnId, FusedProgram, ParticipantMask, Step, WideMask};
use treefuse_sema::*;
use treefuse_syntax::Span;

/// A fused call's callees by concrete type.
pub(crate) type Targets<'a> = &'a [(TypeId, FusedFnId)];

/// Expression precedence levels (higher binds tighter).
pub(crate) const ATOM: u8 = 14;
pub(crate) const UNARY: u8 = 13;
pub(crate) const CAST: u8 = 12;
pub(crate) const MUL: u8 = 11;
pub(crate) const ADD: u8 = 10;
pub(crate) const BIT_AND: u8 = 8;
pub(crate) const BIT_XOR: u8 = 7;
pub(crate) const BIT_OR: u8 = 6;
pub(crate) const CMP: u8 = 5;
pub(crate) const AND: u8 = 4;
pub(crate) const OR: u8 = 3;
pub(crate) const LOW: u8 = 1;

/// A generated expression and how tightly it binds.
#[derive(Clone)]
pub(crate) struct E {
    pub ts: TokenStream,
    pub prec: u8,
}

impl E {
    pub fn atom(ts: TokenStream) -> E {
        E { ts, prec: ATOM }
    }
    fn new(ts: TokenStream, prec: u8) -> E {
        E { ts, prec }
    }
    /// The tokens, parenthesized unless the expression binds at least as
    /// tightly as `min`.
    pub fn at(&self, min: u8) -> TokenStream {
        let ts = &self.ts;
        if self.prec >= min {
            ts.clone()
        } else {
            quote!((#ts))
        }
    }
}

/// One tree hierarchy: a root type and all its subtypes, stored in one
/// arena of one node struct.
pub(crate) struct Hier {
    pub root: TypeId,
    pub node: Ident,
    pub id: Ident,
    pub kind: Ident,
    pub arena: Ident,
    pub push: Ident,
    /// `TreeAccess`'s method handing out a node to write a data field
    /// (`data_mut_expr`), in a module with parallel entry points: a split
    /// worker's view does not renumber a node changed only so (see
    /// `ArenaView::get_mut_data`).
    pub data_mut: Ident,
    pub concrete: Vec<TypeId>,
    pub fields: Vec<FieldId>,
    /// The members of the node struct, in memory order (see
    /// [`assign_slots`]).
    pub slots: Vec<Slot>,
}

/// The out-of-line fields of one concrete type ([`cold_fields`]): a
/// struct of them and a `ColdTable` of it in `Tree`.
pub(crate) struct ColdStruct {
    /// The struct (`FunctionCold`).
    pub name: Ident,
    /// The `Tree` member holding one per node of the type (`function_cold`).
    pub table: Ident,
    /// `Tree::push_T_with_cold(node, cold)`: adds a node and its cold fields.
    pub push_with: Ident,
    /// `TreeAccess`'s methods reading and setting a node's cold fields
    /// (`get_function_cold`, `insert_function_cold`), in a module with
    /// parallel entry points: named from the table, never starting with
    /// it (a table `from_x_cold` would make a `from_*` method).
    pub get: Ident,
    pub insert: Ident,
    /// The type's cold fields, in declaration order.
    pub fields: Vec<FieldId>,
}

/// The *cold* fields of a program: data fields that no traversal body,
/// pure function or `fuse` item reads or writes, of a type wider than a
/// scalar (strings, arrays, maps, records of more than one member). They
/// are only ever read from JSON, written back, set by `new`, copied with
/// their node and seen through the typed API, so the generated code
/// stores them out of line (`treefuse_runtime::generated::ColdTable`)
/// instead of widening every node that the walks pull through the
/// caches. Scalars stay in the node even when unread: an entry of the
/// table (the node id and the value, padded) would cost more than the
/// eight bytes or less it saves, and a flag usually sits in padding.
pub(crate) fn cold_fields(p: &Program) -> Vec<bool> {
    let mut touched = vec![false; p.fields.len()];
    let mut mark = |e: &Expr| {
        if let ExprKind::Field(_, f) = &e.kind {
            touched[f.index()] = true;
        }
    };
    let mut stmt_lists: Vec<&[Stmt]> = Vec::new();
    for b in &p.bodies {
        if let Some(stmts) = &b.body {
            stmt_lists.push(stmts);
        }
    }
    for f in &p.pure_fns {
        match &f.body {
            PureBody::Expr(e) => visit::walk_expr(e, &mut mark),
            PureBody::Block(stmts) => stmt_lists.push(stmts),
            PureBody::Host => {}
        }
    }
    for fuse in &p.fuses {
        for call in &fuse.calls {
            call.args
                .iter()
                .for_each(|a| visit::walk_expr(a, &mut mark));
        }
        fuse_stmt_exprs(&fuse.body, &mut |e| visit::walk_expr(e, &mut mark));
    }
    for stmts in &stmt_lists {
        visit::walk_stmt_exprs(stmts, &mut mark);
    }
    for stmts in &stmt_lists {
        visit::for_each_stmt(stmts, &mut |s| {
            if let StmtKind::Assign { place, .. } = &s.kind {
                if let PlaceRoot::Field(_, f) = &place.root {
                    touched[f.index()] = true;
                }
            }
        });
    }
    p.fields
        .iter()
        .zip(&touched)
        .map(|(f, &touched)| match &f.kind {
            FieldKind::Data(d) => !touched && wider_than_scalar(p, d),
            FieldKind::Child(_) | FieldKind::List(_) => false,
        })
        .collect()
}

/// Whether values of `d` take more room than a scalar or own heap data:
/// strings, arrays, maps, and records of more than one member or with
/// such a member.
fn wider_than_scalar(p: &Program, d: &DataType) -> bool {
    match d {
        DataType::Int | DataType::Float | DataType::Bool | DataType::Enum(_) => false,
        DataType::Str | DataType::Array(_) | DataType::Map(..) => true,
        DataType::Record(r) => {
            let members = &p.records[r.index()].fields;
            members.len() > 1 || members.iter().any(|m| wider_than_scalar(p, &m.ty))
        }
    }
}

/// One member of a hierarchy's node struct: the fields stored in it.
/// Fields share a slot only if no concrete type has two of them and
/// their Rust types are the same.
pub(crate) struct Slot {
    pub name: Ident,
    pub fields: Vec<FieldId>,
}

/// The alignment of a field's Rust type in the generated code.
fn field_align(p: &Program, f: FieldId) -> usize {
    fn data(p: &Program, d: &DataType) -> usize {
        match d {
            DataType::Bool | DataType::Enum(_) => 1,
            DataType::Record(r) => p.records[r.index()]
                .fields
                .iter()
                .map(|m| data(p, &m.ty))
                .max()
                .unwrap_or(1),
            DataType::Int
            | DataType::Float
            | DataType::Str
            | DataType::Array(_)
            | DataType::Map(..) => 8,
        }
    }
    match &p.fields[f.index()].kind {
        FieldKind::Child(_) => 4,
        FieldKind::List(_) => 8,
        FieldKind::Data(d) => data(p, d),
    }
}

/// Lays out the fields of one hierarchy in shared slots.
///
/// A node stores the fields of its own concrete type only, so two fields
/// that never occur in one concrete type (say `Add.left` and `Call.args`,
/// or `Num.value` and `Var.slot`) can live in the same struct member when
/// they have the same Rust type. Fields are placed base type first, each
/// into the first slot of its Rust type that holds no field of a type
/// with a common concrete subtype (so a base type's fields, which coexist
/// with every field of every subtype, get slots of their own), or into a
/// new slot. A node is then as large as its largest concrete type
/// (roughly), not as the sum of every type's fields, and every field known
/// statically is still one load at a fixed offset, with no dispatch.
///
/// Memory order (`repr(C)`): by ascending alignment after the one-byte
/// kind (one-byte flags and enums, then the 4-byte child ids, then the
/// rest), which leaves the least padding and keeps the kind and the child
/// ids, which nearly every visit reads, in the node's first bytes; within
/// one alignment in placement order (base type first; subtype-only
/// fields, often large, last).
pub(crate) fn assign_slots(p: &Program, fields: &[FieldId], hier_of: &[usize]) -> Vec<Slot> {
    let depth = |mut t: TypeId| {
        let mut d = 0;
        while let Some(b) = p.types[t.index()].base {
            t = b;
            d += 1;
        }
        d
    };
    let key = |f: FieldId| match &p.fields[f.index()].kind {
        FieldKind::Child(t) if p.fields[f.index()].optional => {
            format!("optional {}", hier_of[t.index()])
        }
        FieldKind::Child(t) => format!("child {}", hier_of[t.index()]),
        FieldKind::List(t) => format!("list {}", hier_of[t.index()]),
        FieldKind::Data(d) => format!("data {d:?}"),
    };
    let coexist = |f: FieldId, g: FieldId| {
        let (a, b) = (p.fields[f.index()].owner, p.fields[g.index()].owner);
        let below_b = &p.types[b.index()].concrete_subtypes;
        p.types[a.index()]
            .concrete_subtypes
            .iter()
            .any(|t| below_b.contains(t))
    };
    let mut order: Vec<FieldId> = fields.to_vec();
    // Base type first; within a depth, fields whose name another field of
    // the hierarchy has too go first, so that they find their namesake's
    // slot before a differently named field takes it.
    let has_twin = |f: FieldId| {
        fields.iter().any(|g| {
            *g != f && p.fields[g.index()].name == p.fields[f.index()].name && key(*g) == key(f)
        })
    };
    order.sort_by_key(|f| (depth(p.fields[f.index()].owner), !has_twin(*f), f.0));
    let mut placed: Vec<(String, Vec<FieldId>)> = Vec::new();
    for f in order {
        let k = key(f);
        let name = &p.fields[f.index()].name;
        let fits =
            |(sk, fs): &(String, Vec<FieldId>)| *sk == k && fs.iter().all(|g| !coexist(f, *g));
        // A slot already holding a field of the same name (`next` of two
        // list-node types) first, so that slots keep readable names.
        let same_name = placed
            .iter()
            .position(|s| fits(s) && s.1.iter().any(|g| p.fields[g.index()].name == *name));
        match same_name.or_else(|| placed.iter().position(fits)) {
            Some(i) => placed[i].1.push(f),
            None => placed.push((k, vec![f])),
        }
    }
    // Ascending alignment after the one-byte kind leaves padding only where
    // the alignment grows; the sort is stable, so within one alignment the
    // base type's fields stay first.
    placed.sort_by_key(|(_, fs)| field_align(p, fs[0]));
    // Names: the field's name when a slot holds one name; names that
    // several slots would get are prefixed by the owner type.
    let names: Vec<Vec<String>> = placed
        .iter()
        .map(|(_, fs)| {
            let mut ns: Vec<String> = Vec::new();
            for f in fs {
                let n = snake(&p.fields[f.index()].name);
                if !ns.contains(&n) {
                    ns.push(n);
                }
            }
            ns
        })
        .collect();
    let mut taken = Names::with_reserved(&["kind"]);
    placed
        .iter()
        .zip(&names)
        .map(|((_, fs), ns)| {
            let clash = names.iter().filter(|other| other.contains(&ns[0])).count() > 1;
            let base = match ns.len() {
                1 if clash => {
                    let owner = p.fields[fs[0].index()].owner;
                    format!("{}_{}", snake(&p.types[owner.index()].name), ns[0])
                }
                1 => ns[0].clone(),
                2 | 3 => ns.join("_or_"),
                _ => format!("{}_or_{}_etc", ns[0], ns[1]),
            };
            Slot {
                name: taken.fresh_value(&base),
                fields: fs.clone(),
            }
        })
        .collect()
}

/// How `return` (and a replacement of the receiver, which ends the
/// traversal too) leaves the code being generated.
#[derive(Clone)]
pub(crate) enum Ret {
    /// An unfused traversal body: `return Ok(());`, or `return
    /// Ok(Replaced::..)` when the function may replace its receiver.
    Traversal { replaces: bool },
    /// A pure function: `return Ok(value);`, or `return value;` when it
    /// cannot fail (it then returns the plain value).
    Pure { fallible: bool },
    /// A participant statement of a fused function: record a replacement
    /// in `replaced`, clear the flag (if it is read later) and leave the
    /// labeled block. `depth`: the open loops of the frame when the label
    /// was made (those opened later are closed before leaving).
    Fused {
        label: TokenStream,
        flag: Option<Ident>,
        depth: usize,
        /// After a replacement: switch off the later participants and
        /// remember them, to resume on the new node (`FusedFunction::resume`).
        postpone: Option<TokenStream>,
    },
}

/// A running `for` loop over a list child whose elements may replace
/// themselves: an `OpenList` local (`open`) over the list in field
/// `field` of the node `owner` (a local), iterated by node variable `var`.
#[derive(Clone)]
pub(crate) struct OpenLoop {
    pub var: NodeVarId,
    pub field: FieldId,
    pub open: Ident,
    pub owner: Ident,
}

/// Names of one frame (traversal body, pure function or participant).
#[derive(Clone)]
pub(crate) struct Frame {
    pub context: String,
    pub locals: Vec<Ident>,
    pub nodes: Vec<Ident>,
    pub types: Vec<DataType>,
    pub mutable: HashSet<usize>,
    /// Locals held by reference: parameters the callers lend (`&T`, `&[T]`
    /// for arrays: `Gen::pure_lent`, `Gen::method_lent`) and `for`
    /// variables over the elements of arrays iterated in place (`&T`).
    pub borrowed: RefCell<HashSet<usize>>,
    /// The function whose lent parameters this frame's first locals are:
    /// a copy of one out of its reference is recorded in
    /// `Gen::lent_copied` (see `Gen::settle_lending`).
    pub lender: Option<Lender>,
    /// How many loops (`for`) enclose the code being generated.
    pub loop_depth: std::cell::Cell<u32>,
    /// Locals and node variables bound by top-level statements that were
    /// declared up front (participants that can be inactive).
    pub hoisted: bool,
    /// The open loops around the code being generated, outermost first.
    pub open: RefCell<Vec<OpenLoop>>,
    /// The type whose traversal this is (none for pure functions and
    /// `fuse` items).
    pub owner: Option<TypeId>,
    /// What the code being generated knows about node types: `is` tests
    /// known to hold (see [`Fact`]). Casts they prove cannot fail are
    /// emitted without a check.
    pub facts: RefCell<Vec<Fact>>,
    /// Reads of whole locals (by address) that move the local's value
    /// instead of cloning it: last uses (`crate::moves`).
    pub moves: RefCell<HashSet<*const Expr>>,
}

/// A type test `p is ty` known to hold where code is being generated:
/// established by a condition (an `&&` conjunct of an `if` or of the left
/// side of `&&`) and kept while nothing can change which node the path
/// reaches (`Gen::block` forgets every fact before a statement that may
/// write a child slot or call a traversal; expressions never do). Paths
/// with list indices are never recorded.
#[derive(Clone)]
pub(crate) struct Fact {
    pub root: PathRoot,
    pub steps: Vec<PathStep>,
    pub ty: TypeId,
}

/// What a body reads and writes of its frame.
#[derive(Default)]
pub(crate) struct Usage {
    pub read: HashSet<LocalId>,
    pub assigned: HashSet<LocalId>,
    pub nodes: HashSet<NodeVarId>,
}

/// A child field of a fused function's receiver whose id is read once at
/// the function's start into `local`, and kept equal to the slot by the
/// function's own assignments to it (`self.c = ..`).
pub(crate) struct HoistedChild {
    pub field: FieldId,
    pub local: Ident,
    /// The code reads the local.
    pub read: bool,
    /// The code assigns the slot (and the local with it).
    pub written: bool,
}

pub(crate) struct Gen<'p> {
    /// While a fused function is generated: its receiver's child fields
    /// read once at its start into locals (see `Gen::fused_fn`).
    pub self_children: RefCell<Option<Vec<HoistedChild>>>,
    /// While a run of a fused function's statements that touch no node
    /// but the receiver's data fields is generated (`Gen::self_data_only`,
    /// modules with parallel entry points): the receiver's node is held
    /// in `this_node`, and its fields are read and written there rather
    /// than looked up at every access (`t[this].x`, `t.data_mut_H(this)`),
    /// which through a split worker's view is a range check the compiler
    /// cannot merge across writes.
    pub self_node: Cell<bool>,
    /// The child slots fused calls return (`forward.rs`); empty until
    /// [`Gen::fused_items`] plans them.
    pub forwarding: RefCell<crate::forward_record::Forwarding>,
    /// What the fused function being generated reports to forwarding
    /// (`forward.rs`).
    pub fwd: RefCell<crate::forward_record::Record>,
    pub p: &'p Program,
    pub fused: &'p FusedProgram,
    pub opts: &'p CodegenOptions,
    pub hier_of: Vec<usize>,
    pub hiers: Vec<Hier>,
    pub field: Vec<Ident>,
    /// Per field: its name as a member of the typed API's struct of each
    /// concrete type that has it, and of a cold struct.
    pub member: Vec<Ident>,
    /// Per field: whether it is cold ([`cold_fields`]), stored in its
    /// node's cold struct rather than in the node struct.
    pub cold: Vec<bool>,
    /// Per type: its cold struct (concrete types with cold fields only).
    pub cold_struct: Vec<Option<ColdStruct>>,
    pub type_ctor: Vec<Ident>,
    /// Per type: the struct of the typed API (concrete types only).
    pub type_struct: Vec<Option<Ident>>,
    pub variant: Vec<Ident>,
    pub rec: Vec<Ident>,
    pub rec_fields: Vec<Vec<Ident>>,
    /// Per enum: its Rust name and its variants' names.
    pub enum_name: Vec<Ident>,
    pub enum_variants: Vec<Vec<Ident>>,
    pub global: Vec<Ident>,
    /// Per `fuse` item: the functions of its unfused and fused runs.
    pub entry_fn: Vec<[EntryFns; 2]>,
    /// Per `fuse` item, `run_<fuse>_parallel` and its kin (empty without
    /// `CodegenOptions::parallel`).
    pub par_entry_fn: Vec<EntryFns>,
    pub pure: Vec<Ident>,
    /// Per pure function: may it fail (else it returns a plain value and
    /// its callers use no `?`)?
    pub pure_fallible: Vec<bool>,
    /// Per pure function, per parameter: lent as a reference (`lent_params`,
    /// then `Gen::settle_lending`).
    pub pure_lent: Vec<Vec<bool>>,
    /// Per traversal, per parameter: lent as a reference by every caller,
    /// unfused and fused (`method_lent_params`, then `Gen::settle_lending`).
    pub method_lent: Vec<Vec<bool>>,
    /// Lent parameters whose generated code copied the value out of the
    /// reference (`Body::expr`), collected while `settle_lending` generates
    /// the code once more.
    pub lent_copied: RefCell<std::collections::HashMap<(Lender, usize), Copied>>,
    pub method_fn: Vec<Ident>,
    /// The name of the `const _: bool` parameter of every traversal
    /// function (whether the run counts visits): `C`, unless the program
    /// names a type, record or enum so (a type would shadow it, E0747).
    pub count_param: Ident,
    /// The tree-access type parameter of the traversals (`TA`), when the
    /// module has parallel entry points (`CodegenOptions::parallel`).
    pub tree_param: Option<Ident>,
    /// Per global, its flag in `Cx::written` when some parallel loop
    /// keeps it private to each worker (write-first globals,
    /// `Parallelism::Parallel::private`): every whole assignment of it
    /// sets the flag, so that after the loop the last worker that wrote
    /// it gives its value. Empty without `CodegenOptions::parallel`.
    pub written_flag: Vec<Option<usize>>,
    pub body_fn: Vec<Ident>,
    pub fused_fn: Vec<Ident>,
    /// Per fused function, the function that runs it on a linked chain
    /// (`Gen::chain_driver`); empty without `CodegenOptions::parallel`.
    pub chain_fn: Vec<Ident>,
    pub cast_fn: Vec<Ident>,
    pub fused_disp: BTreeMap<Vec<(TypeId, FusedFnId)>, Ident>,
    /// Dispatchers of a target list for a child whose concrete type the
    /// call's guards proved (`if self.c is T { self.c.f(); }`): they run
    /// that type's fused function without matching on the node's kind
    /// (see [`Gen::proven_type`]).
    pub fused_disp_known: BTreeMap<(Vec<(TypeId, FusedFnId)>, TypeId), Ident>,
    /// Per fused function, per participant: may it start inactive?
    pub off: Vec<Vec<bool>>,
    /// Bits of the participant masks the module passes: 64 (`u64`) unless
    /// a function that takes a mask has more participants, then 128
    /// (`u128`), or past that a multiple of 64 (`WideMask`).
    pub mask_bits: u32,
    pub top: Names,
    /// What a user local may not be called (`Names::locals_reserved`),
    /// filled in once the module's names are all handed out.
    pub locals_reserved: std::rc::Rc<std::collections::HashSet<String>>,
    /// What traversals may do to the place their receiver stands in.
    pub rw: Rewrites,
    /// Per hierarchy: the function making a deep copy of a subtree.
    pub copy_fn: Vec<Ident>,
    /// Per hierarchy: the helper of `copy_fn` that queues a node's
    /// children.
    pub copy_children_fn: Vec<Ident>,
    /// Where the generated code checks the stack (`stack_plan::stack_scheme`).
    pub stack: crate::stack_plan::StackScheme,
}

/// The functions generated for one `fuse` item, unfused or fused.
pub(crate) struct EntryFns {
    /// `run_<fuse>_<kind>(tree, globals, ..)`.
    pub run: Ident,
    /// `run_<fuse>_<kind>_counted(tree, globals, ..)`: returns the visits.
    pub counted: Ident,
    /// `<fuse>_<kind>(t, cx, ..)`: the run on a context.
    pub inner: Ident,
}

/// Which functions may replace their receiver (so they return
/// `Replaced<Id>`) and which need to know where it stands (a `site:
/// Site` parameter: thickets, `in_list()`, or a call on `self` that
/// passes it on), per body, per traversal (any body it dispatches to)
/// and per fused function (any participant).
#[derive(Default)]
pub(crate) struct Rewrites {
    pub body_replaces: Vec<bool>,
    pub body_site: Vec<bool>,
    pub method_replaces: Vec<bool>,
    pub method_site: Vec<bool>,
    pub fused_replaces: Vec<bool>,
    pub fused_site: Vec<bool>,
}

impl Rewrites {
    /// The fixpoint over calls on `self`.
    fn new(p: &Program, fused: &FusedProgram) -> Rewrites {
        #[derive(Default)]
        struct Found {
            replace: bool,
            site: bool,
            self_calls: Vec<MethodId>,
        }
        fn scan(stmts: &[Stmt], f: &mut Found) {
            visit::for_each_stmt(stmts, &mut |s| match &s.kind {
                StmtKind::ReplaceSelf { .. } => f.replace = true,
                StmtKind::SpliceSelf { .. } => {
                    f.replace = true;
                    f.site = true;
                }
                StmtKind::Call {
                    receiver, method, ..
                } if receiver.root == PathRoot::SelfNode && receiver.steps.is_empty() => {
                    f.self_calls.push(*method)
                }
                _ => {}
            });
            visit::walk_stmt_exprs(stmts, &mut |e| {
                if matches!(e.kind, ExprKind::InList) {
                    f.site = true;
                }
            });
        }
        let found: Vec<Found> = p
            .bodies
            .iter()
            .map(|b| {
                let mut f = Found::default();
                if let Some(stmts) = &b.body {
                    scan(stmts, &mut f);
                }
                f
            })
            .collect();
        let mut rw = Rewrites {
            body_replaces: found.iter().map(|f| f.replace).collect(),
            body_site: found.iter().map(|f| f.site).collect(),
            method_replaces: vec![false; p.methods.len()],
            method_site: vec![false; p.methods.len()],
            ..Rewrites::default()
        };
        // The bodies a traversal dispatches to: those of every concrete
        // type of its hierarchy (as the dispatcher matches them).
        let bodies_of = |m: usize| -> Vec<BodyId> {
            (0..p.types.len())
                .filter(|&t| !p.types[t].is_abstract)
                .filter_map(|t| p.dispatch(TypeId(t as u32), MethodId(m as u32)))
                .collect()
        };
        let dispatch: Vec<Vec<BodyId>> = (0..p.methods.len()).map(bodies_of).collect();
        loop {
            let mut changed = false;
            for (m, bodies) in dispatch.iter().enumerate() {
                let r = bodies.iter().any(|b| rw.body_replaces[b.index()]);
                let s = bodies.iter().any(|b| rw.body_site[b.index()]);
                changed |= r != rw.method_replaces[m] || s != rw.method_site[m];
                rw.method_replaces[m] = r;
                rw.method_site[m] = s;
            }
            for (b, f) in found.iter().enumerate() {
                for m in &f.self_calls {
                    if rw.method_replaces[m.index()] && !rw.body_replaces[b] {
                        rw.body_replaces[b] = true;
                        changed = true;
                    }
                    if rw.method_site[m.index()] && !rw.body_site[b] {
                        rw.body_site[b] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for f in &fused.functions {
            let parts = || f.participants.iter().map(|p| p.body.index());
            rw.fused_replaces.push(parts().any(|b| rw.body_replaces[b]));
            rw.fused_site.push(parts().any(|b| rw.body_site[b]));
        }
        // A function that resumes postponed participants on its
        // replacement passes its own site on to them.
        loop {
            let mut changed = false;
            for (fi, f) in fused.functions.iter().enumerate() {
                let needs = f
                    .resume
                    .iter()
                    .any(|r| r.targets.iter().any(|(_, g)| rw.fused_site[g.index()]));
                if needs && !rw.fused_site[fi] {
                    rw.fused_site[fi] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        rw
    }
}

pub(crate) fn is_copy(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::Float | DataType::Bool | DataType::Enum(_)
    )
}

impl<'p> Gen<'p> {
    pub fn new(p: &'p Program, fused: &'p FusedProgram, opts: &'p CodegenOptions) -> Gen<'p> {
        // Functions are called from inside other functions, whose
        // parameters and locals (`t`, `cx`, `n`, ...) would shadow a
        // function of the same name (a traversal `t`: `t(t, cx, root)`):
        // the module's namespace has them taken too. The generated
        // code numbers some of them by participant (`active_3`).
        let numbered = fused.widest().max(128);
        let mut top = Names::for_module(numbered);
        // Concrete types' structs of the typed API take the types' own
        // names (`TextBox`, `Add`) before any generated name is chosen.
        let type_struct = p
            .types
            .iter()
            .map(|t| (!t.is_abstract).then(|| top.fresh(&t.name)))
            .collect();
        // So do records and enums: a derived name (`ExprId`) gives way to
        // a user's type of that name.
        let rec = p.records.iter().map(|r| top.fresh(&r.name)).collect();
        let enum_name = p.enums.iter().map(|e| top.fresh(&e.name)).collect();
        // Hierarchies.
        let root_of = |mut t: TypeId| {
            while let Some(b) = p.types[t.index()].base {
                t = b;
            }
            t
        };
        let mut hier_of = vec![0; p.types.len()];
        let mut hiers: Vec<Hier> = Vec::new();
        // Arenas are fields of `Tree`, beside its `root`, and name the
        // getters of `NodeRef` (`NodeRef::expr(self) -> Option<ExprId>`).
        let mut arena_ns = Names::for_methods(&["root"]);
        // `Tree`'s methods: `push_expr`, `push_call_with_cold`.
        let mut tree_ns = Names::for_methods(crate::names::TREE_METHODS);
        for (i, _) in p.types.iter().enumerate() {
            let r = root_of(TypeId(i as u32));
            let h = match hiers.iter().position(|h| h.root == r) {
                Some(h) => h,
                None => {
                    let name = &p.types[r.index()].name;
                    hiers.push(Hier {
                        root: r,
                        node: top.fresh(&format!("{name}Slots")),
                        id: top.fresh(&format!("{name}Id")),
                        kind: top.fresh(&format!("{name}Kind")),
                        arena: arena_ns.fresh_value(&snake(name)),
                        push: tree_ns.fresh_value(&format!("push_{}", snake(name))),
                        data_mut: tree_ns.fresh_value(&format!("data_mut_{}", snake(name))),
                        concrete: Vec::new(),
                        fields: Vec::new(),
                        slots: Vec::new(),
                    });
                    hiers.len() - 1
                }
            };
            hier_of[i] = h;
            if !p.types[i].is_abstract {
                hiers[h].concrete.push(TypeId(i as u32));
            }
        }
        for (i, f) in p.fields.iter().enumerate() {
            hiers[hier_of[f.owner.index()]]
                .fields
                .push(FieldId(i as u32));
        }
        let cold = cold_fields(p);
        let mut field = vec![ident("x"); p.fields.len()];
        for h in &mut hiers {
            let hot: Vec<FieldId> = h
                .fields
                .iter()
                .copied()
                .filter(|f| !cold[f.index()])
                .collect();
            h.slots = assign_slots(p, &hot, &hier_of);
            for slot in &h.slots {
                for &f in &slot.fields {
                    field[f.index()] = slot.name.clone();
                }
            }
        }
        // Cold fields are members of their concrete types' cold structs,
        // named after the field.
        let cold_struct: Vec<Option<ColdStruct>> = p
            .types
            .iter()
            .map(|t| {
                let fields: Vec<FieldId> = t
                    .fields
                    .iter()
                    .copied()
                    .filter(|f| cold[f.index()])
                    .collect();
                (!t.is_abstract && !fields.is_empty()).then(|| ColdStruct {
                    name: top.fresh(&format!("{}Cold", t.name)),
                    table: arena_ns.fresh_value(&format!("{}_cold", snake(&t.name))),
                    push_with: tree_ns.fresh_value(&format!("push_{}_with_cold", snake(&t.name))),
                    get: tree_ns.fresh_value(&format!("get_{}_cold", snake(&t.name))),
                    insert: tree_ns.fresh_value(&format!("insert_{}_cold", snake(&t.name))),
                    fields,
                })
            })
            .collect();
        // Fields as members of the typed API's structs and of the cold
        // structs: a field is a member of the struct of every concrete type
        // that has it, and takes a name free in all of them, so that
        // `Match` and `match` (both `match_`) or an inherited `Clone` and
        // an own `clone` stay apart, while `next` of two unrelated types
        // stays `next` in both.
        let enum_variants: Vec<Vec<Ident>> = p
            .enums
            .iter()
            .map(|e| {
                let mut ns = Names::for_variants(numbered);
                ns.reserve(["Self"]);
                e.variants.iter().map(|v| ns.fresh(v)).collect()
            })
            .collect();
        // A member is also a constructor's parameter (`Tree::cx(kind: K)`,
        // `Rec::new(kind)`): one named like a variant of its own enum type
        // would be a binding with a variant's name (E0170).
        let names_a_variant = |ty: &DataType, n: &str| match ty {
            DataType::Enum(e) => enum_variants[e.index()].iter().any(|v| v == n),
            _ => false,
        };
        let mut member = vec![ident("x"); p.fields.len()];
        let mut members_of: Vec<Names> = vec![Names::for_members(); p.types.len()];
        for (f, fd) in p.fields.iter().enumerate() {
            let holders: Vec<usize> = (0..p.types.len())
                .filter(|&t| p.types[t].fields.contains(&FieldId(f as u32)))
                .collect();
            let own_type = match &fd.kind {
                FieldKind::Data(ty) => Some(ty),
                _ => None,
            };
            let name = crate::names::first_free(&snake(&fd.name), |n| {
                holders.iter().any(|&t| members_of[t].is_taken(n))
                    || own_type.is_some_and(|ty| names_a_variant(ty, n))
            });
            for &t in &holders {
                members_of[t].reserve([name.as_str()]);
            }
            member[f] = ident(&name);
        }
        for (f, m) in member.iter().enumerate() {
            if cold[f] {
                field[f] = m.clone();
            }
        }
        let mut ctor_ns = Names::for_methods(&["push", "new", "blank"]);
        // A constructor is a method of its hierarchy's slots struct, and
        // clippy (`self_named_constructors`) rejects one named like that
        // struct (`visits_fusedslots` in `impl visits_fusedSlots`, or so
        // but for underscores: hostile seed 47441).
        let type_ctor = p
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let host = hiers[hier_of[i]].node.to_string().to_lowercase();
                let name = crate::names::first_free(&snake(&t.name), |n| {
                    ctor_ns.is_taken(n) || n == host || n.replace('_', "") == host
                });
                ctor_ns.reserve([name.as_str()]);
                ident(&name)
            })
            .collect();
        // Variants of the kind enums are matched in functions whose locals
        // would bind instead of matching a variant of the same name (E0170).
        let mut variant_ns = Names::for_variants(numbered);
        let variant = p.types.iter().map(|t| variant_ns.fresh(&t.name)).collect();
        let rec_fields = p
            .records
            .iter()
            .map(|r| {
                // Constructor parameters too (`new(level, _level)` trips
                // clippy's `duplicate_underscore_argument`): underscore-blind.
                let mut ns = Names::for_members();
                r.fields
                    .iter()
                    .map(|f| {
                        let name = crate::names::first_free(&snake(&f.name), |n| {
                            ns.is_taken(n) || names_a_variant(&f.ty, n)
                        });
                        ns.reserve([name.as_str()]);
                        ident(&name)
                    })
                    .collect()
            })
            .collect();
        let mut gns = Names::default();
        let global = p
            .globals
            .iter()
            .map(|g| gns.fresh_value(&snake(&g.name)))
            .collect();
        // The entry points first: they are the module's API, so a
        // traversal or pure function of the same name gives way.
        let entry_fn = p
            .fuses
            .iter()
            .map(|f| {
                let base = snake(&f.name);
                ["unfused", "fused"].map(|kind| EntryFns {
                    run: top.fresh_value(&format!("run_{base}_{kind}")),
                    counted: top.fresh_value(&format!("run_{base}_{kind}_counted")),
                    inner: top.fresh_value(&format!("{base}_{kind}")),
                })
            })
            .collect();
        // With parallel entry points, theirs next (none otherwise, so the
        // names of a module without them stay as they were).
        let par_entry_fn = p
            .fuses
            .iter()
            .filter(|_| opts.parallel)
            .map(|f| {
                let base = snake(&f.name);
                EntryFns {
                    run: top.fresh_value(&format!("run_{base}_parallel")),
                    counted: top.fresh_value(&format!("run_{base}_parallel_counted")),
                    inner: top.fresh_value(&format!("{base}_parallel")),
                }
            })
            .collect();
        let pure = p
            .pure_fns
            .iter()
            .map(|f| top.fresh_value(&snake(&f.name)))
            .collect();
        let pure_lent = p.pure_fns.iter().map(lent_params).collect();
        let method_lent = method_lent_params(p);
        let pure_fallible = treefuse_analysis::pure_fns_may_fail(p);
        let method_fn = p
            .methods
            .iter()
            .map(|m| top.fresh_value(&snake(&rust_name(&m.name))))
            .collect();
        let body_fn = p
            .bodies
            .iter()
            .map(|b| {
                top.fresh_value(&format!(
                    "{}_{}",
                    snake(&p.types[b.owner.index()].name),
                    snake(&rust_name(&p.methods[b.method.index()].name))
                ))
            })
            .collect();
        let fused_fn = fused
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                top.fresh_value(&format!("fused_{i}_{}", snake(&p.types[f.ty.index()].name)))
            })
            .collect();
        // A chain function's runner (`Gen::chain_driver`), named in every
        // module with parallel entry points.
        let chain_fn = fused
            .functions
            .iter()
            .enumerate()
            .filter(|_| opts.parallel)
            .map(|(i, f)| {
                top.fresh_value(&format!(
                    "fused_{i}_{}_chain",
                    snake(&p.types[f.ty.index()].name)
                ))
            })
            .collect();
        let cast_fn = p
            .types
            .iter()
            .map(|t| top.fresh_value(&format!("as_{}", snake(&t.name))))
            .collect();
        let copy_fn: Vec<Ident> = hiers
            .iter()
            .map(|h| top.fresh_value(&format!("copy_{}", snake(&p.types[h.root.index()].name))))
            .collect();
        let copy_children_fn = copy_fn
            .iter()
            .map(|f| top.fresh_value(&format!("{f}_children")))
            .collect();
        let rw = Rewrites::new(p, fused);
        let mut g = Gen {
            p,
            fused,
            opts,
            hier_of,
            hiers,
            field,
            member,
            cold,
            cold_struct,
            type_ctor,
            type_struct,
            variant,
            rec,
            rec_fields,
            enum_name,
            enum_variants,
            global,
            entry_fn,
            par_entry_fn,
            pure,
            pure_lent,
            method_lent,
            lent_copied: RefCell::default(),
            pure_fallible,
            method_fn,
            count_param: count_param(p),
            tree_param: opts.parallel.then(|| tree_param(p)),
            written_flag: if opts.parallel {
                written_flags(p, fused)
            } else {
                Vec::new()
            },
            body_fn,
            fused_fn,
            chain_fn,
            cast_fn,
            fused_disp: BTreeMap::new(),
            fused_disp_known: BTreeMap::new(),
            self_children: RefCell::new(None),
            self_node: Cell::new(false),
            forwarding: RefCell::default(),
            fwd: RefCell::default(),
            off: Vec::new(),
            mask_bits: 64,
            top,
            locals_reserved: Default::default(),
            rw,
            copy_fn,
            copy_children_fn,
            stack: crate::stack_plan::stack_scheme(p),
        };
        g.plan_fused();
        // Every module-level name is handed out: from here on, frames name
        // locals around them.
        // A local named like a variant of its own enum type would be a
        // pattern, not a binding (E0170): locals avoid every variant too.
        let variants: Vec<String> = g
            .variant
            .iter()
            .chain(g.enum_variants.iter().flatten())
            .map(|v| v.to_string())
            .collect();
        g.locals_reserved = Names::locals_reserved(&g.top, &variants, numbered);
        g.drop_unused_checks();
        g
    }

    // ------------------------------------------------------------ types

    pub fn hier(&self, t: TypeId) -> &Hier {
        &self.hiers[self.hier_of[t.index()]]
    }

    pub fn data_type(&self, t: &DataType) -> TokenStream {
        match t {
            DataType::Int => quote!(i64),
            DataType::Float => quote!(f64),
            DataType::Bool => quote!(bool),
            DataType::Str => quote!(Arc<str>),
            DataType::Record(r) => {
                let n = &self.rec[r.index()];
                quote!(#n)
            }
            DataType::Enum(e) => {
                let n = &self.enum_name[e.index()];
                quote!(#n)
            }
            DataType::Map(k, v) => {
                let (k, v) = (self.data_type(k), self.data_type(v));
                quote!(ValueMap<#k, #v>)
            }
            DataType::Array(e) => {
                let e = self.data_type(e);
                quote!(Vec<#e>)
            }
        }
    }

    pub fn field_type(&self, f: FieldId) -> TokenStream {
        match &self.p.fields[f.index()].kind {
            // An optional child (§8.7).
            FieldKind::Child(t) if self.p.is_optional(f) => {
                let id = &self.hier(*t).id;
                quote!(Option<#id>)
            }
            FieldKind::Child(t) => {
                let id = &self.hier(*t).id;
                quote!(#id)
            }
            FieldKind::List(t) => {
                let id = &self.hier(*t).id;
                quote!(Arc<[#id]>)
            }
            FieldKind::Data(d) => self.data_type(d),
        }
    }

    pub fn zero(&self, t: &DataType) -> TokenStream {
        match t {
            DataType::Int => quote!(0),
            DataType::Float => quote!(0.0),
            DataType::Bool => quote!(false),
            // `default()` shares one static empty string; `from("")`
            // would allocate for every node made.
            DataType::Str => quote!(Arc::<str>::default()),
            DataType::Record(r) => {
                let n = &self.rec[r.index()];
                quote!(#n::default())
            }
            DataType::Array(_) => quote!(Vec::new()),
            DataType::Enum(e) => {
                let (n, v) = (
                    &self.enum_name[e.index()],
                    &self.enum_variants[e.index()][0],
                );
                quote!(#n::#v)
            }
            DataType::Map(..) => quote!(ValueMap::new()),
        }
    }

    /// The value a field has in a node of a type that does not have it, or
    /// before it is set.
    pub fn field_blank(&self, f: FieldId) -> TokenStream {
        let fd = &self.p.fields[f.index()];
        match &fd.kind {
            FieldKind::Child(_) if fd.optional => quote!(None),
            FieldKind::Child(t) => {
                let id = &self.hier(*t).id;
                quote!(#id(u32::MAX))
            }
            FieldKind::List(_) => quote!(Arc::default()),
            FieldKind::Data(d) => self.zero(d),
        }
    }

    pub fn constant(&self, v: &Value, t: &DataType) -> E {
        match (v, t) {
            (Value::Int(i), _) => {
                if *i == i64::MIN {
                    E::atom(quote!(i64::MIN))
                } else if *i < 0 {
                    let l = Literal::i64_suffixed(-*i);
                    E::new(quote!(-#l), UNARY)
                } else {
                    {
                        let l = Literal::i64_suffixed(*i);
                        E::atom(quote!(#l))
                    }
                }
            }
            (Value::Float(x), _) => {
                if x.is_nan() {
                    E::atom(quote!(f64::NAN))
                } else if x.is_infinite() {
                    if *x > 0.0 {
                        E::atom(quote!(f64::INFINITY))
                    } else {
                        E::atom(quote!(f64::NEG_INFINITY))
                    }
                } else if x.is_sign_negative() {
                    let l = Literal::f64_suffixed(-*x);
                    E::new(quote!(-#l), UNARY)
                } else {
                    {
                        let l = Literal::f64_suffixed(*x);
                        E::atom(quote!(#l))
                    }
                }
            }
            (Value::Bool(b), _) => E::atom(quote!(#b)),
            (Value::Str(s), _) if s.is_empty() => E::atom(quote!(Arc::<str>::default())),
            (Value::Str(s), _) => {
                let s: &str = s;
                E::atom(quote!(Arc::<str>::from(#s)))
            }
            (Value::Array(items), DataType::Array(e)) => {
                E::atom(vec_literal(items.iter().map(|v| self.constant(v, e).ts)))
            }
            (Value::Enum(i), DataType::Enum(e)) => {
                let n = &self.enum_name[e.index()];
                match self.enum_variants[e.index()].get(*i as usize) {
                    Some(v) => E::atom(quote!(#n::#v)),
                    None => E::atom(self.zero(t)),
                }
            }
            (Value::Map(m), DataType::Map(k, v)) => {
                let ty = self.data_type(t);
                if m.is_empty() {
                    return E::atom(quote!(<#ty>::new()));
                }
                let pairs = m.iter().map(|(key, x)| {
                    let key = self.constant(&key.to_value(), k).ts;
                    let x = self.constant(x, v).ts;
                    quote!((#key, #x))
                });
                E::atom(quote!(<#ty>::from_iter([#(#pairs),*])))
            }
            (Value::Record(items), DataType::Record(r)) => {
                let name = &self.rec[r.index()];
                let vals = items
                    .iter()
                    .zip(&self.p.records[r.index()].fields)
                    .map(|(v, f)| self.constant(v, &f.ty).ts);
                E::atom(quote!(#name::new(#(#vals),*)))
            }
            _ => E::atom(self.zero(t)),
        }
    }

    /// `&At { .. }` for an error raised at `span` in `context`.
    pub fn at(&self, context: &str, span: Span) -> TokenStream {
        let v = self.at_value(context, span);
        quote!(&#v)
    }

    /// Where `span` starts in the source, `file.tf:line:col` (the file's
    /// name without its directories: the header of the module gives the
    /// path), for the doc comments that tie each generated function to
    /// the declaration it comes from.
    pub fn source_pos(&self, span: Span) -> String {
        match &self.opts.source {
            Some(info) => {
                let at = info.sources.locate(span.start as usize);
                let (line, col) = (at.line, at.col);
                let file = std::path::Path::new(at.file)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{file}:{line}:{col}")
            }
            _ => format!("byte {}", span.start),
        }
    }

    /// `Name` (`file.tf:line:col`) of a traversal body, for doc comments.
    pub fn body_at(&self, b: BodyId) -> String {
        let span = self.p.bodies[b.index()].span;
        format!("`{}` ({})", self.p.body_name(b), self.source_pos(span))
    }

    /// `At::new(..)` for an error raised at `span` in `context`.
    pub fn at_value(&self, context: &str, span: Span) -> TokenStream {
        let (line, col) = match &self.opts.source {
            Some(info) => {
                let at = info.sources.locate(span.start as usize);
                (at.line as u32, at.col as u32)
            }
            None => (0, span.start),
        };
        let (line, col) = (Literal::u32_unsuffixed(line), Literal::u32_unsuffixed(col));
        quote!(At::new(#context, #line, #col))
    }

    // ------------------------------------------------------------ fused plan

    /// Computes which fused functions can be entered with some participant
    /// inactive, and names the dispatchers of target lists.
    fn plan_fused(&mut self) {
        let fs = &self.fused.functions;
        let mut off: Vec<Vec<bool>> = fs
            .iter()
            .map(|f| vec![false; f.participants.len()])
            .collect();
        loop {
            let mut changed = false;
            for (gi, g) in fs.iter().enumerate() {
                for step in &g.steps {
                    for (k, cond, targets) in self.step_calls(gi, step, &off) {
                        if !cond {
                            continue;
                        }
                        for (_, f) in targets {
                            if !off[f.index()][k] {
                                off[f.index()][k] = true;
                                changed = true;
                            }
                        }
                    }
                }
            }
            // Postponed participants resume with the mask of those that
            // were still active.
            for g in fs {
                for r in &g.resume {
                    for (_, f) in &r.targets {
                        for o in off[f.index()].iter_mut() {
                            if !*o {
                                *o = true;
                                changed = true;
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let widest = fs
            .iter()
            .zip(&off)
            .filter(|(_, o)| o.iter().any(|&x| x))
            .map(|(f, _)| f.participants.len())
            .max()
            .unwrap_or(0);
        self.mask_bits = match widest {
            _ if self.opts.wide_masks => 64 * widest.div_ceil(64).max(1) as u32,
            0..=64 => 64,
            65..=128 => 128,
            _ => 64 * widest.div_ceil(64) as u32,
        };
        self.off = off;
        let mut lists: Vec<Vec<(TypeId, FusedFnId)>> = Vec::new();
        for (gi, f) in fs.iter().enumerate() {
            for step in &f.steps {
                for (_, t) in self.call_sites(gi, step) {
                    lists.push(t.to_vec());
                }
            }
        }
        for f in fs {
            for r in &f.resume {
                lists.push(r.targets.clone());
            }
        }
        for e in &self.fused.entries {
            for c in &e.chunks {
                lists.push(c.targets.clone());
            }
        }
        for (i, l) in lists.into_iter().enumerate() {
            if !self.fused_disp.contains_key(&l) {
                let name = self.top.fresh_value(&format!("fused_call_{i}"));
                self.fused_disp.insert(l, name);
            }
        }
        let mut known: Vec<(Vec<(TypeId, FusedFnId)>, TypeId)> = Vec::new();
        for (gi, f) in fs.iter().enumerate() {
            for step in &f.steps {
                let treefuse_fusion::Step::Group(g) = step else {
                    continue;
                };
                for (members, targets) in self.call_sites(gi, step) {
                    if let Some(ty) = self.proven_type(g.field, &members, targets) {
                        known.push((targets.to_vec(), ty));
                    }
                }
            }
        }
        for key in known {
            if !self.fused_disp_known.contains_key(&key) {
                let base = format!(
                    "{}_{}",
                    self.fused_disp[&key.0],
                    snake(&self.p.types[key.1.index()].name)
                );
                let name = self.top.fresh_value(&base);
                self.fused_disp_known.insert(key, name);
            }
        }
    }

    /// The concrete type of child `field` that a fused call on it may
    /// take for granted: every member is `if cond { self.field.f(..) }`
    /// with `self.field is T` among the `&&` conjuncts of `cond`, the same
    /// concrete `T` for all, one of the call's `targets`. The fused call
    /// evaluates the members' conditions right before it reads the child
    /// and calls (expressions cannot write the tree), and makes the call
    /// only when one of them held, so the child is a `T` then.
    pub fn proven_type(
        &self,
        field: FieldId,
        members: &[(usize, &Stmt)],
        targets: &[(TypeId, FusedFnId)],
    ) -> Option<TypeId> {
        fn tested(e: &Expr, field: FieldId, out: &mut Vec<TypeId>) {
            match &e.kind {
                ExprKind::Binary(treefuse_sema::ops::BinaryOp::And, a, b) => {
                    tested(a, field, out);
                    tested(b, field, out);
                }
                ExprKind::Is(p, ty)
                    if p.root == PathRoot::SelfNode
                        && matches!(p.steps.as_slice(), [PathStep::Child(f)] if *f == field) =>
                {
                    out.push(*ty)
                }
                _ => {}
            }
        }
        let mut proven: Option<TypeId> = None;
        for (_, s) in members {
            let StmtKind::If { cond, .. } = &s.kind else {
                return None;
            };
            let mut types = Vec::new();
            tested(cond, field, &mut types);
            // `is T` holds for T's subtypes too: only a T with no other
            // concrete subtype proves the node's kind.
            let ty = types.into_iter().find(|t| {
                targets.iter().any(|(u, _)| u == t)
                    && self.p.types[t.index()].concrete_subtypes.as_slice() == [*t]
            })?;
            match proven {
                Some(p) if p != ty => return None,
                _ => proven = Some(ty),
            }
        }
        proven
    }

    /// For a group or loop step of fused function `gi`: each fused call
    /// site with, per callee participant, whether the callee may be
    /// entered with that participant switched off (its call left out while
    /// another member's is made), and the targets.
    pub fn step_calls<'a>(
        &self,
        gi: usize,
        step: &'a treefuse_fusion::Step,
        off: &[Vec<bool>],
    ) -> Vec<(usize, bool, Targets<'a>)> {
        let flagged = |p: usize| self.flagged(gi, p, off);
        let mut out = Vec::new();
        let guards = Self::type_guards(step);
        for (c, (members, targets)) in self.call_sites(gi, step).into_iter().enumerate() {
            // A call made for one member only is made only when that
            // member takes part (`if m != 0`), so the callee's only
            // participant is never entered switched off.
            let alone = members.len() == 1;
            for (k, (p, s)) in members.into_iter().enumerate() {
                let guarded = matches!(s.kind, StmtKind::If { .. })
                    || guards
                        .get(c)
                        .is_some_and(|g| g.get(k).is_some_and(Option::is_some));
                out.push((k, !alone && (guarded || flagged(p)), targets));
            }
        }
        out
    }

    /// The type guards of each fused call site of a step, parallel to
    /// [`Self::call_sites`] (empty where no call is type-guarded).
    pub fn type_guards(step: &treefuse_fusion::Step) -> Vec<&[Option<treefuse_fusion::TypeGuard>]> {
        match step {
            treefuse_fusion::Step::Group(g) => vec![g.guards.as_slice()],
            treefuse_fusion::Step::Loop(l) => l
                .steps
                .iter()
                .filter_map(|ls| match ls {
                    treefuse_fusion::LoopStep::Call { guards, .. } => Some(guards.as_slice()),
                    treefuse_fusion::LoopStep::Stmt { .. } => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The fused call sites of a group or loop step: the member call
    /// statements in callee participant order, each with its caller
    /// participant, and the targets.
    pub fn call_sites<'a>(
        &self,
        gi: usize,
        step: &'a treefuse_fusion::Step,
    ) -> Vec<(Vec<(usize, &'p Stmt)>, Targets<'a>)> {
        let f = &self.fused.functions[gi];
        let stmt = |p: usize, i: usize| -> Option<&'p Stmt> {
            self.p.bodies[f.participants[p].body.index()]
                .body
                .as_ref()
                .and_then(|b| b.get(i))
        };
        match step {
            treefuse_fusion::Step::Group(g) => {
                let members = g
                    .calls
                    .iter()
                    .filter_map(|&(p, i)| stmt(p, i).map(|s| (p, s)))
                    .collect();
                vec![(members, g.targets.as_slice())]
            }
            treefuse_fusion::Step::Loop(l) => {
                let loop_body = |m: usize| -> (usize, &'p [Stmt]) {
                    let (p, i) = l.loops[m];
                    match stmt(p, i) {
                        Some(Stmt {
                            kind: StmtKind::ForChildren { body, .. },
                            ..
                        }) => (p, body.as_slice()),
                        _ => (p, &[]),
                    }
                };
                l.steps
                    .iter()
                    .filter_map(|ls| match ls {
                        treefuse_fusion::LoopStep::Call { calls, targets, .. } => {
                            let members = calls
                                .iter()
                                .filter_map(|&(m, i)| {
                                    let (p, body) = loop_body(m);
                                    body.get(i).map(|s| (p, s))
                                })
                                .collect();
                            Some((members, targets.as_slice()))
                        }
                        treefuse_fusion::LoopStep::Stmt { .. } => None,
                    })
                    .collect()
            }
            treefuse_fusion::Step::While(w) => {
                let body: &'p [Stmt] = match stmt(w.participant, w.stmt) {
                    Some(Stmt {
                        kind: StmtKind::While { body, .. },
                        ..
                    }) => body,
                    _ => &[],
                };
                w.steps
                    .iter()
                    .filter_map(|ws| match ws {
                        treefuse_fusion::WhileStep::Call { calls, targets, .. } => Some((
                            calls
                                .iter()
                                .filter_map(|&i| body.get(i).map(|s| (w.participant, s)))
                                .collect(),
                            targets.as_slice(),
                        )),
                        treefuse_fusion::WhileStep::Stmt(_) => None,
                    })
                    .collect()
            }
            treefuse_fusion::Step::Stmt { .. } => Vec::new(),
        }
    }

    /// Whether the body may end early: `return`, a replacement of the
    /// receiver, or a call on `self` that may replace it.
    pub fn has_return(&self, b: BodyId) -> bool {
        self.p.bodies[b.index()]
            .body
            .as_deref()
            .is_some_and(|ss| ss.iter().any(|s| self.contains_return(s)))
    }

    /// Whether running `s` may end the traversal (see [`Self::has_return`]).
    pub fn contains_return(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Return(_) | StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. } => {
                true
            }
            StmtKind::Call {
                receiver, method, ..
            } => {
                receiver.root == PathRoot::SelfNode
                    && receiver.steps.is_empty()
                    && self.rw.method_replaces[method.index()]
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                then_branch.iter().any(|s| self.contains_return(s))
                    || else_branch.iter().any(|s| self.contains_return(s))
            }
            StmtKind::ForChildren { body, .. }
            | StmtKind::ForArray { body, .. }
            | StmtKind::ForRange { body, .. }
            | StmtKind::While { body, .. } => body.iter().any(|s| self.contains_return(s)),
            _ => false,
        }
    }

    /// Whether participant `p` of fused function `gi` can be inactive (and
    /// so gets an `active_p` flag): a caller may pass it switched off, it
    /// may `return`, or an earlier participant may replace the node, which
    /// postpones it.
    pub fn flagged(&self, gi: usize, p: usize, off: &[Vec<bool>]) -> bool {
        let f = &self.fused.functions[gi];
        off[gi][p]
            || self.has_return(f.participants[p].body)
            || f.resume.iter().any(|r| r.participant < p)
    }

    /// The local holding the receiver's child `f` in the fused function
    /// being generated, if it reads that child once at its start; records
    /// a read or (`write`) an assignment of the slot.
    pub fn hoisted_child(&self, f: FieldId, write: bool) -> Option<Ident> {
        let mut children = self.self_children.borrow_mut();
        let h = children.as_mut()?.iter_mut().find(|h| h.field == f)?;
        if write {
            h.written = true;
        } else {
            h.read = true;
        }
        Some(h.local.clone())
    }

    /// Whether the module's participant masks are
    /// `treefuse_runtime::generated::WideMask`s (more than 128
    /// participants) rather than integers.
    fn wide_masks(&self) -> bool {
        self.mask_bits > 128 || self.opts.wide_masks
    }

    /// The Rust type of participant masks: `u64`, `u128`, or
    /// `WideMask<W>` of `W` words past 128 participants.
    pub fn mask_ty(&self) -> TokenStream {
        if self.wide_masks() {
            let words = Literal::usize_unsuffixed(self.mask_bits as usize / 64);
            quote!(WideMask<#words>)
        } else if self.mask_bits > 64 {
            quote!(u128)
        } else {
            quote!(u64)
        }
    }

    /// A mask of the module's mask type holding the participants `bits`.
    pub fn mask_lit(&self, bits: &[usize]) -> TokenStream {
        if self.wide_masks() {
            let bits = bits.iter().map(|&b| Literal::usize_unsuffixed(b));
            return quote!(WideMask::of(&[#(#bits),*]));
        }
        let mut mask = WideMask::NONE;
        for &b in bits {
            mask.insert(b);
        }
        let lit = if self.mask_bits > 64 {
            Literal::u128_suffixed(mask.low_u128())
        } else {
            Literal::u64_suffixed(mask.word(0))
        };
        quote!(#lit)
    }

    /// Every participant but those in `left_out`.
    pub fn mask_all_but(&self, left_out: &[usize]) -> TokenStream {
        let lit = self.mask_lit(left_out);
        quote!(!#lit)
    }

    /// Every participant.
    pub fn mask_all(&self) -> TokenStream {
        if self.wide_masks() {
            quote!(WideMask::ALL)
        } else {
            let ty = self.mask_ty();
            quote!(#ty::MAX)
        }
    }

    /// No participant.
    pub fn mask_none(&self) -> TokenStream {
        if self.wide_masks() {
            quote!(WideMask::NONE)
        } else {
            quote!(0)
        }
    }

    /// The mask of the first `n` participants.
    pub fn mask_of_first(&self, n: usize) -> TokenStream {
        if self.wide_masks() {
            let n = Literal::usize_unsuffixed(n);
            return quote!(WideMask::first(#n));
        }
        self.mask_lit(&(0..n.min(128)).collect::<Vec<_>>())
    }

    /// Whether mask `mask` (an expression) holds participant `p`.
    pub fn mask_has(&self, mask: TokenStream, p: usize) -> TokenStream {
        if self.wide_masks() {
            let p = Literal::usize_unsuffixed(p);
            return quote!(#mask.has(#p));
        }
        let bit = self.mask_lit(&[p]);
        quote!(#mask & #bit != 0)
    }

    /// Adds participant `p` to the mask in variable `mask`.
    pub fn mask_insert(&self, mask: TokenStream, p: usize) -> TokenStream {
        if self.wide_masks() {
            let p = Literal::usize_unsuffixed(p);
            return quote!(#mask.insert(#p););
        }
        let bit = self.mask_lit(&[p]);
        quote!(#mask |= #bit;)
    }

    /// Whether mask `mask` (an expression) holds any participant.
    pub fn mask_any(&self, mask: TokenStream) -> TokenStream {
        if self.wide_masks() {
            quote!(#mask.any())
        } else {
            quote!(#mask != 0)
        }
    }

    /// The mask whose participant `k` is in when boolean `flags[k]` holds.
    pub fn mask_from_flags(&self, flags: &[Ident]) -> TokenStream {
        if self.wide_masks() {
            return quote!(WideMask::from_flags(&[#(#flags),*]));
        }
        let ty = self.mask_ty();
        let bits = flags.iter().enumerate().map(|(k, flag)| {
            if k == 0 {
                quote!((#flag as #ty))
            } else {
                let shift = Literal::u32_unsuffixed(k as u32);
                quote!(((#flag as #ty) << #shift))
            }
        });
        quote!(#(#bits)|*)
    }

    pub fn fn_takes_mask(&self, f: FusedFnId) -> bool {
        self.off[f.index()].iter().any(|&o| o)
    }

    pub fn disp_takes_mask(&self, targets: &[(TypeId, FusedFnId)]) -> bool {
        targets.iter().any(|(_, f)| self.fn_takes_mask(*f))
    }

    /// Whether a fused call with these targets may replace its receiver.
    pub fn disp_replaces(&self, targets: &[(TypeId, FusedFnId)]) -> bool {
        targets
            .iter()
            .any(|(_, f)| self.rw.fused_replaces[f.index()])
    }

    /// Whether a fused call with these targets takes a `site`.
    pub fn disp_site(&self, targets: &[(TypeId, FusedFnId)]) -> bool {
        targets.iter().any(|(_, f)| self.rw.fused_site[f.index()])
    }
}

/// Whether `ts` reads or writes a variable (or parameter) `name`: an
/// occurrence of the identifier that is not a field or method after `.`,
/// a path segment after or before `::`, or a field name or binding before
/// `:` (`Record { name: .. }`, `let name: T`). Users' fields and
/// constructors may share the names of generated parameters (`cx`, `t`,
/// `mask`), and a parameter is named `_cx` exactly when it is unused.
pub(crate) fn uses_var(ts: &TokenStream, name: &str) -> bool {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    tokens.iter().enumerate().any(|(i, tt)| match tt {
        TokenTree::Ident(id) => {
            id == name
                && !(i > 0
                    && (is_punct(tokens.get(i - 1), '.') || is_punct(tokens.get(i - 1), ':')))
                && !is_punct(tokens.get(i + 1), ':')
        }
        TokenTree::Group(g) => uses_var(&g.stream(), name),
        _ => false,
    })
}

/// A `Vec` of these elements: `Vec::from([a, b])`, or `Vec::new()`. Not
/// `vec![..]`: prettyplease prints the tokens of a macro call as they
/// come, breaking long element expressions anywhere (even between `else`
/// and `{`), while a function call is formatted as Rust.
pub(crate) fn vec_literal(items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let items: Vec<TokenStream> = items.into_iter().collect();
    if items.is_empty() {
        quote!(Vec::new())
    } else {
        quote!(Vec::from([#(#items),*]))
    }
}

/// Whether `ts` mentions the identifier `name` anywhere.
/// A traversal name as Rust can spell it: the `$` of a split call's parts
/// (`fold$head`, `treefuse_sema::SplitTraversal`) becomes `_` (the
/// caller's `fresh` keeps it apart from a user's `fold_head`).
fn rust_name(name: &str) -> String {
    name.replace('$', "_")
}

pub(crate) fn mentions(ts: &TokenStream, name: &str) -> bool {
    ts.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}

// ---------------------------------------------------------------- usage

/// How a function's code copies a lent parameter out of its reference.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Copied {
    /// At one place, outside loops: once per call at most.
    Once,
    /// At several places, inside a loop, or where a value of its own would
    /// have been updated in place (`insert`, `remove`).
    Often,
}

/// A function whose parameters may be lent (see `Frame::lender`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Lender {
    Pure(usize),
    /// A body of a traversal: each body may copy a parameter once.
    Body {
        method: usize,
        body: usize,
    },
}

/// Which parameters of pure function `f` may be taken by reference: those
/// not `Copy` that its body never assigns (host functions take everything
/// by value). `Gen::settle_lending` then keeps those it never copies.
pub(crate) fn lent_params(f: &PureFn) -> Vec<bool> {
    let mut u = Usage::default();
    match &f.body {
        PureBody::Host => return vec![false; f.frame.num_params],
        PureBody::Expr(e) => expr_use(e, &mut u),
        PureBody::Block(b) => usage(b, &mut u),
    }
    (0..f.frame.num_params)
        .map(|i| !is_copy(&f.frame.locals[i].1) && !u.assigned.contains(&LocalId(i as u32)))
        .collect()
}

/// Which parameters of each traversal may be taken by reference: those
/// not `Copy` that no body of the traversal assigns. `Gen::settle_lending`
/// then keeps those no body copies.
pub(crate) fn method_lent_params(p: &Program) -> Vec<Vec<bool>> {
    let mut lent: Vec<Vec<bool>> = p
        .methods
        .iter()
        .map(|m| m.params.iter().map(|t| !is_copy(t)).collect())
        .collect();
    for b in &p.bodies {
        let mut u = Usage::default();
        usage(b.body.as_deref().unwrap_or(&[]), &mut u);
        let Some(ps) = lent.get_mut(b.method.index()) else {
            continue;
        };
        for (i, l) in ps.iter_mut().enumerate() {
            if u.assigned.contains(&LocalId(i as u32)) {
                *l = false;
            }
        }
    }
    lent
}

/// What `stmts` use, up to the first statement that always returns (the
/// code generator leaves out the rest, see `Gen::block`).
pub(crate) fn usage(stmts: &[Stmt], u: &mut Usage) {
    for s in stmts {
        usage_stmt(s, u);
        if diverges(s) {
            break;
        }
    }
}

fn path_use(p: &NodePath, u: &mut Usage) {
    if let PathRoot::Var(v) = p.root {
        u.nodes.insert(v);
    }
    p.index_exprs().for_each(|i| expr_use(i, u));
}

fn subtree_use(t: &Subtree, u: &mut Usage) {
    match t {
        Subtree::New(t) => new_use(t, u),
        Subtree::Move(p) | Subtree::Copy(p) => path_use(p, u),
    }
}

fn list_item_use(i: &ListItem, u: &mut Usage) {
    match i {
        ListItem::One(t) => subtree_use(t, u),
        ListItem::Spread(s) => slot_use(s, u),
    }
}

fn slot_use(s: &ChildSlot, u: &mut Usage) {
    path_use(&s.parent, u);
}

fn new_use(t: &NewTree, u: &mut Usage) {
    fn field(nf: &NewField, u: &mut Usage) {
        match nf {
            NewField::Data(e) => expr_use(e, u),
            NewField::New(t) => new_use(t, u),
            NewField::Move(p) => path_use(p, u),
            NewField::List(items) => items.iter().for_each(|i| field(i, u)),
            NewField::MoveList(s) => slot_use(s, u),
            NewField::Copy(p) => path_use(p, u),
            NewField::Empty => {}
        }
    }
    t.fields.iter().for_each(|f| field(f, u));
}

pub(crate) fn expr_use(e: &Expr, u: &mut Usage) {
    visit::walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Local(l) => {
            u.read.insert(*l);
        }
        ExprKind::Field(p, _) | ExprKind::Is(p, _) | ExprKind::IsNone(p) => path_use(p, u),
        ExprKind::ListLen(s) => slot_use(s, u),
        ExprKind::NodeCall(_, args) => {
            for a in args {
                if let PureArg::Node(p) = a {
                    path_use(p, u);
                }
            }
        }
        _ => {}
    });
}

pub(crate) fn usage_stmt(s: &Stmt, u: &mut Usage) {
    match &s.kind {
        StmtKind::Call { receiver, args, .. } => {
            path_use(receiver, u);
            args.iter().for_each(|a| expr_use(a, u));
        }
        StmtKind::Let { value, .. } => expr_use(value, u),
        StmtKind::Alias { path, .. } => path_use(path, u),
        StmtKind::Assign { place, value } => {
            match &place.root {
                PlaceRoot::Local(l) => {
                    u.assigned.insert(*l);
                    if !place.projections.is_empty() {
                        u.read.insert(*l);
                    }
                }
                PlaceRoot::Global(_) => {}
                PlaceRoot::Field(p, _) => path_use(p, u),
            }
            for pr in &place.projections {
                if let Projection::Index(i) = pr {
                    expr_use(i, u);
                }
            }
            expr_use(value, u);
        }
        StmtKind::Replace { slot, tree } => {
            slot_use(slot, u);
            new_use(tree, u);
        }
        StmtKind::Move { slot, source } | StmtKind::CopyTo { slot, source } => {
            slot_use(slot, u);
            path_use(source, u);
        }
        StmtKind::Clear { slot } => slot_use(slot, u),
        StmtKind::ReplaceSelf { with } => subtree_use(with, u),
        StmtKind::SpliceSelf { items } => items.iter().for_each(|i| list_item_use(i, u)),
        StmtKind::EditList { list, edit } => {
            slot_use(list, u);
            match edit {
                ListEdit::Set(i, with) => {
                    expr_use(i, u);
                    subtree_use(with, u);
                }
                ListEdit::Push(with) => subtree_use(with, u),
                ListEdit::Insert(i, with) => {
                    expr_use(i, u);
                    subtree_use(with, u);
                }
                ListEdit::Remove(i) => expr_use(i, u),
                ListEdit::Assign(items) => items.iter().for_each(|i| list_item_use(i, u)),
            }
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            expr_use(cond, u);
            usage(then_branch, u);
            usage(else_branch, u);
        }
        StmtKind::ForChildren { list, body, .. } => {
            slot_use(list, u);
            usage(body, u);
        }
        StmtKind::ForArray { array, body, .. } => {
            expr_use(array, u);
            usage(body, u);
        }
        StmtKind::ForRange {
            start, end, body, ..
        } => {
            expr_use(start, u);
            expr_use(end, u);
            usage(body, u);
        }
        StmtKind::Return(v) => {
            if let Some(v) = v {
                expr_use(v, u);
            }
        }
        StmtKind::While { cond, limit, body } => {
            expr_use(limit, u);
            expr_use(cond, u);
            usage(body, u);
        }
        StmtKind::Break => {}
    }
}

/// Whether running `s` always ends in `return` (or a replacement), or,
/// inside a `while` body, leaves the loop (`break`): what follows it in
/// its block cannot run. A `while` itself never diverges (its limit may
/// be `<= 0`).
pub(crate) fn diverges(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_)
        | StmtKind::ReplaceSelf { .. }
        | StmtKind::SpliceSelf { .. }
        | StmtKind::Break => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => block_diverges(then_branch) && block_diverges(else_branch),
        _ => false,
    }
}

pub(crate) fn block_diverges(ss: &[Stmt]) -> bool {
    ss.iter().any(diverges)
}

impl Gen<'_> {
    /// Names for a frame's locals and node variables in namespace `ns`;
    /// locals that are never read get a leading `_`.
    pub fn frame(
        &self,
        context: String,
        layout: &FrameLayout,
        u: &Usage,
        ns: &mut Names,
        hoisted: bool,
    ) -> Frame {
        let locals = layout
            .locals
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                let base = snake(name);
                let id = ns.fresh_value(&base);
                if u.read.contains(&LocalId(i as u32)) {
                    id
                } else {
                    crate::names::ident(&format!("_{id}"))
                }
            })
            .collect();
        let nodes = layout
            .node_vars
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let base = snake(&v.name);
                let id = ns.fresh_value(&base);
                if u.nodes.contains(&NodeVarId(i as u32)) {
                    id
                } else {
                    crate::names::ident(&format!("_{id}"))
                }
            })
            .collect();
        Frame {
            context,
            locals,
            nodes,
            types: layout.locals.iter().map(|(_, t)| t.clone()).collect(),
            mutable: u.assigned.iter().map(|l| l.index()).collect(),
            borrowed: RefCell::default(),
            lender: None,
            loop_depth: Default::default(),
            hoisted,
            facts: RefCell::default(),
            moves: RefCell::default(),
            open: RefCell::default(),
            owner: None,
        }
    }
}

/// The name of the visit-counting const parameter: `C`, else `C_`, `C__`,
/// ... whichever no type, record or enum of the program is called.
pub(crate) fn count_param(p: &Program) -> Ident {
    let taken = |n: &str| {
        p.types.iter().any(|t| t.name == n)
            || p.records.iter().any(|r| r.name == n)
            || p.enums.iter().any(|e| e.name == n)
    };
    let mut name = String::from("C");
    while taken(&name) {
        name.push('_');
    }
    ident(&name)
}

/// The name of the tree-access type parameter: `TA`, else `TA_`, ...
/// whichever no type, record or enum of the program is called.
/// [`Gen::written_flag`]: the globals some parallel loop of `fused`
/// keeps private, numbered in id order.
fn written_flags(p: &Program, fused: &FusedProgram) -> Vec<Option<usize>> {
    let mut private = vec![false; p.globals.len()];
    for f in &fused.functions {
        for step in &f.steps {
            if let Step::Loop(l) = step {
                if let treefuse_fusion::Parallelism::Parallel { private: gs, .. } = &l.parallel {
                    for g in gs {
                        private[g.index()] = true;
                    }
                }
            }
        }
    }
    let mut next = 0;
    private
        .into_iter()
        .map(|is| {
            is.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

pub(crate) fn tree_param(p: &Program) -> Ident {
    let taken = |n: &str| {
        p.types.iter().any(|t| t.name == n)
            || p.records.iter().any(|r| r.name == n)
            || p.enums.iter().any(|e| e.name == n)
    };
    let mut name = String::from("TA");
    while taken(&name) {
        name.push('_');
    }
    ident(&name)
}

impl Gen<'_> {
    /// The generic parameters of a traversal function:
    /// `<const C: bool>`, or `<TA: TreeAccess, const C: bool>` in a module
    /// with parallel entry points.
    pub(crate) fn fn_generics(&self) -> TokenStream {
        let count = &self.count_param;
        match &self.tree_param {
            Some(ta) => quote!(<#ta: TreeAccess, const #count: bool>),
            None => quote!(<const #count: bool>),
        }
    }

    /// The node at `id` (an expression of its id type), as a place whose
    /// data field `f` the code then writes: `t[id]`, or in a module with
    /// parallel entry points `t.data_mut_H(id)` (the same in a sequential
    /// run; not renumbered in a split worker's view).
    pub(crate) fn node_for_data_write(&self, f: FieldId, id: TokenStream) -> TokenStream {
        let data = matches!(self.p.fields[f.index()].kind, FieldKind::Data(_));
        if self.tree_param.is_none() || !data {
            return quote!(t[#id]);
        }
        let m = &self.hier(self.p.fields[f.index()].owner).data_mut;
        quote!(t.#m(#id))
    }

    /// The type the traversals take the tree as: `Tree`, or `TA`.
    pub(crate) fn tree_ty(&self) -> TokenStream {
        match &self.tree_param {
            Some(ta) => quote!(#ta),
            None => quote!(Tree),
        }
    }
}

/// Calls `f` on every expression of the global assignments and loop
/// conditions of a `fuse` item (call arguments are in `Fuse::calls`).
pub(crate) fn fuse_stmt_exprs(
    stmts: &[treefuse_sema::FuseStmt],
    f: &mut impl FnMut(&treefuse_sema::Expr),
) {
    for s in stmts {
        match s {
            treefuse_sema::FuseStmt::Call(_) => {}
            treefuse_sema::FuseStmt::SetGlobal { value, .. } => f(value),
            treefuse_sema::FuseStmt::While {
                cond, limit, body, ..
            } => {
                f(limit);
                f(cond);
                fuse_stmt_exprs(body, f);
            }
            treefuse_sema::FuseStmt::Break { .. } => {}
        }
    }
}
