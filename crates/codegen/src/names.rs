//! Rust identifiers for names of the traversal language.

use proc_macro2::{Ident, Span};
use std::collections::HashSet;
use std::rc::Rc;

/// Rust's keywords: strict, reserved for future use, and the weak and
/// edition-dependent ones (`union`, `macro_rules`, `raw`, `safe`, `gen`,
/// `try`, `async`, `await`, `dyn`). A user name that is one gets a
/// trailing `_` ([`safe`]).
const KEYWORDS: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "crate",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "async",
    "await",
    "dyn",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "union",
    "macro_rules",
    "raw",
    "safe",
];

/// Names a generated module may not give its own items, because Rust or
/// the generated code already means something by them at module level:
///
/// - the primitive types and the crates `std`, `core`, `alloc` (a struct
///   named `u32` would shadow the type of every node id);
/// - the standard prelude of the 2021 edition (an enum named `Default`
///   breaks `impl Default for Tree`); macros (`vec!`) and derives live in
///   a namespace of their own, which user names never reach;
/// - the module's own items, submodules and imports (`Tree`, `Cx`,
///   `traversals`; the runtime helpers of `treefuse_runtime::generated`
///   are [`RUNTIME_HELPERS`], taken as well).
///
/// Every module-level name the generator hands out comes from
/// [`Names::for_module`], which starts with these taken; so no user name
/// can take one of them, whatever it is.
pub(crate) const MODULE_NAMES: &[&str] = &[
    // The parallel entry points' support (`parallel.rs`).
    "TreeAccess",
    "ParallelRun",
    "SubtreeView",
    "SubtreeGrowth",
    "Parallel",
    "par_loop",
    "plan_split",
    "plan_chain",
    "rayon",
    // Primitive types and crates.
    "bool",
    "char",
    "str",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
    "std",
    "core",
    "alloc",
    // The 2021 prelude.
    "Copy",
    "Send",
    "Sized",
    "Sync",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "drop",
    "Box",
    "ToOwned",
    "Clone",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "Default",
    "Iterator",
    "Extend",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "ToString",
    "Vec",
    "TryFrom",
    "TryInto",
    "FromIterator",
    // Items of the generated module and what it imports.
    "Tree",
    "NodeRef",
    "Globals",
    "Cx",
    "At",
    "RuntimeError",
    "Fail",
    "run_deep",
    "STACK_RESERVE",
    "STACK_PER_LEVEL",
    "STACK_MAX",
    "STACK_RED_ZONE",
    "STACK_SEGMENT",
    "stack_pointer",
    "stack_low",
    "with_more_stack",
    "set_stack_bound",
    "stack_for",
    "by_kind",
    "SOURCE",
    "schema",
    "read_json",
    "write_json",
    "run_by_name",
    "HIER_OF",
    "SLOT_COUNT",
    "Site",
    "Replaced",
    "OpenList",
    "ColdTable",
    "BuildError",
    "TypedNode",
    "Arc",
    "ValueMap",
    "imbl",
    "stacker",
    "interop",
    "traversals",
    "json",
    "copy_pending",
    "list_set",
    "no_traversal",
    // Imported from treefuse-runtime by the JSON layer.
    "treefuse_runtime",
    "sema",
    "Convert",
    "Numbering",
    "RtValue",
    "RtSlot",
    "RtNodeId",
    "RtTree",
    "to_value",
    "from_value",
    "next_field",
    "record_fields",
    "enum_index",
    "rt_data",
    "rt_child",
    "rt_child_opt",
    "rt_list",
    "schema_of",
    "read_runtime_tree",
    "write_runtime_tree",
];

/// The helpers of `treefuse_runtime::generated` a module imports when its
/// code mentions them.
pub(crate) const RUNTIME_HELPERS: &[&str] = &[
    "At",
    "ArenaView",
    "ColdView",
    "IdRange",
    "split_plan",
    "SplitPlan",
    "SplitMemo",
    "plan_from_firsts",
    "guess_plan",
    "gaps",
    "in_ranges",
    "split_arena",
    "OpenList",
    "thicket_error",
    "list_elem",
    "opt_child",
    "div_int",
    "rem_int",
    "shift_int",
    "map_index",
    "map_get_or",
    "map_remove",
    "map_ref",
    "concat_str",
    "min_i64",
    "max_i64",
    "min_f64",
    "max_f64",
    "substr_checked",
    "checked_index",
    "checked_index_mut",
    "array_slice",
    "array_slice_in_place",
    "array_insert_at",
    "array_remove_at",
    "list_insert_position",
    "cast_error",
    "no_traversal",
    "WideMask",
];

/// Methods every generated type has from its derives and the blanket
/// impls of std (`clone`, `eq`, `fmt`, `into`, ...). An inherent method of
/// the same name would shadow the trait's in every call, so the methods
/// the generator names after user names (node constructors, accessors,
/// `NodeRef`'s per-hierarchy getters, `Tree`'s `push_*`) never take one.
pub(crate) const TRAIT_METHODS: &[&str] = &[
    "clone",
    "clone_from",
    "eq",
    "ne",
    "hash",
    "fmt",
    "cmp",
    "partial_cmp",
    "lt",
    "le",
    "gt",
    "ge",
    "max",
    "min",
    "clamp",
    "to_owned",
    "clone_into",
    "into",
    "from",
    "try_into",
    "try_from",
    "default",
    "borrow",
    "borrow_mut",
    "type_id",
    "to_string",
];

/// Bindings of the generated support code outside the traversal
/// functions (the typed API, the JSON glue, copies, the stack helpers):
/// `let kind = node.kind;`. No user name reaches those functions' locals,
/// but a variant named like one of them would turn a `let` into a pattern
/// (E0170), so variants avoid them too.
pub(crate) const SUPPORT_BINDINGS: &[&str] = &[
    "a",
    "admit",
    "args",
    "at",
    "bytes",
    "c",
    "cold",
    "copied",
    "copy",
    "counts",
    "e",
    "f",
    "fields",
    "found",
    "fused",
    "i",
    "id",
    "input",
    "kind",
    "left",
    "levels",
    "marker",
    "name",
    "need",
    "next",
    "node",
    "order",
    "reading",
    "root_type",
    "rt",
    "saved",
    "schema",
    "segment",
    "stack",
    "stack_low",
    "text",
    "top",
    "ty",
    "values",
    "visits",
    "ys",
    "map",
    "old",
    "new",
    "cold_id",
    "entry",
    "value",
    "slot",
    "index",
    "count",
    "len",
    "out",
    "err",
    "ok",
    "src",
    "dst",
    "parent",
    "children",
    "list",
    "list_id",
    "elem",
    "elems",
    "key",
    "pos",
];

/// The methods the generator gives enums: `name` on kind enums,
/// `from_index` on the program's enums. A variant shares the enum's
/// namespace of associated items, so none is named so.
pub(crate) const ENUM_METHODS: &[&str] = &["name", "from_index"];

/// `Tree`'s own methods (besides its per-hierarchy `push_*`).
pub(crate) const TREE_METHODS: &[&str] = &[
    "add",
    "get",
    "is_empty",
    "node_count",
    "node_bytes",
    "from_runtime",
    "to_runtime",
    "read_json",
    "write_json",
];

/// An identifier from text known to be a valid Rust identifier.
pub fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// `TextBox` → `text_box`, `IfStmt` → `if_stmt`, `AST` → `ast`: the
/// snake-case form Rust expects of functions, fields and variables. The
/// result is always one `non_snake_case` accepts: no capital letters, and
/// no run of underscores inside the name (`a__b` → `a_b`; leading and
/// trailing underscores stay, as the lint ignores them).
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    let lead = out.len() - out.trim_start_matches('_').len();
    let trail = out.len() - out.trim_end_matches('_').len();
    if lead == out.len() {
        return out;
    }
    let inner = &out[lead..out.len() - trail];
    let mut collapsed = String::with_capacity(out.len());
    collapsed.push_str(&out[..lead]);
    for c in inner.chars() {
        if !(c == '_' && collapsed.len() > lead && collapsed.ends_with('_')) {
            collapsed.push(c);
        }
    }
    collapsed.push_str(&out[out.len() - trail..]);
    collapsed
}

/// A name that is not a Rust keyword (a trailing `_` is added if it is).
pub fn safe(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// `base` (made safe), or `base_2`, `base_3`, ... whichever `taken` does
/// not hold first: the renaming rule of every namespace.
pub(crate) fn first_free(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = safe(base);
    // `use_` (a keyword made safe) goes on as `use_2`: `use__2` would
    // trip the `non_snake_case` lint.
    let stem = base.trim_end_matches('_');
    let mut name = base.clone();
    let mut k = 2;
    while taken(&name) {
        name = format!("{stem}_{k}");
        k += 1;
    }
    name
}

/// Hands out distinct identifiers within one namespace.
#[derive(Clone, Debug, Default)]
pub struct Names {
    taken: HashSet<String>,
    /// Names taken in every namespace of this kind, shared rather than
    /// copied: a program of many passes has thousands of frames, each of
    /// which would otherwise copy thousands of names.
    shared: Option<Rc<HashSet<String>>>,
    /// Whether `x` and `_x` count as one name (locals and parameters,
    /// which the generated code prefixes with `_` when they are unread,
    /// and fields, which are constructor parameters: clippy's
    /// `duplicate_underscore_argument`).
    underscore_blind: bool,
}

/// The names the generated code itself uses inside the functions that
/// run user code (traversal bodies, pure functions, fused functions,
/// entry points): parameters, locals, loop variables and bindings. A user
/// local never takes one ([`Names::for_locals`]), and a module-level
/// function never does either ([`Names::for_module`]): the local would
/// shadow it where it is called (a traversal `t`: `t(t, cx, root)`).
/// The numbered ones (`active_3`, the flag of participant 3, `arg2`, ..)
/// are taken below `numbered`, the program's widest fused function (at
/// least 128): past it they are free, which the renaming rule
/// ([`first_free`]: `active`, `active_2`, ..) needs to end.
pub(crate) fn reserved_locals(numbered: usize) -> Vec<String> {
    let mut v: Vec<String> = [
        "t",
        "cx",
        "this",
        "this_node",
        "mask",
        "m",
        "n",
        "v",
        "p",
        "items",
        "item",
        "child",
        "root",
        "r",
        "globals",
        "tree",
        "site",
        "replaced",
        "k",
        "x",
        "xs",
        "nodes",
        "before",
        "other",
        "start_kind",
        "while_limit",
        "while_iter",
        "par",
        "plan",
        "splitting",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for i in 0..numbered {
        v.push(format!("active_{i}"));
        v.push(format!("f{i}"));
        v.push(format!("i{i}"));
        v.push(format!("arg{i}"));
        v.push(format!("k{i}"));
        v.push(format!("open_{i}"));
        v.push(format!("owner_{i}"));
        v.push(format!("resume_{i}"));
    }
    v
}

impl Names {
    /// A namespace for the bindings of a generated `match` on a kind or
    /// enum (its variants): the names of [`reserved_locals`] are taken, as
    /// a variant named like a binding would turn the binding into a
    /// pattern (E0170), and so are the enums' methods ([`ENUM_METHODS`],
    /// [`TRAIT_METHODS`]): `Kind::name` would name the variant.
    pub fn for_variants(numbered: usize) -> Names {
        let mut names = Names::with_reserved_strings(reserved_locals(numbered));
        names.reserve(
            TRAIT_METHODS
                .iter()
                .chain(ENUM_METHODS)
                .chain(SUPPORT_BINDINGS)
                .copied(),
        );
        names
    }

    /// The shared set of names a user local may not take, once every
    /// module-level name is handed out (`module`): [`MODULE_NAMES`],
    /// [`reserved_locals`] and every name of `module` (a local named like a
    /// user's function or a runtime helper would shadow it in calls), and
    /// every enum variant (`variants`: a local named like a variant of its
    /// own type would be a pattern, E0170).
    pub fn locals_reserved(
        module: &Names,
        variants: &[String],
        numbered: usize,
    ) -> Rc<HashSet<String>> {
        let mut all: HashSet<String> = module.taken.clone();
        all.extend(variants.iter().cloned());
        all.extend(
            MODULE_NAMES
                .iter()
                .chain(RUNTIME_HELPERS)
                .map(|s| s.to_string()),
        );
        all.extend(reserved_locals(numbered));
        // Locals are underscore-blind (an unused parameter `x` becomes
        // `_x`): a local must not take a module name without its leading
        // underscores either, or `_x` would shadow the function `_x`.
        let trimmed: Vec<String> = all
            .iter()
            .map(|n| n.trim_start_matches('_'))
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        all.extend(trimmed);
        Rc::new(all)
    }

    /// A namespace for the locals of one generated function, with
    /// `reserved` ([`Names::locals_reserved`]) taken.
    pub fn for_locals(reserved: &Rc<HashSet<String>>) -> Names {
        Names {
            taken: HashSet::new(),
            shared: Some(Rc::clone(reserved)),
            underscore_blind: true,
        }
    }

    fn with_reserved_strings(reserved: Vec<String>) -> Names {
        Names {
            taken: reserved.into_iter().collect(),
            shared: None,
            underscore_blind: false,
        }
    }

    /// Takes `names` in this namespace.
    pub fn reserve<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        for name in names {
            let key = self.key(name).to_string();
            self.taken.insert(key);
        }
    }

    pub(crate) fn is_taken(&self, name: &str) -> bool {
        let key = self.key(name);
        self.taken.contains(key)
            || self
                .shared
                .as_ref()
                .is_some_and(|s| s.contains(name) || s.contains(key))
    }

    /// What `name` is kept as: without its leading underscores in an
    /// underscore-blind namespace.
    fn key<'n>(&self, name: &'n str) -> &'n str {
        match name.trim_start_matches('_') {
            trimmed if self.underscore_blind && !trimmed.is_empty() => trimmed,
            _ => name,
        }
    }

    /// The namespace of a generated module's items (types, functions,
    /// constants): [`MODULE_NAMES`] and [`reserved_locals`] are taken.
    pub fn for_module(numbered: usize) -> Names {
        let mut names = Names::with_reserved(MODULE_NAMES);
        names.reserve(RUNTIME_HELPERS.iter().copied());
        names.reserve(reserved_locals(numbered).iter().map(String::as_str));
        names
    }

    /// The namespace of a generated type's methods (or of members that
    /// double as methods): [`TRAIT_METHODS`] and `own` are taken.
    pub fn for_methods(own: &[&str]) -> Names {
        let mut names = Names::with_reserved(TRAIT_METHODS);
        names.reserve(own.iter().copied());
        names
    }

    /// A namespace for the fields of structs, which are also constructor
    /// parameters: underscore-blind ([`Names`]).
    pub fn for_members() -> Names {
        Names {
            underscore_blind: true,
            ..Names::default()
        }
    }

    /// A namespace in which `reserved` are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Names {
        Names {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
            shared: None,
            underscore_blind: false,
        }
    }

    /// A value's name (a function, field, method, variable): `base` in
    /// snake case ([`snake`]), then as [`Names::fresh`].
    pub fn fresh_value(&mut self, base: &str) -> Ident {
        self.fresh(&snake(base))
    }

    /// A type's or variant's name: `base` (made safe), or `base_2`,
    /// `base_3`, ... if taken (trailing underscores of `base` dropped before
    /// the suffix). Values take [`Names::fresh_value`].
    pub fn fresh(&mut self, base: &str) -> Ident {
        let name = first_free(base, |n| self.is_taken(n));
        self.taken.insert(self.key(&name).to_string());
        ident(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert_eq!(snake("TextBox"), "text_box");
        assert_eq!(snake("IfStmt"), "if_stmt");
        assert_eq!(snake("AST"), "ast");
        assert_eq!(snake("ASTNode"), "ast_node");
        assert_eq!(snake("Page2List"), "page2_list");
        assert_eq!(snake("End"), "end");
        assert_eq!(snake("_Run__GenFused_"), "_run_gen_fused_");
        assert_eq!(snake("Set_id"), "set_id");
        assert_eq!(snake("___"), "___");
    }

    #[test]
    fn fresh_names() {
        let mut n = Names::with_reserved(&["t"]);
        assert_eq!(n.fresh("t").to_string(), "t_2");
        assert_eq!(n.fresh("type").to_string(), "type_");
        assert_eq!(n.fresh("x").to_string(), "x");
        assert_eq!(n.fresh("x").to_string(), "x_2");
        assert_eq!(n.fresh("use").to_string(), "use_");
        assert_eq!(n.fresh("use").to_string(), "use_2");
        let mut members = Names::for_members();
        assert_eq!(members.fresh_value("tree").to_string(), "tree");
        assert_eq!(members.fresh_value("_Tree").to_string(), "_tree_2");
    }

    /// The generated code's numbered locals are taken up to the widest
    /// fused function, and renaming past them ends.
    #[test]
    fn numbered_locals() {
        let reserved = Names::locals_reserved(&Names::for_module(200), &[], 200);
        let mut locals = Names::for_locals(&reserved);
        assert_eq!(locals.fresh_value("active_150").to_string(), "active_150_2");
        assert_eq!(locals.fresh_value("active_200").to_string(), "active_200");
        assert_eq!(locals.fresh_value("active").to_string(), "active");
        assert_eq!(locals.fresh_value("active").to_string(), "active_201");
    }

    /// A local never takes a module name, leading underscores aside: an
    /// unused parameter `become_cold_2` is written `_become_cold_2`,
    /// which would shadow a traversal's dispatcher of that name where it
    /// is called (hostile program 62005).
    #[test]
    fn locals_avoid_module_names_without_their_underscores() {
        let mut module = Names::for_module(0);
        assert_eq!(
            module.fresh_value("_become_cold_2").to_string(),
            "_become_cold_2"
        );
        let reserved = Names::locals_reserved(&module, &[], 0);
        let mut locals = Names::for_locals(&reserved);
        let local = locals.fresh_value("become_cold_2").to_string();
        assert_ne!(local, "become_cold_2");
        assert_ne!(local.trim_start_matches('_'), "become_cold_2");
    }
}
