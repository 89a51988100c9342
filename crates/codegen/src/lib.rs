//! Rust code generation for treefuse programs.
//!
//! [`generate`] turns a checked program and its fused IR into one
//! self-contained, rustfmt-formatted Rust module; [`Config`] does it from a
//! `build.rs` in the style of prost-build; [`emit_file`] serves
//! `treefuse emit`.
//!
//! ```no_run
//! // build.rs
//! let out = std::env::var("OUT_DIR").unwrap();
//! treefuse_codegen::Config::new()
//!     .compile(&["src/layout.tf"], &out)
//!     .unwrap_or_else(|e| panic!("{e}"));
//! // src/lib.rs:  pub mod layout { include!(concat!(env!("OUT_DIR"), "/layout.rs")); }
//! ```
//!
//! # How the generator is layered
//!
//! The modules, in the order the data flows (each depends only on those
//! above it; `lib.rs` runs them):
//!
//! 1. **Names** (`names.rs`): every Rust identifier, see "Names" below.
//!    With the other leaves: `options.rs` (what was asked),
//!    `stack_plan.rs` (which functions check the stack, from the
//!    program), `moves.rs` (last uses of values, from the program),
//!    `inlining.rs` (which small functions to inline, from token sizes)
//!    and `forward_record.rs` (the data forwarding records and decides).
//! 2. **Layout and plans** (`gen.rs`): `Gen::new` lays out the node arenas
//!    (shared slots, cold fields), names everything, plans the fused
//!    functions (dispatchers, inactive participants, mask width) and the
//!    rewriting interface of each function. Nothing is generated yet.
//! 3. **Bodies** (`body.rs`: statements and expressions of one body or
//!    fused participant; `forward.rs`: child results forwarded to the
//!    caller; `stack.rs`: stack checks), driven by **items**
//!    (`items.rs`: tree types, records, globals, pure functions, unfused
//!    bodies, dispatchers, fused functions, copies). `Gen::settle_lending`
//!    generates the functions once to decide which parameters are lent.
//! 4. **Entry points** (`entry.rs`): `run_<fuse>_{unfused,fused}` and the
//!    module's imports.
//! 5. **JSON glue** (`interop.rs`): conversion from and to
//!    `treefuse_runtime`'s trees, `read_json`, `write_json`,
//!    `run_by_name`.
//!
//! # What a generated module contains
//!
//! - **Tree types.** Each type hierarchy (a root type and its subtypes) is
//!   one arena `Vec<RootSlots>` in the struct `Tree`; children are
//!   `RootId(u32)` indices, list children `Arc<[RootId]>`. `RootSlots` holds
//!   `kind: RootKind` (a fieldless enum of the concrete types) and the
//!   fields of the node's concrete type in **shared slots**: fields that no
//!   concrete type has together and whose Rust types agree share one struct
//!   member (`Add.left` and `Call.callee`; `Num.value` and `Var.slot`),
//!   while a base type's fields, present in every subtype, keep slots of
//!   their own. Any field known statically is still one load at a fixed
//!   offset (`t[id].width`), with no dispatch, and a node costs about the
//!   size of its hierarchy's largest concrete type instead of the sum of
//!   every type's fields (the AST case study: 40 bytes instead of 112; the
//!   render `Element`: 168 instead of 192). **Cold fields** are not in the
//!   node at all: a data field that no traversal, pure function or `fuse`
//!   item reads or writes and whose type is wider than a scalar (a string,
//!   array, map or record: `gen.rs::cold_fields`) is only read from JSON,
//!   written back, set by `new`,
//!   copied and seen through the typed API, so each concrete type with
//!   such fields gets a struct of them (`FunctionCold`) kept in a
//!   `ColdTable` of `Tree` (`function_cold`: entries by node id, pushed in
//!   id order, found by binary search; `treefuse_runtime::generated`).
//!   The AST's unread function name made every node 16 bytes wider: out of
//!   line, the node is 24 bytes, and all three engines of the AST case run
//!   in well under the time (`bench/results/cold`). A slot is named after its field
//!   when it holds fields of one name (`next` of two list types), else after
//!   the first few (`operator_or_var_id_or_value`, `functions_or_content_etc`; its doc lists every field); fields
//!   stored in a slot of another name get accessor methods `field()` and
//!   `field_mut()`. The node is `repr(C)`: the kind, then the slots by
//!   ascending alignment (one-byte flags, the 4-byte child ids, the rest),
//!   which leaves the least padding and keeps what nearly every visit reads
//!   in the node's first bytes. Shared slots (`gen::assign_slots`) rather
//!   than per-type arenas or an enum of per-type structs: an enum is as
//!   large as its largest variant too, and matching it on every field
//!   access would add a branch;
//!   per-type arenas (~18 bytes per AST node) need ids that carry the type
//!   and a dispatch for every access to a base-type field, a much larger
//!   change of every access path for the remaining factor of about two.
//!   `Tree::node_count` and `Tree::node_bytes` report the arenas' size
//!   (cold tables included).
//!   Records are structs, arrays `Vec<T>` (cloned on copy; loops over an
//!   array the loop body does not assign iterate it in place), strings
//!   `Arc<str>`, maps `treefuse_runtime::generated::ValueMap<K, V>` (a
//!   persistent ordered map that keeps small maps in one flat array with
//!   a hash per key, and larger ones in an `imbl::OrdMap`).
//! - **Lent parameters.** A parameter that is not `Copy` and that no body
//!   assigns is taken by reference (`&ValueMap<K, V>`, `&Rec`, `&Arc<str>`,
//!   `&[T]` for arrays) when that pays, which the generator finds out by
//!   generating the functions and watching which lent parameters their
//!   code copies (`Gen::settle_lending`): a pure
//!   function's if its code never copies it out of the reference (so
//!   `kill_all(known, &t[s].assigned)` no longer clones the tree's map,
//!   while `kill(e, id)`, which removes from its own copy, still takes `e`
//!   by value and updates it in place), a traversal's if each body copies
//!   it at most once, outside loops (`Block.propagate` clones `env` into
//!   the `known` it grows; each statement's `propagate(&known)` no longer
//!   clones). Every caller, unfused bodies, fused functions (one argument
//!   slot per participant, passed on as it is to resumed participants and
//!   to every node of a region) and entry points, lends a local where it
//!   stands and holds any other value (a tree field: the call takes
//!   `&mut Tree`; a temporary) in a local it lends. A shared reference to
//!   a value without interior mutability that the callee never assigns
//!   keeps value semantics: neither side can see a later change of the
//!   other's.
//! - **Typed construction.** Every concrete type has a struct named as
//!   the type (`TextBox`, `Add`; the names of the tree types come first,
//!   so a generated name that a type takes, say `Tree`, gets a suffix
//!   instead, and the per-hierarchy names are `RootId`, `RootKind` and
//!   `RootSlots`, which never double up the way `NodeNode` did) with its
//!   fields by name; `Default` gives data fields their declared defaults
//!   and leaves children unset. `Tree::add` checks each child (it exists
//!   and its type is one the field accepts) and returns the id or a
//!   `BuildError` (`treefuse_runtime::generated`), so a tree built node by
//!   node is well typed and no traversal meets a child of the wrong kind;
//!   `Tree::get::<T>(id)` reads a node back as its struct. Both go through
//!   the trait `TypedNode`, implemented by every such struct.
//! - **Unfused traversals** as written: one function per (type, traversal)
//!   body and one public dispatching function per traversal (`match` on
//!   `kind`, no trait objects), and per `fuse` item
//!   `run_<fuse>_unfused(tree, globals, params..)`. Casts `(p as T)` call
//!   one checked-downcast function per type. Dispatchers, bodies, cast
//!   functions and pure functions are `#[inline]`. All functions live in the
//!   module `traversals` (re-exported), whose inner `#![allow(..)]` covers
//!   the lints that users' own code can trigger (`self.x = self.x`, dead
//!   stores, `x * 1`), so the module compiles warning- and clippy-free
//!   even under `#[deny(warnings)]`. Every function there names in its
//!   doc comment the declaration it comes from (`figure2.tf:21:15`: the
//!   traversal, pure function, type or `fuse` item), so a reader of the
//!   generated code finds the source of each.
//! - **Fused traversals** from the fused IR: one function per fused
//!   function, one dispatcher per target list and `run_<fuse>_fused`.
//!   Participants that can be inactive (they contain `return`, or a caller
//!   may pass them switched off by a guard or its own `return`) get an
//!   `active_N` flag; the others run without any checks. A fused function
//!   takes a `mask` of its active participants only if some caller can
//!   enter it with one of them off: a call made for a single member is
//!   made only when that member takes part, so it passes none. Inlining
//!   is chosen per item (`inlining.rs`): one function per recursion cycle
//!   of the fused call graph stays a function (in practice the dispatcher
//!   of a list's or a recursive child's next node), every other fused
//!   function and dispatcher is `#[inline(always)]`, so a list walk
//!   carries its element visits inline as hand-written code does (render
//!   case study: 1.29 -> 1.13 times the hand-fused instructions); items
//!   that rewrite the tree, and items called from several places that
//!   would copy more than 4,000 tokens, stay `#[inline]`. Pure functions
//!   are `#[inline]`. A fused function in which nothing but its own
//!   assignments `self.c = ..` can write a child slot of its receiver (no
//!   rewriting, no call on `self`) reads the child ids its paths use once
//!   at its start (`let next_id = t[this].next;`), so
//!   `self.next.max_width` after a call is `t[next_id].max_width`, one
//!   bounds check instead of two (render: 1.13 -> 1.07 times the
//!   hand-fused instructions); those assignments update the local with
//!   the slot (`t[this].next = v; next_id = v;`, AST: fused -3.1%
//!   instructions). A fused call whose members are all guarded by
//!   `self.c is T` (T concrete, without subtypes) calls a dispatcher for
//!   T alone, which skips the `match` on the node's kind
//!   (`Gen::proven_type`). A fused call on a hoisted child (`next_id`
//!   above) returns the data slot of the child that its caller reads next
//!   (the most read one, if it is a copyable data slot every function of
//!   the target list can return): the callee ends with `Ok(t[this].SLOT)`,
//!   and the caller binds the value and reads it instead of indexing the
//!   child's arena, up to the first statement that may change the slot or
//!   the child (decided as the generator walks the fused IR, `forward.rs`;
//!   programs that rewrite in place are left as they were).
//!   In a module with parallel entry points, a run of a fused function's
//!   statements that touch no node but the receiver's data fields (no
//!   call, child, list or type test: `Gen::self_data_only`) holds the
//!   receiver's node once (`let this_node = t.data_mut_H(this);`) and
//!   reads and writes its fields there: through a split worker's view
//!   every `t[this]` is a range check the compiler cannot merge across
//!   the writes (render's chain items: 7.40M to 5.39M instructions at
//!   2,000 pages; the sequential entry point unchanged).
//!   Render at 1,000 pages: fused 1,509,591 to 1,403,586 instructions
//!   (with lent parameters), below the hand-fused 1,416,272
//!   (`crates/bench/results/renderhand`). Participant masks are `u64`, or
//!   `u128` in a module where a function that takes one has more than 64
//!   participants (`Gen::mask_ty`).
//! - **Values moved, maps updated in place.** The value of a local is
//!   moved instead of cloned at its last use (a backward liveness pass,
//!   `moves.rs`; in fused functions in the order the schedule runs each
//!   participant's statements, within the limits its module docs give;
//!   `crates/codegen-example/programs/moves.tf` holds the hard cases). A
//!   map the code owns (a temporary, a local at its last use,
//!   `x = insert(x, ..)` or `x = remove(x, ..)` on a local) is updated in
//!   place (copying only what another map shares); `for k in
//!   keys(m)` and `values(m)` iterate the map itself (or an O(1) copy of it
//!   when the body assigns it) instead of a collected `Vec`; a member of a
//!   map's value is read where the value is (`m[k].f`, through `map_ref`).
//! - **Shared code in `treefuse-runtime`.** What every program needs
//!   alike is not generated but imported by name from
//!   `treefuse_runtime::generated`: runtime errors and positions, the
//!   checked operations (`div_int`, `checked_index`, `cast_error`, ..),
//!   `Replaced`, `Site`, `OpenList`, and the JSON glue (its `interop`
//!   module), and the stack segments of `treefuse_runtime::stack`. The
//!   crates generated code builds on (`stacker`, `treefuse-sema`) are used through `treefuse-runtime`'s re-exports,
//!   so a client crate has `treefuse-runtime` as its only dependency and
//!   this crate as its build-dependency.
//! - **Runtime errors** as `RuntimeError` carrying the traversal and the
//!   line and column, raised exactly where the interpreter raises them.
//!   Inside the module they travel as `Fail = Box<RuntimeError>` (so every
//!   `Result<(), Fail>` is returned in one register, not through memory);
//!   the `run_*` entry points unbox them. A pure function returns a
//!   `Result` only if it can fail (`treefuse_analysis::pure_fns_may_fail`),
//!   else its plain value; a cast `(p as T)` that an enclosing `is` test
//!   proves is no check at all (`gen::Fact`, `Gen::knowing`: facts from
//!   `&&` conjuncts of conditions, forgotten before any statement that may
//!   replace a child or call a traversal). A `Tree` without a root node
//!   (`Tree::default()`, `Tree::is_empty`) is a runtime error of every
//!   entry point, not a panic.
//! - **Host functions** (`pure fn f(..) -> T;`) are called as
//!   `HOST::f(args..)` with [`CodegenOptions::host_module`] as `HOST`,
//!   taking and returning the generated data types by value.
//! - **JSON** (when [`CodegenOptions::runtime_interop`] and the source are
//!   given): `json::read_json` / `json::write_json` convert from and to
//!   `treefuse_runtime::Tree`, whose iterative reader and writer implement
//!   LANGUAGE.md §4 for every engine (10^6-deep documents are fine; no
//!   recursive serde), and `json::run_by_name` runs a `fuse` item by name
//!   with interpreter values as arguments (for test harnesses and tools).
//!   Values convert through `treefuse_runtime::generated::interop::Convert`,
//!   which the module implements for its records and enums.
//!
//! - **Rewriting in place** (LANGUAGE.md §7.1–7.3). A traversal that may
//!   replace its receiver (`self = ..`, a thicket, or a call on `self`
//!   that may) returns `Result<Replaced<Id>, Fail>` (kept, one node, or a
//!   thicket); the caller puts the
//!   replacement where the receiver stands: `t[this].c` for `self.c.f()`,
//!   the root for a `fuse` item's call, its own caller for `self.f()`
//!   (which ends the caller), the loop's open list for a loop variable.
//!   Only traversals with thickets or `in_list()` (or that call such on
//!   `self`) take `site: Site`. A `for` over a list whose elements may
//!   replace themselves keeps an `OpenList` (the snapshot, and once an
//!   element was replaced the list built so far): later calls on the loop
//!   variable run on every node now standing where the element stood (the
//!   last of them takes the call's arguments, the others copies:
//!   `OpenList::region_arg`), the
//!   owner's reads of the list (`len`, `L[i]`, spreads) ask the open list,
//!   and the list is written into the tree when the loop ends or leaves,
//!   so a loop over n elements costs O(n + inserted). `copy(P)` is an
//!   iterative deep copy per hierarchy. Fused functions keep a
//!   participant's replacement in `replaced`, switch the later
//!   participants off (their active flags, recorded in `resume_N`) and, at
//!   the end, run them on the replacement through the fused function the
//!   IR names for them (`FusedFunction::resume`), returning the result.
//!   None of this is generated for programs that do not rewrite.
//!
//! # Names
//!
//! Every Rust name of a generated module comes from `names.rs`: the rule
//! (types, records, enums and variants as written; functions, fields,
//! globals, parameters and locals in snake case; a Rust keyword, strict,
//! reserved or weak, gets a trailing `_`; a taken name a numbered suffix)
//! and the reserved lists: the primitive types, the 2021 prelude, the
//! module's own items and runtime helpers (`MODULE_NAMES`,
//! `RUNTIME_HELPERS`), the generated functions' parameters and locals
//! (`reserved_locals`) and the methods every type has (`TRAIT_METHODS`).
//! `Gen::new` asks it for every name derived from the program, once, in
//! one namespace per Rust namespace: the module's items (user types
//! first, so a derived `ExprId` gives way to a user type of that name),
//! the members of each struct (a field is a member of every concrete
//! type's struct that has it), the methods of `Tree`, `NodeRef` and the
//! node structs, the variants of each enum. Locals are named while
//! bodies are generated, in a namespace that has every module-level name
//! and helper taken (`Names::for_locals`), so a local never shadows a
//! function it calls; locals and members are underscore-blind (`x` and
//! `_x` are one name, as the generated code marks unread locals with a
//! leading `_`). The generator's tests compile random programs under
//! hostile names (`treefuse_progen::generate_hostile`), drawn from all
//! of these.
//!
//! # Node-visit counters
//!
//! Every traversal function has a `const C: bool` parameter (`C_` when the
//! program names a type `C`), carried by the run context `Cx<C>`. `run_<fuse>_{unfused,fused}` use `C = false`,
//! where `if C { cx.visits += 1 }` is removed by the compiler (zero cost);
//! `run_<fuse>_{unfused,fused}_counted` use `C = true` and return the
//! visit count. A const generic works in any consuming crate, where a
//! cargo feature named in generated code would have to be declared by it.
//!
//! # Deep trees
//!
//! Traversals recurse on the Rust stack, and no visit checks it. A call
//! goes one tree level down (or stays on `self`), so a run's recursion is
//! at most as deep as the tree is high, which is at most its number of
//! nodes. The inner entry point (`<fuse>_{unfused,fused}`) therefore
//! reserves `node_count × STACK_PER_LEVEL + STACK_RESERVE` once per run
//! (`run_deep`): it runs on the current stack when that much is left,
//! else on a segment of that size, whose pages the operating system
//! commits only as the recursion reaches them (a bushy tree of 10^6 nodes
//! reserves address space, and touches only its height's worth). Each
//! thread keeps its segment between runs (`treefuse_runtime::stack`), so
//! repeated runs on trees of a few thousand nodes or more do not pay a
//! fresh mapping and a page fault per stack page every time. `STACK_PER_LEVEL` (2 KiB optimised, 4 KiB with debug
//! assertions) bounds the frames one level takes with a wide margin; the
//! reservation is capped at 16 GiB of address space. 10^6-deep chains run
//! on any thread.
//!
//! Two kinds of program break the height bound (`stack_plan::stack_scheme`).
//! Those with a cycle of calls on `self` (recursion on one node, as deep
//! as its data says) keep a check per visit: their dispatchers compare
//! the stack pointer with a bound kept in `Cx` and, below it, call
//! themselves again on a fresh 16 MiB segment; the cold path is
//! a call, not a second copy of the visit. Those whose statements create
//! nodes (the tree may grow below a running visit) check only in the
//! visits of nodes that may have been created: the running visits are on
//! distinct nodes, all but the created ones among the nodes the run
//! started with, so the bodies and fused functions of the concrete types
//! some statement creates (leaves excepted, and functions that call
//! nothing further) check at their start that the run's whole
//! reservation is still left, and continue on a new segment of that size
//! when it is not. The AST case study (`x++` desugared) checks in
//! assignments, binary expressions and one-statement lists only.
//! Segments come from `treefuse_runtime::stack` (the one place with
//! `unsafe` code: switching stacks; its comments prove it sound).

#![warn(missing_docs)]

mod body;
mod entry;
mod forward;
mod forward_record;
mod gen;
mod inlining;
mod interop;
mod items;
mod moves;
mod names;
mod options;
mod parallel;
mod stack;
mod stack_plan;

pub use options::{CodegenOptions, SourceInfo};
use std::path::{Path, PathBuf};
pub use treefuse_fusion::{FusedProgram, FusionOptions};

/// Generates the Rust module for `program` with the fused schedules of
/// `fused` (from the same program). The result is formatted Rust source.
pub fn generate(
    program: &treefuse_sema::Program,
    fused: &FusedProgram,
    options: &CodegenOptions,
) -> String {
    let mut g = gen::Gen::new(program, fused, options);
    // Which parameters are lent is settled by generating the functions.
    g.settle_lending();
    let mut body = proc_macro2::TokenStream::new();
    body.extend(g.types());
    body.extend(g.records());
    body.extend(g.globals());
    // The traversals live in a module whose inner attribute allows the
    // lints that users' own code can trigger.
    let mut code = proc_macro2::TokenStream::new();
    code.extend(g.pure_fns());
    code.extend(g.casts());
    code.extend(g.bodies());
    code.extend(g.dispatchers());
    code.extend(g.fused_items());
    code.extend(g.entries());
    let parts = g.split_parts(&code);
    code.extend(parts);
    if g.copy_fn
        .iter()
        .any(|f| gen::mentions(&code, &f.to_string()))
    {
        code.extend(g.copy_fns());
    }
    body.extend(g.parallel_support(
        gen::mentions(&code, "plan_split"),
        gen::mentions(&code, "plan_chain"),
    ));
    let allows = items::fn_allows();
    body.extend(quote::quote!(
        /// The traversals: pure functions, unfused bodies and dispatchers,
        /// fused functions and the `run_*` entry points.
        pub mod traversals {
            #allows
            use super::*;
            #code
        }
        pub use traversals::*;
    ));
    if options.runtime_interop {
        if let Some(src) = &options.source {
            body.extend(g.interop(src.sources.text()));
        }
    }
    let host_missing = program
        .pure_fns
        .iter()
        .any(|f| matches!(f.body, treefuse_sema::PureBody::Host))
        && options.host_module.is_none();
    let written = g.written_flag.iter().flatten().count();
    let mut all = entry::prelude(&body, &gen::count_param(program), written);
    all.extend(body);
    let text = all.to_string();
    let header = format!(
        "// Generated by treefuse-codegen{}. Do not edit.\n{}",
        options
            .source
            .as_ref()
            .map(|s| format!(" from {}", s.file_name))
            .unwrap_or_default(),
        if host_missing {
            "// Host pure functions are resolved through `crate::host` (no host_module given).\n"
        } else {
            ""
        }
    );
    match syn::parse_file(&text) {
        Ok(file) => format!("{header}\n{}", prettyplease::unparse(&file)),
        // Not expected; keep the unformatted text so the error shows where.
        Err(e) => format!("{header}// formatting failed: {e}\n{text}\n"),
    }
}

/// Compiles a `.tf` file, fuses it with default options and generates its
/// module: what `treefuse emit FILE -o OUT.rs` writes. Errors are rendered
/// diagnostics (file, line, caret).
pub fn emit_file(path: impl AsRef<Path>) -> Result<String, String> {
    Config::new().generate_file(path.as_ref())
}

/// `build.rs` configuration, in the style of prost-build.
#[derive(Clone, Debug, Default)]
pub struct Config {
    host_module: Option<String>,
    fusion: FusionOptions,
    no_interop: bool,
    wide_masks: bool,
    parallel: bool,
}

impl Config {
    /// Default options: default fusion cut-offs, the JSON layer on, host
    /// functions from `crate::host`.
    pub fn new() -> Config {
        Config::default()
    }

    /// The Rust path of the module supplying host pure functions.
    pub fn host_module(&mut self, path: &str) -> &mut Config {
        self.host_module = Some(path.to_string());
        self
    }

    /// Fusion cut-offs.
    pub fn fusion(&mut self, options: FusionOptions) -> &mut Config {
        self.fusion = options;
        self
    }

    /// Leaves out the JSON layer (`json::read_json`, `write_json`,
    /// `run_by_name` and the conversions).
    pub fn without_json(&mut self) -> &mut Config {
        self.no_interop = true;
        self
    }

    /// Participant masks as `WideMask`s whatever the program's width
    /// ([`CodegenOptions::wide_masks`]): for testing the representation
    /// that programs of more than 128 calls per fused call get.
    pub fn wide_masks(&mut self) -> &mut Config {
        self.wide_masks = true;
        self
    }

    /// Whether to add the parallel entry points `run_<fuse>_parallel`
    /// ([`CodegenOptions::parallel`]; off by default).
    pub fn parallel(&mut self, on: bool) -> &mut Config {
        self.parallel = on;
        self
    }

    /// Generates the module for one program: a `.tf` file, or a directory
    /// whose `.tf` files (below it, in path order) form one program.
    pub fn generate_file(&self, path: &Path) -> Result<String, String> {
        let sources = treefuse_syntax::SourceMap::read(path)?;
        let model = match treefuse_sema::compile_map(&sources) {
            Ok(m) => m,
            Err(d) => return Err(treefuse_syntax::render_map(&d, &sources, false)),
        };
        let analysis = treefuse_analysis::Analysis::new(&model);
        let fused = treefuse_fusion::fuse_program(&model, &analysis, &self.fusion);
        Ok(self.generate_program(&model, &fused, &sources))
    }

    /// The fusion options this configuration generates with.
    pub fn fusion_options(&self) -> &FusionOptions {
        &self.fusion
    }

    /// The code of a checked program read from `sources` and fused with
    /// [`Config::fusion_options`] (what [`Config::generate_file`] does
    /// after reading, checking and fusing; `treefuse emit` passes a fused
    /// program from its cache).
    pub fn generate_program(
        &self,
        model: &treefuse_sema::Program,
        fused: &FusedProgram,
        sources: &treefuse_syntax::SourceMap,
    ) -> String {
        let options = CodegenOptions {
            host_module: self.host_module.clone(),
            source: Some(SourceInfo {
                file_name: sources.name().to_string(),
                sources: sources.clone(),
            }),
            runtime_interop: !self.no_interop,
            wide_masks: self.wide_masks,
            parallel: self.parallel,
        };
        generate(model, fused, &options)
    }

    /// Compiles each `.tf` file into `out_dir/<stem>.rs`, printing
    /// `cargo:rerun-if-changed` for each. On error, returns the rendered
    /// diagnostics of every failing file.
    pub fn compile(
        &self,
        files: &[impl AsRef<Path>],
        out_dir: impl AsRef<Path>,
    ) -> Result<Vec<PathBuf>, String> {
        let mut written = Vec::new();
        let mut errors = String::new();
        for f in files {
            let f = f.as_ref();
            println!("cargo:rerun-if-changed={}", f.display());
            match self.generate_file(f) {
                Ok(code) => {
                    let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("program");
                    let out = out_dir.as_ref().join(format!("{stem}.rs"));
                    std::fs::write(&out, code)
                        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
                    written.push(out);
                }
                Err(e) => errors.push_str(&e),
            }
        }
        if errors.is_empty() {
            Ok(written)
        } else {
            Err(errors)
        }
    }
}
