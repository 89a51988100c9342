//! The random program generator.
//!
//! A program is built in two phases: first a random *schema* (records,
//! globals, pure functions, families of tree types with inheritance,
//! children and list children, traversal declarations), then random
//! traversal bodies and `fuse` items typed against it. Everything is
//! emitted as `.tf` source text, one statement per line, so that a
//! line-based minimizer can delete statements.
//!
//! Termination is guaranteed by construction (the interpreter has no
//! fuel): calls on `self` only go to traversals of lower order, calls on
//! children go down, and no statement makes the subtree in a slot taller
//! than it was, except `new` nodes that wrap a slot's old subtree, which
//! are guarded by (and consume) the `fuel` global. Lines that must never
//! be deleted independently carry a `// keep` marker.
//!
//! Memory stays bounded the same way. Statements repeat (a `while` loop
//! of a `fuse` item, several calls of one traversal, a call per node of
//! a loop element's region), so nothing may grow by a factor per
//! execution: a thicket that keeps `self` and adds neighbours (a list
//! that could double per pass) costs fuel like wrapping; list pushes are
//! guarded by the list's length; and in a string concatenation only the
//! left operand may read a string from data (the right one is a constant
//! or a `to_str`), so a string grows by a bounded amount per execution,
//! never doubles (`s = s + s`).
//!
//! Data covers what compiler passes keep: maps `{i64: i64}`, `{str: i64}`
//! (environments, also in a record and passed down as traversal
//! parameters), `{i64: str}`, `{i64: bool}` and `{E1: i64}`; two enums;
//! `match` over integers, strings and enum values.
//!
//! Some programs have a counter global (`cnt` or `cflag`) that traversals
//! only update commutatively (`cnt = cnt + e`, `cnt = max(cnt, e)`,
//! `cflag = cflag || e`), so the fuzzer covers the fusion of commuting
//! updates; rarely a statement also reads it, which must stop that.
//! `fuse` items may assign globals and run some calls in a
//! `while COND limit N` loop (`N` sometimes an expression over `lim` and
//! `g0`, the body sometimes ending with `break;`), and traversal bodies
//! have `while` loops of their own with limits from constants, parameters,
//! fields and globals, a counter local carried across iterations and
//! `if C { break; }` (LANGUAGE §8.6, `gen/loops.rs`).
//!
//! Traversals often replace a child of their node outright
//! (`self.c = new ..`), and call a lower-order traversal on `self` with
//! reads of one child on either side (`self.o = self.o + self.c.f;`):
//! the called traversal may assign the slot, so generated code that reads
//! a receiver's child ids once must read the slot again after the call.
//! On half of the child slots, every traversal calls the child under a
//! test of one concrete type (`if self.c is T { self.c.f(); }`), so fused
//! calls whose members all prove the child's type, which generated code
//! dispatches without a `match`, are fuzzed (10 of the 77 programs of
//! seeds 1..=16 and 100..=160 have such a dispatcher; none did before).
//!
//! One program in four (`TYPED_LOOPS_ONE_IN`) ends with a self-contained
//! part (types `Tg*`, `fuse tgmain`) whose two passes' loops over one list
//! merge with a type test between the calls on the element
//! (`Gen::typed_loops`): random bodies almost never produce that shape,
//! so type-guarded participation would otherwise go unfuzzed (12 of the
//! 201 programs of seeds 7000..=7200 get a type guard).
//!
//! One program in five (`SPLIT_LOOPS_ONE_IN`) ends with another such part
//! (types `Sp*`, `fuse spmain`, `Gen::split_loops`): a pass reading the
//! root of an element's child after calling the element, followed by a
//! parameterless post-order pass, the shape of split calls.
//!
//! One program in three (`TYPED_CHILD_ONE_IN`) ends with a third such part
//! (types `Tc*`, `fuse tcmain`, `Gen::typed_child`): calls on a child
//! under type tests with a statement between them that tests the child's
//! type and may replace it, the shape of type-guarded calls on a child
//! (29 of the 200 programs of seeds 1..=200 get one; random bodies alone
//! got none).
//!
//! One program in two also gets the constructs of LANGUAGE §8.5 and §8.8
//! (array built-ins, appends to a global array from several passes, list
//! inserts and removes, pure functions that read nodes), added by
//! `gen/arrays.rs` from a random stream of its own.
//!
//! In half of the programs one or two types get a data field no statement
//! touches (`note0: str` and the like), which generated code stores out of
//! line as a cold field; drawn from a random stream of its own
//! (`Gen::notes`), so the rest of each seed's program is unchanged.
//!
//! One program in two (`OPTIONAL_ONE_IN`) ends with a part of optional
//! children (LANGUAGE.md §8.7; types `Op*`, `fuse opmain`,
//! `crate::optional`): random bodies that call, test, empty, fill, move,
//! copy, alias and read through optional child slots.

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

mod arrays;
mod loops;
mod walks;

/// One in how many programs end with [`Gen::typed_loops`].
const TYPED_LOOPS_ONE_IN: u32 = 4;

/// One in how many programs end with [`Gen::split_loops`].
const SPLIT_LOOPS_ONE_IN: u32 = 5;

/// One in how many programs end with [`Gen::typed_child`].
const TYPED_CHILD_ONE_IN: u32 = 3;

/// One in how many programs end with the optional-children part
/// (`crate::optional`).
const OPTIONAL_ONE_IN: u32 = 2;

/// Knobs of the generator.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Most top-level statements of a traversal body.
    pub max_stmts: u32,
    /// Deepest nesting of `if` and `for` blocks.
    pub max_nesting: u32,
    /// Most traversing calls on children per body.
    pub max_child_calls: u32,
    /// One in how many casts, divisions and indexings are left unguarded
    /// (a smaller number means more runtime errors), while the program's
    /// budget of such risky sites (0 to 3) lasts.
    pub risk: u32,
    /// Allow `return` inside `for` loops over children. Turning it off
    /// steered around the loop-fusion bug of
    /// `tests/regressions/loop_return_after_loop.tf` (fixed since) so
    /// that long runs could look for other bugs.
    pub loop_returns: bool,
    /// Generate rewriting in place (LANGUAGE.md §7.1–7.3): `self = ..`,
    /// thickets, `copy`, list edits, `len` of lists, `in_list()`.
    pub rewrites: bool,
    /// Traversals touch no global but the program's commutative counter
    /// (always present then), and never read it: no `fuel`, no global
    /// writes or reads in their bodies (the `fuse` item still uses
    /// them). Loops over lists then often have independent iterations,
    /// which the parallel entry points of generated code run on several
    /// threads; the parallel differential tests use such programs.
    pub private_globals: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_stmts: 6,
            max_nesting: 2,
            max_child_calls: 3,
            risk: 8,
            loop_returns: true,
            rewrites: true,
            private_globals: false,
        }
    }
}

/// The operator class of a program's counter global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CounterKind {
    /// `cnt = cnt + e` and `cnt = cnt - e`
    Sum,
    /// `cnt = max(cnt, e)`
    Max,
    /// `cflag = cflag || e`
    Or,
}

/// A data type of the generated program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DTy {
    Int,
    Bool,
    Rec(usize),
    Arr,
    /// `str`
    Str,
    /// One of the enums of [`ENUMS`] (by index).
    En(usize),
    /// A map type (see [`MapTy`]).
    Map(MapTy),
}

/// The map types of generated programs: one per key and value type pair
/// that compilers use (symbol tables from names, tables by number, sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MapTy {
    /// `{i64: i64}`
    IntInt,
    /// `{str: i64}`: an environment from names.
    StrInt,
    /// `{i64: str}`
    IntStr,
    /// `{i64: bool}`: a set of integers.
    IntBool,
    /// `{E1: i64}`: a table by enum value.
    EnumInt,
}

const MAP_TYPES: [MapTy; 5] = [
    MapTy::IntInt,
    MapTy::StrInt,
    MapTy::IntStr,
    MapTy::IntBool,
    MapTy::EnumInt,
];

impl MapTy {
    fn key(self) -> DTy {
        match self {
            MapTy::IntInt | MapTy::IntStr | MapTy::IntBool => DTy::Int,
            MapTy::StrInt => DTy::Str,
            MapTy::EnumInt => DTy::En(1),
        }
    }

    fn value(self) -> DTy {
        match self {
            MapTy::IntInt | MapTy::StrInt | MapTy::EnumInt => DTy::Int,
            MapTy::IntStr => DTy::Str,
            MapTy::IntBool => DTy::Bool,
        }
    }
}

/// The enums of every generated program: name and variants.
const ENUMS: [(&str, &[&str]); 2] = [("E0", &["A", "B", "C"]), ("E1", &["P", "Q"])];

/// String constants (`é` is two bytes, so byte offsets matter).
const STRINGS: [&str; 5] = ["", "a", "bc", "é", "ab"];

struct RecordDef {
    name: String,
    fields: Vec<(String, DTy)>,
}

struct ChildDef {
    name: String,
    ty: usize,
    list: bool,
}

struct TypeDef {
    name: String,
    parent: Option<usize>,
    is_abstract: bool,
    /// No child fields, not even inherited ones.
    leaf: bool,
    data: Vec<(String, DTy, Option<String>)>,
    /// Data fields no statement reads or writes (what a pass carries
    /// through untouched, like a name or a comment), with defaults: the
    /// code generator stores them out of line (cold fields).
    notes: Vec<(String, DTy, Option<String>)>,
    children: Vec<ChildDef>,
    family: usize,
}

struct MethodDef {
    name: String,
    params: Vec<(String, DTy)>,
    decl: usize,
    /// Calls on `self` only go to traversals of lower order.
    order: usize,
}

/// A node path in a body: its text and static type.
#[derive(Clone)]
struct NodeP {
    text: String,
    ty: usize,
    /// Child-field names from the root, for overlap checks.
    fields: Vec<String>,
    root: String,
    /// Whether the path contains an unguarded cast.
    risky: bool,
}

#[derive(Default, Clone)]
struct Ctx {
    ty: usize,
    order: usize,
    locals: Vec<(String, DTy)>,
    aliases: Vec<(String, usize)>,
    /// Casts known to succeed here (the guard of an enclosing `if`): text
    /// and type.
    casts: Vec<(String, usize)>,
    loopvar: Option<(String, usize)>,
    child_calls: u32,
    self_calls: u32,
    /// Inside a `while` body: calls go to lower-order traversals only
    /// (see `loops.rs`).
    in_while: bool,
    /// `scr` (see [`Gen::scratch`]) may be read here: the traversal wrote
    /// it first (or, in a loose program, anywhere).
    scratch_readable: bool,
}

/// The generator state.
pub struct Gen {
    rng: ChaCha8Rng,
    cfg: GenConfig,
    records: Vec<RecordDef>,
    globals: Vec<(String, DTy, String)>,
    types: Vec<TypeDef>,
    methods: Vec<MethodDef>,
    fuel: bool,
    /// A commutative counter global `cnt` (or `cflag`) updated by one class of
    /// commutative update, if the program has one.
    counter: Option<CounterKind>,
    /// With [`GenConfig::private_globals`], sometimes a global `scr: i64`
    /// that a traversal reads only after writing it whole (its first
    /// statement, `scr = e;`): a write-first global, which parallel loops
    /// keep private to each worker. Other traversals may write it but not
    /// read it, unless the program is `scratch_loose`.
    scratch: bool,
    /// `scr` is readable everywhere: the fuser must keep the loops whose
    /// iterations read it before writing it in list order.
    scratch_loose: bool,
    /// With [`GenConfig::private_globals`], in one program in two: no
    /// statement replaces its receiver (`self = ..`, thickets), since
    /// a loop whose element may be replaced stays in order, so that
    /// more of these programs' loops run in parallel.
    keep_elements: bool,
    fresh: usize,
    /// Risky constructs (unguarded casts, divisions, indexing) still
    /// allowed in this program.
    risk_left: u32,
    /// Per child slot (name, static type): whether calls on it are made
    /// under a test of the child's type, decided at the slot's first call
    /// so that every traversal calling it agrees.
    guarded_slots: std::collections::BTreeMap<(String, usize), bool>,
    /// Array built-ins, list inserts and removes, and pure functions over
    /// nodes (LANGUAGE §8.5, §8.8), in some programs (`gen/arrays.rs`).
    ext: Option<arrays::Ext>,
    /// Where `while` loops go (LANGUAGE §8.6, `loops.rs`): a generator of
    /// its own, so programs without loops are what their seeds gave before.
    loop_rng: ChaCha8Rng,
}

const DATA_NAMES: &[&str] = &["x", "y", "z", "w", "r", "s", "arr", "ok", "q", "u"];
const CHILD_NAMES: &[&str] = &["c", "d", "e", "l", "rt", "kids", "items", "nx"];

/// Generates a random well-typed program from a seed.
pub fn generate(seed: u64) -> String {
    generate_with(seed, &GenConfig::default())
}

/// Generates a random well-typed program with the given knobs.
pub fn generate_with(seed: u64, cfg: &GenConfig) -> String {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
        cfg: cfg.clone(),
        records: Vec::new(),
        globals: Vec::new(),
        types: Vec::new(),
        methods: Vec::new(),
        fuel: false,
        counter: None,
        scratch: false,
        scratch_loose: false,
        keep_elements: false,
        fresh: 0,
        risk_left: 0,
        guarded_slots: Default::default(),
        loop_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6c6f_6f70_735f_7631),
        ext: None,
    };
    g.schema();
    g.notes(seed);
    g.ext_setup(seed);
    let mut program = g.emit();
    program.push_str(&walks::part(seed));
    program
}

impl Gen {
    /// In one program in two, gives one or two types a field that no
    /// statement touches (`note0: str`, ..). Drawn from a generator of its
    /// own, so that every other part of the program is what the seed gave
    /// before notes existed.
    fn notes(&mut self, seed: u64) {
        let main = std::mem::replace(
            &mut self.rng,
            ChaCha8Rng::seed_from_u64(seed ^ 0x6e6f_7465_735f_7631),
        );
        if self.chance(2) {
            for i in 0..1 + self.below(2) {
                let t = self.below(self.types.len() as u32) as usize;
                let ty = match self.below(4) {
                    0 => DTy::Arr,
                    1 => DTy::Rec(0),
                    2 => DTy::Map(self.pick(&MAP_TYPES)),
                    _ => DTy::Str,
                };
                let default = self.chance(2).then(|| self.const_value(ty));
                self.types[t].notes.push((format!("note{i}"), ty, default));
            }
        }
        self.rng = main;
    }

    fn below(&mut self, n: u32) -> u32 {
        self.rng.gen_range(0..n)
    }

    fn chance(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.rng.gen_range(0..xs.len())].clone()
    }

    /// Whether to emit a construct that may fail at run time here.
    fn risky(&mut self) -> bool {
        if self.risk_left > 0 && self.chance(self.cfg.risk) {
            self.risk_left -= 1;
            true
        } else {
            false
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    // ----- schema queries -------------------------------------------

    fn ancestors(&self, t: usize) -> Vec<usize> {
        let mut v = vec![t];
        let mut cur = t;
        while let Some(p) = self.types[cur].parent {
            v.push(p);
            cur = p;
        }
        v
    }

    fn is_subtype(&self, a: usize, b: usize) -> bool {
        self.ancestors(a).contains(&b)
    }

    fn all_data(&self, t: usize) -> Vec<(String, DTy)> {
        let mut v = Vec::new();
        for a in self.ancestors(t).into_iter().rev() {
            for (n, d, _) in &self.types[a].data {
                v.push((n.clone(), *d));
            }
        }
        v
    }

    /// Inherited and own children: (name, type, list).
    fn all_children(&self, t: usize) -> Vec<(String, usize, bool)> {
        let mut v = Vec::new();
        for a in self.ancestors(t).into_iter().rev() {
            for c in &self.types[a].children {
                v.push((c.name.clone(), c.ty, c.list));
            }
        }
        v
    }

    fn singles(&self, t: usize) -> Vec<(String, usize)> {
        self.all_children(t)
            .into_iter()
            .filter(|c| !c.2)
            .map(|c| (c.0, c.1))
            .collect()
    }

    fn lists(&self, t: usize) -> Vec<(String, usize)> {
        self.all_children(t)
            .into_iter()
            .filter(|c| c.2)
            .map(|c| (c.0, c.1))
            .collect()
    }

    /// Types strictly below `t`.
    fn strict_subtypes(&self, t: usize) -> Vec<usize> {
        (0..self.types.len())
            .filter(|&s| s != t && self.is_subtype(s, t))
            .collect()
    }

    fn concrete_below(&self, t: usize) -> Vec<usize> {
        (0..self.types.len())
            .filter(|&s| !self.types[s].is_abstract && self.is_subtype(s, t))
            .collect()
    }

    /// The type a guarded call on a child of static type `t` tests: the
    /// first concrete type below `t` (itself included) that has no
    /// concrete strict subtype, or none when that is `t` itself (the test
    /// would prove nothing new).
    fn proven_target(&self, t: usize) -> Option<usize> {
        self.concrete_below(t)
            .into_iter()
            .find(|&s| s != t && self.concrete_below(s).into_iter().all(|below| below == s))
    }

    fn leaves_below(&self, t: usize) -> Vec<usize> {
        self.concrete_below(t)
            .into_iter()
            .filter(|&s| self.types[s].leaf)
            .collect()
    }

    fn visible_methods(&self, t: usize) -> Vec<usize> {
        let anc = self.ancestors(t);
        (0..self.methods.len())
            .filter(|&m| anc.contains(&self.methods[m].decl))
            .collect()
    }

    fn depth_of(&self, t: usize) -> usize {
        self.ancestors(t).len()
    }

    // ----- schema -----------------------------------------------------

    fn data_type(&mut self) -> DTy {
        match self.below(13) {
            0..=4 => DTy::Int,
            5 | 6 => DTy::Bool,
            7 | 8 if !self.records.is_empty() => {
                let r = self.below(self.records.len() as u32) as usize;
                DTy::Rec(r)
            }
            7 | 8 => DTy::Int,
            9 => DTy::Arr,
            10 => DTy::Str,
            11 => DTy::En(self.below(ENUMS.len() as u32) as usize),
            _ => DTy::Map(self.pick(&MAP_TYPES)),
        }
    }

    fn const_value(&mut self, t: DTy) -> String {
        match t {
            DTy::Int => format!("{}", self.rng.gen_range(-3..10)),
            DTy::Bool => (if self.chance(2) { "true" } else { "false" }).into(),
            DTy::Arr => {
                let n = self.below(4);
                let items: Vec<String> = (0..n)
                    .map(|_| format!("{}", self.rng.gen_range(-2..6)))
                    .collect();
                format!("[{}]", items.join(", "))
            }
            DTy::Rec(r) => {
                let fields = self.records[r].fields.clone();
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(n, t)| format!("{n}: {}", self.const_value(*t)))
                    .collect();
                format!("{} {{ {} }}", self.records[r].name, parts.join(", "))
            }
            DTy::Str => format!("{:?}", self.pick(&STRINGS)),
            DTy::En(e) => {
                let (name, variants) = ENUMS[e];
                format!("{name}::{}", self.pick(variants))
            }
            DTy::Map(mt) => {
                // Distinct constant keys (a repeated one is a compile error).
                // At least one, so that the value types itself without a
                // context (`{}` needs one).
                let n = 1 + self.below(3);
                let mut keys: Vec<String> = (0..n).map(|_| self.const_value(mt.key())).collect();
                keys.sort_unstable();
                keys.dedup();
                let parts: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{k}: {}", self.const_value(mt.value())))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    fn type_text(&self, t: DTy) -> String {
        match t {
            DTy::Int => "i64".into(),
            DTy::Bool => "bool".into(),
            DTy::Arr => "[i64]".into(),
            DTy::Rec(r) => self.records[r].name.clone(),
            DTy::Str => "str".into(),
            DTy::En(e) => ENUMS[e].0.into(),
            DTy::Map(mt) => format!(
                "{{{}: {}}}",
                self.type_text(mt.key()),
                self.type_text(mt.value())
            ),
        }
    }

    fn schema(&mut self) {
        // Records.
        self.records.push(RecordDef {
            name: "R0".into(),
            fields: vec![("a".into(), DTy::Int), ("b".into(), DTy::Bool)],
        });
        if self.chance(2) {
            self.records.push(RecordDef {
                name: "R1".into(),
                fields: vec![("p".into(), DTy::Rec(0)), ("n".into(), DTy::Int)],
            });
        }
        if self.chance(2) {
            // A scope: an environment and a depth, as a compiler keeps them.
            let name = format!("R{}", self.records.len());
            self.records.push(RecordDef {
                name,
                fields: vec![
                    ("env".into(), DTy::Map(MapTy::StrInt)),
                    ("d".into(), DTy::Int),
                ],
            });
        }
        // Globals.
        let init = self.const_value(DTy::Int);
        self.globals.push(("g0".into(), DTy::Int, init));
        for i in 1..=self.below(3) {
            let t = self.data_type();
            let init = self.const_value(t);
            self.globals.push((format!("g{i}"), t, init));
        }
        self.fuel = self.chance(2) && !self.cfg.private_globals;
        if self.cfg.private_globals {
            self.scratch = self.chance(2);
            self.scratch_loose = self.scratch && self.chance(6);
            self.keep_elements = self.chance(2);
        }
        self.counter = match self.below(6) {
            0 => Some(CounterKind::Sum),
            1 => Some(CounterKind::Max),
            2 => Some(CounterKind::Or),
            _ if self.cfg.private_globals => Some(CounterKind::Sum),
            _ => None,
        };
        self.risk_left = self.below(4);
        // Families of tree types.
        let families = if self.chance(3) { 2 } else { 1 };
        for f in 0..families {
            self.family(f);
        }
        // Children, once every type exists.
        for t in 0..self.types.len() {
            self.children_of(t);
        }
        // Traversals.
        let mut order = 0;
        for f in 0..families {
            let base = self.types.iter().position(|t| t.family == f).unwrap_or(0);
            let n = 2 + self.below(4);
            for i in 0..n {
                let params = self.params();
                self.methods.push(MethodDef {
                    name: format!("f{i}"),
                    params,
                    decl: base,
                    order,
                });
                order += 1;
            }
        }
        // A few traversals declared below the base.
        for t in 0..self.types.len() {
            if self.types[t].parent.is_some() && self.chance(6) {
                let params = self.params();
                let name = self.fresh("h");
                self.methods.push(MethodDef {
                    name,
                    params,
                    decl: t,
                    order,
                });
                order += 1;
            }
        }
    }

    fn params(&mut self) -> Vec<(String, DTy)> {
        let n = self.below(3);
        (0..n)
            .map(|i| {
                let t = match self.below(8) {
                    0 => DTy::Bool,
                    1 => DTy::Rec(0),
                    // Environments passed down the tree.
                    2 => DTy::Map(if self.chance(2) {
                        MapTy::StrInt
                    } else {
                        self.pick(&MAP_TYPES)
                    }),
                    3 if self.chance(2) => DTy::Str,
                    _ => DTy::Int,
                };
                (format!("a{i}"), t)
            })
            .collect()
    }

    fn family(&mut self, f: usize) {
        let base = self.types.len();
        let fname = ["A", "B"][f];
        self.types.push(TypeDef {
            name: fname.into(),
            parent: None,
            is_abstract: true,
            leaf: false,
            data: Vec::new(),
            notes: Vec::new(),
            children: Vec::new(),
            family: f,
        });
        let k = 1 + self.below(2) as usize;
        self.own_data(base, k);
        // The first concrete subtype is a leaf, so trees are finite.
        let n = 2 + self.below(4);
        for i in 0..n {
            let members: Vec<usize> = (base..self.types.len())
                .filter(|&t| self.depth_of(t) < 3)
                .collect();
            let parent = if i == 0 { base } else { self.pick(&members) };
            let is_abstract = i > 0 && self.chance(4);
            let leaf = i == 0 || (!is_abstract && self.chance(8));
            let t = self.types.len();
            self.types.push(TypeDef {
                name: format!("{fname}{}", i + 1),
                parent: Some(parent),
                is_abstract,
                leaf,
                data: Vec::new(),
                notes: Vec::new(),
                children: Vec::new(),
                family: f,
            });
            let k = self.below(3) as usize;
            self.own_data(t, k);
        }
        // Every abstract type needs a concrete leaf below it; a leaf's
        // ancestors may have no children (they are marked non-leaf but
        // childless below via `leaf_ancestor`).
        for t in base..self.types.len() {
            if self.types[t].is_abstract && self.leaves_below(t).is_empty() {
                let nt = self.types.len();
                self.types.push(TypeDef {
                    name: format!("{fname}{}", nt - base + 1),
                    parent: Some(t),
                    is_abstract: false,
                    leaf: true,
                    data: Vec::new(),
                    notes: Vec::new(),
                    children: Vec::new(),
                    family: f,
                });
            }
        }
    }

    fn own_data(&mut self, t: usize, n: usize) {
        let used: Vec<String> = self
            .all_data(t)
            .into_iter()
            .map(|(n, _)| n)
            .chain(self.all_children(t).into_iter().map(|c| c.0))
            .collect();
        let mut free: Vec<&str> = DATA_NAMES
            .iter()
            .copied()
            .filter(|n| !used.iter().any(|u| u == n))
            .collect();
        for _ in 0..n {
            if free.is_empty() {
                break;
            }
            let i = self.below(free.len() as u32) as usize;
            let name = free.remove(i).to_string();
            let ty = if name == "arr" {
                DTy::Arr
            } else {
                self.data_type()
            };
            let default = if self.chance(3) {
                Some(self.const_value(ty))
            } else {
                None
            };
            self.types[t].data.push((name, ty, default));
        }
    }

    /// Whether some leaf lies below `t` (then `t` may have no children).
    fn has_leaf_descendant(&self, t: usize) -> bool {
        (0..self.types.len()).any(|s| self.types[s].leaf && self.is_subtype(s, t))
    }

    fn children_of(&mut self, t: usize) {
        if self.has_leaf_descendant(t) || self.types[t].parent.is_none() {
            return;
        }
        // Child types: abstract types (with a leaf below) or leaf types.
        let targets: Vec<usize> = (0..self.types.len())
            .filter(|&s| self.types[s].is_abstract || self.types[s].leaf)
            .collect();
        let used: Vec<String> = self
            .all_data(t)
            .into_iter()
            .map(|(n, _)| n)
            .chain(self.all_children(t).into_iter().map(|c| c.0))
            .collect();
        let mut free: Vec<&str> = CHILD_NAMES
            .iter()
            .copied()
            .filter(|n| !used.iter().any(|u| u == n))
            .collect();
        let singles = if self.types[t].is_abstract {
            self.below(2)
        } else {
            1 + self.below(2)
        };
        let list = self.chance(3);
        let singles = if list && self.chance(3) { 0 } else { singles };
        for k in 0..singles + u32::from(list) {
            if free.is_empty() {
                break;
            }
            let i = self.below(free.len() as u32) as usize;
            let name = free.remove(i).to_string();
            // Mostly the own family's base.
            let fam_base = self
                .types
                .iter()
                .position(|x| x.family == self.types[t].family)
                .unwrap_or(0);
            let ty = if self.chance(2) {
                fam_base
            } else {
                self.pick(&targets)
            };
            self.types[t].children.push(ChildDef {
                name,
                ty,
                list: list && k == singles,
            });
        }
    }

    // ----- emission ---------------------------------------------------

    #[allow(clippy::needless_range_loop)] // indices are type and method ids
    fn emit(&mut self) -> String {
        let mut out = String::new();
        for (name, variants) in ENUMS {
            out.push_str(&format!("enum {name} {{ {} }}\n", variants.join(", ")));
        }
        for r in &self.records {
            let fs: Vec<String> = r
                .fields
                .iter()
                .map(|(n, t)| format!("{n}: {}", self.type_text(*t)))
                .collect();
            out.push_str(&format!("record {} {{ {} }}\n", r.name, fs.join(", ")));
        }
        for (n, t, init) in &self.globals {
            out.push_str(&format!("global {n}: {} = {init};\n", self.type_text(*t)));
        }
        if self.fuel {
            let f = 1 + self.below(3);
            out.push_str(&format!("global fuel: i64 = {f};\n"));
        }
        if self.scratch {
            out.push_str("global scr: i64 = 0;\n");
        }
        match self.counter {
            Some(CounterKind::Or) => out.push_str("global cflag: bool = false;\n"),
            Some(_) => out.push_str("global cnt: i64 = 0;\n"),
            None => {}
        }
        out.push_str("pure fn pf0(a: i64, b: i64) -> i64 = (a * 3 + b) % 7;\n");
        out.push_str(
            "pure fn pf1(a: i64, b: i64) -> i64 {\n    if a > 5 {\n        return b / (a - 6);\n    }\n    let s: i64 = a;\n    for i in 0..2 {\n        s = s + b * i;\n    }\n    return s;\n}\n",
        );
        out.push_str("pure fn pf2(r: R0) -> i64 = if r.b { r.a } else { -r.a };\n");
        // Array parameters: `pf3` only reads its array (generated Rust lends
        // it as a slice and loops over it in place), `pf4` assigns its
        // parameter and the local it loops over (copies) and lends a local.
        out.push_str(
            "pure fn pf3(xs: [i64], k: i64) -> i64 {\n    let s: i64 = k;\n    for x in xs {\n        s = s * 3 + x;\n    }\n    if len(xs) > 1 {\n        s = s + xs[1];\n    }\n    return s;\n}\n",
        );
        out.push_str(
            "pure fn pf4(xs: [i64], k: i64) -> i64 {\n    let ys: [i64] = xs;\n    for y in ys {\n        ys = [y + k, y];\n        k = k + y;\n    }\n    xs = ys;\n    return k + len(xs) + pf3(ys, k);\n}\n",
        );
        out.push_str(&self.ext_items());

        // Bodies: decide which types define which traversals.
        let nt = self.types.len();
        let nm = self.methods.len();
        let mut has_body = vec![vec![false; nm]; nt];
        for t in 0..nt {
            for m in self.visible_methods(t) {
                let declared_here = self.methods[m].decl == t;
                has_body[t][m] = if declared_here {
                    !(self.types[t].is_abstract && self.chance(4))
                } else {
                    self.chance(2)
                };
            }
        }
        // Traversals without a body: every concrete type below must get
        // one somewhere on its way up.
        for m in 0..nm {
            let d = self.methods[m].decl;
            if has_body[d][m] {
                continue;
            }
            for c in self.concrete_below(d) {
                let covered = self
                    .ancestors(c)
                    .into_iter()
                    .take_while(|&a| a != d)
                    .any(|a| has_body[a][m]);
                if !covered {
                    has_body[c][m] = true;
                }
            }
        }
        for t in 0..nt {
            let td = &self.types[t];
            let head = match td.parent {
                Some(p) => format!(
                    "{}tree {} : {} {{\n",
                    if td.is_abstract { "abstract " } else { "" },
                    td.name,
                    self.types[p].name
                ),
                None => format!("abstract tree {} {{\n", td.name),
            };
            out.push_str(&head);
            for c in &td.children {
                let tn = &self.types[c.ty].name;
                if c.list {
                    out.push_str(&format!("    child {}: [{tn}];\n", c.name));
                } else {
                    out.push_str(&format!("    child {}: {tn};\n", c.name));
                }
            }
            for (n, dt, def) in td.data.iter().chain(&td.notes) {
                match def {
                    Some(d) => out.push_str(&format!("    {n}: {} = {d};\n", self.type_text(*dt))),
                    None => out.push_str(&format!("    {n}: {};\n", self.type_text(*dt))),
                }
            }
            for m in self.visible_methods(t) {
                let declared_here = self.methods[m].decl == t;
                if !declared_here && !has_body[t][m] {
                    continue;
                }
                let sig = self.signature(m);
                if !has_body[t][m] {
                    out.push_str(&format!("    traversal {sig};\n"));
                    continue;
                }
                let body = self.body(t, m);
                if body.is_empty() {
                    out.push_str(&format!("    traversal {sig} {{}}\n"));
                } else {
                    out.push_str(&format!("    traversal {sig} {{\n"));
                    for l in body {
                        out.push_str("        ");
                        out.push_str(&l);
                        out.push('\n');
                    }
                    out.push_str("    }\n");
                }
            }
            out.push_str("}\n");
        }
        // Fuse items.
        let families: Vec<usize> = (0..nt)
            .filter(|&t| self.types[t].parent.is_none())
            .collect();
        let nf = 1 + self.below(2);
        for i in 0..nf {
            let root = self.pick(&families);
            let ms: Vec<usize> = (0..nm).filter(|&m| self.methods[m].decl == root).collect();
            let n = 2 + self.below(5);
            // Sometimes an extra parameter, used in arguments.
            let lim = self.chance(4);
            out.push_str(&format!(
                "fuse main{i}(root: {}{}) {{\n",
                self.types[root].name,
                if lim { ", lim: i64" } else { "" }
            ));
            // Sometimes a `while` loop (LANGUAGE §7.7) around some of the
            // calls, counting in `g0` or stopped only by its limit, and
            // global assignments between calls.
            let looped = if self.chance(3) {
                let from = self.below(n);
                Some((from, from + 1 + self.below(n - from)))
            } else {
                None
            };
            let mut breaks = false;
            for k in 0..n {
                let mut pad = "    ";
                if let Some((from, to)) = looped {
                    if k == from {
                        let limit = 1 + self.below(4);
                        let cond = match self.below(3) {
                            0 => format!("g0 < {}", self.below(8)),
                            1 => "true".to_string(),
                            _ => format!("g0 != {}", self.below(4)),
                        };
                        // A limit expression, and a `break;` ending the
                        // body (LANGUAGE §8.6), from `loops.rs`.
                        let (limit, brk) = self.fuse_loop_extras(limit, lim);
                        breaks = brk;
                        out.push_str(&format!("    while {cond} limit {limit} {{\n"));
                        if self.chance(2) {
                            out.push_str("        g0 = g0 + 1;\n");
                        }
                    }
                    if (from..to).contains(&k) {
                        pad = "        ";
                    }
                }
                if self.chance(6) {
                    let (g, t, _) = self.pick(&self.globals.clone());
                    let value = if t == DTy::Int && self.chance(2) {
                        format!("{g} + {}", self.below(3))
                    } else {
                        self.const_value(t)
                    };
                    out.push_str(&format!("{pad}{g} = {value};\n"));
                }
                let m = self.pick(&ms);
                let args: Vec<String> = self.methods[m]
                    .params
                    .clone()
                    .iter()
                    .map(|(_, t)| {
                        if lim && *t == DTy::Int && self.chance(2) {
                            "lim".to_string()
                        } else {
                            self.fuse_arg(*t)
                        }
                    })
                    .collect();
                out.push_str(&format!(
                    "{pad}root.{}({});\n",
                    self.methods[m].name,
                    args.join(", ")
                ));
                if looped.is_some_and(|(_, to)| k + 1 == to) {
                    if breaks {
                        out.push_str("        break;\n");
                    }
                    out.push_str("    }\n");
                }
            }
            out.push_str("}\n");
        }
        if self.chance(TYPED_LOOPS_ONE_IN) {
            out.push_str(&self.typed_loops());
        }
        if self.chance(SPLIT_LOOPS_ONE_IN) {
            out.push_str(&self.split_loops());
        }
        if self.chance(TYPED_CHILD_ONE_IN) {
            out.push_str(&self.typed_child());
        }
        if self.chance(OPTIONAL_ONE_IN) {
            out.push_str(&crate::optional::part(&mut self.rng));
        }
        out
    }

    /// A self-contained part of the program (types `Tc*`, global `tcg`,
    /// `fuse tcmain`) with the shape of type-guarded calls on a child
    /// (`FusedFunction::typed_child` in `treefuse-fusion`): two passes call
    /// the child `s` of a `TcList` under type tests, and between the
    /// calls, in unfused order, a statement tests the type of `s` and may
    /// replace it (`if self.s is TcQ { self.s = new .. }`), the shape of
    /// the AST case study's desugaring passes. Each piece varies: the
    /// calls' guards and arguments, whether a call may replace the child
    /// (which rules the split out) or fail, what the statement between
    /// tests, whether it replaces `s` (by a node of the type the later call
    /// tests, or not), returns or writes a global, the list's recursion and
    /// the order of the passes.
    fn typed_child(&mut self) -> String {
        let a_p = self.pick(&[
            "self.v = self.v + k;",
            "self.v = self.v + k;",
            "self.v = self.v * 2 + k;",
            "self.v = self.v + 12 / (k - 1);",
            "self = new TcQ { w: self.v + k };",
        ]);
        let b_p = self.pick(&[
            "self.v = self.v * 3 + d;",
            "self.v = self.v * 3 + d;",
            "self.v = 100 / (self.v - 2);",
            "tcg = tcg + self.v;",
        ]);
        let b_q = self.pick(&["self.w = self.w * 2 + d;", "self.w = self.w + tcg;", ""]);
        let call_a = self.pick(&[
            "if self.s is TcIf { self.s.tca(k); }",
            "if self.s is TcIf { self.s.tca(k); }",
            "if self.s is TcIf || self.s is TcP { self.s.tca(k); }",
            "if self.s is TcQ { self.s.tca(k + self.sum); }",
            "self.s.tca(k);",
        ]);
        let between = self.pick(&[
            "if self.s is TcQ { self.s = new TcP { v: (self.s as TcQ).w }; }",
            "if self.s is TcQ { self.s = new TcP { v: (self.s as TcQ).w }; }",
            "if self.s is TcQ { let z: i64 = (self.s as TcQ).w; self.s = new TcIf { a: new TcP { v: z }, b: new TcQ { w: 1 } }; }",
            "if self.s is TcP && (self.s as TcP).v > 2 { self.s = new TcQ { w: 3 }; }",
            "if !(self.s is TcIf) { self.s = new TcP { v: 1 }; }",
            "if self.s is TcQ || self.s is TcP { tcg = tcg + 1; self.s = new TcQ { w: tcg }; }",
            "if self.s is TcP { self.sum = self.sum + (self.s as TcP).v; }",
            "if self.s is TcR { return; }",
            "if self.s is TcP { tcg = tcg + 10 / (self.s as TcP).v; }",
            "self.s = new TcP { v: 2 };",
        ]);
        let call_b = self.pick(&[
            "if self.s is TcIf { self.s.tcb(d); }",
            "if self.s is TcIf { self.s.tcb(d); }",
            "if self.s is TcIf || self.s is TcQ { self.s.tcb(d); }",
            "if self.s is TcP { self.s.tcb(d + self.sum); }",
            "self.s.tcb(d);",
        ]);
        let before_b = self.pick(&[
            "",
            "",
            "if self.s is TcQ { self.s = new TcIf { a: new TcQ { w: d }, b: new TcP { v: d } }; }",
            "self.sum = self.sum + d;",
        ]);
        let next_a = self.pick(&["self.next.tca(k);", "self.next.tca(k + 1);", ""]);
        let next_b = self.pick(&["self.next.tcb(d);", "self.next.tcb(d);", ""]);
        let calls = self.pick(&[
            "root.tca(1); root.tcb(2);",
            "root.tca(1); root.tcb(2);",
            "root.tcb(1); root.tca(2);",
            "root.tca(2); root.tcb(3); root.tca(1);",
        ]);
        let lines = [
            "global tcg: i64 = 0;".to_string(),
            "abstract tree TcS {".into(),
            "    traversal tca(k: i64) {}".into(),
            "    traversal tcb(d: i64) {}".into(),
            "}".into(),
            "tree TcP : TcS {".into(),
            "    v: i64;".into(),
            format!("    traversal tca(k: i64) {{ {a_p} }}"),
            format!("    traversal tcb(d: i64) {{ {b_p} }}"),
            "}".into(),
            "tree TcQ : TcS {".into(),
            "    w: i64;".into(),
            "    traversal tca(k: i64) { self.w = self.w + k; }".into(),
            format!("    traversal tcb(d: i64) {{ {b_q} }}"),
            "}".into(),
            "tree TcR : TcQ {}".into(),
            "tree TcIf : TcS {".into(),
            "    child a: TcS;".into(),
            "    child b: TcS;".into(),
            "    traversal tca(k: i64) { self.a.tca(k); self.b.tca(k); }".into(),
            "    traversal tcb(d: i64) { self.b.tcb(d); self.a.tcb(d); }".into(),
            "}".into(),
            "tree TcList : TcS {".into(),
            "    child s: TcS;".into(),
            "    child next: TcS;".into(),
            "    sum: i64;".into(),
            format!("    traversal tca(k: i64) {{ {call_a} {between} {next_a} }}"),
            format!("    traversal tcb(d: i64) {{ {before_b} {call_b} {next_b} }}"),
            "}".into(),
            format!("fuse tcmain(root: TcList) {{ {calls} }}"),
        ];
        let mut out = String::new();
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// A self-contained part of the program (types `Sp*`, global `spg`,
    /// `fuse spmain`) with the shape of split calls (`SplitCall` in
    /// `treefuse-fusion`): a pass `spp` calls each statement of a list and
    /// then reads (or replaces) the root of a `SpLet`'s initializer, and a
    /// parameterless pass `spf` that folds post-order (children first, the
    /// node replaced last) runs next, so the fuser may run `spf`'s head with
    /// `spp` and its tail after the read. Each piece varies: what `spp` does
    /// on a variable (replace it, count it), the fold's order and failures,
    /// what `SpLet.spf` does around its call, the read (of the root, below
    /// it, a replacement of the root, an unguarded cast that may fail) and
    /// the order of the passes.
    fn split_loops(&mut self) -> String {
        let var_p = self.pick(&[
            "if self.v > 100 { self = new SpLit { v: self.v - 100 }; }",
            "if self.v > 100 { self = new SpLit { v: self.v - 100 }; }",
            "spg = spg + self.v;",
            "",
        ]);
        let fold_add = "self = new SpLit { v: (self.l as SpLit).v + (self.r as SpLit).v };";
        let add_f = self.pick(&[
            format!("self.l.spf(); self.r.spf(); if self.l is SpLit && self.r is SpLit {{ {fold_add} }}"),
            format!("self.l.spf(); self.r.spf(); if self.l is SpLit && self.r is SpLit {{ {fold_add} }}"),
            "self.l.spf(); self.r.spf(); if self.l is SpLit && self.r is SpLit { self = new SpLit { v: 100 / (self.l as SpLit).v }; }".to_string(),
            format!("if self.l is SpLit && self.r is SpLit {{ {fold_add} }} self.l.spf(); self.r.spf();"),
            "self.l.spf(); self.r.spf(); spg = spg + 1; if self.l is SpLit { self = self.r; }".to_string(),
            "self.l.spf(); self.r.spf();".to_string(),
        ]);
        let let_f = self.pick(&[
            "self.init.spf();",
            "self.init.spf();",
            "self.init.spf();",
            "self.init.spf(); spg = spg * 2;",
            "spg = spg + 1; self.init.spf();",
        ]);
        let read = self.pick(&[
            "if s is SpLet && (s as SpLet).init is SpLit { self.seen = self.seen * 10 + ((s as SpLet).init as SpLit).v; }",
            "if s is SpLet && (s as SpLet).init is SpLit { self.seen = self.seen * 10 + ((s as SpLet).init as SpLit).v; }",
            "if s is SpLet && (s as SpLet).init is SpLit { self.seen = self.seen * 10 + ((s as SpLet).init as SpLit).v; }",
            "if s is SpLet && (s as SpLet).init is SpAdd && ((s as SpLet).init as SpAdd).l is SpLit { self.seen = self.seen + 1; }",
            "if s is SpLet && (s as SpLet).init is SpVar { (s as SpLet).init = new SpLit { v: 9 }; }",
            "if s is SpLet { self.seen = self.seen + 100 / ((s as SpLet).init as SpLit).v; }",
            "self.seen = self.seen + 1;",
        ]);
        let calls = self.pick(&[
            "root.spp(); root.spf();",
            "root.spp(); root.spf();",
            "root.spp(); root.spf();",
            "root.spf(); root.spp(); root.spf();",
            "root.spp(); spg = spg + 1; root.spf();",
        ]);
        let lines = [
            "global spg: i64 = 0;".to_string(),
            "abstract tree SpE {".into(),
            "    traversal spp() {}".into(),
            "    traversal spf() {}".into(),
            "}".into(),
            "tree SpLit : SpE {".into(),
            "    v: i64;".into(),
            "}".into(),
            "tree SpVar : SpE {".into(),
            "    v: i64;".into(),
            format!("    traversal spp() {{ {var_p} }}"),
            "}".into(),
            "tree SpAdd : SpE {".into(),
            "    child l: SpE;".into(),
            "    child r: SpE;".into(),
            "    traversal spp() { self.l.spp(); self.r.spp(); }".into(),
            format!("    traversal spf() {{ {add_f} }}"),
            "}".into(),
            "abstract tree SpS {".into(),
            "    traversal spp() {}".into(),
            "    traversal spf() {}".into(),
            "}".into(),
            "tree SpLet : SpS {".into(),
            "    child init: SpE;".into(),
            "    traversal spp() { self.init.spp(); }".into(),
            format!("    traversal spf() {{ {let_f} }}"),
            "}".into(),
            "tree SpPrint : SpS {".into(),
            "    child e: SpE;".into(),
            "    traversal spp() { self.e.spp(); }".into(),
            "    traversal spf() { self.e.spf(); }".into(),
            "}".into(),
            "tree SpBlock : SpS {".into(),
            "    child stmts: [SpS];".into(),
            "    seen: i64;".into(),
            format!("    traversal spp() {{ for s in self.stmts {{ s.spp(); {read} }} }}"),
            "    traversal spf() { for s in self.stmts { s.spf(); } }".into(),
            "}".into(),
            format!("fuse spmain(root: SpBlock) {{ {calls} }}"),
        ];
        let mut out = String::new();
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// A self-contained part of the program (types `Tg*`, global `tgg`,
    /// `fuse tgmain`) made so that two passes' loops over one list merge
    /// and a statement `if x is U { .. }` between the calls on the element
    /// keeps them apart only for some element types: the shape of
    /// type-guarded participation (`TypeGuard` in `treefuse-fusion`),
    /// which random bodies almost never produce (their loops seldom
    /// merge). Each piece varies: what the calls write, whether one may
    /// replace the element (by one node, or by a thicket) or fail, which
    /// type is tested and what the guarded statement reads and writes,
    /// unguarded casts, the second loop's shape (calls only, or more: after
    /// `tga` replaced elements by one node each, that loop merges with its
    /// variable rebound to the replacement, `LoopGroup::rebound`) and the
    /// order of the passes.
    fn typed_loops(&mut self) -> String {
        // Repeated entries weigh the shapes that split by type.
        let a_p = self.pick(&[
            "self.v = self.v + k;",
            "self.v = self.v + k;",
            "self.v = self.v * 2 + k;",
            "self.v = self.v * 2 + k;",
            "self.v = self.v + k; if self.v > 3 { self = new TgQ { w: self.v }; }",
            "self.v = self.v + 12 / (k - 1);",
            "if k > 2 { self.v = self.v + 1; }",
            "self = new TgQ { w: self.v + k };",
            "if self.v > 3 { self = []; }",
        ]);
        let b_p = self.pick(&[
            "self.v = self.v * 3 + d;",
            "self.v = self.v * 3 + d;",
            "self.v = 100 / (self.v - 2);",
            "self.v = self.v - d; tgg = tgg + 1;",
            "",
        ]);
        let b_q = self.pick(&[
            "self.w = self.w * 2 + d;",
            "self.w = self.w * 2 + d;",
            "self.w = self.w + tgg;",
            "",
        ]);
        let r_b = self.pick(&[
            "",
            "traversal tgb(d: i64) { self.w = self.w - d; }",
            "traversal tga(k: i64) { self.w = 7; }",
        ]);
        let stmt = self.pick(&[
            "if x is TgP { c = c + (x as TgP).v; }",
            "if x is TgP { c = c + (x as TgP).v; }",
            "if x is TgP { c = c + (x as TgP).v; }",
            "if x is TgQ { c = c + (x as TgQ).w; }",
            "if x is TgQ { c = c + (x as TgQ).w; }",
            "if x is TgR && (x as TgR).w > 1 { self.sum = self.sum + (x as TgR).w; }",
            "if x is TgP { tgg = tgg + 10 / (x as TgP).v; }",
            "if x is TgP && (x as TgP).v != 3 { (x as TgP).v = c; }",
            "if x is TgBlock { c = c + (x as TgBlock).sum; }",
            "c = c + (x as TgQ).w;",
            "if x is TgQ { c = 0; }",
            "if x is TgP { c = c + (x as TgP).v; } else { c = c - 1; }",
        ]);
        let arg = self.pick(&["c", "k", "self.sum", "c + tgg"]);
        let loop_b = self.pick(&[
            "for y in self.stmts { y.tgb(d); }",
            "for y in self.stmts { y.tgb(d); }",
            "let e = d; for y in self.stmts { y.tgb(e); e = e + 1; }",
            "for y in self.stmts { if d > 1 { y.tgb(d); } }",
            "for y in self.stmts { y.tgb(d); if y is TgQ { self.sum = self.sum - (y as TgQ).w; } }",
            "for y in self.stmts { y.tgb(self.sum); }",
            "for y in self.stmts { if y is TgQ { self.sum = self.sum + (y as TgQ).w; } y.tgb(d); }",
            "for y in self.stmts { y.tgb(d); self.sum = self.sum + 1; }",
        ]);
        let calls = self.pick(&[
            "root.tga(1); root.tgb(2);",
            "root.tga(1); root.tgb(2);",
            "root.tga(1); root.tgb(2);",
            "root.tga(2); root.tgb(3); root.tga(1);",
            "root.tgb(1); root.tga(2);",
        ]);
        let after = self.pick(&["self.sum = self.sum + c;", "", "tgg = tgg + c;"]);
        let lines = [
            "global tgg: i64 = 0;".to_string(),
            "abstract tree TgS {".into(),
            "    traversal tga(k: i64) {}".into(),
            "    traversal tgb(d: i64) {}".into(),
            "}".into(),
            "tree TgP : TgS {".into(),
            "    v: i64;".into(),
            format!("    traversal tga(k: i64) {{ {a_p} }}"),
            format!("    traversal tgb(d: i64) {{ {b_p} }}"),
            "}".into(),
            "tree TgQ : TgS {".into(),
            "    w: i64;".into(),
            "    traversal tga(k: i64) { self.w = self.w + k; }".into(),
            format!("    traversal tgb(d: i64) {{ {b_q} }}"),
            "}".into(),
            "tree TgR : TgQ {".into(),
            format!("    {r_b}"),
            "}".into(),
            "tree TgBlock : TgS {".into(),
            "    child stmts: [TgS];".into(),
            "    sum: i64;".into(),
            "    traversal tga(k: i64) {".into(),
            "        let c = 1;".into(),
            "        for x in self.stmts {".into(),
            format!("            x.tga({arg});"),
            format!("            {stmt}"),
            "        }".into(),
            format!("        {after}"),
            "    }".into(),
            format!("    traversal tgb(d: i64) {{ {loop_b} }}"),
            "}".into(),
            format!("fuse tgmain(root: TgBlock) {{ {calls} }}"),
        ];
        let mut out = String::new();
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    fn fuse_arg(&mut self, t: DTy) -> String {
        if t == DTy::Int && self.chance(4) {
            return format!("g0 + {}", self.below(3));
        }
        self.const_value(t)
    }

    fn signature(&self, m: usize) -> String {
        let md = &self.methods[m];
        let ps: Vec<String> = md
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {}", self.type_text(*t)))
            .collect();
        format!("{}({})", md.name, ps.join(", "))
    }

    // ----- bodies -----------------------------------------------------

    fn body(&mut self, t: usize, m: usize) -> Vec<String> {
        let mut cx = Ctx {
            ty: t,
            order: self.methods[m].order,
            locals: self.methods[m].params.clone(),
            ..Ctx::default()
        };
        if self.chance(10) {
            return Vec::new();
        }
        // The usual shape of a tree pass: the traversal recurses on its
        // children, with other work before, between and after.
        let mut rec: Vec<Vec<String>> = Vec::new();
        let params = cx.clone();
        for (c, ct, list) in self.all_children(t) {
            if self.chance(4) {
                continue;
            }
            let vis = self.visible_methods(ct);
            if vis.is_empty() {
                continue;
            }
            let callee = if vis.contains(&m) && !self.chance(4) {
                m
            } else {
                self.pick(&vis)
            };
            let args = self.args(&params, callee);
            let name = self.methods[callee].name.clone();
            if list {
                let x = self.fresh("x");
                let mut lp = vec![
                    format!("for {x} in self.{c} {{"),
                    format!("    {x}.{name}({args});"),
                ];
                // Sometimes a type test of the element after the call,
                // reading through a cast what the call may have written
                // (and another pass's call may change): merged loops then
                // call the element together for the other types.
                let subs = self.strict_subtypes(ct);
                let own = self.data_fields_of(t, Some(DTy::Int));
                if !subs.is_empty() && !own.is_empty() && self.chance(3) {
                    let st = self.pick(&subs);
                    let ints = self.data_fields_of(st, Some(DTy::Int));
                    if !ints.is_empty() {
                        let (f, _) = self.pick(&ints);
                        let (o, _) = self.pick(&own);
                        let sn = self.types[st].name.clone();
                        lp.push(format!("    if {x} is {sn} {{"));
                        lp.push(format!("        self.{o} = self.{o} + ({x} as {sn}).{f};"));
                        lp.push("    }".into());
                    }
                }
                lp.push("}".into());
                rec.push(lp);
            } else {
                rec.push(vec![format!("self.{c}.{name}({args});")]);
            }
        }
        // A traversal that owns `scr` writes it first, then may read it.
        let scratch_first = if self.scratch && self.chance(2) {
            let first = format!("scr = {};", self.expr(&cx, DTy::Int, 2));
            cx.scratch_readable = true;
            Some(first)
        } else {
            None
        };
        let n = 1 + self.below(self.cfg.max_stmts);
        let mut stmts: Vec<Vec<String>> = Vec::new();
        let (nl, na) = (cx.locals.len(), cx.aliases.len());
        for _ in 0..n {
            stmts.push(self.stmt(&mut cx, self.cfg.max_nesting));
            if let Some(extra) = self.ext_stmt(&cx) {
                stmts.push(extra);
            }
        }
        // Traversals that replace a child of their node outright, and
        // traversals that call such a one on `self` (often with reads of
        // the child around the call): the shape where a fused function's
        // early read of a child id would go stale.
        if self.chance(5) {
            if let Some(line) = self.new_leaf_in_first_child(&cx) {
                stmts.push(vec![line]);
            }
        }
        if self.chance(5) {
            if let Some(lines) = self.try_stmt(&mut cx, 0, false, 14) {
                stmts.push(lines);
            }
        }
        cx.locals.truncate(nl);
        cx.aliases.truncate(na);
        for r in rec {
            let at = self.below(stmts.len() as u32 + 1) as usize;
            stmts.insert(at, r);
        }
        let mut out: Vec<String> = stmts.into_iter().flatten().collect();
        if let Some(first) = scratch_first {
            out.insert(0, first);
        }
        if self.chance(12) {
            out.push("return;".into());
        }
        out
    }

    /// A block of `n` statements; locals and aliases it declares go out
    /// of scope at its end.
    fn block(&mut self, cx: &mut Ctx, n: u32, nest: u32) -> Vec<String> {
        let (nl, na, nc) = (cx.locals.len(), cx.aliases.len(), cx.casts.len());
        let mut out = Vec::new();
        for _ in 0..n {
            out.extend(self.stmt(cx, nest));
            if let Some(extra) = self.ext_stmt(cx) {
                out.extend(extra);
            }
        }
        cx.locals.truncate(nl);
        cx.aliases.truncate(na);
        cx.casts.truncate(nc);
        out
    }

    fn indent(lines: Vec<String>) -> Vec<String> {
        lines.into_iter().map(|l| format!("    {l}")).collect()
    }

    /// A node path from some root (self, an alias, the loop variable, a
    /// guarded cast) with `min..=max` further steps.
    fn node_path(&mut self, cx: &Ctx, min: usize, max: usize) -> Option<NodeP> {
        let mut roots: Vec<(String, usize)> = vec![("self".into(), cx.ty)];
        roots.extend(cx.aliases.iter().cloned());
        roots.extend(cx.casts.iter().cloned());
        if let Some(lv) = &cx.loopvar {
            roots.push(lv.clone());
            roots.push(lv.clone());
        }
        let (root, ty) = self.pick(&roots);
        let mut p = NodeP {
            text: root.clone(),
            ty,
            fields: Vec::new(),
            root,
            risky: false,
        };
        let target = min + self.below((max - min + 1) as u32) as usize;
        while p.fields.len() < target {
            let singles = self.singles(p.ty);
            let subs = self.strict_subtypes(p.ty);
            if !subs.is_empty() && self.risky() {
                // An unguarded cast: may fail at run time.
                let s = self.pick(&subs);
                p.text = format!("({} as {})", p.text, self.types[s].name);
                p.ty = s;
                p.risky = true;
            } else if !singles.is_empty() {
                let (c, ct) = self.pick(&singles);
                p.text = format!("{}.{c}", p.text);
                p.fields.push(c);
                p.ty = ct;
            } else {
                break;
            }
        }
        (p.fields.len() >= min).then_some(p)
    }

    fn data_fields_of(&self, t: usize, want: Option<DTy>) -> Vec<(String, DTy)> {
        self.all_data(t)
            .into_iter()
            .filter(|(_, d)| want.is_none_or(|w| w == *d))
            .collect()
    }

    /// A readable data place of type `want` (tree field, record member,
    /// global, local), as text.
    fn data_read(&mut self, cx: &Ctx, want: DTy) -> Option<String> {
        let mut cands: Vec<String> = Vec::new();
        for (n, t) in &cx.locals {
            if *t == want {
                cands.push(n.clone());
            }
            if let DTy::Rec(r) = t {
                for (f, ft) in &self.records[*r].fields {
                    if *ft == want {
                        cands.push(format!("{n}.{f}"));
                    }
                }
            }
        }
        if want == DTy::Int && (cx.scratch_readable || self.scratch_loose) {
            cands.push("scr".into());
        }
        let globals: &[(String, DTy, String)] = if self.cfg.private_globals {
            &[]
        } else {
            &self.globals
        };
        for (n, t, _) in globals {
            if *t == want {
                cands.push(n.clone());
            }
            if let DTy::Rec(r) = t {
                for (f, ft) in &self.records[*r].fields {
                    if *ft == want {
                        cands.push(format!("{n}.{f}"));
                    }
                }
            }
        }
        if self.fuel && want == DTy::Int && self.chance(6) {
            cands.push("fuel".into());
        }
        // Tree reads, weighted up.
        for _ in 0..3 {
            if let Some(p) = self.node_path(cx, 0, 2) {
                let fields = self.data_fields_of(p.ty, None);
                for (f, ft) in fields {
                    if ft == want {
                        cands.push(format!("{}.{f}", p.text));
                    }
                    if let DTy::Rec(r) = ft {
                        for (mf, mt) in self.records[r].fields.clone() {
                            if mt == want {
                                cands.push(format!("{}.{f}.{mf}", p.text));
                            }
                            if let DTy::Rec(r2) = mt {
                                for (mf2, mt2) in self.records[r2].fields.clone() {
                                    if mt2 == want {
                                        cands.push(format!("{}.{f}.{mf}.{mf2}", p.text));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if cands.is_empty() {
            None
        } else {
            Some(self.pick(&cands))
        }
    }

    fn expr(&mut self, cx: &Ctx, want: DTy, depth: u32) -> String {
        let leaf = depth == 0 || self.chance(2);
        if leaf {
            if !self.chance(4) {
                if let Some(r) = self.data_read(cx, want) {
                    return r;
                }
            }
            return match want {
                DTy::Int => {
                    if self.cfg.rewrites && self.chance(8) {
                        if let Some(l) = self.list_len(cx) {
                            return l;
                        }
                    }
                    if self.chance(5) {
                        let a = self.expr(cx, DTy::Arr, 0);
                        format!("len({a})")
                    } else {
                        self.const_value(DTy::Int)
                    }
                }
                DTy::Bool => {
                    if self.cfg.rewrites && self.chance(10) {
                        return "in_list()".into();
                    }
                    if self.chance(2) {
                        if let Some(p) = self.node_path(cx, 0, 2) {
                            let fam = self.types[p.ty].family;
                            let same: Vec<usize> = (0..self.types.len())
                                .filter(|&s| self.types[s].family == fam)
                                .collect();
                            let s = self.pick(&same);
                            return format!("({} is {})", p.text, self.types[s].name);
                        }
                    }
                    self.const_value(DTy::Bool)
                }
                DTy::Arr => {
                    let n = 1 + self.below(3);
                    let items: Vec<String> = (0..n)
                        .map(|_| self.expr(cx, DTy::Int, depth.saturating_sub(1)))
                        .collect();
                    format!("[{}]", items.join(", "))
                }
                DTy::Rec(r) => self.record_value(cx, r, depth),
                DTy::Str | DTy::En(_) | DTy::Map(_) => self.const_value(want),
            };
        }
        let d = depth - 1;
        match want {
            DTy::Int => match self.below(23) {
                15 => {
                    let op = self.pick(&["&", "|", "^"]);
                    format!(
                        "({} {op} {})",
                        self.expr(cx, want, d),
                        self.expr(cx, want, d)
                    )
                }
                16 => {
                    let op = self.pick(&["<<", ">>"]);
                    let a = self.expr(cx, want, d);
                    let b = self.expr(cx, want, d);
                    if self.risky() {
                        format!("({a} {op} {b})")
                    } else {
                        format!("({a} {op} (abs({b}) % 64))")
                    }
                }
                17 => format!("!{}", self.expr(cx, want, d)),
                18 => self.map_lookup(cx, want, d),
                19 => {
                    let t = if self.chance(2) {
                        DTy::Map(self.pick(&MAP_TYPES))
                    } else {
                        DTy::Str
                    };
                    format!("len({})", self.expr(cx, t, d))
                }
                20 => self.match_enum(cx, want, d),
                22 => self.match_str(cx, want, d),
                21 => {
                    let x = self.expr(cx, want, d);
                    let (a, b) = (self.expr(cx, want, d), self.expr(cx, want, d));
                    format!(
                        "match {x} {{ 0 | -1 => {a}, 3 => {b}, _ => {} }}",
                        self.expr(cx, want, d)
                    )
                }
                0 | 1 => format!("({} + {})", self.expr(cx, want, d), self.expr(cx, want, d)),
                2 => format!("({} - {})", self.expr(cx, want, d), self.expr(cx, want, d)),
                3 => format!("({} * {})", self.expr(cx, want, d), self.expr(cx, want, d)),
                4 => {
                    let a = self.expr(cx, want, d);
                    let b = self.expr(cx, want, d);
                    if self.risky() {
                        format!("({a} / {b})")
                    } else {
                        format!("({a} / (abs({b}) + 1))")
                    }
                }
                5 => {
                    let a = self.expr(cx, want, d);
                    let b = self.expr(cx, want, d);
                    if self.risky() {
                        format!("({a} % {b})")
                    } else {
                        format!("({a} % (abs({b}) + 2))")
                    }
                }
                6 => format!(
                    "{}({}, {})",
                    self.pick(&["min", "max"]),
                    self.expr(cx, want, d),
                    self.expr(cx, want, d)
                ),
                7 => format!("abs({})", self.expr(cx, want, d)),
                8 => format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.expr(cx, DTy::Bool, d),
                    self.expr(cx, want, d),
                    self.expr(cx, want, d)
                ),
                9 => format!(
                    "pf0({}, {})",
                    self.expr(cx, want, d),
                    self.expr(cx, want, d)
                ),
                10 => format!(
                    "pf1({}, {})",
                    self.expr(cx, want, d),
                    self.expr(cx, want, d)
                ),
                11 => format!("pf2({})", self.expr(cx, DTy::Rec(0), d)),
                12 => {
                    let a = self.expr(cx, DTy::Arr, 0);
                    let i = self.expr(cx, DTy::Int, d);
                    if self.risky() {
                        format!("{a}[{i}]")
                    } else {
                        format!("(if len({a}) > 0 {{ {a}[abs({i}) % len({a})] }} else {{ 0 }})")
                    }
                }
                13 => format!(
                    "{}({}, {})",
                    self.pick(&["pf3", "pf4"]),
                    self.expr(cx, DTy::Arr, 0),
                    self.expr(cx, DTy::Int, d)
                ),
                _ => format!("-{}", self.expr(cx, want, d)),
            },
            DTy::Bool => match self.below(12) {
                7 => {
                    let mt = self.pick(&MAP_TYPES);
                    format!(
                        "contains({}, {})",
                        self.expr(cx, DTy::Map(mt), d),
                        self.expr(cx, mt.key(), d)
                    )
                }
                10 => self.map_lookup(cx, want, d),
                8 => format!(
                    "({} {} {})",
                    self.expr(cx, DTy::Str, d),
                    self.pick(&["<", "<=", ">", ">="]),
                    self.expr(cx, DTy::Str, d)
                ),
                9 => {
                    let e = DTy::En(self.below(ENUMS.len() as u32) as usize);
                    format!(
                        "({} {} {})",
                        self.expr(cx, e, d),
                        self.pick(&["==", "!="]),
                        self.expr(cx, e, d)
                    )
                }
                0 => format!(
                    "({} {} {})",
                    self.expr(cx, DTy::Int, d),
                    self.pick(&["<", "<=", ">", ">="]),
                    self.expr(cx, DTy::Int, d)
                ),
                1 => {
                    let t = self.data_type();
                    format!(
                        "({} {} {})",
                        self.expr(cx, t, d),
                        self.pick(&["==", "!="]),
                        self.expr(cx, t, d)
                    )
                }
                2 => format!("({} && {})", self.expr(cx, want, d), self.expr(cx, want, d)),
                3 => format!("({} || {})", self.expr(cx, want, d), self.expr(cx, want, d)),
                4 => format!("!({})", self.expr(cx, want, d)),
                _ => format!(
                    "({} > {})",
                    self.expr(cx, DTy::Int, d),
                    self.expr(cx, DTy::Int, d)
                ),
            },
            DTy::Rec(r) => self.record_value(cx, r, d),
            DTy::Arr => match self.below(4) {
                0 => {
                    let mt = self.pick(&[MapTy::IntInt, MapTy::IntStr, MapTy::IntBool]);
                    format!("keys({})", self.expr(cx, DTy::Map(mt), d))
                }
                1 => {
                    let mt = self.pick(&[MapTy::IntInt, MapTy::StrInt, MapTy::EnumInt]);
                    format!("values({})", self.expr(cx, DTy::Map(mt), d))
                }
                _ => {
                    let n = 1 + self.below(3);
                    let items: Vec<String> = (0..n).map(|_| self.expr(cx, DTy::Int, d)).collect();
                    format!("[{}]", items.join(", "))
                }
            },
            DTy::Str => match self.below(8) {
                // Only the left operand may hold a string read from data, so
                // no string can double per execution (`s = s + s` in a loop
                // would grow exponentially); each concatenation adds a
                // bounded amount.
                0 => format!("({} + {})", self.expr(cx, want, d), self.str_free(cx, d)),
                1 => format!("to_str({})", self.expr(cx, DTy::Int, d)),
                2 => {
                    let e = DTy::En(self.below(ENUMS.len() as u32) as usize);
                    format!("to_str({})", self.expr(cx, e, d))
                }
                5 => self.map_lookup(cx, want, d),
                6 => self.match_str(cx, want, d),
                7 => self.match_enum(cx, want, d),
                3 => {
                    let s = self.expr(cx, want, d);
                    if self.risky() {
                        let (a, b) = (self.expr(cx, DTy::Int, d), self.expr(cx, DTy::Int, d));
                        format!("substr({s}, {a}, {b})")
                    } else {
                        format!("substr({s}, len({s}), len({s}))")
                    }
                }
                _ => format!("to_str({})", self.expr(cx, DTy::Bool, d)),
            },
            DTy::En(_) => match self.below(3) {
                0 => self.match_str(cx, want, d),
                1 => self.match_enum(cx, want, d),
                _ => {
                    let x = self.expr(cx, DTy::Int, d);
                    format!(
                        "match {x} {{ 0 => {}, 1 | 2 => {}, _ => {} }}",
                        self.const_value(want),
                        self.const_value(want),
                        self.const_value(want)
                    )
                }
            },
            DTy::Map(mt) => match self.below(3) {
                0 => format!(
                    "insert({}, {}, {})",
                    self.expr(cx, want, d),
                    self.expr(cx, mt.key(), d),
                    self.expr(cx, mt.value(), d)
                ),
                1 => format!(
                    "remove({}, {})",
                    self.expr(cx, want, d),
                    self.expr(cx, mt.key(), d)
                ),
                _ => {
                    let (k, v) = (self.expr(cx, mt.key(), d), self.expr(cx, mt.value(), d));
                    format!("{{{k}: {v}}}")
                }
            },
        }
    }

    /// A string that reads no string from data (constants and `to_str`
    /// of other values), for the right operand of `+` on strings.
    fn str_free(&mut self, cx: &Ctx, d: u32) -> String {
        match self.below(4) {
            0 => format!("to_str({})", self.expr(cx, DTy::Int, d)),
            1 => {
                let e = DTy::En(self.below(ENUMS.len() as u32) as usize);
                format!("to_str({})", self.expr(cx, e, d))
            }
            2 => format!("to_str({})", self.expr(cx, DTy::Bool, d)),
            _ => self.const_value(DTy::Str),
        }
    }

    /// `m[k]` (rarely, may fail) or `get(m, k, default)` on a map whose
    /// values have type `want`.
    fn map_lookup(&mut self, cx: &Ctx, want: DTy, d: u32) -> String {
        let kinds: Vec<MapTy> = MAP_TYPES
            .iter()
            .copied()
            .filter(|m| m.value() == want)
            .collect();
        let mt = self.pick(&kinds);
        let m = self.expr(cx, DTy::Map(mt), d);
        let k = self.expr(cx, mt.key(), d);
        // Parenthesized: a map value may not start the head of a `match`,
        // `if` or `for`.
        if self.risky() {
            format!("({m}[{k}])")
        } else {
            format!("get({m}, {k}, {})", self.expr(cx, want, d))
        }
    }

    /// A `match` over a value of a random enum, with arms of type `want`:
    /// all variants, or some and `_`.
    fn match_enum(&mut self, cx: &Ctx, want: DTy, d: u32) -> String {
        let e = self.below(ENUMS.len() as u32) as usize;
        let (name, variants) = ENUMS[e];
        let x = self.expr(cx, DTy::En(e), d);
        let (a, b) = (self.expr(cx, want, d), self.expr(cx, want, d));
        let first = format!("{name}::{}", variants[0]);
        let rest: Vec<String> = variants[1..]
            .iter()
            .map(|v| format!("{name}::{v}"))
            .collect();
        let arms = if self.chance(2) {
            format!("{first} => {a}, {} => {b}", rest.join(" | "))
        } else {
            let last = format!("{name}::{}", variants[variants.len() - 1]);
            format!("{last} => {a}, _ => {b}")
        };
        format!("match {x} {{ {arms} }}")
    }

    /// A `match` over a string, with arms of type `want`.
    fn match_str(&mut self, cx: &Ctx, want: DTy, d: u32) -> String {
        let x = self.expr(cx, DTy::Str, d);
        let (a, b, c) = (
            self.expr(cx, want, d),
            self.expr(cx, want, d),
            self.expr(cx, want, d),
        );
        format!("match {x} {{ \"a\" => {a}, \"bc\" | \"é\" => {b}, _ => {c} }}")
    }

    fn record_value(&mut self, cx: &Ctx, r: usize, depth: u32) -> String {
        let fields = self.records[r].fields.clone();
        let parts: Vec<String> = fields
            .iter()
            .map(|(n, t)| format!("{n}: {}", self.expr(cx, *t, depth.saturating_sub(1))))
            .collect();
        format!("({} {{ {} }})", self.records[r].name, parts.join(", "))
    }

    fn args(&mut self, cx: &Ctx, m: usize) -> String {
        let ps = self.methods[m].params.clone();
        let v: Vec<String> = ps.iter().map(|(_, t)| self.expr(cx, *t, 2)).collect();
        v.join(", ")
    }

    fn stmt(&mut self, cx: &mut Ctx, nest: u32) -> Vec<String> {
        let in_for = cx.loopvar.is_some();
        if self.scratch && self.chance(8) {
            return vec![format!("scr = {};", self.expr(cx, DTy::Int, 2))];
        }
        if let Some(kind) = self.counter {
            if self.chance(6) {
                return vec![self.counter_update(cx, kind)];
            }
        }
        if let Some(lines) = self.maybe_while(cx, nest) {
            return lines;
        }
        // In loops, type tests of the element between calls on it.
        if in_for && self.chance(3) {
            if let Some(lines) = self.try_stmt(cx, nest, in_for, 18) {
                return lines;
            }
        }
        for _ in 0..20 {
            let k = self.below(if self.cfg.rewrites { 36 } else { 30 });
            if let Some(lines) = self.try_stmt(cx, nest, in_for, k) {
                return lines;
            }
        }
        match self.counter {
            Some(kind) if self.cfg.private_globals => vec![self.counter_update(cx, kind)],
            _ => vec![format!("g0 = g0 + {};", self.expr(cx, DTy::Int, 1))],
        }
    }

    /// An update of the program's counter global: commutative (so that
    /// fusion may reorder it) except, rarely, a read of the counter that
    /// makes it an ordinary global again.
    fn counter_update(&mut self, cx: &mut Ctx, kind: CounterKind) -> String {
        if self.chance(12) && !self.cfg.private_globals {
            return match kind {
                CounterKind::Or => "g0 = if cflag { g0 + 1 } else { g0 };".to_string(),
                _ => "g0 = g0 + cnt;".to_string(),
            };
        }
        match kind {
            CounterKind::Sum => {
                let e = self.expr(cx, DTy::Int, 2);
                if self.chance(2) {
                    format!("cnt = cnt + {e};")
                } else {
                    format!("cnt = cnt - ({e});")
                }
            }
            CounterKind::Max => {
                let e = self.expr(cx, DTy::Int, 2);
                format!("cnt = max(cnt, {e});")
            }
            CounterKind::Or => {
                let e = self.expr(cx, DTy::Bool, 2);
                format!("cflag = cflag || ({e});")
            }
        }
    }

    /// A statement adding the integer `e` to a global: `g0 = g0 + (e);`,
    /// or with [`GenConfig::private_globals`] an update of the program's
    /// commutative counter instead (those programs' traversals touch no
    /// other global), so that extensions' statements keep loops
    /// independent there too.
    fn global_add(&self, e: &str) -> String {
        match self.counter {
            Some(CounterKind::Sum) if self.cfg.private_globals => format!("cnt = cnt + ({e});"),
            Some(CounterKind::Max) if self.cfg.private_globals => format!("cnt = max(cnt, {e});"),
            Some(CounterKind::Or) if self.cfg.private_globals => {
                format!("cflag = cflag || ({e}) > 0;")
            }
            _ => format!("g0 = g0 + {e};"),
        }
    }

    fn try_stmt(&mut self, cx: &mut Ctx, nest: u32, in_for: bool, k: u32) -> Option<Vec<String>> {
        match k {
            // Tree data writes.
            0..=3 => {
                let p = self.node_path(cx, 0, 2)?;
                let fields = self.data_fields_of(p.ty, None);
                if fields.is_empty() {
                    return None;
                }
                let (f, ft) = self.pick(&fields);
                match ft {
                    DTy::Rec(r) if self.chance(2) => {
                        let (mf, mt) = self.pick(&self.records[r].fields.clone());
                        let e = self.expr(cx, mt, 2);
                        Some(vec![format!("{}.{f}.{mf} = {e};", p.text)])
                    }
                    DTy::Map(mt) if self.chance(2) => {
                        let k = self.expr(cx, mt.key(), 1);
                        let e = self.expr(cx, mt.value(), 2);
                        Some(vec![format!("{}.{f}[{k}] = {e};", p.text)])
                    }
                    DTy::Arr if self.chance(2) => {
                        let e = self.expr(cx, DTy::Int, 2);
                        let i = self.expr(cx, DTy::Int, 1);
                        let a = format!("{}.{f}", p.text);
                        if self.risky() {
                            Some(vec![format!("{a}[{i}] = {e};")])
                        } else {
                            Some(vec![
                                format!("if len({a}) > 0 {{"),
                                format!("    {a}[abs({i}) % len({a})] = {e};"),
                                "}".into(),
                            ])
                        }
                    }
                    _ => {
                        let e = self.expr(cx, ft, 2);
                        Some(vec![format!("{}.{f} = {e};", p.text)])
                    }
                }
            }
            // Global writes.
            4 if self.cfg.private_globals => None,
            4 => {
                let (n, t, _) = self.pick(&self.globals.clone());
                match t {
                    DTy::Rec(r) if self.chance(2) => {
                        let (mf, mt) = self.pick(&self.records[r].fields.clone());
                        let e = self.expr(cx, mt, 2);
                        Some(vec![format!("{n}.{mf} = {e};")])
                    }
                    DTy::Map(mt) if self.chance(2) => {
                        let k = self.expr(cx, mt.key(), 1);
                        let e = self.expr(cx, mt.value(), 2);
                        Some(vec![format!("{n}[{k}] = {e};")])
                    }
                    _ => {
                        let e = self.expr(cx, t, 2);
                        Some(vec![format!("{n} = {e};")])
                    }
                }
            }
            // Locals.
            6 | 7 => {
                let t = self.data_type();
                let e = self.expr(cx, t, 2);
                let name = self.fresh("v");
                let line = if self.chance(3) {
                    format!("let {name}: {} = {e};", self.type_text(t))
                } else {
                    format!("let {name} = {e};")
                };
                cx.locals.push((name, t));
                Some(vec![line])
            }
            8 => {
                if cx.locals.is_empty() {
                    return None;
                }
                let (n, t) = self.pick(&cx.locals);
                if let DTy::Map(mt) = t {
                    if self.chance(2) {
                        let k = self.expr(cx, mt.key(), 1);
                        let e = self.expr(cx, mt.value(), 2);
                        return Some(vec![format!("{n}[{k}] = {e};")]);
                    }
                }
                let e = self.expr(cx, t, 2);
                Some(vec![format!("{n} = {e};")])
            }
            // Aliases.
            9 | 10 => {
                let p = self.node_path(cx, 1, 3)?;
                let name = self.fresh("n");
                cx.aliases.push((name.clone(), p.ty));
                Some(vec![format!("let {name} = {};", p.text)])
            }
            // Calls on children (or on the loop variable).
            11..=13 => {
                if cx.child_calls >= self.cfg.max_child_calls {
                    return None;
                }
                let (recv, rt, slot) = if let Some((lv, lt)) = &cx.loopvar {
                    (lv.clone(), *lt, None)
                } else {
                    let singles = self.singles(cx.ty);
                    if singles.is_empty() {
                        return None;
                    }
                    let (c, ct) = self.pick(&singles);
                    (format!("self.{c}"), ct, Some((c, ct)))
                };
                let mut ms = self.visible_methods(rt);
                if cx.in_while {
                    // Repeated by a loop: lower-order traversals only.
                    ms.retain(|&m| self.methods[m].order < cx.order);
                }
                if ms.is_empty() {
                    return None;
                }
                if self.chance(4) {
                    // A chain choosing between calls on the same receiver
                    // (`if .. else if .. else`), which the checker lowers
                    // to guarded calls; an arm may go on after its call (a
                    // tail, lowered to a guarded block after the call).
                    let arms = 2 + self.below(2);
                    let mut out = Vec::new();
                    for k in 0..arms {
                        let m = self.pick(&ms);
                        let args = self.args(cx, m);
                        let call = format!("{recv}.{}({args});", self.methods[m].name);
                        let last_else = k + 1 == arms && self.chance(2);
                        let head = match (k, last_else) {
                            (0, _) => format!("if {} {{", self.expr(cx, DTy::Bool, 2)),
                            (_, true) => "} else {".to_string(),
                            _ => format!("}} else if {} {{", self.expr(cx, DTy::Bool, 2)),
                        };
                        out.push(head);
                        out.push(format!("    {call}"));
                        if self.chance(2) {
                            let n = 1 + self.below(2);
                            out.extend(Self::indent(self.block(cx, n, 0)));
                        }
                    }
                    out.push("}".to_string());
                    cx.child_calls += arms;
                    return Some(out);
                }
                let m = self.pick(&ms);
                cx.child_calls += 1;
                let args = self.args(cx, m);
                let call = format!("{recv}.{}({args});", self.methods[m].name);
                // On one child slot in two: the call under a test of
                // the child's type (`if self.c is T { self.c.f(); }`).
                // Every traversal calling the slot does so, with the same
                // type (the first concrete type below it without concrete
                // subtypes), so fused calls whose members all prove the
                // child's type, which generated code dispatches without a
                // `match`, arise as in `examples/ast`.
                let guarded = match slot {
                    Some(key) => match self.guarded_slots.get(&key) {
                        Some(&g) => g,
                        None => {
                            let g = self.chance(2);
                            self.guarded_slots.insert(key, g);
                            g
                        }
                    },
                    None => false,
                };
                if guarded {
                    if let Some(t) = self.proven_target(rt) {
                        let tn = &self.types[t].name;
                        return Some(vec![
                            format!("if {recv} is {tn} {{"),
                            format!("    {call}"),
                            "}".into(),
                        ]);
                    }
                }
                Some(vec![call])
            }
            // Calls on self, to lower-order traversals.
            14 => {
                if in_for || cx.self_calls >= 1 {
                    return None;
                }
                let ms: Vec<usize> = self
                    .visible_methods(cx.ty)
                    .into_iter()
                    .filter(|&m| self.methods[m].order < cx.order)
                    .collect();
                if ms.is_empty() {
                    return None;
                }
                let m = self.pick(&ms);
                cx.self_calls += 1;
                let args = self.args(cx, m);
                let call = format!("self.{}({args});", self.methods[m].name);
                // Often: a child of `self` read before and after the call,
                // which may assign its slot (generated code that reads
                // child ids once must read the slot again after the call).
                let Some((before, after)) = self.child_reads_around(cx) else {
                    return Some(vec![call]);
                };
                Some(vec![before, call, after])
            }
            // Conditionals.
            15..=17 => {
                if nest == 0 {
                    return None;
                }
                let c = self.expr(cx, DTy::Bool, 2);
                let n = 1 + self.below(3);
                let t = self.block(cx, n, nest - 1);
                let mut out = vec![format!("if {c} {{")];
                out.extend(Self::indent(t));
                if self.chance(2) {
                    let n = 1 + self.below(3);
                    let e = self.block(cx, n, nest - 1);
                    out.push("} else {".into());
                    out.extend(Self::indent(e));
                }
                out.push("}".into());
                Some(out)
            }
            // Guarded casts.
            18 | 19 => {
                // In a loop, often a type test of the loop variable itself,
                // which lets merged loops call the element together for the
                // types the test excludes (type-guarded participation).
                let on_element = cx.loopvar.is_some() && self.chance(2);
                if nest == 0 && !on_element {
                    return None;
                }
                let p = match cx.loopvar.clone() {
                    Some((lv, lt)) if on_element => NodeP {
                        text: lv.clone(),
                        ty: lt,
                        fields: Vec::new(),
                        root: lv,
                        risky: false,
                    },
                    _ => self.node_path(cx, 0, 2)?,
                };
                if p.risky {
                    return None;
                }
                let subs = self.strict_subtypes(p.ty);
                if subs.is_empty() {
                    return None;
                }
                let s = self.pick(&subs);
                let sn = self.types[s].name.clone();
                let cast = format!("({} as {sn})", p.text);
                let n = 1 + self.below(3);
                // On the element: first read one of its fields through the
                // cast (what a call before may write and one after change).
                let mut t = Vec::new();
                let ints = self.data_fields_of(s, Some(DTy::Int));
                let own = self.data_fields_of(cx.ty, Some(DTy::Int));
                if on_element && !ints.is_empty() && !own.is_empty() {
                    let (f, _) = self.pick(&ints);
                    let (o, _) = self.pick(&own);
                    t.push(format!("self.{o} = self.{o} + {cast}.{f};"));
                }
                cx.casts.push((cast, s));
                t.extend(self.block(cx, n, nest.saturating_sub(1)));
                cx.casts.pop();
                let mut out = vec![format!("if {} is {sn} {{", p.text)];
                out.extend(Self::indent(t));
                out.push("}".into());
                Some(out)
            }
            // Returns.
            20 => {
                if in_for && !self.cfg.loop_returns {
                    return None;
                }
                let c = self.expr(cx, DTy::Bool, 1);
                Some(vec![format!("if {c} {{"), "    return;".into(), "}".into()])
            }
            // Loops over list children.
            21 | 22 => {
                if in_for || nest == 0 {
                    return None;
                }
                let p = self.node_path(cx, 0, 1)?;
                let lists = self.lists(p.ty);
                if lists.is_empty() {
                    return None;
                }
                let (l, lt) = self.pick(&lists);
                let var = self.fresh("x");
                let saved_calls = cx.child_calls;
                cx.child_calls = 0;
                cx.loopvar = Some((var.clone(), lt));
                let n = 1 + self.below(3);
                let mut body = Vec::new();
                // Often: a call on the element, then a type test of it that
                // reads through a cast what the call may have written.
                if self.chance(3) {
                    if let Some(call) = self.try_stmt(cx, nest - 1, true, 11) {
                        body.extend(call);
                        if let Some(test) = self.try_stmt(cx, 0, true, 18) {
                            body.extend(test);
                        }
                    }
                }
                body.extend(self.block(cx, n, nest - 1));
                cx.loopvar = None;
                cx.child_calls = saved_calls + 1;
                let mut out = vec![format!("for {var} in {}.{l} {{", p.text)];
                out.extend(Self::indent(body));
                out.push("}".into());
                Some(out)
            }
            // Moves of a descendant up into a slot.
            23 | 24 => self.move_stmt(cx, in_for),
            // `new` leaves.
            25 => {
                let (slot, st) = self.slot(cx, in_for)?;
                let leaves = self.leaves_below(st);
                if leaves.is_empty() {
                    return None;
                }
                let l = self.pick(&leaves);
                let inits = self.data_inits(cx, l);
                Some(vec![format!(
                    "{slot} = new {} {{{inits}}};",
                    self.types[l].name
                )])
            }
            // `new` inner nodes from the slot's own descendants.
            26 | 27 => self.rebuild_stmt(cx, in_for),
            // Growth, paid with fuel.
            28 => self.grow_stmt(cx, in_for),
            // Rewriting in place (§7.1–7.3).
            30..=33 if self.keep_elements => None,
            30 | 31 => self.replace_self_stmt(cx),
            32 | 33 => self.thicket_stmt(cx),
            34 => self.copy_stmt(cx, in_for),
            35 => self.list_edit_stmt(cx),
            _ => {
                let fields = self.data_fields_of(cx.ty, Some(DTy::Int));
                if fields.is_empty() {
                    return None;
                }
                let (f, _) = self.pick(&fields);
                let e = self.expr(cx, DTy::Int, 1);
                Some(vec![format!("self.{f} = self.{f} + {e};")])
            }
        }
    }

    /// Two reads of the same child of `self` into one of `self`'s integer
    /// fields (`self.o = self.o + self.c.f;`), for either side of a call
    /// that may assign the child's slot; `None` when the types have no
    /// such fields or by chance.
    fn child_reads_around(&mut self, cx: &Ctx) -> Option<(String, String)> {
        if self.chance(3) {
            return None;
        }
        let singles = self.singles(cx.ty);
        let own = self.data_fields_of(cx.ty, Some(DTy::Int));
        if singles.is_empty() || own.is_empty() {
            return None;
        }
        // Mostly the first child, the one `new_leaf_in_first_child`
        // replaces.
        let (c, ct) = if self.chance(3) {
            self.pick(&singles)
        } else {
            singles[0].clone()
        };
        let fields = self.data_fields_of(ct, Some(DTy::Int));
        if fields.is_empty() {
            return None;
        }
        let (f, _) = self.pick(&fields);
        let (o, _) = self.pick(&own);
        let read = format!("self.{o} = self.{o} + self.{c}.{f};");
        Some((read.clone(), read))
    }

    /// `self.c = new L { .. };` for the first child `c` of `self` and a
    /// leaf type `L` that fits it.
    fn new_leaf_in_first_child(&mut self, cx: &Ctx) -> Option<String> {
        let (c, ct) = self.singles(cx.ty).first()?.clone();
        let leaves = self.leaves_below(ct);
        if leaves.is_empty() {
            return None;
        }
        let l = self.pick(&leaves);
        let inits = self.data_inits(cx, l);
        Some(format!(
            "self.{c} = new {} {{{inits}}};",
            self.types[l].name
        ))
    }

    /// A child slot `P.c` that may be written here, and its declared type.
    fn slot(&mut self, cx: &Ctx, in_for: bool) -> Option<(String, usize)> {
        let p = self.node_path(cx, 0, 1)?;
        if in_for && Some(&p.root) != cx.loopvar.as_ref().map(|l| &l.0) {
            return None;
        }
        if cx.aliases.iter().any(|a| a.0 == p.root) && !self.chance(3) {
            return None;
        }
        let singles = self.singles(p.ty);
        if singles.is_empty() {
            return None;
        }
        let (c, ct) = self.pick(&singles);
        Some((format!("{}.{c}", p.text), ct))
    }

    fn data_inits(&mut self, cx: &Ctx, t: usize) -> String {
        let fields = self.all_data(t);
        let mut parts = Vec::new();
        for (f, ft) in fields {
            if self.chance(2) {
                parts.push(format!("{f}: {}", self.expr(cx, ft, 1)));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" {} ", parts.join(", "))
        }
    }

    fn move_stmt(&mut self, cx: &mut Ctx, in_for: bool) -> Option<Vec<String>> {
        let (slot, st) = self.slot(cx, in_for)?;
        // A subtype X of the slot's type with a child d fitting the slot.
        let mut opts = Vec::new();
        for x in self
            .concrete_below(st)
            .into_iter()
            .chain(std::iter::once(st))
        {
            for (d, dt) in self.singles(x) {
                if self.is_subtype(dt, st) {
                    opts.push((x, d));
                }
            }
        }
        if opts.is_empty() {
            return None;
        }
        let (x, d) = self.pick(&opts);
        if x == st {
            return Some(vec![format!("{slot} = {slot}.{d};")]);
        }
        let xn = self.types[x].name.clone();
        let mv = format!("{slot} = ({slot} as {xn}).{d};");
        if self.risky() {
            Some(vec![mv])
        } else {
            Some(vec![
                format!("if {slot} is {xn} {{"),
                format!("    {mv}"),
                "}".into(),
            ])
        }
    }

    /// `if S is X { S = new Y { .. } }` where Y's children are new leaves or
    /// moved descendants of `(S as X)`; X has a single child, so the slot
    /// is at least two high and the new subtree is no higher.
    fn rebuild_stmt(&mut self, cx: &mut Ctx, in_for: bool) -> Option<Vec<String>> {
        let (slot, st) = self.slot(cx, in_for)?;
        let xs: Vec<usize> = self
            .concrete_below(st)
            .into_iter()
            .filter(|&x| !self.singles(x).is_empty())
            .collect();
        let ys: Vec<usize> = self
            .concrete_below(st)
            .into_iter()
            .filter(|&y| !self.types[y].leaf)
            .collect();
        if xs.is_empty() || ys.is_empty() {
            return None;
        }
        let x = self.pick(&xs);
        let y = self.pick(&ys);
        let xn = self.types[x].name.clone();
        let base = format!("({slot} as {xn})");
        // Descendants of X (one or two steps), with their types.
        let mut desc: Vec<(String, Vec<String>, usize)> = Vec::new();
        for (d, dt) in self.singles(x) {
            desc.push((format!("{base}.{d}"), vec![d.clone()], dt));
            for (e, et) in self.singles(dt) {
                desc.push((format!("{base}.{d}.{e}"), vec![d.clone(), e], et));
            }
        }
        let mut moved: Vec<Vec<String>> = Vec::new();
        let mut inits = Vec::new();
        for (c, ct, list) in self.all_children(y) {
            let fits: Vec<(String, Vec<String>, usize)> = desc
                .iter()
                .filter(|(_, fs, t)| {
                    self.is_subtype(*t, ct)
                        && !moved.iter().any(|m| m.starts_with(fs) || fs.starts_with(m))
                })
                .cloned()
                .collect();
            let leaves = self.leaves_below(ct);
            let one = |g: &mut Gen, moved: &mut Vec<Vec<String>>| -> Option<String> {
                if !fits.is_empty() && g.chance(2) {
                    let (text, fs, _) = g.pick(&fits);
                    if moved
                        .iter()
                        .any(|m| m.starts_with(&fs) || fs.starts_with(m))
                    {
                        return None;
                    }
                    moved.push(fs);
                    return Some(text);
                }
                if leaves.is_empty() {
                    return None;
                }
                let l = g.pick(&leaves);
                let di = g.data_inits(cx, l);
                Some(format!("new {} {{{di}}}", g.types[l].name))
            };
            let init = if list {
                let mut items = Vec::new();
                for _ in 0..self.below(3) {
                    if let Some(i) = one(self, &mut moved) {
                        items.push(i);
                    }
                }
                format!("[{}]", items.join(", "))
            } else {
                match one(self, &mut moved) {
                    Some(i) => i,
                    None => {
                        let l = leaves.first().copied()?;
                        format!("new {} {{}}", self.types[l].name)
                    }
                }
            };
            inits.push(format!("{c}: {init}"));
        }
        let data = self.data_inits(cx, y);
        let data = data.trim();
        if !data.is_empty() {
            inits.push(data.to_string());
        }
        let new = format!("new {} {{ {} }}", self.types[y].name, inits.join(", "));
        Some(vec![
            format!("if {slot} is {xn} {{"),
            format!("    {slot} = {new};"),
            "}".into(),
        ])
    }

    /// Whether a slot declared with type `d` can hold a node of type `o` or
    /// of a subtype.
    fn can_hold(&self, d: usize, o: usize) -> bool {
        self.is_subtype(o, d)
            || self
                .concrete_below(o)
                .iter()
                .any(|&s| self.is_subtype(s, d))
    }

    /// The typing rule of `self = ..` (§7.1): a node of type `r` may
    /// replace a receiver of static type `o` (in a list only, for a thicket
    /// element): every slot that can hold `o` must accept `r`; the `fuse`
    /// roots are family roots.
    fn replacement_ok(&self, o: usize, r: usize, list_only: bool) -> bool {
        let slots_ok = (0..self.types.len()).all(|t| {
            self.types[t].children.iter().all(|c| {
                (list_only && !c.list) || !self.can_hold(c.ty, o) || self.is_subtype(r, c.ty)
            })
        });
        slots_ok && (list_only || self.types[r].family == self.types[o].family)
    }

    /// Whether a node of type `o` can stand in some list child.
    fn may_stand_in_list(&self, o: usize) -> bool {
        (0..self.types.len()).any(|t| {
            self.types[t]
                .children
                .iter()
                .any(|c| c.list && self.can_hold(c.ty, o))
        })
    }

    /// `len(P.L)` of a list child on a node path.
    fn list_len(&mut self, cx: &Ctx) -> Option<String> {
        let p = self.node_path(cx, 0, 1)?;
        let lists = self.lists(p.ty);
        if lists.is_empty() {
            return None;
        }
        let (l, _) = self.pick(&lists);
        Some(format!("len({}.{l})", p.text))
    }

    /// A subtree whose type may replace a receiver of type `o`: a new leaf,
    /// a descendant moved up, or a copy of one.
    fn replacement(&mut self, cx: &Ctx, o: usize, list_only: bool) -> Option<String> {
        let choice = self.below(3);
        if choice == 0 {
            let leaves: Vec<usize> = (0..self.types.len())
                .filter(|&l| self.types[l].leaf && !self.types[l].is_abstract)
                .filter(|&l| self.replacement_ok(o, l, list_only))
                .collect();
            if leaves.is_empty() {
                return None;
            }
            let l = self.pick(&leaves);
            let inits = self.data_inits(cx, l);
            return Some(format!("new {} {{{inits}}}", self.types[l].name));
        }
        let singles: Vec<(String, usize)> = self
            .singles(cx.ty)
            .into_iter()
            .filter(|&(_, ct)| self.replacement_ok(o, ct, list_only))
            .collect();
        if singles.is_empty() {
            return None;
        }
        let (c, _) = self.pick(&singles);
        Some(if choice == 1 {
            format!("self.{c}")
        } else {
            format!("copy(self.{c})")
        })
    }

    /// `if COND { self = SUBTREE; }`.
    fn replace_self_stmt(&mut self, cx: &mut Ctx) -> Option<Vec<String>> {
        if !self.cfg.rewrites {
            return None;
        }
        let with = self.replacement(cx, cx.ty, false)?;
        let c = self.expr(cx, DTy::Bool, 1);
        Some(vec![
            format!("if {c} {{"),
            format!("    self = {with};"),
            "}".into(),
        ])
    }

    /// `if in_list() { self = [..]; }`: deleting, inserting before or after
    /// `self`, splicing a list of `self`'s, copies.
    fn thicket_stmt(&mut self, cx: &mut Ctx) -> Option<Vec<String>> {
        if !self.cfg.rewrites || !self.may_stand_in_list(cx.ty) {
            return None;
        }
        let o = cx.ty;
        let mut items = Vec::new();
        let mut grows = false;
        match self.below(4) {
            // Delete.
            0 => {}
            // Splice an own list (its elements must fit the lists).
            1 => {
                let lists: Vec<(String, usize)> = self
                    .lists(o)
                    .into_iter()
                    .filter(|&(_, lt)| self.replacement_ok(o, lt, true))
                    .collect();
                if lists.is_empty() {
                    return None;
                }
                let (l, _) = self.pick(&lists);
                items.push(format!("..self.{l}"));
                if self.chance(2) {
                    if let Some(leaf) = self.new_leaf_for(cx, o) {
                        items.push(leaf);
                    }
                }
            }
            // Keep `self` with new or copied neighbours: the list grows, so
            // (like wrapping a slot) it costs fuel. Unpaid, every visit could
            // double a list, and a `while` loop or repeated calls would
            // repeat that until memory runs out.
            _ => {
                if !self.fuel {
                    return None;
                }
                grows = true;
                items.push("self".into());
                for _ in 0..1 + self.below(2) {
                    let extra = if self.chance(2) {
                        self.new_leaf_for(cx, o)
                    } else {
                        // A copy of a child of `self` (no move: `self` stays).
                        let singles: Vec<(String, usize)> = self
                            .singles(o)
                            .into_iter()
                            .filter(|&(_, ct)| self.replacement_ok(o, ct, true))
                            .collect();
                        if singles.is_empty() {
                            None
                        } else {
                            let (c, _) = self.pick(&singles);
                            Some(format!("copy(self.{c})"))
                        }
                    };
                    if let Some(x) = extra {
                        let at = self.below(items.len() as u32 + 1) as usize;
                        items.insert(at, x);
                    }
                }
            }
        }
        let value = format!("[{}]", items.join(", "));
        if grows {
            let guard = if self.risky() { "" } else { " && in_list()" };
            return Some(vec![
                format!("if fuel > 0{guard} {{ // keep"),
                "    fuel = fuel - 1; // keep".into(),
                format!("    self = {value}; // keep"),
                "} // keep".into(),
            ]);
        }
        if self.risky() {
            return Some(vec![format!("self = {value};")]);
        }
        let c = self.expr(cx, DTy::Bool, 1);
        Some(vec![
            format!("if in_list() && {c} {{"),
            format!("    self = {value};"),
            "}".into(),
        ])
    }

    /// A new leaf that may stand in every list that can hold `o`.
    fn new_leaf_for(&mut self, cx: &Ctx, o: usize) -> Option<String> {
        let leaves: Vec<usize> = (0..self.types.len())
            .filter(|&l| self.types[l].leaf && !self.types[l].is_abstract)
            .filter(|&l| self.replacement_ok(o, l, true))
            .collect();
        if leaves.is_empty() {
            return None;
        }
        let l = self.pick(&leaves);
        let inits = self.data_inits(cx, l);
        Some(format!("new {} {{{inits}}}", self.types[l].name))
    }

    /// `S = copy(S.d);` (the copy is of a descendant, so the tree does not
    /// grow taller).
    fn copy_stmt(&mut self, cx: &mut Ctx, in_for: bool) -> Option<Vec<String>> {
        if !self.cfg.rewrites {
            return None;
        }
        let (slot, st) = self.slot(cx, in_for)?;
        let mut opts = Vec::new();
        for (d, dt) in self.singles(st) {
            if self.is_subtype(dt, st) {
                opts.push(d);
            }
        }
        if opts.is_empty() {
            return None;
        }
        let d = self.pick(&opts);
        Some(vec![format!("{slot} = copy({slot}.{d});")])
    }

    /// Edits of a list of `self` (outside loops): push a new leaf, set an
    /// element, prepend, clear, or read an element by index.
    fn list_edit_stmt(&mut self, cx: &mut Ctx) -> Option<Vec<String>> {
        if !self.cfg.rewrites || cx.loopvar.is_some() {
            return None;
        }
        let lists = self.lists(cx.ty);
        if lists.is_empty() {
            return None;
        }
        let (l, lt) = self.pick(&lists);
        let leaves = self.leaves_below(lt);
        let leaf = if leaves.is_empty() {
            None
        } else {
            let x = self.pick(&leaves);
            let inits = self.data_inits(cx, x);
            Some(format!("new {} {{{inits}}}", self.types[x].name))
        };
        let list = format!("self.{l}");
        match (self.below(5), leaf) {
            (0, Some(leaf)) => Some(vec![
                format!("if len({list}) < 6 {{"),
                format!("    {list}.push({leaf});"),
                "}".into(),
            ]),
            (1, Some(leaf)) => {
                let i = self.expr(cx, DTy::Int, 1);
                if self.risky() {
                    Some(vec![format!("{list}[{i}] = {leaf};")])
                } else {
                    Some(vec![
                        format!("if len({list}) > 0 {{"),
                        format!("    {list}[abs({i}) % len({list})] = {leaf};"),
                        "}".into(),
                    ])
                }
            }
            (2, Some(leaf)) => Some(vec![
                format!("if len({list}) < 6 {{"),
                format!("    {list} = [{leaf}, ..{list}];"),
                "}".into(),
            ]),
            (3, _) => {
                let c = self.expr(cx, DTy::Bool, 1);
                Some(vec![
                    format!("if {c} {{"),
                    format!("    {list} = [];"),
                    "}".into(),
                ])
            }
            _ => {
                let fields = self.data_fields_of(lt, Some(DTy::Int));
                let own = self.data_fields_of(cx.ty, Some(DTy::Int));
                if fields.is_empty() || own.is_empty() {
                    return None;
                }
                let (f, _) = self.pick(&fields);
                let (g, _) = self.pick(&own);
                Some(vec![
                    format!("if len({list}) > 0 {{"),
                    format!("    self.{g} = {list}[len({list}) - 1].{f};"),
                    "}".into(),
                ])
            }
        }
    }

    /// `if fuel > 0 { fuel = fuel - 1; S = new W { c: S, .. }; }`: the only
    /// statement that makes a slot's subtree taller.
    fn grow_stmt(&mut self, cx: &mut Ctx, in_for: bool) -> Option<Vec<String>> {
        if !self.fuel {
            return None;
        }
        let (slot, st) = self.slot(cx, in_for)?;
        let mut opts = Vec::new();
        for w in self.concrete_below(st) {
            for (i, (_, ct, _)) in self.all_children(w).into_iter().enumerate() {
                if self.is_subtype(st, ct) {
                    opts.push((w, i));
                }
            }
        }
        if opts.is_empty() {
            return None;
        }
        let (w, wrap) = self.pick(&opts);
        let mut inits = Vec::new();
        for (i, (c, ct, list)) in self.all_children(w).into_iter().enumerate() {
            let init = if i == wrap {
                if list {
                    format!("[{slot}]")
                } else {
                    slot.clone()
                }
            } else if list {
                "[]".into()
            } else {
                let leaves = self.leaves_below(ct);
                let l = leaves.first().copied()?;
                format!("new {} {{}}", self.types[l].name)
            };
            inits.push(format!("{c}: {init}"));
        }
        Some(vec![
            "if fuel > 0 { // keep".into(),
            "    fuel = fuel - 1; // keep".into(),
            format!(
                "    {slot} = new {} {{ {} }}; // keep",
                self.types[w].name,
                inits.join(", ")
            ),
            "} // keep".into(),
        ])
    }
}
